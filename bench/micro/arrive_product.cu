/*
 * arrive_product.cu — the panel check's product Y += V W (qr_pc_arrive, issue 9) alone on the
 * device: V m_i x ib (the reflectors as the updates apply them), W ib x ib upper triangular
 * (T V_1^T sigma R_pp, a product of upper triangular matrices), Y m_i x ib. Summed over the
 * steps of an n x n factorization with nb = ib, each way:
 *
 *   gemm   one cublasDgemm m_i x ib x ib, beta 1 (what qr_pcheck.c issues)
 *   blk2   W's upper triangle in 2 block rows: V(:, r) W(r, r:) for each block row r
 *   blk4   the same in 4 block rows
 *   trmm   cublasDtrmm out of place (side R, upper): Z = V W, half the flops, no accumulate
 *
 * Build: nvcc -O2 -arch=sm_90 -o ap bench/micro/arrive_product.cu -lcublas
 * Run:   ./ap [n] [nb] [runs]   (defaults 16384 256 7); prints the medians in ms per way.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));         \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define CB(x)                                                                                  \
    do {                                                                                       \
        cublasStatus_t s_ = (x);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, (int)s_);                 \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static void blocked(cublasHandle_t h, int nblk, int64_t mi, int ib, const double *V, int64_t ldv,
                    const double *W, int ldw, double *Y, int64_t ldy)
{
    const double one = 1.0;
    const int bs = (ib + nblk - 1) / nblk;
    for (int r = 0; r < ib; r += bs) {
        const int kb = std::min(bs, ib - r);
        CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)mi, ib - r, kb, &one, V + r * ldv,
                       (int)ldv, W + r + (int64_t)r * ldw, ldw, &one, Y + r * ldy, (int)ldy));
    }
}

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atol(argv[1]) : 16384;
    const int nb = argc > 2 ? atoi(argv[2]) : 256;
    const int runs = argc > 3 ? atoi(argv[3]) : 7;
    const int64_t m = n;
    double *V, *W, *Y, *Z;
    CK(cudaMalloc(&V, sizeof(double) * m * nb));
    CK(cudaMalloc(&Y, sizeof(double) * m * nb));
    CK(cudaMalloc(&Z, sizeof(double) * m * nb));
    CK(cudaMalloc(&W, sizeof(double) * nb * nb));
    std::vector<double> h((size_t)m * nb);
    for (size_t i = 0; i < h.size(); i++) h[i] = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
    CK(cudaMemcpy(V, h.data(), sizeof(double) * m * nb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(Y, h.data(), sizeof(double) * m * nb, cudaMemcpyHostToDevice));
    std::vector<double> w((size_t)nb * nb, 0.0);
    for (int j = 0; j < nb; j++)
        for (int i = 0; i <= j; i++) w[i + (size_t)j * nb] = 1.0 / (1 + i + j);
    CK(cudaMemcpy(W, w.data(), sizeof(double) * nb * nb, cudaMemcpyHostToDevice));
    cublasHandle_t hd;
    CB(cublasCreate(&hd));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const char *names[4] = {"gemm", "blk2", "blk4", "trmm"};
    std::vector<float> t[4];
    double flops[4] = {0, 0, 0, 0};
    for (int rep = 0; rep <= runs; rep++)
        for (int way = 0; way < 4; way++) {
            CK(cudaEventRecord(e0));
            for (int64_t i = 0; i < n; i += nb) {
                const int64_t mi = m - i;
                const int ib = (int)std::min<int64_t>(nb, n - i);
                const double one = 1.0;
                if (way == 0)
                    CB(cublasDgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, (int)mi, ib, ib, &one, V, (int)m, W,
                                   nb, &one, Y, (int)m));
                else if (way == 1 || way == 2)
                    blocked(hd, way == 1 ? 2 : 4, mi, ib, V, m, W, nb, Y, m);
                else
                    CB(cublasDtrmm(hd, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                   CUBLAS_DIAG_NON_UNIT, (int)mi, ib, &one, W, nb, V, (int)m, Z,
                                   (int)m));
                if (rep == 0) flops[way] += 2.0 * mi * ib * ib;
            }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (rep > 0) t[way].push_back(ms);
        }
    printf("n %ld nb %d runs %d: sum over the steps of the arrival product (ms; full-gemm TFLOP/s)\n",
           (long)n, nb, runs);
    for (int way = 0; way < 4; way++) {
        std::sort(t[way].begin(), t[way].end());
        const double med = t[way][t[way].size() / 2];
        printf("  %-5s median %8.3f  min %8.3f  max %8.3f  (%.1f TFLOP/s of the full product)\n",
               names[way], med, t[way].front(), t[way].back(), flops[0] / med * 1e-9);
    }
    CB(cublasDestroy(hd));
    return 0;
}
