/*
 * givens.h — plane rotations for the QR-update recovery of ft_dgeqrf (paper 004, Sec. 5;
 * docs/givens.md): generation with LAPACK dlartg semantics, application with dlasr semantics
 * (SIDE = 'L', PIVOT = 'V'), and the two tasks of Algorithm 1 on an upper trapezoidal R stored
 * in the upper part of an array whose strictly lower part belongs to someone else (the
 * Householder vectors), with the subdiagonal of the Hessenberg intermediate in its own buffer.
 *
 * Conventions (as dlasr): rotation p acts in the plane of rows (p, p+1) as
 *     [x_p; x_{p+1}] := [c_p s_p; -s_p c_p] [x_p; x_{p+1}],
 * and givens_lartg(f, g) gives c, s, r with [c s; -s c][f; g] = [r; 0].
 *
 * The kernel table has a host implementation (the reference) and two cuda ones: "plain" (one
 * rotation at a time: a generation kernel and an application kernel per rotation) and
 * "fused" (the blocked fused DLARTG + DLASR kernels of Sec. 5.3: a diagonal-block kernel that
 * generates NB rotations and reduces its block in shared memory, then a kernel that applies them
 * to every column right of the block with coalesced tiles, moving along the diagonal by NB).
 */
#ifndef FTLA_GIVENS_H
#define FTLA_GIVENS_H

#include "abft/abft.h" /* FT_HD */
#include "backend/backend.h"

#include <float.h>
#include <math.h>

/* LAPACK dlartg (3.10 on, E. Anderson's algorithm): c >= 0, r = sign(f) sqrt(f^2 + g^2), no
 * overflow or harmful underflow for any finite f, g (the scaled branch). f = 0: c = 0,
 * s = sign(g), r = |g|; g = 0: c = 1, s = 0, r = f. */
FT_HD void givens_lartg(double f, double g, double *c, double *s, double *r)
{
    const double safmin = DBL_MIN, safmax = 1.0 / DBL_MIN;
    const double rtmin = 1.4916681462400413e-154; /* sqrt(safmin) */
    const double rtmax = 4.7403759540545887e+153; /* sqrt(safmax / 2) */
    if (g == 0.0) {
        *c = 1.0;
        *s = 0.0;
        *r = f;
        return;
    }
    if (f == 0.0) {
        *c = 0.0;
        *s = g > 0 ? 1.0 : -1.0;
        *r = fabs(g);
        return;
    }
    const double f1 = fabs(f), g1 = fabs(g);
    if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
#ifdef __CUDA_ARCH__
        /* on the device one reciprocal square root (1 ulp) instead of an IEEE sqrt and two
         * IEEE divisions: this is the serial chain of every Hessenberg-to-triangular
         * reduction, about 10x shorter (docs/givens.md); c^2 + s^2 = 1 to a few ulps */
        const double d2 = f * f + g * g, ri = rsqrt(d2), d = d2 * ri;
        *c = f1 * ri;
        *s = (f > 0 ? g : -g) * ri;
        *r = f > 0 ? d : -d;
#else
        const double d = sqrt(f * f + g * g);
        *c = f1 / d;
        const double rr = f > 0 ? d : -d;
        *s = g / rr;
        *r = rr;
#endif
        return;
    }
    double u = f1 > g1 ? f1 : g1;
    if (u < safmin) u = safmin;
    if (u > safmax) u = safmax;
    const double fs = f / u, gs = g / u;
    const double d = sqrt(fs * fs + gs * gs);
    *c = fabs(fs) / d;
    const double rr = f > 0 ? d : -d;
    *s = gs / rr;
    *r = rr * u;
}

#ifdef __CUDACC__
/* givens_lartg for a serial chain on the device: the range test first, then the unscaled
 * branch with one reciprocal square root and no further branch; zeros and the scaled cases
 * through givens_lartg (bench/micro/h2t_chain.cu measures this chain). */
static __device__ __forceinline__ void givens_lartg_fast(double f, double g, double *c, double *s,
                                                         double *r)
{
    const double rtmin = 1.4916681462400413e-154, rtmax = 4.7403759540545887e+153;
    const double f1 = fabs(f), g1 = fabs(g);
    if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
        const double d2 = fma(f, f, g * g), ri = rsqrt(d2), sr = copysign(ri, f);
        *c = f1 * ri;
        *s = g * sr;
        *r = d2 * sr;
    } else {
        givens_lartg(f, g, c, s, r);
    }
}
#endif

/* ---- host reference (plain loops; also the host kernel table's work) ---------------------- */

/* Zero x(1:n-1) bottom-up: for p = n-2 down to 0, (c_p, s_p, r) = lartg(x_p, x_{p+1}),
 * x_p := r, x_{p+1} := 0. Afterwards x_0 = +-||x||_2. c, s: n - 1 each. */
void givens_ref_zero_vector(int64_t n, double *x, double *c, double *s);

/* dlasr('L', 'V', direct, m, n, c, s, A, lda): direct 'F' applies rotations p = 0 .. m-2,
 * 'B' p = m-2 .. 0. */
void givens_ref_lasr(char direct, int64_t m, int64_t n, const double *c, const double *s,
                     double *A, int64_t lda);

/* Task 1 of Algorithm 1: zero x (m) bottom-up (givens_ref_zero_vector, rotations out in c, s)
 * and apply the rotations (direct 'B') to the m x n upper trapezoidal R (its upper part in R,
 * ld ldr): the result is upper Hessenberg, its subdiagonal H(j+1, j) in sub[j],
 * j < min(m - 1, n). Nothing below the diagonal of R's storage is read or written. */
void givens_ref_zero_to_hess(int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                             double *sub, double *c, double *s);

/* Task 2: reduce the upper Hessenberg H (upper part in R, subdiagonal in sub) to upper
 * triangular top-down: for p = 0 .. min(m - 1, n) - 1, (c_p, s_p) = lartg(H(p,p), sub[p]),
 * applied to rows (p, p+1) of columns p .. n-1; sub is left zero. */
void givens_ref_hess_to_tri(int64_t m, int64_t n, double *R, int64_t ldr, double *sub,
                            double *c, double *s);

/* ---- the kernel table -------------------------------------------------------------------- */

typedef struct givens_kernels {
    const char *name; /* "host", "cuda-plain", "cuda-fused" */
    /* the semantics of the givens_ref_* functions above, as work on queue q; all pointers in the
     * backend's work memory; c, s of length max(m - 1, 0) (lasr: m - 1). */
    int (*zero_to_hess)(ft_queue_t *q, int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                        double *sub, double *c, double *s);
    int (*hess_to_tri)(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr, double *sub,
                       double *c, double *s);
    int (*lasr)(ft_queue_t *q, char direct, int64_t m, int64_t n, const double *c,
                const double *s, double *A, int64_t lda);
} givens_kernels_t;

/* The table for a backend (cuda: the fused kernels); NULL entries never. */
const givens_kernels_t *givens_kernels(const ft_backend_t *be);
const givens_kernels_t *givens_kernels_host(void);
/* NULL in builds without CUDA. */
const givens_kernels_t *givens_kernels_cuda_plain(void);
const givens_kernels_t *givens_kernels_cuda_fused(void);
/* the fused kernels with hess_to_tri as one diagonal and one apply launch per block of 64
 * rotations (what cuda-fused falls back to where the persistent kernel cannot run) */
const givens_kernels_t *givens_kernels_cuda_steps(void);
/* hess_to_tri as one persistent cooperative launch (leader block + worker blocks; falls back to
 * the steps where it cannot run); cuda-fused's default before the slab pipeline */
const givens_kernels_t *givens_kernels_cuda_persistent(void);
/* hess_to_tri as a pipeline of 64-column slabs, one cooperative launch (givens_slab.cu; falls
 * back to the persistent kernel where it cannot run); cuda-fused's default (FTLA_H2T=persistent
 * selects the persistent kernel) */
const givens_kernels_t *givens_kernels_cuda_slab(void);
/* the slab kernel itself: *ran = 0 where it cannot run (nothing done) */
int givens_slab_h2t(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr, double *sub,
                    double *c, double *s, int *ran);

#endif
