/*
 * cuda_lapack.cu — the kernels of the cuda backend's LAPACK on work memory (backend.h, issue 10):
 *
 *   larft_rows: T of dlarft('F','C') from G = V^T V (upper triangle; V with its explicit unit
 *     diagonal and zeros). Row r of T depends only on row r itself and on G:
 *         T(r, r) = tau_r,  T(r, j) = -tau_j sum_{l = r}^{j-1} T(r, l) G(l, j)   (j > r),
 *     which is dlarft's T(0:j, j) = -tau_j T(0:j, 0:j) V^T v_j read by rows; so one warp per row
 *     walks j = r+1 .. k-1 with its row in shared memory, the lanes splitting the sum (coalesced
 *     reads of column j of G). tau_j = 0 (H_j = I) gives a zero column, as dlarft;
 *   unit_lower: the n x n top block of a factored panel made into V (zeros above, ones on the
 *     diagonal).
 */
#include "backend/cuda/cuda_internal.h"

namespace {

constexpr int LW = 4;      /* warps per block of larft_rows */
constexpr int LMAX = 1024; /* the largest k (shared memory: LW rows of LMAX doubles) */

__global__ void __launch_bounds__(LW * 32) larft_rows(int64_t k, const double *G, int64_t ldg,
                                                    const double *tau, double *T, int64_t ldt)
{
    __shared__ double row[LW][LMAX];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t r = (int64_t)blockIdx.x * LW + warp;
    if (r >= k) return;
    double *t = row[warp];
    if (lane == 0) t[r] = tau[r];
    __syncwarp();
    for (int64_t j = r + 1; j < k; j++) {
        const double *g = G + j * ldg;
        double s = 0.0;
        for (int64_t l = r + lane; l < j; l += 32) s = fma(t[l], g[l], s);
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (lane == 0) t[j] = -tau[j] * s;
        __syncwarp();
    }
    for (int64_t j = lane; j < k; j += 32) T[r + j * ldt] = j < r ? 0.0 : t[j];
}

__global__ void unit_lower_k(int64_t n, double *A, int64_t lda)
{
    const int64_t c = blockIdx.x;
    for (int64_t r = threadIdx.x; r <= c; r += blockDim.x) A[r + c * lda] = r == c ? 1.0 : 0.0;
}

} // namespace

extern "C" {

int ftla_cuda_larft_rows(cudaStream_t s, int64_t k, const double *G, int64_t ldg,
                         const double *tau, double *T, int64_t ldt)
{
    if (k <= 0) return FT_SUCCESS;
    if (k > LMAX) return FT_ERR_TOO_LARGE;
    larft_rows<<<(unsigned)((k + LW - 1) / LW), LW * 32, 0, s>>>(k, G, ldg, tau, T, ldt);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

int ftla_cuda_unit_lower(cudaStream_t s, int64_t n, double *A, int64_t lda)
{
    if (n <= 0) return FT_SUCCESS;
    if (n > 0x7fffffff) return FT_ERR_TOO_LARGE;
    unit_lower_k<<<(unsigned)n, 128, 0, s>>>(n, A, lda);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

} /* extern "C" */
