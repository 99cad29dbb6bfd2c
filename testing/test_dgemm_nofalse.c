/*
 * test_dgemm_nofalse.c — ft_dgemm never reports an error on valid data (no false positives).
 *
 * Zero detections (report.detected == 0, checksum_errors == 0, nothing corrected or
 * recomputed, status 0) and a correct result (error ratio < 30 against cblas_dgemm) over:
 *   - random data scaled by s = 1e-300, 1e-150, 1e-8, 1, 1e8, 1e150, 1e300, as A*s with B (C0
 *     scaled with the product), and as A*s with B/s;
 *   - magnitudes mixed 1e-8 .. 1e+8 across the rows of op(A) and the columns of op(B) (row i
 *     scaled by 10^(-8 + 16 i/(m-1)), column j likewise, in both directions);
 *   - small integers (exact products);
 *   - beta C0 = -alpha op(A) op(B) (the result is pure rounding noise), and columns of op(B)
 *     in +- pairs (every tile row sum cancels);
 *   - a large inner dimension (64 x 64 x 4096), and a larger problem (400 x 333 x 1000);
 * for the four transpose pairs, beta = 0 and beta != 0, tile 64 and the automatic tile.
 * Where nothing can overflow (|s| <= 1e150), every check must also have been evaluated
 * (report.unchecked == 0).
 *
 * Usage: test_dgemm_nofalse [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include "testing_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0

static ft_device_t g_dev;
static long g_calls = 0;

enum {
    DATA_SCALED_A = 0,  /* A*s, B, C0*s */
    DATA_SCALED_AB = 1, /* A*s, B/s */
    DATA_MIXED = 2,     /* rows of op(A) and columns of op(B) from 1e-8 to 1e+8 */
    DATA_MIXED_REV = 3, /* rows of op(A) from 1e+8 down to 1e-8, columns of op(B) up */
    DATA_INT = 4,       /* small integers */
    DATA_CANCEL = 5,    /* beta C0 = -alpha op(A) op(B): the result is rounding noise */
    DATA_ANTI = 6       /* column 2j+1 of op(B) = -column 2j: tile row sums cancel */
};
static const char *data_name[] = {
    "A*s, B",   "A*s, B/s",    "mixed rows/cols",      "mixed reversed",
    "integers", "C cancelled", "antisymmetric columns"};

/* Scale row i of op(A) (m x k, stored as ta says) by r. */
static void scale_opa_row(char ta, double *A, int64_t lda, int64_t k, int64_t i, double r)
{
    for (int64_t l = 0; l < k; l++)
        A[(ta == 'N' || ta == 'n') ? TU_IX(i, l, lda) : TU_IX(l, i, lda)] *= r;
}

/* Scale column j of op(B) (k x n, stored as tb says) by r. */
static void scale_opb_col(char tb, double *B, int64_t ldb, int64_t k, int64_t j, double r)
{
    for (int64_t l = 0; l < k; l++)
        B[(tb == 'N' || tb == 'n') ? TU_IX(l, j, ldb) : TU_IX(j, l, ldb)] *= r;
}

static void one(ft_context_t *ctx, const char *ctxname, tu_rng_t *rng, char ta, char tb, int64_t m,
                int64_t n, int64_t k, double alpha, double beta, int data, double s)
{
    g_calls++;
    const int64_t nrowa = tu_nrows(ta, m, k), ncola = tu_nrows(ta, k, m);
    const int64_t nrowb = tu_nrows(tb, k, n), ncolb = tu_nrows(tb, n, k);
    const int64_t lda = nrowa, ldb = nrowb, ldc = m;
    double *A = tu_malloc(lda * ncola), *B = tu_malloc(ldb * ncolb);
    double *C0 = tu_malloc(ldc * n), *C = tu_malloc(ldc * n), *R = tu_malloc(ldc * n);
    if (data == DATA_INT) {
        for (int64_t p = 0; p < lda * ncola; p++) A[p] = tu_int(rng, -4, 4);
        for (int64_t p = 0; p < ldb * ncolb; p++) B[p] = tu_int(rng, -4, 4);
        for (int64_t p = 0; p < ldc * n; p++) C0[p] = tu_int(rng, -9, 9);
    } else {
        tu_fill(rng, nrowa, ncola, A, lda);
        tu_fill(rng, nrowb, ncolb, B, ldb);
        tu_fill(rng, m, n, C0, ldc);
    }
    if (data == DATA_SCALED_A || data == DATA_SCALED_AB) {
        for (int64_t p = 0; p < lda * ncola; p++) A[p] *= s;
        if (data == DATA_SCALED_AB)
            for (int64_t p = 0; p < ldb * ncolb; p++) B[p] /= s;
        else
            for (int64_t p = 0; p < ldc * n; p++) C0[p] *= s; /* C0 of the product's size */
    } else if (data == DATA_MIXED || data == DATA_MIXED_REV) {
        const double dir = data == DATA_MIXED ? 1.0 : -1.0;
        for (int64_t i = 0; i < m; i++) {
            double r = pow(10.0, dir * (-8.0 + 16.0 * (double)i / (double)(m > 1 ? m - 1 : 1)));
            scale_opa_row(ta, A, lda, k, i, r);
            for (int64_t j = 0; j < n; j++) C0[TU_IX(i, j, ldc)] *= r;
        }
        for (int64_t j = 0; j < n; j++) {
            double r = pow(10.0, -8.0 + 16.0 * (double)j / (double)(n > 1 ? n - 1 : 1));
            scale_opb_col(tb, B, ldb, k, j, r);
            for (int64_t i = 0; i < m; i++) C0[TU_IX(i, j, ldc)] *= r;
        }
    }
    if (data == DATA_ANTI)
        for (int64_t j = 0; j + 1 < n; j += 2)
            for (int64_t l = 0; l < k; l++) {
                int notb = tb == 'N' || tb == 'n';
                B[notb ? TU_IX(l, j + 1, ldb) : TU_IX(j + 1, l, ldb)] =
                    -B[notb ? TU_IX(l, j, ldb) : TU_IX(j, l, ldb)];
            }
    if (data == DATA_CANCEL) {
        /* C0 := -(alpha/beta) op(A) op(B) as cblas computes it */
        tu_ref_dgemm(ta, tb, m, n, k, -alpha / beta, A, lda, B, ldb, 0.0, C0, ldc);
    }
    memcpy(C, C0, (size_t)(ldc * n) * sizeof(double));
    memcpy(R, C0, (size_t)(ldc * n) * sizeof(double));
    tu_ref_dgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);

    ft_report_t rep;
    tu_poison_report(&rep); /* every field checked below must come from the call */
    int st = ft_dgemm_ex(ctx, ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, A, (ft_int)lda, B,
                         (ft_int)ldb, beta, C, (ft_int)ldc, &rep);
    int bad0 = (int)tu_failed;
    char where[256];
    snprintf(where, sizeof where, "%s %c%c %lldx%lldx%lld alpha %g beta %g, %s, s = %g", ctxname,
             ta, tb, (long long)m, (long long)n, (long long)k, alpha, beta, data_name[data], s);
    TU_CHECK(st == 0 && rep.status == 0, "status %d (%s): %s", st, ft_strerror(st), where);
    TU_CHECK(rep.detected == 0 && rep.checksum_errors == 0,
             "false detection: detected %lld checksum_errors %lld: %s", (long long)rep.detected,
             (long long)rep.checksum_errors, where);
    TU_CHECK(rep.corrected == 0 && rep.recomputed == 0 && rep.uncorrectable == 0,
             "corrected %lld recomputed %lld uncorrectable %lld: %s", (long long)rep.corrected,
             (long long)rep.recomputed, (long long)rep.uncorrectable, where);
    TU_CHECK(rep.checks > 0, "no check evaluated: %s", where);
    TU_CHECK(rep.backend == tu_expected_backend(g_dev), "ran on backend %d: %s", (int)rep.backend,
             where);
    if (data >= DATA_MIXED || (s >= 1e-150 && s <= 1e150)) /* nothing can overflow */
        TU_CHECK(rep.unchecked == 0, "%lld checks skipped on finite, moderate data: %s",
                 (long long)rep.unchecked, where);
    double ratio =
        tu_gemm_ratio(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C0, ldc, C, ldc, R, ldc);
    TU_CHECK(ratio < TOL, "error ratio %.3e: %s", ratio, where);
    if ((int)tu_failed != bad0) tu_print_report("report", &rep);
    free(A);
    free(B);
    free(C0);
    free(C);
    free(R);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    ft_context_t *ctx[2] = {NULL, NULL};
    const char *ctxname[2] = {"tile 64", "auto tile"};
    for (int c = 0; c < 2; c++) ctx[c] = tu_make_context(g_dev, c == 0 ? 64 : 0, -1);
    tu_rng_t rng;
    tu_seed(&rng, 99);
    static const char pairs[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    static const double scales[] = {1e-300, 1e-150, 1e-8, 1.0, 1e8, 1e150, 1e300};
    const int nscales = (int)(sizeof scales / sizeof scales[0]);
    static const double alphas[] = {1.0, -0.7, 3.5};
    static const int64_t sizes[][3] = {
        {150, 130, 170}, {64, 64, 4096}, {257, 131, 67}, {400, 333, 1000}, {150, 130, 170}};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    long idx = 0;
    for (int sz = 0; sz < nsizes; sz++)
        for (int p = 0; p < 4; p++)
            for (int b = 0; b < 2; b++)
                for (int c = 0; c < 2; c++) {
                    const int64_t m = sizes[sz][0], n = sizes[sz][1], k = sizes[sz][2];
                    const char ta = pairs[p][0], tb = pairs[p][1];
                    const double beta = b ? 0.7 : 0.0;
                    for (int s = 0; s < nscales; s++)
                        for (int d = DATA_SCALED_A; d <= DATA_SCALED_AB; d++, idx++)
                            one(ctx[c], ctxname[c], &rng, ta, tb, m, n, k, alphas[idx % 3], beta, d,
                                scales[s]);
                    for (int d = DATA_MIXED; d <= DATA_MIXED_REV; d++, idx++)
                        one(ctx[c], ctxname[c], &rng, ta, tb, m, n, k, alphas[idx % 3], beta, d,
                            1.0);
                    one(ctx[c], ctxname[c], &rng, ta, tb, m, n, k, 1.0, b ? -2.0 : 0.0, DATA_INT,
                        1.0);
                    one(ctx[c], ctxname[c], &rng, ta, tb, m, n, k, alphas[idx % 3], b ? 0.7 : -1.0,
                        DATA_CANCEL, 1.0);
                    one(ctx[c], ctxname[c], &rng, ta, tb, m, n, k, alphas[idx % 3], beta, DATA_ANTI,
                        1.0);
                }
    printf("%ld calls on %s\n", g_calls, tu_device_name(g_dev));
    ft_context_destroy(ctx[0]);
    ft_context_destroy(ctx[1]);
    return tu_finish();
}
