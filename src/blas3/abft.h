/*
 * abft.h — the ABFT formulas of ft_dgemm, shared by the host code and the CUDA kernels so both
 * compute exactly the same checks. Derivation and reasoning: docs/thresholds.md.
 */
#ifndef FTLA_ABFT_H
#define FTLA_ABFT_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define FT_HD __host__ __device__ __forceinline__
#else
#define FT_HD static inline
#endif

/* Smallest power of two >= T: the weight denominator, so every weight is exact in binary. */
FT_HD int64_t abft_wden(int64_t T)
{
    int64_t W = 1;
    while (W < T) W <<= 1;
    return W;
}

/* Weight of local column jj (0 <= jj < T) of a block: w = (W + jj + 1) / (2W), in (1/2, 1].
 * In (1/2, 1] so that (a) a data error delta shows in the weighted check as w*delta >= delta/2
 * (it cannot hide under the threshold when the plain check fires), (b) weighted sums never
 * exceed plain absolute sums (no extra overflow), (c) w is exact, so w = dw/de locates jj. */
FT_HD double abft_weight(int64_t jj, int64_t W)
{
    return (double)(W + jj + 1) * (0.5 / (double)W); /* 0.5/W is a power of two: exact */
}

/* Inverse of abft_weight: the local column a ratio dw/de points to (may be out of range). */
FT_HD int64_t abft_locate(double ratio, int64_t W)
{
    double x = ratio * (double)(2 * W) - (double)(W + 1);
    return (int64_t)floor(x + 0.5);
}

/*
 * Threshold of one check (a sum of T elements of C = alpha*op(A)*op(B) + beta*C0 along a row of
 * a tile, or along a column), compared with its prediction. u = unit roundoff, eta = smallest
 * subnormal. With
 *   g  >= sum over the T elements of |op(A)(i,:)| |op(B)(:,j)|   (Cauchy-Schwarz-free bound:
 *         ||op(A)(i,:)||_1 * max_l z(l), z = block row sums of |op(B)|; docs/thresholds.md)
 *   h  =  sum over the T elements of |C0(i,j)|
 *   s  =  sum over the T elements of |C(i,j)| (computed result)
 * the computed check and prediction differ by at most
 *   gamma_{2k+2T+4} (|alpha| g + |beta| h) + gamma_T s   (+ underflow terms)
 * We flag above tol * that bound: never on rounding alone, whatever the scaling of the data.
 */
FT_HD double abft_tau(double tol, int64_t k, int64_t T, double alpha, double beta, double g,
                      double h, double s)
{
    const double u = DBL_EPSILON / 2;
    const double eta = 4.9406564584124654e-324; /* 2^-1074 */
    double kk = (double)k, tt = (double)T;
    double bound = (2.0 * kk + 2.0 * tt + 4.0) * (fabs(alpha) * g + fabs(beta) * h) + (tt + 1.0) * s;
    return tol * (u * bound + (kk + 2.0) * (tt + 1.0) * 4.0 * eta);
}

/* The computed-sum part of the threshold, gamma_T * s (abft_tau with g = h = 0, no eta). */
FT_HD double abft_tau_s(double tol, int64_t T, double s)
{
    return tol * (DBL_EPSILON / 2) * ((double)T + 1.0) * s;
}

/* One failing check, as reported by verify_rows. */
typedef struct abft_flag {
    int64_t row;  /* row of C */
    int64_t blk;  /* column block J */
    double de;    /* plain check minus prediction */
    double dw;    /* weighted check minus prediction */
    double tau;   /* threshold used */
} abft_flag_t;

/* Inputs of the row-check comparison (all work-memory pointers, column-major, ld = m). */
typedef struct abft_rowcheck_args {
    int64_t m, nb, k, T, W;
    double alpha, beta, tol;
    const double *sums;   /* m x 2nb: plain/weighted block row sums of the computed C */
    const double *abss;   /* m x nb : absolute block row sums of the computed C */
    const double *pred;   /* m x 2nb: op(A) * Y (Y = block row sums of op(B)) */
    const double *anorm;  /* m     : ||op(A)(i,:)||_1 */
    const double *zmax;   /* nb    : max_l z_J(l), z_J = block row sums of |op(B)| */
    const double *csums;  /* m x 2nb or NULL: block row sums of C0 (beta != 0) */
    const double *cabss;  /* m x nb or NULL */
} abft_rowcheck_args_t;

/*
 * Evaluate the plain and weighted row checks of (i, J). Returns 0 = pass, 1 = fail,
 * 2 = not verifiable (prediction or threshold not finite: NaN/Inf inputs or overflow; the
 * computed C is then whatever IEEE arithmetic gives and is not treated as a soft error).
 * A non-finite computed sum with a finite prediction fails (an exponent flip to Inf/NaN).
 */
FT_HD int abft_row_check(const abft_rowcheck_args_t *a, int64_t i, int64_t J, double *de,
                         double *dw, double *tau)
{
    int64_t m = a->m;
    double pe = a->alpha * a->pred[i + 2 * J * m];
    double pw = a->alpha * a->pred[i + (2 * J + 1) * m];
    double h = 0.0;
    if (a->csums) {
        pe += a->beta * a->csums[i + 2 * J * m];
        pw += a->beta * a->csums[i + (2 * J + 1) * m];
        h = a->cabss[i + J * m];
    }
    double sabs = a->abss[i + J * m];
    double t = abft_tau(a->tol, a->k, a->T, a->alpha, a->beta, a->anorm[i] * a->zmax[J], h, 0.0);
    double se = a->sums[i + 2 * J * m], sw = a->sums[i + (2 * J + 1) * m];
    *de = se - pe;
    *dw = sw - pw;
    *tau = t;
    /* A non-finite bound means NaN/Inf in the inputs (or overflow): not verifiable. A
     * non-finite prediction under a finite bound cannot come from the inputs (|prediction| is
     * below the bound's ingredients): it is a corrupted checksum, and fails below. */
    if (!isfinite(t)) return 2;
    /* A non-finite computed sum with a finite prediction is an error (exponent flip to Inf/NaN). */
    if (!isfinite(sabs)) return 1;
    t += abft_tau_s(a->tol, a->T, sabs);
    *tau = t;
    if (!(fabs(*de) <= t) || !(fabs(*dw) <= t)) return 1;
    return 0;
}

#endif
