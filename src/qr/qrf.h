/*
 * qrf.h — the FT factor's rotation sequences (ftla.h ft_qrf_t; docs/recovery.md). One record per
 * QR-update recovery, in the order they ran: the recovery at panel boundary i (columns < i
 * finished, i = min(m, n) at the final check) transformed the state by G^T J^T, where
 *   J^T = the rotations of planes nj-1 .. 0 applied in that order (bottom-up; plane t acts on
 *         rows t, t+1 as [c s; -s c], dlasr's convention), nj = m - 1;
 *   G^T = the rotations of planes 0 .. ng-1 applied in that order (top-down).
 * So Q = H_0 ... H_(i-1) J G H_i ... : the rotations sit between reflectors i-1 and i.
 */
#ifndef FTLA_QRF_H
#define FTLA_QRF_H

#include "ftla.h"

#include <float.h>

typedef struct {
    int64_t i, nj, ng;
    double *cj, *sj, *cg, *sg; /* one allocation, at cj */
} qrf_rec_t;

struct ft_qrf {
    int64_t m, n;  /* the factored shape (0 x 0 when never filled) */
    int nrec, cap;
    qrf_rec_t *rec;
};

/* Empty F for an m x n factorization (keeps its memory). */
void qrf_reset(struct ft_qrf *F, int64_t m, int64_t n);
/* Append a record (host copies of the rotations); FT_ERR_ALLOC on failure. */
int qrf_add(struct ft_qrf *F, int64_t i, int64_t nj, int64_t ng, const double *cj,
            const double *sj, const double *cg, const double *sg);

/* One sweep of rotations of a record (qr_solve_kernels.h, qr_rotate_ref): the planes t0,
 * t0 + dt, ... (cnt of them) of J (g = 0: cj, sj) or of G (g = 1: cg, sg), each applied as P_t
 * (transposed = 0) or P_t^T, from the side of the call. */
typedef struct {
    int g, transposed;
    int64_t t0, dt, cnt;
} qrf_sweep_t;

/* The sweeps (returned: how many, at most 2, in the order they run) that apply record r to a
 * matrix C: left, inverse = 0: C := R^T C (the direction the recovery transformed the state),
 * 1: C := R C; right: C := C R (0) or C R^T (1), where R = J G. The host ft_dormqr and
 * ft_dormqr_gpu both take the order from here. */
int qrf_record_sweeps(const qrf_rec_t *r, int left, int inverse, qrf_sweep_t sw[2]);

/* Apply record r to the host matrix C (m x n) with qrf_record_sweeps' meaning. */
void qrf_apply_record(const qrf_rec_t *r, int left, int inverse, double *C, int64_t m, int64_t n,
                      int64_t ldc);

/* The argument checks of ft_dormqr (also ft_dormqr_gpu) and ft_dgels (ft_dgels_gpu: no work
 * arguments, gpu = 1): the number of the first illegal argument in LAPACK order, or 0. */
int qrf_ormqr_arg(char side, char trans, ft_int m, ft_int n, ft_int k, ft_int lda,
                  const struct ft_qrf *F, ft_int ldc);
int qrf_gels_arg(int gpu, char trans, ft_int m, ft_int n, ft_int nrhs, ft_int lda, ft_int ldb,
                 ft_int lwork);

/* LAPACK dgels' scaling thresholds [smlnum, bignum] = [dlamch('S') / dlamch('P'), 1 / smlnum]:
 * A and B whose largest element lies outside are scaled into it before the solve. */
#define QRF_SMLNUM (DBL_MIN / DBL_EPSILON)
#define QRF_BIGNUM (1.0 / QRF_SMLNUM)

#endif
