/*
 * qr_pcheck_cuda.cu — the check of a panel on its arrival (qr_pcheck.h) in two launches:
 *   k1: QR_PC_G blocks over parts of the rows; each warp takes columns of V: the partial sums
 *       of V^T x, of the squares and of the column digests; block 0 also takes the digests of T;
 *   k2: QR_PC_G blocks: each forms w = V^T x from the partials and z = T^T w (ib^2/2, in shared
 *       memory), then d = x - V z - [R (one e); 0] over its rows and its maximum of |d|; block 0
 *       adds the partials of the digests and of the squares.
 * Digest sums are integer sums mod 2^64, so they equal the backend digest() bit for bit.
 */
#include "backend/cuda/cuda_internal.h"

extern "C" {
#include "qr/qr_pcheck.h"
}

namespace {

constexpr int PT = 256;

__device__ __forceinline__ uint64_t dbits(double v) { return (uint64_t)__double_as_longlong(v); }

__device__ __forceinline__ double nanmax(double a, double b)
{
    if (isnan(a) || isnan(b)) return __longlong_as_double(0x7ff8000000000000ll);
    return a > b ? a : b;
}

__global__ void __launch_bounds__(PT) k1(int64_t mi, int64_t ib, const double *V, int64_t ldv,
                                         const double *T, int64_t ldt, const double *x,
                                         uint64_t *digT, double *pw, uint64_t *pd, double *pq)
{
    const int64_t ch = (mi + QR_PC_G - 1) / QR_PC_G;
    const int64_t r0 = blockIdx.x * ch, r1 = r0 + ch < mi ? r0 + ch : mi;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int64_t c = warp; c < ib; c += PT / 32) {
        const double *v = V + c * ldv;
        double s = 0.0, q = 0.0;
        uint64_t h = 0;
        for (int64_t r = r0 + lane; r < r1; r += 32) {
            const double e = v[r];
            s = fma(e, x[r], s);
            q = fma(e, e, q);
            h += ft_digest_mix(dbits(e), r);
        }
        for (int o = 16; o > 0; o >>= 1) {
            s += __shfl_down_sync(0xffffffffu, s, o);
            q += __shfl_down_sync(0xffffffffu, q, o);
            h += __shfl_down_sync(0xffffffffu, h, o);
        }
        if (lane == 0) {
            pw[blockIdx.x * ib + c] = s;
            pq[blockIdx.x * ib + c] = q;
            pd[blockIdx.x * ib + c] = h;
        }
        if (blockIdx.x == 0) {
            const double *t = T + c * ldt;
            uint64_t g = 0;
            for (int64_t r = lane; r < ib; r += 32) g += ft_digest_mix(dbits(t[r]), r);
            for (int o = 16; o > 0; o >>= 1) g += __shfl_down_sync(0xffffffffu, g, o);
            if (lane == 0) digT[c] = g;
        }
    }
}

__global__ void __launch_bounds__(PT) k2(int64_t mi, int64_t ib, const double *V, int64_t ldv,
                                         const double *T, int64_t ldt, const double *R,
                                         int64_t ldr, const double *x, double one,
                                         const double *pw, const uint64_t *pd,
                                         const double *pq, uint64_t *digV, double *ss,
                                         double *mx)
{
    extern __shared__ double sh[];
    double *w = sh, *z = sh + ib;
    __shared__ double red[PT / 32];
    for (int64_t c = threadIdx.x; c < ib; c += PT) {
        double s = 0.0;
        for (int g = 0; g < QR_PC_G; g++) s += pw[g * ib + c];
        w[c] = s;
        if (blockIdx.x == 0) {
            uint64_t h = 0;
            double q = 0.0;
            for (int g = 0; g < QR_PC_G; g++) h += pd[g * ib + c], q += pq[g * ib + c];
            digV[c] = h;
            ss[c] = q;
        }
    }
    __syncthreads();
    for (int64_t c = threadIdx.x; c < ib; c += PT) {
        double s = 0.0;
        for (int64_t r = 0; r <= c; r++) s = fma(T[r + c * ldt], w[r], s);
        z[c] = s;
    }
    __syncthreads();
    const int64_t ch = (mi + QR_PC_G - 1) / QR_PC_G;
    const int64_t r0 = blockIdx.x * ch, r1 = r0 + ch < mi ? r0 + ch : mi;
    double m = 0.0;
    for (int64_t r = r0 + threadIdx.x; r < r1; r += PT) {
        double y = x[r];
        for (int64_t c = 0; c < ib; c++) y = fma(-V[r + c * ldv], z[c], y);
        if (r < ib)
            for (int64_t c = r; c < ib; c++) y = fma(-R[r + c * ldr], one, y);
        m = nanmax(m, fabs(y));
    }
    for (int o = 16; o > 0; o >>= 1) m = nanmax(m, __shfl_down_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = 0.0;
        for (int i = 0; i < PT / 32; i++) b = nanmax(b, red[i]);
        mx[blockIdx.x] = b;
    }
}

} /* namespace */

extern "C" {

static int c_arrive(ft_queue_t *q, int64_t mi, int64_t ib, const double *V, int64_t ldv,
                    const double *T, int64_t ldt, const double *R, int64_t ldr, const double *x,
                    double one, uint64_t *digV, uint64_t *digT, double *ss, double *mx,
                    double *scratch)
{
    if (ib <= 0 || mi <= 0) return FT_SUCCESS;
    const size_t smem = 2 * (size_t)ib * sizeof(double);
    if (smem > 48 * 1024) /* nb > 3072 */
        FTLA_CUDA_TRY(cudaFuncSetAttribute(k2, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)smem));
    cudaStream_t s = ftla_cuda_queue_stream(q);
    double *pw = scratch, *pq = scratch + 2 * QR_PC_G * ib;
    uint64_t *pd = (uint64_t *)(scratch + QR_PC_G * ib);
    k1<<<QR_PC_G, PT, 0, s>>>(mi, ib, V, ldv, T, ldt, x, digT, pw, pd, pq);
    FTLA_CUDA_TRY(cudaGetLastError());
    k2<<<QR_PC_G, PT, smem, s>>>(mi, ib, V, ldv, T, ldt, R, ldr, x, one, pw, pd, pq, digV, ss,
                                 mx);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static const qr_pc_kernels_t s_cuda = {"cuda", c_arrive};

const qr_pc_kernels_t *qr_pc_kernels_cuda(void) { return &s_cuda; }

} /* extern "C" */
