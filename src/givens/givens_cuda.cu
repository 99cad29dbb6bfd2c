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

/* Vector zeroing + triangular -> Hessenberg, diagonal block: rotations p0 .. p0+nr-1
 * generated bottom-up from x (x[p0+nr] holds the partial norm carried from below), then applied
 * to columns j in [p0, min(p0+nr, n)) (thread t: column p0+t; its chain starts with the fill
 * at p = j). blockDim.x = NB. */
__global__ void __launch_bounds__(NB) fused_diag_z2h(int64_t p0, int nr, int64_t n, double *x,
                                                     double *R, int64_t ldr, double *sub,
                                                     double *c, double *s)
{
    __shared__ double sc[NB], ss[NB];
    const int t = threadIdx.x;
    if (t == 0) {
        double acc = x[p0 + nr];
        for (int i = nr - 1; i >= 0; i--) {
            double r;
            givens_lartg(x[p0 + i], acc, &sc[i], &ss[i], &r);
            x[p0 + i + 1] = 0.0;
            acc = r;
        }
        x[p0] = acc;
    }
    __syncthreads();
    if (t < nr) {
        c[p0 + t] = sc[t];
        s[p0 + t] = ss[t];
        const int64_t j = p0 + t;
        if (j < n) {
            double *a = R + j * ldr;
            /* fill: rotation t (rows j, j+1), row j+1 below the diagonal is zero */
            const double ajj = a[j];
            sub[j] = -ss[t] * ajj;
            double xv = sc[t] * ajj;
            for (int i = t - 1; i >= 0; i--) {
                const double y = a[p0 + i];
                a[p0 + i + 1] = sc[i] * xv - ss[i] * y;
                xv = ss[i] * xv + sc[i] * y;
            }
            a[p0] = xv;
        }
    }
}

/* zero x (length m) bottom-up without touching R (rotations p >= n), one thread */
__global__ void tail_z(int64_t plo, int64_t phi, double *x, double *c, double *s)
{
    double acc = x[phi + 1];
    for (int64_t p = phi; p >= plo; p--) {
        double r;
        givens_lartg(x[p], acc, &c[p], &s[p], &r);
        x[p + 1] = 0.0;
        acc = r;
    }
    x[plo] = acc;
}

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

/* dlasr on the device with all rotations known: blocks of NB rows, each an apply over all
 * columns (shared by both tables) */
static int c_lasr(ft_queue_t *q, char direct, int64_t m, int64_t n, const double *c,
                  const double *s, double *A, int64_t lda)
{
    if (m < 2 || n < 1) return FT_SUCCESS;
    FT_CHECK(fused_setup());
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const size_t smem = CW * LDS * sizeof(double);
    const int64_t np = m - 1;
    const int fwd = direct == 'F' || direct == 'f';
    for (int64_t b = 0; b < cdiv(np, NB); b++) {
        const int64_t p0 = fwd ? b * NB : (np - (b + 1) * NB > 0 ? np - (b + 1) * NB : 0);
        const int64_t p1 = fwd ? (p0 + NB < np ? p0 + NB : np) : np - b * NB;
        fused_apply<<<(unsigned)cdiv(n, CW), CW, smem, st>>>(p0, (int)(p1 - p0), fwd, 0, n, c, s,
                                                             A, lda);
        FTLA_CUDA_TRY(cudaGetLastError());
    }
    return FT_SUCCESS;
}

/* ---- fused table ---- */

static int f_zero_to_hess(ft_queue_t *q, int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                          double *sub, double *c, double *s)
{
    if (m < 2) return FT_SUCCESS;
    FT_CHECK(fused_setup());
    cudaStream_t st = ftla_cuda_queue_stream(q);
    const size_t smem = CW * LDS * sizeof(double);
    int64_t np = m - 1; /* rotations 0 .. m-2 */
    if (np > n) {       /* rotations p >= n touch no element of R: the vector alone */
        tail_z<<<1, 1, 0, st>>>(n, np - 1, x, c, s);
        FTLA_CUDA_TRY(cudaGetLastError());
        np = n;
    }
    for (int64_t p1 = np; p1 > 0; p1 -= NB) {
        const int64_t p0 = p1 - NB > 0 ? p1 - NB : 0;
        const int nr = (int)(p1 - p0);
        fused_diag_z2h<<<1, NB, 0, st>>>(p0, nr, n, x, R, ldr, sub, c, s);
        FTLA_CUDA_TRY(cudaGetLastError());
        if (n > p1) {
            fused_apply<<<(unsigned)cdiv(n - p1, CW), CW, smem, st>>>(p0, nr, 0, p1, n, c, s, R,
                                                                      ldr);
            FTLA_CUDA_TRY(cudaGetLastError());
        }
    }
    return FT_SUCCESS;
}

static int f_hess_to_tri(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
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

const givens_kernels_t *givens_kernels_cuda_plain(void) { return &g_plain; }
const givens_kernels_t *givens_kernels_cuda_fused(void) { return &g_fused; }

} /* extern "C" */
