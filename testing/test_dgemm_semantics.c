/*
 * test_dgemm_semantics.c — ft_dgemm computes exactly what BLAS dgemm computes.
 *
 * Against cblas_dgemm (error ratio < 30, testing_util.h): every transpose pair ('N','T','C',
 * lower and upper case), alpha in {0, 1, -0.7}, beta in {0, 1, 0.3}, sizes 0, 1, 2, odd and
 * prime sizes and sizes around the tile (63..65, 127..129 with policy.tile = 64, and the
 * automatic tile), ld > rows, through both API forms: ft_dgemm on the default context
 * (FTLA_DEVICE set before the first call) and ft_dgemm_ex on an explicit context.
 * Also: beta = 0 overwrites a NaN-filled C with a finite correct result; alpha = 0 does not read
 * A or B (NaN there); quick returns (m = 0, n = 0, (alpha = 0 or k = 0) and beta = 1) leave C
 * bit-identical; the padding rows of C are never written, those of A and B never read (NaN);
 * valid data is never reported as erroneous.
 *
 * Usage: test_dgemm_semantics [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include "testing_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0
#define SENTINEL 1234.5678 /* in C's padding rows: must come back unchanged */

static ft_device_t g_dev;
static ft_context_t *g_ctx64;   /* explicit context, policy.tile = 64: several tiles cheaply */
static ft_context_t *g_ctxauto; /* explicit context, automatic tile */
static long g_cases = 0;

enum { API_PLAIN = 0, API_EX64 = 1, API_EXAUTO = 2 };
static const char *api_name[] = {"ft_dgemm(default ctx)", "ft_dgemm_ex(tile 64)",
                                 "ft_dgemm_ex(auto tile)"};

static int is_quick(int64_t m, int64_t n, int64_t k, double alpha, double beta)
{
    return m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0);
}

/* One call of ft_dgemm against the reference; pad = extra rows of lda, ldb, ldc. */
static void run_case(tu_rng_t *rng, int api, char ta, char tb, int64_t m, int64_t n, int64_t k,
                     double alpha, double beta, int64_t pad)
{
    g_cases++;
    const int64_t nrowa = tu_nrows(ta, m, k), ncola = tu_nrows(ta, k, m);
    const int64_t nrowb = tu_nrows(tb, k, n), ncolb = tu_nrows(tb, n, k);
    const int64_t lda = (nrowa > 1 ? nrowa : 1) + pad, ldb = (nrowb > 1 ? nrowb : 1) + pad;
    const int64_t ldc = (m > 1 ? m : 1) + pad;
    double *A = tu_malloc(lda * ncola), *B = tu_malloc(ldb * ncolb);
    double *C0 = tu_malloc(ldc * n), *C = tu_malloc(ldc * n), *Cref = tu_malloc(ldc * n);

    /* padding of A and B is NaN: reading it would show in the result */
    tu_set_all(lda, ncola, A, NAN);
    tu_set_all(ldb, ncolb, B, NAN);
    tu_set_all(ldc, n, C0, SENTINEL);
    if (alpha != 0.0) { /* alpha = 0: A and B must not be read, leave them NaN */
        tu_fill(rng, nrowa, ncola, A, lda);
        tu_fill(rng, nrowb, ncolb, B, ldb);
    }
    if (beta != 0.0) tu_fill(rng, m, n, C0, ldc);
    else
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) C0[TU_IX(i, j, ldc)] = NAN; /* need not be set */
    memcpy(C, C0, (size_t)(ldc * n) * sizeof(double));
    memcpy(Cref, C0, (size_t)(ldc * n) * sizeof(double));
    tu_ref_dgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cref, ldc);

    ft_report_t rep;
    tu_poison_report(&rep); /* every field checked below must come from the call */
    int st;
    if (api == API_PLAIN)
        st = ft_dgemm(ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, A, (ft_int)lda, B,
                      (ft_int)ldb, beta, C, (ft_int)ldc);
    else
        st = ft_dgemm_ex(api == API_EX64 ? g_ctx64 : g_ctxauto, ta, tb, (ft_int)m, (ft_int)n,
                         (ft_int)k, alpha, A, (ft_int)lda, B, (ft_int)ldb, beta, C, (ft_int)ldc,
                         &rep);
    char where[256];
    snprintf(where, sizeof where, "%s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g pad=%lld",
             api_name[api], ta, tb, (long long)m, (long long)n, (long long)k, alpha, beta,
             (long long)pad);
    TU_CHECK(st == 0, "status %d (%s): %s", st, ft_strerror(st), where);
    if (api != API_PLAIN) {
        TU_CHECK(rep.status == st, "report status %d != %d: %s", rep.status, st, where);
        TU_CHECK(rep.detected == 0 && rep.checksum_errors == 0 && rep.corrected == 0 &&
                     rep.recomputed == 0 && rep.uncorrectable == 0 && rep.injected == 0,
                 "detection on valid data (detected %lld, checksum_errors %lld): %s",
                 (long long)rep.detected, (long long)rep.checksum_errors, where);
        if (!is_quick(m, n, k, alpha, beta))
            TU_CHECK(rep.backend == tu_expected_backend(g_dev), "ran on backend %d: %s",
                     (int)rep.backend, where);
    }
    if (is_quick(m, n, k, alpha, beta)) {
        TU_CHECK(memcmp(C, C0, (size_t)(ldc * n) * sizeof(double)) == 0,
                 "quick return modified C: %s", where);
    } else {
        double ratio =
            tu_gemm_ratio(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C0, ldc, C, ldc, Cref, ldc);
        TU_CHECK(ratio < TOL, "error ratio %.3e: %s", ratio, where);
        int64_t nonfinite = 0, padbad = 0;
        for (int64_t j = 0; j < n; j++) {
            for (int64_t i = 0; i < m; i++) nonfinite += !isfinite(C[TU_IX(i, j, ldc)]);
            for (int64_t i = m; i < ldc; i++)
                padbad += memcmp(&C[TU_IX(i, j, ldc)], &C0[TU_IX(i, j, ldc)], sizeof(double)) != 0;
        }
        TU_CHECK(nonfinite == 0, "%lld non-finite elements in C: %s", (long long)nonfinite, where);
        TU_CHECK(padbad == 0, "%lld padding elements of C written: %s", (long long)padbad, where);
    }
    free(A);
    free(B);
    free(C0);
    free(C);
    free(Cref);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    /* the default context reads the environment once, at its first use */
    setenv("FTLA_DEVICE", tu_device_name(g_dev), 1);
    unsetenv("FTLA_TILE");
    unsetenv("FTLA_PROTECT");
    unsetenv("FTLA_TOL");

    int st = ft_context_create(&g_ctx64, g_dev);
    TU_CHECK(st == 0, "ft_context_create: %s", ft_strerror(st));
    st = ft_context_create(&g_ctxauto, g_dev);
    TU_CHECK(st == 0, "ft_context_create: %s", ft_strerror(st));
    if (!g_ctx64 || !g_ctxauto) return tu_finish();
    ft_policy_t pol;
    ft_context_get_policy(g_ctx64, &pol);
    TU_CHECK(pol.protect == 1 && pol.tile == 0, "default policy protect %d tile %d", pol.protect,
             pol.tile);
    pol.tile = 64;
    st = ft_context_set_policy(g_ctx64, &pol);
    TU_CHECK(st == 0, "ft_context_set_policy: %s", ft_strerror(st));

    tu_rng_t rng;
    tu_seed(&rng, 2024);
    const char *trans_all = "NTCntc", *trans_up = "NTC";
    const double alphas[] = {0.0, 1.0, -0.7}, betas[] = {0.0, 1.0, 0.3};

    /* 1. every transpose pair x alpha x beta on small, degenerate, odd and prime sizes */
    static const int64_t small[][3] = {{0, 0, 0},  {0, 3, 2},   {3, 0, 2},   {3, 2, 0},
                                       {1, 1, 1},  {2, 2, 2},   {1, 7, 3},   {7, 1, 13},
                                       {13, 7, 1}, {7, 13, 31}, {31, 13, 7}, {2, 1, 1}};
    const int nsmall = (int)(sizeof small / sizeof small[0]);
    long idx = 0;
    for (const char *ta = trans_all; *ta; ta++)
        for (const char *tb = trans_all; *tb; tb++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    for (int s = 0; s < nsmall; s++, idx++)
                        for (int api = 0; api < 3; api++)
                            run_case(&rng, api, *ta, *tb, small[s][0], small[s][1], small[s][2],
                                     alphas[a], betas[b], (idx + api) % 2 ? 3 : 0);

    /* 2. sizes around the tile (64 and automatic) and larger primes, upper-case transposes */
    static const int64_t tile[][3] = {
        {97, 97, 97},  {63, 64, 65},   {64, 64, 64}, {65, 63, 64}, {127, 129, 128}, {129, 127, 63},
        {257, 31, 97}, {31, 257, 129}, {1, 257, 64}, {257, 1, 65}, {255, 256, 257}, {257, 257, 13}};
    const int ntile = (int)(sizeof tile / sizeof tile[0]);
    const double alphas2[] = {1.0, -0.7}, betas2[] = {0.0, 0.3};
    for (const char *ta = trans_up; *ta; ta++)
        for (const char *tb = trans_up; *tb; tb++)
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    for (int s = 0; s < ntile; s++, idx++)
                        for (int api = 0; api < 3; api++)
                            run_case(&rng, api, *ta, *tb, tile[s][0], tile[s][1], tile[s][2],
                                     alphas2[a], betas2[b], (idx + api) % 3 == 0 ? 0 : 5);

    /* 3. one larger case with the automatic tile making several tiles (T = 256) */
    for (int api = 0; api < 3; api++) run_case(&rng, api, 'N', 'T', 600, 530, 70, -0.7, 0.3, 2);

    /* 4. quick returns: C bit-identical, also with NaN in A and B and odd bit patterns in C */
    {
        const int64_t m = 9, n = 6, k = 4, ldc = 11;
        double A[9 * 4], B[4 * 6], C[11 * 6], C0[11 * 6];
        tu_set_all(9, 4, A, NAN);
        tu_set_all(4, 6, B, NAN);
        tu_fill(&rng, ldc, n, C0, ldc);
        C0[3] = NAN;
        C0[7] = -0.0;
        C0[20] = INFINITY;
        struct {
            int64_t m, n, k;
            double alpha, beta;
        } q[] = {{0, n, k, 1.0, 0.0}, {m, 0, k, 1.0, 0.0}, {0, 0, k, 1.0, 0.3},
                 {m, n, k, 0.0, 1.0}, {m, n, 0, 1.0, 1.0}, {m, n, 0, -0.7, 1.0}};
        for (size_t c = 0; c < sizeof q / sizeof q[0]; c++)
            for (int api = 0; api < 3; api++) {
                ft_report_t rep;
                tu_poison_report(&rep);
                memcpy(C, C0, sizeof C);
                int s;
                if (api == API_PLAIN)
                    s = ft_dgemm('N', 'N', (ft_int)q[c].m, (ft_int)q[c].n, (ft_int)q[c].k,
                                 q[c].alpha, A, 9, B, 4, q[c].beta, C, (ft_int)ldc);
                else
                    s = ft_dgemm_ex(api == API_EX64 ? g_ctx64 : g_ctxauto, 'N', 'N', (ft_int)q[c].m,
                                    (ft_int)q[c].n, (ft_int)q[c].k, q[c].alpha, A, 9, B, 4,
                                    q[c].beta, C, (ft_int)ldc, &rep);
                TU_CHECK(s == 0, "quick return %zu (%s): status %d", c, api_name[api], s);
                TU_CHECK(memcmp(C, C0, sizeof C) == 0, "quick return %zu (%s) modified C", c,
                         api_name[api]);
                if (api != API_PLAIN)
                    TU_CHECK(rep.status == 0 && rep.detected == 0 && rep.injected == 0,
                             "quick return %zu: report status %d", c, rep.status);
            }
    }

    /* 5. beta = 0 with NaN and Inf in C, and alpha = 0, beta = 0: exact zeros */
    {
        const int64_t m = 70, n = 66, k = 5;
        double *A = tu_malloc(m * k), *B = tu_malloc(k * n), *C = tu_malloc(m * n);
        tu_fill(&rng, m, k, A, m);
        tu_fill(&rng, k, n, B, k);
        for (int api = 0; api < 3; api++) {
            for (int64_t p = 0; p < m * n; p++) C[p] = p % 3 ? NAN : -INFINITY;
            ft_report_t rep;
            tu_poison_report(&rep);
            int s = api == API_PLAIN
                        ? ft_dgemm('N', 'N', (ft_int)m, (ft_int)n, (ft_int)k, 0.0, A, (ft_int)m, B,
                                   (ft_int)k, 0.0, C, (ft_int)m)
                        : ft_dgemm_ex(api == API_EX64 ? g_ctx64 : g_ctxauto, 'N', 'N', (ft_int)m,
                                      (ft_int)n, (ft_int)k, 0.0, A, (ft_int)m, B, (ft_int)k, 0.0, C,
                                      (ft_int)m, &rep);
            int64_t nz = 0;
            for (int64_t p = 0; p < m * n; p++) nz += !(C[p] == 0.0);
            TU_CHECK(s == 0 && nz == 0, "alpha = beta = 0 (%s): status %d, %lld non-zeros",
                     api_name[api], s, (long long)nz);
            if (api != API_PLAIN)
                TU_CHECK(rep.status == 0 && rep.detected == 0 && rep.injected == 0 &&
                             rep.backend == tu_expected_backend(g_dev),
                         "alpha = beta = 0 (%s): report status %d backend %d", api_name[api],
                         rep.status, (int)rep.backend);
        }
        free(A);
        free(B);
        free(C);
    }

    printf("%ld cases on %s\n", g_cases, tu_device_name(g_dev));
    ft_context_destroy(g_ctx64);
    ft_context_destroy(g_ctxauto);
    return tu_finish();
}
