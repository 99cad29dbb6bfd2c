/*
 * test_dgemm_ooc.c — ft_dgemm out of core (docs/dgemm.md "Out of core"): host data larger than
 * the work memory the call may use (policy.gpu_memory), C in blocks, A and B in chunks of k.
 *
 *   - the plan (dgemm_ooc_plan): within the budget, covering m, n, k, equal blocks;
 *   - results against the reference for every transpose pair, alpha/beta (0, 1, other), uneven
 *     edges, k split in 2 ... 7 chunks, several blocks, ld > rows; C := beta C (k = 0);
 *     protection off and TMR too; the rows below m untouched;
 *   - that the blocked path ran: a fault planned for sub-product t (fault.step) is injected
 *     only if t exists, and corrected (ABFT and TMR);
 *   - a pattern the ABFT checks cannot correct in place, in a chunk with beta = 1 (no backup
 *     out of core): the block is computed again from the caller's C (recomputed, status 0);
 *   - a budget nothing fits in: FT_ERR_TOO_LARGE, C untouched.
 *
 * Usage: test_dgemm_ooc [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L
#include "blas3/dgemm_internal.h"
#include "testing_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ft_device_t g_dev;

static ft_context_t *context(int protect, double limit, int tile)
{
    ft_context_t *ctx = tu_make_context(g_dev, tile, -1);
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.protect = protect;
    p.gpu_memory = limit;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "set policy (limit %g)", limit);
    ft_inject_seed(ctx, 5);
    return ctx;
}

static void plan_cases(void)
{
    ft_policy_t pol;
    memset(&pol, 0, sizeof pol);
    pol.protect = 1;
    const int64_t sh[][4] = {{1000, 900, 800, 400000},  {5000, 5000, 5000, 8000000},
                             {300, 7, 2000, 30000},     {7, 300, 2000, 30000},
                             {32768, 32768, 32768, (int64_t)1 << 30}};
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        dgemm_ooc_plan_t p;
        int st = dgemm_ooc_plan(&pol, 'N', 'N', sh[s][0], sh[s][1], sh[s][2], sh[s][3], &p);
        TU_CHECK(st == 0, "plan %lld x %lld x %lld in %lld: %s", (long long)sh[s][0],
                 (long long)sh[s][1], (long long)sh[s][2], (long long)sh[s][3], ft_strerror(st));
        if (st) continue;
        TU_CHECK(p.elems <= sh[s][3] && p.mc * p.nbm >= sh[s][0] && p.nc * p.nbn >= sh[s][1] &&
                     p.kc * p.nbk >= sh[s][2] && (p.nbm - 1) * p.mc < sh[s][0] &&
                     (p.nbn - 1) * p.nc < sh[s][1] && (p.nbk - 1) * p.kc < sh[s][2],
                 "plan %lld x %lld x %lld: blocks %lld x %lld x %lld of %lld x %lld x %lld, "
                 "%lld elements", (long long)sh[s][0], (long long)sh[s][1], (long long)sh[s][2],
                 (long long)p.nbm, (long long)p.nbn, (long long)p.nbk, (long long)p.mc,
                 (long long)p.nc, (long long)p.kc, (long long)p.elems);
    }
    /* two C buffers, chunks of s / 4: the same invariants, and no more blocks when chosen */
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        dgemm_ooc_plan_t p1, p2, pc;
        const int st1 = dgemm_ooc_plan(&pol, 'N', 'N', sh[s][0], sh[s][1], sh[s][2], sh[s][3], &p1);
        const int st2 =
            dgemm_ooc_plan2(&pol, 'N', 'N', sh[s][0], sh[s][1], sh[s][2], sh[s][3], &p2);
        const int stc = dgemm_ooc_choose(&pol, FT_DEVICE_CUDA, 'N', 'N', sh[s][0], sh[s][1],
                                         sh[s][2], sh[s][3], &pc);
        TU_CHECK(st1 == 0 && stc == 0 && p1.ncbuf == 1 && (pc.ncbuf == 1 || pc.ncbuf == 2) &&
                     pc.nbm * pc.nbn <= p1.nbm * p1.nbn && pc.elems <= sh[s][3],
                 "choose %lld x %lld x %lld: %d %d, buffers %d, blocks %lld against %lld",
                 (long long)sh[s][0], (long long)sh[s][1], (long long)sh[s][2], st1, stc,
                 pc.ncbuf, (long long)(pc.nbm * pc.nbn), (long long)(p1.nbm * p1.nbn));
        if (st2) continue;
        TU_CHECK(p2.ncbuf == 2 && p2.elems <= sh[s][3] && p2.mc * p2.nbm >= sh[s][0] &&
                     p2.nc * p2.nbn >= sh[s][1] && p2.kc * p2.nbk >= sh[s][2] &&
                     (p2.nbm - 1) * p2.mc < sh[s][0] && (p2.nbn - 1) * p2.nc < sh[s][1] &&
                     (p2.nbk - 1) * p2.kc < sh[s][2],
                 "plan2 %lld x %lld x %lld: blocks %lld x %lld x %lld of %lld x %lld x %lld",
                 (long long)sh[s][0], (long long)sh[s][1], (long long)sh[s][2],
                 (long long)p2.nbm, (long long)p2.nbn, (long long)p2.nbk, (long long)p2.mc,
                 (long long)p2.nc, (long long)p2.kc);
    }
    /* 32768^3 in 8 GB: 2 x 2 blocks either way, so two buffers are chosen on CUDA */
    {
        dgemm_ooc_plan_t pc;
        TU_CHECK(dgemm_ooc_choose(&pol, FT_DEVICE_CUDA, 'N', 'N', 32768, 32768, 32768,
                                  (int64_t)1000000000, &pc) == 0 &&
                     pc.ncbuf == 2 && pc.nbm == 2 && pc.nbn == 2 && pc.nbk == 8,
                 "32768^3 in 8 GB on CUDA: %d buffer(s), %lld x %lld x %lld", pc.ncbuf,
                 (long long)pc.nbm, (long long)pc.nbn, (long long)pc.nbk);
    }
    dgemm_ooc_plan_t p;
    TU_CHECK(dgemm_ooc_plan(&pol, 'N', 'N', 1000, 1000, 1000, 50, &p) == FT_ERR_TOO_LARGE,
             "a budget of 50 elements accepted");
}

typedef struct {
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
    double *A, *B, *C0, *C, *R;
} prob_t;

static void prob_init(prob_t *p, tu_rng_t *rng, char ta, char tb, int64_t m, int64_t n,
                      int64_t k, double alpha, double beta)
{
    memset(p, 0, sizeof *p);
    p->ta = ta, p->tb = tb, p->m = m, p->n = n, p->k = k, p->alpha = alpha, p->beta = beta;
    const int64_t ra = tu_nrows(ta, m, k), ca = tu_nrows(ta, k, m);
    const int64_t rb = tu_nrows(tb, k, n), cb = tu_nrows(tb, n, k);
    p->lda = ra + 3, p->ldb = rb + 1, p->ldc = m + 2;
    p->A = tu_malloc(p->lda * (ca > 0 ? ca : 1)), p->B = tu_malloc(p->ldb * (cb > 0 ? cb : 1));
    p->C0 = tu_malloc(p->ldc * n), p->C = tu_malloc(p->ldc * n), p->R = tu_malloc(p->ldc * n);
    tu_fill(rng, p->lda, ca, p->A, p->lda);
    tu_fill(rng, p->ldb, cb, p->B, p->ldb);
    tu_fill(rng, p->ldc, n, p->C0, p->ldc);
    memcpy(p->R, p->C0, sizeof(double) * (size_t)(p->ldc * n));
    tu_ref_dgemm(ta, tb, m, n, k, alpha, p->A, p->lda, p->B, p->ldb, beta, p->R, p->ldc);
}

static void prob_free(prob_t *p) { free(p->A), free(p->B), free(p->C0), free(p->C), free(p->R); }

static int run(ft_context_t *ctx, prob_t *p, const ft_fault_t *f, int nf, ft_report_t *rep)
{
    memcpy(p->C, p->C0, sizeof(double) * (size_t)(p->ldc * p->n));
    for (int i = 0; i < nf; i++) TU_CHECK(ft_inject_add(ctx, &f[i]) == 0, "ft_inject_add");
    tu_poison_report(rep);
    int st = ft_dgemm_ex(ctx, p->ta, p->tb, (ft_int)p->m, (ft_int)p->n, (ft_int)p->k, p->alpha,
                         p->A, (ft_int)p->lda, p->B, (ft_int)p->ldb, p->beta, p->C,
                         (ft_int)p->ldc, rep);
    ft_inject_clear(ctx);
    return st;
}

/* error ratio against the reference, and the padding rows below m untouched */
static int result_ok(const prob_t *p, double *ratio)
{
    *ratio = tu_gemm_ratio(p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->A, p->lda, p->B, p->ldb,
                           p->beta, p->C0, p->ldc, p->C, p->ldc, p->R, p->ldc);
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = p->m; i < p->ldc; i++)
            if (memcmp(&p->C[i + j * p->ldc], &p->C0[i + j * p->ldc], sizeof(double))) return 0;
    return *ratio < 30.0;
}

/* The work memory (bytes) that makes k come in `chunks` chunks for an m x n x k product: the
 * plan's own arithmetic, searched. */
static double limit_for(int protect, char ta, char tb, int64_t m, int64_t n, int64_t k,
                        int chunks)
{
    ft_policy_t pol;
    memset(&pol, 0, sizeof pol);
    pol.protect = protect;
    for (int64_t b = 8 * (m * n + m * k + k * n) * 4; b > 64; b = b * 15 / 16) {
        dgemm_ooc_plan_t p;
        if (dgemm_ooc_plan(&pol, ta, tb, m, n, k, b / 8, &p)) break;
        if (p.nbk >= chunks) return (double)b;
    }
    return 0.0;
}

static void result_cases(tu_rng_t *rng)
{
    const int64_t sz[][3] = {{301, 257, 411}, {97, 513, 200}, {640, 64, 999}};
    const double ab[][2] = {{1.0, 0.0}, {-0.5, 1.0}, {2.0, 0.25}};
    const char *tr = "NT";
    int n_ooc = 0, n_two = 0; /* cases, and those with two C buffers (CUDA) */
    for (size_t s = 0; s < sizeof sz / sizeof sz[0]; s++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
                    const int chunks = 2 + (int)((s * 4 + (size_t)a * 2 + (size_t)b + c) % 6);
                    const int protect = c == 2 && s == 1 ? FT_PROTECT_TMR
                                        : c == 1 && s == 2 ? FT_PROTECT_OFF
                                                           : FT_PROTECT_ABFT;
                    const double lim = limit_for(protect, tr[a], tr[b], sz[s][0], sz[s][1],
                                                 sz[s][2], chunks);
                    TU_CHECK(lim > 0, "no limit gives %d chunks", chunks);
                    ft_context_t *ctx = context(protect, lim, 0);
                    prob_t p;
                    prob_init(&p, rng, tr[a], tr[b], sz[s][0], sz[s][1], sz[s][2], ab[c][0],
                              ab[c][1]);
                    /* a fault in C at the last sub-product proves the blocked path ran */
                    ft_policy_t pol;
                    ft_context_get_policy(ctx, &pol);
                    dgemm_ooc_plan_t pl;
                    dgemm_ooc_choose(&pol, ft_context_device(ctx), p.ta, p.tb, p.m, p.n, p.k,
                                     (int64_t)(lim / 8), &pl);
                    const int64_t last = pl.nbm * pl.nbn * pl.nbk - 1;
                    ft_fault_t f = {.region = FT_REGION_C, .row = 1, .col = 2, .bit = 61,
                                    .call = -1, .step = last};
                    ft_report_t rep;
                    const int with_fault = protect != FT_PROTECT_OFF;
                    int st = run(ctx, &p, &f, with_fault, &rep);
                    double ratio;
                    const int ok = result_ok(&p, &ratio);
                    TU_CHECK(st == 0 && ok &&
                                 (!with_fault || (rep.injected == 1 && rep.corrected == 1)),
                             "%c%c %lldx%lldx%lld alpha %g beta %g protect %d, %d chunks "
                             "(%lld x %lld x %lld blocks): status %d ratio %.3g injected %lld "
                             "corrected %lld", p.ta, p.tb, (long long)p.m, (long long)p.n,
                             (long long)p.k, p.alpha, p.beta, protect, chunks, (long long)pl.nbm,
                             (long long)pl.nbn, (long long)pl.nbk, st, ratio,
                             (long long)rep.injected, (long long)rep.corrected);
                    TU_CHECK(pl.nbk >= 2, "%d chunks asked, the plan has %lld", chunks,
                             (long long)pl.nbk);
                    n_ooc++;
                    n_two += pl.ncbuf == 2;
                    prob_free(&p);
                    ft_context_destroy(ctx);
                }
    printf("results: %d out-of-core cases, %d with two C buffers\n", n_ooc, n_two);
    /* on CUDA some cases have several blocks and two buffers: the storer thread ran */
    if (g_dev != FT_DEVICE_CPU)
        TU_CHECK(n_two > 0, "no case stored a block while the next one computed");
    /* C := beta C (k = 0) and alpha = 0 out of core */
    for (int kind = 0; kind < 2; kind++) {
        ft_context_t *ctx = context(FT_PROTECT_ABFT, 640000.0, 0);
        prob_t p;
        prob_init(&p, rng, 'N', 'N', 300, 200, kind ? 50 : 0, kind ? 0.0 : 1.0, -2.0);
        ft_report_t rep;
        int st = run(ctx, &p, NULL, 0, &rep);
        double ratio;
        TU_CHECK(st == 0 && result_ok(&p, &ratio), "C := beta C out of core (%s): status %d",
                 kind ? "alpha 0" : "k 0", st);
        prob_free(&p);
        ft_context_destroy(ctx);
    }
}

static void recompute_cases(tu_rng_t *rng)
{
    /* a 3 x 3 pattern in one tile of a beta = 1 chunk: not correctable in place without a
     * backup; the block is computed again */
    prob_t p;
    prob_init(&p, rng, 'N', 'N', 256, 256, 600, 1.0, 0.5);
    const double lim = limit_for(FT_PROTECT_ABFT, 'N', 'N', 256, 256, 600, 3);
    ft_context_t *ctx = context(FT_PROTECT_ABFT, lim, 64);
    ft_fault_t f[9];
    int nf = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f[nf++] = (ft_fault_t){.region = FT_REGION_C, .row = 10 + 7 * i, .col = 20 + 5 * j,
                                   .bit = 60 - i - j, .call = -1, .step = 1};
    ft_report_t rep;
    int st = run(ctx, &p, f, nf, &rep);
    double ratio;
    const int ok = result_ok(&p, &ratio);
    TU_CHECK(st == 0 && ok && rep.injected == 9 && rep.recomputed >= 1 &&
                 tu_find_event(&rep, FT_EVENT_RECOMPUTED, -1, -1),
             "3 x 3 pattern in chunk 1: status %d ratio %.3g injected %lld recomputed %lld", st,
             ratio, (long long)rep.injected, (long long)rep.recomputed);
    ft_context_destroy(ctx);
    /* nothing fits */
    ctx = context(FT_PROTECT_ABFT, 64.0, 0);
    st = run(ctx, &p, NULL, 0, &rep);
    int same = !memcmp(p.C, p.C0, sizeof(double) * (size_t)(p.ldc * p.n));
    TU_CHECK(st == FT_ERR_TOO_LARGE && same, "a 64-byte limit: status %d (want "
             "FT_ERR_TOO_LARGE), C untouched %d", st, same);
    ft_context_destroy(ctx);
    prob_free(&p);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    tu_rng_t rng;
    tu_seed(&rng, 77);
    plan_cases();
    result_cases(&rng);
    recompute_cases(&rng);
    return tu_finish();
}
