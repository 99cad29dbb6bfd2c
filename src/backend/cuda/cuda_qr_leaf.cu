/*
 * cuda_qr_leaf.cu — one leaf of the recursive device panel (issue 10, docs/qr.md "Panel
 * placement"): the Householder QR of an m x n block (n <= FT_QR_LEAF_MAX) in one cooperative
 * kernel, the block held in shared memory from the first column to the last.
 *
 * G blocks (at most one per multiprocessor) each own R consecutive rows of the leaf and keep
 * them, all n columns, in shared memory. Column j takes one grid-wide step where it can:
 *   - its reflector is known on entry (below). Each block scales its rows of x into v and
 *     forms its part of d_c = v^T A(:, c) for every other column c (for c < j, A(:, c) below
 *     row c is v_c: d_c = v_c^T v_j, what T needs) and, for the next column x = A(j+2:m, j+1)
 *     as it is before the update, of sum x^2, sum x v, sum v^2 and max |x|; the owners of rows
 *     j + 1 post A(j+1, j+1) and v(j+1); grid sync; every block sums the G parts in the same
 *     fixed order (so all compute the same bits), updates its rows of the columns right of j,
 *     A(:, c) -= tau v d_c, and forms the next column's reflector from ||x'||^2 = sum x^2 -
 *     2 tau d sum x v + (tau d)^2 sum v^2 (x' = x - tau d v, d = d_{j+1}) and
 *     A'(j+1, j+1) = A(j+1, j+1) - tau v(j+1) d, as LAPACK's dlarfg: beta = -sign(alpha)
 *     hypot(alpha, ||x||), the rescaling by 1/safmin while |beta| < safmin (at most 20
 *     times), tau = (beta - alpha) / beta, v = x / (alpha - beta); ||x|| = 0 gives tau = 0;
 *   - where that formula could lose accuracy (cancellation: the result below half the sum of
 *     its terms' sizes; max |x| outside [2^-500, 2^500]; always for column 0), the norm is
 *     recomputed from the updated column first: each block's part of sum x^2 and max |x|,
 *     grid sync, ||x|| = sqrt(sum), or where max |x| is outside [2^-500, 2^500] (data near
 *     overflow or underflow, as dnrm2 guards against) a second round with x scaled by the
 *     power of two of max |x| (exact): one or two grid syncs more for that column.
 * Block 0 keeps d(0:j) and tau, and forms T at the end as dlarft: T(0:j, j) = -tau_j
 * T(0:j, 0:j) d(0:j), T(j, j) = tau_j (by rows, in parallel). So n columns cost n grid syncs
 * for data whose columns are not nearly dependent (2n at most otherwise) and no pass over
 * global memory but the first read and the last write; the parts go through a small work area
 * (two sets, by the column's parity, so that a block writing the next column's parts never
 * overwrites what a slower block still reads; read with __ldcg: L1 is not coherent between
 * blocks). Every sum is in a fixed order: the result is the same bits on every run.
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
/* The work area: two sets (by the parity of the column), each NS entries x MAXG blocks (entry
 * e of block k at e MAXG + k: a warp reads 32 blocks' e at once): [0, LW) the dots; LW + 0 ...
 * LW + 3 the next column's sum x v, sum x^2, sum v^2 and max |x|; then, for a recomputed norm,
 * LW + 4 ... LW + 6: sum x^2, max |x|, scaled sum x^2. After the two sets, 3 LW posted values. */
constexpr int NS = LW + 4;         /* the entries reduced after the dots */
constexpr int NE = LW + 7;
constexpr int MAXG = 1024;         /* most blocks */
constexpr int NX = 5;              /* the per-row sums of the dots phase: d, x v, x^2, v^2, max */
constexpr int NQ = (NS + 7) / 8;   /* the entries a warp reduces */
constexpr int U = 4;               /* rows a lane takes at once */
static_assert(LW == 32, "a warp's lanes index the leaf's columns");

/* Measurement hook (bench/NOTES.md): built with -DFTLA_LEAF_PROF, block 0's thread 0 adds the
 * clock cycles of each phase of a column to ftla_leaf_prof[phase]. */
#ifdef FTLA_LEAF_PROF
__device__ unsigned long long ftla_leaf_prof[16];
#define LEAF_MARK(i)                                                                               \
    do {                                                                                           \
        if (b == 0 && t == 0) {                                                                    \
            const long long c_ = clock64();                                                        \
            atomicAdd(&ftla_leaf_prof[i], (unsigned long long)(c_ - c_last));                     \
            c_last = c_;                                                                           \
        }                                                                                          \
    } while (0)
#else
#define LEAF_MARK(i) (void)0
#endif

struct leaf_args {
    int64_t m, lda, ldv, ldt;
    int n, R, L, vz; /* L: the shared copy's leading dimension (odd: no bank conflicts by column) */
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

/* A warp: the sum (or the max, when mx) of the G blocks' entry e of the set at base into every
 * lane, a fixed order. */
__device__ __forceinline__ double grid_reduce(const double *base, int G, int e, bool mx)
{
    const int lane = threadIdx.x & 31;
    double s = 0.0;
    for (int k = lane; k < G; k += 32) {
        const double x = __ldcg(base + (int64_t)e * MAXG + k);
        s = mx ? fmax(s, x) : s + x;
    }
    for (int o = 16; o > 0; o >>= 1) {
        const double y = __shfl_xor_sync(0xffffffffu, s, o);
        s = mx ? fmax(s, y) : s + y;
    }
    return s;
}

/* Rows r, r + NWP, ... (U of them) of v_j (1 at row j) and of column c, zeros past the block's
 * nr rows: loaded together (a column's cost is latency, not arithmetic). */
__device__ __forceinline__ void rows_vx(const double *sm, int L, int r, int nr, int64_t r0, int j,
                                        int c, double *v, double *x)
{
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int rr = r + u * NWP;
        v[u] = rr < nr ? (r0 + rr == j ? 1.0 : sm[rr + j * L]) : 0.0;
        x[u] = rr < nr ? sm[rr + c * L] : 0.0;
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

/* The reflector of [alpha; x], ||x|| = xr 2^ex, as LAPACK's dlarfg: sr = tau, beta, x's
 * rescaling, 1 / (alpha - beta) (one thread; the same bits in every block). */
__device__ void reflector(double alpha, double xr, int ex, double *sr)
{
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

__global__ void __launch_bounds__(NT) qr_leaf_k(leaf_args a)
{
    extern __shared__ double sm[]; /* the block's R x n rows, column-major, ld L */
    __shared__ double sx[NWP][LW]; /* the warps' parts of the dots */
    __shared__ double sxe[NX - 1][NWP]; /* and of the next column's sums (its lane's) */
    __shared__ double sw[NS];      /* the dots of this column, the next column's sums */
    __shared__ double sp[2 * NWP]; /* the warps' sums and maxima */
    __shared__ double sg[2];       /* the grid's sum and max */
    __shared__ double sY[LW * LW]; /* block 0: column j holds v_l^T v_j, l < j; T at the end */
    __shared__ double sTau[LW];
    __shared__ double sr[5];       /* tau, beta, x's rescaling, 1 / (alpha - beta), next known */
    cg::grid_group grid = cg::this_grid();
    const int b = blockIdx.x, G = gridDim.x, t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int n = a.n, R = a.R, L = a.L;
    const int64_t r0 = (int64_t)b * R;
    const int nr = (int)(a.m - r0 < R ? a.m - r0 : R);
    for (int c = 0; c < n; c++)
        for (int r = t; r < nr; r += NT) sm[r + c * L] = a.A[r0 + r + c * a.lda];
    /* posted by the owners of rows: [0, LW) A(j, j) for a recomputed norm, [LW, 2 LW) A(j, j)
     * before the update by column j - 1, [2 LW, 3 LW) v_{j-1}(j) */
    double *post = a.part + (int64_t)2 * NE * MAXG;
    int known = 0; /* column j's reflector is in sr (the same in every block) */
    __syncthreads();
#ifdef FTLA_LEAF_PROF
    long long c_last = clock64();
#endif

    for (int j = 0; j < n; j++) {
        const double *set = a.part + (int64_t)(j & 1) * NE * MAXG;
        double *part = a.part + (int64_t)(j & 1) * NE * MAXG + b; /* entry e at e MAXG */
        if (!known) {
            /* ||x||, x = A(j+1:m, j), from the column as it is: each block's part of sum x^2
             * and max |x|, A(j, j) from its owner; grid sync; every block sums the G parts in
             * the same fixed order: ||x|| = sqrt(sum) where max |x| is in [2^-500, 2^500], else
             * (data near overflow or underflow, as dnrm2 guards against) a second round with x
             * scaled by the power of two of max |x| (exact). Every block takes the same branch. */
            double ss = 0.0, mx = 0.0;
            for (int r = t; r < nr; r += NT)
                if (r0 + r > j) {
                    const double x = sm[r + j * L];
                    ss = fma(x, x, ss);
                    mx = fmax(mx, fabs(x));
                }
            block_sum_max(ss, &mx, sp);
            if (t == 0) {
                part[(LW + 4) * MAXG] = ss, part[(LW + 5) * MAXG] = mx;
                if (j >= r0 && j < r0 + nr) post[j] = sm[(j - r0) + j * L];
            }
            grid.sync();
            if (warp < 2) {
                const double x = grid_reduce(set, G, LW + 4 + warp, warp == 1);
                if (lane == 0) sg[warp] = x;
            }
            __syncthreads();
            double S = sg[0];
            int ex = 0;
            const double M = sg[1];
            if (M != 0.0 && M <= DBL_MAX && (M < 0x1p-500 || M > 0x1p500)) {
                frexp(M, &ex);
                double s2 = 0.0;
                for (int r = t; r < nr; r += NT)
                    if (r0 + r > j) {
                        const double y = ldexp(sm[r + j * L], -ex);
                        s2 = fma(y, y, s2);
                    }
                block_sum_max(s2, NULL, sp);
                if (t == 0) part[(LW + 6) * MAXG] = s2;
                grid.sync();
                if (warp == 0) {
                    s2 = grid_reduce(set, G, LW + 6, false);
                    if (lane == 0) sg[0] = s2;
                }
                __syncthreads();
                S = sg[0];
            }
            if (t == 0) reflector(__ldcg(post + j), sqrt(S), ex, sr);
        }
        __syncthreads();
        LEAF_MARK(0);
        const double tau = sr[0], f = sr[2], rcp = sr[3];
        for (int r = t; r < nr; r += NT)
            if (r0 + r > j) sm[r + j * L] = (sm[r + j * L] * f) * rcp;
        __syncthreads();
        LEAF_MARK(1);

        /* this block's part of d_c = v^T A(:, c), c != j (v(j) = 1, zero above; for c < j,
         * A(:, c) below row c is v_c: d_c = v_c^T v_j, what T needs), and of the next column
         * x = A(j+2:m, j+1) as it is before this column's update: sum x v, sum x^2, sum v^2,
         * max |x| (its norm after the update follows from them, below). Lane c of every warp
         * takes column c, the warps the rows in turn; then the 8 warps' parts in order. */
        {
            const int c = lane;
            double d = 0.0, xv = 0.0, xx = 0.0, vv = 0.0, mx = 0.0;
            if (c < n && c != j) {
                const int rb = (int)(j - r0 > 0 ? j - r0 : 0); /* the first row at or below j */
                /* U rows at a time, their loads issued together (latency, not arithmetic, is
                 * what a column costs); the sums still in the order of the rows */
                for (int r = rb + warp; r < nr; r += U * NWP) {
                    double v[U], x[U];
                    rows_vx(sm, L, r, nr, r0, j, c, v, x);
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        d = fma(v[u], x[u], d);
                        if (r0 + r + u * NWP > j + 1) {
                            xv = fma(x[u], v[u], xv), xx = fma(x[u], x[u], xx);
                            vv = fma(v[u], v[u], vv), mx = fmax(mx, fabs(x[u]));
                        }
                    }
                }
            }
            sx[warp][c] = d;
            if (c == j + 1) sxe[0][warp] = xv, sxe[1][warp] = xx, sxe[2][warp] = vv, sxe[3][warp] = mx;
        }
        __syncthreads();
        if (t < n && t != j) {
            double s = 0.0;
            for (int w = 0; w < NWP; w++) s += sx[w][t];
            part[t * MAXG] = s;
        } else if (t >= LW && t < LW + 4 && j + 1 < n) {
            const int e = t - LW;
            double s = 0.0;
            for (int w = 0; w < NWP; w++) s = e == 3 ? fmax(s, sxe[e][w]) : s + sxe[e][w];
            part[t * MAXG] = s;
        }
        if (t == 0) {
            const int64_t j1 = j + 1;
            if (j1 < n && j1 >= r0 && j1 < r0 + nr)
                post[LW + j1] = sm[(j1 - r0) + j1 * L], post[2 * LW + j1] = sm[(j1 - r0) + j * L];
        }
        LEAF_MARK(2);
        grid.sync();
        LEAF_MARK(3);
        /* thread 0's A(j+1, j+1) and v(j+1) on their way while the parts are summed */
        double a11 = 0.0, v1 = 0.0;
        if (t == 0 && j + 1 < n) a11 = __ldcg(post + LW + j + 1), v1 = __ldcg(post + 2 * LW + j + 1);
        if (t == 0 && j >= r0 && j < r0 + nr) sm[(j - r0) + j * L] = sr[1]; /* beta: R(j, j) */

        /* every block sums the parts in the same fixed order: warp w the entries w, w + 8, ... */
        {
            double acc[NQ];
#pragma unroll
            for (int q = 0; q < NQ; q++) acc[q] = 0.0;
#pragma unroll 4
            for (int k = lane; k < G; k += 32) {
                double x[NQ];
#pragma unroll
                for (int q = 0; q < NQ; q++) {
                    const int e = warp + q * NWP;
                    const bool need = e < LW ? e < n && e != j : e < NS && j + 1 < n;
                    x[q] = need ? __ldcg(set + (int64_t)e * MAXG + k) : 0.0;
                }
#pragma unroll
                for (int q = 0; q < NQ; q++)
                    acc[q] = warp + q * NWP == LW + 3 ? fmax(acc[q], x[q]) : acc[q] + x[q];
            }
#pragma unroll
            for (int q = 0; q < NQ; q++) {
                const bool mx = warp + q * NWP == LW + 3;
                for (int o = 16; o > 0; o >>= 1) {
                    const double y = __shfl_down_sync(0xffffffffu, acc[q], o);
                    acc[q] = mx ? fmax(acc[q], y) : acc[q] + y;
                }
                if (lane == 0 && warp + q * NWP < NS) sw[warp + q * NWP] = acc[q];
            }
        }
        __syncthreads();
        LEAF_MARK(4);
        /* the update of the columns right of j: A(:, c) -= tau v d_c, lane c, the warps the rows */
        if (tau != 0.0 && lane > j && lane < n) {
            const int c = lane;
            const double dc = sw[c];
            const int rb = (int)(j - r0 > 0 ? j - r0 : 0);
            for (int r = rb + warp; r < nr; r += U * NWP) {
                double v[U], x[U];
                rows_vx(sm, L, r, nr, r0, j, c, v, x);
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (r + u * NWP < nr) sm[r + u * NWP + c * L] = fma(-(tau * v[u]), dc, x[u]);
            }
        }
        if (b == 0) {
            if (t < j) sY[t + j * LW] = sw[t];
            else if (t == j) sTau[j] = tau, a.tau[j] = tau;
        }
        LEAF_MARK(5);
        /* The next column's reflector without another grid sync: x' = x - tau d v below its
         * diagonal (d = d_{j+1}), so ||x'||^2 = xx - 2 tau d xv + (tau d)^2 vv, and its
         * A(j+1, j+1) = a - tau v(j+1) d as the owner's update forms it. Taken where that is
         * as accurate as the sum itself: max |x| in [2^-500, 2^500] (no overflow, no harmful
         * underflow: |v| <= 1, tau <= 2) and no cancellation (the result at least half the sum
         * of its terms' sizes, so its error is a few units of rounding). Else (a column close
         * to the span of the last vector, a zero column, data near the limits of the range)
         * the norm is recomputed from the updated column at the top of the next step, as
         * LAPACK's dlaqp2 does for its downdated norms. */
        if (t == 0) {
            sr[4] = 0.0;
            if (j + 1 < n) {
                const double d = sw[j + 1], xv = sw[LW], xx = sw[LW + 1], vv = sw[LW + 2];
                const double M = sw[LW + 3], td = tau * d;
                const double al = tau != 0.0 ? fma(-(tau * v1), d, a11) : a11;
                const double res = fma(td, fma(td, vv, -2.0 * xv), xx);
                const double E = xx + fabs(2.0 * td * xv) + td * td * vv;
                if (M >= 0x1p-500 && M <= 0x1p500 && isfinite(al) && isfinite(E) &&
                    res >= 0.5 * E) {
                    reflector(al, sqrt(res), 0, sr);
                    sr[4] = 1.0;
                }
            }
        }
        LEAF_MARK(6);
        __syncthreads();
        LEAF_MARK(7);
        known = sr[4] != 0.0;
    }

    /* T (block 0) in place of Y, a column at a time as dlarft's T(0:j, j) = -tau_j T(0:j, 0:j)
     * Y(0:j, j): thread i forms T(i, j) from its row's earlier entries (already T) and column
     * j of Y (still Y until all have read it) */
    if (b == 0) {
        if (t == 0) sY[0] = sTau[0];
        for (int j = 1; j < n; j++) {
            double s = 0.0;
            if (t < j)
                for (int l = t; l < j; l++) s = fma(sY[t + l * LW], sY[l + j * LW], s);
            __syncthreads();
            if (t < j) sY[t + j * LW] = sTau[j] == 0.0 ? 0.0 : -sTau[j] * s;
            else if (t == j) sY[j + j * LW] = sTau[j];
            __syncthreads();
        }
    }
    __syncthreads();

    for (int c = 0; c < n; c++)
        for (int r = t; r < nr; r += NT) {
            const int64_t gr = r0 + r;
            const double x = sm[r + c * L];
            a.A[gr + c * a.lda] = x;
            a.V[gr + c * a.ldv] = gr < c ? 0.0 : gr == c ? 1.0 : x;
        }
    if (b == 0) {
        for (int c = 0; c < n; c++)
            for (int r = t; r < a.vz; r += NT) a.V[r - a.vz + c * a.ldv] = 0.0;
        for (int e = t; e < n * n; e += NT) {
            const int i = e % n, c = e / n;
            a.T[i + c * a.ldt] = i <= c ? sY[i + c * LW] : 0.0;
        }
    }
}

} // namespace

/* The rows a block is given for a leaf of m rows (nsm multiprocessors): up to 16384 rows
 * m / 64 within [128, 256] (64 blocks or fewer), taller one block a multiprocessor. Measured on
 * the H100 (bench/NOTES.md, issue 10 session 4): the sums every block reads cost more with
 * more blocks, a block's own rows cost more with more rows, and in the factorization (beside
 * the trailing update) 64 blocks ran the 16384^2 QR's panels fastest, all 132 the panels of
 * 32768 x 8192 (96 ... 128 blocks of 256 rows there: 25 % slower). FTLA_QR_LEAF_ROWS (read
 * once; for measurements) sets the rows instead. */
static int64_t leaf_rows(int64_t m, int nsm)
{
    static int64_t env = -1;
    if (env < 0) {
        const char *e = getenv("FTLA_QR_LEAF_ROWS");
        char *end = NULL;
        const long long v = e && *e ? strtoll(e, &end, 10) : 0;
        env = e && *e && end && *end == '\0' && v >= 32 && v <= 65536 ? (int64_t)v : 0;
    }
    if (env > 0) return env;
    if (m > 64 * 256) return (m + nsm - 1) / nsm;
    const int64_t r = (m + 63) / 64;
    return r < 128 ? 128 : r > 256 ? 256 : r;
}

extern "C" {

/* The work area's size (bytes) for leaves of up to m rows. */
size_t ftla_cuda_qr_leaf_work(void) { return ((size_t)2 * NE * MAXG + 3 * LW) * sizeof(double); }

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
    const int64_t R0 = leaf_rows(m, nsm);
    int64_t G = (m + R0 - 1) / R0;
    if (G > nsm) G = nsm;
    if (G > MAXG) G = MAXG;
    const int64_t R = (m + G - 1) / G;
    G = (m + R - 1) / R; /* every block has rows */
    const int64_t L = R | 1;
    const size_t smem = (size_t)L * (size_t)n * sizeof(double);
    if (smem > dyn_max || (dev >= 64 && smem > 48 * 1024)) return FT_BE_DECLINED;
    int per = 0;
    FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, qr_leaf_k, NT, smem));
    if ((int64_t)per * nsm < G) return FT_BE_DECLINED;
    leaf_args a = {m, lda, ldv, ldt, (int)n, (int)R, (int)L, (int)vz, A, tau, V, T, (double *)work};
    void *args[] = {&a};
    FTLA_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)qr_leaf_k, dim3((unsigned)G),
                                              dim3(NT), args, smem, s));
    return FT_SUCCESS;
}

} /* extern "C" */
