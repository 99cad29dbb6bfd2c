/* fortran.c — Fortran ABI symbols (gfortran conventions: lower case, trailing underscore, all
 * arguments by reference, hidden character lengths after the last argument, ignored). Fortran
 * programs can also use the iso_c_binding module include/ftla.f90, which binds the C API. */
#include "ftla.h"

#include <stddef.h>

/* SUBROUTINE FT_DGEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC, INFO)
 * INFO is an extra last argument (0, -i, or an ftla status). */
void ft_dgemm_(const char *transa, const char *transb, const ft_int *m, const ft_int *n,
               const ft_int *k, const double *alpha, const double *A, const ft_int *lda,
               const double *B, const ft_int *ldb, const double *beta, double *C,
               const ft_int *ldc, ft_int *info, size_t ltransa, size_t ltransb)
{
    int st = ft_dgemm(*transa, *transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
    if (info) *info = st;
}
