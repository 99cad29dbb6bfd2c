/*
 * context.h — the internals of ft_context_t, its resource pools and workspace arenas, and small
 * helpers shared by all modules (never installed). docs/architecture.md: core depends on the
 * backend only; no core file includes a module header.
 */
#ifndef FTLA_CONTEXT_H
#define FTLA_CONTEXT_H

#include "backend/backend.h"
#include "ftla.h"
#include <stdint.h>

#define FT_MAX_FAULTS 64

/* ---- workspace arena ----------------------------------------------------------------------
 * Memory of one kind (a backend's work memory, or its host staging memory) cached by the
 * context. Each allocation takes a whole cached block that is not in use (the smallest that is
 * large enough) or a new one; a call marks the arena when it starts and releases what it took at
 * the end, so a nested call (a recovery that calls a protected product) never receives memory
 * its caller still uses. When the outermost call ends, blocks larger than FT_ARENA_KEEP are
 * freed so a context does not hold copies of large matrices between calls. */
#define FT_ARENA_BLOCKS 32
#define FT_ARENA_KEEP ((size_t)512 << 20)

typedef struct {
    void *p;
    size_t size;
    int in_use;
} ft_block_t;

typedef struct {
    ft_block_t blk[FT_ARENA_BLOCKS];
    int nblk;
    int order[FT_ARENA_BLOCKS]; /* block indices in allocation order (a stack) */
    int depth;
} ft_arena_t;

/* ---- pools of queues and events ---------------------------------------------------------- */
#define FT_POOL_QUEUES 16
#define FT_POOL_EVENTS 64

typedef struct {
    ft_queue_t *q[FT_POOL_QUEUES];
    int in_use[FT_POOL_QUEUES];
    int n;
    ft_qevent_t *e[FT_POOL_EVENTS];
    int e_in_use[FT_POOL_EVENTS];
    int ne;
    ft_queue_t *main; /* the main queue: wraps the caller's stream when one is set */
} ft_pool_t;

struct ft_context {
    ft_device_t requested; /* what the caller asked for */
    ft_policy_t policy;
    void *user_stream;     /* ft_context_set_stream (cuda), or NULL */
    /* fault injection plan */
    ft_fault_t faults[FT_MAX_FAULTS];
    int nfaults;
    uint64_t rng;
    int64_t ncalls;        /* protected calls made on this context */
    /* ft_dgeqrf recovery (docs/recovery.md) */
    ft_column_source_t colsrc;
    void *colsrc_user;
    struct ft_qrf *qrf;    /* attached FT factor: _ex calls recover by QR update */
    int depth;             /* calls in progress on this context (nesting) */
    /* per backend (ft_backend_index): queues, events, work memory, host staging memory */
    ft_pool_t pool[FT_NBACKENDS];
    ft_arena_t work[FT_NBACKENDS];
    ft_arena_t pinned[FT_NBACKENDS];
    /* the timeline (ft_context_set_trace, core/trace.c): the caller's buffer, and the events
     * of traced calls per backend, created on first need and kept */
    ft_trace_t *trace;
    ft_qevent_t **tev[FT_NBACKENDS];
    int64_t ntev[FT_NBACKENDS];
};

/* Arena operations. pinned = 0: be->alloc (work memory), 1: be->alloc_host. */
int ft_arena_alloc(ft_arena_t *a, const ft_backend_t *be, int pinned, size_t bytes, void **p);
int ft_arena_mark(const ft_arena_t *a);
/* Release everything allocated since `mark` (the queues using it must be idle). At mark 0,
 * blocks larger than FT_ARENA_KEEP are freed. */
void ft_arena_release(ft_arena_t *a, const ft_backend_t *be, int pinned, int mark);
void ft_arena_destroy(ft_arena_t *a, const ft_backend_t *be, int pinned);

/* Queues and events from the context's pool (created on first need, reused afterwards). Put
 * waits for the queue's work first. */
int ft_queue_get(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t **q);
int ft_queue_put(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t *q);
int ft_queue_main(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t **q);
int ft_event_get(ft_context_t *ctx, const ft_backend_t *be, ft_qevent_t **e);
void ft_event_put(ft_context_t *ctx, const ft_backend_t *be, ft_qevent_t *e);

/* Policy with every 0 replaced by its default. */
void ft_policy_resolve(const ft_policy_t *in, ft_policy_t *out);
/* Library defaults (the state of a new context). */
void ft_policy_defaults(ft_policy_t *p);

/* Verbose log (policy.verbose >= level), one line, to stderr. */
void ft_log(const ft_context_t *ctx, int level, const char *fmt, ...);

/* Report helpers. */
void ft_report_init(ft_report_t *r, ft_device_t backend);
void ft_report_event(ft_report_t *r, ft_event_kind_t kind, ft_region_t region, int64_t row,
                     int64_t col, int64_t step, double before, double after);

#endif
