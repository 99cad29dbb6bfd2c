/* trace.c — the timeline of a call (trace.h). */
#include "core/trace.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int lane, phase;
    int64_t step;
    int64_t e0, e1; /* event indices (device spans), -1 for host spans */
    double h0, h1;  /* host spans: clock readings */
} rec_t;

struct ft_tracer {
    int b;          /* backend index of the events */
    int64_t next;   /* the next free event of ctx->tev[b] */
    double tbase;   /* host clock at the base event */
    rec_t *r;
    int64_t n, cap, lost;
};

static const char *const lane_names[FT_NLANES] = {"host", "main", "side", "check", "copy_out"};
static const char *const phase_names[FT_NPHASES] = {
    "encode", "panel", "lookahead", "update", "checksum", "arrive", "checkpoint", "after",
    "copy", "wait", "checks", "issue", "seal", "verify", "stage", "recover"};

const char *ft_lane_name(int lane)
{
    return lane >= 0 && lane < FT_NLANES ? lane_names[lane] : "?";
}

const char *ft_phase_name(int phase)
{
    return phase >= 0 && phase < FT_NPHASES ? phase_names[phase] : "?";
}

int ft_context_set_trace(ft_context_t *ctx, ft_trace_t *trace)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    if (trace && (trace->capacity < 0 || (trace->capacity > 0 && !trace->spans)))
        return FT_ERR_INVALID_VALUE;
    ctx->trace = trace;
    return FT_SUCCESS;
}

void ft_trace_destroy(ft_context_t *ctx)
{
    for (int b = 0; b < FT_NBACKENDS; b++) {
        if (!ctx->tev[b]) continue;
        const ft_backend_t *be = b ? ft_backend_cuda() : ft_backend_host();
        for (int64_t i = 0; i < ctx->ntev[b]; i++)
            if (be) be->event_destroy(ctx->tev[b][i]);
        free(ctx->tev[b]);
        ctx->tev[b] = NULL, ctx->ntev[b] = 0;
    }
}

static void stop(ft_call_t *c)
{
    free(c->tr->r);
    free(c->tr);
    c->tr = NULL;
}

/* The next event of the context's store, made when there is none left (NULL: none). */
static ft_qevent_t *take_event(ft_call_t *c, int64_t *idx)
{
    ft_tracer_t *t = c->tr;
    ft_context_t *ctx = c->ctx;
    const int b = t->b;
    if (t->next == ctx->ntev[b]) {
        const int64_t cap = ctx->ntev[b] ? 2 * ctx->ntev[b] : 256;
        ft_qevent_t **e = realloc(ctx->tev[b], (size_t)cap * sizeof *e);
        if (!e) return NULL;
        ctx->tev[b] = e;
        while (ctx->ntev[b] < cap) {
            if (c->be->event_create(ctx, &e[ctx->ntev[b]])) break;
            ctx->ntev[b]++;
        }
        if (t->next == ctx->ntev[b]) return NULL;
    }
    *idx = t->next;
    return ctx->tev[b][t->next++];
}

static rec_t *new_rec(ft_call_t *c)
{
    ft_tracer_t *t = c->tr;
    if (t->n == t->cap) {
        const int64_t cap = t->cap ? 2 * t->cap : 512;
        rec_t *r = realloc(t->r, (size_t)cap * sizeof *r);
        if (!r) {
            t->lost++;
            return NULL;
        }
        t->r = r, t->cap = cap;
    }
    return &t->r[t->n++];
}

int ft_trace_start(ft_call_t *c, ft_queue_t *q)
{
    if (c->tr || !c->ctx || !c->ctx->trace || c->ctx->depth != 1 || !c->be) return FT_SUCCESS;
    ft_tracer_t *t = calloc(1, sizeof *t);
    if (!t) return FT_SUCCESS; /* not traced; the call goes on */
    t->b = ft_backend_index(c->be);
    c->tr = t;
    int64_t i0;
    ft_qevent_t *e = take_event(c, &i0); /* event 0: the base */
    if (!e) {
        stop(c);
        return FT_SUCCESS;
    }
    FT_CHECK(c->be->event_record(e, q));
    FT_CHECK(c->be->event_sync(e));
    t->tbase = ft_wtime();
    return FT_SUCCESS;
}

int ft_trace_begin(ft_call_t *c, ft_queue_t *q, int lane, int phase, int64_t step)
{
    if (!c->tr) return -1;
    int64_t i0, i1;
    ft_qevent_t *e0 = take_event(c, &i0), *e1 = e0 ? take_event(c, &i1) : NULL;
    rec_t *r = e1 ? new_rec(c) : NULL;
    if (!r) {
        c->tr->lost++;
        return -1;
    }
    if (c->be->event_record(e0, q)) {
        c->tr->n--, c->tr->lost++;
        return -1;
    }
    *r = (rec_t){lane, phase, step, i0, i1, 0.0, 0.0};
    return (int)(r - c->tr->r);
}

void ft_trace_end(ft_call_t *c, int span, ft_queue_t *q)
{
    if (!c->tr || span < 0) return;
    rec_t *r = &c->tr->r[span];
    if (c->be->event_record(c->ctx->tev[c->tr->b][r->e1], q)) r->e0 = r->e1 = -2; /* lost */
}

void ft_trace_host(ft_call_t *c, int phase, int64_t step, double t0, double t1)
{
    if (!c->tr) return;
    rec_t *r = new_rec(c);
    if (r) *r = (rec_t){FT_LANE_HOST, phase, step, -1, -1, t0, t1};
}

void ft_trace_finish(ft_call_t *c)
{
    ft_tracer_t *t = c->tr;
    if (!t) return;
    ft_trace_t *out = c->ctx->trace;
    ft_qevent_t **ev = c->ctx->tev[t->b];
    out->count = 0, out->dropped = t->lost;
    out->total = ft_wtime() - c->t0;
    const double base = t->tbase - c->t0;
    for (int64_t i = 0; i < t->n; i++) {
        const rec_t *r = &t->r[i];
        ft_span_t s = {r->lane, r->phase, r->step, r->h0 - c->t0, r->h1 - c->t0};
        if (r->e0 == -2) {
            out->dropped++;
            continue;
        }
        if (r->e0 >= 0) {
            double a, b;
            if (c->be->event_elapsed(ev[0], ev[r->e0], &a) ||
                c->be->event_elapsed(ev[0], ev[r->e1], &b)) {
                out->dropped++;
                continue;
            }
            s.t0 = base + a, s.t1 = base + b;
        }
        if (out->count < out->capacity) out->spans[out->count++] = s;
        else out->dropped++;
    }
    stop(c);
}
