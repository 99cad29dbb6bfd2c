/*
 * lapack_host.h — the host LAPACK calls of the factorizations (never installed).
 *
 * DESIGN.md: the CPU panel factorization is always host LAPACK (LAPACKE on host memory),
 * whatever the backend of the call. Column-major, 64-bit dimensions checked against the
 * LAPACK integer range. Each function returns 0 or FT_ERR_LAPACK (also for a dimension that
 * does not fit lapack_int, or an allocation failure inside LAPACKE).
 */
#ifndef FTLA_LAPACK_HOST_H
#define FTLA_LAPACK_HOST_H

#include "ftla.h"
#include <stdint.h>

/* QR of the m x n panel P (ld ldp) in place, LAPACK layout; tau gets min(m,n) scalars.
 * work: lwork >= n doubles (n*nb for the blocked dgeqrf inside). Narrow panels (n <= 16)
 * use the unblocked dgeqr2. */
int ft_lapack_panel_qr(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *work,
                       int64_t lwork);
/* T (k x k upper triangular, ld ldt) of the block reflector H = I - V T V^T of k forward,
 * column-wise reflectors stored below the diagonal of the m x k V (dlarft 'F','C'). */
int ft_lapack_larft(int64_t m, int64_t k, const double *V, int64_t ldv, const double *tau,
                    double *T, int64_t ldt);
/* The whole QR by LAPACK (crossover path): LAPACKE_dgeqrf with its own optimal workspace. */
int ft_lapack_dgeqrf(int64_t m, int64_t n, double *A, int64_t lda, double *tau);

#endif
