/* dropin.c — errors of the drop-in entry points: the program's XERBLA, the last status
 * (dropin.h, docs/fortran.md "Errors"). */
#include "interface/dropin.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The program's XERBLA, if any is linked: weak, so that a program linked without one (a static
 * link whose BLAS archive member holding xerbla_ was not pulled in) still links and gets
 * ft_xerbla. A program's own XERBLA comes first in the lookup order; a BLAS library's is next
 * (OpenBLAS's prints and returns; reference BLAS's prints and STOPs: that is the program's
 * choice of XERBLA, as with the reference routines). */
#if defined(__GNUC__) || defined(__clang__)
extern void xerbla_(const char *srname, const int *info, size_t srname_len) __attribute__((weak));
#define FT_HAVE_WEAK_XERBLA 1
#endif

void ft_dropin_xerbla(const char *srname, int len, int info)
{
#ifdef FT_HAVE_WEAK_XERBLA
    if (xerbla_) {
        xerbla_(srname, &info, (size_t)len);
        return;
    }
#endif
    char name[16];
    int n = len < (int)sizeof name - 1 ? len : (int)sizeof name - 1;
    while (n > 0 && srname[n - 1] == ' ') n--; /* Fortran's blank padding */
    memcpy(name, srname, (size_t)n);
    name[n] = '\0';
    ft_xerbla(name, info);
}

/* Per thread, as the default contexts: a thread sees the status of its own last call. */
static _Thread_local int t_last_status;

void ft_dropin_status(const char *routine, int status, int loud)
{
    t_last_status = status;
    if (loud && status != 0)
        fprintf(stderr,
                "ftla: %s: %s (status %d): its output is not verified; FT_LAST_STATUS() "
                "(Fortran) / ft_last_status() (C) returns the status\n",
                routine, ft_strerror(status), status);
}

int ft_last_status(void) { return t_last_status; }
