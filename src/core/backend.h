/*
 * backend.h — the only way algorithm code reaches BLAS, LAPACK-free kernels, memory and CUDA.
 *
 * Each algorithm (src/blas3, src/qr, ...) is written once against this table. Two implementations:
 *   host  (backend_host.c + src/blas3/abft_host.c): OpenBLAS on host memory, synchronous,
 *         copies are memcpy, queues and events are no-ops (events read the wall clock);
 *   cuda  (backend_cuda.cu + src/blas3/abft_cuda.cu): cuBLAS and own kernels on device memory,
 *         each queue a CUDA stream, copies cudaMemcpy2DAsync from pinned/pageable host memory.
 * "Work memory" is host memory for host, device memory for cuda. All matrices column-major.
 * Every function returns 0 or an ft_status_t; none aborts.
 */
#ifndef FTLA_BACKEND_H
#define FTLA_BACKEND_H

#include "ftla.h"
#include <stddef.h>
#include <stdint.h>

struct abft_rowcheck_args;
struct abft_flag;

/* Queues: work issued on one queue runs in order; different queues may overlap. */
enum { FT_Q_MAIN = 0, FT_Q_SIDE = 1, FT_Q_H2D = 2, FT_Q_D2H = 3, FT_NQUEUES = 4 };
/* Timing events per context (indices into a small table). */
enum { FT_NEVENTS = 16 };

typedef struct ft_backend {
    ft_device_t kind;
    const char *name;

    /* Memory. alloc/free: work memory. alloc_host: host memory suited for async copies
     * (pinned on cuda). memset0: zero bytes of work memory on queue q. */
    int (*alloc)(ft_context_t *ctx, void **p, size_t bytes);
    void (*free)(ft_context_t *ctx, void *p);
    int (*alloc_host)(ft_context_t *ctx, void **p, size_t bytes);
    void (*free_host)(ft_context_t *ctx, void *p);
    int (*memset0)(ft_context_t *ctx, int q, void *p, size_t bytes);

    /* Copies of an m x n column-major matrix on queue q (asynchronous on cuda). */
    int (*set_matrix)(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *hA,
                      int64_t lda, double *dA, int64_t ldda);               /* host -> work */
    int (*get_matrix)(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *dA,
                      int64_t ldda, double *hA, int64_t lda);               /* work -> host */
    int (*copy_matrix)(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *dA,
                       int64_t ldda, double *dB, int64_t lddb);             /* work -> work */

    /* Ordering. sync: the host waits for queue q. fork: queue `to` waits for all work issued
     * so far on queue `from` (no host wait). */
    int (*sync)(ft_context_t *ctx, int q);
    int (*fork)(ft_context_t *ctx, int from, int to);
    /* Timing: record event e on queue q; elapsed seconds between two recorded events
     * (synchronises on e1). */
    int (*event_record)(ft_context_t *ctx, int q, int e);
    int (*event_elapsed)(ft_context_t *ctx, int e0, int e1, double *seconds);

    /* BLAS on work memory, BLAS semantics (trans 'N'/'T'). */
    int (*dgemm)(ft_context_t *ctx, int q, char ta, char tb, int64_t m, int64_t n, int64_t k,
                 double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                 double beta, double *C, int64_t ldc);
    /* B := alpha*op(A)*B (side 'L') or alpha*B*op(A) (side 'R'), A triangular, in place. */
    int (*dtrmm)(ft_context_t *ctx, int q, char side, char uplo, char transa, char diag,
                 int64_t m, int64_t n, double alpha, const double *A, int64_t lda, double *B,
                 int64_t ldb);
    /* y := alpha*op(A)*x + beta*y (incx = incy = 1). */
    int (*dgemv)(ft_context_t *ctx, int q, char ta, int64_t m, int64_t n, double alpha,
                 const double *A, int64_t lda, const double *x, double beta, double *y);

    /* Single elements of work memory (synchronous on queue q): used by fault injection and by
     * in-place correction, which touch a handful of elements. */
    int (*get_elem)(ft_context_t *ctx, int q, const double *p, double *value);
    int (*set_elem)(ft_context_t *ctx, int q, double *p, double value);

    /* ---- ABFT kernels (src/blas3/abft_*.{c,cu}); formulas in src/blas3/abft.h ---- */

    /* Block sums of the logical matrix X' = op(X) (rows x cols; trans 'N': X' = X stored
     * rows x cols; 'T': X' = X^T, X stored cols x rows). The columns of X' are split into
     * nb = ceil(cols / T) blocks; for every row r and block J (weights w from abft_weight):
     *   sums[r + (2J)  *lds] = sum_{j in J}        X'(r, j)     (if sums != NULL)
     *   sums[r + (2J+1)*lds] = sum_{j in J} w_j *  X'(r, j)
     *   abss[r + J*ldabs]     = sum_{j in J}       |X'(r, j)|    (if abss != NULL)
     * Outputs are overwritten. */
    int (*block_sums)(ft_context_t *ctx, int q, char trans, int64_t rows, int64_t cols,
                      const double *X, int64_t ldx, int64_t T, double *sums, int64_t lds,
                      double *abss, int64_t ldabs);
    /* out[c] = max_r |X(r, c)| for an rows x cols column-major X. */
    int (*col_absmax)(ft_context_t *ctx, int q, int64_t rows, int64_t cols, const double *X,
                      int64_t ldx, double *out);
    /* Row-check comparison for ft_dgemm (abft.h: abft_row_check). Appends every failing
     * (row, block) to flags (capacity cap; *nflags counts all, may exceed cap) and counts
     * unverifiable checks in *nunchecked. nflags/nunchecked are host pointers; the call
     * synchronises queue q. */
    int (*verify_rows)(ft_context_t *ctx, int q, const struct abft_rowcheck_args *args,
                       struct abft_flag *flags, int64_t cap, int64_t *nflags,
                       int64_t *nunchecked);

    /* Optional (NULL: the driver calls block_sums twice and copy_matrix). One pass over the
     * input C0 (m x n): its block row sums as block_sums('N', m, n, C0, T, rs, m, ra, m), when
     * cs is not NULL its block column sums as block_sums('T', n, m, C0, T, cs, n, ca, n), and,
     * when backup is not NULL, a copy of C0 into backup (ld m). */
    int (*c0_pass)(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *C0, int64_t ldc,
                   int64_t T, double *rs, double *ra, double *cs, double *ca, double *backup);
} ft_backend_t;

/* The two implementations. ft_backend_cuda() is NULL in builds without CUDA. */
const ft_backend_t *ft_backend_host(void);
const ft_backend_t *ft_backend_cuda(void);

/* CUDA backend life cycle (stubs return FT_ERR_NOT_BUILT without CUDA). */
int ft_cuda_probe(void);                    /* 1 when a device is usable */
int ft_cuda_ctx_init(ft_context_t *ctx);    /* create streams, handles, events (idempotent) */
void ft_cuda_ctx_fini(ft_context_t *ctx);
int ft_cuda_set_stream(ft_context_t *ctx, void *stream);
/* Free device memory in bytes (0 when unknown). */
size_t ft_cuda_mem_free(void);
/* Is p a device pointer? (1 yes, 0 no/unknown) */
int ft_cuda_is_device_ptr(const void *p);

#endif
