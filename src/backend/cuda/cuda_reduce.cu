/*
 * cuda_reduce.cu — the generic reductions of the cuda backend (semantics: backend.h; weights:
 * src/abft/abft.h, shared with the host version host_reduce.c so both compute the same sums).
 *
 * block_sums reads every element of a matrix once per verification and is on the critical path:
 * it is written to stream X at HBM bandwidth (coalesced 8-byte loads, 4 independent loads in
 * flight per thread, enough thread blocks to fill the machine). col_absmax touches O(m n) data
 * once and only needs to be simple and exact.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "abft/abft.h"
#include "backend/cuda/cuda_internal.h"

namespace {

constexpr int kThreads = 256;          /* threads per block of every kernel here */
constexpr int kWarps = kThreads / 32;
constexpr int64_t kMaxGridY = 65535;   /* CUDA limit of gridDim.y */
constexpr int64_t kMaxGridX = 1 << 20; /* grid-stride loops cover the rest */
constexpr unsigned kFullMask = 0xffffffffu;

/* Arguments of the block-sum kernels. nz chunks split each column block; chunk = their width. */
struct bs_args {
    int64_t rows, cols;
    const double *X;
    int64_t ldx;
    int64_t T, W, nb, nz, chunk;
    double scale; /* every element is multiplied by it (a power of two) before it is added */
    double *sums;
    int64_t lds;
    double *abss;
    int64_t ldabs;
};

/* Column range [c0, c1) of work item t = (block J, chunk z) of X'; false when empty. */
__device__ __forceinline__ bool bs_range(const bs_args &a, int64_t t, int64_t *J, int64_t *c0,
                                         int64_t *c1)
{
    *J = t / a.nz;
    const int64_t z = t - *J * a.nz, j0 = *J * a.T;
    const int64_t jend = min(a.cols, j0 + a.T);
    *c0 = j0 + z * a.chunk;
    *c1 = min(jend, *c0 + a.chunk);
    return *c0 < *c1;
}

/* Write (or, when the block is split into chunks, add) the three sums of row r, block J. */
template <bool SUMS, bool ABS, bool ATOMIC>
__device__ __forceinline__ void bs_store(const bs_args &a, int64_t r, int64_t J, double s,
                                         double sw, double sa)
{
    if (SUMS) {
        double *o = a.sums + r + 2 * J * a.lds;
        if (ATOMIC) {
            atomicAdd(o, s);
            atomicAdd(o + a.lds, sw);
        } else {
            o[0] = s;
            o[a.lds] = sw;
        }
    }
    if (ABS) {
        double *o = a.abss + r + J * a.ldabs;
        if (ATOMIC) atomicAdd(o, sa);
        else *o = sa;
    }
}

/* Accumulate element x of local column jj, times the sum scale sc, into the plain, weighted
 * and absolute sums. The weight is abft_weight_at with the scale 1/(2W) computed once per thread
 * (bit for bit abft_weight, no division per element). */
template <bool SUMS, bool ABS>
__device__ __forceinline__ void bs_acc(double x, int64_t jj, int64_t W, double inv2w, double sc,
                                       double &s, double &sw, double &sa)
{
    x *= sc;
    if (SUMS) {
        s += x;
        sw = fma(abft_weight_at(jj, W, inv2w), x, sw);
    }
    if (ABS) sa += fabs(x);
}

/*
 * Block sums, trans = 'N' (X' = X, rows x cols, column-major: row r of X' is strided by ldx).
 * grid.x splits the rows into groups of 256, one thread per row, so each warp reads 32 consecutive
 * doubles of a column (256 coalesced bytes). grid.y runs over the work items (column block J,
 * chunk z): the T columns of a block are cut into nz chunks of `chunk` columns so that small
 * matrices / wide blocks still give thousands of thread blocks (grid-stride over items beyond
 * 65535). Each thread sums its row over the chunk's columns, 4 columns per iteration (4 loads in
 * flight), then stores the three sums (nz == 1) or atomically adds them into outputs zeroed
 * beforehand (nz > 1).
 */
template <bool SUMS, bool ABS, bool ATOMIC>
__global__ void __launch_bounds__(kThreads) block_sums_n_kernel(const bs_args a)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= a.rows) return;
    const double *__restrict__ X = a.X;
    const int64_t ldx = a.ldx, W = a.W;
    const double inv2w = abft_weight_scale(W); /* 1/(2W), exact */
    for (int64_t t = blockIdx.y; t < a.nb * a.nz; t += gridDim.y) {
        int64_t J, c0, c1;
        if (!bs_range(a, t, &J, &c0, &c1)) continue;
        const int64_t j0 = J * a.T;
        double s = 0.0, sw = 0.0, sa = 0.0;
        const double *p = X + r + c0 * ldx;
        int64_t j = c0;
        for (; j + 4 <= c1; j += 4, p += 4 * ldx) {
            const double x0 = __ldg(p), x1 = __ldg(p + ldx), x2 = __ldg(p + 2 * ldx),
                         x3 = __ldg(p + 3 * ldx);
            bs_acc<SUMS, ABS>(x0, j - j0, W, inv2w, a.scale, s, sw, sa);
            bs_acc<SUMS, ABS>(x1, j + 1 - j0, W, inv2w, a.scale, s, sw, sa);
            bs_acc<SUMS, ABS>(x2, j + 2 - j0, W, inv2w, a.scale, s, sw, sa);
            bs_acc<SUMS, ABS>(x3, j + 3 - j0, W, inv2w, a.scale, s, sw, sa);
        }
        for (; j < c1; j++, p += ldx) bs_acc<SUMS, ABS>(__ldg(p), j - j0, W, inv2w, a.scale, s, sw, sa);
        bs_store<SUMS, ABS, ATOMIC>(a, r, J, s, sw, sa);
    }
}

/*
 * Block sums, trans = 'T' (X' = X^T, X stored cols x rows: row r of X' is column r of X,
 * contiguous). One warp per row r (8 rows per 256-thread block along grid.x); grid.y runs over
 * the work items (column block J, chunk z) as in the 'N' kernel. The 32 lanes stride along the
 * contiguous column (coalesced 256-byte loads), 4 strides per iteration for loads in flight,
 * each lane keeping partial sums; a shuffle reduction combines them and lane 0 stores the three
 * sums (nz == 1) or atomically adds them (nz > 1, outputs zeroed beforehand).
 */
template <bool SUMS, bool ABS, bool ATOMIC>
__global__ void __launch_bounds__(kThreads) block_sums_t_kernel(const bs_args a)
{
    const int lane = threadIdx.x & 31;
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= a.rows) return; /* whole warps leave together: r is uniform over a warp */
    const double *__restrict__ x = a.X + r * a.ldx;
    const int64_t W = a.W;
    const double inv2w = abft_weight_scale(W); /* 1/(2W), exact */
    for (int64_t t = blockIdx.y; t < a.nb * a.nz; t += gridDim.y) {
        int64_t J, c0, c1;
        if (!bs_range(a, t, &J, &c0, &c1)) continue; /* uniform over the warp */
        const int64_t j0 = J * a.T;
        double s = 0.0, sw = 0.0, sa = 0.0;
        int64_t j = c0 + lane;
        for (; j + 96 < c1; j += 128) {
            const double x0 = __ldg(x + j), x1 = __ldg(x + j + 32), x2 = __ldg(x + j + 64),
                         x3 = __ldg(x + j + 96);
            bs_acc<SUMS, ABS>(x0, j - j0, W, inv2w, a.scale, s, sw, sa);
            bs_acc<SUMS, ABS>(x1, j + 32 - j0, W, inv2w, a.scale, s, sw, sa);
            bs_acc<SUMS, ABS>(x2, j + 64 - j0, W, inv2w, a.scale, s, sw, sa);
            bs_acc<SUMS, ABS>(x3, j + 96 - j0, W, inv2w, a.scale, s, sw, sa);
        }
        for (; j < c1; j += 32) bs_acc<SUMS, ABS>(__ldg(x + j), j - j0, W, inv2w, a.scale, s, sw, sa);
        for (int off = 16; off > 0; off >>= 1) {
            if (SUMS) {
                s += __shfl_down_sync(kFullMask, s, off);
                sw += __shfl_down_sync(kFullMask, sw, off);
            }
            if (ABS) sa += __shfl_down_sync(kFullMask, sa, off);
        }
        if (lane == 0) bs_store<SUMS, ABS, ATOMIC>(a, r, J, s, sw, sa);
    }
}

template <bool SUMS, bool ABS, bool ATOMIC>
void bs_launch(bool notrans, dim3 grid, cudaStream_t s, const bs_args &a)
{
    if (notrans) block_sums_n_kernel<SUMS, ABS, ATOMIC><<<grid, kThreads, 0, s>>>(a);
    else block_sums_t_kernel<SUMS, ABS, ATOMIC><<<grid, kThreads, 0, s>>>(a);
}

template <bool SUMS, bool ABS>
void bs_launch_atomic(bool notrans, bool atomic, dim3 grid, cudaStream_t s, const bs_args &a)
{
    if (atomic) bs_launch<SUMS, ABS, true>(notrans, grid, s, a);
    else bs_launch<SUMS, ABS, false>(notrans, grid, s, a);
}

/* Max of |.| that propagates NaN: once a NaN is seen it stays (fmax would drop it). */
__device__ __forceinline__ double nan_max(double m, double v)
{
    return (v > m || v != v) ? v : m;
}

/*
 * col_absmax: one thread block per column c (grid-stride over columns beyond the grid). The 256
 * threads stride down the column (coalesced), each keeping a running NaN-propagating max of |x|;
 * a shuffle reduction per warp, then warp 0 reduces the 8 warp results from shared memory and
 * thread 0 writes out[c]. An empty column (rows == 0) gives 0.
 */
__global__ void __launch_bounds__(kThreads)
    col_absmax_kernel(int64_t rows, int64_t cols, const double *__restrict__ X, int64_t ldx,
                      double *__restrict__ out)
{
    __shared__ double part[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t c = blockIdx.x; c < cols; c += gridDim.x) {
        const double *x = X + c * ldx;
        double m = 0.0;
        for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) m = nan_max(m, fabs(__ldg(x + r)));
        for (int off = 16; off > 0; off >>= 1) m = nan_max(m, __shfl_down_sync(kFullMask, m, off));
        if (lane == 0) part[warp] = m;
        __syncthreads();
        if (warp == 0) {
            m = lane < kWarps ? part[lane] : 0.0;
            for (int off = 16; off > 0; off >>= 1)
                m = nan_max(m, __shfl_down_sync(kFullMask, m, off));
            if (lane == 0) out[c] = m;
        }
        __syncthreads(); /* part is reused by the next column */
    }
}

/* col_asum_max: as col_absmax, with the sum of |x| beside the max (one read of X). */
__global__ void __launch_bounds__(kThreads)
    col_asum_max_kernel(int64_t rows, int64_t cols, const double *__restrict__ X, int64_t ldx,
                        double *__restrict__ asum, double *__restrict__ amax)
{
    __shared__ double part[2][kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t c = blockIdx.x; c < cols; c += gridDim.x) {
        const double *x = X + c * ldx;
        double m = 0.0, s = 0.0, s1 = 0.0;
        int64_t r = threadIdx.x;
        for (; r + kThreads < rows; r += 2 * kThreads) { /* two loads in flight */
            const double a0 = fabs(__ldg(x + r)), a1 = fabs(__ldg(x + r + kThreads));
            s += a0, s1 += a1;
            m = nan_max(nan_max(m, a0), a1);
        }
        for (; r < rows; r += kThreads) {
            const double a0 = fabs(__ldg(x + r));
            s += a0;
            m = nan_max(m, a0);
        }
        s += s1;
        for (int off = 16; off > 0; off >>= 1) {
            m = nan_max(m, __shfl_down_sync(kFullMask, m, off));
            s += __shfl_down_sync(kFullMask, s, off);
        }
        if (lane == 0) part[0][warp] = m, part[1][warp] = s;
        __syncthreads();
        if (warp == 0) {
            m = lane < kWarps ? part[0][lane] : 0.0;
            s = lane < kWarps ? part[1][lane] : 0.0;
            for (int off = 16; off > 0; off >>= 1) {
                m = nan_max(m, __shfl_down_sync(kFullMask, m, off));
                s += __shfl_down_sync(kFullMask, s, off);
            }
            if (lane == 0) amax[c] = m, asum[c] = s;
        }
        __syncthreads();
    }
}

/*
 * digest: blocks (c, y) for column c (grid-stride beyond the grid) and the y-th of gridDim.y
 * parts of its rows (a grid-stride over chunks of kDigChunk rows), the 256 threads striding down
 * (coalesced). The mix is affine in the bits (backend.h), so a block sums the bits and the row
 * indices of its rows and adds K2 (bits + K1 rows) to out[c]: mod 2^64, the host's digest bit for
 * bit whatever the order. One part a column (gridDim.y = 1): stored; else added atomically to an
 * out[] cleared first. The parts let a few wide columns (a panel's 128 to 256) fill the device:
 * one block a column took 6 us for a 8192 x 128 V on the H100, twice a read of it.
 */
constexpr int64_t kDigChunk = 2 * 4 * kThreads;

__global__ void __launch_bounds__(kThreads)
    digest_kernel(int64_t rows, int64_t cols, const double *__restrict__ X, int64_t ldx,
                  unsigned long long *__restrict__ out)
{
    __shared__ unsigned long long part[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t c = blockIdx.x; c < cols; c += gridDim.x) {
        const double *x = X + c * ldx;
        /* four independent loads in flight per thread */
        unsigned long long h = 0, h1 = 0, h2 = 0, h3 = 0, ri = 0;
        for (int64_t c0 = (int64_t)blockIdx.y * kDigChunk; c0 < rows;
             c0 += (int64_t)gridDim.y * kDigChunk) {
            const int64_t c1 = c0 + kDigChunk < rows ? c0 + kDigChunk : rows;
            int64_t r = c0 + threadIdx.x;
            for (; r + 3 * kThreads < c1; r += 4 * kThreads) {
                h += (unsigned long long)__double_as_longlong(__ldg(x + r));
                h1 += (unsigned long long)__double_as_longlong(__ldg(x + r + kThreads));
                h2 += (unsigned long long)__double_as_longlong(__ldg(x + r + 2 * kThreads));
                h3 += (unsigned long long)__double_as_longlong(__ldg(x + r + 3 * kThreads));
                ri += 4 * (unsigned long long)r + 6 * kThreads;
            }
            for (; r < c1; r += kThreads) {
                h += (unsigned long long)__double_as_longlong(__ldg(x + r));
                ri += (unsigned long long)r;
            }
        }
        /* sum of mix(b_r, r) over this thread's rows = K2 (sum b_r + K1 sum r); K1, K2 the
         * constants of ft_digest_mix: mix(b, r) = (b + r K1) K2 */
        h = ft_digest_mix(h + h1 + h2 + h3, 0) + ri * (0x9e3779b97f4a7c15ull * 0xbf58476d1ce4e5b9ull);
        for (int off = 16; off > 0; off >>= 1) h += __shfl_down_sync(kFullMask, h, off);
        if (lane == 0) part[warp] = h;
        __syncthreads();
        if (warp == 0) {
            h = lane < kWarps ? part[lane] : 0ull;
            for (int off = 16; off > 0; off >>= 1) h += __shfl_down_sync(kFullMask, h, off);
            if (lane == 0) {
                if (gridDim.y == 1) out[c] = h;
                else atomicAdd(out + c, h);
            }
        }
        __syncthreads();
    }
}

/*
 * qr_wsums (backend.h): one thread a row l, one thread block 256 rows of one column block b
 * (grid.y; grid-stride beyond the grid's limit). The block's nw x nbc weights go to shared
 * memory first; each thread then sweeps its row's columns [max(b nbc, min(l, i)), end of the
 * block) left to right, a warp's 32 rows side by side (coalesced loads), four columns at a
 * time for loads in flight. Every row is written (zero where no column is taken).
 */
template <int NW>
__global__ void __launch_bounds__(kThreads)
    wsums_kernel(int64_t m, int64_t n, int64_t i, const double *__restrict__ A, int64_t lda,
                 const double *__restrict__ EW, int64_t ldew, int64_t nbc, double *X,
                 int64_t ldx)
{
    extern __shared__ double wsh[]; /* NW x nbc */
    const int64_t B = (n + nbc - 1) / nbc;
    const int64_t l = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    for (int64_t b = blockIdx.y; b < B; b += gridDim.y) {
        const int64_t j0 = b * nbc, j1 = min(n, j0 + nbc), w = j1 - j0;
        __syncthreads(); /* the previous block's weights are no longer read */
        for (int64_t t = threadIdx.x; t < NW * w; t += kThreads) {
            const int64_t c = t / w, jj = t - c * w;
            wsh[c * nbc + jj] = EW[j0 + jj + c * ldew];
        }
        __syncthreads();
        if (l >= m) continue;
        double s[NW], s2[NW];
#pragma unroll
        for (int c = 0; c < NW; c++) s[c] = s2[c] = 0.0;
        int64_t j = max(j0, min(l, i));
        const double *x = A + l + j * lda;
        for (; j + 4 <= j1; j += 4, x += 4 * lda) {
            const double a0 = __ldg(x), a1 = __ldg(x + lda), a2 = __ldg(x + 2 * lda),
                         a3 = __ldg(x + 3 * lda);
            const int64_t jj = j - j0;
#pragma unroll
            for (int c = 0; c < NW; c++) {
                const double *wc = wsh + c * nbc + jj;
                s[c] = fma(a0, wc[0], s[c]);
                s2[c] = fma(a1, wc[1], s2[c]);
                s[c] = fma(a2, wc[2], s[c]);
                s2[c] = fma(a3, wc[3], s2[c]);
            }
        }
        for (; j < j1; j++, x += lda) {
            const double a0 = __ldg(x);
#pragma unroll
            for (int c = 0; c < NW; c++) s[c] = fma(a0, wsh[c * nbc + j - j0], s[c]);
        }
#pragma unroll
        for (int c = 0; c < NW; c++) X[l + (NW * b + c) * ldx] = s[c] + s2[c];
    }
}

/* qr_res_sizes: one thread block a column; the max of |C - X| (NaN as Inf), then, scaled by
 * the power of two at or above it, the sum of squares; fixed order (the same bits every run). */
__global__ void __launch_bounds__(kThreads)
    res_sizes_kernel(int64_t m, const double *__restrict__ C, const double *__restrict__ X,
                     int64_t ld, double *out)
{
    __shared__ double part[kWarps];
    __shared__ double smx;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t c = blockIdx.x;
    const double *x = X + c * ld, *y = C + c * ld;
    double mx = 0.0;
    for (int64_t r = threadIdx.x; r < m; r += kThreads) {
        double d = fabs(__ldg(y + r) - __ldg(x + r));
        d = d == d ? d : (double)INFINITY;
        mx = fmax(mx, d);
    }
    for (int off = 16; off > 0; off >>= 1) mx = fmax(mx, __shfl_down_sync(kFullMask, mx, off));
    if (lane == 0) part[warp] = mx;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kWarps; w++) mx = fmax(mx, part[w]);
        smx = mx;
    }
    __syncthreads();
    mx = smx;
    if (!(mx > 0.0 && mx <= DBL_MAX)) {
        if (threadIdx.x == 0) out[2 * c] = mx, out[2 * c + 1] = mx;
        return;
    }
    int e;
    frexp(mx, &e);
    const int e1 = -e > 1000 ? 1000 : -e < -1000 ? -1000 : -e;
    const double s1 = ldexp(1.0, e1), s2 = ldexp(1.0, -e - e1);
    double q = 0.0;
    for (int64_t r = threadIdx.x; r < m; r += kThreads) {
        const double d = (__ldg(y + r) - __ldg(x + r)) * s1 * s2;
        q = fma(d, d, q);
    }
    for (int off = 16; off > 0; off >>= 1) q += __shfl_down_sync(kFullMask, q, off);
    __syncthreads(); /* part is reused */
    if (lane == 0) part[warp] = q;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kWarps; w++) q += part[w];
        out[2 * c] = mx, out[2 * c + 1] = ldexp(sqrt(q), e);
    }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a - 1) / b + 1; } /* a >= 1, b >= 1 */
int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* Zero the rows x ncols sub-array of a column-major array with leading dimension ld. */
int zero_cols(double *p, int64_t ld, int64_t rows, int64_t ncols, cudaStream_t s)
{
    const size_t width = (size_t)rows * sizeof(double);
    if (ncols == 1) FTLA_CUDA_TRY(cudaMemsetAsync(p, 0, width, s));
    else
        FTLA_CUDA_TRY(
            cudaMemset2DAsync(p, (size_t)ld * sizeof(double), 0, width, (size_t)ncols, s));
    return FT_SUCCESS;
}


} /* namespace */

extern "C" {

int ftla_cuda_block_sums(ft_queue_t *q, char trans, int64_t rows, int64_t cols,
                         const double *X, int64_t ldx, int64_t T, double scale, double *sums,
                         int64_t lds, double *abss, int64_t ldabs)
{
    if (rows < 0 || cols < 0) return FT_ERR_INTERNAL;
    if (rows == 0 || cols == 0 || (!sums && !abss)) return FT_SUCCESS;
    if (T <= 0 || !X) return FT_ERR_INTERNAL;
    const bool notrans = ft_is_notrans(trans);
    if (!notrans && !ft_is_trans(trans)) return FT_ERR_INTERNAL;
    const int64_t nb = ceil_div(cols, T), tw = imin(T, cols); /* tw: width of a full block */
    /* leading dimensions, where more than one column is addressed */
    if (notrans ? (cols > 1 && ldx < rows) : (rows > 1 && ldx < cols)) return FT_ERR_INTERNAL;
    if ((sums && lds < rows) || (abss && nb > 1 && ldabs < rows)) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t nsm = ftla_cuda_queue_sm_count(q);

    bs_args a;
    a.rows = rows;
    a.cols = cols;
    a.X = X;
    a.ldx = ldx;
    a.T = T;
    a.W = abft_wden(T);
    a.nb = nb;
    a.scale = scale;
    a.sums = sums;
    a.lds = lds;
    a.abss = abss;
    a.ldabs = ldabs;

    /* Work items: enough for ~4 waves of resident blocks (N: 8 blocks of 256 threads per SM;
     * T: 64 warps per SM), splitting blocks into chunks only as far as needed and never below
     * 64 columns (N: 16 four-wide iterations per thread) or 256 columns (T: 8 loads per lane),
     * so the atomics stay a small fraction of the traffic. */
    const int64_t rgroups = notrans ? ceil_div(rows, kThreads) : ceil_div(rows, kWarps);
    if (rgroups > INT_MAX) return FT_ERR_TOO_LARGE;
    const int64_t units = notrans ? rgroups * nb : rows * nb;   /* blocks (N) or warps (T) */
    const int64_t want = notrans ? 32 * nsm : 256 * nsm;
    const int64_t min_chunk = notrans ? 64 : 256;
    int64_t nz = 1;
    if (units < want) nz = imax(1, imin(ceil_div(want, units), tw / min_chunk));
    a.chunk = ceil_div(tw, nz);
    a.nz = ceil_div(tw, a.chunk);
    const bool atomic = a.nz > 1;

    if (atomic) {
        /* the chunks add into the outputs: zero exactly the rows x 2nb / rows x nb sub-arrays */
        if (sums) FT_CHECK(zero_cols(sums, lds, rows, 2 * nb, s));
        if (abss) FT_CHECK(zero_cols(abss, ldabs, rows, nb, s));
    }
    const dim3 grid((unsigned)rgroups, (unsigned)imin(nb * a.nz, kMaxGridY), 1);
    if (sums && abss) bs_launch_atomic<true, true>(notrans, atomic, grid, s, a);
    else if (sums) bs_launch_atomic<true, false>(notrans, atomic, grid, s, a);
    else bs_launch_atomic<false, true>(notrans, atomic, grid, s, a);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

int ftla_cuda_qr_wsums(ft_queue_t *q, int64_t m, int64_t n, int64_t i, const double *A,
                       int64_t lda, const double *EW, int64_t ldew, int64_t nbc, int nw,
                       double *X, int64_t ldx)
{
    if (m < 0 || n < 0 || i < 0 || nbc < 1 || nbc > 1024 || nw < 1 || nw > 3)
        return FT_ERR_INTERNAL;
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!A || !EW || !X || lda < m || (nw > 1 && ldew < n) || ldx < m) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t B = ceil_div(n, nbc), rg = ceil_div(m, kThreads);
    if (rg > INT_MAX) return FT_ERR_TOO_LARGE;
    const dim3 grid((unsigned)rg, (unsigned)imin(B, kMaxGridY), 1);
    const size_t sh = (size_t)nw * (size_t)nbc * sizeof(double); /* <= 24 KB */
    if (nw == 3) wsums_kernel<3><<<grid, kThreads, sh, s>>>(m, n, i, A, lda, EW, ldew, nbc, X, ldx);
    else if (nw == 2) wsums_kernel<2><<<grid, kThreads, sh, s>>>(m, n, i, A, lda, EW, ldew, nbc, X, ldx);
    else wsums_kernel<1><<<grid, kThreads, sh, s>>>(m, n, i, A, lda, EW, ldew, nbc, X, ldx);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

int ftla_cuda_qr_res_sizes(ft_queue_t *q, int64_t m, int64_t nc, const double *C,
                           const double *X, int64_t ld, double *out)
{
    if (m < 0 || nc < 0 || (nc > 1 && ld < m)) return FT_ERR_INTERNAL;
    if (nc == 0) return FT_SUCCESS;
    if (nc > kMaxGridX || !out || (m > 0 && (!C || !X))) return FT_ERR_INTERNAL;
    res_sizes_kernel<<<(unsigned)nc, kThreads, 0, ftla_cuda_queue_stream(q)>>>(m, C, X, ld, out);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

int ftla_cuda_col_absmax(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *out)
{
    if (rows < 0 || cols < 0) return FT_ERR_INTERNAL;
    if (cols == 0) return FT_SUCCESS;
    if (!out || (rows > 0 && !X) || (cols > 1 && rows > 0 && ldx < rows)) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const dim3 grid((unsigned)imin(cols, kMaxGridX));
    col_absmax_kernel<<<grid, kThreads, 0, s>>>(rows, cols, X, ldx, out);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

int ftla_cuda_col_asum_max(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                           int64_t ldx, double *asum, double *amax)
{
    if (rows < 0 || cols < 0) return FT_ERR_INTERNAL;
    if (cols == 0) return FT_SUCCESS;
    if (!asum || !amax || (rows > 0 && !X) || (cols > 1 && rows > 0 && ldx < rows))
        return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const dim3 grid((unsigned)imin(cols, kMaxGridX));
    col_asum_max_kernel<<<grid, kThreads, 0, s>>>(rows, cols, X, ldx, asum, amax);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

int ftla_cuda_digest(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                     uint64_t *out)
{
    if (rows < 0 || cols < 0) return FT_ERR_INTERNAL;
    if (cols == 0) return FT_SUCCESS;
    if (!out || (rows > 0 && !X) || (cols > 1 && rows > 0 && ldx < rows)) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    /* parts of the rows while the columns alone leave the device short of blocks */
    const int64_t chunks = (rows + kDigChunk - 1) / kDigChunk;
    const int64_t gy = cols >= 512 || chunks <= 1 ? 1 : imin(imin(chunks, (1023 + cols) / cols), 64);
    if (gy > 1) FTLA_CUDA_TRY(cudaMemsetAsync(out, 0, (size_t)cols * sizeof *out, s));
    const dim3 grid((unsigned)imin(cols, kMaxGridX), (unsigned)gy);
    digest_kernel<<<grid, kThreads, 0, s>>>(rows, cols, X, ldx, (unsigned long long *)out);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

} /* extern "C" */
