/*
 * test_dgels — ft_dgels and ft_dgels_gpu against LAPACK dgels, ft_dormqr_gpu against ft_dormqr
 * (issue 8, test (c), and the device-pointer entry points).
 *
 * Two versions of every solve: "host" (ft_dgels) and "dev", the device algorithm
 * (qr_solve_gpu.c): ft_dgels_gpu / ft_dormqr_gpu on device copies in gpu mode, and the same code
 * on the host backend with host memory (qr_dgels_dev / qr_ormqr_dev, is_gpu = 0) in cpu mode,
 * so the cpu run checks the blocked algorithm, its T factors, rotation order and scaling too.
 *
 * - dgels: trans N and T, m >= n and m < n, several right-hand sides, a well-conditioned
 *   full-rank A (condition number < 4) (consistent right-hand sides for the overdetermined
 *   systems), with and without an error injected into the trailing matrix at an early, middle
 *   and late step of the factorization (consumed by later panels: recovered by QR update inside
 *   the solver; the recovery itself is asserted by test_dgeqrf_inject's qr-update mode).
 *   Asserts: status 0 and ||X - X_lapack||_F <= 30 eps ||X_lapack||_F, X_lapack from LAPACK
 *   dgels on the uncorrupted problem.
 * - scaling (LAPACK dgels' dlascl near under/overflow): A and B scaled by 1e-300, by 1e+300, and
 *   A by 1e-300 with B by 1e+5 (the solution near 1e305; with B beyond 1e292, dgels' own
 *   threshold, it would overflow). The same 30 eps, and no Inf/NaN in the solution. A = 0:
 *   X = 0, info 0.
 * - dormqr: an FT factor with rotation records at three panel boundaries (faults consumed by
 *   later panels, found at online checks every 2 panels and at the final one), side L and R,
 *   trans N and T: the dev version against ft_dormqr, ||C_dev - C_host||_F / (nq ||C||_F eps)
 *   <= 30 (LAPACK dqrt03's ratio), the padding rows of C untouched; the same with F = NULL.
 * - argument errors (info = -i) of ft_dgels, ft_dgels_gpu and ft_dormqr_gpu, quick returns, a
 *   singular R (info = the zero diagonal element), and in cpu mode the _gpu entry points on a
 *   CPU context (FT_ERR_INVALID_VALUE, or FT_ERR_NOT_BUILT without CUDA).
 *
 * Usage: test_dgels [cpu|cuda|auto]   (the thread's default context, FTLA_DEVICE)
 */
#define _POSIX_C_SOURCE 200809L
#include "qr/qr_internal.h" /* qr_dgels_dev, qr_ormqr_dev: the device algorithm on the host */
#include "testing_util.h"

#include <ftla.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define NB 32
#define TOL 30.0

enum { V_HOST = 0, V_DEV = 1 };
static const char *vname[2] = {"ft_dgels", "dev"};
static ft_device_t g_dev;

/* A device copy of the lda x cols array A (NULL when the copy failed). */
static double *to_dev(const double *A, int64_t lda, int64_t cols)
{
#ifdef FTLA_HAVE_CUDA
    double *d = NULL;
    const size_t bytes = (size_t)(lda * cols + 1) * sizeof(double);
    if (cudaMalloc((void **)&d, bytes) != cudaSuccess) return NULL;
    if (cudaMemcpy(d, A, (size_t)(lda * cols) * sizeof(double), cudaMemcpyHostToDevice) !=
        cudaSuccess) {
        cudaFree(d);
        return NULL;
    }
    return d;
#else
    (void)A, (void)lda, (void)cols;
    return NULL;
#endif
}

/* Copy the device array d back into A and free it; 0 on success. */
static int from_dev(double *d, double *A, int64_t lda, int64_t cols)
{
#ifdef FTLA_HAVE_CUDA
    int bad = cudaMemcpy(A, d, (size_t)(lda * cols) * sizeof(double), cudaMemcpyDeviceToHost) !=
              cudaSuccess;
    cudaFree(d);
    return bad;
#else
    (void)d, (void)A, (void)lda, (void)cols;
    return 1;
#endif
}

static void free_dev(double *d)
{
#ifdef FTLA_HAVE_CUDA
    cudaFree(d);
#else
    (void)d;
#endif
}

/* ft_dgels (v = V_HOST) or the device algorithm (V_DEV: ft_dgels_gpu on device copies in gpu
 * mode, qr_dgels_dev on the host backend in cpu mode). */
static int dgels_v(int v, char trans, int64_t m, int64_t n, int64_t nrhs, double *A, int64_t lda,
                   double *B, int64_t ldb, ft_int *info)
{
    if (v == V_HOST) {
        double w;
        return ft_dgels(trans, (ft_int)m, (ft_int)n, (ft_int)nrhs, A, (ft_int)lda, B,
                        (ft_int)ldb, &w, 1, info);
    }
    if (g_dev != FT_DEVICE_CUDA)
        return qr_dgels_dev(NULL, 0, trans, (ft_int)m, (ft_int)n, (ft_int)nrhs, A, (ft_int)lda,
                            B, (ft_int)ldb, info);
    double *dA = to_dev(A, lda, n), *dB = to_dev(B, ldb, nrhs);
    if (!dA || !dB) {
        free_dev(dA);
        free_dev(dB);
        TU_CHECK(0, "device copies of A and B");
        return FT_ERR_CUDA;
    }
    int st = ft_dgels_gpu(trans, (ft_int)m, (ft_int)n, (ft_int)nrhs, dA, (ft_int)lda, dB,
                          (ft_int)ldb, info);
    TU_CHECK(from_dev(dA, A, lda, n) == 0 && from_dev(dB, B, ldb, nrhs) == 0, "copies back");
    return st;
}

/* ft_dormqr_gpu's algorithm (device copies in gpu mode, qr_ormqr_dev on the host backend in cpu
 * mode). */
static int dormqr_dev(char side, char trans, int64_t m, int64_t n, int64_t k, const double *A,
                      int64_t lda, int64_t acols, const double *tau, const ft_qrf_t *F, double *C,
                      int64_t ldc, ft_int *info)
{
    if (g_dev != FT_DEVICE_CUDA)
        return qr_ormqr_dev(NULL, 0, side, trans, (ft_int)m, (ft_int)n, (ft_int)k, A, (ft_int)lda,
                            tau, F, C, (ft_int)ldc, info);
    double *dA = to_dev(A, lda, acols), *dC = to_dev(C, ldc, n);
    if (!dA || !dC) {
        free_dev(dA);
        free_dev(dC);
        TU_CHECK(0, "device copies of A and C");
        return FT_ERR_CUDA;
    }
    int st = ft_dormqr_gpu(side, trans, (ft_int)m, (ft_int)n, (ft_int)k, dA, (ft_int)lda, tau, F,
                           dC, (ft_int)ldc, info);
    free_dev(dA);
    TU_CHECK(from_dev(dC, C, ldc, n) == 0, "copy back");
    return st;
}

/* ||X - Y||_F / ||Y||_F over rows x cols (ld ldx, ldy), computed with scaling (solutions near
 * 1e305 have no finite square); Inf when Y = 0 and X is not, NaN when X holds NaN. */
static double rel_diff(int64_t rows, int64_t cols, const double *X, int64_t ldx, const double *Y,
                       int64_t ldy)
{
    double s = 0.0;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) s = fmax(s, fabs(Y[i + j * ldy]));
    if (s == 0.0) s = 1.0;
    double d = 0.0, r = 0.0;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            const double e = (X[i + j * ldx] - Y[i + j * ldy]) / s, y = Y[i + j * ldy] / s;
            d += e * e;
            r += y * y;
        }
    return r > 0.0 ? sqrt(d) / sqrt(r) : (d > 0.0 ? INFINITY : 0.0);
}

/* One dgels problem: the solver v against LAPACK dgels. sa, sb: A and B scaled after B was formed
 * (the solution scales by sb / sa); fstep: -1 no fault, 0/1/2 a fault at an early/middle/late
 * step. */
static void case_(tu_rng_t *rng, int v, char trans, int64_t m, int64_t n, int64_t nrhs, int fstep,
                  double sa, double sb)
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
    for (int64_t e = 0; e < m * n; e++) A0[e] *= sa;
    for (int64_t e = 0; e < mx * nrhs; e++) B[e] *= sb;
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
    ft_int info = 7;
    if (v == V_HOST) {
        double wq;
        TU_CHECK(ft_dgels(trans, (ft_int)m, (ft_int)n, (ft_int)nrhs, A, (ft_int)m, B, (ft_int)mx,
                          &wq, -1, &info) == 0 && info == 0 && wq >= 1, "workspace query");
    }
    int st = dgels_v(v, trans, m, n, nrhs, A, m, B, mx, &info);
    int finite = 1;
    for (int64_t c = 0; c < nrhs; c++)
        for (int64_t i = 0; i < cols; i++) finite &= isfinite(B[i + c * mx]) != 0;
    const double rel = rel_diff(cols, nrhs, B, mx, BL, mx) / tu_eps();
    TU_CHECK(st == 0 && info == 0 && finite && rel <= TOL,
             "%s %c %lldx%lld nrhs %lld A*%g B*%g fault at step %lld: status %d (%s) info %d, "
             "finite %d, ||X - X_lapack|| / ||X_lapack|| = %.3g eps", vname[v], trans,
             (long long)m, (long long)n, (long long)nrhs, sa, sb, (long long)step, st,
             ft_strerror(st), (int)info, finite, rel);
    ft_inject_clear(ctx);
    free(A), free(A0), free(B), free(BL), free(x);
}

/* The FT factor of an m x n matrix with rotation records at several panel boundaries: faults
 * at steps 1, 3, 5, 7 (those the shape has) in a column of that step's panel, consumed by it and
 * found at the next online check (verify_every 2: before panels 2, 4, 6; the final check for
 * step 7), so the records sit between reflector blocks and, for 256 x 256, after the last. */
static ft_qrf_t *factor_with_records(tu_rng_t *rng, int64_t m, int64_t n, double *AF, double *tau)
{
    ft_context_t *ctx = ft_default_context();
    ft_qrf_t *F = NULL;
    TU_CHECK(ft_qrf_create(&F) == 0, "ft_qrf_create");
    if (!F) return NULL;
    ft_policy_t p, p0;
    ft_context_get_policy(ctx, &p0);
    p = p0;
    p.verify_every = 2;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "verify_every 2");
    tu_fill(rng, m, n, AF, m);
    ft_inject_clear(ctx);
    const int64_t k = m < n ? m : n, np = (k + NB - 1) / NB;
    int planned = 0;
    for (int64_t step = 1; step < np; step += 2) {
        const ft_fault_t f = {.region = FT_REGION_TRAILING, .row = m - 1 - step,
                              .col = step * NB + 5, .bit = -1, .value = step & 2 ? -0.75 : 1.5,
                              .call = -1, .step = step};
        TU_CHECK(ft_inject_add(ctx, &f) == 0, "ft_inject_add");
        planned++;
    }
    TU_CHECK(ft_context_set_qrf(ctx, F) == 0, "ft_context_set_qrf");
    double *work = tu_malloc(n * NB);
    ft_int info = 0;
    ft_report_t rep;
    int st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)m, tau, work, (ft_int)(n * NB),
                          &info, &rep);
    ft_context_set_qrf(ctx, NULL);
    ft_context_set_policy(ctx, &p0);
    ft_inject_clear(ctx);
    TU_CHECK(st == 0 && rep.recovery == 1 && ft_qrf_recoveries(F) == planned,
             "FT factor %lldx%lld: status %d recovery %d, %d rotation records (%d expected)",
             (long long)m, (long long)n, st, rep.recovery, ft_qrf_recoveries(F), planned);
    free(work);
    return F;
}

/* ft_dormqr_gpu's algorithm against ft_dormqr, side L/R, trans N/T, with F and with F = NULL. */
static void ormqr_cases(tu_rng_t *rng, int64_t m, int64_t n)
{
    const int64_t k = m < n ? m : n, nc = 7, pad = 3;
    double *AF = tu_malloc(m * n), *tau = tu_malloc(k);
    ft_qrf_t *F = factor_with_records(rng, m, n, AF, tau);
    const double eps = tu_eps();
    for (int withf = 1; withf >= 0; withf--)
        for (int s = 0; s < 2; s++)
            for (int t = 0; t < 2; t++) {
                const char side = s ? 'R' : 'L', trans = t ? 'T' : 'N';
                /* C: nq x nc (left) or nc x nq (right), nq = m (the factored rows) */
                const int64_t cm = s ? nc : m, cn = s ? m : nc, ldc = cm + pad;
                double *C0 = tu_malloc(ldc * cn), *C1 = tu_malloc(ldc * cn),
                       *C2 = tu_malloc(ldc * cn);
                tu_set_all(ldc, cn, C0, -77.0); /* the padding rows: must stay */
                tu_fill(rng, cm, cn, C0, ldc);
                memcpy(C1, C0, (size_t)(ldc * cn) * sizeof(double));
                memcpy(C2, C0, (size_t)(ldc * cn) * sizeof(double));
                ft_int i1 = 7, i2 = 7;
                const ft_qrf_t *Fu = withf ? F : NULL;
                int s1 = ft_dormqr(side, trans, (ft_int)cm, (ft_int)cn, (ft_int)k, AF, (ft_int)m,
                                   tau, Fu, C1, (ft_int)ldc, &i1);
                int s2 = dormqr_dev(side, trans, cm, cn, k, AF, m, n, tau, Fu, C2, ldc, &i2);
                int padok = 1;
                for (int64_t j = 0; j < cn; j++)
                    for (int64_t i = cm; i < ldc; i++) padok &= C2[i + j * ldc] == -77.0;
                const double ratio = rel_diff(cm, cn, C2, ldc, C1, ldc) / ((double)m * eps);
                TU_CHECK(s1 == 0 && i1 == 0 && s2 == 0 && i2 == 0 && padok && ratio <= TOL,
                         "dormqr %c %c %lldx%lld (factor %lldx%lld, %s): status %d/%d info "
                         "%d/%d, padding %s, ||C_dev - C_host|| / (nq ||C|| eps) = %.3g",
                         side, trans, (long long)cm, (long long)cn, (long long)m, (long long)n,
                         withf ? "with rotations" : "F = NULL", s1, s2, (int)i1, (int)i2,
                         padok ? "intact" : "CHANGED", ratio);
                free(C0), free(C1), free(C2);
            }
    ft_qrf_destroy(F);
    free(AF), free(tau);
}

/* Argument errors (info = -i, LAPACK order), quick returns and the singular R. */
static void args_(void)
{
    double a[4] = {1, 0, 0, 1}, b[4] = {1, 1, 1, 1}, w, tau[2] = {0, 0};
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
    /* the _gpu entry points check every argument before touching memory: host pointers are
     * never dereferenced on these paths */
    TU_CHECK(ft_dgels_gpu('X', 2, 2, 1, a, 2, b, 2, &info) == -1 && info == -1, "gpu trans");
    TU_CHECK(ft_dgels_gpu('N', -1, 2, 1, a, 2, b, 2, &info) == -2 && info == -2, "gpu m");
    TU_CHECK(ft_dgels_gpu('N', 2, -1, 1, a, 2, b, 2, &info) == -3 && info == -3, "gpu n");
    TU_CHECK(ft_dgels_gpu('T', 2, 2, -1, a, 2, b, 2, &info) == -4 && info == -4, "gpu nrhs");
    TU_CHECK(ft_dgels_gpu('N', 3, 2, 1, a, 2, b, 3, &info) == -6 && info == -6, "gpu ldda");
    TU_CHECK(ft_dgels_gpu('N', 2, 3, 1, a, 2, b, 2, &info) == -8 && info == -8, "gpu lddb");
    TU_CHECK(ft_dgels_gpu('N', 2, 2, 0, a, 2, b, 2, &info) == 0 && info == 0, "gpu nrhs = 0");
    TU_CHECK(ft_dormqr_gpu('X', 'N', 2, 2, 2, a, 2, tau, NULL, b, 2, &info) == -1 && info == -1,
             "ormqr side");
    TU_CHECK(ft_dormqr_gpu('L', 'C', 2, 2, 2, a, 2, tau, NULL, b, 2, &info) == -2, "ormqr trans");
    TU_CHECK(ft_dormqr_gpu('L', 'N', -1, 2, 0, a, 2, tau, NULL, b, 2, &info) == -3, "ormqr m");
    TU_CHECK(ft_dormqr_gpu('R', 'N', 2, -1, 0, a, 2, tau, NULL, b, 2, &info) == -4, "ormqr n");
    TU_CHECK(ft_dormqr_gpu('L', 'T', 2, 2, 3, a, 2, tau, NULL, b, 2, &info) == -5, "ormqr k");
    TU_CHECK(ft_dormqr_gpu('R', 'N', 1, 3, 2, a, 2, tau, NULL, b, 1, &info) == -7, "ormqr lda");
    TU_CHECK(ft_dormqr_gpu('L', 'N', 2, 2, 2, a, 2, tau, NULL, b, 1, &info) == -11 && info == -11,
             "ormqr ldc");
    TU_CHECK(ft_dormqr_gpu('L', 'N', 2, 2, 0, a, 2, tau, NULL, b, 2, &info) == 0 && info == 0,
             "ormqr k = 0");
    if (g_dev == FT_DEVICE_CPU) { /* the _gpu entry points on a CPU context */
        const int want = ft_have_cuda() ? FT_ERR_INVALID_VALUE : FT_ERR_NOT_BUILT;
        int st = ft_dgels_gpu('N', 2, 2, 1, a, 2, b, 2, &info);
        TU_CHECK(st == want && info == want, "ft_dgels_gpu on a CPU context: %d", st);
        st = ft_dormqr_gpu('L', 'N', 2, 2, 2, a, 2, tau, NULL, b, 2, &info);
        TU_CHECK(st == want && info == want, "ft_dormqr_gpu on a CPU context: %d", st);
    }
    for (int v = 0; v < 2; v++) {
        /* rank deficient: info = the zero diagonal of R */
        double z[4] = {1, 0, 0, 0}, bz[2] = {1, 1};
        int st = dgels_v(v, 'N', 2, 2, 1, z, 2, bz, 2, &info);
        TU_CHECK(st == 2 && info == 2, "%s singular R: status %d info %d", vname[v], st, (int)info);
        /* A = 0: X = 0 (LAPACK's anrm = 0 exit) */
        double a0[6] = {0, 0, 0, 0, 0, 0}, b0[6] = {1, 2, 3, 4, 5, 6};
        st = dgels_v(v, 'T', 3, 2, 2, a0, 3, b0, 3, &info);
        TU_CHECK(st == 0 && info == 0 && b0[0] == 0 && b0[2] == 0 && b0[3] == 0 && b0[5] == 0,
                 "%s A = 0: status %d, B not zeroed", vname[v], st);
        /* m = 0: B(1:n, :) = 0 */
        double b1[3] = {1, 2, 3};
        st = dgels_v(v, 'N', 0, 3, 1, a0, 1, b1, 3, &info);
        TU_CHECK(st == 0 && b1[0] == 0 && b1[1] == 0 && b1[2] == 0, "%s m = 0: status %d",
                 vname[v], st);
    }
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    setenv("FTLA_DEVICE",
           g_dev == FT_DEVICE_CUDA ? "cuda" : g_dev == FT_DEVICE_CPU ? "cpu" : "auto", 1);
    if (g_dev == FT_DEVICE_CUDA && !ft_cuda_available()) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    if (g_dev == FT_DEVICE_AUTO) g_dev = FT_DEVICE_CPU; /* the dev version: host backend */
    ft_context_t *ctx = ft_default_context();
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = NB;
    p.crossover = -1;
    ft_context_set_policy(ctx, &p);
    tu_rng_t rng;
    tu_seed(&rng, 808);
    const int64_t shapes[4][2] = {{300, 160}, {160, 300}, {256, 256}, {97, 61}};
    for (int v = 0; v < 2; v++)
        for (int s = 0; s < 4; s++)
            for (int t = 0; t < 2; t++)
                for (int f = -1; f < 3; f++)
                    case_(&rng, v, t ? 'T' : 'N', shapes[s][0], shapes[s][1], 3, f, 1.0, 1.0);
    /* near under/overflow: LAPACK dgels' scaling */
    const double scales[5][2] = {{1e-300, 1e-300}, {1e+300, 1e+300}, {1e-300, 1e+5},
                                 {1e+306, 1e+306}, {1e-315, 1e-315}};
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < 5; c++)
            for (int s = 0; s < 2; s++)
                for (int t = 0; t < 2; t++)
                    case_(&rng, v, t ? 'T' : 'N', shapes[s][0], shapes[s][1], 2, -1,
                          scales[c][0], scales[c][1]);
    ormqr_cases(&rng, 300, 160);
    ormqr_cases(&rng, 160, 300);
    ormqr_cases(&rng, 256, 256);
    args_();
    return tu_finish();
}
