/*
 * qr_solve_kernels.h — the work of ft_dormqr_gpu / ft_dgels_gpu (qr_solve_gpu.c) that is not
 * BLAS: the FT factor's plane rotations applied to a matrix, transposition and scaling. One table
 * per backend (docs/architecture.md, module op tables): host (qr_solve_host.c: the reference
 * loops as host-queue tasks) and cuda (qr_solve_cuda.cu). All pointers are in the backend's work
 * memory; the work runs on queue q.
 */
#ifndef FTLA_QR_SOLVE_KERNELS_H
#define FTLA_QR_SOLVE_KERNELS_H

#include "backend/backend.h"

/*
 * The rotation sweep of the FT factor (qrf.h): P_t = the identity with [c_t s_t; -s_t c_t] in
 * rows / columns (t, t+1) (dlasr's convention), for the planes t = t0, t0 + dt, ..., cnt of them
 * (dt = +1 or -1), applied one after the other in that order:
 *   left:  C := P_t C  (transposed = 0) or P_t^T C  — rows t, t+1 of every column;
 *   right: C := C P_t  (transposed = 0) or C P_t^T  — columns t, t+1 of every row.
 * Each is x' = c x + e y, y' = c y - e x on the pair (x, y), with e = +-s as the case says.
 * C is m x n (ld ldc); c and s are indexed by t.
 */
void qr_rotate_ref(int left, int transposed, int64_t t0, int64_t dt, int64_t cnt, const double *c,
                   const double *s, double *C, int64_t m, int64_t n, int64_t ldc);

typedef struct qr_solve_kernels {
    const char *name; /* "host", "cuda" */
    /* qr_rotate_ref's semantics, as work on q */
    int (*rot)(ft_queue_t *q, int left, int transposed, int64_t t0, int64_t dt, int64_t cnt,
               const double *c, const double *s, double *C, int64_t m, int64_t n, int64_t ldc);
    /* B := A^T: A m x n (ld lda), B n x m (ld ldb); A and B do not overlap. */
    int (*transpose)(ft_queue_t *q, int64_t m, int64_t n, const double *A, int64_t lda, double *B,
                     int64_t ldb);
    /* A := mul A for the m x n A (ld lda): one step of LAPACK dlascl (the caller splits cto/cfrom
     * into factors that neither overflow nor underflow, as dlascl does). */
    int (*scale)(ft_queue_t *q, int64_t m, int64_t n, double mul, double *A, int64_t lda);
    /* X := H_(p1-1)^T ... H_p0^T X (trans) or H_p0 ... H_(p1-1) X for the m x nx block X
     * (ld ldx; a few columns: the recovery's one vector, a checksum block's three), H_p =
     * I - V_p T_p V_p^T with V_p unit lower in A(i:m, i:i+ib) (ld lda), i = p nb, ib =
     * min(nb, k - i), T_p at T + p nb nb (ld nb): one launch per four columns instead of BLAS
     * calls per panel. May be NULL, or set *done = 0 and leave X alone: the caller uses the
     * BLAS path. */
    int (*reflect)(ft_queue_t *q, int trans, int64_t m, int64_t k, int64_t nb, int64_t p0,
                   int64_t p1, const double *A, int64_t lda, const double *T, double *X,
                   int64_t ldx, int64_t nx, int *done);
} qr_solve_kernels_t;

/* The table of a backend (never NULL for the host or cuda backend). */
const qr_solve_kernels_t *qr_solve_kernels(const ft_backend_t *be);
/* NULL in builds without CUDA. */
const qr_solve_kernels_t *qr_solve_kernels_cuda(void);

#endif
