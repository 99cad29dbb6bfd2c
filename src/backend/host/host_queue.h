/*
 * host_queue.h — how host-side kernels run on a host queue (used by the host backend and by the
 * modules' host kernel tables; never by algorithm code).
 *
 * A host queue runs work either at once (direct mode, the default) or deferred
 * (FTLA_HOST_DEFERRED=1, or ft_host_set_deferred): each submitted task is copied into the queue
 * and runs only when something needs it — a sync of its queue, an event read, a single-element
 * access, or a task of another queue that waits for it through a fork — and then only as much as
 * is needed. Work on independent queues therefore runs late and out of issue order, the way a
 * GPU may run it, so a missing fork or sync makes a CPU test fail (docs/architecture.md).
 */
#ifndef FTLA_HOST_QUEUE_H
#define FTLA_HOST_QUEUE_H

#include "backend/backend.h"

typedef int (*ft_host_fn)(void *args);

/* Run fn(args) on queue q. Direct mode: now, returning its status. Deferred mode: the size
 * bytes at args are copied and the task queued; its status comes back from a later sync. */
int ft_host_submit(ft_queue_t *q, ft_host_fn fn, const void *args, size_t size);

/* 1 when queues created from now on run deferred. Initialised from FTLA_HOST_DEFERRED. */
int ft_host_deferred(void);
/* Tests: force the mode of queues created from now on (1 deferred, 0 direct, -1 environment). */
void ft_host_set_deferred(int mode);

/* The host reductions, run at once (for use inside a task; backend.h gives their semantics). */
/* host_reduce.c: the backend's generic reductions (backend.h), for the host code that calls them
 * directly (tests) */
int ft_host_qr_wsums(ft_queue_t *q, int64_t m, int64_t n, int64_t i, const double *A,
                     int64_t lda, const double *EW, int64_t ldew, int64_t nbc, int nw, double *X,
                     int64_t ldx);
int ft_host_col_asum_max(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *asum, double *amax);
/* The host backend's whole encoding pass of ft_dgeqrf in one read of A: qr_wsums at i = 0 (X, with
 * the weights EW), the columns' col_asum_max (asum, amax: the same quantities, summed by row
 * blocks) and, when copy is not NULL, A copied there (ld ldc, non-temporal stores). scratch:
 * ft_host_qr_encode_scratch(m, n) doubles. */
int64_t ft_host_qr_encode_scratch(int64_t m, int64_t n);
int ft_host_qr_encode(ft_queue_t *q, int64_t m, int64_t n, const double *A, int64_t lda,
                      const double *EW, int64_t ldew, int64_t nbc, int nw, double *X, int64_t ldx,
                      double *asum, double *amax, double *scratch, double *copy, int64_t ldc);
int ft_host_block_sums_now(char trans, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                           int64_t T, double scale, double *sums, int64_t lds, double *abss,
                           int64_t ldabs);

#endif
