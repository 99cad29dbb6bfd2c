/*
 * test_internal.c — the core's resources and the host backend's queues, through the internal
 * API: workspace arenas nest (a nested call never receives memory its caller holds, and gets it
 * back at the end), pools reuse queues and events, deferred host queues run work late, in order
 * per queue, and respect forks; direct queues run at once.
 */
#include "backend/host/host_queue.h"
#include "core/call.h"

#include "testing_util.h"

#include <stdio.h>
#include <string.h>


typedef struct {
    int *log;
    int *n;
    int value;
} note_args;

static int note(void *p)
{
    const note_args *a = p;
    a->log[(*a->n)++] = a->value;
    return FT_SUCCESS;
}

static int fail_task(void *p)
{
    (void)p;
    return FT_ERR_INTERNAL;
}

static void test_arena(ft_context_t *ctx)
{
    const ft_backend_t *be = ft_backend_host();
    ft_call_t outer, inner;
    TU_CHECK(ft_call_begin(&outer, ctx, "OUTER", NULL, 0) == 0, "begin");
    TU_CHECK(ft_call_select(&outer, 0.0, 0, 0) == 0 && outer.be == be, "select host");
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    TU_CHECK(ft_call_work(&outer, 1000, &a) == 0 && a, "outer alloc");
    TU_CHECK(ft_call_work(&outer, 5000, &b) == 0 && b && b != a, "outer alloc 2");
    memset(a, 1, 1000);
    memset(b, 2, 5000);
    /* nested call on the same context */
    TU_CHECK(ft_call_begin(&inner, ctx, "INNER", NULL, 0) == 0, "inner begin");
    TU_CHECK(ft_call_select(&inner, 0.0, 0, 0) == 0, "inner select");
    TU_CHECK(ctx->depth == 2, "depth %d", ctx->depth);
    TU_CHECK(ft_call_work(&inner, 800, &c) == 0 && c != a && c != b, "nested block distinct");
    memset(c, 3, 800);
    ft_queue_t *qi;
    TU_CHECK(ft_call_queue(&inner, &qi) == 0 && qi != outer.main, "inner queue");
    TU_CHECK(inner.main == outer.main, "one main queue per context");
    TU_CHECK(ft_call_end(&inner, 0) == 0, "inner end");
    const unsigned char *pa = a, *pb = b;
    TU_CHECK(pa[999] == 1 && pb[4999] == 2, "caller's workspace intact after the nested call");
    /* the nested call's block is free again: the next allocation of that size reuses it */
    TU_CHECK(ft_call_work(&outer, 700, &d) == 0 && d == c, "released block reused");
    TU_CHECK(ft_call_end(&outer, 0) == 0, "outer end");
    TU_CHECK(ctx->depth == 0, "depth back to 0");
    const ft_arena_t *ar = &ctx->work[0];
    for (int i = 0; i < ar->nblk; i++) TU_CHECK(!ar->blk[i].in_use, "block %d still in use", i);
    TU_CHECK(ar->depth == 0, "arena depth %d", ar->depth);
    /* queues go back to the pool and are reused */
    ft_call_t again;
    ft_queue_t *q2;
    ft_call_begin(&again, ctx, "AGAIN", NULL, 0);
    ft_call_select(&again, 0.0, 0, 0);
    TU_CHECK(ft_call_queue(&again, &q2) == 0 && q2 == qi, "pooled queue reused");
    ft_call_end(&again, 0);
    /* large blocks are not kept past the outermost call */
    ft_call_begin(&again, ctx, "LARGE", NULL, 0);
    ft_call_select(&again, 0.0, 0, 0);
    void *big;
    TU_CHECK(ft_call_work(&again, FT_ARENA_KEEP + 4096, &big) == 0, "large block");
    ft_call_end(&again, 0);
    for (int i = 0; i < ar->nblk; i++) TU_CHECK(ar->blk[i].size <= FT_ARENA_KEEP, "large block kept");
}

static void test_deferred(ft_context_t *ctx)
{
    const ft_backend_t *be = ft_backend_host();
    ft_host_set_deferred(1);
    ft_queue_t *q1, *q2;
    TU_CHECK(be->queue_create(ctx, NULL, &q1) == 0 && be->queue_create(ctx, NULL, &q2) == 0,
          "create");
    int log[16], n = 0;
    note_args a1 = {log, &n, 1}, a2 = {log, &n, 2}, a3 = {log, &n, 3}, a4 = {log, &n, 4};
    ft_host_submit(q1, note, &a1, sizeof a1);
    ft_host_submit(q2, note, &a2, sizeof a2);
    TU_CHECK(n == 0, "deferred work ran at submission");
    be->fork(q2, q1); /* q1's next task waits for q2's task 2 */
    ft_host_submit(q1, note, &a3, sizeof a3);
    ft_host_submit(q2, note, &a4, sizeof a4);
    TU_CHECK(be->sync(q1) == 0, "sync");
    /* q1 ran 1, then (for the fork) q2's 2, then 3; q2's 4 was not needed and stays queued */
    TU_CHECK(n == 3 && log[0] == 1 && log[1] == 2 && log[2] == 3, "order %d: %d %d %d", n, log[0],
          log[1], log[2]);
    TU_CHECK(be->sync(q2) == 0 && n == 4 && log[3] == 4, "q2 drained");
    /* a failing deferred task is reported by the next sync, once */
    ft_host_submit(q1, fail_task, NULL, 0);
    TU_CHECK(be->sync(q1) == FT_ERR_INTERNAL, "deferred failure reported");
    TU_CHECK(be->sync(q1) == 0, "reported once");
    /* events: elapsed time of deferred work is read after running it */
    ft_qevent_t *e0, *e1;
    be->event_create(ctx, &e0);
    be->event_create(ctx, &e1);
    be->event_record(e0, q1);
    ft_host_submit(q1, note, &a1, sizeof a1);
    be->event_record(e1, q1);
    double s = -1;
    TU_CHECK(be->event_elapsed(e0, e1, &s) == 0 && s >= 0 && n == 5, "event elapsed %g", s);
    /* event_wait: q1 waits for q2 up to the event's record only (task 6), not for task 7
     * submitted after it, which a fork would include */
    note_args a6 = {log, &n, 6}, a7 = {log, &n, 7}, a8 = {log, &n, 8};
    ft_qevent_t *ew;
    be->event_create(ctx, &ew);
    TU_CHECK(be->event_wait(q1, ew) == 0, "wait on an event never recorded");
    ft_host_submit(q2, note, &a6, sizeof a6);
    be->event_record(ew, q2);
    ft_host_submit(q2, note, &a7, sizeof a7);
    TU_CHECK(be->event_wait(q1, ew) == 0, "event_wait");
    ft_host_submit(q1, note, &a8, sizeof a8);
    TU_CHECK(be->sync(q1) == 0, "sync after event_wait");
    TU_CHECK(n == 7 && log[5] == 6 && log[6] == 8, "event_wait order %d: %d %d", n, log[5],
             log[6]);
    TU_CHECK(be->sync(q2) == 0 && n == 8 && log[7] == 7, "q2's later task left for its sync");
    be->event_destroy(ew);
    /* a copy is deferred; get_elem drains first */
    double src[4] = {1, 2, 3, 4}, dst[4] = {0, 0, 0, 0}, v = 0;
    be->set_matrix(q2, 4, 1, src, 4, dst, 4);
    TU_CHECK(dst[3] == 0.0, "deferred copy ran early");
    TU_CHECK(be->get_elem(q2, dst + 3, &v) == 0 && v == 4.0, "get_elem drains the queue");
    be->event_destroy(e0);
    be->event_destroy(e1);
    be->queue_destroy(q1);
    be->queue_destroy(q2);
    /* direct mode: at once */
    ft_host_set_deferred(0);
    ft_queue_t *qd;
    be->queue_create(ctx, NULL, &qd);
    n = 0;
    ft_host_submit(qd, note, &a1, sizeof a1);
    TU_CHECK(n == 1, "direct mode runs at once");
    be->queue_destroy(qd);
    ft_host_set_deferred(-1);
}

int main(void)
{
    ft_context_t *ctx;
    if (ft_context_create(&ctx, FT_DEVICE_CPU) != 0) {
        printf("FAILED: context\n");
        return 1;
    }
    test_arena(ctx);
    test_deferred(ctx);
    ft_context_destroy(ctx);
    return tu_finish();
}
