/*
 * bench_cuda.h — CUDA helpers of the GPU benchmarks: status checks (CUDA runtime, cuBLAS,
 * cuSOLVER: any failure prints file:line and exits 2), the device probe (exit 77 = skipped when
 * no device), and the one timing bracket used for every method:
 *
 *     cudaDeviceSynchronize(); t0 = bench_now(); <call>; cudaDeviceSynchronize(); t1 = bench_now();
 *
 * Host wall clock (CLOCK_MONOTONIC) around a fully synchronised call: the device-wide
 * synchronisation also covers work ftla may queue on its internal side streams, and the same
 * bracket is used for the peer, so every method pays the same fixed costs.
 */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include "bench_common.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define BENCH_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t bench_e_ = (call);                                                             \
        if (bench_e_ != cudaSuccess)                                                               \
            bench_die("%s:%d: %s: CUDA error %d (%s)", __FILE__, __LINE__, #call, (int)bench_e_,  \
                      cudaGetErrorString(bench_e_));                                               \
    } while (0)

#define BENCH_CUBLAS(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t bench_s_ = (call);                                                          \
        if (bench_s_ != CUBLAS_STATUS_SUCCESS)                                                     \
            bench_die("%s:%d: %s: cuBLAS status %d", __FILE__, __LINE__, #call, (int)bench_s_);   \
    } while (0)

#define BENCH_CUSOLVER(call)                                                                       \
    do {                                                                                           \
        cusolverStatus_t bench_s_ = (call);                                                        \
        if (bench_s_ != CUSOLVER_STATUS_SUCCESS)                                                   \
            bench_die("%s:%d: %s: cuSOLVER status %d", __FILE__, __LINE__, #call, (int)bench_s_); \
    } while (0)

static inline void bench_sync(void) { BENCH_CUDA(cudaDeviceSynchronize()); }

/* Exit 77 (skipped) with a clear message unless a CUDA device and ftla's CUDA backend are usable;
 * otherwise print the device line. */
static inline void bench_cuda_probe_or_skip(const char *prog)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("%s: SKIP: no CUDA device (%s)\n", prog,
               e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
        exit(77);
    }
    if (!ft_have_cuda()) {
        printf("%s: SKIP: this ftla library was built without the CUDA backend\n", prog);
        exit(77);
    }
    if (!ft_cuda_available()) {
        printf("%s: SKIP: ftla reports no usable CUDA device\n", prog);
        exit(77);
    }
    int dev = 0, drv = 0, rt = 0;
    struct cudaDeviceProp p;
    BENCH_CUDA(cudaGetDevice(&dev));
    BENCH_CUDA(cudaGetDeviceProperties(&p, dev));
    BENCH_CUDA(cudaDriverGetVersion(&drv));
    BENCH_CUDA(cudaRuntimeGetVersion(&rt));
    printf("%% device %d: %s, %.1f GiB, %d SMs, cc %d.%d; CUDA driver %d, runtime %d\n", dev,
           p.name, (double)p.totalGlobalMem / (1 << 30), p.multiProcessorCount, p.major, p.minor,
           drv, rt);
}

static inline void *bench_dmalloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        bench_die("cudaMalloc %s (%.2f GB): %s", what, (double)bytes / 1e9, cudaGetErrorString(e));
    return p;
}

/* Host buffer: pinned (cudaMallocHost) or pageable (malloc); freed by bench_hfree. */
static inline void *bench_hmalloc(size_t bytes, int pinned, const char *what)
{
    if (!pinned) return bench_malloc(bytes);
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        bench_die("cudaMallocHost %s (%.2f GB): %s", what, (double)bytes / 1e9,
                  cudaGetErrorString(e));
    return p;
}

static inline void bench_hfree(void *p, int pinned)
{
    if (!p) return;
    if (pinned) BENCH_CUDA(cudaFreeHost(p));
    else free(p);
}

#endif /* BENCH_CUDA_H */
