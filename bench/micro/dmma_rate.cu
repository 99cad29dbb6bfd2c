/*
 * dmma_rate.cu — the FP64 MMA rate of one SM and of the device for the shapes mma.sync takes on
 * sm_90 (m8n8k4; m16n8k4, m16n8k8), to know the ceiling of a hand-written FP64 MMA
 * kernel (issue 9 session 9, the fused arrival product). Each warp runs NACC independent
 * accumulator chains of ITER MMAs on register operands; FMA/s = 2 m n k warps ITER NACC / time.
 *   nvcc -O3 -arch=sm_90 -o dmma_rate dmma_rate.cu && ./dmma_rate
 */
#include <cstdio>
#include <cuda_runtime.h>

constexpr int ITER = 4096, NACC = 8;

template <int S> __device__ __forceinline__ void mma(double (&c)[4], const double (&a)[4], const double (&b)[2]);
template <> __device__ __forceinline__ void mma<0>(double (&c)[4], const double (&a)[4], const double (&b)[2])
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c[0]), "+d"(c[1]) : "d"(a[0]), "d"(b[0]));
}
template <> __device__ __forceinline__ void mma<1>(double (&c)[4], const double (&a)[4], const double (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
}
template <> __device__ __forceinline__ void mma<2>(double (&c)[4], const double (&a)[4], const double (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
constexpr long FMAS[] = {8 * 8 * 4, 16 * 8 * 4, 16 * 8 * 8};

template <int S> __global__ void k(double *out)
{
    double a[4], b[2], c[NACC][4];
    for (int i = 0; i < 4; i++) a[i] = 1.0 + 1e-9 * (threadIdx.x + i);
    for (int i = 0; i < 2; i++) b[i] = 1.0 - 1e-9 * (threadIdx.x + i);
    for (int j = 0; j < NACC; j++)
        for (int i = 0; i < 4; i++) c[j][i] = 0.0;
    for (int it = 0; it < ITER; it++)
#pragma unroll
        for (int j = 0; j < NACC; j++) mma<S>(c[j], a, b);
    double s = 0.0;
    for (int j = 0; j < NACC; j++)
        for (int i = 0; i < 4; i++) s += c[j][i];
    if (s == 12345.0) out[0] = s;
}

int main()
{
    double *out;
    cudaMalloc(&out, 8);
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    printf("shape      warps/SM  TFLOP/s (device, %d SMs)\n", sms);
    for (int S = 0; S < 3; S++)
        for (int wps : {2, 4, 8}) { /* more warps: too many registers for one block */
            void (*f)(double *) = S == 0 ? k<0> : S == 1 ? k<1> : k<2>;
            f<<<sms, 32 * wps>>>(out); /* warm */
            cudaEventRecord(e0);
            for (int r = 0; r < 5; r++) f<<<sms, 32 * wps>>>(out);
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (cudaGetLastError() != cudaSuccess) {
                printf("launch failed\n");
                return 1;
            }
            const double fl = 2.0 * FMAS[S] * ITER * NACC * wps * sms * 5;
            printf("%-10s %8d  %7.2f\n", S == 0 ? "m8n8k4" : S == 1 ? "m16n8k4" : "m16n8k8", wps,
                   fl / (ms * 1e-3) * 1e-12);
        }
    return 0;
}
