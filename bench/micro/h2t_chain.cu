/*
 * h2t_chain.cu — how fast can the serial rotation chain of hess_to_tri run on one warp?
 * (issue 8, bench/NOTES.md). Standalone, with the library's dlartg (src/givens/givens.h):
 *   nvcc -O3 -arch=sm_90 -I src -I include bench/micro/h2t_chain.cu -o h2t_chain
 *
 * Rotation p+1 of the Hessenberg-to-triangular reduction depends on rotation p through
 *     f' = c h - s x,  (c', s') = dlartg(f', g)
 * (x = the next column's entry after the earlier rotations, h its diagonal, g its subdiagonal,
 * all known a step ahead). Each variant runs that recurrence for N steps in one warp (every
 * lane the same values, as the kernel does) and reports cycles per step, so the bound the
 * chain puts on the kernel is measured, not guessed:
 *   dfma      a chain of dependent DFMAs (one op's latency)
 *   rsqrt     a chain of dependent rsqrt(double) (MUFU.RSQ64H + Newton)
 *   shfl      a chain of dependent 64-bit __shfl_sync
 *   chain     f' = c h - s x and dlartg by rsqrt, range checks included (givens_lartg_fast)
 *   chain-nc  the same without the range checks (unscaled branch only)
 *   chain-sh  chain plus three shuffles of x, h, g per step (the persistent kernel's look-ahead)
 *   chain-f32 chain-nc with the reciprocal square root from rsqrtf + one double Newton step
 */
#include <cstdio>
#include <cstdlib>
#include <cmath>

extern "C" {
#include "givens/givens.h"
}

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                       \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

constexpr int N = 16384, M = 1024; /* steps; distinct inputs (cycled) */

template <int V>
__global__ void run(const double *xs, const double *hs, const double *gs, double *out,
                    long long *cyc)
{
    __shared__ double sx[M], sh[M], sg[M];
    for (int i = threadIdx.x; i < M; i += blockDim.x) sx[i] = xs[i], sh[i] = hs[i], sg[i] = gs[i];
    __syncwarp();
    const int lane = threadIdx.x;
    double c = 0.6, s = 0.8, r = 1.0, acc = 0.0;
    double a = 1.0 + 1e-3 * lane;
    long long t0 = clock64();
    if (V == 0) { /* dfma */
        for (int p = 0; p < N; p++) a = fma(a, 0.999999, 1e-7);
    } else if (V == 1) { /* rsqrt */
        for (int p = 0; p < N; p++) a = rsqrt(a) + 0.5;
    } else if (V == 2) { /* shfl */
        for (int p = 0; p < N; p++) a = __shfl_sync(0xffffffffu, a, (lane + 1) & 31);
    } else {
        for (int p = 0; p < N; p++) {
            double x = sx[p & (M - 1)], h = sh[p & (M - 1)], g = sg[p & (M - 1)];
            if (V == 5) {
                x = __shfl_sync(0xffffffffu, x, p & 31);
                h = __shfl_sync(0xffffffffu, h, p & 31);
                g = __shfl_sync(0xffffffffu, g, p & 31);
            }
            const double f = c * h - s * x;
            double cn, sn, rn;
            if (V == 3 || V == 5) {
                givens_lartg_fast(f, g, &cn, &sn, &rn);
            } else if (V == 4) {
                const double d2 = fma(f, f, g * g), ri = rsqrt(d2), sr = copysign(ri, f);
                cn = fabs(f) * ri, sn = g * sr, rn = d2 * sr;
            } else { /* V == 6: float seed, one double Newton step (~2^-44 relative) */
                const double d2 = fma(f, f, g * g);
                double ri = (double)rsqrtf((float)d2);
                ri = ri * fma(-0.5 * d2 * ri, ri, 1.5);
                const double sr = copysign(ri, f);
                cn = fabs(f) * ri, sn = g * sr, rn = d2 * sr;
            }
            c = cn, s = sn, r = rn;
            acc += r;
        }
    }
    long long t1 = clock64();
    out[lane] = a + c + s + acc;
    if (lane == 0) *cyc = t1 - t0;
}

int main()
{
    double *hx = (double *)malloc(3 * N * sizeof(double));
    srand(7);
    for (int i = 0; i < 3 * N; i++) hx[i] = 0.5 + (double)rand() / RAND_MAX;
    double *dx, *dout;
    long long *dc;
    CK(cudaMalloc(&dx, 3 * N * sizeof(double)));
    CK(cudaMalloc(&dout, 32 * sizeof(double)));
    CK(cudaMalloc(&dc, sizeof(long long)));
    CK(cudaMemcpy(dx, hx, 3 * N * sizeof(double), cudaMemcpyHostToDevice));
    const char *names[] = {"dfma", "rsqrt", "shfl", "chain", "chain-nc", "chain-sh", "chain-f32"};
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    printf("# variant cycles_per_step (median of 5; one warp, %d steps; clock attr %d MHz)\n", N,
           khz / 1000);
    for (int v = 0; v < 7; v++) {
        long long best[5];
        for (int rep = 0; rep < 5; rep++) {
            switch (v) {
            case 0: run<0><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            case 1: run<1><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            case 2: run<2><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            case 3: run<3><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            case 4: run<4><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            case 5: run<5><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            default: run<6><<<1, 32>>>(dx, dx + N, dx + 2 * N, dout, dc); break;
            }
            CK(cudaGetLastError());
            CK(cudaMemcpy(&best[rep], dc, sizeof(long long), cudaMemcpyDeviceToHost));
        }
        for (int i = 0; i < 5; i++)
            for (int j = i + 1; j < 5; j++)
                if (best[j] < best[i]) { long long t = best[i]; best[i] = best[j]; best[j] = t; }
        printf("%-10s %7.1f\n", names[v], (double)best[2] / N);
    }
    return 0;
}
