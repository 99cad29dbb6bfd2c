/* context.c — contexts, policy, and the context's resources: pools of queues and events,
 * workspace arenas (context.h). */
#include "core/context.h"
#include "core/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ft_log(const ft_context_t *ctx, int level, const char *fmt, ...)
{
    if (!ctx || ctx->policy.verbose < level) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("ftla: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- policy ------------------------------------------------------------------------------- */

void ft_policy_defaults(ft_policy_t *p)
{
    memset(p, 0, sizeof *p);
    p->protect = 1;
    p->tol = 2.0;
    p->backup_c = -1;
}

void ft_policy_resolve(const ft_policy_t *in, ft_policy_t *out)
{
    *out = *in;
    if (out->tol <= 0) out->tol = 2.0;
}

/* The policy is versioned by the caller's sizeof (ftla.h, "ABI stability"), the convention of
 * extensible structures: an older caller passes a smaller structure, and only the fields it
 * knows are read or written; a newer caller's fields unknown to this library read as 0 (the
 * default) on get, and must be 0 on set. */
int ft_context_get_policy_v(const ft_context_t *ctx, ft_policy_t *p, size_t size)
{
    if (!ctx || !p || size < FT_POLICY_SIZE_V1) return FT_ERR_INVALID_VALUE;
    size_t known = size < sizeof(ft_policy_t) ? size : sizeof(ft_policy_t);
    memcpy(p, &ctx->policy, known);
    if (size > known) memset((char *)p + known, 0, size - known);
    return FT_SUCCESS;
}

int ft_context_set_policy_v(ft_context_t *ctx, const ft_policy_t *in, size_t size)
{
    if (!ctx || !in || size < FT_POLICY_SIZE_V1) return FT_ERR_INVALID_VALUE;
    size_t known = size < sizeof(ft_policy_t) ? size : sizeof(ft_policy_t);
    for (size_t b = known; b < size; b++)
        if (((const unsigned char *)in)[b]) return FT_ERR_INVALID_VALUE; /* a field we lack */
    ft_policy_t p = ctx->policy; /* fields the caller does not know keep their values */
    memcpy(&p, in, known);
    if (p.protect < FT_PROTECT_OFF || p.protect > FT_PROTECT_TMR || p.tile < 0 || p.tol < 0 || p.nb < 0 ||
        p.verify_every < 0 || p.backup_c < -1 || p.backup_c > 1 || p.crossover < -1 ||
        p.verbose < 0 || p.serial_encode < 0 || p.serial_encode > 1 || p.operand_check < -1 ||
        p.operand_check > 1 || p.keep_input < -1 || p.keep_input > 2 ||
        p.protect_q < -1 || p.protect_q > 1 || p.panel < FT_PANEL_AUTO || p.panel > FT_PANEL_GPU ||
        !(p.error_rate >= 0) || p.error_rate > 1e300 || !(p.gpu_memory >= 0) ||
        p.gpu_memory > 1e300)
        return FT_ERR_INVALID_VALUE;
    if (p.tol == 0) p.tol = 2.0;
    ctx->policy = p;
    return FT_SUCCESS;
}

/* ---- contexts ----------------------------------------------------------------------------- */

int ft_have_cuda(void) { return ft_backend_cuda() != NULL; }

int ft_cuda_available(void) { return ft_have_cuda() && ft_cuda_probe(); }

int ft_context_create(ft_context_t **out, ft_device_t device)
{
    if (!out) return FT_ERR_INVALID_VALUE;
    *out = NULL;
    if (device != FT_DEVICE_AUTO && device != FT_DEVICE_CPU && device != FT_DEVICE_CUDA)
        return FT_ERR_INVALID_VALUE;
    if (device == FT_DEVICE_CUDA) {
        if (!ft_have_cuda()) return FT_ERR_NOT_BUILT;
        if (!ft_cuda_probe()) return FT_ERR_NO_DEVICE;
    }
    ft_context_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return FT_ERR_ALLOC;
    ctx->requested = device;
    ft_policy_defaults(&ctx->policy);
    ctx->rng = 1;
    if (device == FT_DEVICE_CUDA) {
        /* the main queue now, so that a broken device or cuBLAS shows at creation */
        ft_queue_t *q;
        int st = ft_queue_main(ctx, ft_backend_cuda(), &q);
        if (st) {
            ft_context_destroy(ctx);
            return st;
        }
    }
    *out = ctx;
    return FT_SUCCESS;
}

int ft_context_destroy(ft_context_t *ctx)
{
    if (!ctx) return FT_SUCCESS;
    ft_trace_destroy(ctx);
    for (int b = 0; b < FT_NBACKENDS; b++) {
        const ft_backend_t *be = b ? ft_backend_cuda() : ft_backend_host();
        if (!be) continue;
        ft_pool_t *pl = &ctx->pool[b];
        if (pl->main) be->queue_destroy(pl->main);
        for (int i = 0; i < pl->n; i++) be->queue_destroy(pl->q[i]);
        for (int i = 0; i < pl->ne; i++) be->event_destroy(pl->e[i]);
        ft_arena_destroy(&ctx->work[b], be, 0);
        ft_arena_destroy(&ctx->pinned[b], be, 1);
    }
    free(ctx);
    return FT_SUCCESS;
}

int ft_context_set_stream(ft_context_t *ctx, void *stream)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    if (!ft_have_cuda()) return FT_ERR_NOT_BUILT;
    if (ctx->requested == FT_DEVICE_CPU) return FT_ERR_INVALID_VALUE;
    ft_pool_t *pl = &ctx->pool[1];
    if (pl->main) FT_CHECK(ft_backend_cuda()->queue_wrap(pl->main, stream));
    ctx->user_stream = stream;
    return FT_SUCCESS;
}

ft_device_t ft_context_device(const ft_context_t *ctx)
{
    return ctx ? ctx->requested : FT_DEVICE_AUTO;
}

/* ---- pools -------------------------------------------------------------------------------- */

int ft_queue_main(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t **q)
{
    ft_pool_t *pl = &ctx->pool[ft_backend_index(be)];
    if (!pl->main) {
        void *native = be->kind == FT_DEVICE_CUDA ? ctx->user_stream : NULL;
        FT_CHECK(be->queue_create(ctx, native, &pl->main));
    }
    *q = pl->main;
    return FT_SUCCESS;
}

int ft_queue_get(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t **q)
{
    ft_pool_t *pl = &ctx->pool[ft_backend_index(be)];
    for (int i = 0; i < pl->n; i++)
        if (!pl->in_use[i]) {
            pl->in_use[i] = 1;
            *q = pl->q[i];
            return FT_SUCCESS;
        }
    if (pl->n == FT_POOL_QUEUES) return FT_ERR_INTERNAL; /* more than any call nests */
    FT_CHECK(be->queue_create(ctx, NULL, &pl->q[pl->n]));
    pl->in_use[pl->n] = 1;
    *q = pl->q[pl->n++];
    return FT_SUCCESS;
}

int ft_queue_put(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t *q)
{
    if (!q) return FT_SUCCESS;
    ft_pool_t *pl = &ctx->pool[ft_backend_index(be)];
    int st = be->sync(q);
    for (int i = 0; i < pl->n; i++)
        if (pl->q[i] == q) pl->in_use[i] = 0;
    return st;
}

int ft_event_get(ft_context_t *ctx, const ft_backend_t *be, ft_qevent_t **e)
{
    ft_pool_t *pl = &ctx->pool[ft_backend_index(be)];
    for (int i = 0; i < pl->ne; i++)
        if (!pl->e_in_use[i]) {
            pl->e_in_use[i] = 1;
            *e = pl->e[i];
            return FT_SUCCESS;
        }
    if (pl->ne == FT_POOL_EVENTS) return FT_ERR_INTERNAL;
    FT_CHECK(be->event_create(ctx, &pl->e[pl->ne]));
    pl->e_in_use[pl->ne] = 1;
    *e = pl->e[pl->ne++];
    return FT_SUCCESS;
}

void ft_event_put(ft_context_t *ctx, const ft_backend_t *be, ft_qevent_t *e)
{
    ft_pool_t *pl = &ctx->pool[ft_backend_index(be)];
    for (int i = 0; i < pl->ne; i++)
        if (pl->e[i] == e) pl->e_in_use[i] = 0;
}

/* ---- arenas ------------------------------------------------------------------------------- */

static void blk_free(const ft_backend_t *be, int pinned, void *p)
{
    if (pinned) be->free_host(p);
    else be->free(p);
}

int ft_arena_mark(const ft_arena_t *a) { return a->depth; }

int ft_arena_alloc(ft_arena_t *a, const ft_backend_t *be, int pinned, size_t bytes, void **p)
{
    *p = NULL;
    if (a->depth == FT_ARENA_BLOCKS) return FT_ERR_INTERNAL;
    int best = -1;
    for (int i = 0; i < a->nblk; i++)
        if (!a->blk[i].in_use && a->blk[i].size >= bytes &&
            (best < 0 || a->blk[i].size < a->blk[best].size))
            best = i;
    if (best < 0) {
        if (a->nblk == FT_ARENA_BLOCKS) {
            /* full: free the largest idle block (idle blocks cannot be large enough) */
            int victim = -1;
            for (int i = 0; i < a->nblk; i++)
                if (!a->blk[i].in_use && (victim < 0 || a->blk[i].size > a->blk[victim].size))
                    victim = i;
            if (victim < 0) return FT_ERR_INTERNAL;
            blk_free(be, pinned, a->blk[victim].p);
            a->blk[victim] = a->blk[--a->nblk];
            for (int d = 0; d < a->depth; d++)
                if (a->order[d] == a->nblk) a->order[d] = victim;
        }
        size_t sz = bytes < 256 ? 256 : (bytes + 255) / 256 * 256;
        if (sz < bytes) return pinned ? FT_ERR_ALLOC : FT_ERR_DEVICE_ALLOC;
        void *np = NULL;
        int st = pinned ? be->alloc_host(&np, sz) : be->alloc(&np, sz);
        if (st) return st;
        best = a->nblk++;
        a->blk[best] = (ft_block_t){np, sz, 0};
    }
    a->blk[best].in_use = 1;
    a->order[a->depth++] = best;
    *p = a->blk[best].p;
    return FT_SUCCESS;
}

void ft_arena_release(ft_arena_t *a, const ft_backend_t *be, int pinned, int mark)
{
    while (a->depth > mark) a->blk[a->order[--a->depth]].in_use = 0;
    if (mark > 0) return;
    for (int i = 0; i < a->nblk;) {
        if (!a->blk[i].in_use && a->blk[i].size > FT_ARENA_KEEP) {
            blk_free(be, pinned, a->blk[i].p);
            a->blk[i] = a->blk[--a->nblk];
        } else {
            i++;
        }
    }
}

void ft_arena_destroy(ft_arena_t *a, const ft_backend_t *be, int pinned)
{
    for (int i = 0; i < a->nblk; i++) blk_free(be, pinned, a->blk[i].p);
    memset(a, 0, sizeof *a);
}

/* ---- recovery settings of ft_dgeqrf ----------------------------------------------------- */

int ft_context_set_column_source(ft_context_t *ctx, ft_column_source_t fn, void *user)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    ctx->colsrc = fn;
    ctx->colsrc_user = fn ? user : NULL;
    return FT_SUCCESS;
}

int ft_context_set_qrf(ft_context_t *ctx, ft_qrf_t *F)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    ctx->qrf = F;
    return FT_SUCCESS;
}
