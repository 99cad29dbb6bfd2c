/*
 * checkpoint.h — diskless checkpoint of the Householder vectors (paper 004 Sec. 6; docs/qr.md
 * "Protection of Q", docs/fault-model.md).
 *
 * For each column of a panel's Householder vectors (the elements strictly below the diagonal)
 * CKP_NS sums in GF(p) (ckp_field.h) with weights C(t + e - 1, e), e = 0 .. 4, t = m - r for
 * row r of an m-row matrix: the weights 1, t, t(t+1)/2, ... span the same space as paper 004's
 * 1, w_i, w_i^2 (eq. 9), taken exactly (integers in a prime field, not floating point) and with
 * two more: four sums locate and correct up to two changed elements of a column in closed form
 * (eq. 10 twice, no search), the fifth confirms the correction, so three or more changed
 * elements are reported instead of mis-corrected (but with probability ~2^-60).
 * On the host the sums are running sums (additions only); the device forms the weights.
 */
#ifndef FTLA_CHECKPOINT_H
#define FTLA_CHECKPOINT_H

#include "backend/backend.h"

#define CKP_NS 5

/*
 * out[CKP_NS c + e] = sum_{r = c+1}^{m-1} C(m - r + e - 1, e) elem(A(r, c)) mod p for the columns
 * c = 0 .. nc-1 of the m-row A (column-major, ld lda): the strictly lower part of each column.
 */
void ckp_sums_ref(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out);
/* The sums of one run x[0 .. len) with the weights of t = len - r (the last element t = 1):
 * ckp_sums_ref's column sums of a run alone, reduced (the distributed checkpoint: a process's
 * part of a column below the diagonal, contiguous in its local array); *raw,
 * when not NULL, += the plain sum mod 2^64 of the run's bit patterns, read by the same loads. */
void ckp_run_sums(const double *x, int64_t len, uint64_t out[CKP_NS], uint64_t *raw);
/* The first two of ckp_run_sums's sums (S_0, S_1: the same residues), the verification's first
 * pass over a run, as ckp_detect_host's over columns */
void ckp_run_detect(const double *x, int64_t len, uint64_t out[2]);
/* The same sums, deferred reductions, on the shared team (the host kernel). */
void ckp_sums_host(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out);
/* The first two of them only, out[2 c + e] = ckp_sums_ref's out[CKP_NS c + e], e = 0, 1: a
 * change of one or two elements of a column always changes them (S_0 by d1 + d2, S_1 by
 * t1 d1 + t2 d2: both 0 only for t1 = t2), more go unseen with probability ~p^-2. The
 * verification's first pass (a quarter of the multiplies); the columns that differ get all
 * CKP_NS sums to locate (qr_q_verify). */
void ckp_detect_host(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out);

typedef struct ckp_kernels {
    const char *name;
    /* ckp_sums_ref's semantics as work on q; out in the backend's work memory */
    int (*sums)(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                uint64_t *out);
    /* optional (NULL: the verification forms all the sums): ckp_detect_host's semantics */
    int (*detect)(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                  uint64_t *out);
} ckp_kernels_t;

const ckp_kernels_t *ckp_kernels(const ft_backend_t *be);
const ckp_kernels_t *ckp_kernels_cuda(void); /* NULL without CUDA */

/* A located change: row t of the column counted as t = m - r, value delta (mod p) to take away. */
typedef struct {
    int64_t t;
    uint64_t delta;
} ckp_fix_t;

/*
 * From the checkpointed sums ref and the sums now of one column whose rows have t in
 * [1, tmax]: the changes that explain the difference. Returns 0 (no change), 1 or 2 (fix[0..]
 * filled), or -1 (more than two changed elements, or a pattern no one- or two-element change
 * explains: uncorrectable).
 */
int ckp_locate(const uint64_t *ref, const uint64_t *now, int64_t tmax, ckp_fix_t fix[2]);

/* The double whose element is elem(x) - delta (the value before the change). */
double ckp_restore(double x, uint64_t delta);

/* A digest of one column's checkpoint record (its sums and its tau), to notice a corrupted
 * record. */
uint64_t ckp_record(const uint64_t *sums, double tau);

#endif
