/*
 * test_fortran_devmem.c — device memory for test_fortran_gpu.f90 (testing/fortran.cmake): the
 * CUDA runtime's allocation and copies behind four plain C functions, so that the Fortran
 * program needs no CUDA interface of its own. Built only with the CUDA backend.
 *
 *   ftg_usable()           1 when a device is usable, else 0
 *   ftg_alloc(bytes)       cudaMalloc, NULL on failure
 *   ftg_put(d, h, bytes)   host -> device (cudaMemcpy), 0 on success
 *   ftg_get(h, d, bytes)   device -> host, 0 on success
 *   ftg_free(d)            cudaFree
 */
#include <cuda_runtime.h>
#include <stddef.h>

int ftg_usable(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 && cudaFree(0) == cudaSuccess;
}

void *ftg_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

int ftg_put(void *d, const void *h, size_t bytes)
{
    return cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess;
}

int ftg_get(void *h, const void *d, size_t bytes)
{
    return cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
}

void ftg_free(void *d) { cudaFree(d); }
