/*
 * cuda_internal.h — what CUDA code of this library (the cuda backend and the modules' cuda
 * kernel tables) shares: a queue's native stream and device facts, and the mapping of CUDA
 * errors to ftla statuses. Included from .cu files only; never by algorithm code.
 */
#ifndef FTLA_CUDA_INTERNAL_H
#define FTLA_CUDA_INTERNAL_H

/* System and CUDA headers first: they must not end up inside the extern "C" block below. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "backend/backend.h"

/* The CUDA stream work of queue q is issued on, and its device's multiprocessor count (>= 1,
 * for sizing grids). */
cudaStream_t ftla_cuda_queue_stream(const ft_queue_t *q);
int ftla_cuda_queue_sm_count(const ft_queue_t *q);
/* Device scratch of at least `bytes` for kernels issued on q, kept with the queue and reused
 * by the next call (stream order protects it): a cudaMallocAsync per call costs ~0.3 ms of host
 * time once a stream sync has trimmed the default pool (measured on the H100, issue 8). Growing
 * it synchronizes the queue. Valid until the next call that asks for more. */
int ftla_cuda_queue_scratch(ft_queue_t *q, size_t bytes, void **p);

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

#ifdef __cplusplus
}
#endif

#endif
