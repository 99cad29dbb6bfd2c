/*
 * test_dgemm_tmr.c — ft_dgemm's TMR mode (policy.protect = FT_PROTECT_TMR, docs/dgemm.md
 * "TMR"): three products and an element-wise vote.
 *
 *   - without faults, for every transpose pair, alpha/beta (0, 1, other), sizes 1 ... 513 with
 *     ld > rows and a NaN in A: status 0, nothing detected, m n checks counted, the result bit
 *     for bit that of the plain product (a FT_PROTECT_OFF context on the same backend);
 *   - one fault in the result (sign, exponent and low mantissa bits), in replica 1, in replica
 *     2, faults in three different elements: outvoted, the report counts each (detected,
 *     corrected, the event at the first element), the result bit for bit the fault-free one;
 *   - one element hit in the result and in replica 1 (all three differ): a fourth product
 *     settles it (recomputed 1), the result exact;
 *   - one element hit in all three replicas: the fourth product agrees with none, reported
 *     FT_ERR_UNCORRECTABLE (never silent);
 *   - a fault in A during the call (after the first product): FT_ERR_UNCORRECTABLE, A restored;
 *   - the policy: FT_PROTECT_TMR accepted, 3 refused; ft_dgeqrf under FT_PROTECT_TMR runs its
 *     checksum protection (checks counted, status 0).
 *
 * Usage: test_dgemm_tmr [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L
#include "testing_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ft_device_t g_dev;

static ft_context_t *context(int protect)
{
    ft_context_t *ctx = tu_make_context(g_dev, 0, -1);
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.protect = protect;
    int st = ft_context_set_policy(ctx, &p);
    TU_CHECK(st == 0, "set policy protect %d: %s", protect, ft_strerror(st));
    ft_inject_seed(ctx, 11);
    return ctx;
}

typedef struct {
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
    double *A, *B, *C0, *Cp, *C;
} prob_t;

static void prob_init(prob_t *p, tu_rng_t *rng, ft_context_t *off, char ta, char tb, int64_t m,
                      int64_t n, int64_t k, double alpha, double beta, int nan)
{
    memset(p, 0, sizeof *p);
    p->ta = ta, p->tb = tb, p->m = m, p->n = n, p->k = k, p->alpha = alpha, p->beta = beta;
    const int64_t ra = tu_nrows(ta, m, k), ca = tu_nrows(ta, k, m);
    const int64_t rb = tu_nrows(tb, k, n), cb = tu_nrows(tb, n, k);
    p->lda = ra + 2, p->ldb = rb + 1, p->ldc = m + 3;
    p->A = tu_malloc(p->lda * ca), p->B = tu_malloc(p->ldb * cb);
    p->C0 = tu_malloc(p->ldc * n), p->Cp = tu_malloc(p->ldc * n), p->C = tu_malloc(p->ldc * n);
    tu_set_all(p->lda, ca, p->A, 0.25);
    tu_fill(rng, ra, ca, p->A, p->lda);
    tu_fill(rng, rb, cb, p->B, p->ldb);
    tu_set_all(p->ldc, n, p->C0, -7.0);
    tu_fill(rng, m, n, p->C0, p->ldc);
    if (nan && ra > 0 && ca > 0) p->A[(ra - 1) / 2 + (ca - 1) / 2 * p->lda] = NAN;
    /* the plain product, same backend */
    memcpy(p->Cp, p->C0, sizeof(double) * (size_t)(p->ldc * n));
    int st = ft_dgemm_ex(off, ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, p->A, (ft_int)p->lda,
                         p->B, (ft_int)p->ldb, beta, p->Cp, (ft_int)p->ldc, NULL);
    TU_CHECK(st == 0, "plain product: %s", ft_strerror(st));
}

static void prob_free(prob_t *p) { free(p->A), free(p->B), free(p->C0), free(p->Cp), free(p->C); }

static int run(ft_context_t *ctx, prob_t *p, const ft_fault_t *f, int nf, ft_report_t *rep)
{
    memcpy(p->C, p->C0, sizeof(double) * (size_t)(p->ldc * p->n));
    for (int i = 0; i < nf; i++) TU_CHECK(ft_inject_add(ctx, &f[i]) == 0, "ft_inject_add");
    tu_poison_report(rep);
    int st =
        ft_dgemm_ex(ctx, p->ta, p->tb, (ft_int)p->m, (ft_int)p->n, (ft_int)p->k, p->alpha, p->A,
                    (ft_int)p->lda, p->B, (ft_int)p->ldb, p->beta, p->C, (ft_int)p->ldc, rep);
    ft_inject_clear(ctx);
    return st;
}

/* C equals the plain product bit for bit, and the rows below m are untouched. */
static int same_as_plain(const prob_t *p)
{
    for (int64_t j = 0; j < p->n; j++)
        if (memcmp(p->C + j * p->ldc, p->Cp + j * p->ldc, sizeof(double) * (size_t)p->ldc))
            return 0;
    return 1;
}

static ft_fault_t fault(ft_region_t reg, int64_t row, int64_t col, int bit, int64_t step)
{
    return (ft_fault_t){
        .region = reg, .row = row, .col = col, .bit = bit, .value = 0.0, .call = -1, .step = step};
}

static void clean_cases(ft_context_t *tmr, ft_context_t *off, tu_rng_t *rng)
{
    const int64_t sz[][3] = {{1, 1, 1}, {17, 5, 3}, {200, 130, 70}, {513, 300, 257}, {64, 64, 0}};
    const double ab[][2] = {{1.0, 0.0}, {-0.5, 1.0}, {2.0, 0.25}, {0.0, 3.0}};
    const char *tr = "NT";
    int ncase = 0;
    for (size_t s = 0; s < sizeof sz / sizeof sz[0]; s++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
                    const int nan = s == 2 && c == 1;
                    prob_t p;
                    prob_init(&p, rng, off, tr[a], tr[b], sz[s][0], sz[s][1], sz[s][2], ab[c][0],
                              ab[c][1], nan);
                    ft_report_t rep;
                    int st = run(tmr, &p, NULL, 0, &rep);
                    const int product = p.k > 0 && p.alpha != 0.0;
                    /* a quick return (no product, beta = 1) selects no backend */
                    const int quick = !product && p.beta == 1.0;
                    TU_CHECK(st == 0 && rep.status == 0 && rep.detected == 0 &&
                                 rep.corrected == 0 && rep.uncorrectable == 0 &&
                                 rep.checks == (product ? p.m * p.n : 0) &&
                                 (quick || rep.backend == tu_expected_backend(g_dev)),
                             "TMR %c%c %lldx%lldx%lld alpha %g beta %g%s: status %d detected "
                             "%lld checks %lld",
                             p.ta, p.tb, (long long)p.m, (long long)p.n, (long long)p.k, p.alpha,
                             p.beta, nan ? " (NaN in A)" : "", st, (long long)rep.detected,
                             (long long)rep.checks);
                    TU_CHECK(same_as_plain(&p),
                             "TMR %c%c %lldx%lldx%lld alpha %g beta %g%s: "
                             "result differs from the plain product",
                             p.ta, p.tb, (long long)p.m, (long long)p.n, (long long)p.k, p.alpha,
                             p.beta, nan ? " (NaN in A)" : "");
                    prob_free(&p);
                    ncase++;
                }
    printf("clean: %d cases\n", ncase);
}

static void fault_cases(ft_context_t *tmr, ft_context_t *off, tu_rng_t *rng)
{
    prob_t p;
    prob_init(&p, rng, off, 'N', 'T', 300, 220, 90, 1.5, -0.75, 0);
    ft_report_t rep;
    /* one fault in one replica: outvoted */
    const int bits[] = {63, 62, 52, 40, 10, 0};
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
        for (int rep_i = 0; rep_i < 3; rep_i++) {
            ft_fault_t f = fault(rep_i == 0 ? FT_REGION_C : FT_REGION_CHECKSUM, 123, 77, bits[b],
                                 rep_i == 2 ? 2 : -1);
            int st = run(tmr, &p, &f, 1, &rep);
            TU_CHECK(st == 0 && rep.injected == 1 && rep.detected == 1 && rep.corrected == 1 &&
                         rep.recomputed == 0 && rep.uncorrectable == 0,
                     "bit %d in replica %d: status %d injected %lld detected %lld corrected %lld",
                     bits[b], rep_i, st, (long long)rep.injected, (long long)rep.detected,
                     (long long)rep.corrected);
            TU_CHECK(tu_find_event(&rep, FT_EVENT_CORRECTED, 123, 77),
                     "bit %d in replica %d: no correction event at (123, 77)", bits[b], rep_i);
            TU_CHECK(same_as_plain(&p), "bit %d in replica %d: result not the fault-free one",
                     bits[b], rep_i);
        }
    /* three elements, three replicas */
    ft_fault_t f3[3] = {fault(FT_REGION_C, 0, 0, 61, -1),
                        fault(FT_REGION_CHECKSUM, 299, 219, 5, -1),
                        fault(FT_REGION_CHECKSUM, 150, 3, 55, 2)};
    int st = run(tmr, &p, f3, 3, &rep);
    TU_CHECK(st == 0 && rep.detected == 3 && rep.corrected == 3 && same_as_plain(&p),
             "three faults in three replicas: status %d detected %lld corrected %lld", st,
             (long long)rep.detected, (long long)rep.corrected);
    /* one element in the result and in replica 1: all three differ, a fourth product */
    ft_fault_t f2[2] = {fault(FT_REGION_C, 45, 100, 58, -1),
                        fault(FT_REGION_CHECKSUM, 45, 100, 20, -1)};
    st = run(tmr, &p, f2, 2, &rep);
    TU_CHECK(st == 0 && rep.detected == 1 && rep.corrected == 0 && rep.recomputed == 1 &&
                 rep.uncorrectable == 0 && tu_find_event(&rep, FT_EVENT_RECOMPUTED, -1, -1) &&
                 same_as_plain(&p),
             "one element in two replicas: status %d detected %lld recomputed %lld", st,
             (long long)rep.detected, (long long)rep.recomputed);
    /* one element in all three replicas: the fourth product agrees with none */
    ft_fault_t f33[3] = {fault(FT_REGION_C, 7, 8, 62, -1), fault(FT_REGION_CHECKSUM, 7, 8, 30, -1),
                         fault(FT_REGION_CHECKSUM, 7, 8, 3, 2)};
    st = run(tmr, &p, f33, 3, &rep);
    TU_CHECK(st == FT_ERR_UNCORRECTABLE && rep.status == FT_ERR_UNCORRECTABLE &&
                 rep.uncorrectable == 1 && tu_find_event(&rep, FT_EVENT_UNCORRECTABLE, -1, -1),
             "one element in three replicas: status %d (want FT_ERR_UNCORRECTABLE) "
             "uncorrectable %lld",
             st, (long long)rep.uncorrectable);
    /* A changed during the call */
    double *A0 = tu_malloc(p.lda * p.k);
    memcpy(A0, p.A, sizeof(double) * (size_t)(p.lda * p.k));
    ft_fault_t fa = fault(FT_REGION_A, 17, 30, 51, -1);
    st = run(tmr, &p, &fa, 1, &rep);
    TU_CHECK(st == FT_ERR_UNCORRECTABLE && rep.uncorrectable >= 1 &&
                 tu_find_event(&rep, FT_EVENT_UNCORRECTABLE, -1, 30),
             "a fault in A: status %d (want FT_ERR_UNCORRECTABLE)", st);
    TU_CHECK(!memcmp(A0, p.A, sizeof(double) * (size_t)(p.lda * p.k)),
             "a fault in A: A not restored");
    free(A0);
    prob_free(&p);
}

static void policy_cases(tu_rng_t *rng)
{
    ft_context_t *ctx = tu_make_context(g_dev, 0, -1);
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.protect = 3;
    TU_CHECK(ft_context_set_policy(ctx, &p) == FT_ERR_INVALID_VALUE, "protect 3 accepted");
    p.protect = FT_PROTECT_TMR;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "FT_PROTECT_TMR refused");
    const int64_t m = 300, n = 200;
    double *A = tu_malloc(m * n), *tau = tu_malloc(n), *work = tu_malloc(64 * n);
    tu_fill(rng, m, n, A, m);
    ft_report_t rep;
    tu_poison_report(&rep);
    ft_int info = 0;
    int st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, A, (ft_int)m, tau, work, (ft_int)(64 * n),
                          &info, &rep);
    TU_CHECK(st == 0 && info == 0 && rep.checks > 0 && rep.detected == 0,
             "ft_dgeqrf under FT_PROTECT_TMR: status %d checks %lld", st, (long long)rep.checks);
    free(A), free(tau), free(work);
    ft_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    tu_rng_t rng;
    tu_seed(&rng, 2026);
    ft_context_t *tmr = context(FT_PROTECT_TMR), *off = context(FT_PROTECT_OFF);
    clean_cases(tmr, off, &rng);
    fault_cases(tmr, off, &rng);
    policy_cases(&rng);
    ft_context_destroy(tmr);
    ft_context_destroy(off);
    return tu_finish();
}
