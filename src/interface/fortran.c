/*
 * fortran.c — the Fortran drop-in ABI (docs/fortran.md): FT_DGEMM and FT_DGEQRF with exactly the
 * argument lists of reference BLAS DGEMM and LAPACK DGEQRF, so that a program renames its calls
 * and changes nothing else. gfortran conventions: lower-case names with a trailing underscore,
 * every argument by reference, the hidden lengths of character arguments as size_t after the last
 * argument. Both run on the calling thread's default context (FTLA_* environment variables).
 *
 *   - Arguments are checked as the reference routines check them, in the same order: the first
 *     illegal one goes to the program's XERBLA with the reference name ('DGEMM ', 'DGEQRF') and
 *     its position, and the routine returns with nothing computed (DGEQRF: INFO = -position).
 *   - DGEQRF: workspace query (LWORK = -1), quick return and WORK(1) as LAPACK 3.11.
 *   - Library errors (a fault that could not be corrected, a device failure): DGEQRF returns the
 *     ftla status (<= -1000) in INFO. DGEMM has no INFO: it prints one line on stderr. Both keep
 *     the status of the call for FT_LAST_STATUS() / ft_last_status().
 *
 * The Fortran module include/ftla.f90 binds the C API itself (by value, status returns).
 */
#include "ftla.h"
#include "interface/dropin.h"

#include <stddef.h>

/* LSAME: the same letter, either case. */
static int lsame(char a, char upper) { return a == upper || a == upper - 'A' + 'a'; }

static ft_int imax1(ft_int a) { return a > 1 ? a : 1; }

/* SUBROUTINE FT_DGEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC)
 * As reference DGEMM: C := alpha*op(A)*op(B) + beta*C. */
void ft_dgemm_(const char *transa, const char *transb, const ft_int *m, const ft_int *n,
               const ft_int *k, const double *alpha, const double *A, const ft_int *lda,
               const double *B, const ft_int *ldb, const double *beta, double *C, const ft_int *ldc,
               size_t transa_len, size_t transb_len)
{
    (void)transa_len, (void)transb_len; /* LSAME reads the first character only */
    // reference DGEMM's checks, in its order
    const int nota = lsame(*transa, 'N'), notb = lsame(*transb, 'N');
    const ft_int nrowa = nota ? *m : *k, nrowb = notb ? *k : *n;
    int info = 0;
    if (!nota && !lsame(*transa, 'C') && !lsame(*transa, 'T')) info = 1;
    else if (!notb && !lsame(*transb, 'C') && !lsame(*transb, 'T')) info = 2;
    else if (*m < 0) info = 3;
    else if (*n < 0) info = 4;
    else if (*k < 0) info = 5;
    else if (*lda < imax1(nrowa)) info = 8;
    else if (*ldb < imax1(nrowb)) info = 10;
    else if (*ldc < imax1(*m)) info = 13;
    if (info) {
        ft_dropin_xerbla("DGEMM ", 6, info);
        ft_dropin_status("FT_DGEMM", -info, 0);
        return;
    }
    // the arguments are valid for ft_dgemm too (same rules): it returns 0 or a library error
    int st = ft_dgemm(*transa, *transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
    ft_dropin_status("FT_DGEMM", st, 1);
}

/* SUBROUTINE FT_DGEQRF(M, N, A, LDA, TAU, WORK, LWORK, INFO)
 * As LAPACK DGEQRF; INFO = 0, -i, or an ftla status (<= -1000). */
void ft_dgeqrf_(const ft_int *m, const ft_int *n, double *A, const ft_int *lda, double *tau,
                double *work, const ft_int *lwork, ft_int *info)
{
    // LAPACK 3.11 DGEQRF's checks, in its order (LWORK may be below N when M = 0)
    const int lquery = *lwork == -1;
    int arg = 0;
    if (*m < 0) arg = 1;
    else if (*n < 0) arg = 2;
    else if (*lda < imax1(*m)) arg = 4;
    else if (!lquery && (*lwork <= 0 || (*m > 0 && *lwork < imax1(*n)))) arg = 7;
    if (arg) {
        *info = -arg;
        ft_dropin_xerbla("DGEQRF", 6, arg);
        ft_dropin_status("FT_DGEQRF", -arg, 0);
        return;
    }
    // quick return (LAPACK: WORK(1) = 1); ft_dgeqrf itself would want LWORK >= N here
    if (!lquery && (*m == 0 || *n == 0)) {
        work[0] = 1.0;
        *info = 0;
        ft_dropin_status("FT_DGEQRF", 0, 0);
        return;
    }
    // the query (WORK(1) = ftla's optimal LWORK; 1 when min(M, N) = 0) or the factorization
    ft_int st = 0;
    ft_dgeqrf(*m, *n, A, *lda, tau, work, *lwork, &st);
    *info = st;
    ft_dropin_status("FT_DGEQRF", st, 0);
}

/* INTEGER FUNCTION FT_LAST_STATUS(): ft_last_status() for programs without the module (the
 * module binds this symbol too, for the reason below). */
ft_int ft_last_status_(void) { return ft_last_status(); }

/* The binding labels of the module's ft_dgemm and ft_dgeqrf (include/ftla.f90). A Fortran
 * program's binding labels and the names of its external procedures are one set of global
 * identifiers, compared ignoring case (Fortran 2018, 19.2): a module interface bound to the C
 * name 'ft_dgemm' would clash with the drop-in FT_DGEMM in any program that calls both (gfortran
 * rejects it in one file). So the module binds these: the C functions under other names. */
int ftla_f90_dgemm(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
                   const double *A, ft_int lda, const double *B, ft_int ldb, double beta, double *C,
                   ft_int ldc)
{
    return ft_dgemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int ftla_f90_dgeqrf(ft_int m, ft_int n, double *A, ft_int lda, double *tau, double *work,
                    ft_int lwork, ft_int *info)
{
    return ft_dgeqrf(m, n, A, lda, tau, work, lwork, info);
}
