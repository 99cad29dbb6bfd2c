/* inject.c — the fault-injection plan: what to corrupt, where and when (DESIGN.md). Cheap when
 * unused: one integer test per injection point. */
#include "core/inject.h"

#include <string.h>

uint64_t ft_rng_next(uint64_t *s)
{
    /* splitmix64: fast, good enough for picking positions and bits */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double ft_flip_bit(double x, int bit)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    u ^= (uint64_t)1 << (bit & 63);
    memcpy(&x, &u, sizeof x);
    return x;
}

int ft_inject_add(ft_context_t *ctx, const ft_fault_t *f)
{
    if (!ctx || !f) return FT_ERR_INVALID_VALUE;
    if ((int)f->region < FT_REGION_C || (int)f->region > FT_REGION_PANEL) return FT_ERR_INVALID_VALUE;
    if (f->bit < -1 || f->bit > 63 || f->row < -1 || f->col < -1 || f->call < -1 || f->step < -1)
        return FT_ERR_INVALID_VALUE;
    if (ctx->nfaults >= FT_MAX_FAULTS) return FT_ERR_INVALID_VALUE;
    ft_fault_t g = *f;
    if (g.call == -1) g.call = ctx->ncalls; /* "the next call" */
    ctx->faults[ctx->nfaults++] = g;
    return FT_SUCCESS;
}

int ft_inject_clear(ft_context_t *ctx)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    ctx->nfaults = 0;
    return FT_SUCCESS;
}

int ft_inject_seed(ft_context_t *ctx, uint64_t seed)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    ctx->rng = seed;
    return FT_SUCCESS;
}

/* Is fault f planned for (call, region, step)? (step < 0: any step) */
static int matches(const ft_fault_t *f, int64_t call, ft_region_t region, int64_t step)
{
    return f->region == region && f->call == call && (step < 0 || f->step < 0 || f->step == step);
}

int ft_inject_take(ft_context_t *ctx, int64_t call, ft_region_t region, int64_t step,
                   ft_fault_t *out, int cap)
{
    int n = 0, keep = 0;
    for (int i = 0; i < ctx->nfaults; i++) {
        ft_fault_t *f = &ctx->faults[i];
        if (matches(f, call, region, step) && n < cap) out[n++] = *f;
        else ctx->faults[keep++] = *f;
    }
    ctx->nfaults = keep;
    return n;
}

int ft_inject_count(const ft_context_t *ctx, int64_t call, ft_region_t region, int64_t step)
{
    int n = 0;
    for (int i = 0; i < ctx->nfaults; i++) n += matches(&ctx->faults[i], call, region, step);
    return n;
}

int ft_inject_apply(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t *q, const ft_fault_t *f,
                    double *X, int64_t rows, int64_t cols, int64_t ldx, int64_t step,
                    ft_report_t *rep, int64_t *row_out, int64_t *col_out)
{
    if (rows <= 0 || cols <= 0) return FT_SUCCESS;
    int64_t i = f->row >= 0 ? f->row : (int64_t)(ft_rng_next(&ctx->rng) % (uint64_t)rows);
    int64_t j = f->col >= 0 ? f->col : (int64_t)(ft_rng_next(&ctx->rng) % (uint64_t)cols);
    if (i >= rows || j >= cols) {
        /* known only now, after the product: skip it rather than fail a computed call */
        ft_log(ctx, 1, "fault at (%lld,%lld) outside the %lld x %lld region: skipped",
               (long long)i, (long long)j, (long long)rows, (long long)cols);
        return FT_SUCCESS;
    }
    double *p = X + ft_ix(i, j, ldx);
    double before, after;
    FT_CHECK(be->get_elem(q, p, &before));
    after = f->bit >= 0 ? ft_flip_bit(before, f->bit) : before + f->value;
    FT_CHECK(be->set_elem(q, p, after));
    if (rep) {
        rep->injected++;
        ft_report_event(rep, FT_EVENT_INJECTED, f->region, i, j, step, before, after);
    }
    ft_log(ctx, 2, "injected region %d at (%lld,%lld) step %lld: %.17g -> %.17g", (int)f->region,
           (long long)i, (long long)j, (long long)step, before, after);
    if (row_out) *row_out = i;
    if (col_out) *col_out = j;
    return FT_SUCCESS;
}

int ft_inject_drop_call(ft_context_t *ctx, int64_t call)
{
    int keep = 0, dropped = 0;
    for (int i = 0; i < ctx->nfaults; i++) {
        if (ctx->faults[i].call == call) {
            dropped++;
            ft_log(ctx, 1, "fault in region %d planned for call %lld not applicable: dropped",
                   (int)ctx->faults[i].region, (long long)call);
        } else {
            ctx->faults[keep++] = ctx->faults[i];
        }
    }
    ctx->nfaults = keep;
    return dropped;
}
