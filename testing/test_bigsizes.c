/*
 * test_bigsizes.c — real calls with m*n > 2^31 elements (64-bit size arithmetic end to end),
 * on the GPU machine: ft_dgemm with host pointers, m = n = 46341 (m*n = 2^31 + 4633), k = 256,
 * beta = 0.5 (C is 17.2 GB, staged to the device and back); ft_dgeqrf with host pointers on a
 * 2,200,000 x 1000 matrix (17.6 GB). Checked: status 0, the report (backend cuda, checks run,
 * nothing unchecked, nothing detected), sampled elements of C against a dot-product reference,
 * and R against A through R^T R = A^T A on sampled columns (backward stability of Householder QR:
 * |(A^T A - R^T R)_ij| <= c (m + n) eps ||a_i|| ||a_j||, ratio below 30).
 * Argument: cuda (label gpu). Exit 77 when no device, or not enough host or device memory.
 */
#include "testing_util.h"

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* Cheap reproducible values in [-1, 1): a hash of the index (filling 2^31 elements with a
 * sequential generator would dominate the test's time). */
static double hval(uint64_t i, uint64_t seed)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void fill(double *x, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) x[i] = hval((uint64_t)i, seed);
}

static int big_dgemm(void)
{
    const int64_t m = 46341, n = 46341, k = 256;
    const double alpha = 1.25, beta = 0.5;
    printf("ft_dgemm: m = n = %lld, k = %lld, m*n = %lld (> 2^31 = %lld)\n", (long long)m,
           (long long)k, (long long)(m * n), (long long)1 << 31);
    double *A = malloc((size_t)(m * k) * sizeof(double));
    double *B = malloc((size_t)(k * n) * sizeof(double));
    double *C = malloc((size_t)(m * n) * sizeof(double));
    if (!A || !B || !C) {
        printf("SKIP: not enough host memory\n");
        free(A), free(B), free(C);
        return 77;
    }
    fill(A, m * k, 1);
    fill(B, k * n, 2);
    fill(C, m * n, 3);
    /* sampled elements, including the last rows and columns (largest offsets) */
    enum { NS = 64 };
    int64_t si[NS], sj[NS];
    double c0[NS];
    for (int s = 0; s < NS; s++) {
        si[s] = s < 8 ? m - 1 - s : (int64_t)(hval(s, 7) * 0.5 * m + 0.5 * m) % m;
        sj[s] = s < 8 ? n - 1 - s : (int64_t)(hval(s, 8) * 0.5 * n + 0.5 * n) % n;
        c0[s] = C[si[s] + sj[s] * m];
    }
    ft_context_t *ctx;
    if (ft_context_create(&ctx, FT_DEVICE_CUDA) != 0) return 77;
    ft_report_t rep;
    tu_poison_report(&rep);
    int st = ft_dgemm_ex(ctx, 'N', 'N', (ft_int)m, (ft_int)n, (ft_int)k, alpha, A, (ft_int)m, B,
                         (ft_int)k, beta, C, (ft_int)m, &rep);
    char line[512];
    printf("  status %d: %s\n", st, ft_report_string(&rep, line, sizeof line));
    int fail = st != 0 || rep.backend != FT_DEVICE_CUDA || rep.checks <= 0 || rep.unchecked != 0 ||
               rep.detected != 0;
    double worst = 0.0;
    for (int s = 0; s < NS; s++) {
        double ref = 0.0, mag = 0.0;
        for (int64_t l = 0; l < k; l++) {
            double p = A[si[s] + l * m] * B[l + sj[s] * k];
            ref += p;
            mag += fabs(p);
        }
        ref = alpha * ref + beta * c0[s];
        mag = fabs(alpha) * mag + fabs(beta * c0[s]);
        double r = fabs(C[si[s] + sj[s] * m] - ref) / ((k + 2) * 2.220446049250313e-16 * mag);
        if (!(r <= worst)) worst = r;
    }
    printf("  sampled elements: max error / ((k+2) eps |terms|) = %.3g\n", worst);
    if (!(worst < 30)) fail = 1;
    ft_context_destroy(ctx);
    free(A), free(B), free(C);
    printf("  %s\n", fail ? "FAILED" : "ok");
    return fail;
}

static int big_dgeqrf(void)
{
    const int64_t m = 2200000, n = 1000;
    printf("ft_dgeqrf: m = %lld, n = %lld, m*n = %lld (> 2^31)\n", (long long)m, (long long)n,
           (long long)(m * n));
    double *A = malloc((size_t)(m * n) * sizeof(double));
    double *A0 = malloc((size_t)(m * n) * sizeof(double));
    double *tau = malloc((size_t)n * sizeof(double));
    if (!A || !A0 || !tau) {
        printf("SKIP: not enough host memory\n");
        free(A), free(A0), free(tau);
        return 77;
    }
    fill(A, m * n, 11);
    memcpy(A0, A, (size_t)(m * n) * sizeof(double));
    ft_context_t *ctx;
    if (ft_context_create(&ctx, FT_DEVICE_CUDA) != 0) return 77;
    ft_report_t rep;
    tu_poison_report(&rep);
    double wq;
    ft_int info = 0;
    int st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, A, (ft_int)m, tau, &wq, -1, &info, NULL);
    ft_int lwork = (ft_int)wq;
    double *work = malloc((size_t)lwork * sizeof(double));
    st = st || !work ? -1
                     : ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, A, (ft_int)m, tau, work, lwork,
                                    &info, &rep);
    char line[512];
    printf("  status %d info %d: %s\n", st, info, ft_report_string(&rep, line, sizeof line));
    int fail = st != 0 || info != 0 || rep.backend != FT_DEVICE_CUDA || rep.checks <= 0 ||
               rep.unchecked != 0 || rep.detected != 0;
    /* R^T r_j against A^T a_j for sampled columns j, all i */
    const int64_t cols[3] = {0, n / 2, n - 1};
    double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
    double *nrm = malloc((size_t)n * sizeof(double));
    double worst = 0.0;
    for (int64_t i = 0; i < n; i++) nrm[i] = cblas_dnrm2((int)m, A0 + i * m, 1);
    for (int c = 0; c < 3; c++) {
        const int64_t j = cols[c];
        cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)n, 1.0, A0, (int)m, A0 + j * m, 1, 0.0,
                    x, 1); /* x = A^T a_j */
        for (int64_t i = 0; i < n; i++) { /* y = R^T r_j, R upper triangular in A */
            double s = 0.0;
            for (int64_t l = 0; l <= (i < j ? i : j); l++) s += A[l + i * m] * A[l + j * m];
            y[i] = s;
        }
        for (int64_t i = 0; i < n; i++) {
            double r = fabs(x[i] - y[i]) / ((double)(m + n) * 2.220446049250313e-16 * nrm[i] * nrm[j]);
            if (!(r <= worst)) worst = r;
        }
    }
    printf("  R^T R vs A^T A on 3 columns: max ratio = %.3g\n", worst);
    if (!(worst < 30)) fail = 1;
    ft_context_destroy(ctx);
    free(A), free(A0), free(tau), free(work), free(x), free(y), free(nrm);
    printf("  %s\n", fail ? "FAILED" : "ok");
    return fail;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "cuda") != 0) {
        printf("usage: test_bigsizes cuda\n");
        return 2;
    }
    if (!ft_cuda_available()) {
        printf("SKIP: no usable CUDA device\n");
        return 77;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
    double host_gb = (double)pages * (double)psz / 1e9;
#ifdef FTLA_HAVE_CUDA
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    double dev_gb = (double)fr / 1e9;
#else
    double dev_gb = 0;
#endif
    if (host_gb < 48 || dev_gb < 24) {
        printf("SKIP: needs 48 GB of host and 24 GB of device memory (have %.0f, %.0f)\n", host_gb,
               dev_gb);
        return 77;
    }
    int f1 = big_dgemm();
    int f2 = big_dgeqrf();
    if (f1 == 77 || f2 == 77) return 77;
    int nf = (f1 != 0) + (f2 != 0);
    printf("%d passed, %d failed\n", 2 - nf, nf);
    return nf ? 1 : 0;
}
