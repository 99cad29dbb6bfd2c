/* qr_inject.c — the fault plan of one ft_dgeqrf call (regions and steps: docs/qr.md). All the
 * faults planned for the call are taken at its start; each is applied at its panel boundary,
 * where the loop synchronises (qr_needs_sync). */
#include "core/inject.h"
#include "qr/qr_internal.h"

void qr_plan_faults(qr_t *g)
{
    static const ft_region_t regs[7] = {FT_REGION_R,   FT_REGION_TRAILING,    FT_REGION_Q,
                                        FT_REGION_CHECKSUM, FT_REGION_TAU,
                                        FT_REGION_REFLECTORS, FT_REGION_PANEL};
    g->nplan = 0;
    if (!g->ctx->nfaults) return;
    for (int r = 0; r < 7; r++) {
        if (!g->protect && regs[r] == FT_REGION_CHECKSUM) continue; /* nothing to corrupt */
        ft_fault_t f[FT_MAX_FAULTS];
        int nf = ft_inject_take(g->ctx, g->call->index, regs[r], -1, f, FT_MAX_FAULTS - g->nplan);
        for (int t = 0; t < nf; t++) {
            planned_t *p = &g->plan[g->nplan++];
            p->f = f[t];
            p->step = f[t].step >= 0 ? f[t].step
                                     : (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)g->np);
            p->done = 0;
            if (p->step >= g->np)
                ft_log(g->ctx, 1, "dgeqrf: fault at step %lld beyond the %lld panel steps: dropped",
                       (long long)p->step, (long long)g->np);
        }
    }
}

int qr_planned(const qr_t *g, ft_region_t reg, int64_t step)
{
    for (int t = 0; t < g->nplan; t++)
        if (!g->plan[t].done && g->plan[t].f.region == reg && g->plan[t].step == step) return 1;
    return 0;
}

static int64_t rnd(qr_t *g, int64_t n) { return (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)n); }

/* Apply the faults of region reg planned for panel step p (regions: docs/qr.md). */
int qr_inject(qr_t *g, ft_region_t reg, int64_t p)
{
    const int64_t m = g->m, n = g->n, i = p * g->nb, ib = qr_imin(g->nb, g->k - i);
    for (int t = 0; t < g->nplan; t++) {
        planned_t *pl = &g->plan[t];
        if (pl->done || pl->f.region != reg || pl->step != p) continue;
        pl->done = 1;
        ft_fault_t f = pl->f;
        int64_t r = f.row, c = f.col;
        double *X = g->dA;
        int64_t rows = m, cols = n, ld = g->ldda;
        int ok;
        if (reg == FT_REGION_TAU) { /* tau of panel p, on the host */
            if (c < 0) c = i + rnd(g, ib);
            if (c < i || c >= i + ib) {
                ft_log(g->ctx, 1, "dgeqrf: tau fault at %lld outside panel %lld", (long long)c,
                       (long long)p);
                return FT_ERR_INVALID_VALUE;
            }
            const double before = g->tau[c];
            const double after = f.bit >= 0 ? ft_flip_bit(before, f.bit) : before + f.value;
            g->tau[c] = after;
            g->rep->injected++;
            ft_report_event(g->rep, FT_EVENT_INJECTED, FT_REGION_TAU, -1, c, p, before, after);
            continue;
        }
        switch (reg) {
        case FT_REGION_REFLECTORS: { /* V (mi x ib) or T (ib x ib, upper) of step p, in use */
            const int64_t mi = m - i;
            if (c >= 2 * ib) { /* T while it is kept: qr_inject_kept */
                pl->done = 0;
                continue;
            }
            if (c < 0) c = rnd(g, 2 * ib);
            if (c >= ib) { /* T(r, c - ib), r <= c - ib */
                if (r < 0 && c < 2 * ib) r = rnd(g, c - ib + 1);
                ok = c < 2 * ib && r <= c - ib;
                X = g->dT + p * g->nb * g->nb, rows = ib, cols = ib, ld = g->nb;
                if (!ok) break;
                /* applied in T's coordinates, reported in the region's (col = ib + T's col) */
                ft_fault_t ft = f;
                ft.row = r, ft.col = c - ib;
                double *x = X + r + (c - ib) * ld, before, after;
                FT_CHECK(g->be->get_elem(g->qm, x, &before));
                after = ft.bit >= 0 ? ft_flip_bit(before, ft.bit) : before + ft.value;
                FT_CHECK(g->be->set_elem(g->qm, x, after));
                g->rep->injected++;
                ft_report_event(g->rep, FT_EVENT_INJECTED, reg, r, c, p, before, after);
                continue;
            }
            if (r < 0) r = rnd(g, mi);
            ok = r < mi;
            X = g->dV[p & 1], rows = mi, cols = ib, ld = m;
            break;
        }
        case FT_REGION_R: /* finished R after step p: rows < i+ib, cols >= max(row, i) */
            if (r < 0) r = rnd(g, i + ib);
            if (c < 0 && r < i + ib) c = qr_imax(r, i) + rnd(g, n - qr_imax(r, i));
            ok = r < i + ib && c >= i && c >= r && c < n;
            break;
        case FT_REGION_TRAILING: /* rows >= i, cols >= i */
            if (r < 0) r = i + rnd(g, m - i);
            if (c < 0) c = i + rnd(g, n - i);
            ok = r >= i && r < m && c >= i && c < n;
            break;
        case FT_REGION_Q: { /* Householder vectors of panel p: cols [i, i+ib), rows > col */
            int64_t cmax = qr_imin(i + ib, m - 1); /* columns with a vector below the diagonal */
            if (cmax <= i) {
                ft_log(g->ctx, 1, "dgeqrf: panel %lld has no Householder vector elements: fault "
                       "dropped", (long long)p);
                continue;
            }
            if (c < 0) c = i + rnd(g, cmax - i);
            if (r < 0 && c >= 0 && c + 1 < m) r = c + 1 + rnd(g, m - c - 1);
            ok = c >= i && c < i + ib && r > c && r < m;
            break;
        }
        default: /* checksum columns: any element of dCS */
            X = g->dCS, rows = m, cols = QR_NCS * g->ncb, ld = m;
            if (r < 0) r = rnd(g, m);
            if (c < 0) c = rnd(g, QR_NCS * g->ncb);
            ok = r < m && c < QR_NCS * g->ncb;
            break;
        }
        if (!ok) {
            ft_log(g->ctx, 1, "dgeqrf: fault (%lld,%lld) outside region %d at step %lld",
                   (long long)r, (long long)c, (int)reg, (long long)p);
            return FT_ERR_INVALID_VALUE;
        }
        f.row = r;
        f.col = c;
        FT_CHECK(ft_inject_apply(g->ctx, g->be, g->qm, &f, X, rows, cols, ld, p, g->rep, NULL, NULL));
    }
    return FT_SUCCESS;
}

/* FT_REGION_REFLECTORS with col in [2 ib, 3 ib): T(row, col - 2 ib) of panel `step`, kept in
 * work memory after its update (a recovery or a re-factorization applies it again). */
static int is_kept(const qr_t *g, const planned_t *pl)
{
    const int64_t ib = qr_imin(g->nb, g->k - pl->step * g->nb);
    return pl->f.region == FT_REGION_REFLECTORS && pl->f.col >= 2 * ib;
}

int qr_planned_arrival(const qr_t *g, int64_t step)
{
    for (int t = 0; t < g->nplan; t++)
        if (!g->plan[t].done && g->plan[t].f.region == FT_REGION_REFLECTORS &&
            g->plan[t].step == step && !is_kept(g, &g->plan[t]))
            return 1;
    return 0;
}

static int planned_kept(const qr_t *g, int64_t step)
{
    for (int t = 0; t < g->nplan; t++)
        if (!g->plan[t].done && g->plan[t].step == step && is_kept(g, &g->plan[t])) return 1;
    return 0;
}

int qr_inject_kept(qr_t *g, int64_t p)
{
    for (int t = 0; t < g->nplan; t++) {
        planned_t *pl = &g->plan[t];
        if (pl->done || !is_kept(g, pl) || pl->step > p - 3) continue;
        pl->done = 1;
        const int64_t s = pl->step, ib = qr_imin(g->nb, g->k - s * g->nb);
        int64_t r = pl->f.row, c = pl->f.col - 2 * ib;
        if (r < 0 && c < ib) r = rnd(g, c + 1);
        if (c >= ib || r > c) {
            ft_log(g->ctx, 1, "dgeqrf: kept T fault (%lld,%lld) outside step %lld",
                   (long long)r, (long long)pl->f.col, (long long)s);
            return FT_ERR_INVALID_VALUE;
        }
        double *x = g->dT + s * g->nb * g->nb + r + c * g->nb, before, after;
        FT_CHECK(g->be->get_elem(g->qm, x, &before));
        after = pl->f.bit >= 0 ? ft_flip_bit(before, pl->f.bit) : before + pl->f.value;
        FT_CHECK(g->be->set_elem(g->qm, x, after));
        g->rep->injected++;
        ft_report_event(g->rep, FT_EVENT_INJECTED, FT_REGION_REFLECTORS, r, 2 * ib + c, s,
                        before, after);
    }
    return FT_SUCCESS;
}

int qr_needs_sync(const qr_t *g, int64_t p)
{
    if (p == 0) return 1;
    if (g->protect && g->q > 0 && p % g->q == 0) return 1;
    if (!g->nplan) return 0;
    return qr_planned(g, FT_REGION_TRAILING, p) || qr_planned(g, FT_REGION_CHECKSUM, p) ||
           qr_planned(g, FT_REGION_R, p - 1) || qr_planned(g, FT_REGION_Q, p - 1) ||
           qr_planned(g, FT_REGION_TAU, p - 1) || (p >= 3 && planned_kept(g, p - 3));
}


/* The planned FT_REGION_PANEL fault of panel p, applied while the host factors it (qr_loop.c,
 * panel()): between its two halves, after the first half was factored and its reflectors
 * applied to the second half; an element of the panel (global row r >= i,
 * column c in [i, i + ib)) in the finished half (R or a vector) or in the half not yet
 * factored. A panel of one column: before it is factored. */
int qr_panel_fault(qr_t *g, int64_t p, double *P, int64_t ldp, int work)
{
    const int64_t i = p * g->nb, ib = qr_imin(g->nb, g->k - i), mi = g->m - i;
    planned_t *pl = NULL;
    for (int t = 0; t < g->nplan && !pl; t++)
        if (!g->plan[t].done && g->plan[t].f.region == FT_REGION_PANEL && g->plan[t].step == p)
            pl = &g->plan[t];
    if (!pl) return FT_SUCCESS;
    pl->done = 1;
    int64_t r = pl->f.row, c = pl->f.col;
    if (r < 0) r = i + rnd(g, mi);
    if (c < 0) c = i + rnd(g, ib);
    if (r < i || r >= g->m || c < i || c >= i + ib) {
        ft_log(g->ctx, 1, "dgeqrf: panel fault (%lld,%lld) outside panel %lld", (long long)r,
               (long long)c, (long long)p);
        return FT_ERR_INVALID_VALUE;
    }
    double *x = P + (r - i) + (c - i) * ldp, before, after;
    if (work) FT_CHECK(g->be->get_elem(g->qm, x, &before));
    else before = *x;
    after = pl->f.bit >= 0 ? ft_flip_bit(before, pl->f.bit) : before + pl->f.value;
    if (work) FT_CHECK(g->be->set_elem(g->qm, x, after));
    else *x = after;
    g->rep->injected++;
    ft_report_event(g->rep, FT_EVENT_INJECTED, FT_REGION_PANEL, r, c, p, before, after);
    return FT_SUCCESS;
}
