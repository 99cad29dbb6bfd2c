/*
 * preload_ormqr.h — the checksum arithmetic of the interposed dormqr_ (docs/interposer.md
 * "dormqr_"): the working copy of C with one checksum column (side L) or row (side R), the
 * threshold, and the check after the real routine has applied Q. Pure host arithmetic, no
 * allocation; preload.c does the rest (the real routine, the retry, the report).
 *
 * Side L, op(Q) C (m x n): the real dormqr runs on W = [C | w C e] (m x (n+1), ld m) and, Q
 * being applied to every column alike, leaves op(Q) (w C e) in the last column; row i is checked
 * as |sum_j w W(i, j) - W(i, n)| <= tau. Side R, C op(Q): W = [C; w e^T C] ((m+1) x n, ld m+1),
 * column j checked as |sum_i w W(i, j) - W(m, j)| <= tau. w = 2^-p with 2^p >= the number of
 * summed entries d (n for L, m for R): each term is scaled exactly (power of two) and the sums
 * cannot overflow where C does not.
 */
#ifndef FTLA_PRELOAD_ORMQR_H
#define FTLA_PRELOAD_ORMQR_H

#include <stdint.h>

/* w = 2^-p, the smallest power of two with 2^p >= d (d >= 1). */
double ormqr_weight(int64_t d);

/* Fill W from C (left: m x (n+1), ld m; right: (m+1) x n, ld m + 1) with the checksum column /
 * row, and return ||C||_F (+Inf when it overflows; NaN when C holds a NaN or an Inf). */
double ormqr_fill(int left, int64_t m, int64_t n, const double *C, int64_t ldc, double *W,
                  double w);

/* The threshold for k reflectors on an m x n C with ||C||_F = fro (docs/interposer.md): a
 * bound on the rounding of the application (normwise, 8 (k + 2) u per column or row, the
 * checksum's included), of the check's own sum, and of gradual underflow. Not finite when fro
 * is not (the check is then not possible: the call is reported unchecked). */
double ormqr_tau(int left, int64_t m, int64_t n, int64_t k, double fro, double w);

/* The rows (left) or columns (right) of W whose check exceeds tau (or is NaN): returns how
 * many, the first in *first, and in *nonfinite whether a failing one is not finite (the result
 * overflowed or holds NaN). acc: m doubles of scratch (left only). */
int64_t ormqr_check(int left, int64_t m, int64_t n, const double *W, double w, double tau,
                    double *acc, int64_t *first, int *nonfinite);

/* C (m x n, ld ldc) := the data part of W. */
void ormqr_copy_back(int left, int64_t m, int64_t n, const double *W, double *C, int64_t ldc);

#endif
