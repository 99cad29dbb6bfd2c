/*
 * abft_cuda.h — CUDA-only internals shared by core/backend_cuda.cu and blas3/abft_cuda.cu: the
 * ABFT kernels of the backend table (semantics in core/backend.h, formulas in abft.h) and the
 * few pieces of the private CUDA state they need (stream of a queue, scratch memory, error
 * mapping). Included from .cu files only.
 */
#ifndef FTLA_ABFT_CUDA_H
#define FTLA_ABFT_CUDA_H

/* System and CUDA headers first: they must not end up inside the extern "C" block below. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "blas3/abft.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "core/context.h"

/* Stream of queue q of the context (initialising the CUDA state if needed); NULL when q is out
 * of range or the state cannot be created. */
cudaStream_t ftla_cuda_stream(ft_context_t *ctx, int q);

/* Multiprocessor count of the context's device (>= 1), for sizing grids. */
int ftla_cuda_sm_count(ft_context_t *ctx);

/* Persistent scratch of the context: *dev receives at least dev_bytes of device memory (grown on
 * demand, kept until ft_cuda_ctx_fini; 256-byte aligned), *host FTLA_CUDA_HOST_SCRATCH bytes of
 * pinned host memory. Either may be NULL when not wanted. Users must finish (synchronise) their
 * work on the scratch before returning; calls on one context do not run concurrently. */
#define FTLA_CUDA_HOST_SCRATCH 128
int ftla_cuda_scratch(ft_context_t *ctx, size_t dev_bytes, void **dev, void **host);

/* Turn a failed CUDA call into an ftla status: clears the (non-sticky) error state, logs
 * `what` and file:line to stderr when FTLA_VERBOSE >= 1, returns FT_ERR_DEVICE_ALLOC for
 * cudaErrorMemoryAllocation and FT_ERR_CUDA otherwise. Never aborts. */
int ftla_cuda_error(cudaError_t err, const char *what, const char *file, int line);

/* Return the ftla status of a failing CUDA runtime call from the enclosing function. */
#define FTLA_CUDA_TRY(call)                                                                        \
    do {                                                                                           \
        cudaError_t ftla_cuda_err_ = (call);                                                       \
        if (ftla_cuda_err_ != cudaSuccess)                                                         \
            return ftla_cuda_error(ftla_cuda_err_, #call, __FILE__, __LINE__);                     \
    } while (0)

/* The three ABFT entries of the cuda backend table (see core/backend.h). */
int abft_cuda_block_sums(ft_context_t *ctx, int q, char trans, int64_t rows, int64_t cols,
                         const double *X, int64_t ldx, int64_t T, double *sums, int64_t lds,
                         double *abss, int64_t ldabs);
int abft_cuda_col_absmax(ft_context_t *ctx, int q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *out);
int abft_cuda_verify_rows(ft_context_t *ctx, int q, const abft_rowcheck_args_t *args,
                          abft_flag_t *flags, int64_t cap, int64_t *nflags, int64_t *nunchecked);

#ifdef __cplusplus
}
#endif

#endif
