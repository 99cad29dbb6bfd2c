/*
 * test_dgeqrf_semantics.c — ft_dgeqrf keeps LAPACK dgeqrf's contract.
 *
 *   - the dqrt01 ratios ||R - Q^T A||_1/(max(m,n)||A||_1 eps) and ||I - Q^T Q||_1/(m eps) below
 *     30 (Q formed from the output with LAPACKE_dorgqr) for square, tall (300x120), wide
 *     (120x300), sizes nb-2..nb+2 around policy.nb = 32 (square, tall and wide), 0 and 1,
 *     lda > m (padding rows untouched), protection on and off, the blocked driver
 *     (crossover = -1) and the LAPACK crossover (automatic, and a forced one); no detection on
 *     clean data; report.backend is the device asked for (cpu for cpu, cuda for cuda) whenever
 *     something is factored; checks evaluated (report.checks > 0, none skipped) exactly when the
 *     protected blocked driver runs, none with protection off or on the LAPACK crossover path;
 *   - the workspace query lwork = -1: work[0] = n*nb, A untouched; min(m,n) = 0: work[0] = 1;
 *     the plain entry point (default context, FTLA_NB unset): nb = 32 for n < 1024;
 *   - every argument error, in LAPACK order: m < 0 -> -1, n < 0 -> -2, lda < max(1,m) -> -4,
 *     lwork < max(1,n) (and not -1) -> -7: return -i, *info = -i, the installed xerbla
 *     handler called once with ("FT_DGEQRF", i), A and tau untouched; ft_dgeqrf_gpu(_ex) the
 *     same with ("FT_DGEQRF_GPU", i) for -1, -2, -4 (no CUDA needed: arguments come first);
 *   - CUDA builds with a device: ft_dgeqrf_gpu_ex on device memory gives the same ratios.
 *
 * Usage: test_dgeqrf_semantics [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L
#include "test_dgeqrf_common.h"

#include <math.h>
#include <stdio.h>

#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define TOL 30.0
#define POISON 7.0e77

static ft_device_t g_dev;
static int g_calls, g_info;
static char g_name[64];

static void handler(const char *srname, int info)
{
    g_calls++;
    g_info = info;
    snprintf(g_name, sizeof g_name, "%s", srname ? srname : "(null)");
}

static ft_context_t *make_ctx(int nb, int crossover, int protect)
{
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, g_dev);
    if (st) {
        printf("ft_context_create: %s\n", ft_strerror(st));
        exit(1);
    }
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = nb;
    p.crossover = crossover;
    p.protect = protect;
    st = ft_context_set_policy(ctx, &p);
    TU_CHECK(st == 0, "ft_context_set_policy(nb %d, crossover %d, protect %d): %s", nb, crossover,
             protect, ft_strerror(st));
    return ctx;
}

/* One factorization of a fresh random m x n matrix (lda), checked against the definition. */
static void one(tu_rng_t *rng, int64_t m, int64_t n, int64_t lda, int nb, int crossover,
                int protect, const char *what)
{
    ft_context_t *ctx = make_ctx(nb, crossover, protect);
    int64_t k = m < n ? m : n;
    double *A = tu_malloc(lda * (n > 0 ? n : 1)), *AF = tu_malloc(lda * (n > 0 ? n : 1));
    double *tau = tu_malloc(k + 1), *work = tu_malloc(n * 64 + 1);
    tu_set_all(lda, n, A, POISON);
    tu_fill(rng, m, n, A, lda);
    tu_copy(lda, n, A, lda, AF, lda); /* padding included */
    for (int64_t i = 0; i <= k; i++) tau[i] = POISON;
    ft_report_t rep;
    tu_poison_report(&rep);
    ft_int info = -99;
    int st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, work,
                          (ft_int)(n > 0 ? n : 1), &info, &rep);
    TU_CHECK(st == 0 && info == 0 && rep.status == 0,
             "%s %lldx%lld lda %lld nb %d: status %d info %d report %d", what, (long long)m,
             (long long)n, (long long)lda, nb, st, (int)info, rep.status);
    TU_CHECK(rep.injected == 0 && rep.detected == 0 && rep.located == 0 &&
                 rep.checksum_errors == 0 && rep.corrected == 0 && rep.uncorrectable == 0,
             "%s %lldx%lld: false detection (detected %lld checksum_errors %lld)", what,
             (long long)m, (long long)n, (long long)rep.detected,
             (long long)rep.checksum_errors);
    /* where something is factored, it runs on the device asked for (a quick return for
     * min(m,n) = 0 runs nothing) */
    if (k > 0)
        TU_CHECK(rep.backend == tu_expected_backend(g_dev), "%s %lldx%lld: backend %d, asked %s",
                 what, (long long)m, (long long)n, (int)rep.backend, tu_device_name(g_dev));
    /* checks run exactly when the protected blocked driver runs: every size by default
     * (crossover 0 or -1); not with protection off, not for k = 0; an explicit crossover > 0
     * sends min(m,n) <= crossover to plain LAPACK, reported as unchecked */
    const int lapack_path = crossover > 0 && k <= crossover;
    if (k > 0 && protect && !lapack_path)
        TU_CHECK(rep.checks > 0 && rep.unchecked == 0, "%s %lldx%lld: checks %lld unchecked %lld",
                 what, (long long)m, (long long)n, (long long)rep.checks,
                 (long long)rep.unchecked);
    else
        TU_CHECK(rep.checks == 0, "%s %lldx%lld (protect %d, %s): %lld checks", what,
                 (long long)m, (long long)n, protect, lapack_path ? "LAPACK path" : "blocked",
                 (long long)rep.checks);
    if (k > 0 && lapack_path)
        TU_CHECK(rep.unchecked == 1, "%s %lldx%lld: the LAPACK path must be reported unchecked "
                 "(unchecked %lld)", what, (long long)m, (long long)n, (long long)rep.unchecked);
    TU_CHECK(tau[k] == POISON, "%s %lldx%lld: tau[min(m,n)] written", what, (long long)m,
             (long long)n);
    int pad_ok = 1;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = m; i < lda; i++)
            if (AF[TU_IX(i, j, lda)] != POISON) pad_ok = 0;
    TU_CHECK(pad_ok, "%s %lldx%lld lda %lld: padding rows changed", what, (long long)m,
             (long long)n, (long long)lda);
    double res[2];
    qr_ratios(m, n, A, lda, AF, lda, tau, res);
    TU_CHECK(res[0] < TOL && res[1] < TOL, "%s %lldx%lld lda %lld nb %d: ratios %.3g %.3g", what,
             (long long)m, (long long)n, (long long)lda, nb, res[0], res[1]);
    free(A);
    free(AF);
    free(tau);
    free(work);
    ft_context_destroy(ctx);
}

static void test_results(tu_rng_t *rng)
{
    /* the blocked driver everywhere (crossover = -1), protection on */
    const int64_t sq[] = {100, 257};
    for (int t = 0; t < 2; t++) one(rng, sq[t], sq[t], sq[t], 32, -1, 1, "square");
    one(rng, 300, 120, 300, 32, -1, 1, "tall");
    one(rng, 120, 300, 120, 32, -1, 1, "wide");
    for (int64_t s = 30; s <= 34; s++) {
        one(rng, s, s, s, 32, -1, 1, "around nb, square");
        one(rng, s + 50, s, s + 50, 32, -1, 1, "around nb, tall");
        one(rng, s, s + 50, s, 32, -1, 1, "around nb, wide");
        one(rng, 70, s, 70, 32, -1, 1, "tall, n around nb");
    }
    const int64_t tiny[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 7}, {7, 1}, {2, 2}, {33, 1}};
    for (int t = 0; t < 8; t++) {
        int64_t m = tiny[t][0], n = tiny[t][1];
        one(rng, m, n, m > 1 ? m : 1, 32, -1, 1, "0 and 1");
    }
    one(rng, 150, 90, 173, 32, -1, 1, "lda > m");
    one(rng, 90, 150, 97, 32, -1, 1, "lda > m, wide");
    one(rng, 200, 200, 200, 16, -1, 1, "nb 16");
    one(rng, 200, 200, 200, 0, -1, 1, "nb automatic");
    /* protection off: the same driver without checksums */
    one(rng, 257, 257, 257, 32, -1, 0, "protect off");
    one(rng, 300, 120, 311, 32, -1, 0, "protect off, tall, lda > m");
    /* small and tall-skinny sizes are protected by default (crossover 0); an explicit
     * crossover sends them to LAPACK, unchecked */
    one(rng, 100, 100, 100, 32, 0, 1, "small, default (protected)");
    one(rng, 300, 120, 300, 32, 0, 1, "tall-skinny, default (protected)");
    one(rng, 1, 1, 1, 0, 0, 1, "1 x 1, default (protected)");
    one(rng, 5, 3, 7, 0, 0, 1, "5 x 3, default (protected)");
    one(rng, 3, 5, 3, 0, 0, 1, "3 x 5, default (protected)");
    one(rng, 1000, 2, 1000, 0, 0, 1, "1000 x 2, default (protected)");
    one(rng, 300, 120, 300, 32, 120, 1, "crossover 120 (LAPACK, unchecked)");
    one(rng, 260, 260, 260, 32, 0, 1, "260, default (protected)");
}

/* NaN in the input: factored as LAPACK does (status 0, NaN spreads), never "corrected"; the
 * report says the checks could not be evaluated. Small and large sizes alike. */
static void test_nan(tu_rng_t *rng)
{
    const int sizes[2][2] = {{50, 40}, {300, 200}};
    for (int c = 0; c < 2; c++) {
        const int m = sizes[c][0], n = sizes[c][1];
        ft_context_t *ctx = make_ctx(0, 0, 1);
        double *A = malloc((size_t)m * n * sizeof(double)), *L = malloc((size_t)m * n * sizeof(double));
        double tau[200], taul[200], work[200 * 64], lw = 0;
        tu_fill(rng, m, n, A, m);
        A[m / 2 + (n / 2) * m] = NAN;
        memcpy(L, A, (size_t)m * n * sizeof(double));
        ft_report_t rep;
        tu_poison_report(&rep);
        ft_int info = -99;
        int st = ft_dgeqrf_ex(ctx, m, n, A, m, tau, work, 200 * 64, &info, &rep);
        lapack_int li = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, L, m, taul, &lw, -1);
        double *lwk = malloc((size_t)lw * sizeof(double));
        li = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, L, m, taul, lwk, (lapack_int)lw);
        /* the NaN spreads into R and the trailing columns (the exact pattern depends on the
         * blocking); what matters: it is not removed and nothing is "corrected" */
        int64_t nan_ftla = 0, nan_lapack = 0;
        for (int64_t i = 0; i < (int64_t)m * n; i++) {
            nan_ftla += isnan(A[i]) != 0;
            nan_lapack += isnan(L[i]) != 0;
        }
        TU_CHECK(st == 0 && info == 0 && li == 0, "NaN input %dx%d: status %d info %d lapack %d",
                 m, n, st, (int)info, (int)li);
        TU_CHECK(rep.detected == 0 && rep.corrected == 0 && rep.unchecked >= 1,
                 "NaN input %dx%d: detected %lld corrected %lld unchecked %lld", m, n,
                 (long long)rep.detected, (long long)rep.corrected, (long long)rep.unchecked);
        TU_CHECK(nan_ftla > 0 && nan_lapack > 0 && isnan(A[(n - 1) + (n - 1) * m]),
                 "NaN input %dx%d: NaN not propagated (%lld NaN, LAPACK %lld)", m, n,
                 (long long)nan_ftla, (long long)nan_lapack);
        free(A), free(L), free(lwk);
        ft_context_destroy(ctx);
    }
}

/* Data near the overflow threshold (issue 7): A ~ 1e306, 400 x 100. Every check evaluated
 * (nothing unchecked), no alarm without a fault, an R fault corrected, ratios < 30. */
static void test_huge(tu_rng_t *rng)
{
    const int m = 400, n = 100;
    for (int fault = 0; fault <= 1; fault++) {
        ft_context_t *ctx = make_ctx(32, 0, 1);
        double *A = malloc(sizeof(double) * m * n), *AF = malloc(sizeof(double) * m * n);
        double tau[100], work[100 * 64];
        tu_fill(rng, m, n, A, m);
        for (int64_t i = 0; i < (int64_t)m * n; i++) A[i] *= 1e306;
        memcpy(AF, A, sizeof(double) * m * n);
        if (fault) {
            ft_fault_t f = {.region = FT_REGION_R, .row = 5, .col = 70, .bit = 57, .call = -1,
                            .step = 1};
            ft_inject_add(ctx, &f);
        }
        ft_report_t rep;
        tu_poison_report(&rep);
        ft_int info = -99;
        int st = ft_dgeqrf_ex(ctx, m, n, AF, m, tau, work, 100 * 64, &info, &rep);
        TU_CHECK(st == 0 && rep.unchecked == 0 && rep.checks > 0,
                 "A ~ 1e306 (fault %d): status %d unchecked %lld checks %lld", fault, st,
                 (long long)rep.unchecked, (long long)rep.checks);
        TU_CHECK(fault ? rep.injected == 1 && rep.corrected == 1 : rep.detected == 0,
                 "A ~ 1e306 (fault %d): injected %lld detected %lld corrected %lld", fault,
                 (long long)rep.injected, (long long)rep.detected, (long long)rep.corrected);
        /* the ratios on the matrix scaled back (the norms of A itself overflow): A and R scale,
         * the Householder vectors below the diagonal do not */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                A[i + j * m] *= 1e-306;
                if (i <= j) AF[i + j * m] *= 1e-306;
            }
        double res[2];
        qr_ratios(m, n, A, m, AF, m, tau, res);
        TU_CHECK(res[0] < TOL && res[1] < TOL, "A ~ 1e306 (fault %d): ratios %.3g %.3g", fault,
                 res[0], res[1]);
        free(A), free(AF);
        ft_context_destroy(ctx);
    }
}

static void test_query(void)
{
    ft_context_t *ctx = make_ctx(32, -1, 1);
    double A[4] = {1, 2, 3, 4}, tau[2] = {POISON, POISON}, work[2] = {0, 0};
    ft_int info = -99;
    int st = ft_dgeqrf_ex(ctx, 2, 2, A, 2, tau, work, -1, &info, NULL);
    TU_CHECK(st == 0 && info == 0 && work[0] == 2.0 * 32, "query: status %d info %d work %g", st,
             (int)info, work[0]);
    TU_CHECK(A[0] == 1 && A[1] == 2 && A[2] == 3 && A[3] == 4 && tau[0] == POISON,
             "query changed A or tau");
    work[0] = 0;
    st = ft_dgeqrf_ex(ctx, 1000, 300, A, 1000, tau, work, -1, &info, NULL);
    TU_CHECK(st == 0 && info == 0 && work[0] == 300.0 * 32, "query 1000x300: work %g", work[0]);
    st = ft_dgeqrf_ex(ctx, 0, 5, A, 1, tau, work, -1, &info, NULL);
    TU_CHECK(st == 0 && info == 0 && work[0] == 1.0, "query m = 0: work %g", work[0]);
    /* the plain entry point on the default context (nb automatic: 32 below 1024; main unsets
     * FTLA_NB before the default context exists) */
    work[0] = 0;
    st = ft_dgeqrf(500, 400, A, 500, tau, work, -1, &info);
    TU_CHECK(st == 0 && info == 0 && work[0] == 400.0 * 32, "ft_dgeqrf query: work %g", work[0]);
    /* quick return: work[0] = 1 */
    work[0] = 0;
    st = ft_dgeqrf_ex(ctx, 5, 0, A, 5, tau, work, 1, &info, NULL);
    TU_CHECK(st == 0 && info == 0 && work[0] == 1.0, "quick return: work %g", work[0]);
    ft_context_destroy(ctx);
}

static void arg_case(int api, ft_int m, ft_int n, ft_int lda, ft_int lwork, int expect)
{
    enum { LDA = 16 };
    double A[LDA * LDA], A0[LDA * LDA], tau[LDA], work[LDA * 64];
    for (int i = 0; i < LDA * LDA; i++) A[i] = A0[i] = (double)(i % 7) - 3.0;
    for (int i = 0; i < LDA; i++) tau[i] = POISON;
    g_calls = 0;
    g_info = 0;
    g_name[0] = 0;
    ft_int info = 12345;
    ft_report_t rep;
    tu_poison_report(&rep);
    int st;
    const char *nm;
    switch (api) {
    case 0: st = ft_dgeqrf(m, n, A, lda, tau, work, lwork, &info); nm = "FT_DGEQRF"; break;
    case 1: st = ft_dgeqrf_ex(NULL, m, n, A, lda, tau, work, lwork, &info, &rep); nm = "FT_DGEQRF"; break;
    case 2: st = ft_dgeqrf_gpu(m, n, A, lda, tau, &info); nm = "FT_DGEQRF_GPU"; break;
    default: st = ft_dgeqrf_gpu_ex(NULL, m, n, A, lda, tau, &info, &rep); nm = "FT_DGEQRF_GPU"; break;
    }
    TU_CHECK(st == -expect && info == -expect, "api %d (%d,%d,%d,%d): status %d info %d, want %d",
             api, (int)m, (int)n, (int)lda, (int)lwork, st, (int)info, -expect);
    TU_CHECK(g_calls == 1 && g_info == expect && strcmp(g_name, nm) == 0,
             "api %d: xerbla calls %d info %d name %s", api, g_calls, g_info, g_name);
    TU_CHECK(memcmp(A, A0, sizeof A) == 0 && tau[0] == POISON, "api %d: A or tau changed", api);
    if (api == 1 || api == 3) TU_CHECK(rep.status == -expect, "report.status %d", rep.status);
}

static void test_args(void)
{
    ft_set_xerbla(handler);
    for (int api = 0; api < 4; api++) {
        int gpu = api >= 2;
        arg_case(api, -1, 4, 4, 4, 1);
        arg_case(api, -1, -1, 0, 0, 1); /* the first illegal argument is reported */
        arg_case(api, 4, -1, 4, 4, 2);
        arg_case(api, 4, -3, 1, 0, 2);
        arg_case(api, 4, 4, 3, 4, 4);
        arg_case(api, 0, 4, 0, 4, 4); /* lda >= max(1, m) */
        if (!gpu) {
            arg_case(api, 4, 4, 4, 3, 7);
            arg_case(api, 4, 4, 4, 0, 7);
            arg_case(api, 4, 4, 4, -2, 7);
            arg_case(api, 4, 0, 4, 0, 7); /* lwork >= max(1, n) */
        }
    }
    ft_set_xerbla(NULL);
}

#ifdef FTLA_HAVE_CUDA
static void test_gpu_pointers(tu_rng_t *rng)
{
    const int64_t sizes[][2] = {{300, 300}, {400, 150}, {150, 400}};
    ft_context_t *ctx = make_ctx(32, -1, 1);
    for (int t = 0; t < 3; t++) {
        int64_t m = sizes[t][0], n = sizes[t][1], k = m < n ? m : n, ldd = m + 3;
        double *A = tu_malloc(m * n), *AF = tu_malloc(m * n), *tau = tu_malloc(k), *dA = NULL;
        tu_fill(rng, m, n, A, m);
        if (cudaMalloc((void **)&dA, (size_t)(ldd * n) * sizeof(double)) != cudaSuccess) {
            TU_CHECK(0, "cudaMalloc");
            return;
        }
        cudaMemcpy2D(dA, ldd * sizeof(double), A, m * sizeof(double), m * sizeof(double), n,
                     cudaMemcpyHostToDevice);
        ft_int info = -99;
        ft_report_t rep;
        tu_poison_report(&rep);
        int st = ft_dgeqrf_gpu_ex(ctx, (ft_int)m, (ft_int)n, dA, (ft_int)ldd, tau, &info, &rep);
        cudaMemcpy2D(AF, m * sizeof(double), dA, ldd * sizeof(double), m * sizeof(double), n,
                     cudaMemcpyDeviceToHost);
        double res[2];
        qr_ratios(m, n, A, m, AF, m, tau, res);
        TU_CHECK(st == 0 && info == 0 && rep.backend == FT_DEVICE_CUDA && rep.detected == 0,
                 "gpu %lldx%lld: status %d", (long long)m, (long long)n, st);
        TU_CHECK(res[0] < TOL && res[1] < TOL, "gpu %lldx%lld: ratios %.3g %.3g", (long long)m,
                 (long long)n, res[0], res[1]);
        cudaFree(dA);
        free(A);
        free(AF);
        free(tau);
    }
    ft_context_destroy(ctx);
}
#endif

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    setenv("FTLA_DEVICE", tu_device_name(g_dev), 1);
    unsetenv("FTLA_NB");
    tu_rng_t rng;
    tu_seed(&rng, 2024);
    test_results(&rng);
    test_nan(&rng);
    test_huge(&rng);
    test_query();
    test_args();
#ifdef FTLA_HAVE_CUDA
    if (g_dev == FT_DEVICE_CUDA) test_gpu_pointers(&rng);
#else
    if (g_dev == FT_DEVICE_CPU) {
        ft_int info;
        double A[4] = {1, 2, 3, 4}, tau[2];
        int st = ft_dgeqrf_gpu(2, 2, A, 2, tau, &info);
        TU_CHECK(st == FT_ERR_NOT_BUILT && info == FT_ERR_NOT_BUILT,
                 "ft_dgeqrf_gpu without CUDA: %d", st);
    }
#endif
    return tu_finish();
}
