/*
 * qr_pcheck_cuda.cu — the check of a panel on its arrival (qr_pcheck.h):
 *
 *   wform: W = T V_1^T (s R) as two products of upper triangular ib x ib matrices (tri_mul:
 *     one 16 x 16 tile of the result a block, the tiles below the diagonal written as zeros),
 *     the first into the scratch. cuBLAS's dtrmm took some 36 us a call at ib = 128 on the H100
 *     (a few thread blocks for the whole matrix), three a panel, behind a copy of the identity;
 *   arrive: one pass over V and Y. A block takes tiles of ATILE rows (grid-stride); in a tile
 *     the warps share the columns, each lane AR rows: per column the lanes add the bits of V,
 *     its squares and the maxima of |Y| below row ib, then reduce them across the warp into the
 *     block's partials in shared memory (each column owned by one warp: fixed order); each lane
 *     keeps its rows' sums of Y over its warp's columns, added over the warps in a fixed order at
 *     the end of the tile. The blocks' partials go to the scratch, and a second launch adds
 *     them (a block an item, a tree in a fixed order: one block adding them all took ~50 us,
 *     a chain of dependent loads from L2). Digests are integer sums mod 2^64, equal to the
 *     backend's digest() bit for bit; the floating-point sums are deterministic for a given mi
 *     (the grid depends on it only).
 * Until issue 9 session 6 the arrival check read V twice in two launches of 64 blocks (with the
 * e-direction check Q_p^T (A_p e) - [R e; 0], its gemv, its V^T x, and a row loop over all ib
 * columns per thread): some 130 us a panel at n = 16384 (bench/NOTES.md).
 */
#include "backend/cuda/cuda_internal.h"

extern "C" {
#include "qr/qr_pcheck.h"
}

namespace {

__device__ __forceinline__ uint64_t dbits(double v) { return (uint64_t)__double_as_longlong(v); }

__device__ __forceinline__ double nanmax(double a, double b)
{
    if (isnan(a) || isnan(b)) return __longlong_as_double(0x7ff8000000000000ll);
    return a > b ? a : b;
}

/* ---- wform ---- */

constexpr int TT = 16;  /* tile */
constexpr int KC = 128; /* the inner dimension a block holds in shared memory at once */
constexpr int NL = TT * KC / 256; /* loads a thread a matrix */

/* C = s op(A) B on the upper triangles, ib x ib: op(A)(i, k) = A(i, k) (TRANS_LOWER false: A
 * upper) or A(k, i) (true: A lower, the diagonal as stored), zero for k < i; B(k, j) zero for
 * k > j. C(i, j) = 0 for i > j. One 16 x 16 tile of C a block of 256 threads, a thread an
 * element; the tile's inner range, up to KC at a time, comes to shared memory in one round of
 * loads (all of a thread's loads before its stores). Measured on the H100 at ib = 128: 32 x 32
 * tiles of 4 elements a thread, the inner range in rounds of 32, took 13-19 us a launch (a
 * chain of load latencies, then the shared-memory loads of one block). */
template <bool TRANS_LOWER>
__global__ void __launch_bounds__(256) tri_mul(int64_t ib, const double *__restrict__ A,
                                               int64_t lda, const double *__restrict__ B,
                                               int64_t ldb, double s, double *__restrict__ C,
                                               int64_t ldc)
{
    __shared__ double sa[TT][KC + 1], sb[TT][KC + 1]; /* sa[ii][kk], sb[jj][kk] */
    const int64_t i0 = (int64_t)blockIdx.x * TT, j0 = (int64_t)blockIdx.y * TT;
    const int tx = threadIdx.x & (TT - 1), ty = threadIdx.x / TT;
    double acc = 0.0;
    if (i0 <= j0) {
        const int64_t kend = j0 + TT < ib ? j0 + TT : ib;
        for (int64_t k0 = i0; k0 < kend; k0 += KC) {
            const int kl = (int)(kend - k0 < KC ? kend - k0 : KC);
            double av[NL], bv[NL];
#pragma unroll
            for (int u = 0; u < NL; u++) {
                const int e = threadIdx.x + 256 * u;
                av[u] = bv[u] = 0.0;
                if (e < TT * kl) {
                    /* op(A)(i0 + ii, k0 + kk): A(i, k) contiguous in i, A(k, i) in k */
                    const int ii = TRANS_LOWER ? e / kl : e % TT, kk = TRANS_LOWER ? e % kl : e / TT;
                    const int64_t i = i0 + ii, k = k0 + kk;
                    if (i < ib && k >= i) av[u] = TRANS_LOWER ? A[k + i * lda] : A[i + k * lda];
                    const int kb = e % kl, jj = e / kl; /* B(k0 + kb, j0 + jj), contiguous in kb */
                    const int64_t j = j0 + jj;
                    if (j < ib && k0 + kb <= j) bv[u] = B[k0 + kb + j * ldb];
                }
            }
#pragma unroll
            for (int u = 0; u < NL; u++) {
                const int e = threadIdx.x + 256 * u;
                if (e < TT * kl) {
                    const int ii = TRANS_LOWER ? e / kl : e % TT, kk = TRANS_LOWER ? e % kl : e / TT;
                    sa[ii][kk] = av[u];
                    sb[e / kl][e % kl] = bv[u];
                }
            }
            __syncthreads();
#pragma unroll 8
            for (int kk = 0; kk < kl; kk++) acc = fma(sa[ty][kk], sb[tx][kk], acc);
            __syncthreads();
        }
    }
    const int64_t i = i0 + ty, j = j0 + tx;
    if (i < ib && j < ib) C[i + j * ldc] = i <= j ? s * acc : 0.0;
}

/* ---- arrive ---- */

constexpr int AT = 256;      /* threads a block: a warp a column */
constexpr int AW = AT / 32;  /* columns a block */
constexpr int AR = 8;        /* rows a lane in a chunk */
constexpr int ARC = 32 * AR; /* rows a chunk */

/* Block (x, y): columns y AW + w (warp w), the chunks x, x + gridDim.x, ... of ARC rows; each
 * lane's AR rows of a chunk loaded at once (V and Y), the column's sums and maximum kept in
 * registers, reduced across the warp once at the end into part[(f ib + c) G + x] (f = 0 the
 * bits of V, 1 its squares, 2 the maximum of |Y| below row ib). Blocks x = 0 also take the
 * digests of T's columns. */
__global__ void __launch_bounds__(AT)
    arrive_k(int64_t mi, int64_t ib, const double *__restrict__ V, int64_t ldv,
             const double *__restrict__ T, int64_t ldt, const double *__restrict__ Y,
             int64_t ldy, double *__restrict__ top, int64_t ldtop, double *__restrict__ part,
             uint64_t *__restrict__ digT)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t c = (int64_t)blockIdx.y * AW + warp;
    if (c >= ib) return;
    const double *v = V + c * ldv, *y = Y + c * ldy;
    if (blockIdx.x == 0) {
        const double *t = T + c * ldt;
        uint64_t g = 0;
        for (int64_t r = lane; r < ib; r += 32) g += dbits(t[r]);
        for (int o = 16; o > 0; o >>= 1) g += __shfl_down_sync(0xffffffffu, g, o);
        if (lane == 0) digT[c] = ft_digest_finish(g, ib);
    }
    uint64_t h = 0;
    double q = 0.0, m = 0.0;
    for (int64_t r0 = (int64_t)blockIdx.x * ARC; r0 < mi; r0 += (int64_t)gridDim.x * ARC) {
        double ev[AR], fy[AR];
#pragma unroll
        for (int k = 0; k < AR; k++) {
            const int64_t r = r0 + 32 * k + lane;
            ev[k] = r < mi ? __ldg(v + r) : 0.0;
            fy[k] = r < mi ? __ldg(y + r) : 0.0;
        }
#pragma unroll
        for (int k = 0; k < AR; k++) {
            const int64_t r = r0 + 32 * k + lane;
            h += dbits(ev[k]); /* 0 past mi: the bits of +0.0 */
            q = fma(ev[k], ev[k], q);
            if (r >= ib) m = nanmax(m, fabs(fy[k]));
            else if (r < mi) top[r + c * ldtop] = fy[k];
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        h += __shfl_down_sync(0xffffffffu, h, o);
        q += __shfl_down_sync(0xffffffffu, q, o);
        m = nanmax(m, __shfl_down_sync(0xffffffffu, m, o));
    }
    if (lane == 0) {
        const int64_t G = gridDim.x, x = blockIdx.x;
        part[c * G + x] = __longlong_as_double((long long)h);
        part[(ib + c) * G + x] = q;
        part[(2 * ib + c) * G + x] = m;
    }
}

/* The partials of arrive_k's G <= AT blocks a column: one block an item (f ib + c), a thread a
 * partial, a tree in a fixed order. */
__global__ void __launch_bounds__(AT)
    arrive_fin(int64_t mi, int64_t ib, int G, const double *__restrict__ part, uint64_t *digV,
               double *ss, double *cmx)
{
    __shared__ double sd[AT / 32];
    __shared__ uint64_t su[AT / 32];
    const int64_t it = blockIdx.x, f = it / ib, c = it - f * ib;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const double x = threadIdx.x < G ? part[it * G + threadIdx.x] : 0.0;
    if (f == 0) {
        uint64_t h = (uint64_t)__double_as_longlong(x);
        for (int o = 16; o > 0; o >>= 1) h += __shfl_down_sync(0xffffffffu, h, o);
        if (lane == 0) su[warp] = h;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < AT / 32; w++) h += su[w];
            digV[c] = ft_digest_finish(h, mi);
        }
        return;
    }
    double v = x;
    for (int o = 16; o > 0; o >>= 1) {
        const double z = __shfl_down_sync(0xffffffffu, v, o);
        v = f == 1 ? v + z : nanmax(v, z);
    }
    if (lane == 0) sd[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < AT / 32; w++) v = f == 1 ? v + sd[w] : nanmax(v, sd[w]);
        if (f == 1) ss[c] = v;
        else cmx[c] = v;
    }
}

} /* namespace */

extern "C" {

static int c_wform(ft_queue_t *q, int64_t ib, const double *V, int64_t ldv, const double *T,
                   int64_t ldt, const double *R, int64_t ldr, double s, double *W, int64_t ldw,
                   double *scratch)
{
    if (ib <= 0) return FT_SUCCESS;
    const int64_t nt = (ib + TT - 1) / TT;
    if (nt > 65535) return FT_ERR_TOO_LARGE;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const dim3 grid((unsigned)nt, (unsigned)nt);
    double *M = scratch; /* V_1^T (s R), ld ib */
    tri_mul<true><<<grid, 256, 0, st>>>(ib, V, ldv, R, ldr, s, M, ib);
    FTLA_CUDA_TRY(cudaGetLastError());
    tri_mul<false><<<grid, 256, 0, st>>>(ib, T, ldt, M, ib, 1.0, W, ldw);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_arrive(ft_queue_t *q, int64_t mi, int64_t ib, const double *V, int64_t ldv,
                    const double *T, int64_t ldt, const double *Y, int64_t ldy, uint64_t *digV,
                    uint64_t *digT, double *ss, double *cmx, double *top, int64_t ldtop,
                    double *scratch)
{
    if (ib <= 0 || mi <= 0) return FT_SUCCESS;
    const int64_t ny = (ib + AW - 1) / AW;
    if (ny > 65535 || 3 * ib + 1 > 0x7fffffff) return FT_ERR_TOO_LARGE;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t nch = (mi + ARC - 1) / ARC;
    const int G = (int)(nch < QR_PC_GMAX ? nch : QR_PC_GMAX);
    static_assert(QR_PC_GMAX <= AT, "arrive_fin: a thread a partial");
    arrive_k<<<dim3((unsigned)G, (unsigned)ny), AT, 0, s>>>(mi, ib, V, ldv, T, ldt, Y, ldy, top,
                                                           ldtop, scratch, digT);
    FTLA_CUDA_TRY(cudaGetLastError());
    arrive_fin<<<(unsigned)(3 * ib), AT, 0, s>>>(mi, ib, G, scratch, digV, ss, cmx);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static const qr_pc_kernels_t s_cuda = {"cuda", c_wform, c_arrive};

const qr_pc_kernels_t *qr_pc_kernels_cuda(void) { return &s_cuda; }

} /* extern "C" */
