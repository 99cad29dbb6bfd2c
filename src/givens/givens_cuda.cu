/*
 * givens_cuda.cu — the plane rotations on the cuda backend (givens.h; design in docs/givens.md).
 *
 * "plain": one rotation at a time — a one-thread kernel generates rotation p (dlartg), a second
 * kernel applies it to rows (p, p+1) of every column it touches (one thread per column). Two
 * launches per rotation, every element read and written once per rotation that touches it.
 *
 * "fused" (paper 004 Sec. 5.3): blocks of NB rotations.
 *   - diagonal-block kernel (one thread block, one thread per column of the NB-wide diagonal
 *     block): generates the block's NB rotations with dlartg and applies them to its own columns,
 *     the (NB+1)-row block held in shared memory;
 *   - apply kernel (one thread block per CW columns right of the block): loads the (NB+1) x CW
 *     tile with coalesced reads (consecutive threads, consecutive rows of a column), each thread
 *     then runs its column's chain of NB rotations in shared memory (conflict-free: odd stride),
 *     the rotations themselves staged once per block in shared memory, and the tile is written
 *     back coalesced. Every element is read and written once per block of NB rows.
 *   Hessenberg -> triangular moves down the diagonal (top-down rotations, each one depending on
 *   the previous); vector zeroing + triangular -> Hessenberg moves up (the rotations come from
 *   the vector alone; the diagonal kernel generates them, carrying the partial norm up).
 */
#include "backend/cuda/cuda_internal.h"

#include <cstdio>
#include <cuda_pipeline.h>
#include <cstdlib>
#include <cstring>
#include <ctime>

extern "C" {
#include "givens/givens.h"
}

namespace {

constexpr int NB = 64;     /* rotations per block step */
constexpr int LDS = NB + 1; /* shared-memory column stride (odd: no bank conflicts) */
constexpr int CW = 128;    /* columns per block of the apply kernel (= threads) */
constexpr int PT = 256;    /* threads of the plain kernels */

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---- plain ---------------------------------------------------------------------------------- */

/* hess_to_tri, rotation p: generate from (H(p,p), sub[p]). */
__global__ void plain_gen_h2t(int64_t p, double *R, int64_t ldr, double *sub, double *c,
                              double *s)
{
    double r;
    givens_lartg(R[p + p * ldr], sub[p], &c[p], &s[p], &r);
    R[p + p * ldr] = r;
    sub[p] = 0.0;
}

/* zero_to_hess, rotation p: generate from (x[p], x[p+1]); the fill of column p (if p < n). */
__global__ void plain_gen_z2h(int64_t p, int64_t n, double *x, double *R, int64_t ldr,
                              double *sub, double *c, double *s)
{
    double r, cp, sp;
    givens_lartg(x[p], x[p + 1], &cp, &sp, &r);
    x[p] = r;
    x[p + 1] = 0.0;
    c[p] = cp;
    s[p] = sp;
    if (p < n) {
        const double a = R[p + p * ldr];
        sub[p] = -sp * a;
        R[p + p * ldr] = cp * a;
    }
}

/* rotation p on rows (p, p+1) of columns [j0, n) */
__global__ void plain_apply(int64_t p, int64_t j0, int64_t n, const double *c, const double *s,
                            double *R, int64_t ldr)
{
    const int64_t j = j0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const double cp = c[p], sp = s[p];
    double *a = R + j * ldr;
    const double x = a[p], y = a[p + 1];
    a[p] = sp * y + cp * x;
    a[p + 1] = cp * y - sp * x;
}

/* ---- fused ---------------------------------------------------------------------------------- */

/* Rotations p0 .. p0+nr-1 (rows p0 .. p0+nr) to columns [j0, n): forward (p ascending) or
 * backward. blockDim.x = CW; dynamic shared memory CW * LDS doubles. */
__global__ void __launch_bounds__(CW) fused_apply(int64_t p0, int nr, int fwd, int64_t j0,
                                                  int64_t n, const double *c, const double *s,
                                                  double *R, int64_t ldr)
{
    extern __shared__ double tile[];
    __shared__ double sc[NB], ss[NB];
    const int tid = threadIdx.x;
    const int64_t jb = j0 + (int64_t)blockIdx.x * CW;
    const int ncol = (int)(n - jb < CW ? n - jb : CW);
    const int rows = nr + 1;
    if (tid < nr) {
        sc[tid] = c[p0 + tid];
        ss[tid] = s[p0 + tid];
    }
    for (int idx = tid; idx < rows * ncol; idx += CW) {
        const int cc = idx / rows, rr = idx - cc * rows;
        tile[cc * LDS + rr] = R[(p0 + rr) + (jb + cc) * ldr];
    }
    __syncthreads();
    if (tid < ncol) {
        double *a = tile + tid * LDS;
        if (fwd) {
            double x = a[0];
            for (int t = 0; t < nr; t++) {
                const double y = a[t + 1];
                a[t] = ss[t] * y + sc[t] * x;
                x = sc[t] * y - ss[t] * x;
            }
            a[nr] = x;
        } else {
            double x = a[nr];
            for (int t = nr - 1; t >= 0; t--) {
                const double y = a[t];
                a[t + 1] = sc[t] * x - ss[t] * y;
                x = ss[t] * x + sc[t] * y;
            }
            a[0] = x;
        }
    }
    __syncthreads();
    for (int idx = tid; idx < rows * ncol; idx += CW) {
        const int cc = idx / rows, rr = idx - cc * rows;
        R[(p0 + rr) + (jb + cc) * ldr] = tile[cc * LDS + rr];
    }
}

/* Hessenberg -> triangular, diagonal block: rotations p0 .. p0+nr-1 (nr <= NB), columns
 * p0 .. p0+nr-1 (thread t: column p0+t), rows p0 .. p0+nr. blockDim.x = NB. */
__global__ void __launch_bounds__(NB) fused_diag_h2t(int64_t p0, int nr, double *R, int64_t ldr,
                                                     double *sub, double *c, double *s)
{
    __shared__ double blk[NB * LDS];
    __shared__ double sc[NB], ss[NB];
    const int t = threadIdx.x;
    double *a = blk + t * LDS;
    if (t < nr) {
        const int64_t j = p0 + t;
        for (int r = 0; r <= nr; r++) a[r] = 0.0;
        for (int r = 0; r <= t; r++) a[r] = R[(p0 + r) + j * ldr];
        a[t + 1] = sub[j]; /* t + 1 <= nr: H(j+1, j) */
    }
    __syncthreads();
    for (int i = 0; i < nr; i++) {
        if (t == i) {
            double r;
            givens_lartg(a[i], a[i + 1], &sc[i], &ss[i], &r);
            a[i] = r;
            a[i + 1] = 0.0;
        }
        __syncthreads();
        if (t > i && t < nr) {
            const double x = a[i], y = a[i + 1];
            a[i] = ss[i] * y + sc[i] * x;
            a[i + 1] = sc[i] * y - ss[i] * x;
        }
    }
    __syncthreads();
    if (t < nr) {
        const int64_t j = p0 + t;
        for (int r = 0; r <= t; r++) R[(p0 + r) + j * ldr] = a[r];
        sub[j] = 0.0;
        c[j] = sc[t];
        s[j] = ss[t];
    }
}

/* ---- streaming sweeps (one launch for rotations known in advance) ---------------------------
 * Every column's chain of rotations is independent of the others'. One warp (one block) owns
 * 32 columns (lane = column) and walks its columns' rows in stripes of SH rotations, the carry
 * of each chain in a register between stripes. A stripe is copied into the warp's shared tile
 * with cp.async (consecutive lanes, consecutive rows of one column: coalesced), the next
 * stripe's copy in flight while the lanes run their chains on the current one (double
 * buffering), and the finished rows go back coalesced. Every element is read and written once
 * for the whole sweep (the two-launch steps read it once per block of 64 rotations and pay a
 * launch per block); a few columns (the checksums, one vector) cost a chain of dependent FMAs,
 * the copies hidden behind it.
 *   FWD: rotations p = 0 .. np-1 ascending (dlasr 'F'), the carry moving down from row 0.
 *   !FWD: p = top .. 0 descending (dlasr 'B'), the carry moving up. TRI (zero_to_hess): column j
 *     starts at p = min(j, np-1); at p = j the row below the diagonal is zero: the fill
 *     -s_j a_j goes to sub[j] and the carry is c_j a_j.
 * Columns [0, n) of A (ld lda); blockDim = 32; for TRI the grid runs from the right (the
 * longest columns first). */
constexpr int SH = 64, STL = SH + 1;

template <bool FWD, bool TRI>
__global__ void __launch_bounds__(32) stream_sweep(int64_t np, int64_t n, const double *c,
                                                   const double *s, double *A, int64_t lda,
                                                   double *sub)
{
    __shared__ double tiles[2][32 * STL];
    __shared__ double csb[2][2 * SH];
    const int lane = threadIdx.x;
    const int64_t nblk = (n + 31) / 32;
    const int64_t blk = TRI ? nblk - 1 - (int64_t)blockIdx.x : (int64_t)blockIdx.x;
    const int64_t j0 = blk * 32;
    if (j0 >= n || np <= 0) return;
    const int ncol = (int)(n - j0 < 32 ? n - j0 : 32);
    const int64_t j = j0 + lane;
    const bool act = lane < ncol;
    double *a = A + (act ? j : j0) * lda;
    double x = 0.0;
    if (FWD) {
        /* stripe k: rotations p0 = k SH .. p0+nr-1; rows p0+1 .. p0+nr at offsets 1 .. nr */
        const int64_t nst = (np + SH - 1) / SH;
        auto issue = [&](int64_t k, int b) {
            const int64_t p0 = k * SH;
            const int nr = (int)(np - p0 < SH ? np - p0 : SH);
            for (int t = lane; t < nr; t += 32) {
                __pipeline_memcpy_async(csb[b] + t, c + p0 + t, sizeof(double));
                __pipeline_memcpy_async(csb[b] + SH + t, s + p0 + t, sizeof(double));
            }
            for (int cc = 0; cc < ncol; cc++) {
                const double *ac = A + (j0 + cc) * lda + p0 + 1;
                for (int t = lane; t < nr; t += 32)
                    __pipeline_memcpy_async(tiles[b] + cc * STL + 1 + t, ac + t, sizeof(double));
            }
            __pipeline_commit();
        };
        if (act) x = a[0];
        issue(0, 0);
        for (int64_t k = 0; k < nst; k++) {
            const int b = (int)(k & 1);
            const int64_t p0 = k * SH;
            const int nr = (int)(np - p0 < SH ? np - p0 : SH);
            __syncwarp();
            if (k + 1 < nst) issue(k + 1, 1 - b);
            else __pipeline_commit();
            __pipeline_wait_prior(1);
            __syncwarp();
            if (act) {
                double *tc = tiles[b] + lane * STL;
                const double *sc = csb[b], *ss = sc + SH;
                for (int t = 0; t < nr; t++) {
                    const double y = tc[t + 1], cp = sc[t], sp = ss[t];
                    tc[t] = sp * y + cp * x;
                    x = cp * y - sp * x;
                }
            }
            __syncwarp();
            for (int cc = 0; cc < ncol; cc++) {
                double *ac = A + (j0 + cc) * lda + p0;
                for (int t = lane; t < nr; t += 32) ac[t] = tiles[b][cc * STL + t];
            }
        }
        if (act) a[np] = x;
        return;
    }
    /* !FWD. pst: the first rotation of this lane's chain; pw: of the warp's widest */
    const int64_t pst = TRI ? (j < np - 1 ? j : np - 1) : np - 1;
    const int64_t pw = TRI ? (j0 + ncol - 1 < np - 1 ? j0 + ncol - 1 : np - 1) : np - 1;
    /* stripe k: rotations p0 = k SH .. p0+nw-1 (nw < SH only at the top); column cc copies
     * rows p0 .. min(its start, p0+nw-1) (those its rotations read), at offsets 0 .. */
    auto issue = [&](int64_t k, int b) {
        const int64_t p0 = k * SH;
        const int nw = (int)(pw - p0 + 1 < SH ? pw - p0 + 1 : SH);
        for (int t = lane; t < nw; t += 32) {
            __pipeline_memcpy_async(csb[b] + t, c + p0 + t, sizeof(double));
            __pipeline_memcpy_async(csb[b] + SH + t, s + p0 + t, sizeof(double));
        }
        for (int cc = 0; cc < ncol; cc++) {
            const int64_t pc = TRI ? (j0 + cc < np - 1 ? j0 + cc : np - 1) : np - 1;
            const int64_t nk = pc - p0 + 1 < nw ? pc - p0 + 1 : nw;
            const double *ac = A + (j0 + cc) * lda + p0;
            for (int t = lane; t < nk; t += 32)
                __pipeline_memcpy_async(tiles[b] + cc * STL + t, ac + t, sizeof(double));
        }
        __pipeline_commit();
    };
    if (act && (!TRI || j > np - 1)) x = a[np];
    bool first = true;
    const int64_t ktop = pw / SH;
    issue(ktop, 0);
    for (int64_t k = ktop; k >= 0; k--) {
        const int b = (int)((ktop - k) & 1);
        const int64_t p0 = k * SH;
        const int nw = (int)(pw - p0 + 1 < SH ? pw - p0 + 1 : SH);
        __syncwarp();
        if (k > 0) issue(k - 1, 1 - b);
        else __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncwarp();
        int lo = SH + 1, hi = 0; /* offsets this lane finished: lo .. hi */
        if (act && pst >= p0) {
            double *tc = tiles[b] + lane * STL;
            const double *sc = csb[b], *ss = sc + SH;
            const int ttop = (int)(pst - p0 < nw - 1 ? pst - p0 : nw - 1);
            int t = ttop;
            if (TRI && first && j == pst) { /* the fill (j <= np - 1 = m - 2) */
                const double y = tc[t];
                sub[j] = -ss[t] * y;
                x = sc[t] * y;
                t--;
                hi = ttop;
            } else {
                hi = ttop + 1;
            }
            first = false;
            for (; t >= 0; t--) {
                const double y = tc[t], cp = sc[t], sp = ss[t];
                tc[t + 1] = cp * x - sp * y;
                x = sp * x + cp * y;
            }
            lo = 1;
        }
        __syncwarp();
        for (int cc = 0; cc < ncol; cc++) {
            const int l = __shfl_sync(0xffffffffu, lo, cc), h = __shfl_sync(0xffffffffu, hi, cc);
            double *ac = A + (j0 + cc) * lda + p0;
            for (int t = l + lane; t <= h; t += 32) ac[t] = tiles[b][cc * STL + t];
        }
    }
    if (act) a[0] = x;
}

/* ---- scan sweeps (a column's chain of rotations in parallel) ----------------------------------
 * The streaming sweep runs each column's chain on one lane: m dependent steps, so a few columns
 * (the checksums: 3 per block of columns; one vector) cost m steps of latency whatever their
 * width (2.3 ms for 16384 rotations on 192 columns). But the chain is a first-order linear
 * recurrence in the carry x: step t maps x to al_t x + c_t y_t (al = -s forward, +s backward;
 * y_t the row the step reads), and affine maps compose. One block per column (grid-stride):
 * a segment of LT * LK steps is loaded coalesced into shared memory; each thread composes its
 * LK steps from carry 0 (the map (A, B): x_out = A x_in + B, A a product of sines), an
 * exclusive scan over the block's threads (warp shuffles, then the warps' totals) gives each
 * thread its carry from the segment's, and the thread runs its steps again from there, writing
 * the outputs in place; they go back coalesced. |al| <= 1, so no partial map grows: the error is
 * that of the serial chain in another order of summation.
 *   FWD: steps p = 0 .. np-1, y = a[p+1], output row p, carry from a[0], last carry -> a[np].
 *   !FWD: p = top .. 0, y = a[p], output row p+1, carry from a[top+1], last -> a[0]. TRI
 *     (zero_to_hess): column j starts at top = min(j, np-1); for j <= np-1 its row j+1 is the
 *     zero below the diagonal: carry 0, and the first output (the fill -s_j a_j) goes to sub[j].
 * Every element is read and written once; c and s are staged with the segment (coalesced, not
 * one 128-byte line a thread through L1: that cost 4.5 us a segment). */
constexpr int LT = 256, LK = 16, LSEG = LT * LK, LPAD = LK + 1;
constexpr size_t SCAN_SMEM = 3 * LT * LPAD * sizeof(double); /* 104 KB: two blocks a multiprocessor */

/* exclusive scan of the affine maps (a, b) over the block's threads in thread order (thread t
 * gets the composition of threads 0 .. t-1's maps): (a2, b2) after (a1, b1) = (a2 a1, a2 b1 +
 * b2). wa, wb: LT / 32 doubles of shared memory each. */
__device__ __forceinline__ void affine_scan(double a, double b, double *pa, double *pb,
                                            double *wa, double *wb)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double ia = a, ib = b;
    for (int o = 1; o < 32; o <<= 1) {
        const double a2 = __shfl_up_sync(0xffffffffu, ia, o);
        const double b2 = __shfl_up_sync(0xffffffffu, ib, o);
        if (lane >= o) {
            ib = ia * b2 + ib;
            ia = ia * a2;
        }
    }
    double ea = __shfl_up_sync(0xffffffffu, ia, 1), eb = __shfl_up_sync(0xffffffffu, ib, 1);
    if (lane == 0) ea = 1.0, eb = 0.0;
    if (lane == 31) wa[warp] = ia, wb[warp] = ib;
    __syncthreads();
    double qa = 1.0, qb = 0.0;
    for (int w = 0; w < warp; w++) {
        qb = wa[w] * qb + wb[w];
        qa = wa[w] * qa;
    }
    *pa = ea * qa;
    *pb = ea * qb + eb;
}

template <bool FWD, bool TRI>
__global__ void __launch_bounds__(LT) scan_sweep(int64_t np, int64_t n, const double *c,
                                                 const double *s, double *A, int64_t lda,
                                                 double *sub)
{
    extern __shared__ double scan_smem[]; /* SCAN_SMEM: y, c, s of a segment */
    double *seg = scan_smem, *cseg = seg + LT * LPAD, *sseg = cseg + LT * LPAD;
    __shared__ double wa[LT / 32], wb[LT / 32];
    __shared__ double carry_s;
    const int tid = threadIdx.x;
    for (int64_t jj = blockIdx.x; jj < n; jj += gridDim.x) {
        const int64_t j = TRI ? n - 1 - jj : jj; /* TRI: the longest columns first */
        double *a = A + j * lda;
        const bool fill = TRI && j < np;
        const int64_t top = TRI ? (j < np - 1 ? j : np - 1) : np - 1;
        const int64_t nsteps = FWD ? np : top + 1;
        double carry = FWD ? a[0] : (fill ? 0.0 : a[np]);
        for (int64_t t0 = 0; t0 < nsteps; t0 += LSEG) {
            const int nst = (int)(nsteps - t0 < LSEG ? nsteps - t0 : LSEG);
            __syncthreads(); /* seg and carry_s free */
            /* consecutive threads, consecutive rows: coalesced; every load unconditional (step
             * 0 where past the end), so that all 3 LK are in flight at once */
#pragma unroll
            for (int q = 0; q < LK; q++) {
                const int e = tid + q * LT;
                const bool ok = e < nst;
                const int64_t t = t0 + (ok ? e : 0), p = FWD ? t : top - t;
                const double y = a[FWD ? t + 1 : top - t], cv = c[p], sv = s[p];
                if (ok) {
                    const int o = (e / LK) * LPAD + e % LK;
                    seg[o] = y;
                    cseg[o] = cv;
                    sseg[o] = sv;
                }
            }
            __syncthreads();
            const int e0 = tid * LK;
            const int cnt = nst - e0 <= 0 ? 0 : (nst - e0 > LK ? LK : nst - e0);
            double *my = seg + tid * LPAD;
            double cr[LK], sr[LK];
            double ma = 1.0, mb = 0.0;
#pragma unroll
            for (int q = 0; q < LK; q++) {
                if (q < cnt) {
                    cr[q] = cseg[tid * LPAD + q];
                    sr[q] = sseg[tid * LPAD + q];
                    const double al = FWD ? -sr[q] : sr[q];
                    mb = al * mb + cr[q] * my[q];
                    ma = al * ma;
                }
            }
            double pa, pb;
            affine_scan(ma, mb, &pa, &pb, wa, wb);
            double x = pa * carry + pb;
#pragma unroll
            for (int q = 0; q < LK; q++) {
                if (q < cnt) {
                    const double y = my[q];
                    if (FWD) {
                        my[q] = sr[q] * y + cr[q] * x;
                        x = cr[q] * y - sr[q] * x;
                    } else {
                        my[q] = cr[q] * x - sr[q] * y;
                        x = sr[q] * x + cr[q] * y;
                    }
                }
            }
            if (cnt > 0 && e0 + cnt == nst) carry_s = x;
            __syncthreads();
#pragma unroll
            for (int q = 0; q < LK; q++) {
                const int e = tid + q * LT;
                if (e >= nst) break;
                const int64_t t = t0 + e;
                const double v = seg[(e / LK) * LPAD + e % LK];
                if (TRI && fill && t == 0) sub[j] = v;
                else a[FWD ? t : top - t + 1] = v;
            }
            carry = carry_s;
        }
        if (tid == 0) a[FWD ? np : 0] = carry;
    }
}

/* zero x(0 .. np) bottom-up: rotations p = np-1 .. 0, x[0] := r, the rest 0. The serial
 * dlartg chain only carries r_(p+1) = +-||x(p+1 : np)||, so one block forms every suffix norm
 * D_p at once (a scan of LAPACK's scaled sums of squares (scale, ssq): no overflow or harmful
 * underflow), and rotation p is then dlartg(x_p, g) with g = r_(p+1) = D_(p+1) signed as x_(p+1)
 * (+ for 0: dlartg returns |g| there), g = x_np for the last: all rotations in parallel. The
 * result differs from the serial chain by rounding only (the suffix norms are more accurate). */
constexpr int GT = 1024;

struct ssq_t {
    double scale, sumsq; /* the value is scale * sqrt(sumsq) */
};

__device__ __forceinline__ ssq_t ssq_add(ssq_t a, double v)
{
    const double av = fabs(v);
    if (av == 0.0) return a;
    if (a.scale < av) {
        const double r = a.scale / av;
        return {av, 1.0 + a.sumsq * r * r};
    }
    const double r = av / a.scale;
    return {a.scale, a.sumsq + r * r};
}

__device__ __forceinline__ ssq_t ssq_join(ssq_t a, ssq_t b)
{
    if (b.scale == 0.0) return a;
    if (a.scale == 0.0) return b;
    if (a.scale < b.scale) {
        const double r = a.scale / b.scale;
        return {b.scale, b.sumsq + a.sumsq * r * r};
    }
    const double r = b.scale / a.scale;
    return {a.scale, a.sumsq + b.sumsq * r * r};
}

__global__ void __launch_bounds__(GT) gen_zero(int64_t np, double *x, double *c, double *s)
{
    __shared__ double sc_[GT], sq_[GT];
    const int t = threadIdx.x;
    const int64_t N = np + 1, K = (N + GT - 1) / GT;
    const int64_t lo = t * K < N ? t * K : N, hi = lo + K < N ? lo + K : N;
    ssq_t mine = {0.0, 0.0};
    for (int64_t e = lo; e < hi; e++) mine = ssq_add(mine, x[e]);
    /* inclusive suffix scan over the threads (Hillis-Steele, from the right) */
    sc_[t] = mine.scale, sq_[t] = mine.sumsq;
    __syncthreads();
    for (int o = 1; o < GT; o <<= 1) {
        ssq_t v = {sc_[t], sq_[t]};
        if (t + o < GT) v = ssq_join(v, ssq_t{sc_[t + o], sq_[t + o]});
        __syncthreads();
        sc_[t] = v.scale, sq_[t] = v.sumsq;
        __syncthreads();
    }
    ssq_t run = t + 1 < GT ? ssq_t{sc_[t + 1], sq_[t + 1]} : ssq_t{0.0, 0.0};
    /* D_e for e = 1 .. np into c[e - 1] (scratch, read back below by the same thread) */
    for (int64_t e = hi - 1; e >= lo; e--) {
        run = ssq_add(run, x[e]);
        if (e >= 1) c[e - 1] = run.scale * sqrt(run.sumsq);
    }
    __syncthreads(); /* c[e-1] of e = hi (the next thread's first) is read below */
    double r0 = 0.0;
    for (int64_t p = lo; p < hi && p < np; p++) {
        const double xn = x[p + 1];
        const double g = p + 1 == np ? xn : (xn < 0 ? -c[p] : c[p]);
        double cp, sp, r;
        givens_lartg(x[p], g, &cp, &sp, &r);
        c[p] = cp;
        s[p] = sp;
        if (p == 0) r0 = r;
    }
    __syncthreads(); /* every x read */
    for (int64_t e = lo; e < hi; e++) x[e] = e == 0 ? r0 : 0.0;
}


/* ---- persistent Hessenberg -> triangular (one cooperative launch) ----------------------------
 * The two-launch step above pays a launch and a serial diagonal kernel per 64 rotations, and
 * the steps are dependent: 57 us per step on the H100, 5 % of HBM (docs/givens.md). Here one
 * launch runs the whole reduction:
 *   - the leader (block 0, 8 warps) walks down the diagonal. Warp 0 generates the rotations of
 *     block k (64) in panel k's diagonal block held in shared memory, two columns per lane, each
 *     column a carry chain in a register; the diagonal entry the next rotation needs is formed
 *     by every lane from the next column's carry, diagonal and subdiagonal, shuffled from its
 *     owner a step ahead (f' = c h - s x), so the chain per rotation is dlartg plus two flops
 *     (bench/micro/h2t_chain.cu measures what that chain alone costs). Warp 1
 *     applies the same rotations, a few behind, to panel k+1 (the look-ahead) after catching it
 *     up with block k-1, so panel k+1's diagonal block is ready when warp 0 finishes. Warps 2-7
 *     store finished rows, publish each block to the workers, and prefetch (cp.async) the
 *     original rows the next two steps need.
 *   - the workers (all other blocks) apply block b to the panels q >= b + 3 (and to every panel
 *     right of the diagonal part of a wide matrix) as soon as the leader publishes it, nearest
 *     panel first, and flag panel q when it has blocks 0 .. q-3, which warp 1 waits for before
 *     its catch-up. The leader never waits on a worker for more than one row.
 * Memory: every element of the upper triangle is read and written once per block of 64 rows,
 * as in the two-launch version; the serial dlartg chain is the only critical path.
 * Synchronization: release = __syncthreads + __threadfence + volatile flag store; acquire =
 * volatile flag load + __threadfence, data read through L2 (__ldcg / cp.async). All blocks are
 * resident (cooperative launch), so the spin-waits cannot deadlock. */
namespace h2tp {

constexpr int PNB = 64, NT = 384, LDL = 2 * PNB + 1, LDD = PNB + 1, MAXG = 4;
constexpr int DPC = PNB + 6; /* a diagonal buffer's columns: 64 and the padding warp 0 reads */
constexpr size_t LEADER_DBL = 2 * PNB * LDL + 2 * DPC * LDD + 4 * PNB + 2 * 16 * PNB + 7 * PNB + 4;
constexpr size_t WORKER_DBL = MAXG * PNB * LDD + 2 * PNB;
constexpr size_t SMEM = (LEADER_DBL > WORKER_DBL ? LEADER_DBL : WORKER_DBL) * sizeof(double);

struct Args {
    int64_t m, n, ns, ldr;
    int Pd, Pall; /* panels with rotations (ceil(ns / 64)), all panels (ceil(n / 64)) */
    double *R, *sub, *c, *s;
    int *sync; /* [0]: blocks published; [1 + q]: panel q has blocks 0 .. q-3 */
    /* diagnostics (FTLA_H2T_PROFILE set): cycle counts per role, printed after the call */
    long long *prof;
    int bsync; /* FTLA_H2T_BSYNC=1: warp 2 waits at the hand-over to warp 1 (bar.sync, not arrive) */
    int spin_ns; /* FTLA_H2T_SPIN_NS: a pause (ns) between two polls of a flag (0: none) */
    int ablate;  /* FTLA_H2T_ABLATE (measurements only, the result is wrong): bit 0 the helpers
                  * store nothing, bit 1 they prefetch no look-ahead rows, bit 2 no diagonal rows */
};
#define PROF_ADD(i, t0)                                                                          \
    do {                                                                                          \
        if (a.prof) atomicAdd((unsigned long long *)&a.prof[i], (unsigned long long)(clock64() - (t0))); \
    } while (0)

__device__ __forceinline__ int vload(const int *p) { return *(const volatile int *)p; }
__device__ __forceinline__ void vstore(int *p, int v) { *(volatile int *)p = v; }

__device__ __forceinline__ void cp8(double *dst, const double *src)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

/* rows r0 + rr (rr in [lo, hi]) of panel q's 64 columns into buf (column stride ld, row rr at
 * buf[t * ld + rr - base]); warps [w0, w0 + nw) of the block, a warp per column (coalesced,
 * no index division) */
__device__ void prefetch(const Args &a, double *buf, int ld, int base, int64_t r0, int lo, int hi,
                         int q, int wi, int nw)
{
    const int lane = threadIdx.x & 31;
    for (int t = wi; t < PNB; t += nw) {
        const int64_t j = (int64_t)q * PNB + t;
        double *col = buf + t * ld - base;
        for (int rr = lo + lane; rr <= hi; rr += 32) {
            const int64_t r = r0 + rr;
            if (j < a.n && r < a.m && r <= j) cp8(col + rr, a.R + r + j * a.ldr);
            else if (j < a.ns && r == j + 1 && r < a.m) cp8(col + rr, a.sub + j);
            else col[rr] = 0.0;
        }
    }
}

/* The leader's generation (warp 0) runs the rotations unnormalized, so that its serial chain
 * has neither a square root nor a range test (docs/givens.md, "Session 6"). With the working
 * row w_p = eps_p sigma_p W_p (sigma_p = tau_p^(-1/2) > 0, eps_p = +-1) and f_p = w_p(p),
 * g_p = H(p+1, p), dlartg's rotation gives
 *     W_(p+1) = -g_p W_p + F_p H(p+1, :),   tau_(p+1) = F_p^2 + g_p^2 tau_p,   eps_(p+1) = sgn F_p,
 * two FMAs a step on the chain, and afterwards, off it (warp 2, 16 rotations at a time):
 *     c_p = |F_p| / sqrt(tau_(p+1)),  s_p = eps_p sgn(F_p) g_p sqrt(tau_p / tau_(p+1)),
 *     r_p = eps_p sgn(F_p) sqrt(tau_(p+1) / tau_p),  R(p, j) = a_p W_p(j) + s_p H(p+1, j),
 *     a_p = eps_p c_p / sqrt(tau_p)
 * (dlartg's c >= 0, r = sign(f) sqrt(f^2 + g^2)). Every block restarts from the normalized
 * carry row (tau = 1, eps = 1); every four steps W, F and tau are rescaled by a power of two
 * (exact) so that tau stays near 1. A batch of 16 whose tau leaves [2^-300, 2^300], whose F
 * is zero, or whose carries are not finite (extreme scales, exact zeros) is redone with the
 * normalized chain and dlartg itself, from its first step. */
/* eight rotations down two columns (carries x0, x1; row i+1 read, row i written): every load
 * before the first store, so the chain waits on no shared-memory round trip */
__device__ __forceinline__ void apply8(double *a0, double *a1, const double *cs, const double *ss,
                                       double &x0, double &x1)
{
    double c[8], s[8], y0[8], y1[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        c[i] = cs[i];
        s[i] = ss[i];
        y0[i] = a0[i + 1];
        y1[i] = a1[i + 1];
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        a0[i] = s[i] * y0[i] + c[i] * x0;
        x0 = c[i] * y0[i] - s[i] * x0;
        a1[i] = s[i] * y1[i] + c[i] * x1;
        x1 = c[i] * y1[i] - s[i] * x1;
    }
}

__device__ __forceinline__ void apply8_1(double *a0, const double *cs, const double *ss, double &x0)
{
    double c[8], s[8], y0[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        c[i] = cs[i];
        s[i] = ss[i];
        y0[i] = a0[i + 1];
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        a0[i] = s[i] * y0[i] + c[i] * x0;
        x0 = c[i] * y0[i] - s[i] * x0;
    }
}

constexpr int NBAT = 16;
constexpr int NHW = 7; /* helper warps: 3, 5, 6, 7, 9, 10, 11 of NT = 384 */
static_assert(NT == 384, "the helper warps are laid out for 12 warps");
#define FTLA_BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory")
#define FTLA_BAR_ARRIVE(id, n) asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory")

__device__ void leader(const Args &a, double *sm)
{
    /* buffer x of each pair at base + x * size (no local arrays: they would live in memory) */
#define bufL(x) (sm + (x) * (PNB * LDL))
#define bufD(x) (sm + 2 * PNB * LDL + (x) * (DPC * LDD))
    double *rot = sm + 2 * PNB * LDL + 2 * DPC * LDD; /* block b: c at rot + (b&1) 2 NB, s + NB */
    double *Ur = rot + 4 * PNB;        /* ring of 2 batches: W_p (pre-update), row p & 31 */
    double *FF = Ur + 2 * NBAT * PNB;  /* per step: F_p, tau_p, tau_(p+1) (slow: c, s, r) */
    double *TA = FF + PNB, *TB = TA + PNB;
    double *PA = TB + PNB, *PS = PA + PNB, *PR = PS + PNB; /* a_p, s_p, r_p */
    double *CO = PR + PNB;             /* carry out of a wide last block's columns */
    int *mode = (int *)(CO + PNB);     /* per batch: 0 unnormalized, 1 normalized (dlartg) */
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int Pd = a.Pd;

    for (int i = tid; i < 2 * (DPC - PNB) * LDD; i += NT)
        bufD(i / ((DPC - PNB) * LDD))[PNB * LDD + i % ((DPC - PNB) * LDD)] = 0.0;
    /* prologue: panel 0's diagonal block, rows 0 .. 64 of panel 1 (its look-ahead rows) */
    prefetch(a, bufD(0), LDD, 0, 0, 0, PNB, 0, warp, NT / 32);
    if (Pd > 1) prefetch(a, bufL(1), LDL, -PNB, 0, 0, PNB, 1, warp, NT / 32);
    cp_wait();
    __syncthreads();

    const long long tl0 = clock64();
    for (int k = 0; k < Pd; k++) {
        long long tp = clock64();
        const int64_t p0 = (int64_t)k * PNB;
        const int nr = (int)(a.ns - p0 < PNB ? a.ns - p0 : PNB);
        const int ncol = (int)(a.n - p0 < PNB ? a.n - p0 : PNB);
        const int nb = (nr + NBAT - 1) / NBAT;
        const bool hasL = k + 1 < Pd;
        double *D = bufD(k & 1), *L = bufL((k + 1) & 1);
        double *rc = rot + (k & 1) * 2 * PNB, *rp = rot + ((k + 1) & 1) * 2 * PNB;
        if (warp == 0) {
            const int t0 = lane, t1 = lane + 32;
            double X0 = D[t0 * LDD], X1 = D[t1 * LDD];
            double F = D[0], T = 1.0, wa = D[LDD], wb = D[2 * LDD];
            bool slow = false;
            /* step p's operands, loaded a step ahead (the loads of step p+1 go out before step
             * p's stores, so no shared-memory latency sits on the chain): g_p = H(p+1, p) at
             * dp[0], H(p+1, p+1 .. p+3) at dp[LDD], dp[2 LDD], dp[3 LDD] (past the block they
             * read the buffer's padding columns, unused), H(p+1, own columns) at yp[0],
             * yp[32 LDD]; dp = D + p (LDD + 1) + 1, yp = D + t0 LDD + p + 1. Within a batch
             * every offset is a constant of the unrolled code. */
            const double *dp = D + 1, *yp = D + t0 * LDD + 1;
            double cg = dp[0], ch1 = dp[LDD], ch2 = dp[2 * LDD], ch3 = dp[3 * LDD], cy0 = yp[0],
                   cy1 = yp[32 * LDD];
            for (int c = 0; c < nb; c++) {
                const int pb = c * NBAT, pe = pb + NBAT < nr ? pb + NBAT : nr;
                if (c >= 2) { /* ring slot free */
                    const long long tw = clock64();
                    FTLA_BAR_SYNC(11 + c - 2, 64);
                    if (lane == 0) PROF_ADD(13, tw);
                }
                if (!slow) {
                    double vmin = 1.0;
                    bool fnz = true;
                    double *ub = Ur + (pb & (2 * NBAT - 1)) * PNB;
                    double *fb = FF + pb, *tab = TA + pb, *tbb = TB + pb;
#define FSTEP(I)                                                                                  \
    {                                                                                             \
        const int i_ = (I), o_ = (i_ + 1) * (LDD + 1);                                            \
        const double g = cg, h1 = ch1, h2 = ch2, h3 = ch3, y0 = cy0, y1 = cy1;                   \
        cg = dp[o_];                                                                              \
        ch1 = dp[o_ + LDD];                                                                       \
        ch2 = dp[o_ + 2 * LDD];                                                                   \
        ch3 = dp[o_ + 3 * LDD];                                                                   \
        cy0 = yp[i_ + 1];                                                                         \
        cy1 = yp[i_ + 1 + 32 * LDD];                                                              \
        const int q3 = pb + i_ + 3;                                                               \
        const double S = __shfl_sync(0xffffffffu, (q3 & 32) ? X1 : X0, q3 & 31);                 \
        const double G = -g;                                                                      \
        const double Fn = fma(F, h1, G * wa), Tn = fma(g * g, T, F * F);                          \
        const double wan = fma(F, h2, G * wb), wbn = fma(F, h3, G * S);                           \
        ub[i_ * PNB + t0] = X0;                                                                   \
        ub[i_ * PNB + t1] = X1;                                                                   \
        X0 = fma(F, y0, G * X0);                                                                  \
        X1 = fma(F, y1, G * X1);                                                                  \
        if (lane == 0) {                                                                          \
            fb[i_] = F;                                                                           \
            tab[i_] = T;                                                                          \
            tbb[i_] = Tn;                                                                         \
        }                                                                                         \
        vmin = fmin(vmin, Tn);                                                                    \
        fnz = fnz && F != 0.0;                                                                    \
        F = Fn;                                                                                   \
        T = Tn;                                                                                   \
        wa = wan;                                                                                 \
        wb = wbn;                                                                                 \
    }
#define RESCALE()                                                                                 \
    {                                                                                             \
        const int e_ = (int)((__double_as_longlong(T) >> 52) & 0x7ff) - 1023, m_ = -(e_ >> 1);   \
        const double sc = __longlong_as_double((long long)(m_ + 1023) << 52);                    \
        T = T * sc * sc;                                                                          \
        F *= sc;                                                                                  \
        wa *= sc;                                                                                 \
        wb *= sc;                                                                                 \
        X0 *= sc;                                                                                 \
        X1 *= sc;                                                                                 \
    }
                    if (pe - pb == NBAT) {
#pragma unroll
                        for (int i = 0; i < NBAT; i += 4) {
                            FSTEP(i);
                            FSTEP(i + 1);
                            FSTEP(i + 2);
                            FSTEP(i + 3);
                            RESCALE();
                        }
                    } else {
                        for (int i = 0; i < pe - pb; i++) {
                            FSTEP(i);
                            if ((i & 3) == 3) RESCALE();
                        }
                    }
                    dp += (pe - pb) * (LDD + 1);
                    yp += pe - pb;
#undef FSTEP
#undef RESCALE
                    /* the carries of the columns still open after the batch must be finite */
                    const bool okx = (t0 < pe || isfinite(X0)) && (t1 < pe || isfinite(X1));
                    const bool ok = vmin >= 0x1p-300 && fnz && T <= 0x1p300 && isfinite(vmin);
                    if (!__all_sync(0xffffffffu, okx) || !ok) {
                        /* redo from pb, normalized: w_pb = eps sigma W_pb */
                        __syncwarp();
                        const double sg = rsqrt(TA[pb]) * (pb > 0 && FF[pb - 1] < 0.0 ? -1.0 : 1.0);
                        const double *u = Ur + (pb & (2 * NBAT - 1)) * PNB;
                        X0 = u[t0] * sg;
                        X1 = u[t1] * sg;
                        __syncwarp();
                        slow = true;
                    }
                }
                if (slow) {
                    for (int p = pb; p < pe; p++) {
                        const double f = __shfl_sync(0xffffffffu, p >= 32 ? X1 : X0, p & 31);
                        const double g = D[p * LDD + p + 1];
                        double cr, sr, rr;
                        givens_lartg(f, g, &cr, &sr, &rr);
                        double *u = Ur + (p & (2 * NBAT - 1)) * PNB;
                        u[t0] = X0;
                        u[t1] = X1;
                        if (lane == 0) {
                            FF[p] = cr;
                            TA[p] = sr;
                            TB[p] = rr;
                        }
                        const double y0 = D[t0 * LDD + p + 1], y1 = D[t1 * LDD + p + 1];
                        X0 = cr * y0 - sr * X0;
                        X1 = cr * y1 - sr * X1;
                    }
                }
                if (c == nb - 1) {
                    /* columns without a rotation of their own (a wide last block): their
                     * normalized carry, for warp 2 to store after its last batch */
                    __syncwarp();
                    const double sg = slow ? 1.0 : rsqrt(T) * (FF[nr - 1] < 0.0 ? -1.0 : 1.0);
                    if (t0 >= nr && t0 < ncol) CO[t0] = X0 * sg;
                    if (t1 >= nr && t1 < ncol) CO[t1] = X1 * sg;
                }
                if (lane == 0) mode[c] = slow ? 1 : 0;
                FTLA_BAR_ARRIVE(3 + c, 64);
            }
            if (lane == 0) PROF_ADD(0, tp);
        } else if (warp == 2) {
            /* the rotations and the finished rows of the diagonal block, 16 at a time */
            const int t0 = lane, t1 = lane + 32;
            for (int c = 0; c < nb; c++) {
                const int pb = c * NBAT, pe = pb + NBAT < nr ? pb + NBAT : nr;
                const long long tw = clock64();
                FTLA_BAR_SYNC(3 + c, 64);
                if (lane == 0) PROF_ADD(14, tw);
                const int p = pb + lane;
                if (p < pe) {
                    double cr, sr, rr, ar;
                    if (mode[c] == 0) {
                        const double F = FF[p], ta = TA[p], tb = TB[p];
                        const double g = D[p * LDD + p + 1];
                        const double ep = p > 0 && FF[p - 1] < 0.0 ? -1.0 : 1.0;
                        const double sf = F < 0.0 ? -ep : ep;
                        const double q1 = rsqrt(tb), q0 = rsqrt(ta);
                        cr = fabs(F) * q1;
                        sr = g * sf * (ta * q0) * q1;
                        rr = sf * (tb * q1) * q0;
                        ar = ep * cr * q0;
                    } else {
                        cr = FF[p], sr = TA[p], rr = TB[p], ar = cr;
                    }
                    PA[p] = ar;
                    PS[p] = sr;
                    PR[p] = rr;
                    rc[p] = cr;
                    rc[PNB + p] = sr;
                    a.c[p0 + p] = cr;
                    a.s[p0 + p] = sr;
                }
                __syncwarp();
                double *c0 = D + t0 * LDD, *c1 = D + t1 * LDD;
                if (pe - pb == NBAT) {
                    /* every load of the batch before its first store (no aliasing stalls) */
                    double va[NBAT], vs[NBAT], u0[NBAT], u1[NBAT], h0[NBAT], hh[NBAT];
#pragma unroll
                    for (int i = 0; i < NBAT; i++) {
                        const int q = pb + i;
                        const double *u = Ur + (q & (2 * NBAT - 1)) * PNB;
                        va[i] = PA[q];
                        vs[i] = PS[q];
                        u0[i] = u[t0];
                        u1[i] = u[t1];
                        h0[i] = c0[q + 1];
                        hh[i] = c1[q + 1];
                    }
#pragma unroll
                    for (int i = 0; i < NBAT; i++) {
                        const int q = pb + i;
                        if (t0 > q && t0 < ncol) c0[q] = va[i] * u0[i] + vs[i] * h0[i];
                        if (t1 > q && t1 < ncol) c1[q] = va[i] * u1[i] + vs[i] * hh[i];
                    }
                    if (t0 >= pb && t0 < pe) c0[t0] = PR[t0];
                    if (t1 >= pb && t1 < pe) c1[t1] = PR[t1];
                } else {
                    for (int q = pb; q < pe; q++) {
                        const double ar = PA[q], sr = PS[q];
                        const double *u = Ur + (q & (2 * NBAT - 1)) * PNB;
                        if (t0 > q && t0 < ncol) c0[q] = ar * u[t0] + sr * c0[q + 1];
                        else if (t0 == q) c0[q] = PR[q];
                        if (t1 > q && t1 < ncol) c1[q] = ar * u[t1] + sr * c1[q + 1];
                        else if (t1 == q) c1[q] = PR[q];
                    }
                }
                __syncwarp();
                if (hasL) {
                    if (a.bsync) FTLA_BAR_SYNC(7 + c, 64);
                    else FTLA_BAR_ARRIVE(7 + c, 64);
                }
                if (c + 2 < nb) FTLA_BAR_ARRIVE(11 + c, 64);
            }
            if (lane == 0) PROF_ADD(15, tp);
            if (!hasL) {
                if (t0 >= nr && t0 < ncol) D[t0 * LDD + nr] = CO[t0];
                if (t1 >= nr && t1 < ncol) D[t1 * LDD + nr] = CO[t1];
            }
        } else if (warp == 1) {
            if (hasL) {
                const int64_t jq = (int64_t)(k + 1) * PNB;
                if (k >= 1) {
                    /* catch panel k+1 up with block k-1: its row (k-1) NB from the workers */
                    if (k + 1 >= 3) {
                        if (lane == 0)
                            while (vload(a.sync + 1 + k + 1) == 0)
                                if (a.spin_ns) __nanosleep(a.spin_ns);
                        __syncwarp();
                        __threadfence();
                    }
                    if (lane == 0) PROF_ADD(2, tp);
                    tp = clock64();
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const int t = lane + 32 * h;
                        if (jq + t < a.n) L[t * LDL] = __ldcg(a.R + (p0 - PNB) + (jq + t) * a.ldr);
                    }
                    double x[2];
#pragma unroll
                    for (int h = 0; h < 2; h++) x[h] = L[(lane + 32 * h) * LDL];
                    for (int i0 = 0; i0 < PNB; i0 += 8)
                        apply8(L + lane * LDL + i0, L + (lane + 32) * LDL + i0, rp + i0,
                               rp + PNB + i0, x[0], x[1]);
#pragma unroll
                    for (int h = 0; h < 2; h++) L[(lane + 32 * h) * LDL + PNB] = x[h];
                    if (lane == 0) PROF_ADD(3, tp);
                    tp = clock64();
                }
                /* follow warp 2 through block k (full: k + 1 < Pd) */
                double x[2];
#pragma unroll
                for (int h = 0; h < 2; h++) x[h] = L[(lane + 32 * h) * LDL + PNB];
                for (int cb = 0; cb < PNB / NBAT; cb++) {
                    FTLA_BAR_SYNC(7 + cb, 64);
                    for (int i0 = cb * NBAT; i0 < cb * NBAT + NBAT; i0 += 8)
                        apply8(L + lane * LDL + PNB + i0, L + (lane + 32) * LDL + PNB + i0,
                               rc + i0, rc + PNB + i0, x[0], x[1]);
                }
                /* the carry is row 0 of panel k+1's diagonal block: after the helpers have
                 * stored what that buffer held (named barrier 2) */
                if (lane == 0) PROF_ADD(4, tp);
                tp = clock64();
                FTLA_BAR_SYNC(2, 32 * (NHW + 1));
                if (lane == 0) PROF_ADD(5, tp);
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    bufD((k + 1) & 1)[(lane + 32 * h) * LDD] = x[h];
                    L[(lane + 32 * h) * LDL + 2 * PNB] = x[h];
                }
            }
        } else if ((warp & 3) != 0) {
            /* helpers: warps 3 .. except those that share warp 0's scheduler (warp % 4 == 0
             * stay idle: the chain issues alone); a warp per column, lanes along its rows */
            const int hw = warp - 3 - (warp > 4) - (warp > 8), nhw = NHW, ht = hw * 32 + lane;
            /* publish block k-1 (written by warp 2 before the barrier) */
            if (k >= 1 && ht == 0) {
                __threadfence();
                vstore(a.sync, k);
            }
            /* store panel k-1's diagonal block and panel k's look-ahead rows */
            if (k >= 1 && !(a.ablate & 1)) {
                const int64_t q0 = p0 - PNB;
                const double *Dp = bufD((k - 1) & 1);
                for (int t = hw; t < PNB; t += nhw) {
                    const int64_t j = q0 + t;
                    if (j >= a.n) break;
#pragma unroll 3
                    for (int rr = lane; rr <= t; rr += 32) {
                        const int64_t r = q0 + rr;
                        if (r < a.m) a.R[r + j * a.ldr] = Dp[t * LDD + rr];
                    }
                }
                if (ht < PNB && q0 + ht < a.ns) a.sub[q0 + ht] = 0.0;
                const double *Lp = bufL(k & 1);
                const int lo = k >= 2 ? 0 : PNB; /* rows (k-2) NB .. k NB - 1 */
                for (int t = hw; t < PNB; t += nhw) {
                    const int64_t j = p0 + t;
                    if (j >= a.n) break;
                    double *dst = a.R + (p0 - 2 * PNB) + j * a.ldr;
#pragma unroll 4
                    for (int rr = lo + lane; rr < 2 * PNB; rr += 32) dst[rr] = Lp[t * LDL + rr];
                }
            }
            FTLA_BAR_SYNC(1, 32 * nhw);
            if (ht == 0) PROF_ADD(6, tp);
            tp = clock64();
            if (hasL) FTLA_BAR_ARRIVE(2, 32 * (NHW + 1));
            /* prefetch: rows 1 .. 64 of panel k+1's diagonal block, rows k NB + 1 .. (k+2) NB
             * of panel k+2 (untouched so far) */
            if (hasL && !(a.ablate & 4))
                prefetch(a, bufD((k + 1) & 1), LDD, 0, p0 + PNB, 1, PNB, k + 1, hw, nhw);
            if (k + 2 < Pd && !(a.ablate & 2))
                prefetch(a, bufL(k & 1), LDL, 0, p0, 1, 2 * PNB, k + 2, hw, nhw);
            cp_wait();
            if (ht == 0) PROF_ADD(7, tp);
        }
        tp = clock64();
        __syncthreads();
        if (tid == 0) PROF_ADD(1, tp);
    }
    if (tid == 0) PROF_ADD(8, tl0);
    /* the last diagonal block, and the last block published */
    {
        const int K = Pd - 1;
        const int64_t q0 = (int64_t)K * PNB;
        const double *Dp = bufD(K & 1);
        for (int idx = tid; idx < PNB * LDD; idx += NT) {
            const int t = idx / LDD, rr = idx % LDD;
            const int64_t j = q0 + t, r = q0 + rr;
            if (j < a.n && r < a.m && rr <= t) a.R[r + j * a.ldr] = Dp[t * LDD + rr];
        }
        if (tid < PNB && q0 + tid < a.ns) a.sub[q0 + tid] = 0.0;
        __syncthreads();
        if (tid == 0) {
            __threadfence();
            vstore(a.sync, Pd);
        }
    }
#undef bufL
#undef bufD
}

/* a worker: wait until block b is published (thread 0 spins), then its rotations into rc (the
 * caller synchronizes before reading them); returns the block's number of rotations. tw: the
 * start of the work, for the profile. */
__device__ int wk_take(const Args &a, int b, double *rc, int pw, long long &tw)
{
    const int tid = threadIdx.x;
    tw = clock64();
    if (tid == 0)
        while (vload(a.sync) <= b)
            if (a.spin_ns) __nanosleep(a.spin_ns);
    if (pw >= 0) PROF_ADD(pw, tw);
    tw = clock64();
    __syncthreads();
    __threadfence();
    const int64_t r0 = (int64_t)b * PNB;
    const int nrb = (int)(a.ns - r0 < PNB ? a.ns - r0 : PNB);
    if (tid < nrb) {
        rc[tid] = __ldcg(a.c + r0 + tid);
        rc[PNB + tid] = __ldcg(a.s + r0 + tid);
    }
    return nrb;
}

__device__ void worker(const Args &a, double *sm)
{
    double *tile = sm, *rc = sm + MAXG * PNB * LDD;
    const int tid = threadIdx.x, w = blockIdx.x - 1, nw = gridDim.x - 1;
    const int pw = tid == 0 && (w == 0 || w == nw - 1) ? (w == 0 ? 9 : 11) : -1;
    for (int b = 0; b < a.Pd; b++) {
        /* the first owned panel that takes block b */
        int q1 = b + 3 < a.Pd ? b + 3 : a.Pd;
        int qf = w + ((q1 - w + nw - 1) / nw > 0 ? (q1 - w + nw - 1) / nw : 0) * nw;
        if (qf < w) qf = w;
        if (qf >= a.Pall) break; /* nothing for this block or any later one */
        long long tw;
        const int nrb = wk_take(a, b, rc, pw, tw);
        const int64_t r0 = (int64_t)b * PNB;
        for (int q = qf; q < a.Pall;) {
            /* a group of up to MAXG owned panels: qg, qg + nw, ... */
            const int qg = q;
            int ng = 0;
            for (; q < a.Pall && ng < MAXG; q += nw) ng++;
#define qs(g) (qg + (g) * nw)
            const int rows = nrb + 1;
            for (int idx = tid; idx < ng * PNB * rows; idx += NT) {
                const int gt = idx / rows, rr = idx % rows, g = gt / PNB, t = gt % PNB;
                const int64_t j = (int64_t)qs(g) * PNB + t;
                if (j < a.n) cp8(tile + gt * LDD + rr, a.R + r0 + rr + j * a.ldr);
            }
            cp_wait();
            __syncthreads();
            if (tid < ng * PNB && (int64_t)qs(tid / PNB) * PNB + tid % PNB < a.n) {
                double *col = tile + tid * LDD, x = col[0];
                for (int i = 0; i < nrb; i++) {
                    const double y = col[i + 1], ci = rc[i], si = rc[PNB + i];
                    col[i] = si * y + ci * x;
                    x = ci * y - si * x;
                }
                col[nrb] = x;
            }
            __syncthreads();
            for (int idx = tid; idx < ng * PNB * rows; idx += NT) {
                const int gt = idx / rows, rr = idx % rows, g = gt / PNB, t = gt % PNB;
                const int64_t j = (int64_t)qs(g) * PNB + t;
                if (j < a.n) a.R[r0 + rr + j * a.ldr] = tile[gt * LDD + rr];
            }
            __syncthreads();
            if (tid == 0) {
                bool fence = false;
                for (int g = 0; g < ng; g++)
                    if (qs(g) < a.Pd && qs(g) - 3 == b) {
                        if (!fence) __threadfence();
                        fence = true;
                        vstore(a.sync + 1 + qs(g), 1);
                    }
            }
#undef qs
        }
        __syncthreads(); /* rc is reloaded for the next block */
        if (pw >= 0) PROF_ADD(pw + 1, tw);
    }
}

/* Workers when each owns at most MAXG panels (n <= MAXG * 64 * (workers), 33k on an H100):
 * thread (g, t) owns column t of its g-th panel q = w + g nw for the whole call, its carry in a
 * register. Rows r0 + 1 .. r0 + 64 of the next block are original until that block reaches them,
 * so they are fetched (a warp per column, coalesced, asynchronous) while the worker waits for
 * the block's rotations; the finished rows go back the same way. */
__device__ bool wk_active(const Args &a, int q, int b)
{
    if (q >= a.Pall || q < 3) return false;
    const int last = q < a.Pd ? q - 3 : a.Pd - 1;
    return b <= last;
}

__device__ void worker_regs(const Args &a, double *sm)
{
    double *tile = sm, *rc = sm + MAXG * PNB * LDD;
    const int tid = threadIdx.x, w = blockIdx.x - 1, nw = gridDim.x - 1;
    const int warp = tid >> 5, lane = tid & 31;
    const int pw = tid == 0 && (w == 0 || w == nw - 1) ? (w == 0 ? 9 : 11) : -1;
    const int g = tid / PNB, t = tid % PNB, qm = w + g * nw;
    const int64_t jm = (int64_t)qm * PNB + t;
    const bool mine = g < MAXG && qm < a.Pall && jm < a.n;
    double x = mine ? __ldcg(a.R + jm * a.ldr) : 0.0;
    /* rows r0 + 1 .. r0 + nrb of every column of the slots active in block b */
    auto fetch = [&](int b) {
        const int64_t r0 = (int64_t)b * PNB;
        const int nrb = (int)(a.ns - r0 < PNB ? a.ns - r0 : PNB);
        for (int gt = warp; gt < MAXG * PNB; gt += NT / 32) {
            const int gg = gt / PNB, tt = gt % PNB, q = w + gg * nw;
            const int64_t j = (int64_t)q * PNB + tt;
            if (!wk_active(a, q, b) || j >= a.n) continue;
            const double *src = a.R + r0 + j * a.ldr;
            for (int rr = 1 + lane; rr <= nrb; rr += 32) cp8(tile + gt * LDD + rr, src + rr);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    };
    fetch(0);
    for (int b = 0; b < a.Pd; b++) {
        bool any = false;
        for (int gg = 0; gg < MAXG; gg++) any |= wk_active(a, w + gg * nw, b);
        if (!any) break;
        long long tw;
        const int nrb = wk_take(a, b, rc, pw, tw);
        const int64_t r0 = (int64_t)b * PNB;
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        __syncthreads();
        const bool act = mine && wk_active(a, qm, b);
        if (act) {
            double *col = tile + tid * LDD;
            if (nrb == PNB) {
                for (int i0 = 0; i0 < PNB; i0 += 8) apply8_1(col + i0, rc + i0, rc + PNB + i0, x);
            } else {
                for (int i = 0; i < nrb; i++) {
                    const double y = col[i + 1], ci = rc[i], si = rc[PNB + i];
                    col[i] = si * y + ci * x;
                    x = ci * y - si * x;
                }
            }
        }
        __syncthreads();
        /* the finished rows r0 .. r0 + nrb - 1 */
        for (int gt = warp; gt < MAXG * PNB; gt += NT / 32) {
            const int gg = gt / PNB, tt = gt % PNB, q = w + gg * nw;
            const int64_t j = (int64_t)q * PNB + tt;
            if (!wk_active(a, q, b) || j >= a.n) continue;
            double *dst = a.R + r0 + j * a.ldr;
#pragma unroll 2
            for (int rr = lane; rr < nrb; rr += 32) dst[rr] = tile[gt * LDD + rr];
        }
        /* a panel's last block: its carry, then (after everyone's stores) its flag */
        const bool last = act && !wk_active(a, qm, b + 1);
        if (last) a.R[r0 + nrb + jm * a.ldr] = x;
        __syncthreads();
        if (tid == 0) {
            bool fence = false;
            for (int gg = 0; gg < MAXG; gg++) {
                const int q = w + gg * nw;
                if (q < a.Pd && wk_active(a, q, b) && !wk_active(a, q, b + 1)) {
                    if (!fence) __threadfence();
                    fence = true;
                    vstore(a.sync + 1 + q, 1);
                }
            }
        }
        if (b + 1 < a.Pd) fetch(b + 1);
        if (pw >= 0) PROF_ADD(pw + 1, tw);
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

__global__ void __launch_bounds__(NT, 1) h2t_persistent(Args a)
{
    extern __shared__ double sm[];
    if (blockIdx.x == 0) leader(a, sm);
    else if (a.Pall <= MAXG * (int)(gridDim.x - 1)) worker_regs(a, sm);
    else worker(a, sm);
}

} /* namespace h2tp */

int fused_smem_ready = 0;

int fused_setup()
{
    if (!fused_smem_ready) {
        FTLA_CUDA_TRY(cudaFuncSetAttribute(fused_apply, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)(CW * LDS * sizeof(double))));
        fused_smem_ready = 1;
    }
    return FT_SUCCESS;
}

} /* namespace */

extern "C" {

/* ---- plain table ---- */

static int p_zero_to_hess(ft_queue_t *q, int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                          double *sub, double *c, double *s)
{
    cudaStream_t st = ftla_cuda_queue_stream(q);
    for (int64_t p = m - 2; p >= 0; p--) {
        plain_gen_z2h<<<1, 1, 0, st>>>(p, n, x, R, ldr, sub, c, s);
        FTLA_CUDA_TRY(cudaGetLastError());
        if (n > p + 1) {
            plain_apply<<<(unsigned)cdiv(n - p - 1, PT), PT, 0, st>>>(p, p + 1, n, c, s, R, ldr);
            FTLA_CUDA_TRY(cudaGetLastError());
        }
    }
    return FT_SUCCESS;
}

static int p_hess_to_tri(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                         double *sub, double *c, double *s)
{
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const int64_t ns = m - 1 < n ? m - 1 : n;
    for (int64_t p = 0; p < ns; p++) {
        plain_gen_h2t<<<1, 1, 0, st>>>(p, R, ldr, sub, c, s);
        FTLA_CUDA_TRY(cudaGetLastError());
        if (n > p + 1) {
            plain_apply<<<(unsigned)cdiv(n - p - 1, PT), PT, 0, st>>>(p, p + 1, n, c, s, R, ldr);
            FTLA_CUDA_TRY(cudaGetLastError());
        }
    }
    return FT_SUCCESS;
}

/* Which sweep runs a dlasr or a zero_to_hess application. Measured on the H100 at m = 16384
 * (bench_givens_gpu --lasr; bench/results/issue8-s9/bench_lasr_staged.txt): dlasr, the scan
 * 18x faster on 3 columns, 39x on 192, 5.6x on 2048, the streaming sweep 1.28x faster on 16384
 * columns (the scan then stages c and s once per column); zero_to_hess (the triangle), the scan
 * as fast on a few columns and faster from there (2.65x at 2048, 1.62x at 16384).
 * FTLA_LASR=scan or =stream forces one (tests, benchmarks). */
constexpr int64_t SCAN_MAX_N = 8192;

static int use_scan(int64_t n, int tri)
{
    const char *e = getenv("FTLA_LASR");
    if (e && !strcmp(e, "scan")) return 1;
    if (e && !strcmp(e, "stream")) return 0;
    return tri || n <= SCAN_MAX_N;
}

static unsigned scan_grid(int64_t n) { return (unsigned)(n < 65535 ? n : 65535); }

/* the scan's dynamic shared memory (above the 48 KB default), set once per device */
static int scan_setup(void)
{
    int dev;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    static int done[64];
    if (dev >= 0 && dev < 64 && __atomic_load_n(&done[dev], __ATOMIC_ACQUIRE)) return FT_SUCCESS;
    FTLA_CUDA_TRY(cudaFuncSetAttribute(scan_sweep<true, false>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SCAN_SMEM));
    FTLA_CUDA_TRY(cudaFuncSetAttribute(scan_sweep<false, false>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SCAN_SMEM));
    FTLA_CUDA_TRY(cudaFuncSetAttribute(scan_sweep<false, true>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SCAN_SMEM));
    if (dev >= 0 && dev < 64) __atomic_store_n(&done[dev], 1, __ATOMIC_RELEASE);
    return FT_SUCCESS;
}

/* the scan for n columns (use_scan) where the device gives it its shared memory; else 0 and
 * the streaming sweep runs (a failed attribute call's error cleared) */
static int scan_ok(int64_t n, int tri)
{
    if (!use_scan(n, tri)) return 0;
    if (scan_setup() == FT_SUCCESS) return 1;
    (void)cudaGetLastError();
    return 0;
}

/* dlasr on the device with all rotations known: one launch (shared by both tables) */
static int c_lasr(ft_queue_t *q, char direct, int64_t m, int64_t n, const double *c,
                  const double *s, double *A, int64_t lda)
{
    if (m < 2 || n < 1) return FT_SUCCESS;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const int fwd = direct == 'F' || direct == 'f';
    if (scan_ok(n, 0)) {
        if (fwd) scan_sweep<true, false><<<scan_grid(n), LT, SCAN_SMEM, st>>>(m - 1, n, c, s, A, lda, NULL);
        else scan_sweep<false, false><<<scan_grid(n), LT, SCAN_SMEM, st>>>(m - 1, n, c, s, A, lda, NULL);
    } else {
        const unsigned grid = (unsigned)cdiv(n, 32);
        if (fwd) stream_sweep<true, false><<<grid, 32, 0, st>>>(m - 1, n, c, s, A, lda, NULL);
        else stream_sweep<false, false><<<grid, 32, 0, st>>>(m - 1, n, c, s, A, lda, NULL);
    }
    FTLA_CUDA_TRY(cudaGetLastError());
    return FT_SUCCESS;
}

/* ---- fused table ---- */

/* The rotations of vector zeroing come from the vector alone: all generated first (one serial
 * dlartg chain), then applied to R in one streaming launch, the fill of column j into sub[j]. */
static int f_zero_to_hess(ft_queue_t *q, int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                          double *sub, double *c, double *s)
{
    if (m < 2) return FT_SUCCESS;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    gen_zero<<<1, GT, 0, st>>>(m - 1, x, c, s);
    FTLA_CUDA_TRY(cudaGetLastError());
    if (n > 0) {
        if (scan_ok(n, 1))
            scan_sweep<false, true><<<scan_grid(n), LT, SCAN_SMEM, st>>>(m - 1, n, c, s, R, ldr, sub);
        else
            stream_sweep<false, true><<<(unsigned)cdiv(n, 32), 32, 0, st>>>(m - 1, n, c, s, R,
                                                                             ldr, sub);
        FTLA_CUDA_TRY(cudaGetLastError());
    }
    return FT_SUCCESS;
}

/* The persistent version when the device can run it (cooperative launch, 200 KB of shared
 * memory per block, two or more multiprocessors) and the problem has worker panels; *ran = 0
 * otherwise. */
static double host_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int persistent_h2t(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                          double *sub, double *c, double *s, int *ran)
{
    using namespace h2tp;
    *ran = 0;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const int64_t ns = m - 1 < n ? m - 1 : n;
    if (ns < 4 * PNB) return FT_SUCCESS;
    const char *pe = getenv("FTLA_H2T_PROFILE");
    const double th0 = pe ? host_now() : 0.0;
    /* what the device allows, queried once per device (the attribute, occupancy and
     * shared-memory calls cost host time on every call otherwise) */
    int dev;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    static struct {
        int ready, usable, sms, per;
    } cache[64];
    if (dev < 0 || dev >= 64) return FT_SUCCESS;
    if (!__atomic_load_n(&cache[dev].ready, __ATOMIC_ACQUIRE)) {
        int coop = 0, optin = 0, sms = 0, per = 0;
        FTLA_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        FTLA_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        FTLA_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        const int usable = coop && (size_t)optin >= SMEM + 64 && sms >= 2;
        if (usable) {
            FTLA_CUDA_TRY(cudaFuncSetAttribute(
                h2t_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
            FTLA_CUDA_TRY(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, h2t_persistent, NT, SMEM));
        }
        cache[dev].usable = usable, cache[dev].sms = sms, cache[dev].per = per;
        __atomic_store_n(&cache[dev].ready, 1, __ATOMIC_RELEASE);
    }
    if (!cache[dev].usable) return FT_SUCCESS;
    const int sms = cache[dev].sms, per = cache[dev].per;
    Args a;
    a.m = m, a.n = n, a.ns = ns, a.ldr = ldr, a.R = R, a.sub = sub, a.c = c, a.s = s;
    a.Pd = (int)cdiv(ns, PNB);
    a.Pall = (int)cdiv(n, PNB);
    const int64_t grid = (int64_t)sms * per < 1 + (int64_t)a.Pall ? (int64_t)sms * per
                                                                   : 1 + (int64_t)a.Pall;
    if (grid < 2) return FT_SUCCESS;
    a.prof = NULL;
    { const char *bs = getenv("FTLA_H2T_BSYNC"); a.bsync = bs && bs[0] == '1'; }
    { const char *sn = getenv("FTLA_H2T_SPIN_NS"); a.spin_ns = sn ? atoi(sn) : 0; }
    { const char *ab = getenv("FTLA_H2T_ABLATE"); a.ablate = ab ? atoi(ab) : 0; }
    cudaEvent_t pev[2] = {NULL, NULL};
    if (pe) {
        FTLA_CUDA_TRY(cudaEventCreate(&pev[0]));
        FTLA_CUDA_TRY(cudaEventCreate(&pev[1]));
    }
    if (pe) {
        FTLA_CUDA_TRY(cudaMallocAsync((void **)&a.prof, 16 * sizeof(long long), st));
        FTLA_CUDA_TRY(cudaMemsetAsync(a.prof, 0, 16 * sizeof(long long), st));
    }
    const double th1 = pe ? host_now() : 0.0;
    FT_CHECK(ftla_cuda_queue_scratch(q, (size_t)(a.Pd + 1) * sizeof(int), (void **)&a.sync));
    cudaError_t e = cudaMemsetAsync(a.sync, 0, (size_t)(a.Pd + 1) * sizeof(int), st);
    const double th2 = pe ? host_now() : 0.0;
    if (e == cudaSuccess) {
        void *args[] = {&a};
        if (pev[0]) e = cudaEventRecord(pev[0], st);
        if (e == cudaSuccess)
            e = cudaLaunchCooperativeKernel((const void *)h2t_persistent, dim3((unsigned)grid),
                                            dim3(NT), args, SMEM, st);
        if (e == cudaSuccess && pev[1]) e = cudaEventRecord(pev[1], st);
    }
    const double th3 = pe ? host_now() : 0.0;
    const double th4 = th3;
    FTLA_CUDA_TRY(e);
    if (a.prof) {
        long long h[16];
        int khz = 1;
        FTLA_CUDA_TRY(cudaMemcpyAsync(h, a.prof, sizeof h, cudaMemcpyDeviceToHost, st));
        FTLA_CUDA_TRY(cudaStreamSynchronize(st));
        FTLA_CUDA_TRY(cudaFreeAsync(a.prof, st));
        FTLA_CUDA_TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
        const char *nm[] = {"w0-rot", "bar-end", "w1-wait", "w1-catchup", "w1-follow", "w1-bar2",
                            "h-store", "h-prefetch", "leader", "wk0-spin", "wk0-work",
                            "wkL-spin", "wkL-work", "w0-waitC", "w2-waitA", "w2-all"};
        fprintf(stderr, "h2t-profile n=%lld grid=%lld steps=%d (us):", (long long)n,
                (long long)grid, a.Pd);
        for (int i = 0; i < 16; i++) fprintf(stderr, " %s=%.0f", nm[i], h[i] / (khz * 1e-3));
        float ms = 0.0f;
        FTLA_CUDA_TRY(cudaEventElapsedTime(&ms, pev[0], pev[1]));
        fprintf(stderr, " kernel(events)=%.0f spin_ns=%d host: setup=%.1f alloc=%.1f launch=%.1f "
                "free=%.1f\n", ms * 1e3, a.spin_ns, (th1 - th0) * 1e6, (th2 - th1) * 1e6,
                (th3 - th2) * 1e6, (th4 - th3) * 1e6);
        FTLA_CUDA_TRY(cudaEventDestroy(pev[0]));
        FTLA_CUDA_TRY(cudaEventDestroy(pev[1]));
    }
    *ran = 1;
    return FT_SUCCESS;
}

static int f_hess_to_tri_steps(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                               double *sub, double *c, double *s);

/* the persistent kernel where it can run, else the two-launch steps */
static int f_hess_to_tri_persistent(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                                    double *sub, double *c, double *s)
{
    int ran;
    FT_CHECK(persistent_h2t(q, m, n, R, ldr, sub, c, s, &ran));
    return ran ? FT_SUCCESS : f_hess_to_tri_steps(q, m, n, R, ldr, sub, c, s);
}

/* The default is the slab pipeline (givens_slab.cu; 1.5x / 1.2x the persistent kernel at 8192 /
 * 16384, docs/givens.md "Session 11"), where it cannot run the persistent kernel (min(m-1, n) >=
 * 256 and a device that allows the cooperative launch), else the two-launch steps;
 * FTLA_H2T=persistent selects the persistent kernel, FTLA_GIVENS_PERSISTENT=0 the steps.
 * Of the persistent kernel: compute-sanitizer racecheck reports hazards on
 * it; bench/micro/racecheck_named_bar.cu reproduces the same three kinds of reports on a
 * program with the kernel's barrier layout whose ordering is correct by construction and whose
 * values all check, so they are the tool's view of that layout (docs/givens.md, "Session 8"). */
static int f_hess_to_tri_slab(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                              double *sub, double *c, double *s)
{
    int ran;
    FT_CHECK(givens_slab_h2t(q, m, n, R, ldr, sub, c, s, &ran));
    return ran ? FT_SUCCESS : f_hess_to_tri_persistent(q, m, n, R, ldr, sub, c, s);
}

static int f_hess_to_tri(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                         double *sub, double *c, double *s)
{
    const char *env = getenv("FTLA_GIVENS_PERSISTENT");
    if (env && env[0] == '0') return f_hess_to_tri_steps(q, m, n, R, ldr, sub, c, s);
    const char *h = getenv("FTLA_H2T");
    if (h && !strcmp(h, "persistent")) return f_hess_to_tri_persistent(q, m, n, R, ldr, sub, c, s);
    return f_hess_to_tri_slab(q, m, n, R, ldr, sub, c, s);
}

/* one diagonal-block launch and one apply launch per 64 rotations */
static int f_hess_to_tri_steps(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                               double *sub, double *c, double *s)
{
    FT_CHECK(fused_setup());
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const size_t smem = CW * LDS * sizeof(double);
    const int64_t ns = m - 1 < n ? m - 1 : n;
    for (int64_t p0 = 0; p0 < ns; p0 += NB) {
        const int nr = (int)(ns - p0 < NB ? ns - p0 : NB);
        fused_diag_h2t<<<1, NB, 0, st>>>(p0, nr, R, ldr, sub, c, s);
        FTLA_CUDA_TRY(cudaGetLastError());
        const int64_t j0 = p0 + nr;
        if (n > j0) {
            fused_apply<<<(unsigned)cdiv(n - j0, CW), CW, smem, st>>>(p0, nr, 1, j0, n, c, s, R,
                                                                      ldr);
            FTLA_CUDA_TRY(cudaGetLastError());
        }
    }
    return FT_SUCCESS;
}

static const givens_kernels_t g_plain = {"cuda-plain", p_zero_to_hess, p_hess_to_tri, c_lasr};
static const givens_kernels_t g_fused = {"cuda-fused", f_zero_to_hess, f_hess_to_tri, c_lasr};
static const givens_kernels_t g_steps = {"cuda-fused-steps", f_zero_to_hess, f_hess_to_tri_steps,
                                         c_lasr};
static const givens_kernels_t g_persist = {"cuda-fused-persistent", f_zero_to_hess,
                                           f_hess_to_tri_persistent, c_lasr};

const givens_kernels_t *givens_kernels_cuda_plain(void) { return &g_plain; }
const givens_kernels_t *givens_kernels_cuda_fused(void) { return &g_fused; }
const givens_kernels_t *givens_kernels_cuda_steps(void) { return &g_steps; }
const givens_kernels_t *givens_kernels_cuda_persistent(void) { return &g_persist; }
static const givens_kernels_t g_slab = {"cuda-fused-slab", f_zero_to_hess, f_hess_to_tri_slab,
                                        c_lasr};
const givens_kernels_t *givens_kernels_cuda_slab(void) { return &g_slab; }

} /* extern "C" */
