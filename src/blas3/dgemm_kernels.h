/*
 * dgemm_kernels.h — ft_dgemm's own device-kernel table (host and cuda implementations), obtained
 * through the backend's kind (docs/architecture.md), and the row-check evaluation they share.
 */
#ifndef FTLA_DGEMM_KERNELS_H
#define FTLA_DGEMM_KERNELS_H

#include "abft/abft.h"
#include "backend/backend.h"

#include <string.h>

/* One failing check, as reported by verify_rows. */
typedef struct dgemm_flag {
    int64_t row;  /* row of C */
    int64_t blk;  /* column block J */
    double de;    /* plain check minus prediction */
    double dw;    /* weighted check minus prediction */
    double tau;   /* threshold used */
} dgemm_flag_t;

/* Inputs of the row-check comparison (all work-memory pointers, column-major, ld = m). */
typedef struct dgemm_rowcheck_args {
    int64_t m, n, nb, k, T, W; /* n: columns of C (the last block may be partial) */
    double alpha, beta, tol;
    double rsig;          /* 1/sigma: every sum below is in units scaled by sigma (abft.h) */
    const double *sums;   /* m x 2nb: plain/weighted block row sums of the computed C */
    const double *abss;   /* m x nb : absolute block row sums of the computed C */
    const double *pred;   /* m x 2nb: op(A) * Y (Y = block row sums of op(B)) */
    const double *anorm;  /* m     : ||op(A)(i,:)||_1 */
    const double *zmax;   /* nb    : max_l z_J(l), z_J = block row sums of |op(B)| */
    const double *csums;  /* m x 2nb or NULL: block row sums of C0 (beta != 0) */
    const double *cabss;  /* m x nb or NULL */
} dgemm_rowcheck_args_t;

/*
 * Evaluate the plain and weighted row checks of (i, J) with the shared decision rule
 * (abft_check). Returns 0 = pass, 1 = fail, 2 = not verifiable (NaN/Inf inputs or overflow).
 */
FT_HD int dgemm_row_check(const dgemm_rowcheck_args_t *a, int64_t i, int64_t J, double *de,
                          double *dw, double *tau)
{
    const int64_t m = a->m;
    double pe = a->alpha * a->pred[i + 2 * J * m];
    double pw = a->alpha * a->pred[i + (2 * J + 1) * m];
    double h = 0.0;
    if (a->csums) {
        pe += a->beta * a->csums[i + 2 * J * m];
        pw += a->beta * a->csums[i + (2 * J + 1) * m];
        h = a->cabss[i + J * m];
    }
    *de = a->sums[i + 2 * J * m] - pe;
    *dw = a->sums[i + (2 * J + 1) * m] - pw;
    const int64_t tj = a->n - J * a->T < a->T ? a->n - J * a->T : a->T; /* block J's width */
    int r = abft_check(a->tol, a->k, tj, a->alpha, a->beta, a->anorm[i], a->zmax[J], h,
                       a->abss[i + J * m], *de, *dw, a->rsig, tau);
    return r == ABFT_UNVERIFIABLE ? 2 : r != ABFT_PASS;
}

/* Scratch bytes verify_rows needs, in work memory and in host (alloc_host) memory alike. */
#define DGEMM_VERIFY_HEAD 256
static inline size_t dgemm_verify_bytes(int64_t cap)
{
    return DGEMM_VERIFY_HEAD + (size_t)cap * sizeof(dgemm_flag_t);
}

typedef struct dgemm_kernels {
    /* Compare every (row, block) check (dgemm_row_check). The failing ones, sorted by (block,
     * row), at most cap of them, are left in host memory at *flags (inside hwork); *nflags
     * counts all (may exceed cap), *nunchecked the unverifiable ones. dwork / hwork: scratch of
     * dgemm_verify_bytes(cap) bytes in work memory / host memory. Synchronises q. */
    int (*verify_rows)(ft_queue_t *q, const dgemm_rowcheck_args_t *args, void *dwork, void *hwork,
                       int64_t cap, dgemm_flag_t **flags, int64_t *nflags, int64_t *nunchecked);
    /* Optional (NULL: the driver uses block_sums twice and copy_matrix). One pass over the
     * input C0 (m x n): its block row sums as block_sums('N', m, n, C0, T, scale, rs, m, ra, m),
     * when cs is not NULL its block column sums as block_sums('T', n, m, C0, T, scale, cs, ldcs,
     * ca, ldcs) (ldcs >= n: a chunk of the columns of a wider C writes into the whole's sums),
     * and, when backup is not NULL, a copy of C0 (unscaled) into backup (ld m).
     * Returns 1, having done nothing, for a tile it does not handle (cuda: T not a multiple of
     * 32); the sums may differ from block_sums' by the order of the additions. */
    int (*c0_pass)(ft_queue_t *q, int64_t m, int64_t n, const double *C0, int64_t ldc, int64_t T,
                   double scale, double *rs, double *ra, double *cs, double *ca, int64_t ldcs,
                   double *backup);
    /* TMR (policy.protect = FT_PROTECT_TMR, dgemm_tmr.c): the element-wise vote of three
     * m x n replicas X0 (ld ldx0: the result), X1 and X2 (ld ldr), compared bit for bit. Where
     * X0 differs from both others and X1 equals X2, X0 := X1; where all three differ, X0 is
     * left as it is. cnt (work memory, 3 words, overwritten): [0] the elements where the three
     * are not all equal, [1] those where all three differ, [2] the smallest i + j m among the
     * elements of [0] (UINT64_MAX when none). */
    int (*tmr_vote)(ft_queue_t *q, int64_t m, int64_t n, double *X0, int64_t ldx0,
                    const double *X1, const double *X2, int64_t ldr, uint64_t *cnt);
    /* Optional (NULL, or a nonzero return before any work: the driver's separate passes). The
     * encoding's passes over op(A) = A^T (A stored k x m, ld lda) in one read: for each stored
     * column i, anorm[i] = sum_l |scale A(l, i)| (block_sums' absolute sums with T = k),
     * P(i, j) = sum_l A(l, i) Y(l, j) for j < nw (Y: k x nw, ld ldy; P ld ldp), and, when dig is
     * not NULL, dig[i] = the digest of column i (backend.h digest, bit for bit). Returns 1,
     * having done nothing, for sizes it does not handle (nw > 8); a status < 0 on failure. */
    int (*encode_at)(ft_queue_t *q, int64_t k, int64_t m, const double *A, int64_t lda,
                     const double *Y, int64_t ldy, int nw, double scale, double *anorm,
                     double *P, int64_t ldp, uint64_t *dig);
    /* Optional, as encode_at for op(A) = A (A stored m x k, ld lda): anorm[i] =
     * sum_l |scale A(i, l)|, P(i, j) = sum_l A(i, l) Y(l, j) for j < nw, and, when dig is not
     * NULL, dig[l] = the digest of stored column l. Returns 1, having done nothing, for sizes
     * it does not handle. */
    int (*encode_an)(ft_queue_t *q, int64_t m, int64_t k, const double *A, int64_t lda,
                     const double *Y, int64_t ldy, int nw, double scale, double *anorm,
                     double *P, int64_t ldp, uint64_t *dig);
    /* Optional (NULL, or 1 before any work: the driver's separate passes). block_sums(q, trans,
     * rows, cols, X, ldx, T, scale, sums, lds, abss, ldabs) — sums may be NULL (the absolute
     * sums alone), abss may not — and, from the same read, dig[c] = the digest (backend.h) of
     * stored column c of X: cols of them for trans 'N' (X rows x cols), rows for 'T' (X stored
     * cols x rows). The sums may differ from block_sums' by the order of the additions. */
    int (*sums_digest)(ft_queue_t *q, char trans, int64_t rows, int64_t cols, const double *X,
                       int64_t ldx, int64_t T, double scale, double *sums, int64_t lds,
                       double *abss, int64_t ldabs, uint64_t *dig);
} dgemm_kernels_t;

/* The vote of one element (both backends): 0 all equal, 1 outvoted or corrected, 2 all differ.
 * Bitwise: a NaN result is as reproducible as any other (the three products run the same
 * code on the same data). */
FT_HD int dgemm_tmr_vote1(double *x0, double x1, double x2)
{
    uint64_t a, b, c;
    memcpy(&a, x0, 8), memcpy(&b, &x1, 8), memcpy(&c, &x2, 8);
    if (a == b && a == c) return 0;
    if (a == b || a == c) return 1; /* x0 in the majority: a replica was hit */
    if (b == c) {
        *x0 = x1;
        return 1;
    }
    return 2;
}

/* The table for a backend; the cuda one is NULL in builds without CUDA. */
const dgemm_kernels_t *dgemm_kernels(const ft_backend_t *be);
const dgemm_kernels_t *dgemm_kernels_host(void);
const dgemm_kernels_t *dgemm_kernels_cuda(void);

#endif
