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

constexpr int PNB = 64, NT = 256, LDL = 2 * PNB + 1, LDD = PNB + 1, MAXG = 4;
constexpr size_t LEADER_DBL = 2 * PNB * LDL + 2 * PNB * LDD + 4 * PNB;
constexpr size_t WORKER_DBL = MAXG * PNB * LDD + 2 * PNB;
constexpr size_t SMEM = (LEADER_DBL > WORKER_DBL ? LEADER_DBL : WORKER_DBL) * sizeof(double);

struct Args {
    int64_t m, n, ns, ldr;
    int Pd, Pall; /* panels with rotations (ceil(ns / 64)), all panels (ceil(n / 64)) */
    double *R, *sub, *c, *s;
    int *sync; /* [0]: blocks published; [1 + q]: panel q has blocks 0 .. q-3 */
    /* diagnostics (FTLA_H2T_PROFILE set): cycle counts per role, printed after the call */
    long long *prof;
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

/* H(r, j) as stored: the upper part of R, the subdiagonal in sub, zero below */
__device__ __forceinline__ double hval(const Args &a, int64_t r, int64_t j)
{
    if (j >= a.n || r >= a.m) return 0.0;
    if (r <= j) return __ldcg(a.R + r + j * a.ldr);
    if (r == j + 1 && j < a.ns) return __ldcg(a.sub + j);
    return 0.0;
}

/* rows r0 + rr (rr in [lo, hi]) of panel q's 64 columns into buf (column stride ld, row rr at
 * buf[t * ld + rr - base]); threads [t0, t0 + nt) of the block */
__device__ void prefetch(const Args &a, double *buf, int ld, int base, int64_t r0, int lo, int hi,
                         int q, int t0, int nt)
{
    const int rows = hi - lo + 1;
    for (int idx = threadIdx.x - t0; idx < PNB * rows; idx += nt) {
        const int t = idx / rows, rr = lo + idx % rows;
        const int64_t r = r0 + rr, j = (int64_t)q * PNB + t;
        double *d = buf + t * ld + rr - base;
        if (j < a.n && r < a.m && r <= j) cp8(d, a.R + r + j * a.ldr);
        else *d = hval(a, r, j);
    }
}

__device__ void leader(const Args &a, double *sm)
{
    /* buffer x of each pair at base + x * size (no local arrays: they would live in memory) */
#define bufL(x) (sm + (x) * (PNB * LDL))
#define bufD(x) (sm + 2 * PNB * LDL + (x) * (PNB * LDD))
    double *rot = sm + 2 * PNB * LDL + 2 * PNB * LDD; /* block b: c at rot + (b&1) 2 NB, s + NB */
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int Pd = a.Pd;

    /* prologue: panel 0's diagonal block, rows 0 .. 64 of panel 1 (its look-ahead rows) */
    prefetch(a, bufD(0), LDD, 0, 0, 0, PNB, 0, 0, NT);
    if (Pd > 1) prefetch(a, bufL(1), LDL, -PNB, 0, 0, PNB, 1, 0, NT);
    cp_wait();
    __syncthreads();

    const long long tl0 = clock64();
    for (int k = 0; k < Pd; k++) {
        long long tp = clock64();
        const int64_t p0 = (int64_t)k * PNB;
        const int nr = (int)(a.ns - p0 < PNB ? a.ns - p0 : PNB);
        const int ncol = (int)(a.n - p0 < PNB ? a.n - p0 : PNB);
        const bool hasL = k + 1 < Pd;
        double *D = bufD(k & 1), *L = bufL((k + 1) & 1);
        double *rc = rot + (k & 1) * 2 * PNB, *rp = rot + ((k + 1) & 1) * 2 * PNB;
        if (warp == 0) {
            /* generate block k; lane owns columns t = lane and lane + 32. Each column runs as a
             * carry chain: x_t = its entry in row p after rotations 0 .. p-1 (a register), the
             * original row p+1 read from D (independent of the chain), the finished row p
             * written back. Rotation p+1 is formed by every lane from rotation p and column
             * p+1's carry, diagonal and subdiagonal (shuffled from its owner one step ahead,
             * off the chain): f' = c h - s x, so the serial chain per rotation is two flops and
             * dlartg (one rsqrt) with no shared-memory round trip, barrier or divergence. */
            double x0 = D[lane * LDD], x1 = D[(lane + 32) * LDD];
            const double dg0 = D[lane * LDD + lane];
            const double dg1 = D[(lane + 32) * LDD + lane + 32];
            const double sg0 = D[lane * LDD + lane + 1], sg1 = D[(lane + 32) * LDD + lane + 33];
            double c, s, r;
            givens_lartg_fast(D[0], D[1], &c, &s, &r);
            for (int p = 0; p < nr; p++) {
                const int q = p + 1, ql = q & 31;
                const bool hi = q >= 32;
                /* column p+1 before rotation p (its owner's carry), diagonal, subdiagonal */
                const double xa = __shfl_sync(0xffffffffu, hi ? x1 : x0, ql);
                const double ya = __shfl_sync(0xffffffffu, hi ? dg1 : dg0, ql);
                const double ga = __shfl_sync(0xffffffffu, hi ? sg1 : sg0, ql);
                double cn = 0.0, sn = 0.0, rn = 0.0;
                if (q < nr) givens_lartg_fast(c * ya - s * xa, ga, &cn, &sn, &rn);
                if (lane == 0) {
                    rc[p] = c;
                    rc[PNB + p] = s;
                    a.c[p0 + p] = c;
                    a.s[p0 + p] = s;
                }
                {
                    double *col = D + lane * LDD;
                    const double y = col[p + 1], o = s * y + c * x0;
                    if (lane > p && lane < ncol) col[p] = o;
                    else if (lane == p) col[p] = r;
                    x0 = c * y - s * x0;
                }
                {
                    double *col = D + (lane + 32) * LDD;
                    const double y = col[p + 1], o = s * y + c * x1;
                    if (lane + 32 > p && lane + 32 < ncol) col[p] = o;
                    else if (lane + 32 == p) col[p] = r;
                    x1 = c * y - s * x1;
                }
                /* rotations 8c .. 8c+7 to warp 1: named barrier 3 + c, one arrive and one sync
                 * per step each (warp 1 may be late without holding warp 0 up) */
                if (hasL && (p & 7) == 7) asm volatile("bar.arrive %0, 64;\n" ::"r"(3 + (p >> 3)) : "memory");
                c = cn;
                s = sn;
                r = rn;
            }
            /* columns without a rotation of their own (a wide last block): their carry */
            if (lane >= nr && lane < ncol) D[lane * LDD + nr] = x0;
            if (lane + 32 >= nr && lane + 32 < ncol) D[(lane + 32) * LDD + nr] = x1;
            __syncwarp();
            if (lane == 0) PROF_ADD(0, tp);
        } else if (warp == 1) {
            if (hasL) {
                const int64_t jq = (int64_t)(k + 1) * PNB;
                if (k >= 1) {
                    /* catch panel k+1 up with block k-1: its row (k-1) NB from the workers */
                    if (k + 1 >= 3) {
                        if (lane == 0)
                            while (vload(a.sync + 1 + k + 1) == 0) {
                            }
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
                    for (int i = 0; i < PNB; i++) {
                        const double ci = rp[i], si = rp[PNB + i];
#pragma unroll
                        for (int h = 0; h < 2; h++) {
                            double *col = L + (lane + 32 * h) * LDL;
                            const double y = col[i + 1];
                            col[i] = si * y + ci * x[h];
                            x[h] = ci * y - si * x[h];
                        }
                    }
#pragma unroll
                    for (int h = 0; h < 2; h++) L[(lane + 32 * h) * LDL + PNB] = x[h];
                    if (lane == 0) PROF_ADD(3, tp);
                    tp = clock64();
                }
                /* follow warp 0 through block k (full: k + 1 < Pd) */
                double x[2];
#pragma unroll
                for (int h = 0; h < 2; h++) x[h] = L[(lane + 32 * h) * LDL + PNB];
                for (int i = 0; i < PNB; i++) {
                    if ((i & 7) == 0) asm volatile("bar.sync %0, 64;\n" ::"r"(3 + (i >> 3)) : "memory");
                    const double ci = rc[i], si = rc[PNB + i];
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        double *col = L + (lane + 32 * h) * LDL + PNB;
                        const double y = col[i + 1];
                        col[i] = si * y + ci * x[h];
                        x[h] = ci * y - si * x[h];
                    }
                }
                /* the carry is row 0 of panel k+1's diagonal block: after the helpers have
                 * stored what that buffer held (named barrier 2) */
                if (lane == 0) PROF_ADD(4, tp);
                tp = clock64();
                asm volatile("bar.sync 2, 224;\n" ::: "memory");
                if (lane == 0) PROF_ADD(5, tp);
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    bufD((k + 1) & 1)[(lane + 32 * h) * LDD] = x[h];
                    L[(lane + 32 * h) * LDL + 2 * PNB] = x[h];
                }
            }
        } else {
            const int ht = tid - 64, nh = NT - 64;
            /* publish block k-1 (written by warp 0 before the barrier) */
            if (k >= 1 && ht == 0) {
                __threadfence();
                vstore(a.sync, k);
            }
            /* store panel k-1's diagonal block and panel k's look-ahead rows */
            if (k >= 1) {
                const int64_t q0 = p0 - PNB;
                const double *Dp = bufD((k - 1) & 1);
                for (int idx = ht; idx < PNB * LDD; idx += nh) {
                    const int t = idx / LDD, rr = idx % LDD;
                    const int64_t j = q0 + t, r = q0 + rr;
                    if (j < a.n && r < a.m && rr <= t) a.R[r + j * a.ldr] = Dp[t * LDD + rr];
                }
                if (ht < PNB && q0 + ht < a.ns) a.sub[q0 + ht] = 0.0;
                const double *Lp = bufL(k & 1);
                const int lo = k >= 2 ? 0 : PNB; /* rows (k-2) NB .. k NB - 1 */
                for (int idx = ht; idx < PNB * (2 * PNB - lo); idx += nh) {
                    const int t = idx / (2 * PNB - lo), rr = lo + idx % (2 * PNB - lo);
                    const int64_t j = p0 + t;
                    if (j < a.n) a.R[(p0 - 2 * PNB + rr) + j * a.ldr] = Lp[t * LDL + rr];
                }
            }
            asm volatile("bar.sync 1, 192;\n" ::: "memory");
            if (ht == 0) PROF_ADD(6, tp);
            tp = clock64();
            if (hasL) asm volatile("bar.arrive 2, 224;\n" ::: "memory");
            /* prefetch: rows 1 .. 64 of panel k+1's diagonal block, rows k NB + 1 .. (k+2) NB
             * of panel k+2 (untouched so far) */
            if (hasL) prefetch(a, bufD((k + 1) & 1), LDD, 0, p0 + PNB, 1, PNB, k + 1, 64, nh);
            if (k + 2 < Pd) prefetch(a, bufL(k & 1), LDL, 0, p0, 1, 2 * PNB, k + 2, 64, nh);
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
        long long tw = clock64();
        if (tid == 0)
            while (vload(a.sync) <= b) {
            }
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

__global__ void __launch_bounds__(NT) h2t_persistent(Args a)
{
    extern __shared__ double sm[];
    if (blockIdx.x == 0) leader(a, sm);
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

/* dlasr on the device with all rotations known: one streaming launch (shared by both tables) */
static int c_lasr(ft_queue_t *q, char direct, int64_t m, int64_t n, const double *c,
                  const double *s, double *A, int64_t lda)
{
    if (m < 2 || n < 1) return FT_SUCCESS;
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const unsigned grid = (unsigned)cdiv(n, 32);
    if (direct == 'F' || direct == 'f')
        stream_sweep<true, false><<<grid, 32, 0, st>>>(m - 1, n, c, s, A, lda, NULL);
    else stream_sweep<false, false><<<grid, 32, 0, st>>>(m - 1, n, c, s, A, lda, NULL);
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
        stream_sweep<false, true><<<(unsigned)cdiv(n, 32), 32, 0, st>>>(m - 1, n, c, s, R,
                                                                                 ldr, sub);
        FTLA_CUDA_TRY(cudaGetLastError());
    }
    return FT_SUCCESS;
}

/* The persistent version when the device can run it (cooperative launch, 200 KB of shared
 * memory per block, two or more multiprocessors) and the problem has worker panels; *ran = 0
 * otherwise. */
static int persistent_h2t(cudaStream_t st, int64_t m, int64_t n, double *R, int64_t ldr,
                          double *sub, double *c, double *s, int *ran)
{
    using namespace h2tp;
    *ran = 0;
    const int64_t ns = m - 1 < n ? m - 1 : n;
    if (ns < 4 * PNB) return FT_SUCCESS;
    int dev, coop = 0, optin = 0, sms = 0, per = 0;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (!coop || (size_t)optin < SMEM + 64 || sms < 2) return FT_SUCCESS;
    FTLA_CUDA_TRY(cudaFuncSetAttribute(h2t_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)SMEM));
    FTLA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, h2t_persistent, NT, SMEM));
    Args a;
    a.m = m, a.n = n, a.ns = ns, a.ldr = ldr, a.R = R, a.sub = sub, a.c = c, a.s = s;
    a.Pd = (int)cdiv(ns, PNB);
    a.Pall = (int)cdiv(n, PNB);
    const int64_t grid = (int64_t)sms * per < 1 + (int64_t)a.Pall ? (int64_t)sms * per
                                                                   : 1 + (int64_t)a.Pall;
    if (grid < 2) return FT_SUCCESS;
    const char *pe = getenv("FTLA_H2T_PROFILE");
    a.prof = NULL;
    if (pe) {
        FTLA_CUDA_TRY(cudaMallocAsync((void **)&a.prof, 16 * sizeof(long long), st));
        FTLA_CUDA_TRY(cudaMemsetAsync(a.prof, 0, 16 * sizeof(long long), st));
    }
    FTLA_CUDA_TRY(cudaMallocAsync((void **)&a.sync, (size_t)(a.Pd + 1) * sizeof(int), st));
    cudaError_t e = cudaMemsetAsync(a.sync, 0, (size_t)(a.Pd + 1) * sizeof(int), st);
    if (e == cudaSuccess) {
        void *args[] = {&a};
        e = cudaLaunchCooperativeKernel((const void *)h2t_persistent, dim3((unsigned)grid),
                                        dim3(NT), args, SMEM, st);
    }
    const cudaError_t e2 = cudaFreeAsync(a.sync, st);
    FTLA_CUDA_TRY(e);
    FTLA_CUDA_TRY(e2);
    if (a.prof) {
        long long h[16];
        int khz = 1;
        FTLA_CUDA_TRY(cudaMemcpyAsync(h, a.prof, sizeof h, cudaMemcpyDeviceToHost, st));
        FTLA_CUDA_TRY(cudaStreamSynchronize(st));
        FTLA_CUDA_TRY(cudaFreeAsync(a.prof, st));
        FTLA_CUDA_TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
        const char *nm[] = {"w0-rot", "bar-end", "w1-wait", "w1-catchup", "w1-follow", "w1-bar2",
                            "h-store", "h-prefetch", "leader", "wk0-spin", "wk0-work",
                            "wkL-spin", "wkL-work"};
        fprintf(stderr, "h2t-profile n=%lld grid=%lld steps=%d (us):", (long long)n,
                (long long)grid, a.Pd);
        for (int i = 0; i < 13; i++) fprintf(stderr, " %s=%.0f", nm[i], h[i] / (khz * 1e-3));
        fprintf(stderr, "\n");
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
    FT_CHECK(persistent_h2t(ftla_cuda_queue_stream(q), m, n, R, ldr, sub, c, s, &ran));
    return ran ? FT_SUCCESS : f_hess_to_tri_steps(q, m, n, R, ldr, sub, c, s);
}

/* The default is the two-launch steps: the persistent kernel is 2x faster but compute-sanitizer
 * racecheck still reports hazards on it that are not explained yet (docs/givens.md), so it runs
 * only when asked for (FTLA_GIVENS_PERSISTENT=1, or its own table). */
static int f_hess_to_tri(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                         double *sub, double *c, double *s)
{
    const char *env = getenv("FTLA_GIVENS_PERSISTENT");
    if (env && env[0] == '1') return f_hess_to_tri_persistent(q, m, n, R, ldr, sub, c, s);
    return f_hess_to_tri_steps(q, m, n, R, ldr, sub, c, s);
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

} /* extern "C" */
