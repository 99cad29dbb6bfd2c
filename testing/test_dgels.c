/*
 * test_dgels — ft_dgels against LAPACK dgels (issue 8, test (c)): for trans N and T, m >= n and
 * m < n, several right-hand sides, a well-conditioned full-rank A (condition number < 4) (consistent right-hand sides
 * for the overdetermined systems), with and without an error injected into the trailing matrix
 * at an early, middle and late step of the factorization (consumed by later panels: recovered by
 * QR update inside ft_dgels; ft_dgels has no report: the recovery itself is asserted by
 * test_dgeqrf_inject's qr-update mode). Asserts: status 0 and
 * ||X - X_lapack||_F <= 30 eps ||X_lapack||_F, X_lapack from LAPACK dgels on the uncorrupted
 * problem. Also the argument errors (info = -i) and the quick return.
 *
 * Usage: test_dgels [cpu|cuda|auto]   (the thread's default context, FTLA_DEVICE)
 */
#define _POSIX_C_SOURCE 200809L
#include "testing_util.h"

#include <ftla.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 32

static void case_(tu_rng_t *rng, char trans, int64_t m, int64_t n, int64_t nrhs, int fstep)
{
    ft_context_t *ctx = ft_default_context();
    const int64_t mx = m > n ? m : n, mn = m < n ? m : n, np = (mn + NB - 1) / NB;
    double *A = tu_malloc(m * n), *A0 = tu_malloc(m * n), *B = tu_malloc(mx * nrhs),
           *BL = tu_malloc(mx * nrhs);
    /* well conditioned: uniform(-1, 1) (2-norm about 1.15 sqrt(max(m, n))) plus
     * 2 sqrt(max(m, n)) on the diagonal: condition number below about 4 */
    tu_fill(rng, m, n, A0, m);
    for (int64_t j = 0; j < mn; j++) A0[j + j * m] += 2.0 * sqrt((double)mx);
    /* rows of op(A): m for N, n for T; the overdetermined ones get b = op(A) x */
    const int64_t rows = trans == 'N' ? m : n, cols = trans == 'N' ? n : m;
    memset(B, 0, (size_t)(mx * nrhs) * sizeof(double));
    double *x = tu_malloc(cols * nrhs);
    tu_fill(rng, cols, nrhs, x, cols);
    if (rows > cols) {
        for (int64_t r = 0; r < nrhs; r++)
            for (int64_t i = 0; i < rows; i++) {
                double sm = 0.0;
                for (int64_t j = 0; j < cols; j++)
                    sm += (trans == 'N' ? A0[i + j * m] : A0[j + i * m]) * x[j + r * cols];
                B[i + r * mx] = sm;
            }
    } else {
        tu_fill(rng, rows, nrhs, B, mx);
    }
    memcpy(BL, B, (size_t)(mx * nrhs) * sizeof(double));
    memcpy(A, A0, (size_t)(m * n) * sizeof(double));
    int lst = LAPACKE_dgels(LAPACK_COL_MAJOR, trans, (int)m, (int)n, (int)nrhs, A, (int)m, BL,
                            (int)mx);
    TU_CHECK(lst == 0, "LAPACKE_dgels %c %lldx%lld: %d", trans, (long long)m, (long long)n, lst);
    memcpy(A, A0, (size_t)(m * n) * sizeof(double));
    ft_inject_clear(ctx);
    int64_t step = -1;
    if (fstep >= 0) {
        step = fstep == 0 ? 0 : fstep == 1 ? np / 2 : np - 2 > 0 ? np - 2 : 0;
        /* the factored matrix is p x q = mx x mn: a trailing column of a later panel */
        ft_fault_t f = {.region = FT_REGION_TRAILING, .row = mx - 1,
                        .col = (step + 1) * NB < mn ? (step + 1) * NB + 1 : mn - 1, .bit = -1,
                        .value = 0.5, .call = -1, .step = step};
        TU_CHECK(ft_inject_add(ctx, &f) == 0, "ft_inject_add");
    }
    double wq;
    ft_int info = 7;
    TU_CHECK(ft_dgels(trans, (ft_int)m, (ft_int)n, (ft_int)nrhs, A, (ft_int)m, B, (ft_int)mx, &wq,
                      -1, &info) == 0 && info == 0 && wq >= 1, "workspace query");
    int st = ft_dgels(trans, (ft_int)m, (ft_int)n, (ft_int)nrhs, A, (ft_int)m, B, (ft_int)mx, &wq,
                      1, &info);
    double d = 0.0, r = 0.0;
    for (int64_t c = 0; c < nrhs; c++)
        for (int64_t i = 0; i < cols; i++) {
            const double e = B[i + c * mx] - BL[i + c * mx];
            d += e * e;
            r += BL[i + c * mx] * BL[i + c * mx];
        }
    const double rel = sqrt(d) / sqrt(r) / tu_eps();
    TU_CHECK(st == 0 && info == 0 && rel <= 30.0,
             "ft_dgels %c %lldx%lld nrhs %lld fault at step %lld: status %d (%s) info %d, "
             "||X - X_lapack|| / ||X_lapack|| = %.3g eps", trans, (long long)m, (long long)n,
             (long long)nrhs, (long long)step, st, ft_strerror(st), (int)info, rel);
    ft_inject_clear(ctx);
    free(A), free(A0), free(B), free(BL), free(x);
}

int main(int argc, char **argv)
{
    ft_device_t dev = tu_device_from_args(argc, argv);
    setenv("FTLA_DEVICE", dev == FT_DEVICE_CUDA ? "cuda" : dev == FT_DEVICE_CPU ? "cpu" : "auto",
           1);
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    ft_context_t *ctx = ft_default_context();
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = NB;
    p.crossover = -1;
    ft_context_set_policy(ctx, &p);
    tu_rng_t rng;
    tu_seed(&rng, 808);
    const int64_t shapes[4][2] = {{300, 160}, {160, 300}, {256, 256}, {97, 61}};
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 2; t++)
            for (int f = -1; f < 3; f++)
                case_(&rng, t ? 'T' : 'N', shapes[s][0], shapes[s][1], 3, f);
    /* arguments, LAPACK order */
    double a[4] = {1, 0, 0, 1}, b[4] = {1, 1, 1, 1}, w;
    ft_int info;
    TU_CHECK(ft_dgels('X', 2, 2, 1, a, 2, b, 2, &w, 1, &info) == -1 && info == -1, "trans");
    TU_CHECK(ft_dgels('N', -1, 2, 1, a, 2, b, 2, &w, 1, &info) == -2, "m");
    TU_CHECK(ft_dgels('N', 2, -1, 1, a, 2, b, 2, &w, 1, &info) == -3, "n");
    TU_CHECK(ft_dgels('N', 2, 2, -1, a, 2, b, 2, &w, 1, &info) == -4, "nrhs");
    TU_CHECK(ft_dgels('N', 2, 2, 1, a, 1, b, 2, &w, 1, &info) == -6, "lda");
    TU_CHECK(ft_dgels('N', 2, 2, 1, a, 2, b, 1, &w, 1, &info) == -8, "ldb");
    TU_CHECK(ft_dgels('N', 2, 2, 1, a, 2, b, 2, &w, 0, &info) == -10, "lwork");
    TU_CHECK(ft_dgels('N', 0, 2, 2, a, 1, b, 2, &w, 1, &info) == 0 && b[0] == 0 && b[1] == 0 &&
                 b[2] == 0 && b[3] == 0, "quick return zeroes B(1:max(m,n), :)");
    /* rank deficient: info = the zero diagonal of R */
    double z[4] = {1, 0, 0, 0}, bz[2] = {1, 1};
    TU_CHECK(ft_dgels('N', 2, 2, 1, z, 2, bz, 2, &w, 1, &info) == 2 && info == 2,
             "singular R: info %d", (int)info);
    return tu_finish();
}
