// micro-benchmark of the slab kernel's generation pieces (one warp, clock64), against main's
// src/givens/givens_slab.cu (nvcc -O3 -arch=sm_90 -std=c++17 -I src -I include micro.cu). The
// redundant-window chain and generate_stream rows of micro.txt came from code not kept.
#define givens_slab_h2t micro_unused_h2t
#include "givens/givens_slab.cu"
#include <cstdio>
extern "C" cudaStream_t ftla_cuda_queue_stream(const ft_queue_t *) { return 0; }
extern "C" int ftla_cuda_error(cudaError_t, const char *, const char *, int) { return -1; }
using namespace h2ts;

__global__ void lat(long long *out, double y, double z)
{
    double x = threadIdx.x * 1e-3 + 1.0;
    long long t0 = clock64();
    for (int i = 0; i < 1024; i++) x = fma(x, y, z);
    long long t1 = clock64();
    double w = x;
    for (int i = 0; i < 1024; i++) w = w * y;
    long long t2 = clock64();
    double v = w;
    for (int i = 0; i < 256; i++) v = __shfl_sync(0xffffffffu, v, (threadIdx.x + 1) & 31) + 0.0;
    long long t3 = clock64();
    float f = (float)v;
    for (int i = 0; i < 1024; i++) f = fmaf(f, (float)y, (float)z);
    long long t4 = clock64();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0, out[1] = t2 - t1, out[2] = t3 - t2, out[3] = t4 - t3;
        out[9] = (long long)(x + w + v + f);
    }
}

__global__ void gen(long long *out, const double *Tg, double *gc, double *gs, int variant)
{
    __shared__ double T[SB * LDT];
    __shared__ double carry[SB], cs[SB], ss[SB];
    for (int i = threadIdx.x; i < SB * LDT; i += blockDim.x) T[i] = Tg[i];
    for (int i = threadIdx.x; i < SB; i += blockDim.x) carry[i] = Tg[i] * 0.5 + 1.0;
    __syncthreads();
    Args a;
    memset(&a, 0, sizeof a);
    a.prof = NULL;
    const int lane = threadIdx.x & 31;
    long long best = 1LL << 60;
    for (int rep = 0; rep < 5; rep++) {
        __syncwarp();
        long long t0 = clock64();
        if (variant == 1) {
            generate(a, 0, T, carry, SB, cs, ss);
        } else if (variant == 2) {
            const double *c0 = T + lane * LDT, *c1 = T + (lane + 32) * LDT;
            double W0 = carry[lane], W1 = carry[lane + 32], tau = 1.0;
            double fF0 = 0.0, fF1 = 0.0, fT0 = 1.0, fT1 = 1.0;
            chain_half_seq<0>(T, c0, c1, lane, W0, W1, tau, fF0, fT0, std::make_integer_sequence<int, 32>{});
            chain_half_seq<1>(T, c0, c1, lane, W0, W1, tau, fF1, fT1, std::make_integer_sequence<int, 32>{});
            cs[lane] = fF0 + fF1 + fT0 + fT1 + tau + W0 + W1;
        } else if (variant == 3) {
            double x = carry[lane];
            apply_col(T + lane * LDT, cs, ss, SB, x);
            carry[lane] = x;
        }
        __syncwarp();
        long long t1 = clock64();
        if (t1 - t0 < best) best = t1 - t0;
    }
    if (threadIdx.x == 0) out[0] = best;
    if (threadIdx.x < SB) out[1 + threadIdx.x] = __double_as_longlong(cs[threadIdx.x]);
}

static double __longlong_as_double_h(long long v) { double d; memcpy(&d, &v, 8); return d; }
int main()
{
    long long *d, h[80];
    double *Tg, *gc, *gs;
    cudaMalloc(&d, 80 * 8);
    cudaMalloc(&Tg, SB * LDT * 8);
    cudaMalloc(&gc, 64 * 8);
    cudaMalloc(&gs, 64 * 8);
    double hT[SB * LDT];
    unsigned s = 12345;
    for (int j = 0; j < SB; j++)
        for (int i = 0; i < LDT; i++) {
            s = s * 1664525u + 1013904223u;
            double r = (s >> 8) / 16777216.0 - 0.5;
            hT[j * LDT + i] = i <= j + 1 ? r + (i == j ? 2.0 : 0.0) : 0.0;
        }
    cudaMemcpy(Tg, hT, sizeof hT, cudaMemcpyHostToDevice);
    int clk;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    lat<<<1, 32>>>(d, 1.0000001, 1e-9);
    cudaMemcpy(h, d, 80 * 8, cudaMemcpyDeviceToHost);
    printf("clock %d kHz\n", clk);
    printf("dfma chain %.2f cyc, dmul %.2f, shfl(f64)+dadd %.2f, ffma %.2f\n", h[0] / 1024.0, h[1] / 1024.0,
           h[2] / 256.0, h[3] / 1024.0);
    const char *nm[] = {"", "generate (loop, shuffled chain)", "old unrolled shuffled chain (64)",
                        "apply_col 64 rot (1 warp)"};
    for (int v = 1; v < 4; v++) {
        gen<<<1, 32>>>(d, Tg, gc, gs, v);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(h, d, 80 * 8, cudaMemcpyDeviceToHost);
        printf("%-36s %7lld cyc = %.2f us (%.1f cyc/rot) %s\n", nm[v], h[0], h[0] * 1e3 / clk,
               h[0] / 64.0, cudaGetErrorString(e));
        printf("   check %.17g\n", __longlong_as_double_h(h[1]));
    }
    return 0;
}
