/*
 * qr_pcheck.h — the check of each panel factorization and of the reflectors each update applies
 * (issue 9 items 3 and 4; qr_pcheck.c; docs/qr.md "The panel and the reflectors in use"). One
 * kernel table per backend, as checkpoint.h: host (qr_pcheck.c: the reference loops as
 * host-queue tasks) and cuda (qr_pcheck_cuda.cu).
 */
#ifndef FTLA_QR_PCHECK_H
#define FTLA_QR_PCHECK_H

#include "backend/backend.h"

/* Thread blocks of the cuda arrival kernel at most (its partial results in the scratch). */
#define QR_PC_GMAX 256
/* Doubles of scratch the kernels take for a panel of up to nb columns: the intermediate
 * product of wform (nb x nb), then the partials of QR_PC_GMAX blocks a column. */
#define QR_PC_SCR(nb) ((nb) * (nb) + 3 * QR_PC_GMAX * (nb))

/*
 * Both on queue q, results in work memory; scratch: QR_PC_SCR(ib) doubles of work memory.
 *
 * wform: W = T V_1^T (s R), ib x ib (ld ldw), upper triangular, zeros below the diagonal: T
 *   the upper triangle of T (ld ldt), V_1 the lower triangle of the top ib x ib block of V
 *   (ld ldv, the diagonal as stored), R the upper triangle of R (ld ldr; what is below it is not
 *   read). NULL in a table: the caller forms W with the backend's dtrmm.
 *
 * arrive: the panel's check after Y = s A_p + V W (mi x ib, ld ldy) was formed (in exact
 *   arithmetic Y = [s R; 0], A_p = Q_p [R; 0]). Writes
 *     digV[c] = backend digest() of V(0:mi, c), digT[c] = of T(0:ib, c),  c < ib
 *     ss[c]   = ||V(0:mi, c)||^2
 *     cmx[c]  = max_{ib <= r < mi} |Y(r, c)|  (0 when mi <= ib; NaN propagates)
 *     top     = Y(0:min(ib, mi), 0:ib), ld ldtop Digests are integer sums, bit for bit the
 *   backend's; the sums of floating-point values are in an order of the backend's choosing.
 */
typedef struct qr_pc_kernels {
    const char *name;
    int (*wform)(ft_queue_t *q, int64_t ib, const double *V, int64_t ldv, const double *T,
                 int64_t ldt, const double *R, int64_t ldr, double s, double *W, int64_t ldw,
                 double *scratch);
    int (*arrive)(ft_queue_t *q, int64_t mi, int64_t ib, const double *V, int64_t ldv,
                  const double *T, int64_t ldt, const double *Y, int64_t ldy, uint64_t *digV,
                  uint64_t *digT, double *ss, double *cmx, double *top, int64_t ldtop,
                  double *scratch);
} qr_pc_kernels_t;

/* The same on the host, directly (tests): plain loops in the order of the definitions. */
void qr_pc_wform_ref(int64_t ib, const double *V, int64_t ldv, const double *T, int64_t ldt,
                     const double *R, int64_t ldr, double s, double *W, int64_t ldw);
void qr_pc_arrive_ref(int64_t mi, int64_t ib, const double *V, int64_t ldv, const double *T,
                      int64_t ldt, const double *Y, int64_t ldy, uint64_t *digV,
                      uint64_t *digT, double *ss, double *cmx, double *top, int64_t ldtop);

const qr_pc_kernels_t *qr_pc_kernels(const ft_backend_t *be);
const qr_pc_kernels_t *qr_pc_kernels_cuda(void); /* NULL without CUDA */

#endif
