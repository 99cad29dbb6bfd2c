/*
 * dropin.h — what the drop-in entry points share (docs/fortran.md, "Errors"): routines with the
 * reference BLAS / LAPACK signatures (the Fortran ABI symbols of fortran.c; an interposer of
 * dgemm_ / dgeqrf_ may use the same) report argument errors through the program's XERBLA, and
 * keep their ftla status for ft_last_status() because the reference signatures have no status
 * return (DGEMM not even an INFO).
 */
#ifndef FTLA_DROPIN_H
#define FTLA_DROPIN_H

#include "ftla.h"

/* The program's XERBLA: xerbla_(srname, &info, len) as a Fortran caller makes the call (the first
 * xerbla_ in the process's symbol lookup order: the program's own, else the BLAS library's).
 * srname is the reference routine's name as the reference passes it, e.g. "DGEMM " (6 characters,
 * no NUL needed). Where no xerbla_ is linked at all, ft_xerbla(srname, info) instead. */
void ft_dropin_xerbla(const char *srname, int len, int info);

/* Record status as the calling thread's ft_last_status(). loud != 0 and status != 0 (a library
 * error: the routine has no other way to say so) also prints one line on stderr naming routine,
 * the status and its text. */
void ft_dropin_status(const char *routine, int status, int loud);

#endif /* FTLA_DROPIN_H */
