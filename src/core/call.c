/* call.c — the call layer (call.h): default context, backend choice, per-call resources,
 * staging, report epilogue. */
#include "core/call.h"
#include "core/inject.h"
#include "core/trace.h"
#include "core/size.h"
#include "core/team.h"

#include <stdlib.h>
#include <string.h>

int ft_call_begin(ft_call_t *c, ft_context_t *ctx, const char *name, ft_report_t *report,
                  size_t report_size)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->user_rep = report;
    c->user_size = report_size;
    c->t0 = ft_wtime();
    ft_report_init(&c->rep, FT_DEVICE_CPU);
    if (report && report_size < FT_REPORT_SIZE_V1) {
        c->user_rep = NULL;
        return FT_ERR_INVALID_VALUE;
    }
    /* NULL when the default context cannot be created: ft_call_select says so, after the
     * argument checks (LAPACK order) */
    c->ctx = ctx ? ctx : ft_default_context();
    return FT_SUCCESS;
}

/* The backend a call runs on (before the fit check). */
static int choose(ft_call_t *c, double flops, int is_gpu, const ft_backend_t **be)
{
    ft_context_t *ctx = c->ctx;
    *be = NULL;
    if (is_gpu) {
        if (!ft_have_cuda()) return FT_ERR_NOT_BUILT;
        if (ctx->requested == FT_DEVICE_CPU) return FT_ERR_INVALID_VALUE;
        if (!ft_cuda_probe()) return FT_ERR_NO_DEVICE;
        *be = ft_backend_cuda();
        return FT_SUCCESS;
    }
    int use_cuda = 0;
    if (ctx->requested == FT_DEVICE_CUDA) use_cuda = 1;
    else if (ctx->requested == FT_DEVICE_AUTO) {
        use_cuda = flops >= FT_AUTO_GPU_FLOPS && ft_have_cuda() && ft_cuda_probe();
        if (use_cuda && c->xfer_bytes > 0.0 && flops < FT_AUTO_GPU_INTENSITY * c->xfer_bytes) {
            ft_log(ctx, 2, "%s %s: %.1f flops per byte copied (< %.0f): running on the CPU",
                   c->name, c->desc, flops / c->xfer_bytes, FT_AUTO_GPU_INTENSITY);
            use_cuda = 0;
        }
    }
    *be = use_cuda ? ft_backend_cuda() : ft_backend_host();
    return FT_SUCCESS;
}

static int select_(ft_call_t *c, double flops, int is_gpu, size_t stage_bytes, int numbered)
{
    ft_context_t *ctx = c->ctx;
    const ft_backend_t *be;
    if (!ctx) return FT_ERR_ALLOC;
    FT_CHECK(choose(c, flops, is_gpu, &be));
    if (!is_gpu && be->kind == FT_DEVICE_CUDA && stage_bytes) {
        /* host data on the GPU: the copies and workspace must fit, with headroom for cuBLAS */
        size_t avail = be->mem_free();
        size_t need = stage_bytes + stage_bytes / 8 + ((size_t)64 << 20);
        if (avail && (need < stage_bytes || need > avail)) {
            ft_log(ctx, 1, "%s: %zu MB do not fit in device memory (%zu MB free)%s", c->name,
                   stage_bytes >> 20, avail >> 20,
                   ctx->requested == FT_DEVICE_AUTO ? ": running on the CPU" : "");
            if (ctx->requested != FT_DEVICE_AUTO) return FT_ERR_TOO_LARGE;
            be = ft_backend_host();
        }
    }
    FT_CHECK(ft_queue_main(ctx, be, &c->main));
    /* device pointers from the caller, outermost call: the context's own stream does not wait
     * for the default stream by itself (non-blocking), and a plain cudaMemcpy from pageable
     * memory may return before its data land (seen: ft_campaign --pointers device under load,
     * the product of the previous contents, verified and wrong) */
    if (is_gpu && ctx->depth == 0 && be->queue_after_default)
        FT_CHECK(be->queue_after_default(c->main));
    c->be = be;
    c->rep.backend = be->kind;
    ft_policy_resolve(&ctx->policy, &c->pol);
    c->work_mark = ft_arena_mark(&ctx->work[ft_backend_index(be)]);
    c->pin_mark = ft_arena_mark(&ctx->pinned[ft_backend_index(be)]);
    c->index = numbered ? ctx->ncalls++ : -1;
    ctx->depth++;
    c->selected = 1;
    return FT_SUCCESS;
}

int ft_call_select(ft_call_t *c, double flops, int is_gpu, size_t stage_bytes)
{
    return select_(c, flops, is_gpu, stage_bytes, 1);
}

int ft_call_select_unnumbered(ft_call_t *c, double flops, int is_gpu)
{
    return select_(c, flops, is_gpu, 0, 0);
}

int ft_call_queue(ft_call_t *c, ft_queue_t **q)
{
    if (c->nqueues == FT_CALL_QUEUES) return FT_ERR_INTERNAL;
    FT_CHECK(ft_queue_get(c->ctx, c->be, q));
    c->raised[c->nqueues] = 0;
    c->queues[c->nqueues++] = *q;
    return FT_SUCCESS;
}

int ft_call_queue_raised(ft_call_t *c, ft_queue_t **q)
{
    FT_CHECK(ft_call_queue(c, q));
    c->raised[c->nqueues - 1] = 1; /* lowered at the end even if the raise fails half-way */
    return c->be->queue_raise(*q);
}

int ft_call_event(ft_call_t *c, ft_qevent_t **e)
{
    if (c->nevents == FT_CALL_EVENTS) return FT_ERR_INTERNAL;
    FT_CHECK(ft_event_get(c->ctx, c->be, e));
    c->events[c->nevents++] = *e;
    return FT_SUCCESS;
}

int ft_call_work(ft_call_t *c, size_t bytes, void **p)
{
    return ft_arena_alloc(&c->ctx->work[ft_backend_index(c->be)], c->be, 0, bytes, p);
}

int ft_call_pinned(ft_call_t *c, size_t bytes, void **p)
{
    return ft_arena_alloc(&c->ctx->pinned[ft_backend_index(c->be)], c->be, 1, bytes, p);
}

int ft_call_work_doubles(ft_call_t *c, int64_t n, double **p)
{
    size_t bytes;
    if (ft_dbytes(n, &bytes)) return FT_ERR_TOO_LARGE;
    return ft_call_work(c, bytes, (void **)p);
}

int ft_call_pinned_doubles(ft_call_t *c, int64_t n, double **p)
{
    size_t bytes;
    if (ft_dbytes(n, &bytes)) return FT_ERR_TOO_LARGE;
    return ft_call_pinned(c, bytes, (void **)p);
}

int ft_call_sync(ft_call_t *c)
{
    int st = FT_SUCCESS, s;
    for (int i = 0; i < c->nqueues; i++)
        if ((s = c->be->sync(c->queues[i])) && !st) st = s;
    if (c->main && (s = c->be->sync(c->main)) && !st) st = s;
    return st;
}

int ft_call_end(ft_call_t *c, int status)
{
    ft_context_t *ctx = c->ctx;
    if (c->selected) {
        int s = ft_call_sync(c);
        if (s && !status) status = s;
        ft_trace_finish(c); /* the queues are idle: the timeline's events can be read */
        for (int i = 0; i < c->nqueues; i++) {
            /* back at the default priority: the pool hands it to any later call */
            if (c->raised[i] && (s = c->be->queue_lower(c->queues[i])) && !status) status = s;
            ft_queue_put(ctx, c->be, c->queues[i]);
        }
        for (int i = 0; i < c->nevents; i++) ft_event_put(ctx, c->be, c->events[i]);
        const int b = ft_backend_index(c->be);
        ft_arena_release(&ctx->work[b], c->be, 0, c->work_mark);
        ft_arena_release(&ctx->pinned[b], c->be, 1, c->pin_mark);
        /* faults planned for this call that it could not apply are dropped, not left to hit a
         * later call */
        if (c->index >= 0) ft_inject_drop_call(ctx, c->index);
        ctx->depth--;
    }
    c->rep.status = status;
    c->rep.time_total = ft_wtime() - c->t0;
    if (c->selected && ctx && ctx->policy.verbose >= 1) {
        char buf[512];
        ft_log(ctx, 1, "%s %s: %s", c->name, c->desc, ft_report_string(&c->rep, buf, sizeof buf));
    }
    if (c->user_rep) { /* the caller's size; fields of a newer caller we lack read as 0 */
        size_t known = c->user_size < sizeof c->rep ? c->user_size : sizeof c->rep;
        memcpy(c->user_rep, &c->rep, known);
        if (c->user_size > known) memset((char *)c->user_rep + known, 0, c->user_size - known);
    }
    return status;
}

/* ---- staging ------------------------------------------------------------------------------ */

int ft_stage_bytes(int64_t ld, int64_t n, size_t *bytes)
{
    int64_t e;
    if (ft_mul_ovf(ld, n, &e) || ft_dbytes(e, bytes)) return 1;
    return 0;
}

/* ---- host <-> work memory ---- */

size_t ft_stage_slot(void)
{
    static size_t slot;
    size_t v = __atomic_load_n(&slot, __ATOMIC_RELAXED);
    if (v) return v;
    const char *e = getenv("FTLA_STAGE_SLOT");
    char *end = NULL;
    const unsigned long long x = e && *e ? strtoull(e, &end, 10) : 0;
    const int ok = x >= 4096 && x <= (1ull << 30) && end && !*end;
    v = ok ? (size_t)(x / sizeof(double)) * sizeof(double) : FT_STAGE_SLOT;
    __atomic_store_n(&slot, v, __ATOMIC_RELAXED);
    return v;
}

/* Columns a piece of the ring for m x n host data at h, or 0: copied directly (a work-memory
 * backend's pinned memory, pageable data under a slot, a column over one, one host thread). */
static int64_t stage_per(const ft_call_t *c, int64_t m, int64_t n, const double *h)
{
    const ft_backend_t *be = c->be;
    if (be->kind == FT_DEVICE_CPU || !be->host_pinned || m <= 0 || n <= 0 ||
        (uint64_t)m > ft_stage_slot() / sizeof(double) ||
        (double)m * (double)n * sizeof(double) < (double)ft_stage_slot() || be->host_pinned(h) ||
        ft_host_threads() < 2)
        return 0;
    return (int64_t)(ft_stage_slot() / sizeof(double)) / m;
}

/* The ring, taken on first use; if it cannot be had (no pinned memory, the call's events used
 * up), stage_next < 0 and the copies go directly from then on. */
static int stage_ring(ft_call_t *c)
{
    if (c->stage) return FT_SUCCESS;
    if (c->stage_next < 0) return FT_ERR_ALLOC;
    double *r = NULL;
    int st = ft_call_pinned(c, FT_STAGE_NS * ft_stage_slot(), (void **)&r);
    for (int s = 0; s < FT_STAGE_NS && !st; s++) st = ft_call_event(c, &c->stage_ev[s]);
    if (st) {
        c->stage_next = -1;
        return st;
    }
    c->stage = r;
    return FT_SUCCESS;
}

static double *stage_slot(const ft_call_t *c, int64_t k)
{
    return c->stage + (size_t)(k % FT_STAGE_NS) * (ft_stage_slot() / sizeof(double));
}

/* The oldest piece copied out and not yet unpacked: waited for, unpacked. */
static int stage_unpack_oldest(ft_call_t *c)
{
    const int64_t k = c->stage_next - c->stage_npend;
    const int s = (int)(k % FT_STAGE_NS);
    FT_CHECK(c->be->event_sync(c->stage_ev[s]));
    ft_team_copy(c->stage_pc[s].m, c->stage_pc[s].nc, stage_slot(c, k), c->stage_pc[s].m,
                 c->stage_pc[s].h, c->stage_pc[s].ldh);
    c->stage_npend--;
    return FT_SUCCESS;
}

int ft_stage_in(ft_call_t *c, ft_queue_t *q, int64_t m, int64_t n, const double *h, int64_t ldh,
                int64_t ldd, double **d)
{
    size_t bytes;
    if (ldd < m || ft_stage_bytes(ldd, n, &bytes)) return FT_ERR_TOO_LARGE;
    FT_CHECK(ft_call_work(c, bytes, (void **)d));
    if (!h) return FT_SUCCESS;
    const ft_backend_t *be = c->be;
    const int64_t per = stage_per(c, m, n, h);
    if (per == 0 || stage_ring(c) != FT_SUCCESS) return be->set_matrix(q, m, n, h, ldh, *d, ldd);
    while (c->stage_npend > 0) FT_CHECK(stage_unpack_oldest(c)); /* the slots' pieces out */
    /* each piece packed into a slot whose last copy has completed, then copied on q: the
     * packing of the next piece runs while the copy does */
    for (int64_t j = 0; j < n; j += per) {
        const int64_t nc = n - j < per ? n - j : per, k = c->stage_next++;
        FT_CHECK(be->event_sync(c->stage_ev[k % FT_STAGE_NS]));
        double *slot = stage_slot(c, k);
        ft_team_copy(m, nc, h + j * ldh, ldh, slot, m);
        FT_CHECK(be->set_matrix(q, m, nc, slot, m, *d + j * ldd, ldd));
        FT_CHECK(be->event_record(c->stage_ev[k % FT_STAGE_NS], q));
    }
    return FT_SUCCESS;
}

int ft_stage_out_ok(ft_call_t *c, int64_t m, int64_t n, const double *h)
{
    const ft_backend_t *be = c->be;
    if (be->kind == FT_DEVICE_CPU || !be->host_pinned || m <= 0 || n <= 0) return 0;
    if (be->host_pinned(h)) return 1;
    return stage_per(c, m, n, h) > 0 && stage_ring(c) == FT_SUCCESS;
}

int ft_stage_out_async(ft_call_t *c, ft_queue_t *q, int64_t m, int64_t n, const double *d,
                       int64_t ldd, double *h, int64_t ldh)
{
    const ft_backend_t *be = c->be;
    if (n <= 0) return FT_SUCCESS;
    if (!c->stage || be->host_pinned(h)) return be->get_matrix(q, m, n, d, ldd, h, ldh);
    /* pieces of whole columns, as ft_stage_in's: stage_per of a matrix that goes through the
     * ring depends on m alone */
    const int64_t per = (int64_t)(ft_stage_slot() / sizeof(double)) / m;
    for (int64_t j = 0; j < n; j += per) {
        const int64_t nc = n - j < per ? n - j : per;
        if (c->stage_npend == FT_STAGE_NS) FT_CHECK(stage_unpack_oldest(c));
        const int64_t k = c->stage_next;
        const int s = (int)(k % FT_STAGE_NS);
        FT_CHECK(be->event_sync(c->stage_ev[s])); /* the slot's last copy (in) */
        FT_CHECK(be->get_matrix(q, m, nc, d + j * ldd, ldd, stage_slot(c, k), m));
        FT_CHECK(be->event_record(c->stage_ev[s], q));
        c->stage_pc[s].h = h + j * ldh;
        c->stage_pc[s].ldh = ldh;
        c->stage_pc[s].m = m;
        c->stage_pc[s].nc = nc;
        c->stage_next++;
        c->stage_npend++;
    }
    return FT_SUCCESS;
}

int ft_stage_out_wait(ft_call_t *c, ft_queue_t *q)
{
    while (c->stage_npend > 0) FT_CHECK(stage_unpack_oldest(c));
    return c->be->sync(q);
}

int ft_stage_out(ft_call_t *c, ft_queue_t *q, int64_t m, int64_t n, const double *d, int64_t ldd,
                 double *h, int64_t ldh)
{
    const ft_backend_t *be = c->be;
    const int64_t per = stage_per(c, m, n, h);
    if (per == 0 || stage_ring(c) != FT_SUCCESS) {
        FT_CHECK(be->get_matrix(q, m, n, d, ldd, h, ldh));
        return be->sync(q);
    }
    /* up to FT_STAGE_NS pieces in flight on q; each unpacked in order once it has landed */
    FT_CHECK(ft_stage_out_async(c, q, m, n, d, ldd, h, ldh));
    return ft_stage_out_wait(c, q);
}

void ft_call_mark(const ft_call_t *c, int marks[2])
{
    const int b = ft_backend_index(c->be);
    marks[0] = ft_arena_mark(&c->ctx->work[b]);
    marks[1] = ft_arena_mark(&c->ctx->pinned[b]);
}

void ft_call_release(ft_call_t *c, const int marks[2])
{
    const int b = ft_backend_index(c->be);
    /* marks above the call's own: its blocks stay cached (ft_arena_release frees only at 0) */
    ft_arena_release(&c->ctx->work[b], c->be, 0, marks[0] > c->work_mark ? marks[0] : c->work_mark);
    ft_arena_release(&c->ctx->pinned[b], c->be, 1, marks[1] > c->pin_mark ? marks[1] : c->pin_mark);
}
