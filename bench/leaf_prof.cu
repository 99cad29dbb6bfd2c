/*
 * leaf_prof.cu — where a column of the cuda QR leaf (src/backend/cuda/cuda_qr_leaf.cu) spends
 * its time: the kernel built with its measurement hook (FTLA_LEAF_PROF), block 0's thread 0
 * adding the clock cycles of each phase of a column; leaves of 2048, 8192 and 32768 x 32 rows,
 * 20 calls each. Not part of the build (it compiles the leaf's source into itself):
 *     nvcc -arch=sm_90 -O3 -std=c++17 -Isrc -Iinclude -o /tmp/leaf_prof bench/leaf_prof.cu
 *     /tmp/leaf_prof            (FTLA_QR_LEAF_ROWS=r: r rows a block)
 * Figures: bench/NOTES.md, issue 10 session 4.
 */
#define FTLA_LEAF_PROF 1
#include "../src/backend/cuda/cuda_qr_leaf.cu"
#include <cstdio>
#include <cstdlib>
int ftla_cuda_error(cudaError_t err, const char *what, const char *file, int line)
{ fprintf(stderr, "%s: %s (%s:%d)\n", what, cudaGetErrorString(err), file, line); return FT_ERR_CUDA; }
int main(int argc, char **argv)
{
    int nsm; cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
    const int n = 32, reps = 20;
    const char *names[8] = {"top/recompute", "scale", "dots", "grid.sync", "reduce", "update", "next refl", "end sync"};
    for (int64_t m : {2048, 8192, 32768}) {
        double *A, *A0, *V, *T, *tau; void *w; size_t wb = ftla_cuda_qr_leaf_work();
        cudaMalloc(&A, m * n * 8); cudaMalloc(&A0, m * n * 8); cudaMalloc(&V, m * n * 8);
        cudaMalloc(&T, n * n * 8); cudaMalloc(&tau, n * 8); cudaMalloc(&w, wb);
        double *h = (double *)malloc(m * n * 8);
        srand(1); for (int64_t i = 0; i < m * n; i++) h[i] = rand() / (double)RAND_MAX - 0.5;
        cudaMemcpy(A0, h, m * n * 8, cudaMemcpyHostToDevice);
        unsigned long long z[16] = {0};
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        float tot = 0;
        for (int r = 0; r < reps + 1; r++) {
            cudaMemcpy(A, A0, m * n * 8, cudaMemcpyDeviceToDevice);
            if (r == 1) cudaMemcpyToSymbol(ftla_leaf_prof, z, sizeof z);
            cudaEventRecord(e0);
            int st = ftla_cuda_qr_leaf(0, nsm, m, n, A, m, tau, V, m, 0, T, n, w, wb);
            cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); if (r) tot += ms;
            if (st) { printf("st %d\n", st); return 1; }
        }
        unsigned long long p[16]; cudaMemcpyFromSymbol(p, ftla_leaf_prof, sizeof p);
        int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0); /* kHz */
        printf("m %lld: %.1f us/leaf, %.2f us/column; per column (us):", (long long)m, 1000 * tot / reps, 1000 * tot / reps / n);
        double sum = 0;
        for (int i = 0; i < 8; i++) { double us = p[i] / (double)reps / n / (clk / 1000.0); sum += us; printf(" %s %.2f", names[i], us); }
        printf(" | sum %.2f\n", sum);
    }
    return 0;
}
