/*
 * checkpoint_cuda.cu — the checkpoint sums of Q on the device (checkpoint.h): one block per
 * column, each thread forms the weights of its rows in GF(p) (ckp_field.h) and the block adds
 * its sums; exact, so the result equals the host's running sums bit for bit.
 */
#include "backend/cuda/cuda_internal.h"

extern "C" {
#include "checkpoint/checkpoint.h"
}
#include "checkpoint/ckp_field.h"

namespace {

constexpr int CT = 256;

__global__ void __launch_bounds__(CT) sums_k(int64_t m, const double *A, int64_t lda,
                                             uint64_t *out)
{
    __shared__ uint64_t red[CT / 32][CKP_NS];
    const int64_t c = blockIdx.x;
    const double *a = A + c * lda;
    const uint64_t inv4 = ckp_mul(CKP_INV2, CKP_INV2);
    uint64_t s[CKP_NS] = {0, 0, 0, 0, 0};
    for (int64_t r = c + 1 + threadIdx.x; r < m; r += CT) {
        const uint64_t x = ckp_elem((uint64_t)__double_as_longlong(__ldg(a + r)));
        const uint64_t t = (uint64_t)(m - r);
        /* C(t+e-1, e): 1, t, t(t+1)/2, t(t+1)(t+2)/6, t(t+1)(t+2)(t+3)/24 */
        const uint64_t w2 = ckp_mul(ckp_mul(t, t + 1), CKP_INV2);
        const uint64_t w3 = ckp_mul(ckp_mul(w2, t + 2), CKP_INV3);
        const uint64_t w4 = ckp_mul(ckp_mul(w3, t + 3), inv4);
        s[0] = ckp_add(s[0], x);
        s[1] = ckp_add(s[1], ckp_mul(x, t));
        s[2] = ckp_add(s[2], ckp_mul(x, w2));
        s[3] = ckp_add(s[3], ckp_mul(x, w3));
        s[4] = ckp_add(s[4], ckp_mul(x, w4));
    }
#pragma unroll
    for (int e = 0; e < CKP_NS; e++)
        for (int o = 16; o > 0; o >>= 1)
            s[e] = ckp_add(s[e], __shfl_down_sync(0xffffffffu, s[e], o));
    const int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    if (l == 0)
        for (int e = 0; e < CKP_NS; e++) red[w][e] = s[e];
    __syncthreads();
    if (threadIdx.x < CKP_NS) {
        uint64_t v = 0;
        for (int i = 0; i < CT / 32; i++) v = ckp_add(v, red[i][threadIdx.x]);
        out[CKP_NS * c + threadIdx.x] = v;
    }
}

} /* namespace */

extern "C" {

static int c_sums(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                  uint64_t *out)
{
    if (nc <= 0) return FT_SUCCESS;
    if (nc > 0x7fffffff) return FT_ERR_TOO_LARGE;
    sums_k<<<(unsigned)nc, CT, 0, ftla_cuda_queue_stream(q)>>>(m, A, lda, out);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static const ckp_kernels_t s_cuda = {"cuda", c_sums};

const ckp_kernels_t *ckp_kernels_cuda(void) { return &s_cuda; }

} /* extern "C" */
