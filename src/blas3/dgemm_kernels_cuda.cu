/*
 * dgemm_kernels_cuda.cu — ft_dgemm's kernel table on the cuda backend (dgemm_kernels.h). The row
 * checks are evaluated by the same dgemm_row_check as on the host, so both backends flag exactly
 * the same checks, and c0_pass (the input C's row and column sums and backup in one read).
 */
#include <stdlib.h>

#include "backend/cuda/cuda_internal.h"

extern "C" {
#include "blas3/dgemm_kernels.h"
}

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

__host__ __device__ int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
__host__ __device__ int64_t ceil_div(int64_t a, int64_t b) { return (a - 1) / b + 1; } /* a >= 1, b >= 1 */
__host__ __device__ int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/*
 * c0_pass: the input C's block row sums, block column sums and backup in one read (issue 12:
 * as block_sums 'N' and 'T' they were two reads of C, 2 GB each at 16384^2). A block of 4 warps
 * covers 128 rows; grid.y runs over (column block J, chunk z) items of at most kC0Chunk columns.
 * Each warp owns 32 rows (one row block I, as T is a multiple of 32): lane = row, it reads its
 * row across 32 columns at a time (each column a coalesced 256-byte read) and accumulates the
 * row sums in registers; when column sums are asked, it puts the 32 x 32 scaled values in its
 * shared tile, then lane = column sums its column over the warp's 32 rows (the row weights of
 * block I) into the warp's partial sums of the item's columns in shared memory. At the item's
 * end the block adds the partial sums of warps in the same row block and adds them atomically
 * (one add per column and row block, not per warp); the row sums are added atomically too.
 *
 * Memory parallelism (session 45): the loads of the next 32 columns are issued before the
 * current 32 are summed (8 KB in flight a warp), and no barrier stands between groups of
 * columns (the first version had 2 KB in flight and a block barrier each 32 columns, and read
 * at 2.9 TB/s where block_sums 'N' reads at 4.2). The weights are exact dyadic numbers formed
 * by one fma from the group's first (no int-to-double conversion per element), bit for bit
 * abft_weight_at. Outputs are zeroed first.
 */
constexpr int kC0Rows = 128;
constexpr int kC0Warps = kC0Rows / 32;
constexpr int64_t kC0Chunk = 256;
constexpr size_t kC0TileDoubles = (size_t)kC0Warps * 32 * 33;
constexpr size_t kC0Smem = (kC0TileDoubles + (size_t)kC0Warps * 3 * kC0Chunk) * sizeof(double);

/* Load up to 32 values of row r (columns p, p + ldc, ...); 0 beyond ng or for rows beyond m. */
__device__ __forceinline__ void c0_load(double (&v)[32], const double *__restrict__ p,
                                        int64_t ldc, int ng, bool rok)
{
#pragma unroll
    for (int u = 0; u < 32; u++) v[u] = (u < ng && rok) ? __ldg(p + u * ldc) : 0.0;
}

/* Sum one group of 32 columns (g, first local column gl of block J) held in v. */
__device__ __forceinline__ void c0_group(const double (&v)[32], int ng, int64_t g, int64_t gl,
                                         int64_t c0, bool rok, int64_t r, int64_t m, double sc,
                                         int64_t W, double ws, double rwb, double *backup,
                                         double (*tl)[33], double *pw, bool cols, int lane,
                                         double &s, double &sw, double &sa)
{
    const double cwb = abft_weight_at(gl, W, ws); /* column g's weight; g + u's is cwb + u ws */
    if (backup && rok) {
        double *b = backup + r + g * m;
#pragma unroll
        for (int u = 0; u < 32; u++)
            if (u < ng) b[u * m] = v[u];
    }
#pragma unroll
    for (int u = 0; u < 32; u++) {
        const double x = v[u] * sc;
        s += x;
        sw = fma(fma((double)u, ws, cwb), x, sw);
        sa += fabs(x);
        if (cols) tl[lane][u] = x;
    }
    if (cols) {
        __syncwarp();
        double a0 = 0.0, a1 = 0.0, a2 = 0.0;
#pragma unroll
        for (int i = 0; i < 32; i++) {
            const double x = tl[i][lane];
            a0 += x;
            a1 = fma(fma((double)i, ws, rwb), x, a1); /* row rw + i's weight in block I */
            a2 += fabs(x);
        }
        if (lane < ng) {
            double *o = pw + (g - c0) + lane;
            o[0] = a0;
            o[kC0Chunk] = a1;
            o[2 * kC0Chunk] = a2;
        }
        __syncwarp();
    }
}

__global__ void __launch_bounds__(kC0Rows)
    c0_pass_kernel(int64_t m, int64_t n, const double *__restrict__ C0, int64_t ldc, int64_t T,
                   int64_t W, double sc, int64_t chunk, int64_t nz, double *rs, double *ra,
                   double *cs, double *ca, int64_t ldcs, double *backup)
{
    extern __shared__ double c0_smem[]; /* kC0Smem bytes when cs, else none */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t rb0 = (int64_t)blockIdx.x * kC0Rows;
    const int64_t rw = rb0 + warp * 32; /* the warp's first row */
    const int64_t r = rw + lane;
    const bool rok = r < m, cols = cs != nullptr;
    const double ws = abft_weight_scale(W);
    const int64_t nb = ceil_div(n, T);
    const int64_t I = rw / T;
    const double rwb = abft_weight_at(rw - I * T, W, ws); /* row rw's weight; rw + i: + i ws */
    double (*tl)[33] = reinterpret_cast<double (*)[33]>(c0_smem + (size_t)warp * 32 * 33);
    double *part = c0_smem + kC0TileDoubles; /* [warp][3][kC0Chunk] */
    double *pw = part + (size_t)warp * 3 * kC0Chunk;
    for (int64_t t = blockIdx.y; t < nb * nz; t += gridDim.y) {
        const int64_t J = t / nz, z = t - J * nz, j0 = J * T;
        const int64_t c0 = j0 + z * chunk, c1 = imin(imin(n, j0 + T), c0 + chunk);
        if (c0 >= c1 || rb0 >= m) continue; /* uniform over the block */
        double s = 0.0, sw = 0.0, sa = 0.0;
        const double *p = C0 + (rok ? r : 0) + c0 * ldc;
        const int64_t step = 32 * ldc;
        double va[32], vb[32];
        c0_load(va, p, ldc, (int)imin(32, c1 - c0), rok);
        /* two register sets in turn: the next group's loads in flight while one is summed */
        for (int64_t g = c0; g < c1; g += 64) {
            const int na = (int)imin(32, c1 - g);
            const int nbn = (int)imin(32, c1 - g - 32); /* <= 0: none */
            if (nbn > 0) c0_load(vb, p + step, ldc, nbn, rok);
            c0_group(va, na, g, g - j0, c0, rok, r, m, sc, W, ws, rwb, backup, tl, pw, cols,
                     lane, s, sw, sa);
            if (nbn <= 0) break;
            const int nan = (int)imin(32, c1 - g - 64);
            if (nan > 0) c0_load(va, p + 2 * step, ldc, nan, rok);
            c0_group(vb, nbn, g + 32, g + 32 - j0, c0, rok, r, m, sc, W, ws, rwb, backup, tl,
                     pw, cols, lane, s, sw, sa);
            p += 2 * step;
        }
        if (rok) {
            atomicAdd(rs + r + 2 * J * m, s);
            atomicAdd(rs + r + (2 * J + 1) * m, sw);
            atomicAdd(ra + r + J * m, sa);
        }
        if (cols) { /* uniform */
            __syncthreads();
            /* the warps' partial column sums, those of one row block added together */
            for (int64_t cc = threadIdx.x; cc < c1 - c0; cc += kC0Rows) {
                double b0 = 0.0, b1 = 0.0, b2 = 0.0;
                int64_t Ic = -1;
                for (int w = 0; w < kC0Warps; w++) {
                    const int64_t rww = rb0 + 32 * w;
                    if (rww >= m) break;
                    const int64_t Iw = rww / T;
                    if (Iw != Ic && Ic >= 0) {
                        atomicAdd(cs + c0 + cc + 2 * Ic * ldcs, b0);
                        atomicAdd(cs + c0 + cc + (2 * Ic + 1) * ldcs, b1);
                        atomicAdd(ca + c0 + cc + Ic * ldcs, b2);
                        b0 = b1 = b2 = 0.0;
                    }
                    Ic = Iw;
                    const double *q = part + (size_t)w * 3 * kC0Chunk + cc;
                    b0 += q[0];
                    b1 += q[kC0Chunk];
                    b2 += q[2 * kC0Chunk];
                }
                if (Ic >= 0) {
                    atomicAdd(cs + c0 + cc + 2 * Ic * ldcs, b0);
                    atomicAdd(cs + c0 + cc + (2 * Ic + 1) * ldcs, b1);
                    atomicAdd(ca + c0 + cc + Ic * ldcs, b2);
                }
            }
            __syncthreads();
        }
    }
}

/*
 * verify_rows: one thread per check (i, J), t = i + J*m so that a warp reads 32 consecutive rows
 * of the column-major m x nb / m x 2nb inputs (coalesced); grid-stride over t with a block-uniform
 * loop so every warp stays converged for its ballots. Each thread evaluates abft_row_check (the
 * same code as the host). Failing checks of a warp take consecutive slots of the flag buffer with
 * one atomicAdd per warp (ballot + popc); slots >= cap are counted but not stored. Unverifiable
 * checks are counted the same way (one atomicAdd per warp, not per thread: with NaN inputs every
 * check may be unverifiable).
 */
__global__ void __launch_bounds__(kThreads)
    verify_rows_kernel(const dgemm_rowcheck_args_t a, unsigned long long *counters,
                       dgemm_flag_t *flags, int64_t cap)
{
    const int lane = threadIdx.x & 31;
    const int64_t total = a.m * a.nb, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t0 = (int64_t)blockIdx.x * blockDim.x; t0 < total; t0 += stride) {
        const int64_t t = t0 + threadIdx.x;
        int res = 0;
        int64_t i = 0, J = 0;
        double de = 0.0, dw = 0.0, tau = 0.0;
        if (t < total) {
            J = t / a.m;
            i = t - J * a.m;
            res = dgemm_row_check(&a, i, J, &de, &dw, &tau);
        }
        const unsigned fail = __ballot_sync(kFullMask, res == 1);
        const unsigned unchecked = __ballot_sync(kFullMask, res == 2);
        if (lane == 0 && unchecked) atomicAdd(&counters[1], (unsigned long long)__popc(unchecked));
        if (fail) {
            unsigned long long base = 0;
            if (lane == 0) base = atomicAdd(&counters[0], (unsigned long long)__popc(fail));
            base = __shfl_sync(kFullMask, base, 0);
            if (res == 1) {
                const unsigned long long slot = base + __popc(fail & ((1u << lane) - 1u));
                if (slot < (unsigned long long)cap) {
                    dgemm_flag_t f;
                    f.row = i;
                    f.blk = J;
                    f.de = de;
                    f.dw = dw;
                    f.tau = tau;
                    flags[slot] = f;
                }
            }
        }
    }
}

/*
 * tmr_vote: one thread per element (grid-stride over i + j m, a warp on 32 consecutive rows of
 * a column: coalesced), dgemm_tmr_vote1 as on the host; the counts reduced in the warp (one
 * atomic per warp and count), the first position by atomicMin.
 */
__global__ void __launch_bounds__(kThreads)
    tmr_vote_kernel(int64_t m, int64_t n, double *X0, int64_t ldx0, const double *X1,
                    const double *X2, int64_t ldr, unsigned long long *cnt)
{
    const int64_t total = m * n, stride = (int64_t)gridDim.x * blockDim.x;
    unsigned long long nd = 0, n3 = 0, first = ~0ull;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int64_t j = t / m, i = t - j * m;
        const int r = dgemm_tmr_vote1(X0 + i + j * ldx0, X1[i + j * ldr], X2[i + j * ldr]);
        if (r) {
            nd++;
            n3 += r == 2;
            if ((unsigned long long)t < first) first = (unsigned long long)t;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        nd += __shfl_down_sync(kFullMask, nd, o);
        n3 += __shfl_down_sync(kFullMask, n3, o);
        const unsigned long long f = __shfl_down_sync(kFullMask, first, o);
        first = f < first ? f : first;
    }
    if ((threadIdx.x & 31) == 0 && nd) {
        atomicAdd(&cnt[0], nd);
        if (n3) atomicAdd(&cnt[1], n3);
        atomicMin(&cnt[2], first);
    }
}

/*
 * encode_at (dgemm_kernels.h): one warp for CPW consecutive stored columns of A (rows of op(A)
 * = A^T), its lanes striding down them (coalesced); each row of Y loaded once for the CPW
 * columns. Four row strides are loaded before any is used (4 x CPW x 256 bytes in flight a
 * warp): with one, the warps' 1 KB each left the pass latency-bound at ~1.4 TB/s (1.49 ms for
 * the 16384 x 16384 A of a TN product, issue 12 session 44). The digest sums the raw bits and
 * applies the mix once (ft_digest_finish: the mix is affine), the backend digest's value.
 */
template <int NWMAX>
__global__ void __launch_bounds__(kThreads)
    encode_at_kernel(int64_t k, int64_t m, const double *__restrict__ A, int64_t lda,
                     const double *__restrict__ Y, int64_t ldy, int nw, double scale,
                     double *__restrict__ anorm, double *__restrict__ P, int64_t ldp,
                     unsigned long long *__restrict__ dig)
{
    constexpr int CPW = 4;
    const int lane = threadIdx.x & 31;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i0 = warp * CPW; i0 < m; i0 += nwarps * CPW) {
        double s[CPW], p[CPW][NWMAX];
        unsigned long long h[CPW];
#pragma unroll
        for (int c = 0; c < CPW; c++) {
            s[c] = 0.0, h[c] = 0ull;
#pragma unroll
            for (int j = 0; j < NWMAX; j++) p[c][j] = 0.0;
        }
        const int nc = m - i0 < CPW ? (int)(m - i0) : CPW;
        constexpr int U = 4; /* row strides in flight */
        int64_t l = lane;
        for (; l + (U - 1) * 32 < k; l += U * 32) {
            double y[U][NWMAX], a[U][CPW];
#pragma unroll
            for (int u = 0; u < U; u++) {
#pragma unroll
                for (int j = 0; j < NWMAX; j++)
                    y[u][j] = j < nw ? __ldg(Y + l + u * 32 + j * ldy) : 0.0;
#pragma unroll
                for (int c = 0; c < CPW; c++)
                    a[u][c] = c < nc ? __ldg(A + l + u * 32 + (i0 + c) * lda) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int c = 0; c < CPW; c++) {
                    s[c] += fabs(scale * a[u][c]);
                    h[c] += (unsigned long long)__double_as_longlong(a[u][c]);
#pragma unroll
                    for (int j = 0; j < NWMAX; j++) p[c][j] = fma(a[u][c], y[u][j], p[c][j]);
                }
        }
        for (; l < k; l += 32) {
            double y[NWMAX];
#pragma unroll
            for (int j = 0; j < NWMAX; j++) y[j] = j < nw ? __ldg(Y + l + j * ldy) : 0.0;
#pragma unroll
            for (int c = 0; c < CPW; c++) {
                if (c >= nc) break;
                const double a = __ldg(A + l + (i0 + c) * lda);
                s[c] += fabs(scale * a);
                h[c] += (unsigned long long)__double_as_longlong(a);
#pragma unroll
                for (int j = 0; j < NWMAX; j++) p[c][j] = fma(a, y[j], p[c][j]);
            }
        }
#pragma unroll
        for (int c = 0; c < CPW; c++) {
            for (int off = 16; off > 0; off >>= 1) {
                s[c] += __shfl_down_sync(kFullMask, s[c], off);
                h[c] += __shfl_down_sync(kFullMask, h[c], off);
#pragma unroll
                for (int j = 0; j < NWMAX; j++) p[c][j] += __shfl_down_sync(kFullMask, p[c][j], off);
            }
            if (lane == 0 && c < nc) {
                anorm[i0 + c] = s[c];
                if (dig) dig[i0 + c] = ft_digest_finish(h[c], k);
                for (int j = 0; j < nw; j++) P[i0 + c + j * ldp] = p[c][j];
            }
        }
    }
}

/*
 * sums_digest (dgemm_kernels.h): block_sums and the operand digest in one read of X (issue 12,
 * session 45: the encoding read B twice and A three times on squares, block sums or norms, the
 * digest, the product P; every read there costs its bytes at HBM rate, as no block of another
 * kernel fits beside cuBLAS's product on a multiprocessor).
 *
 * 'N' (X rows x cols, the stored columns are X's): one thread a row as block_sums 'N' (a warp
 * reads 32 consecutive rows of a column, four columns in flight), items of at most kSdChunk
 * columns. The digest of a stored column is K2 (sum of its bit patterns) + K2 K1 rows(rows-1)/2
 * (ft_digest_finish, affine): each warp sums its 32 rows' bits (three 22-bit pieces, exact in
 * 32-bit warp reductions), the block adds its warps' sums from shared memory at the item's end
 * and adds K2 times that into dig atomically (mod 2^64, so in any order); the blocks of row 0
 * also add the constant term once a column.
 * 'T' (X' = X^T rows x cols, X stored cols x rows: stored column r is row r of X'): one warp a
 * row as block_sums 'T'; each lane sums its elements' bits, a shuffle reduction, lane 0 adds
 * K2 times the sum (and, for the first item, the constant) atomically.
 * dig is zeroed first; the sums are stored, or added atomically into zeroed outputs when a
 * block of columns is split into several items.
 */
constexpr int64_t kSdChunk = 256;
constexpr unsigned long long kDigK2 = 0xbf58476d1ce4e5b9ull;

/* The sum over the warp of a 64-bit value, mod 2^64 (every lane gets it). */
__device__ __forceinline__ unsigned long long warp_sum_u64(unsigned long long b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned p0 = __reduce_add_sync(kFullMask, (unsigned)(b & 0x3fffffull));
    const unsigned p1 = __reduce_add_sync(kFullMask, (unsigned)((b >> 22) & 0x3fffffull));
    const unsigned p2 = __reduce_add_sync(kFullMask, (unsigned)(b >> 44));
    return (unsigned long long)p0 + ((unsigned long long)p1 << 22) +
           ((unsigned long long)p2 << 44);
#else
    for (int off = 16; off > 0; off >>= 1) b += __shfl_xor_sync(kFullMask, b, off);
    return b;
#endif
}

/* Row r's sums of block J: stored, or added into zeroed outputs when the block is split. */
template <bool SUMS, bool ATOMIC>
__device__ __forceinline__ void sd_store(double *sums, int64_t lds, double *abss, int64_t ldabs,
                                         int64_t r, int64_t J, double s, double sw, double sa)
{
    if (SUMS) {
        double *o = sums + r + 2 * J * lds;
        if (ATOMIC) atomicAdd(o, s), atomicAdd(o + lds, sw);
        else o[0] = s, o[lds] = sw;
    }
    double *o = abss + r + J * ldabs;
    if (ATOMIC) atomicAdd(o, sa);
    else *o = sa;
}

template <bool SUMS, bool ATOMIC>
__global__ void __launch_bounds__(kThreads)
    sd_n_kernel(int64_t rows, int64_t cols, const double *__restrict__ X, int64_t ldx, int64_t T,
                int64_t W, int64_t nz, int64_t chunk, double sc, double *sums, int64_t lds,
                double *abss, int64_t ldabs, unsigned long long *dig)
{
    __shared__ unsigned long long part[kThreads / 32][kSdChunk];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t r = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    const bool rok = r < rows;
    const double ws = abft_weight_scale(W);
    const int64_t nb = ceil_div(cols, T);
    const unsigned long long fin0 = blockIdx.x == 0 ? ft_digest_finish(0, rows) : 0ull;
    for (int64_t t = blockIdx.y; t < nb * nz; t += gridDim.y) {
        const int64_t J = t / nz, z = t - J * nz, j0 = J * T;
        const int64_t c0 = j0 + z * chunk, c1 = imin(imin(cols, j0 + T), c0 + chunk);
        if (c0 >= c1) continue; /* uniform over the block */
        double s = 0.0, sw = 0.0, sa = 0.0;
        const double *p = X + (rok ? r : 0) + c0 * ldx;
        for (int64_t j = c0; j < c1; j += 4, p += 4 * ldx) {
            double x[4];
#pragma unroll
            for (int u = 0; u < 4; u++) x[u] = (rok && j + u < c1) ? __ldg(p + u * ldx) : 0.0;
            const double wb = abft_weight_at(j - j0, W, ws);
#pragma unroll
            for (int u = 0; u < 4; u++) {
                if (j + u >= c1) break; /* uniform */
                const double v = x[u] * sc;
                if (SUMS) {
                    s += v;
                    sw = fma(fma((double)u, ws, wb), v, sw);
                }
                sa += fabs(v);
                const unsigned long long h =
                    warp_sum_u64((unsigned long long)__double_as_longlong(x[u]));
                if (lane == 0) part[warp][j + u - c0] = h;
            }
        }
        if (rok) sd_store<SUMS, ATOMIC>(sums, lds, abss, ldabs, r, J, s, sw, sa);
        __syncthreads();
        for (int64_t cc = threadIdx.x; cc < c1 - c0; cc += kThreads) {
            unsigned long long h = 0ull;
#pragma unroll
            for (int w = 0; w < kThreads / 32; w++) h += part[w][cc];
            atomicAdd(dig + c0 + cc, h * kDigK2 + fin0);
        }
        __syncthreads();
    }
}

template <bool SUMS, bool ATOMIC>
__global__ void __launch_bounds__(kThreads)
    sd_t_kernel(int64_t rows, int64_t cols, const double *__restrict__ X, int64_t ldx, int64_t T,
                int64_t W, int64_t nz, int64_t chunk, double sc, double *sums, int64_t lds,
                double *abss, int64_t ldabs, unsigned long long *dig)
{
    const int lane = threadIdx.x & 31;
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= rows) return; /* whole warps leave together */
    const double *__restrict__ x = X + r * ldx;
    const double ws = abft_weight_scale(W);
    const int64_t nb = ceil_div(cols, T);
    for (int64_t t = blockIdx.y; t < nb * nz; t += gridDim.y) {
        const int64_t J = t / nz, z = t - J * nz, j0 = J * T;
        const int64_t c0 = j0 + z * chunk, c1 = imin(imin(cols, j0 + T), c0 + chunk);
        if (c0 >= c1) continue; /* uniform over the warp */
        double s = 0.0, sw = 0.0, sa = 0.0;
        unsigned long long h = 0ull;
        int64_t j = c0 + lane;
        for (; j + 96 < c1; j += 128) {
            double v[4];
#pragma unroll
            for (int u = 0; u < 4; u++) v[u] = __ldg(x + j + 32 * u);
#pragma unroll
            for (int u = 0; u < 4; u++) {
                h += (unsigned long long)__double_as_longlong(v[u]);
                const double y = v[u] * sc;
                if (SUMS) {
                    s += y;
                    sw = fma(abft_weight_at(j + 32 * u - j0, W, ws), y, sw);
                }
                sa += fabs(y);
            }
        }
        for (; j < c1; j += 32) {
            const double v = __ldg(x + j);
            h += (unsigned long long)__double_as_longlong(v);
            const double y = v * sc;
            if (SUMS) {
                s += y;
                sw = fma(abft_weight_at(j - j0, W, ws), y, sw);
            }
            sa += fabs(y);
        }
        for (int off = 16; off > 0; off >>= 1) {
            if (SUMS) {
                s += __shfl_down_sync(kFullMask, s, off);
                sw += __shfl_down_sync(kFullMask, sw, off);
            }
            sa += __shfl_down_sync(kFullMask, sa, off);
            h += __shfl_down_sync(kFullMask, h, off);
        }
        if (lane == 0) {
            sd_store<SUMS, ATOMIC>(sums, lds, abss, ldabs, r, J, s, sw, sa);
            atomicAdd(dig + r, h * kDigK2 + (t == 0 ? ft_digest_finish(0, cols) : 0ull));
        }
    }
}

template <bool SUMS, bool ATOMIC>
void sd_launch(bool notrans, dim3 grid, cudaStream_t st, int64_t rows, int64_t cols,
               const double *X, int64_t ldx, int64_t T, int64_t nz, int64_t chunk, double sc,
               double *sums, int64_t lds, double *abss, int64_t ldabs, unsigned long long *dig)
{
    if (notrans)
        sd_n_kernel<SUMS, ATOMIC><<<grid, kThreads, 0, st>>>(rows, cols, X, ldx, T, abft_wden(T),
                                                             nz, chunk, sc, sums, lds, abss,
                                                             ldabs, dig);
    else
        sd_t_kernel<SUMS, ATOMIC><<<grid, kThreads, 0, st>>>(rows, cols, X, ldx, T, abft_wden(T),
                                                             nz, chunk, sc, sums, lds, abss,
                                                             ldabs, dig);
}

} /* namespace */

extern "C" {

/* Flags in the host backend's order: block J, then row i. */
static int flag_cmp(const void *pa, const void *pb)
{
    const dgemm_flag_t *a = (const dgemm_flag_t *)pa, *b = (const dgemm_flag_t *)pb;
    if (a->blk != b->blk) return a->blk < b->blk ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return 0;
}

/* Scratch layout, the same in dwork and hwork: 2 counters (failing, unverifiable) in the first
 * DGEMM_VERIFY_HEAD bytes, then up to cap flags. */
static int c_verify_rows(ft_queue_t *q, const dgemm_rowcheck_args_t *args, void *dwork,
                         void *hwork, int64_t cap, dgemm_flag_t **flags_out, int64_t *nflags,
                         int64_t *nunchecked)
{
    if (!args || !nflags || !nunchecked || !flags_out || cap < 0 || !dwork || !hwork)
        return FT_ERR_INTERNAL;
    *nflags = 0;
    *nunchecked = 0;
    dgemm_flag_t *hflags = (dgemm_flag_t *)((char *)hwork + DGEMM_VERIFY_HEAD);
    dgemm_flag_t *dflags = (dgemm_flag_t *)((char *)dwork + DGEMM_VERIFY_HEAD);
    *flags_out = hflags;
    if (args->m < 0 || args->nb < 0) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t total = args->m * args->nb;
    if (total == 0) {
        FTLA_CUDA_TRY(cudaStreamSynchronize(s)); /* the contract: queue q is synchronised */
        return FT_SUCCESS;
    }
    const int64_t nsm = ftla_cuda_queue_sm_count(q);
    const dim3 grid((unsigned)imin(ceil_div(total, kThreads), 16 * nsm));
    unsigned long long *counters = (unsigned long long *)dwork;
    const unsigned long long *hcount = (const unsigned long long *)hwork;
    FTLA_CUDA_TRY(cudaMemsetAsync(counters, 0, 2 * sizeof(unsigned long long), s));
    verify_rows_kernel<<<grid, kThreads, 0, s>>>(*args, counters, dflags, cap);
    FTLA_CUDA_TRY(cudaGetLastError());
    FTLA_CUDA_TRY(cudaMemcpyAsync(hwork, counters, 2 * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, s));
    FTLA_CUDA_TRY(cudaStreamSynchronize(s));
    const unsigned long long nf = hcount[0], nu = hcount[1];
    const int64_t ncopy = imin((int64_t)nf, cap);
    if (ncopy > 0) {
        FTLA_CUDA_TRY(cudaMemcpyAsync(hflags, dflags, (size_t)ncopy * sizeof(dgemm_flag_t),
                                      cudaMemcpyDeviceToHost, s));
        FTLA_CUDA_TRY(cudaStreamSynchronize(s));
        /* slots come in atomic order; sort into the host backend's order */
        qsort(hflags, (size_t)ncopy, sizeof(dgemm_flag_t), flag_cmp);
    }
    *nflags = (int64_t)nf;
    *nunchecked = (int64_t)nu;
    return FT_SUCCESS;
}

static int c_tmr_vote(ft_queue_t *q, int64_t m, int64_t n, double *X0, int64_t ldx0,
                      const double *X1, const double *X2, int64_t ldr, uint64_t *cnt)
{
    if (m < 0 || n < 0 || !cnt) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    unsigned long long *c = (unsigned long long *)cnt;
    FTLA_CUDA_TRY(cudaMemsetAsync(c, 0, 2 * sizeof(unsigned long long), s));
    FTLA_CUDA_TRY(cudaMemsetAsync(c + 2, 0xff, sizeof(unsigned long long), s));
    const int64_t total = m * n;
    if (total == 0) return FT_SUCCESS;
    const int64_t nsm = ftla_cuda_queue_sm_count(q);
    const dim3 grid((unsigned)imin(ceil_div(total, kThreads), 8 * nsm));
    tmr_vote_kernel<<<grid, kThreads, 0, s>>>(m, n, X0, ldx0, X1, X2, ldr, c);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_encode_at(ft_queue_t *q, int64_t k, int64_t m, const double *A, int64_t lda,
                       const double *Y, int64_t ldy, int nw, double scale, double *anorm,
                       double *P, int64_t ldp, uint64_t *dig)
{
    if (nw < 1 || nw > 8 || k < 1 || m < 1) return 1; /* the driver's separate passes */
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t nsm = ftla_cuda_queue_sm_count(q);
    const int64_t warps = ceil_div(m, 4);
    const dim3 grid((unsigned)imin(ceil_div(warps, kThreads / 32), 16 * nsm));
    unsigned long long *d = (unsigned long long *)dig;
    if (nw <= 2)
        encode_at_kernel<2><<<grid, kThreads, 0, s>>>(k, m, A, lda, Y, ldy, nw, scale, anorm, P,
                                                      ldp, d);
    else
        encode_at_kernel<8><<<grid, kThreads, 0, s>>>(k, m, A, lda, Y, ldy, nw, scale, anorm, P,
                                                      ldp, d);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_c0_pass(ft_queue_t *q, int64_t m, int64_t n, const double *C0, int64_t ldc, int64_t T,
                     double scale, double *rs, double *ra, double *cs, double *ca, int64_t ldcs,
                     double *backup)
{
    /* a warp's 32 rows must lie in one row block: else the driver's separate passes (also
     * with FTLA_DGEMM_C0_SEPARATE=1, for same-run measurements) */
    static int separate = -1;
    if (separate < 0) {
        const char *e = getenv("FTLA_DGEMM_C0_SEPARATE");
        separate = e && e[0] == '1';
    }
    if (separate || T < 32 || T % 32 != 0 || m < 1 || n < 1) return 1;
    if (cs && ldcs < n) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t nb = ceil_div(n, T), mb = ceil_div(m, T);
    FTLA_CUDA_TRY(cudaMemsetAsync(rs, 0, (size_t)(2 * m * nb) * sizeof(double), s));
    FTLA_CUDA_TRY(cudaMemsetAsync(ra, 0, (size_t)(m * nb) * sizeof(double), s));
    if (cs) {
        const size_t w = (size_t)n * sizeof(double), pitch = (size_t)ldcs * sizeof(double);
        FTLA_CUDA_TRY(cudaMemset2DAsync(cs, pitch, 0, w, (size_t)(2 * mb), s));
        FTLA_CUDA_TRY(cudaMemset2DAsync(ca, pitch, 0, w, (size_t)mb, s));
    }
    const int64_t chunk = T < kC0Chunk ? T : kC0Chunk, nz = ceil_div(T, chunk);
    const int64_t items = nb * nz;
    const dim3 grid((unsigned)ceil_div(m, kC0Rows), (unsigned)imin(items, 65535));
    static int raised[64]; /* the block's shared memory is above the 48 KB default */
    int dev = 0;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    if (cs && (dev < 0 || dev >= 64 || !raised[dev])) {
        FTLA_CUDA_TRY(cudaFuncSetAttribute(c0_pass_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)kC0Smem));
        if (dev >= 0 && dev < 64) raised[dev] = 1;
    }
    c0_pass_kernel<<<grid, kC0Rows, cs ? kC0Smem : 0, s>>>(m, n, C0, ldc, T, abft_wden(T), scale,
                                                          chunk, nz, rs, ra, cs, ca, ldcs, backup);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_sums_digest(ft_queue_t *q, char trans, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, int64_t T, double scale, double *sums, int64_t lds,
                         double *abss, int64_t ldabs, uint64_t *dig)
{
    if (rows < 1 || cols < 1 || T < 1 || !X || !abss || !dig) return 1; /* the separate passes */
    const bool notrans = ft_is_notrans(trans);
    if (!notrans && !ft_is_trans(trans)) return FT_ERR_INTERNAL;
    const int64_t nb = ceil_div(cols, T), tw = imin(T, cols);
    if (notrans ? (cols > 1 && ldx < rows) : (rows > 1 && ldx < cols)) return FT_ERR_INTERNAL;
    if ((sums && lds < rows) || (nb > 1 && ldabs < rows)) return FT_ERR_INTERNAL;
    cudaStream_t s = ftla_cuda_queue_stream(q);
    const int64_t nsm = ftla_cuda_queue_sm_count(q);
    /* items as block_sums (about four waves of resident blocks, chunks of at least 64 / 256
     * columns), and for 'N' at most kSdChunk columns (the block's digest sums in shared memory) */
    const int64_t rgroups = notrans ? ceil_div(rows, kThreads) : ceil_div(rows, kThreads / 32);
    if (rgroups > 0x7fffffff) return FT_ERR_TOO_LARGE;
    const int64_t units = notrans ? rgroups * nb : rows * nb;
    const int64_t want = notrans ? 32 * nsm : 256 * nsm, min_chunk = notrans ? 64 : 256;
    int64_t nz = 1;
    if (units < want) nz = imax(1, imin(ceil_div(want, units), tw / min_chunk));
    if (notrans) nz = imax(nz, ceil_div(tw, kSdChunk));
    const int64_t chunk = ceil_div(tw, nz);
    nz = ceil_div(tw, chunk);
    const bool atomic = nz > 1;
    if (atomic) {
        if (sums)
            FTLA_CUDA_TRY(cudaMemset2DAsync(sums, (size_t)lds * sizeof(double), 0,
                                            (size_t)rows * sizeof(double), (size_t)(2 * nb), s));
        FTLA_CUDA_TRY(cudaMemset2DAsync(abss, (size_t)(nb > 1 ? ldabs : rows) * sizeof(double),
                                        0, (size_t)rows * sizeof(double), (size_t)nb, s));
    }
    const int64_t ndig = notrans ? cols : rows;
    FTLA_CUDA_TRY(cudaMemsetAsync(dig, 0, (size_t)ndig * sizeof(uint64_t), s));
    const dim3 grid((unsigned)rgroups, (unsigned)imin(nb * nz, 65535));
    unsigned long long *d = (unsigned long long *)dig;
    if (sums && atomic)
        sd_launch<true, true>(notrans, grid, s, rows, cols, X, ldx, T, nz, chunk, scale, sums, lds, abss, ldabs, d);
    else if (sums)
        sd_launch<true, false>(notrans, grid, s, rows, cols, X, ldx, T, nz, chunk, scale, sums, lds, abss, ldabs, d);
    else if (atomic)
        sd_launch<false, true>(notrans, grid, s, rows, cols, X, ldx, T, nz, chunk, scale, sums, lds, abss, ldabs, d);
    else
        sd_launch<false, false>(notrans, grid, s, rows, cols, X, ldx, T, nz, chunk, scale, sums, lds, abss, ldabs, d);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static const dgemm_kernels_t g_cuda = {.verify_rows = c_verify_rows,
                                       .c0_pass = c_c0_pass,
                                       .tmr_vote = c_tmr_vote,
                                       .encode_at = c_encode_at,
                                       .encode_an = NULL,
                                       .sums_digest = c_sums_digest};

const dgemm_kernels_t *dgemm_kernels_cuda(void) { return &g_cuda; }

} /* extern "C" */
