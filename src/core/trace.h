/*
 * trace.h — the timeline of a call (ft_context_set_trace, ftla.h; docs/qr.md "Timeline").
 * A module starts it once its queues exist (ft_trace_start: only the outermost call on a
 * context with a trace set), then marks spans: on a queue by two events (ft_trace_begin /
 * ft_trace_end, never waited for during the call), on the host by two clock reads
 * (ft_trace_host). ft_call_end resolves the events after its final synchronisation and writes
 * the caller's buffer. Every function is a no-op when the call is not traced, and a failure
 * to trace (memory, events) stops the trace, never the call.
 */
#ifndef FTLA_TRACE_H
#define FTLA_TRACE_H

#include "core/call.h"

typedef struct ft_tracer ft_tracer_t;

/* Start tracing call c if its context has a trace (q: a queue of the call, idle or not; the
 * device clock is placed on the host's at this point after q's work so far). */
int ft_trace_start(ft_call_t *c, ft_queue_t *q);
static inline int ft_traced(const ft_call_t *c) { return c->tr != NULL; }
/* A span on queue q from the work issued after this point; returns its handle (-1: none). */
int ft_trace_begin(ft_call_t *c, ft_queue_t *q, int lane, int phase, int64_t step);
/* Its end, after the work issued on q so far. */
void ft_trace_end(ft_call_t *c, int span, ft_queue_t *q);
/* A span on the host, clock readings t0 .. t1 (ft_wtime). */
void ft_trace_host(ft_call_t *c, int phase, int64_t step, double t0, double t1);
/* After the call's queues are idle: the spans into the caller's buffer; frees the record. */
void ft_trace_finish(ft_call_t *c);
/* The context's trace events (ft_context_destroy). */
void ft_trace_destroy(ft_context_t *ctx);

#endif
