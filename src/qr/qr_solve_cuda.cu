/*
 * qr_solve_cuda.cu — the cuda table of qr_solve_kernels.h: the FT factor's rotation sweeps,
 * transposition and scaling on device memory, for ft_dormqr_gpu / ft_dgels_gpu.
 *
 * Every launch is checked (FTLA_CUDA_TRY on cudaGetLastError); grids are capped and the kernels
 * stride over what a capped grid does not cover, so no dimension limit of CUDA is ever reached.
 */
#include "backend/cuda/cuda_internal.h"

#include <cooperative_groups.h>

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


/* ---- block reflectors to one vector (the recovery's z = Q~^T a_j) ----------------------------
 * x := H_(p1-1)^T ... H_p0^T x (trans) or H_p0 ... H_(p1-1) x, H_p = I - V_p T_p V_p^T, V_p the
 * unit lower trapezoid in A(i:m, i:i+ib), i = p nb. The cuBLAS path pays about seven launches
 * per panel for a vector (15-35 ms at m = 16384); here one cooperative launch runs all panels,
 * two grid barriers each: every block forms its rows' share of V^T x (a warp per column, lanes
 * along rows: coalesced), then every block sums the shares, applies T or T^T (T^T: a warp per
 * column of T, lanes along its rows; T: a thread per row, consecutive rows), and updates its
 * rows of x (a thread per row: consecutive rows, coalesced). V is read twice per panel, once
 * per phase. Served up to nb = 256 (the device panels' block size). */
constexpr int VT = 256, VNB = 256; /* threads; the largest nb served (else the cuBLAS path) */

__device__ __forceinline__ double vref(const double *A, int64_t lda, int64_t i, int64_t r, int c)
{
    const int64_t d = r - i; /* row within the panel */
    return d > c ? A[r + (i + c) * lda] : (d == c ? 1.0 : 0.0);
}

__global__ void __launch_bounds__(VT) reflect_vec_k(int trans, int64_t m, int64_t k, int64_t nb,
                                                    int64_t p0, int64_t p1, const double *A,
                                                    int64_t lda, const double *T, double *x,
                                                    double *part)
{
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    __shared__ double w[VNB], w2[VNB];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t G = gridDim.x, b = blockIdx.x;
    for (int64_t s = 0; s < p1 - p0; s++) {
        const int64_t p = trans ? p0 + s : p1 - 1 - s;
        const int64_t i = p * nb, mi = m - i;
        const int ib = (int)(k - i < nb ? k - i : nb);
        const int64_t L = (mi + G - 1) / G, r0 = i + b * L, r1 = r0 + L < m ? r0 + L : m;
        /* phase 1: part[b][c] = sum over rows r0 .. r1-1 of V(r, c) x(r) */
        for (int c = warp; c < ib; c += VT / 32) {
            /* four rows per lane in flight (the loads, not the adds, are the latency) */
            double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
            for (int64_t r = r0 + lane; r < r1; r += 128) {
                a0 += vref(A, lda, i, r, c) * __ldcg(x + r);
                if (r + 32 < r1) a1 += vref(A, lda, i, r + 32, c) * __ldcg(x + r + 32);
                if (r + 64 < r1) a2 += vref(A, lda, i, r + 64, c) * __ldcg(x + r + 64);
                if (r + 96 < r1) a3 += vref(A, lda, i, r + 96, c) * __ldcg(x + r + 96);
            }
            double acc = (a0 + a1) + (a2 + a3);
            for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
            if (lane == 0) part[b * VNB + c] = acc;
        }
        grid.sync();
        /* phase 2: w = sum of the shares (every block), then
         * trans: H^T x = x - V T^T (V^T x), w2 = T^T w, w2[c] = sum_{r <= c} T(r, c) w[r];
         * else:  H x = x - V T (V^T x),     w2 = T w,   w2[r] = sum_{c >= r} T(r, c) w[c] */
        for (int c = warp; c < ib; c += VT / 32) {
            double acc = 0.0;
            for (int64_t q = lane; q < G; q += 32) acc += __ldcg(part + q * VNB + c);
            for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
            if (lane == 0) w[c] = acc;
        }
        __syncthreads();
        const double *Tp = T + p * nb * nb; /* ib x ib upper triangular, ld nb */
        if (trans) {
            for (int c = warp; c < ib; c += VT / 32) {
                double acc = 0.0;
                for (int r = lane; r <= c; r += 32) acc += Tp[r + (int64_t)c * nb] * w[r];
                for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
                if (lane == 0) w2[c] = acc;
            }
        } else {
            for (int r = tid; r < ib; r += VT) {
                double acc = 0.0;
                for (int c = r; c < ib; c++) acc += Tp[r + (int64_t)c * nb] * w[c];
                w2[r] = acc;
            }
        }
        __syncthreads();
        /* phase 3: x(r) -= sum_c V(r, c) w2[c], rows r0 .. r1-1 */
        for (int64_t r = r0 + tid; r < r1; r += VT) {
            double acc = 0.0, acc2 = 0.0;
#pragma unroll 8
            for (int c = 0; c < ib; c += 2) {
                acc += vref(A, lda, i, r, c) * w2[c];
                if (c + 1 < ib) acc2 += vref(A, lda, i, r, c + 1) * w2[c + 1];
            }
            acc += acc2;
            x[r] = __ldcg(x + r) - acc; /* through L2: other blocks wrote x before */
        }
        grid.sync();
    }
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


/* NULL-free: *done = 0 where the kernel cannot serve (nb > 256, no cooperative launch) */
static int c_reflect_vec(ft_queue_t *q, int trans, int64_t m, int64_t k, int64_t nb, int64_t p0,
                         int64_t p1, const double *A, int64_t lda, const double *T, double *x,
                         int *done)
{
    *done = 0;
    if (p1 <= p0 || m <= 0) {
        *done = 1;
        return FT_SUCCESS;
    }
    if (nb > VNB) return FT_SUCCESS;
    int dev, coop = 0, sms = 0, per = 0;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, reflect_vec_k, VT, 0));
    if (!coop || per < 1) return FT_SUCCESS;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    int64_t grid = (int64_t)sms; /* one block per multiprocessor: the barriers stay cheap */
    const int64_t rows = (m + 31) / 32; /* no more blocks than 32-row chunks */
    if (grid > rows) grid = rows;
    double *part = NULL;
    FT_CHECK(ftla_cuda_queue_scratch(q, (size_t)grid * VNB * sizeof(double), (void **)&part));
    void *args[] = {&trans, &m, &k, &nb, &p0, &p1, (void *)&A, &lda, (void *)&T, &x, &part};
    const cudaError_t e = cudaLaunchCooperativeKernel((const void *)reflect_vec_k,
                                                      dim3((unsigned)grid), dim3(VT), args, 0, st);
    FTLA_CUDA_TRY(e);
    *done = 1;
    return FT_SUCCESS;
}

static const qr_solve_kernels_t s_cuda = {"cuda", c_rot, c_transpose, c_scale, c_reflect_vec};

const qr_solve_kernels_t *qr_solve_kernels_cuda(void) { return &s_cuda; }

} /* extern "C" */
