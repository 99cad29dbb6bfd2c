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

/* Apply record r to the host matrix C (m x n): left, inverse = 0: C := R^T C (the direction
 * the recovery transformed the state), 1: C := R C; right: C := C R (0) or C R^T (1), where
 * R = J G. */
void qrf_apply_record(const qrf_rec_t *r, int left, int inverse, double *C, int64_t m, int64_t n,
                      int64_t ldc);

#endif
