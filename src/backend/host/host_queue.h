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
/* The host backend's col_asum_max (||x_c||_1 and max |x_ic| of every column) that also copies X
 * to copy (ld ldc) from the same loads, with non-temporal stores (host_reduce.c): ft_dgeqrf's
 * copy of A for recovery taken by its encoding's pass (qr_source_begin, qr_encode). */
int ft_host_col_asum_max_copy(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                              int64_t ldx, double *asum, double *amax, double *copy, int64_t ldc);
int ft_host_block_sums_now(char trans, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                           int64_t T, double scale, double *sums, int64_t lds, double *abss,
                           int64_t ldabs);

#endif
