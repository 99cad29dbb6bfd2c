/* backend_host.c — the host backend: OpenBLAS (CBLAS) on host memory, everything synchronous.
 * Queues are one: fork/sync are no-ops, events read the wall clock. */
#include "blas3/abft_host.h"
#include "context.h"

#include <cblas.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

static int h_alloc(ft_context_t *ctx, void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0) bytes = 64;
    bytes = (bytes + 63) / 64 * 64;
    *p = aligned_alloc(64, bytes);
    return *p ? FT_SUCCESS : FT_ERR_ALLOC;
}

static void h_free(ft_context_t *ctx, void *p) { free(p); }

static int h_memset0(ft_context_t *ctx, int q, void *p, size_t bytes)
{
    if (bytes) memset(p, 0, bytes);
    return FT_SUCCESS;
}

static int h_copy(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *A, int64_t lda,
                  double *B, int64_t ldb)
{
    if (m <= 0 || n <= 0 || A == B) return FT_SUCCESS;
    if (lda == m && ldb == m) {
        memmove(B, A, (size_t)(m * n) * sizeof(double));
        return FT_SUCCESS;
    }
    for (int64_t j = 0; j < n; j++) memmove(B + j * ldb, A + j * lda, (size_t)m * sizeof(double));
    return FT_SUCCESS;
}

static int h_sync(ft_context_t *ctx, int q) { return FT_SUCCESS; }
static int h_fork(ft_context_t *ctx, int from, int to) { return FT_SUCCESS; }

static int h_event_record(ft_context_t *ctx, int q, int e)
{
    if (e < 0 || e >= FT_NEVENTS) return FT_ERR_INTERNAL;
    ctx->host_events[e] = ft_wtime();
    return FT_SUCCESS;
}

static int h_event_elapsed(ft_context_t *ctx, int e0, int e1, double *s)
{
    if (e0 < 0 || e0 >= FT_NEVENTS || e1 < 0 || e1 >= FT_NEVENTS) return FT_ERR_INTERNAL;
    *s = ctx->host_events[e1] - ctx->host_events[e0];
    return FT_SUCCESS;
}

static enum CBLAS_TRANSPOSE cbt(char t) { return (t == 'N' || t == 'n') ? CblasNoTrans : CblasTrans; }

static int h_dgemm(ft_context_t *ctx, int q, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                   double beta, double *C, int64_t ldc)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(lda) || !fits_int(ldb) ||
        !fits_int(ldc))
        return FT_ERR_TOO_LARGE;
    cblas_dgemm(CblasColMajor, cbt(ta), cbt(tb), (int)m, (int)n, (int)k, alpha, A, (int)lda, B,
                (int)ldb, beta, C, (int)ldc);
    return FT_SUCCESS;
}

static int h_dtrmm(ft_context_t *ctx, int q, char side, char uplo, char transa, char diag,
                   int64_t m, int64_t n, double alpha, const double *A, int64_t lda, double *B,
                   int64_t ldb)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(lda) || !fits_int(ldb)) return FT_ERR_TOO_LARGE;
    cblas_dtrmm(CblasColMajor, (side == 'L' || side == 'l') ? CblasLeft : CblasRight,
                (uplo == 'U' || uplo == 'u') ? CblasUpper : CblasLower, cbt(transa),
                (diag == 'U' || diag == 'u') ? CblasUnit : CblasNonUnit, (int)m, (int)n, alpha, A,
                (int)lda, B, (int)ldb);
    return FT_SUCCESS;
}

static int h_dgemv(ft_context_t *ctx, int q, char ta, int64_t m, int64_t n, double alpha,
                   const double *A, int64_t lda, const double *x, double beta, double *y)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(lda)) return FT_ERR_TOO_LARGE;
    cblas_dgemv(CblasColMajor, cbt(ta), (int)m, (int)n, alpha, A, (int)lda, x, 1, beta, y, 1);
    return FT_SUCCESS;
}

static int h_get_elem(ft_context_t *ctx, int q, const double *p, double *v)
{
    *v = *p;
    return FT_SUCCESS;
}

static int h_set_elem(ft_context_t *ctx, int q, double *p, double v)
{
    *p = v;
    return FT_SUCCESS;
}

static const ft_backend_t g_host = {
    .kind = FT_DEVICE_CPU,
    .name = "cpu",
    .alloc = h_alloc,
    .free = h_free,
    .alloc_host = h_alloc,
    .free_host = h_free,
    .memset0 = h_memset0,
    .set_matrix = h_copy,
    .get_matrix = h_copy,
    .copy_matrix = h_copy,
    .sync = h_sync,
    .fork = h_fork,
    .event_record = h_event_record,
    .event_elapsed = h_event_elapsed,
    .dgemm = h_dgemm,
    .dtrmm = h_dtrmm,
    .dgemv = h_dgemv,
    .get_elem = h_get_elem,
    .set_elem = h_set_elem,
    .block_sums = abft_host_block_sums,
    .col_absmax = abft_host_col_absmax,
    .verify_rows = abft_host_verify_rows,
    .c0_pass = abft_host_c0_pass,
};

const ft_backend_t *ft_backend_host(void) { return &g_host; }
