/*
 * qr_solve_cuda.cu — the cuda table of qr_solve_kernels.h: the FT factor's rotation sweeps,
 * transposition and scaling on device memory, for ft_dormqr_gpu / ft_dgels_gpu.
 *
 * Every launch is checked (FTLA_CUDA_TRY on cudaGetLastError); grids are capped and the kernels
 * stride over what a capped grid does not cover, so no dimension limit of CUDA is ever reached.
 */
#include "backend/cuda/cuda_internal.h"

#include <cooperative_groups.h>
#include <cstdlib>

extern "C" {
#include "qr/qr_solve_kernels.h"
}

namespace {

constexpr int RT = 128;             /* threads per block of the rotation kernels */
constexpr int TS = 32;              /* transpose tile (TS x TS), TS x TR threads per block */
constexpr int TR = 8;
constexpr int ST = 256;             /* threads per block of the scaling kernel */
constexpr int64_t GRID_MAX = 65535; /* cap of a grid dimension (each kernel strides beyond) */

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline unsigned grid_of(int64_t blocks)
{
    return (unsigned)(blocks < GRID_MAX ? blocks : GRID_MAX);
}

/*
 * Rotation sweep from the left: one thread per column j of C (grid-stride over the columns),
 * walking the cnt planes down (dt = +1) or up (dt = -1) its own column. The element that the
 * next plane shares with this one stays in a register, so each element is read and written
 * once per sweep. Threads of a warp touch different columns (stride ldc): the sweep is a chain
 * of dependent planes, and the column is the only independent unit (nrhs columns in ft_dgels).
 */
__global__ void __launch_bounds__(RT) rot_left(int64_t t0, int64_t dt, int64_t cnt, double sg,
                                               const double *__restrict__ c,
                                               const double *__restrict__ s, double *C,
                                               int64_t n, int64_t ldc)
{
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (int64_t)gridDim.x * blockDim.x) {
        double *x = C + j * ldc;
        int64_t t = t0;
        if (dt > 0) { /* planes t, t+1, ...: row t is final after plane t, carry row t+1 */
            double a = x[t];
            for (int64_t u = 0; u < cnt; u++, t++) {
                const double e = sg * s[t], b = x[t + 1];
                x[t] = c[t] * a + e * b;
                a = c[t] * b - e * a;
            }
            x[t] = a;
        } else { /* planes t, t-1, ...: row t+1 is final after plane t, carry row t */
            double b = x[t + 1];
            for (int64_t u = 0; u < cnt; u++, t--) {
                const double e = sg * s[t], a = x[t];
                x[t + 1] = c[t] * b - e * a;
                b = c[t] * a + e * b;
            }
            x[t + 1] = b;
        }
    }
}

/*
 * Rotation sweep from the right: one thread per row r of C (grid-stride over the rows), walking
 * the cnt planes across its row; consecutive threads take consecutive rows, so every access of
 * a warp is one coalesced segment of a column. The shared column stays in a register as in
 * rot_left; c[t], s[t] are the same address for the whole warp (one broadcast load).
 */
__global__ void __launch_bounds__(RT) rot_right(int64_t t0, int64_t dt, int64_t cnt, double sg,
                                                const double *__restrict__ c,
                                                const double *__restrict__ s, double *C,
                                                int64_t m, int64_t ldc)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < m;
         r += (int64_t)gridDim.x * blockDim.x) {
        double *x = C + r;
        int64_t t = t0;
        if (dt > 0) {
            double a = x[t * ldc];
            for (int64_t u = 0; u < cnt; u++, t++) {
                const double e = sg * s[t], b = x[(t + 1) * ldc];
                x[t * ldc] = c[t] * a + e * b;
                a = c[t] * b - e * a;
            }
            x[t * ldc] = a;
        } else {
            double b = x[(t + 1) * ldc];
            for (int64_t u = 0; u < cnt; u++, t--) {
                const double e = sg * s[t], a = x[t * ldc];
                x[(t + 1) * ldc] = c[t] * b - e * a;
                b = c[t] * a + e * b;
            }
            x[(t + 1) * ldc] = b;
        }
    }
}

/*
 * B := A^T. The m x n A is cut into TS x TS tiles, numbered column-major (tm tiles down);
 * each thread block takes tiles tile = blockIdx.x, + gridDim.x, ... With TS x TR threads it
 * reads the tile coalesced (threadIdx.x along A's column), writes it to shared memory
 * (row stride TS + 1: no bank conflicts when read transposed) and writes B's tile coalesced
 * (threadIdx.x along B's column).
 */
__global__ void __launch_bounds__(TS * TR) transpose_k(int64_t m, int64_t n, const double *A,
                                                      int64_t lda, double *B, int64_t ldb,
                                                      int64_t tm, int64_t ntiles)
{
    __shared__ double tile[TS][TS + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int64_t tl = blockIdx.x; tl < ntiles; tl += gridDim.x) {
        const int64_t i0 = (tl % tm) * TS, j0 = (tl / tm) * TS;
        for (int k = ty; k < TS; k += TR) {
            const int64_t i = i0 + tx, j = j0 + k;
            if (i < m && j < n) tile[k][tx] = A[i + j * lda];
        }
        __syncthreads();
        for (int k = ty; k < TS; k += TR) {
            const int64_t j = j0 + tx, i = i0 + k; /* B(j, i) = A(i, j) */
            if (j < n && i < m) B[j + i * ldb] = tile[tx][k];
        }
        __syncthreads();
    }
}

/* A := mul A: blockIdx.y strides over the columns, the threads of blockIdx.x over the rows
 * (coalesced). */
__global__ void __launch_bounds__(ST) scale_k(int64_t m, int64_t n, double mul, double *A,
                                              int64_t lda)
{
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
             i += (int64_t)gridDim.x * blockDim.x)
            A[i + j * lda] *= mul;
}


/* ---- block reflectors to a few vectors (the recovery's z = Q~^T a_j, the checksums' catch-up) ---
 * X := H_(p1-1)^T ... H_p0^T X (trans) or H_p0 ... H_(p1-1) X for the m x NX block X (NX <= 4),
 * H_p = I - V_p T_p V_p^T, V_p the unit lower trapezoid in A(i:m, i:i+ib), i = p nb. The
 * cuBLAS path pays about seven launches per panel for a thin X (12-35 ms at m = 16384); here
 * one cooperative launch runs all panels.
 * Rows are owned: 32-row chunk ch belongs to block ch mod G for the whole launch, so a block
 * updates its rows of X with panel p (phase 3) and forms its share of panel p+1's V^T X (phase 1)
 * without a grid barrier between them. Per panel:
 *   phase 1 (rows):    part[c][v][b] = sum over block b's rows r >= i of V(r, c) X(r, v): a
 *                      warp per RCB columns at a time, lanes along rows (coalesced), the sums
 *                      over the block's chunks in registers, one butterfly per column;
 *   phase 2 (columns): y[c][v] = sum over b of part[c][v][b]: a warp per (c, v), lanes along b;
 *   phase 3 (columns): w2 = T^T y (trans) or T y: a warp per (c, v), lanes along T's column or
 *                      row;
 *   phase 4 (rows):    X(r, v) -= sum_c V(r, c) w2[c][v]: a warp per column residue (c = warp
 *                      mod RW), lanes along rows, the warps' sums added in shared memory.
 * Three grid barriers per panel (after 1, 2 and 3); phase 4 of panel p runs fused before phase 1
 * of panel p+1. V is read twice per panel (phases 1 and 4), the least without keeping a panel
 * on chip; the partial sums are G ib NX doubles. Deterministic: every sum in a fixed order.
 * Served up to nb = VNB (the device panels' block size). */
constexpr int VT = 256, VW = VT / 32; /* threads, warps */
constexpr int VNB = 256;                        /* the largest nb served (else the cuBLAS path) */
constexpr int VNX = 4;                          /* vectors per launch */
constexpr int PU = 8; /* phase 4: columns a lane at a time (for two rows: 16 loads in flight) */

/* V(r, c) of the panel at row i where ok, else 0. The load is unconditional (row i, column 0
 * where !ok; the upper part where r - i <= c: inside the matrix either way), so that the
 * unrolled loops issue all their loads before the first use: a load under a branch waited for
 * its value before the next one (36-48 us a panel at m = 16384 before). */
__device__ __forceinline__ double vref(const double *A, int64_t lda, int64_t i, int64_t r, int c,
                                       bool ok)
{
    const int64_t rr = ok ? r : i;
    const int cc = ok ? c : 0;
    const double v = __ldg(A + rr + (i + cc) * lda);
    const int64_t d = rr - i; /* row within the panel */
    return !ok ? 0.0 : (d > cc ? v : (d == cc ? 1.0 : 0.0));
}

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* the first 32-row chunk at or below row i that block b owns (chunks b, b + G, ...) */
__device__ __forceinline__ int64_t first_chunk(int64_t i, int64_t b, int64_t G)
{
    const int64_t c0 = i / 32;
    return b >= c0 ? b : b + (c0 - b + G - 1) / G * G;
}

template <int NX>
__global__ void __launch_bounds__(VT, 2) reflect_k(int trans, int64_t m, int64_t k, int64_t nb,
                                                int64_t p0, int64_t p1, const double *A,
                                                int64_t lda, const double *T, double *X,
                                                int64_t ldx, double *part, double *y, double *w2)
{
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    __shared__ double w2s[VNB * NX];
    __shared__ double red[VW][64][NX];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t G = gridDim.x, b = blockIdx.x, nch = (m + 31) / 32, np = p1 - p0;
    const int64_t gw = b * VW + warp, GW = G * VW; /* this warp among all the grid's warps */
    for (int64_t s = 0; s <= np; s++) {
        if (s > 0) { /* phase 4 of the previous panel */
            const int64_t p = trans ? p0 + s - 1 : p1 - s;
            const int64_t i = p * nb;
            const int ib = (int)(k - i < nb ? k - i : nb);
            for (int t = tid; t < ib * NX; t += VT) w2s[t] = __ldcg(w2 + t);
            __syncthreads();
            /* two of the block's chunks at a time (rows ra, rb of a lane): 32 loads in flight */
            for (int64_t ch = first_chunk(i, b, G); ch < nch; ch += 2 * G) {
                const int64_t ra = ch * 32 + lane, rb = (ch + G) * 32 + lane;
                const bool va = ra >= i && ra < m, vb = ch + G < nch && rb >= i && rb < m;
                double acca[NX], accb[NX];
#pragma unroll
                for (int v = 0; v < NX; v++) acca[v] = accb[v] = 0.0;
                for (int c0 = warp; c0 < ib; c0 += PU * VW) {
#pragma unroll
                    for (int u = 0; u < PU; u++) {
                        const int c = c0 + u * VW;
                        const bool in = c < ib;
                        const double xa = vref(A, lda, i, ra, c, in && va);
                        const double xb = vref(A, lda, i, rb, c, in && vb);
#pragma unroll
                        for (int v = 0; v < NX; v++) {
                            const double wv = w2s[(in ? c : 0) * NX + v];
                            acca[v] += xa * wv;
                            accb[v] += xb * wv;
                        }
                    }
                }
#pragma unroll
                for (int v = 0; v < NX; v++) {
                    red[warp][lane][v] = acca[v];
                    red[warp][32 + lane][v] = accb[v];
                }
                __syncthreads();
                for (int t = tid; t < 64 * NX; t += VT) {
                    const int l = t & 63, v = t >> 6;
                    const int64_t rr = (l < 32 ? ch : ch + G) * 32 + (l & 31);
                    double sum = 0.0;
#pragma unroll
                    for (int w = 0; w < VW; w++) sum += red[w][l][v];
                    if ((l < 32 || ch + G < nch) && rr >= i && rr < m)
                        X[rr + v * ldx] = __ldcg(X + rr + v * ldx) - sum;
                }
                __syncthreads();
            }
        }
        if (s == np) break;
        const int64_t p = trans ? p0 + s : p1 - 1 - s;
        const int64_t i = p * nb;
        const int ib = (int)(k - i < nb ? k - i : nb);
        const int64_t ch0 = first_chunk(i, b, G);
        /* phase 1: RCB columns a warp at a time, two of the block's chunks at a time (sixteen
         * loads in flight a lane; the sums stay in registers) */
        constexpr int RCB = 8;
        for (int cb = warp * RCB; cb < ib; cb += VW * RCB) {
            double acc[RCB][NX];
#pragma unroll
            for (int cc = 0; cc < RCB; cc++)
#pragma unroll
                for (int v = 0; v < NX; v++) acc[cc][v] = 0.0;
            for (int64_t ch = ch0; ch < nch; ch += 2 * G) {
                const int64_t ra = ch * 32 + lane, rb = (ch + G) * 32 + lane;
                const bool va = ra >= i && ra < m, vb = ch + G < nch && rb >= i && rb < m;
                double xa[NX], xb[NX];
#pragma unroll
                for (int v = 0; v < NX; v++) { /* unconditional loads (row i where not valid) */
                    const double ya = __ldcg(X + (va ? ra : i) + v * ldx);
                    const double yb = __ldcg(X + (vb ? rb : i) + v * ldx);
                    xa[v] = va ? ya : 0.0;
                    xb[v] = vb ? yb : 0.0;
                }
#pragma unroll
                for (int cc = 0; cc < RCB; cc++) {
                    const bool in = cb + cc < ib;
                    const double pa = vref(A, lda, i, ra, cb + cc, in && va);
                    const double pb = vref(A, lda, i, rb, cb + cc, in && vb);
#pragma unroll
                    for (int v = 0; v < NX; v++) acc[cc][v] += pa * xa[v] + pb * xb[v];
                }
            }
#pragma unroll
            for (int cc = 0; cc < RCB; cc++)
#pragma unroll
                for (int v = 0; v < NX; v++) {
                    const double t = warp_sum(acc[cc][v]);
                    if (lane == 0 && cb + cc < ib) part[((int64_t)(cb + cc) * NX + v) * G + b] = t;
                }
        }
        grid.sync();
        /* phase 2 */
        for (int64_t u = gw; u < (int64_t)ib * NX; u += GW) {
            double acc = 0.0;
            for (int64_t q = lane; q < G; q += 32) acc += __ldcg(part + u * G + q);
            acc = warp_sum(acc);
            if (lane == 0) y[u] = acc;
        }
        grid.sync();
        /* phase 3: trans: w2[c] = sum_{r <= c} T(r, c) y[r]; else w2[r] = sum_{c >= r} T(r, c) y[c] */
        const double *Tp = T + p * nb * nb; /* ib x ib upper triangular, ld nb */
        for (int64_t u = gw; u < (int64_t)ib * NX; u += GW) {
            const int c = (int)(u / NX), v = (int)(u % NX);
            double acc = 0.0;
            if (trans)
                for (int r = lane; r <= c; r += 32)
                    acc += Tp[r + (int64_t)c * nb] * __ldcg(y + r * NX + v);
            else
                for (int cc = c + lane; cc < ib; cc += 32)
                    acc += Tp[c + (int64_t)cc * nb] * __ldcg(y + cc * NX + v);
            acc = warp_sum(acc);
            if (lane == 0) w2[u] = acc;
        }
        grid.sync();
    }
}

template <int NX>
int launch_reflect(cudaStream_t st, int64_t grid, int trans, int64_t m, int64_t k,
                          int64_t nb, int64_t p0, int64_t p1, const double *A, int64_t lda,
                          const double *T, double *X, int64_t ldx, double *part, double *y,
                          double *w2)
{
    void *args[] = {&trans, &m,  &k, &nb,   &p0,  &p1, (void *)&A, &lda,
                    (void *)&T, &X, &ldx, &part, &y, &w2};
    FTLA_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)reflect_k<NX>, dim3((unsigned)grid),
                                              dim3(VT), args, 0, st));
    return FT_SUCCESS;
}

} /* namespace */

extern "C" {

static int c_rot(ft_queue_t *q, int left, int transposed, int64_t t0, int64_t dt, int64_t cnt,
                 const double *c, const double *s, double *C, int64_t m, int64_t n, int64_t ldc)
{
    if (cnt <= 0 || m <= 0 || n <= 0) return FT_SUCCESS;
    if (dt != 1 && dt != -1) return FT_ERR_INTERNAL;
    /* the sign of qr_rotate_ref: e = sg s */
    const double sg = left ? (transposed ? -1.0 : 1.0) : (transposed ? 1.0 : -1.0);
    cudaStream_t st = ftla_cuda_queue_stream(q);
    if (left) rot_left<<<grid_of(cdiv(n, RT)), RT, 0, st>>>(t0, dt, cnt, sg, c, s, C, n, ldc);
    else rot_right<<<grid_of(cdiv(m, RT)), RT, 0, st>>>(t0, dt, cnt, sg, c, s, C, m, ldc);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_transpose(ft_queue_t *q, int64_t m, int64_t n, const double *A, int64_t lda,
                       double *B, int64_t ldb)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    const int64_t tm = cdiv(m, TS), tn = cdiv(n, TS);
    if (tm > INT64_MAX / tn) return FT_ERR_TOO_LARGE;
    const int64_t ntiles = tm * tn;
    transpose_k<<<grid_of(ntiles), dim3(TS, TR), 0, ftla_cuda_queue_stream(q)>>>(
        m, n, A, lda, B, ldb, tm, ntiles);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

static int c_scale(ft_queue_t *q, int64_t m, int64_t n, double mul, double *A, int64_t lda)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    const dim3 grid(grid_of(cdiv(m, ST) < 64 ? cdiv(m, ST) : 64), grid_of(n));
    scale_k<<<grid, ST, 0, ftla_cuda_queue_stream(q)>>>(m, n, mul, A, lda);
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}


/* *done = 0 where the kernel cannot serve (nb > VNB, no cooperative launch): X is untouched */
static int c_reflect(ft_queue_t *q, int trans, int64_t m, int64_t k, int64_t nb, int64_t p0,
                     int64_t p1, const double *A, int64_t lda, const double *T, double *X,
                     int64_t ldx, int64_t nx, int *done)
{
    *done = 0;
    if (p1 <= p0 || m <= 0 || nx <= 0) {
        *done = 1;
        return FT_SUCCESS;
    }
    if (nb > VNB || nb < 1) return FT_SUCCESS;
    int dev, coop = 0, sms = 0, per = 0;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    /* one grid for every instance: the fewest co-resident blocks of any */
    {
        int p1b = 0, p2b = 0, p3b = 0, p4b = 0;
        FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p1b, reflect_k<1>, VT, 0));
        FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p2b, reflect_k<2>, VT, 0));
        FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p3b, reflect_k<3>, VT, 0));
        FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p4b, reflect_k<4>, VT, 0));
        per = p1b < p2b ? p1b : p2b;
        if (p3b < per) per = p3b;
        if (p4b < per) per = p4b;
    }
    if (!coop || per < 1) return FT_SUCCESS;
    /* 16 warps per multiprocessor; more blocks, more partial sums (FTLA_REFLECT_PER: tuning) */
    int cap = 2;
    {
        const char *e = getenv("FTLA_REFLECT_PER");
        if (e && atoi(e) >= 1 && atoi(e) <= 8) cap = atoi(e);
    }
    if (per > cap) per = cap;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    int64_t grid = (int64_t)sms * per;
    const int64_t chunks = (m + 31) / 32; /* no more blocks than 32-row chunks */
    if (grid > chunks) grid = chunks;
    const size_t need = ((size_t)grid * VNB * VNX + 2 * (size_t)VNB * VNX) * sizeof(double);
    double *part = NULL;
    FT_CHECK(ftla_cuda_queue_scratch(q, need, (void **)&part));
    double *y = part + (size_t)grid * VNB * VNX, *w2 = y + VNB * VNX;
    for (int64_t v0 = 0; v0 < nx; v0 += VNX) {
        double *Xv = X + v0 * ldx;
        switch (nx - v0 < VNX ? nx - v0 : VNX) {
        case 1: FT_CHECK(launch_reflect<1>(st, grid, trans, m, k, nb, p0, p1, A, lda, T, Xv, ldx, part, y, w2)); break;
        case 2: FT_CHECK(launch_reflect<2>(st, grid, trans, m, k, nb, p0, p1, A, lda, T, Xv, ldx, part, y, w2)); break;
        case 3: FT_CHECK(launch_reflect<3>(st, grid, trans, m, k, nb, p0, p1, A, lda, T, Xv, ldx, part, y, w2)); break;
        default: FT_CHECK(launch_reflect<4>(st, grid, trans, m, k, nb, p0, p1, A, lda, T, Xv, ldx, part, y, w2)); break;
        }
    }
    *done = 1;
    return FT_SUCCESS;
}

static const qr_solve_kernels_t s_cuda = {"cuda", c_rot, c_transpose, c_scale, c_reflect};

const qr_solve_kernels_t *qr_solve_kernels_cuda(void) { return &s_cuda; }

} /* extern "C" */
