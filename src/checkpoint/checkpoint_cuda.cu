/*
 * checkpoint_cuda.cu — the checkpoint sums of Q on the device (checkpoint.h): one block per
 * column; exact in GF(p) (ckp_field.h), so the result equals the host's running sums bit for
 * bit.
 *
 * The weights C(t + e - 1, e) (t = m - r) are the running sums of running sums the host forms
 * with additions only; a thread does the same over a run of K consecutive rows, with a local
 * t' = 1 .. K, and shifts its five sums to the global t = t' + D once per run (the Vandermonde
 * identity of these weights, a polynomial identity in D:
 *     C(t' + D + e - 1, e) = sum_{j <= e} C(t' + j - 1, j) C(D + e - j - 1, e - j) ),
 * about one multiplication a row where forming the weights of every row took ten (64-bit
 * multiplications mod p are some twenty instructions each: the kernel was bound by them). Per
 * run, h 2^32 is formed by additions (ckp_shl32) and, for the five sums, the ten products r m
 * are accumulated unreduced and reduced once per thread (ckp_mac, ckp_acc_red). A
 * warp's 32 K rows come to shared memory by coalesced loads first, each thread then reads its
 * run from there (padded: a run's rows fall on distinct banks).
 */
#include "backend/cuda/cuda_internal.h"

extern "C" {
#include "checkpoint/checkpoint.h"
}
#include "checkpoint/ckp_field.h"

namespace {

constexpr int CT = 256;            /* threads a block */
constexpr int CW = CT / 32;        /* warps a block */
constexpr int K = 16;              /* rows a thread's run */
static_assert(K <= 16, "the running sums of 32-bit halves fit 64 bits for K <= 16");
constexpr int SEG = 32 * K;        /* rows a warp's segment */
constexpr int PAD = SEG + SEG / 16; /* a segment in shared memory, one pad word every 16 */

__device__ __forceinline__ int pidx(int f) { return f + (f >> 4); }

/* NS = CKP_NS: all the sums (ckp_sums_ref); NS = 2: the first two, the detection's
 * (ckp_detect_host), out[2 c + e] — a quarter of the multiplications mod p, which bound the
 * five-sum kernel (0.72 ms at 16384^2 on the H100, the read alone ~0.25) */
template <int NS>
__global__ void __launch_bounds__(CT) sums_k(int64_t m, const double *A, int64_t lda,
                                             uint64_t *out)
{
    static_assert(NS == 2 || NS == CKP_NS, "all the sums or the detection's two");
    __shared__ uint64_t seg[CW][PAD];
    __shared__ uint64_t red[CW][NS];
    const int64_t c = blockIdx.x;
    const double *a = A + c * lda;
    const int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    const uint64_t inv4 = ckp_mul(CKP_INV2, CKP_INV2);
    uint64_t s[CKP_NS] = {0, 0, 0, 0, 0}; /* NS = 2: s[2..4] stay 0, unused */
    /* NS = 5: the products r_i m_j of s[1..4], exact, reduced once after the loop (ckp_mac:
     * ten reductions a run fewer); NS = 2 reduces its one product a run at once (fewer
     * registers for the bandwidth-bound detection) */
    uint64_t acc[CKP_NS - 1][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    uint64_t *sg = seg[w];
    /* segments of SEG rows from row c + 1, warp w taking every CW-th */
    for (int64_t base = c + 1 + (int64_t)w * SEG; base < m; base += (int64_t)CW * SEG) {
        /* the loads first, then the stores (a load-store pair at a time waited for each load) */
        uint64_t ld[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int64_t r = base + 32 * k + l;
            ld[k] = r < m ? (uint64_t)__double_as_longlong(__ldg(a + r)) : 0ull;
        }
#pragma unroll
        for (int k = 0; k < K; k++) sg[pidx(32 * k + l)] = ld[k];
        __syncwarp();
        /* this lane's run: rows base + K l ... + K - 1, top to bottom (t' = K ... 1) */
        /* the bits b = 2^32 hi + lo (= elem mod p): the running sums of the halves exactly in
         * 64 bits (at most C(K + 4, 5) 2^32 < 2^46 for K = 16), reduced once a run — plain
         * additions, where a sum mod p every row made the kernel wait on its integer units */
        uint64_t l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0;
#pragma unroll
        for (int j = 0; j < K; j++) {
            const uint64_t b = sg[pidx(K * l + j)];
            l0 += b & 0xffffffffull, h0 += b >> 32;
            l1 += l0, h1 += h0;
            if (NS > 2) {
                l2 += l1, h2 += h1;
                l3 += l2, h3 += h2;
                l4 += l3, h4 += h3;
            }
        }
        const uint64_t r0 = ckp_add(ckp_shl32(h0), l0), r1 = ckp_add(ckp_shl32(h1), l1);
        __syncwarp(); /* the segment is reloaded next */
        /* D = t - t' = m - (base + K l + K), mod p (negative past the end of the column) */
        const int64_t d = m - (base + (int64_t)K * l + K);
        const uint64_t D = d >= 0 ? (uint64_t)d : CKP_P - (uint64_t)(-d);
        const uint64_t m1 = D;
        s[0] = ckp_add(s[0], r0);
        if (NS == 2) s[1] = ckp_add(s[1], ckp_add(r1, ckp_mul(r0, m1)));
        if (NS > 2) {
            s[1] = ckp_add(s[1], r1);
            ckp_mac(acc[0], r0, m1);
            const uint64_t r2 = ckp_add(ckp_shl32(h2), l2), r3 = ckp_add(ckp_shl32(h3), l3),
                           r4 = ckp_add(ckp_shl32(h4), l4);
            const uint64_t m2 = ckp_mul(ckp_mul(D, ckp_red(D + 1)), CKP_INV2);
            const uint64_t m3 = ckp_mul(ckp_mul(m2, ckp_red(D + 2)), CKP_INV3);
            const uint64_t m4 = ckp_mul(ckp_mul(m3, ckp_red(D + 3)), inv4);
            s[2] = ckp_add(s[2], r2);
            s[3] = ckp_add(s[3], r3);
            s[4] = ckp_add(s[4], r4);
            ckp_mac(acc[1], r1, m1), ckp_mac(acc[1], r0, m2);
            ckp_mac(acc[2], r2, m1), ckp_mac(acc[2], r1, m2), ckp_mac(acc[2], r0, m3);
            ckp_mac(acc[3], r3, m1), ckp_mac(acc[3], r2, m2), ckp_mac(acc[3], r1, m3);
            ckp_mac(acc[3], r0, m4);
        }
    }
#pragma unroll
    for (int e = 1; e < NS && NS > 2; e++) s[e] = ckp_add(s[e], ckp_acc_red(acc[e - 1]));
#pragma unroll
    for (int e = 0; e < NS; e++)
        for (int o = 16; o > 0; o >>= 1)
            s[e] = ckp_add(s[e], __shfl_down_sync(0xffffffffu, s[e], o));
    if (l == 0)
        for (int e = 0; e < NS; e++) red[w][e] = s[e];
    __syncthreads();
    if (threadIdx.x < NS) {
        uint64_t v = 0;
        for (int i = 0; i < CW; i++) v = ckp_add(v, red[i][threadIdx.x]);
        out[NS * c + threadIdx.x] = v;
    }
}

} /* namespace */

extern "C" {

static int c_sums(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                  uint64_t *out)
{
    if (nc <= 0) return FT_SUCCESS;
    if (nc > 0x7fffffff) return FT_ERR_TOO_LARGE;
    /* one block a column: a panel's columns split over more blocks (the rows in parts, added
     * mod p) ran slower on the H100, 18.4 against 15.9 us for 16384 x 128 (bench/NOTES.md) */
    sums_k<CKP_NS><<<(unsigned)nc, CT, 0, ftla_cuda_queue_stream(q)>>>(m, A, lda, out);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_detect(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                    uint64_t *out)
{
    if (nc <= 0) return FT_SUCCESS;
    if (nc > 0x7fffffff) return FT_ERR_TOO_LARGE;
    sums_k<2><<<(unsigned)nc, CT, 0, ftla_cuda_queue_stream(q)>>>(m, A, lda, out);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static const ckp_kernels_t s_cuda = {"cuda", c_sums, c_detect};

const ckp_kernels_t *ckp_kernels_cuda(void) { return &s_cuda; }

} /* extern "C" */
