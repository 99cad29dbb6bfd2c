/*
 * overlap_sums.cu — do the checksum passes over C run beside cuBLAS's product when the product
 * is cut into column chunks and the passes go on a high-priority stream with a small persistent
 * grid (issue 12: a rank-k update's two passes over C, input and result, cost ~1.1 ms against
 * a 2.9 ms product at 16384^2 x 256, and cuBLAS leaves more than half of the HBM bandwidth idle)?
 *   nvcc -O3 -arch=sm_90 -o overlap_sums overlap_sums.cu -lcublas && ./overlap_sums
 * For each (m, n, k) and beta = 1: cuBLAS alone; the passes alone; serial (pass, product, pass);
 * and the chunked pipeline for several chunk counts and pass-grid sizes. Median of 7 (min-max),
 * each variant alternated with cuBLAS alone in the same run.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));                \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

constexpr int PC = 256;           /* columns of a work item */

/* Block row sums (plain, weighted, absolute) of C(:, c0 .. c1) with block width T into
 * sums (m x 2nb) and abss (m x nb), atomically (the items of one block J add up). Persistent:
 * gridDim.x blocks take items (row group, column group) in turn. */
template <int PT, int U>
__global__ void __launch_bounds__(PT) pass_rows(int64_t m, const double *__restrict__ C,
                                                int64_t ldc, int64_t c0, int64_t c1, int64_t T,
                                                int64_t W, double sc, double *sums, double *abss)
{
    constexpr int PR = 2 * PT; /* rows of a work item (two a thread, 16-byte loads) */
    const int64_t nr = (m + PR - 1) / PR, nc = (c1 - c0 + PC - 1) / PC;
    const double inv2w = 0.5 / (double)W;
    for (int64_t it = blockIdx.x; it < nr * nc; it += gridDim.x) {
        const int64_t rg = it % nr, cg = it / nr;
        const int64_t r = rg * PR + 2 * threadIdx.x;
        const int64_t ja = c0 + cg * PC, jb = c1 < ja + PC ? c1 : ja + PC;
        if (r >= m) continue;
        const int64_t J = ja / T; /* PC divides T */
        double s0 = 0, w0 = 0, a0 = 0, s1 = 0, w1 = 0, a1 = 0;
        const double *p = C + r + ja * ldc;
        int64_t j = ja;
        for (; j + U <= jb; j += U, p += U * ldc) {
            double2 x[U];
#pragma unroll
            for (int u = 0; u < U; u++) x[u] = __ldcs(reinterpret_cast<const double2 *>(p + u * ldc));
#pragma unroll
            for (int u = 0; u < U; u++) {
                const double w = (double)(W + j + u - J * T + 1) * inv2w;
                const double y0 = x[u].x * sc, y1 = x[u].y * sc;
                s0 += y0, w0 = fma(w, y0, w0), a0 += fabs(y0);
                s1 += y1, w1 = fma(w, y1, w1), a1 += fabs(y1);
            }
        }
        for (; j < jb; j++, p += ldc) {
            const double w = (double)(W + j - J * T + 1) * inv2w;
            const double y0 = p[0] * sc, y1 = p[1] * sc;
            s0 += y0, w0 = fma(w, y0, w0), a0 += fabs(y0);
            s1 += y1, w1 = fma(w, y1, w1), a1 += fabs(y1);
        }
        atomicAdd(sums + r + 2 * J * m, s0);
        atomicAdd(sums + r + (2 * J + 1) * m, w0);
        atomicAdd(abss + r + J * m, a0);
        atomicAdd(sums + r + 1 + 2 * J * m, s1);
        atomicAdd(sums + r + 1 + (2 * J + 1) * m, w1);
        atomicAdd(abss + r + 1 + J * m, a1);
    }
}

__global__ void fill(double *x, int64_t len, uint64_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < len;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + seed;
        z ^= z >> 31, z *= 0xBF58476D1CE4E5B9ull, z ^= z >> 29;
        x[i] = (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
    }
}

static double med(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    std::vector<std::vector<int64_t>> shapes = {{16384, 16384, 256}, {32768, 32768, 512}};
    if (argc >= 4) shapes = {{atoll(argv[1]), atoll(argv[2]), atoll(argv[3])}};
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t sm, sh, shl;
    CK(cudaStreamCreateWithPriority(&sm, cudaStreamNonBlocking, lo));
    CK(cudaStreamCreateWithPriority(&sh, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithPriority(&shl, cudaStreamNonBlocking, lo));
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetStream(h, sm);
    std::vector<cudaEvent_t> ev(64);
    for (auto &e : ev) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    printf("%d SMs; stream priorities %d (low) .. %d (high)\n", sms, lo, hi);
    printf("%-34s %6s %6s %5s | %8s %8s %8s %6s\n", "variant", "m", "n", "k", "ms", "min", "max",
           "xcub");
    for (auto &sh3 : shapes) {
        const int64_t m = sh3[0], n = sh3[1], k = sh3[2];
        int64_t T = std::min<int64_t>(4096, std::max<int64_t>(256, ((std::max(m, n) + 7) / 8 + 63) / 64 * 64));
        int64_t W = 1;
        while (W < T) W <<= 1;
        const int64_t nb = (n + T - 1) / T;
        double *A, *B, *C, *S;
        CK(cudaMalloc(&A, 8 * m * k));
        CK(cudaMalloc(&B, 8 * k * n));
        CK(cudaMalloc(&C, 8 * m * n));
        CK(cudaMalloc(&S, 8 * 6 * m * nb));
        fill<<<1024, 256>>>(A, m * k, 1);
        fill<<<1024, 256>>>(B, k * n, 2);
        fill<<<1024, 256>>>(C, m * n, 3);
        CK(cudaDeviceSynchronize());
        const double one = 1.0, sc = 1.0 / 64;
        double *S0 = S, *A0 = S + 2 * m * nb, *S1 = S + 3 * m * nb, *A1 = S + 5 * m * nb;
        auto gemm = [&](int64_t c0, int64_t c1) {
            cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)(c1 - c0), (int)k, &one, A,
                        (int)m, B + c0 * k, (int)k, &one, C + c0 * m, (int)m);
        };
        int pt = 1024;
        auto pass = [&](cudaStream_t s, int grid, int64_t c0, int64_t c1, double *su, double *ab) {
            if (pt == 1024) pass_rows<1024, 8><<<grid, 1024, 0, s>>>(m, C, m, c0, c1, T, W, sc, su, ab);
            else if (pt == 256) pass_rows<256, 8><<<grid, 256, 0, s>>>(m, C, m, c0, c1, T, W, sc, su, ab);
            else if (pt == 128) pass_rows<128, 8><<<grid, 128, 0, s>>>(m, C, m, c0, c1, T, W, sc, su, ab);
            else pass_rows<64, 4><<<grid, 64, 0, s>>>(m, C, m, c0, c1, T, W, sc, su, ab);
        };
        /* variants: 0 cuBLAS; 1 passes alone (full grid); 2 serial; 3.. pipelined (nch, grid, hi?) */
        struct V {
            const char *name;
            int kind, nch, grid, hip, pt;
        };
        std::vector<V> vs = {{"cublas", 0, 1, 0, 0, 1024},
                             {"passes alone (2 reads of C)", 1, 1, 4 * sms, 0, 1024},
                             {"serial: pass, product, pass", 2, 1, 4 * sms, 0, 1024}};
        static char names[64][64];
        int ni = 0;
        for (int nch : {4, 8})
            for (int ptv : {1024, 256, 128, 64})
                for (int gm : {1, 2, 4}) {
                    const int grid = ptv == 1024 ? (gm == 1 ? 32 : gm == 2 ? 66 : 132) : gm * sms;
                    snprintf(names[ni], 64, "pipe nch %d pt %d grid %d", nch, ptv, grid);
                    vs.push_back({names[ni++], 3, nch, grid, 1, ptv});
                }
        for (auto &v : vs) {
            std::vector<double> tv, tc;
            for (int it = 0; it < 8; it++)
                for (int which = 0; which < 2; which++) {
                    const V &u = which ? v : vs[0];
                    pt = u.pt;
                    CK(cudaMemsetAsync(S, 0, 8 * 6 * m * nb, sm));
                    CK(cudaEventRecord(t0, sm));
                    if (u.kind == 0) gemm(0, n);
                    else if (u.kind == 1) {
                        pass(sm, u.grid, 0, n, S0, A0);
                        pass(sm, u.grid, 0, n, S1, A1);
                    } else if (u.kind == 2) {
                        pass(sm, u.grid, 0, n, S0, A0);
                        gemm(0, n);
                        pass(sm, u.grid, 0, n, S1, A1);
                    } else {
                        cudaStream_t ss = u.hip ? sh : shl;
                        const int64_t w = (n / u.nch + PC - 1) / PC * PC;
                        int e = 0;
                        CK(cudaEventRecord(ev[e], sm));
                        CK(cudaStreamWaitEvent(ss, ev[e++], 0));
                        pass(ss, u.grid, 0, std::min(n, w), S0, A0);
                        cudaEvent_t c0done = ev[e++];
                        CK(cudaEventRecord(c0done, ss));
                        for (int64_t c = 0; c < n; c += w) {
                            const int64_t c1 = std::min(n, c + w);
                            CK(cudaStreamWaitEvent(sm, c0done, 0));
                            gemm(c, c1);
                            cudaEvent_t g = ev[e++];
                            CK(cudaEventRecord(g, sm));
                            if (c1 < n) {
                                pass(ss, u.grid, c1, std::min(n, c1 + w), S0, A0);
                                c0done = ev[e++];
                                CK(cudaEventRecord(c0done, ss));
                            }
                            CK(cudaStreamWaitEvent(ss, g, 0));
                            pass(ss, u.grid, c, c1, S1, A1);
                        }
                        CK(cudaEventRecord(ev[e], ss));
                        CK(cudaStreamWaitEvent(sm, ev[e++], 0));
                    }
                    CK(cudaEventRecord(t1, sm));
                    CK(cudaEventSynchronize(t1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, t0, t1));
                    if (it) (which ? tv : tc).push_back(ms);
                }
            const double mv = med(tv), mc = med(tc);
            printf("%-34s %6lld %6lld %5lld | %8.3f %8.3f %8.3f %6.3f\n", v.name, (long long)m,
                   (long long)n, (long long)k, mv, *std::min_element(tv.begin(), tv.end()),
                   *std::max_element(tv.begin(), tv.end()), mc / mv);
            fflush(stdout);
        }
        cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(S);
    }
    return 0;
}
