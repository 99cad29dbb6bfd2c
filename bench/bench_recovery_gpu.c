/*
 * bench_recovery_gpu — bench_recovery.h on the CUDA backend: ft_dgeqrf_gpu_ex, device pointers
 * (the input restored from a device copy).
 * Usage: bench_recovery_gpu [--sizes 16384,32768] [--rounds 7] [--nb 0]
 */
#include "bench_recovery.h"

#include <cuda_runtime.h>

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) bench_die("%s: %s", #x, cudaGetErrorString(e_));                   \
    } while (0)

typedef struct {
    int64_t n;
    double *dA, *d0, *tau;
} gpu_state;

static void *gpu_setup(ft_context_t *ctx, int64_t n, const double *h)
{
    (void)ctx;
    gpu_state *s = bench_malloc(sizeof *s);
    const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    s->n = n;
    s->tau = bench_malloc((size_t)n * sizeof(double));
    CK(cudaMalloc((void **)&s->dA, bytes));
    CK(cudaMalloc((void **)&s->d0, bytes));
    CK(cudaMemcpy(s->d0, h, bytes, cudaMemcpyHostToDevice));
    return s;
}

static void gpu_restore(void *p)
{
    gpu_state *s = p;
    CK(cudaMemcpy(s->dA, s->d0, (size_t)s->n * (size_t)s->n * sizeof(double),
                  cudaMemcpyDeviceToDevice));
    CK(cudaDeviceSynchronize());
}

static int gpu_call(void *p, ft_context_t *ctx, ft_int *info, ft_report_t *rep)
{
    gpu_state *s = p;
    return ft_dgeqrf_gpu_ex(ctx, (ft_int)s->n, (ft_int)s->n, s->dA, (ft_int)s->n, s->tau, info,
                            rep);
}

static void gpu_teardown(void *p)
{
    gpu_state *s = p;
    CK(cudaFree(s->dA));
    CK(cudaFree(s->d0));
    free(s->tau), free(s);
}

int main(int argc, char **argv)
{
    static const int defaults[] = {16384, 32768};
    static const bench_recovery_ops_t ops = {gpu_setup, gpu_restore, gpu_call, gpu_teardown};
    return bench_recovery_main(argc, argv, "bench_recovery_gpu",
                               "ft_dgeqrf_gpu_ex, device pointers", FT_DEVICE_CUDA, defaults, 2,
                               &ops);
}
