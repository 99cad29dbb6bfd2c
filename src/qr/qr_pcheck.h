/*
 * qr_pcheck.h — the check of each panel factorization and of the reflectors each update applies
 * (issue 9 items 3 and 4; qr_pcheck.c; docs/qr.md "Protection of the panel and of the
 * reflectors in use"). One kernel table per backend, as checkpoint.h: host (qr_pcheck.c: the
 * reference loops as host-queue tasks) and cuda (qr_pcheck_cuda.cu).
 */
#ifndef FTLA_QR_PCHECK_H
#define FTLA_QR_PCHECK_H

#include "backend/backend.h"

/* Partial maxima written by the check (the host takes the largest). */
#define QR_PC_G 64

/*
 * The check of a panel when it arrives in work memory. V: mi x ib (ld ldv), the unit lower
 * vectors with explicit ones and zeros; T: ib x ib upper triangular (ld ldt); R: the panel's
 * factored ib x ib block (ld ldr; its upper triangle is R_kk); x: mi, the panel before it was
 * factored times the vector whose elements are `one`. Writes
 *   digV[c] = sum_{r < mi} ft_digest_mix(bits V(r, c), r),  c < ib   (backend digest())
 *   digT[c] = sum_{r < ib} ft_digest_mix(bits T(r, c), r),  c < ib
 *   ss[c] = ||V(:, c)||^2,  c < ib
 *   mx[g], g < QR_PC_G: maxima over parts of the rows of |d(r)| (NaN propagates), where
 *     d = x - V T^T V^T x - [R_kk (one e); 0]
 * so max_g mx[g] = ||d||_inf. In exact arithmetic d = 0: (I - V T V^T)^T = Q^T and Q^T (A e) =
 * R e; and tau_c ||v_c||^2 = 2 where tau_c != 0 (H_c = I - tau_c v_c v_c^T is orthogonal: the
 * check that does not depend on the scale of A). scratch: 3 QR_PC_G ib doubles of work memory.
 */
typedef struct qr_pc_kernels {
    const char *name;
    int (*arrive)(ft_queue_t *q, int64_t mi, int64_t ib, const double *V, int64_t ldv,
                  const double *T, int64_t ldt, const double *R, int64_t ldr, const double *x,
                  double one, uint64_t *digV, uint64_t *digT, double *ss, double *mx,
                  double *scratch);
} qr_pc_kernels_t;

/* The same on the host, directly (tests); scratch: 2 ib doubles. */
void qr_pc_arrive_ref(int64_t mi, int64_t ib, const double *V, int64_t ldv, const double *T,
                      int64_t ldt, const double *R, int64_t ldr, const double *x, double one,
                      uint64_t *digV, uint64_t *digT, double *ss, double *mx, double *scratch);

const qr_pc_kernels_t *qr_pc_kernels(const ft_backend_t *be);
const qr_pc_kernels_t *qr_pc_kernels_cuda(void); /* NULL without CUDA */

#endif
