/*
 * cuda_qr_leaf.cu — one leaf of the recursive device panel (issue 10, docs/qr.md "Panel
 * placement"): the Householder QR of an m x n block (n <= FT_QR_LEAF_MAX) in one cooperative
 * kernel, the block held in shared memory from the first column to the last.
 *
 * G blocks (at most one per multiprocessor) each own R consecutive rows of the leaf and keep
 * them, all n columns, in shared memory. Column j takes two grid-wide steps:
 *   1. each block's part of sum x^2 and max |x| over x = A(j+1:m, j), and the owner of row j
 *      its A(j, j); grid sync; every block sums the G parts in the same fixed order (so all
 *      compute the same bits): ||x|| = sqrt(sum) where max |x| lies in [2^-500, 2^500], else
 *      (data near overflow or underflow, as dnrm2 guards against) a second round with x
 *      scaled by the power of two of max |x|; and forms the reflector as LAPACK's dlarfg: beta = -sign(alpha)
 *      hypot(alpha, ||x||), the rescaling by 1/safmin while |beta| < safmin (at most 20
 *      times), tau = (beta - alpha) / beta, v = x / (alpha - beta); ||x|| = 0 gives tau = 0;
 *   2. each block's part of d_c = v^T A(:, c) for every other column c (for c < j, A(:, c)
 *      below row c is v_c: d_c = v_c^T v_j, what T needs); grid sync; every block sums the G
 *      parts of each d_c in a fixed order and updates its rows of the columns right of j:
 *      A(:, c) -= tau v d_c; block 0 keeps d(0:j) and tau, and forms T at the end as
 *      dlarft: T(0:j, j) = -tau_j T(0:j, 0:j) d(0:j), T(j, j) = tau_j (by rows, in parallel).
 * So n columns cost 2n grid syncs and no pass over global memory but the first read and the
 * last write; the parts go through a small work area (read with __ldcg: L1 is not coherent
 * between blocks). Every sum is in a fixed order: the result is the same bits on every run.
 * The leaf writes A (R above the diagonal, the vectors below, dgeqrf layout), tau, V (zeros
 * in the vz rows above the leaf and above the diagonal, the unit diagonal, the vectors) and T
 * (n x n, zeros below the diagonal).
 */
#include "backend/cuda/cuda_internal.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr int NT = 256;            /* threads per block */
constexpr int NWP = NT / 32;       /* warps per block */
constexpr int LW = FT_QR_LEAF_MAX; /* the widest leaf */
constexpr int PS = LW + 3; /* a block's slot in the work area: sum x^2, max |x|, the n dots, a
                             * scaled sum x^2 */
constexpr int MAXG = 1024;         /* most blocks (the work area is sized for it) */
constexpr int RMIN = 128;          /* fewest rows a block is given (fewer blocks: cheaper syncs) */
static_assert(LW == 32, "a warp's lanes index the leaf's columns");

struct leaf_args {
    int64_t m, lda, ldv, ldt;
    int n, R, vz;
    double *A, *tau, *V, *T, *part;
};

/* The block's sum of ss (and max of mx, when mx is not NULL) into thread 0's; sp: 2 NWP doubles
 * of shared memory; a fixed order of the additions. */
__device__ __forceinline__ void block_sum_max(double &ss, double *mx, double *sp)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) {
        ss += __shfl_down_sync(0xffffffffu, ss, o);
        if (mx) *mx = fmax(*mx, __shfl_down_sync(0xffffffffu, *mx, o));
    }
    if (lane == 0) sp[2 * warp] = ss, sp[2 * warp + 1] = mx ? *mx : 0.0;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < NWP; w++) {
            ss += sp[2 * w];
            if (mx) *mx = fmax(*mx, sp[2 * w + 1]);
        }
}

/* Warp 0: the sum (and max) of the G blocks' slot entries at offset o (and o + 1) into lane
 * 0's, a fixed order. */
__device__ __forceinline__ void grid_sum_max(const double *part, int G, int o, double &ss,
                                             double *mx)
{
    const int lane = threadIdx.x & 31;
    ss = 0.0;
    if (mx) *mx = 0.0;
    for (int k = lane; k < G; k += 32) {
        ss += __ldcg(part + (int64_t)k * PS + o);
        if (mx) *mx = fmax(*mx, __ldcg(part + (int64_t)k * PS + o + 1));
    }
    for (int s = 16; s > 0; s >>= 1) {
        ss += __shfl_down_sync(0xffffffffu, ss, s);
        if (mx) *mx = fmax(*mx, __shfl_down_sync(0xffffffffu, *mx, s));
    }
}

/* LAPACK's dlapy2: sqrt(x^2 + y^2) without overflow. */
__device__ __forceinline__ double lapy2(double x, double y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    const double a = fabs(x), b = fabs(y), w = fmax(a, b), z = fmin(a, b);
    if (z == 0.0 || w > DBL_MAX) return w;
    const double q = z / w;
    return w * sqrt(1.0 + q * q);
}

__global__ void __launch_bounds__(NT) qr_leaf_k(leaf_args a)
{
    extern __shared__ double sm[]; /* the block's R x n rows, column-major, ld R */
    __shared__ double sT[LW * LW]; /* T (block 0) */
    __shared__ double sd[NWP][LW]; /* the dots' parts while they are summed */
    __shared__ double sw[LW];      /* the dots of this column */
    __shared__ double sp[2 * NWP]; /* the warps' sums and maxima */
    __shared__ double sg[2];       /* the grid's sum and max */
    __shared__ double sY[LW * LW]; /* block 0: column j holds v_l^T v_j, l < j */
    __shared__ double sTau[LW];
    __shared__ double sr[4];       /* tau, beta, x's rescaling, 1 / (alpha - beta) */
    cg::grid_group grid = cg::this_grid();
    const int b = blockIdx.x, G = gridDim.x, t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int n = a.n, R = a.R;
    const int64_t r0 = (int64_t)b * R;
    const int nr = (int)(a.m - r0 < R ? a.m - r0 : R);
    for (int c = 0; c < n; c++)
        for (int r = t; r < nr; r += NT) sm[r + c * R] = a.A[r0 + r + c * a.lda];
    double *part = a.part + (int64_t)b * PS, *alph = a.part + (int64_t)G * PS;
    __syncthreads();

    for (int j = 0; j < n; j++) {
        /* 1. this block's part of sum x^2 and max |x|, x = A(j+1:m, j); A(j, j) from its owner */
        double ss = 0.0, mx = 0.0;
        for (int r = t; r < nr; r += NT)
            if (r0 + r > j) {
                const double x = sm[r + j * R];
                ss = fma(x, x, ss);
                mx = fmax(mx, fabs(x));
            }
        block_sum_max(ss, &mx, sp);
        if (t == 0) {
            part[0] = ss, part[1] = mx;
            if (j >= r0 && j < r0 + nr) alph[j] = sm[(j - r0) + j * R];
        }
        grid.sync();
        if (warp == 0) {
            grid_sum_max(a.part, G, 0, ss, &mx);
            if (lane == 0) sg[0] = ss, sg[1] = mx;
        }
        __syncthreads();
        /* ||x|| = sqrt(S) 2^ex: the plain sum where max |x| is in [2^-500, 2^500] (no overflow,
         * no underflow that matters); else the sum of (x 2^-e)^2, e the exponent of max |x|
         * (exact scaling), in a second round. Every block takes the same branch. */
        double S = sg[0];
        int ex = 0;
        const double M = sg[1];
        if (M != 0.0 && M <= DBL_MAX && (M < 0x1p-500 || M > 0x1p500)) {
            frexp(M, &ex);
            double s2 = 0.0;
            for (int r = t; r < nr; r += NT)
                if (r0 + r > j) {
                    const double y = ldexp(sm[r + j * R], -ex);
                    s2 = fma(y, y, s2);
                }
            block_sum_max(s2, NULL, sp);
            if (t == 0) part[2 + LW] = s2;
            grid.sync();
            if (warp == 0) {
                grid_sum_max(a.part, G, 2 + LW, s2, NULL);
                if (lane == 0) sg[0] = s2;
            }
            __syncthreads();
            S = sg[0];
        }

        /* the reflector, the same bits in every block */
        if (t == 0) {
            const double alpha = __ldcg(alph + j), xr = sqrt(S);
            double xn = ldexp(xr, ex), tau = 0.0, beta = alpha, f = 1.0, rcp = 1.0;
            if (xn != 0.0) {
                const double safmin = DBL_MIN / (DBL_EPSILON * 0.5), rs = 1.0 / safmin;
                double al = alpha;
                beta = -copysign(lapy2(al, xn), al);
                int knt = 0;
                if (fabs(beta) < safmin) {
                    do {
                        knt++, f *= rs, beta *= rs, al *= rs;
                    } while (fabs(beta) < safmin && knt < 20);
                    xn = ldexp(xr, ex + 969 * knt); /* rs = 2^969 */
                    beta = -copysign(lapy2(al, xn), al);
                }
                tau = (beta - al) / beta;
                rcp = 1.0 / (al - beta); /* x rescaled first: f rcp may overflow */
                for (int k = 0; k < knt; k++) beta *= safmin;
            }
            sr[0] = tau, sr[1] = beta, sr[2] = f, sr[3] = rcp;
        }
        __syncthreads();
        const double tau = sr[0], f = sr[2], rcp = sr[3];
        for (int r = t; r < nr; r += NT)
            if (r0 + r > j) sm[r + j * R] = (sm[r + j * R] * f) * rcp;
        __syncthreads();

        /* 2. this block's part of d_c = v^T A(:, c), c != j (v(j) = 1, zero above) */
        for (int c = warp; c < n; c += NWP) {
            if (c == j) continue;
            double d = 0.0;
            for (int r = lane; r < nr; r += 32) {
                const int64_t gr = r0 + r;
                if (gr >= j) d = fma(gr == j ? 1.0 : sm[r + j * R], sm[r + c * R], d);
            }
            for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(0xffffffffu, d, o);
            if (lane == 0) part[2 + c] = d;
        }
        if (t == 0 && j >= r0 && j < r0 + nr) sm[(j - r0) + j * R] = sr[1]; /* beta: R(j, j) */
        grid.sync();

        {
            const int c = lane, k0 = warp;
            double s = 0.0;
            if (c < n && c != j)
                for (int k = k0; k < G; k += NWP) s += __ldcg(a.part + (int64_t)k * PS + 2 + c);
            sd[k0][c] = s;
        }
        __syncthreads();
        if (t < n) {
            double s = 0.0;
            for (int k = 0; k < NWP; k++) s += sd[k][t];
            sw[t] = s;
        }
        __syncthreads();
        if (tau != 0.0)
            for (int r = t; r < nr; r += NT) {
                const int64_t gr = r0 + r;
                if (gr < j) continue;
                const double tv = tau * (gr == j ? 1.0 : sm[r + j * R]);
                for (int c = j + 1; c < n; c++) sm[r + c * R] = fma(-tv, sw[c], sm[r + c * R]);
            }
        if (b == 0) {
            if (t < j) sY[t + j * LW] = sw[t];
            else if (t == j) sTau[j] = tau, a.tau[j] = tau;
        }
        __syncthreads();
    }

    /* T (block 0), by rows as dlarft's T(0:j, j) = -tau_j T(0:j, 0:j) Y(0:j, j): row i needs
     * only its own earlier entries */
    if (b == 0 && t < n) {
        const int i = t;
        sT[i + i * LW] = sTau[i];
        for (int j = i + 1; j < n; j++) {
            double s = 0.0;
            for (int l = i; l < j; l++) s = fma(sT[i + l * LW], sY[l + j * LW], s);
            sT[i + j * LW] = sTau[j] == 0.0 ? 0.0 : -sTau[j] * s;
        }
    }
    __syncthreads();

    for (int c = 0; c < n; c++)
        for (int r = t; r < nr; r += NT) {
            const int64_t gr = r0 + r;
            const double x = sm[r + c * R];
            a.A[gr + c * a.lda] = x;
            a.V[gr + c * a.ldv] = gr < c ? 0.0 : gr == c ? 1.0 : x;
        }
    if (b == 0) {
        for (int c = 0; c < n; c++)
            for (int r = t; r < a.vz; r += NT) a.V[r - a.vz + c * a.ldv] = 0.0;
        for (int e = t; e < n * n; e += NT) {
            const int i = e % n, c = e / n;
            a.T[i + c * a.ldt] = i <= c ? sT[i + c * LW] : 0.0;
        }
    }
}

} // namespace

extern "C" {

/* The work area's size (bytes) for leaves of up to m rows. */
size_t ftla_cuda_qr_leaf_work(void) { return ((size_t)MAXG * PS + LW) * sizeof(double); }

int ftla_cuda_qr_leaf(cudaStream_t s, int nsm, int64_t m, int64_t n, double *A, int64_t lda,
                      double *tau, double *V, int64_t ldv, int64_t vz, double *T, int64_t ldt,
                      void *work, size_t bytes)
{
    if (n < 1 || n > LW || m < n || vz < 0 || vz > 0x7fffffff) return FT_BE_DECLINED;
    if (bytes < ftla_cuda_qr_leaf_work()) return FT_ERR_INTERNAL;
    int dev, optin;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    static int raised[64];
    cudaFuncAttributes fa;
    FTLA_CUDA_TRY(cudaFuncGetAttributes(&fa, qr_leaf_k));
    const size_t dyn_max = (size_t)optin - fa.sharedSizeBytes;
    if (dev >= 0 && dev < 64 && !raised[dev]) {
        FTLA_CUDA_TRY(cudaFuncSetAttribute(qr_leaf_k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)dyn_max));
        raised[dev] = 1;
    }
    int64_t G = (m + RMIN - 1) / RMIN;
    if (G > nsm) G = nsm;
    if (G > MAXG) G = MAXG;
    const int64_t R = (m + G - 1) / G;
    G = (m + R - 1) / R; /* every block has rows */
    const size_t smem = (size_t)R * (size_t)n * sizeof(double);
    if (smem > dyn_max || (dev >= 64 && smem > 48 * 1024)) return FT_BE_DECLINED;
    int per = 0;
    FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, qr_leaf_k, NT, smem));
    if ((int64_t)per * nsm < G) return FT_BE_DECLINED;
    leaf_args a = {m, lda, ldv, ldt, (int)n, (int)R, (int)vz, A, tau, V, T, (double *)work};
    void *args[] = {&a};
    FTLA_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)qr_leaf_k, dim3((unsigned)G),
                                              dim3(NT), args, smem, s));
    return FT_SUCCESS;
}

} /* extern "C" */
