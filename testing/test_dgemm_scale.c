/*
 * test_dgemm_scale.c — ft_dgemm at the ends of the exponent range (issue 7, holes 1 and 2):
 *  - A, B ~ 1e152 (C ~ 1e305, finite), C ~ 1e307 (its check sums beyond the range), C0 ~ 1e307,
 *    op(A)'s row norms beyond the range with C ~ 1e7: every check is evaluated (nothing
 *    unchecked: the sums are formed from scaled elements), no alarm
 *    without a fault, and a fault in C is detected and corrected (the threshold used to be
 *    formed before the multiplication by u and overflowed, switching protection off);
 *  - subnormal entries in B times large A or alpha (the underflow term of the threshold must
 *    scale with |alpha| and the row norms): no alarm, no "correction", status 0 — from
 *    m = n = k = 1 up to 200 x 150 x 300, mixed with normal entries;
 *  - subnormal data with a fault far above them: detected and corrected.
 * Argument: cpu or cuda.
 */
#include "testing_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ft_device_t g_dev;

typedef struct {
    int m, n, k;
    double alpha, beta;
    double *A, *B, *C0, *C;
} prob_t;

static void prob_alloc(prob_t *p, int m, int n, int k, double alpha, double beta)
{
    p->m = m, p->n = n, p->k = k, p->alpha = alpha, p->beta = beta;
    p->A = malloc(sizeof(double) * m * k);
    p->B = malloc(sizeof(double) * k * n);
    p->C0 = malloc(sizeof(double) * m * n);
    p->C = malloc(sizeof(double) * m * n);
}

static void prob_free(prob_t *p) { free(p->A), free(p->B), free(p->C0), free(p->C); }

/* Run ft_dgemm_ex (NN) on p with an optional fault; return the status, fill rep. */
static int run(prob_t *p, const ft_fault_t *f, ft_report_t *rep)
{
    ft_context_t *ctx;
    if (ft_context_create(&ctx, g_dev) != 0) return -1;
    if (f) ft_inject_add(ctx, f);
    memcpy(p->C, p->C0, sizeof(double) * p->m * p->n);
    tu_poison_report(rep);
    int st = ft_dgemm_ex(ctx, 'N', 'N', p->m, p->n, p->k, p->alpha, p->A, p->m, p->B, p->k,
                         p->beta, p->C, p->m, rep);
    ft_context_destroy(ctx);
    return st;
}

/* Max componentwise error of C against a long double reference, in units of
 * eps * (|alpha| sum |a b| + |beta| |c0|) (DMMCH's measure); subnormal gauges use eta. */
static double worst_ratio(const prob_t *p)
{
    double worst = 0.0;
    for (int j = 0; j < p->n; j++)
        for (int i = 0; i < p->m; i++) {
            long double s = 0.0L;
            long double mag = 0.0L;
            for (int l = 0; l < p->k; l++) {
                long double t = (long double)p->A[i + (size_t)l * p->m] * p->B[l + (size_t)j * p->k];
                s += t;
                mag += fabsl(t);
            }
            long double ref = (long double)p->alpha * s + (long double)p->beta * p->C0[i + (size_t)j * p->m];
            long double gauge = fabsl((long double)p->alpha) * mag +
                                fabsl((long double)p->beta * p->C0[i + (size_t)j * p->m]);
            /* plus the underflow allowance: k products and the scaling, eta/2 each */
            gauge = gauge * 2.220446049250313e-16L +
                    (long double)(p->k + 2) * 4.9406564584124654e-324L * (1.0L + fabsl((long double)p->alpha));
            double r = gauge > 0 ? (double)(fabsl(p->C[i + (size_t)j * p->m] - ref) / gauge) : 0.0;
            if (!(r <= worst)) worst = r;
        }
    return worst;
}

static void fill_scaled(tu_rng_t *rng, double *x, int64_t n, double scale)
{
    for (int64_t i = 0; i < n; i++) x[i] = (2.0 * tu_uniform(rng) - 1.0) * scale;
}

static void huge_case(tu_rng_t *rng, int m, int n, int k, double sa, double sb, double beta,
                      double sc, const char *what)
{
    prob_t p;
    prob_alloc(&p, m, n, k, 1.0, beta);
    fill_scaled(rng, p.A, (int64_t)m * k, sa);
    fill_scaled(rng, p.B, (int64_t)k * n, sb);
    fill_scaled(rng, p.C0, (int64_t)m * n, sc);
    ft_report_t rep;
    int st = run(&p, NULL, &rep);
    TU_CHECK(st == 0 && rep.detected == 0 && rep.unchecked == 0 && rep.checks > 0,
             "%s, no fault: status %d detected %lld unchecked %lld checks %lld", what, st,
             (long long)rep.detected, (long long)rep.unchecked, (long long)rep.checks);
    double r = worst_ratio(&p);
    TU_CHECK(r < 16, "%s, no fault: element ratio %.3g", what, r);
    ft_fault_t f = {.region = FT_REGION_C, .row = m / 3, .col = n / 2, .bit = 61, .call = -1,
                    .step = -1};
    st = run(&p, &f, &rep);
    r = worst_ratio(&p);
    TU_CHECK(st == 0 && rep.injected == 1 && rep.corrected == 1 && rep.unchecked == 0 && r < 16,
             "%s, bit 61 fault: status %d injected %lld corrected %lld unchecked %lld ratio %.3g",
             what, st, (long long)rep.injected, (long long)rep.corrected,
             (long long)rep.unchecked, r);
    prob_free(&p);
}

static void subnormal_case(tu_rng_t *rng, int m, int n, int k, double alpha, double sa,
                           double frac_sub, int fault, const char *what)
{
    prob_t p;
    prob_alloc(&p, m, n, k, alpha, 0.0);
    fill_scaled(rng, p.A, (int64_t)m * k, sa);
    for (int64_t i = 0; i < (int64_t)k * n; i++)
        p.B[i] = tu_uniform(rng) < frac_sub ? (2.0 * tu_uniform(rng) - 1.0) * 1e-310
                                            : (2.0 * tu_uniform(rng) - 1.0) * 1e-300;
    fill_scaled(rng, p.C0, (int64_t)m * n, 1.0);
    ft_report_t rep;
    ft_fault_t f = {.region = FT_REGION_C, .row = m - 1, .col = 0, .bit = -1, .call = -1,
                    .step = -1};
    int st = run(&p, NULL, &rep);
    TU_CHECK(st == 0 && rep.detected == 0 && rep.corrected == 0 && rep.checksum_errors == 0,
             "%s: status %d detected %lld corrected %lld checksum errors %lld (false alarm)", what,
             st, (long long)rep.detected, (long long)rep.corrected,
             (long long)rep.checksum_errors);
    if (fault) {
        /* a fault far above the data's magnitude */
        double big = 0.0;
        for (int64_t i = 0; i < (int64_t)m * n; i++) big = fmax(big, fabs(p.C[i]));
        f.value = big * 1e6 + 1e-290;
        st = run(&p, &f, &rep);
        TU_CHECK(st == 0 && rep.injected == 1 && rep.corrected == 1,
                 "%s, fault %.3g: status %d injected %lld corrected %lld", what, f.value, st,
                 (long long)rep.injected, (long long)rep.corrected);
        double r = worst_ratio(&p);
        TU_CHECK(r < 16, "%s, fault: element ratio %.3g", what, r);
    }
    prob_free(&p);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    tu_rng_t rng;
    tu_seed(&rng, 1521);
    huge_case(&rng, 200, 180, 16, 1e152, 1e152, 0.0, 1.0, "A, B ~ 1e152 (C ~ 1e305)");
    huge_case(&rng, 64, 64, 300, 1e150, 3e151, 0.0, 1.0, "A ~ 1e150, B ~ 3e151, k 300");
    huge_case(&rng, 120, 90, 50, 1e-150, 1e-150, 0.0, 1.0, "A, B ~ 1e-150");
    /* the sums of |C| over a check exceed the range although every element is finite: the
     * checksums are formed from scaled elements (abft_gemm_rscale), every check is evaluated */
    huge_case(&rng, 150, 300, 4, 1.5e153, 1.5e153, 0.0, 1.0, "A, B ~ 1.5e153, k 4 (C ~ 1e307)");
    huge_case(&rng, 150, 300, 4, 1.5e153, 1.5e153, 0.5, 1e307,
              "A, B ~ 1.5e153, k 4, beta 0.5, C0 ~ 1e307");
    huge_case(&rng, 300, 150, 4, 1e-10, 1e-10, 1.0, 1.5e307, "A, B ~ 1e-10, C0 ~ 1.5e307");
    /* the row norms of op(A) exceed the range although C is ~1e7 */
    huge_case(&rng, 100, 80, 500, 1e306, 1e-299, 0.0, 1.0, "A ~ 1e306, B ~ 1e-299 (C ~ 1e7)");
    /* subnormal entries of B times large A or alpha */
    const double big[][2] = {{1.0, 1e300}, {1e300, 1.0}, {1e150, 1e150}, {1.0, 1.0}};
    for (int c = 0; c < 4; c++) {
        char what[96];
        snprintf(what, sizeof what, "1x1x1 alpha %g, A %g, B subnormal", big[c][0], big[c][1]);
        subnormal_case(&rng, 1, 1, 1, big[c][0], big[c][1], 1.0, 0, what);
        snprintf(what, sizeof what, "200x150x300 alpha %g, A %g, B 30%% subnormal", big[c][0],
                 big[c][1]);
        subnormal_case(&rng, 200, 150, 300, big[c][0], big[c][1], 0.3, 0, what);
        snprintf(what, sizeof what, "64x64x64 alpha %g, A %g, B all subnormal", big[c][0],
                 big[c][1]);
        subnormal_case(&rng, 64, 64, 64, big[c][0], big[c][1], 1.0, 1, what);
    }
    return tu_finish();
}
