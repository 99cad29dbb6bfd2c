/*
 * ft_dgeqrf.c — Householder QR, A = Q R, with checksum-column protection (paper 004, DESIGN.md
 * "ft_dgeqrf", docs/qr.md).
 *
 * Written once against the backend table (src/core/backend.h); runs on the host backend
 * (everything synchronous, in the caller's A) and on the cuda backend (MAGMA dgeqrf structure:
 * panels factored on the CPU by host LAPACK, trailing updates on the GPU, one panel of
 * lookahead).
 *
 * Protection. Two checksum columns c = A e, v = A w (w_j = abft_weight(j, W), W = the smallest
 * power of two >= n) are kept in a separate work-memory buffer dCS (m x 2) and every trailing
 * update applies the same block reflector to it, so at any panel step i (rows/columns 0:i
 * finished)
 *     c(0:i) = R11 e1 + R12 e2,    c(i:m) = A22 e2        (and the same with w),
 * and after the factorization c = R e (rows k:m of R are zero). The checks
 *     r = c - [R11 R12; 0 A22] e,   s = v - [R11 R12; 0 A22] w
 * are computed by check() in O(mn) with one dtrmm, two skinny dgemm on the backend.
 *   - no failing row: clean;
 *   - r fails, s clean (or the converse): a checksum column was hit; data untouched;
 *   - one failing row l, s_l / r_l = w_j: a single element (l, j) was hit after the last
 *     transformation touching row l (finished R, or the trailing matrix at an online check):
 *     corrected in place (zero it, recompute the row sum, set it to c_l - sum of the others);
 *   - several failing rows with a common ratio w_j: an error that was consumed by later panels
 *     (paper 004 error model: equivalent to an error in column j of the input): located, not
 *     recovered (FT_ERR_NOT_RECOVERED; recovery by QR update is a later issue).
 * Threshold: tau = tol * ((m + n) u (sum_j ||a_j||_2 + ||A e||_2) + (m + n)(n + 2) 4 eta), the
 * column norms of the ORIGINAL A bounded by sqrt(||a_j||_1 max_i |a_ij|) >= ||a_j||_2 (Hoelder),
 * both from existing backend kernels (block_sums, col_absmax); docs/qr.md gives the headroom.
 */
#include "blas3/abft.h"
#include "core/context.h"
#include "core/lapack_host.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SINGLE 64 /* failing rows examined one by one for single-element errors */

typedef struct {
    ft_fault_t f;
    int64_t step;
    int done;
} planned_t;

typedef struct {
    ft_context_t *ctx;
    const ft_backend_t *be;
    ft_report_t *rep;
    ft_policy_t pol;
    int host;            /* host backend: work memory is host memory, no copies */
    int protect;
    int64_t m, n, k, nb, np, W, q;
    double *dA;
    int64_t ldda;
    double *tau;
    /* work memory */
    double *dCS, *dEW, *dX, *dV[2], *dT[2], *dWa, *dWb, *dWc, *dN1, *dMx;
    /* host (pinned) memory */
    double *hP, *hV, *hT, *hwork, *hEW, *hN, *hC, *hX, *hrow;
    int64_t *hJ; /* m: column pointed to by each failing row */
    int *hcnt;   /* n: failing rows per column */
    int64_t ldp, lhwork;
    /* threshold */
    int norms_ready, checkable;
    double thr, bound; /* thr = tau of the checks; bound = u*(sum ||a_j|| + ||Ae||) */
    double max_ratio;  /* max |r_l| / bound seen on clean checks (measurement, verbose 2) */
    /* fault plan of this call */
    planned_t plan[FT_MAX_FAULTS];
    int nplan;
    /* outcome */
    int not_recovered, uncorrectable;
    int64_t located_col;
    double tprot;
    /* phase profile (policy.verbose >= 1 only; docs/qr.md "Where the time goes"): seconds
     * accumulated over the call. Trailing-update and checksum-update times come from backend
     * events (FT_EV_BASE.. in a ring of FT_EV_SLOTS steps, read two steps late, when they are
     * known to have completed, so reading them never waits on the device). */
    int prof;
    double ph_panel, ph_wait, ph_update, ph_csum, ph_in, ph_out;
    int64_t ev_next;             /* first step whose events have not been read yet */
    int ev_la[3];                /* the step of this slot recorded its lookahead event */
} qr_t;

/* Timing events: ft_dgemm owns 0..3; ft_dgeqrf uses 4..15 as 3 slots x 4 events per step:
 * +0 start (SIDE, after the panel arrived), +1 end of the lookahead columns (MAIN),
 * +2 end of the rest of the trailing update (SIDE), +3 end of the checksum update (SIDE). */
#define FT_EV_BASE 4
#define FT_EV_SLOTS 3
static int ev_id(int64_t step, int which) { return FT_EV_BASE + 4 * (int)(step % FT_EV_SLOTS) + which; }

static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---------------------------------------------------------------------------------------- */
/* The block reflector: C := H^T C = (I - V T^T V^T) C, V (mi x ib, unit lower, explicit      */
/* zeros/ones above), as LAPACK dlarfb('L','T','F','C').                                      */
/* ---------------------------------------------------------------------------------------- */

static int larfb(qr_t *g, int q, int64_t mi, int64_t nc, int64_t ib, const double *V,
                 int64_t ldv, const double *T, int64_t ldt, double *C, int64_t ldc, double *Wk,
                 int64_t ldw)
{
    const ft_backend_t *be = g->be;
    if (mi <= 0 || nc <= 0 || ib <= 0) return FT_SUCCESS;
    FT_CHECK(be->dgemm(g->ctx, q, 'T', 'N', ib, nc, mi, 1.0, V, ldv, C, ldc, 0.0, Wk, ldw));
    FT_CHECK(be->dtrmm(g->ctx, q, 'L', 'U', 'T', 'N', ib, nc, 1.0, T, ldt, Wk, ldw));
    FT_CHECK(be->dgemm(g->ctx, q, 'N', 'N', mi, nc, ib, -1.0, V, ldv, Wk, ldw, 1.0, C, ldc));
    return FT_SUCCESS;
}

/* ---------------------------------------------------------------------------------------- */
/* Threshold                                                                                 */
/* ---------------------------------------------------------------------------------------- */

/* ||x||_2 with scaling (no overflow/underflow in the squares); NaN/Inf propagate. */
static double nrm2(int64_t n, const double *x)
{
    double scale = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (!(a <= DBL_MAX)) return a; /* Inf or NaN */
        if (a > scale) scale = a;
    }
    if (scale == 0.0) return 0.0;
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double t = x[i] / scale;
        s += t * t;
    }
    return scale * sqrt(s);
}

/* Needs hN = [||a_j||_1 (n), max_i |a_ij| (n), c = A e (m)] on the host (queue MAIN synced). */
static void threshold(qr_t *g)
{
    const double u = DBL_EPSILON / 2, eta = 4.9406564584124654e-324;
    const int64_t m = g->m, n = g->n;
    double sa = 0.0;
    for (int64_t j = 0; j < n; j++) sa += sqrt(g->hN[j]) * sqrt(g->hN[n + j]);
    double ce = nrm2(m, g->hN + 2 * n);
    g->bound = u * (sa + ce);
    g->thr = g->pol.tol * ((double)(m + n) * g->bound + (double)(m + n) * (double)(n + 2) * 4.0 * eta);
    g->checkable = isfinite(g->thr) && isfinite(sa) && isfinite(ce);
    g->norms_ready = 1;
    if (!g->checkable) {
        g->rep->unchecked++;
        ft_log(g->ctx, 1, "dgeqrf: input not finite or checksums overflow: checks skipped");
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Checks                                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* hX = [R11 R12; 0 A22] [e w] over all m rows at panel boundary i, hC = dCS; syncs MAIN. */
static int check_sums(qr_t *g, int64_t i)
{
    const ft_backend_t *be = g->be;
    ft_context_t *ctx = g->ctx;
    const int64_t m = g->m, n = g->n, ld = g->ldda;
    FT_CHECK(be->sync(ctx, FT_Q_SIDE));
    if (i > 0) {
        FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, i, 2, g->dEW, n, g->dX, m));
        FT_CHECK(be->dtrmm(ctx, FT_Q_MAIN, 'L', 'U', 'N', 'N', i, 2, 1.0, g->dA, ld, g->dX, m));
        if (n > i)
            FT_CHECK(be->dgemm(ctx, FT_Q_MAIN, 'N', 'N', i, 2, n - i, 1.0, g->dA + i * ld, ld,
                               g->dEW + i, n, 1.0, g->dX, m));
    }
    if (m > i) {
        if (n > i) {
            FT_CHECK(be->dgemm(ctx, FT_Q_MAIN, 'N', 'N', m - i, 2, n - i, 1.0,
                               g->dA + i + i * ld, ld, g->dEW + i, n, 0.0, g->dX + i, m));
        } else {
            FT_CHECK(be->memset0(ctx, FT_Q_MAIN, g->dX + i, (size_t)(m - i) * sizeof(double)));
            FT_CHECK(be->memset0(ctx, FT_Q_MAIN, g->dX + m + i, (size_t)(m - i) * sizeof(double)));
        }
    }
    FT_CHECK(be->get_matrix(ctx, FT_Q_MAIN, m, 2, g->dX, m, g->hX, m));
    FT_CHECK(be->get_matrix(ctx, FT_Q_MAIN, m, 2, g->dCS, m, g->hC, m));
    FT_CHECK(be->sync(ctx, FT_Q_MAIN));
    g->rep->checks += m;
    return FT_SUCCESS;
}

static int row_fails(double d, double thr) { return !(fabs(d) <= thr); }

typedef struct {
    int64_t nr, ns;      /* failing rows of r, of s */
    int64_t lmax;        /* row of the largest |r| (non-finite first) */
    double rmax, smax;   /* max |r|, |s| (NaN counts as Inf) */
    int64_t lonly;       /* the only failing row (r or s), or -1 */
} analysis_t;

static void analyse(const qr_t *g, analysis_t *a)
{
    const int64_t m = g->m;
    const double thr = g->thr;
    memset(a, 0, sizeof *a);
    a->lmax = -1;
    a->lonly = -1;
    int64_t other = 0;
    for (int64_t l = 0; l < m; l++) {
        double r = g->hC[l] - g->hX[l], s = g->hC[m + l] - g->hX[m + l];
        double ar = isnan(r) ? INFINITY : fabs(r), as = isnan(s) ? INFINITY : fabs(s);
        int fr = row_fails(r, thr), fs = row_fails(s, thr);
        a->nr += fr;
        a->ns += fs;
        if (a->lmax < 0 || ar > a->rmax) {
            a->rmax = ar;
            a->lmax = l;
        }
        if (as > a->smax) a->smax = as;
        if (fr || fs) {
            if (a->lonly < 0 && !other) a->lonly = l;
            else {
                a->lonly = -1;
                other = 1;
            }
        }
    }
}

/* Column of a single error in row l (cols [lo, n)) from s_l / r_l, or by scanning the row for
 * the only non-finite element when the check is not finite. -1 when not located. */
static int locate_row(qr_t *g, int64_t l, int64_t lo, int64_t *j)
{
    const int64_t m = g->m, n = g->n;
    double r = g->hC[l] - g->hX[l], s = g->hC[m + l] - g->hX[m + l];
    *j = -1;
    if (isfinite(r) && isfinite(s) && r != 0.0) {
        int64_t c = abft_locate(s / r, g->W);
        if (c >= lo && c < n && fabs(s - abft_weight(c, g->W) * r) <=
                                    2.0 * g->thr + fabs(r) / (4.0 * (double)g->W))
            *j = c;
        return FT_SUCCESS;
    }
    /* not finite: the corrupted element itself is Inf/NaN (an exponent flip) */
    int64_t cnt = n - lo, found = -1, nbad = 0;
    if (cnt <= 0) return FT_SUCCESS;
    FT_CHECK(g->be->get_matrix(g->ctx, FT_Q_MAIN, 1, cnt, g->dA + l + lo * g->ldda, g->ldda,
                               g->hrow, 1));
    FT_CHECK(g->be->sync(g->ctx, FT_Q_MAIN));
    for (int64_t c = 0; c < cnt; c++)
        if (!isfinite(g->hrow[c])) {
            nbad++;
            found = lo + c;
        }
    if (nbad == 1) *j = found;
    return FT_SUCCESS;
}

/* Column common to all failing rows (propagated error), or -1. */
static int64_t locate_common(const qr_t *g, const analysis_t *a)
{
    const int64_t m = g->m;
    double r = g->hC[a->lmax] - g->hX[a->lmax], s = g->hC[m + a->lmax] - g->hX[m + a->lmax];
    if (!isfinite(r) || !isfinite(s) || r == 0.0) return -1;
    int64_t j = abft_locate(s / r, g->W);
    if (j < 0 || j >= g->n) return -1;
    double w = abft_weight(j, g->W);
    for (int64_t l = 0; l < m; l++) {
        double rl = g->hC[l] - g->hX[l], sl = g->hC[m + l] - g->hX[m + l];
        if (!row_fails(rl, g->thr) && !row_fails(sl, g->thr)) continue;
        if (!(fabs(sl - w * rl) <= 2.0 * g->thr + fabs(rl) / (4.0 * (double)g->W))) return -1;
    }
    return j;
}

/*
 * Verify at panel boundary i (i = k: the final check) and act on the outcome. step = the panel
 * step about to be factored (or np at the end).
 */
static int verify(qr_t *g, int64_t i, int64_t step)
{
    if (!g->norms_ready) {
        FT_CHECK(g->be->sync(g->ctx, FT_Q_MAIN));
        threshold(g);
    }
    if (!g->checkable || g->not_recovered || g->uncorrectable) return FT_SUCCESS;
    double t0 = ft_wtime();
    const int64_t m = g->m;
    ft_report_t *rep = g->rep;
    analysis_t a;
    FT_CHECK(check_sums(g, i));
    analyse(g, &a);
    if (a.nr == 0 && a.ns == 0) {
        if (g->bound > 0 && a.rmax / g->bound > g->max_ratio) g->max_ratio = a.rmax / g->bound;
        if (a.smax / (g->bound > 0 ? g->bound : 1) > g->max_ratio && g->bound > 0)
            g->max_ratio = a.smax / g->bound;
        goto out;
    }
    /* a checksum column: only one of the two checks fails (a data error delta shows in s as
     * w_j delta with w_j > 1/2, so s stays far below tau/4 only when the data are intact) */
    int csum_col = -1;
    if (a.nr > 0 && a.ns == 0 && a.smax <= g->thr / 4) csum_col = 0;
    else if (a.ns > 0 && a.nr == 0) csum_col = 1;
    if (csum_col >= 0) {
        rep->checksum_errors++;
        ft_report_event(rep, FT_EVENT_CHECKSUM, FT_REGION_CHECKSUM, -1, csum_col, step, 0.0, 0.0);
        ft_log(g->ctx, 2, "dgeqrf: checksum column %d corrupted (step %lld); data intact",
               csum_col, (long long)step);
        if (i < g->k) /* online: restore it from the data for the checks still to come */
            FT_CHECK(g->be->copy_matrix(g->ctx, FT_Q_MAIN, m, 1, g->dX + csum_col * m, m,
                                        g->dCS + csum_col * m, m));
        goto out;
    }
    /* data errors. Each failing row l points to its own column j_l (s_l / r_l = w_j). An
     * element hit after the last transformation of its row shows in that row alone ("single":
     * finished R, or the trailing matrix at an online check) and is corrected in place; an
     * error consumed by later panels shows in many rows with one common ratio. Singles are
     * only trusted where the ratio is precise (|r_l| >= 8 W tau: the ratio noise 2 tau / |r_l|
     * is below a quarter of the weight spacing 1/(2W)) or when the row is the only one. */
    {
        int64_t F[MAX_SINGLE], J[MAX_SINGLE], nF = 0, nfail = 0;
        double before[MAX_SINGLE], after[MAX_SINGLE];
        int single[MAX_SINGLE], nsingle = 0;
        int64_t *Jall = g->hJ;
        int *cnt = g->hcnt;
        memset(cnt, 0, (size_t)g->n * sizeof(int));
        int64_t nonfinite = 0; /* non-finite checks: located by scanning the row (a few) */
        for (int64_t l = 0; l < m; l++)
            if (!isfinite(g->hC[l] - g->hX[l]) || !isfinite(g->hC[m + l] - g->hX[m + l]))
                nonfinite++;
        for (int64_t l = 0; l < m; l++) {
            Jall[l] = -1;
            if (!row_fails(g->hC[l] - g->hX[l], g->thr) &&
                !row_fails(g->hC[m + l] - g->hX[m + l], g->thr))
                continue;
            nfail++;
            if (!(l < i || i < g->k)) continue; /* final check: rows >= k hold no data */
            double r = g->hC[l] - g->hX[l];
            double sl = g->hC[m + l] - g->hX[m + l];
            int finite = isfinite(r) && isfinite(sl);
            if ((finite && fabs(r) >= 8.0 * (double)g->W * g->thr) ||
                (!finite && nonfinite <= 8))
                FT_CHECK(locate_row(g, l, l < i ? l : i, &Jall[l]));
            if (Jall[l] >= 0) cnt[Jall[l]]++;
        }
        if (nfail == 1) { /* the only failing row: also imprecise or non-finite checks */
            for (int64_t l = 0; l < m; l++)
                if (row_fails(g->hC[l] - g->hX[l], g->thr) ||
                    row_fails(g->hC[m + l] - g->hX[m + l], g->thr)) {
                    if ((l < i || i < g->k) && Jall[l] < 0) {
                        FT_CHECK(locate_row(g, l, l < i ? l : i, &Jall[l]));
                        if (Jall[l] >= 0) cnt[Jall[l]]++;
                    }
                    break;
                }
        }
        for (int64_t l = 0; l < m && nF < MAX_SINGLE; l++)
            if (Jall[l] >= 0 && cnt[Jall[l]] == 1) {
                F[nF] = l;
                J[nF] = Jall[l];
                single[nF++] = 1;
                nsingle++;
            }
        if (nsingle) {
            for (int64_t t = 0; t < nF; t++) {
                if (!single[t]) continue;
                double *p = g->dA + F[t] + J[t] * g->ldda;
                FT_CHECK(g->be->get_elem(g->ctx, FT_Q_MAIN, p, &before[t]));
                FT_CHECK(g->be->set_elem(g->ctx, FT_Q_MAIN, p, 0.0));
            }
            FT_CHECK(check_sums(g, i));
            for (int64_t t = 0; t < nF; t++) {
                if (!single[t]) continue;
                after[t] = g->hC[F[t]] - g->hX[F[t]];
                FT_CHECK(g->be->set_elem(g->ctx, FT_Q_MAIN, g->dA + F[t] + J[t] * g->ldda,
                                         after[t]));
            }
            FT_CHECK(check_sums(g, i));
            int restored = 0;
            for (int64_t t = 0; t < nF; t++) {
                if (!single[t]) continue;
                int64_t l = F[t], j = J[t];
                ft_region_t reg = l < i ? FT_REGION_R : FT_REGION_TRAILING;
                rep->detected++;
                rep->located++;
                if (!row_fails(g->hC[l] - g->hX[l], g->thr) &&
                    !row_fails(g->hC[m + l] - g->hX[m + l], g->thr)) {
                    rep->corrected++;
                    ft_report_event(rep, FT_EVENT_CORRECTED, reg, l, j, step, before[t], after[t]);
                    ft_log(g->ctx, 2, "dgeqrf: corrected A(%lld,%lld) %.17g -> %.17g (step %lld)",
                           (long long)l, (long long)j, before[t], after[t], (long long)step);
                } else { /* the correction did not clear the row: put the value back */
                    FT_CHECK(g->be->set_elem(g->ctx, FT_Q_MAIN, g->dA + l + j * g->ldda,
                                             before[t]));
                    restored = 1;
                    rep->uncorrectable++;
                    g->uncorrectable = 1;
                    ft_report_event(rep, FT_EVENT_UNCORRECTABLE, reg, l, j, step, before[t],
                                    after[t]);
                    ft_log(g->ctx, 1, "dgeqrf: error at (%lld,%lld) not correctable",
                           (long long)l, (long long)j);
                }
            }
            if (restored) FT_CHECK(check_sums(g, i));
            analyse(g, &a);
            if (a.nr == 0 && a.ns == 0) goto out;
            if (g->uncorrectable) goto out;
        }
    }
    rep->detected++;
    /* several rows (or a row that could not be resolved): an error consumed by later panels */
    int64_t j = locate_common(g, &a);
    if (j >= 0) {
        rep->located++;
        g->not_recovered = 1;
        g->located_col = j;
        ft_report_event(rep, FT_EVENT_LOCATED, FT_REGION_TRAILING, -1, j, step, 0.0, 0.0);
        ft_log(g->ctx, 1, "dgeqrf: error located in column %lld (%lld failing rows), not "
               "recovered", (long long)j, (long long)(a.nr > a.ns ? a.nr : a.ns));
    } else {
        rep->uncorrectable++;
        g->uncorrectable = 1;
        ft_report_event(rep, FT_EVENT_UNCORRECTABLE, FT_REGION_TRAILING, a.lmax, -1, step, 0.0,
                        0.0);
        ft_log(g->ctx, 1, "dgeqrf: error detected (%lld failing rows), not located",
               (long long)(a.nr > a.ns ? a.nr : a.ns));
    }
out:
    g->tprot += ft_wtime() - t0;
    if (g->prof) g->ph_csum += ft_wtime() - t0;
    return FT_SUCCESS;
}

/* ---------------------------------------------------------------------------------------- */
/* Fault injection                                                                           */
/* ---------------------------------------------------------------------------------------- */

static void plan_faults(qr_t *g)
{
    static const ft_region_t regs[4] = {FT_REGION_R, FT_REGION_TRAILING, FT_REGION_Q,
                                        FT_REGION_CHECKSUM};
    g->nplan = 0;
    if (!g->ctx->nfaults) return;
    for (int r = 0; r < 4; r++) {
        if (!g->protect && regs[r] == FT_REGION_CHECKSUM) continue; /* nothing to corrupt */
        ft_fault_t f[FT_MAX_FAULTS];
        int nf = ft_inject_take(g->ctx, regs[r], -1, f, FT_MAX_FAULTS - g->nplan);
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

static int planned(const qr_t *g, ft_region_t reg, int64_t step)
{
    for (int t = 0; t < g->nplan; t++)
        if (!g->plan[t].done && g->plan[t].f.region == reg && g->plan[t].step == step) return 1;
    return 0;
}

static int64_t rnd(qr_t *g, int64_t n) { return (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)n); }

/* Apply the faults of region reg planned for panel step p (regions: docs/qr.md). */
static int inject(qr_t *g, ft_region_t reg, int64_t p)
{
    const int64_t m = g->m, n = g->n, i = p * g->nb, ib = imin(g->nb, g->k - i);
    for (int t = 0; t < g->nplan; t++) {
        planned_t *pl = &g->plan[t];
        if (pl->done || pl->f.region != reg || pl->step != p) continue;
        pl->done = 1;
        ft_fault_t f = pl->f;
        int64_t r = f.row, c = f.col;
        double *X = g->dA;
        int64_t rows = m, cols = n, ld = g->ldda;
        int ok;
        switch (reg) {
        case FT_REGION_R: /* finished R after step p: rows < i+ib, cols >= max(row, i) */
            if (r < 0) r = rnd(g, i + ib);
            if (c < 0 && r < i + ib) c = imax(r, i) + rnd(g, n - imax(r, i));
            ok = r < i + ib && c >= i && c >= r && c < n;
            break;
        case FT_REGION_TRAILING: /* rows >= i, cols >= i */
            if (r < 0) r = i + rnd(g, m - i);
            if (c < 0) c = i + rnd(g, n - i);
            ok = r >= i && r < m && c >= i && c < n;
            break;
        case FT_REGION_Q: { /* Householder vectors of panel p: cols [i, i+ib), rows > col */
            int64_t cmax = imin(i + ib, m - 1); /* columns with a vector below the diagonal */
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
            X = g->dCS, rows = m, cols = 2, ld = m;
            if (r < 0) r = rnd(g, m);
            if (c < 0) c = rnd(g, 2);
            ok = r < m && c < 2;
            break;
        }
        if (!ok) {
            ft_log(g->ctx, 1, "dgeqrf: fault (%lld,%lld) outside region %d at step %lld",
                   (long long)r, (long long)c, (int)reg, (long long)p);
            return FT_ERR_INVALID_VALUE;
        }
        f.row = r;
        f.col = c;
        FT_CHECK(ft_inject_apply(g->ctx, g->be, &f, X, rows, cols, ld, p, g->rep, NULL, NULL));
    }
    return FT_SUCCESS;
}

static int needs_sync(const qr_t *g, int64_t p)
{
    if (p == 0) return 1;
    if (g->protect && g->q > 0 && p % g->q == 0) return 1;
    if (!g->nplan) return 0;
    return planned(g, FT_REGION_TRAILING, p) || planned(g, FT_REGION_CHECKSUM, p) ||
           planned(g, FT_REGION_R, p - 1) || planned(g, FT_REGION_Q, p - 1);
}

/* ---------------------------------------------------------------------------------------- */
/* The factorization                                                                          */
/* ---------------------------------------------------------------------------------------- */

/* The panel runs on the CPU and its cost grows with nb (2 m n nb flops in all), while the GPU
 * update stays efficient down to nb = 64: measured on the H100 host (16 cores) at n = 16384,
 * nb = 64 ran 3.7 TFLOP/s against 1.5 with nb = 256 (bench/NOTES.md). */
static int64_t auto_nb(int64_t n)
{
    return n < 1024 ? 32 : 64;
}

/* Work and host buffers. */
static int setup(qr_t *g)
{
    ft_context_t *ctx = g->ctx;
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n, nb = g->nb;
    /* work memory: dCS m x 2, dEW n x 2, dX m x 2, dV 2 x m x nb, dT 2 x nb x nb,
     * dWa nb x nb, dWb nb x n, dWc nb x 2, dN1 n, dMx n */
    size_t nw = (size_t)(6 * m + 2 * n + 2 * m * nb + 3 * nb * nb + nb * n + 2 * nb + 2 * n + 64);
    double *w;
    FT_CHECK(ft_workspace(ctx, be, FT_WS_CHECK, nw * sizeof(double), (void **)&w));
    g->dCS = w, w += 2 * m;
    g->dEW = w, w += 2 * n;
    g->dX = w, w += 2 * m;
    g->dV[0] = w, w += m * nb;
    g->dV[1] = w, w += m * nb;
    g->dT[0] = w, w += nb * nb;
    g->dT[1] = w, w += nb * nb;
    g->dWa = w, w += nb * nb;
    g->dWb = w, w += nb * n;
    g->dWc = w, w += 2 * nb;
    g->dN1 = w, w += n;
    g->dMx = w, w += n;
    /* host: hP m x nb, hV m x nb, hT nb x nb, hwork, hEW 2n, hN 2n + m, hC 2m, hX 2m, hrow n */
    g->lhwork = nb * 64;
    size_t nh = (size_t)(2 * m * nb + nb * nb + g->lhwork + 2 * n + 2 * n + m + 4 * m + n + m + n + 64);
    double *h;
    FT_CHECK(be->alloc_host(ctx, (void **)&h, nh * sizeof(double)));
    g->hP = h, h += m * nb;
    g->hV = h, h += m * nb;
    g->hT = h, h += nb * nb;
    g->hwork = h, h += g->lhwork;
    g->hEW = h, h += 2 * n;
    g->hN = h, h += 2 * n + m;
    g->hC = h, h += 2 * m;
    g->hX = h, h += 2 * m;
    g->hrow = h, h += n;
    g->hJ = (int64_t *)h, h += m;
    g->hcnt = (int *)h;
    g->ldp = m;
    return FT_SUCCESS;
}

/* Checksums and the norms of the original A (queue MAIN, asynchronous). */
static int encode(qr_t *g)
{
    ft_context_t *ctx = g->ctx;
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n;
    for (int64_t j = 0; j < n; j++) {
        g->hEW[j] = 1.0;
        g->hEW[n + j] = abft_weight(j, g->W);
    }
    FT_CHECK(be->set_matrix(ctx, FT_Q_MAIN, n, 2, g->hEW, n, g->dEW, n));
    FT_CHECK(be->dgemm(ctx, FT_Q_MAIN, 'N', 'N', m, 2, n, 1.0, g->dA, g->ldda, g->dEW, n, 0.0,
                       g->dCS, m));
    /* ||a_j||_1 (block sums of A^T, one block) and max_i |a_ij| */
    FT_CHECK(be->block_sums(ctx, FT_Q_MAIN, 'T', n, m, g->dA, g->ldda, m, NULL, 0, g->dN1, n));
    FT_CHECK(be->col_absmax(ctx, FT_Q_MAIN, m, n, g->dA, g->ldda, g->dMx));
    FT_CHECK(be->get_matrix(ctx, FT_Q_MAIN, n, 1, g->dN1, n, g->hN, n));
    FT_CHECK(be->get_matrix(ctx, FT_Q_MAIN, n, 1, g->dMx, n, g->hN + n, n));
    FT_CHECK(be->get_matrix(ctx, FT_Q_MAIN, m, 1, g->dCS, m, g->hN + 2 * n, m));
    return FT_SUCCESS;
}

/* Profile: read the update events of steps [ev_next, upto). Called only where those steps'
 * events have completed (see factor), so event_elapsed does not wait on the device. */
static int harvest(qr_t *g, int64_t upto)
{
    for (; g->ev_next < upto; g->ev_next++) {
        const int64_t s = g->ev_next;
        double up = 0.0, la = 0.0, cs = 0.0;
        FT_CHECK(g->be->event_elapsed(g->ctx, ev_id(s, 0), ev_id(s, 2), &up));
        if (g->ev_la[s % FT_EV_SLOTS])
            FT_CHECK(g->be->event_elapsed(g->ctx, ev_id(s, 0), ev_id(s, 1), &la));
        FT_CHECK(g->be->event_elapsed(g->ctx, ev_id(s, 2), ev_id(s, 3), &cs));
        g->ph_update += up > la ? up : la;
        g->ph_csum += cs;
    }
    return FT_SUCCESS;
}

static int factor(qr_t *g)
{
    ft_context_t *ctx = g->ctx;
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n, k = g->k, nb = g->nb, ld = g->ldda;
    double *dA = g->dA;
    int st;

    if (g->protect) {
        double t0 = ft_wtime();
        FT_CHECK(encode(g));
        FT_CHECK(be->sync(ctx, FT_Q_MAIN));
        threshold(g);
        g->tprot += ft_wtime() - t0;
        if (g->prof) g->ph_csum += ft_wtime() - t0;
    }
    for (int64_t p = 0; p < g->np; p++) {
        const int64_t i = p * nb, ib = imin(nb, k - i), mi = m - i;
        const int b = (int)(p & 1);
        double *hP = g->host ? dA + i + i * ld : g->hP;
        const int64_t ldp = g->host ? ld : g->ldp;
        double tw = g->prof ? ft_wtime() : 0.0;
        if (needs_sync(g, p)) {
            FT_CHECK(be->sync(ctx, FT_Q_MAIN));
            FT_CHECK(be->sync(ctx, FT_Q_SIDE));
            if (g->prof) {
                double t1 = ft_wtime();
                g->ph_wait += t1 - tw;
                FT_CHECK(harvest(g, p)); /* everything issued so far has completed */
            }
            if (g->nplan && p > 0) {
                FT_CHECK(inject(g, FT_REGION_R, p - 1));
                FT_CHECK(inject(g, FT_REGION_Q, p - 1));
            }
            if (g->nplan) {
                FT_CHECK(inject(g, FT_REGION_TRAILING, p));
                if (g->protect) FT_CHECK(inject(g, FT_REGION_CHECKSUM, p));
            }
            if (g->protect && g->q > 0 && p % g->q == 0) FT_CHECK(verify(g, i, p));
            FT_CHECK(be->get_matrix(ctx, FT_Q_D2H, mi, ib, dA + i + i * ld, ld, hP, ldp));
            if (g->prof) tw = ft_wtime();
        }
        FT_CHECK(be->sync(ctx, FT_Q_D2H));
        if (g->prof) {
            double tp = ft_wtime();
            g->ph_wait += tp - tw;
            /* the panel copy of step p-1 was forked from MAIN after step p-1's lookahead, which
             * waited for all of step p-2 on SIDE: step p-2's events have completed */
            FT_CHECK(harvest(g, p - 1));
            tw = tp;
        }

        /* panel on the host: QR, T, V with explicit unit diagonal and zeros above */
        if ((st = ft_lapack_panel_qr(mi, ib, hP, ldp, g->tau + i, g->hwork, g->lhwork))) return st;
        double *hT = g->host ? g->dT[b] : g->hT, *hV = g->host ? g->dV[b] : g->hV;
        if ((st = ft_lapack_larft(mi, ib, hP, ldp, g->tau + i, hT, nb))) return st;
        if (g->prof) g->ph_panel += ft_wtime() - tw;
        for (int64_t c = 0; c < ib; c++) {
            double *v = hV + c * m;
            const double *a = hP + c * ldp;
            for (int64_t r = 0; r < c; r++) v[r] = 0.0;
            v[c] = 1.0;
            memcpy(v + c + 1, a + c + 1, (size_t)(mi - c - 1) * sizeof(double));
        }
        FT_CHECK(be->set_matrix(ctx, FT_Q_H2D, mi, ib, hP, ldp, dA + i + i * ld, ld));
        FT_CHECK(be->set_matrix(ctx, FT_Q_H2D, mi, ib, hV, m, g->dV[b], m));
        FT_CHECK(be->set_matrix(ctx, FT_Q_H2D, ib, ib, hT, nb, g->dT[b], nb));
        FT_CHECK(be->fork(ctx, FT_Q_H2D, FT_Q_MAIN));
        FT_CHECK(be->fork(ctx, FT_Q_H2D, FT_Q_SIDE));
        if (g->prof) {
            g->ev_la[p % FT_EV_SLOTS] = 0;
            FT_CHECK(be->event_record(ctx, FT_Q_SIDE, ev_id(p, 0)));
        }

        /* trailing update: the next panel first (MAIN), then the rest and the checksums (SIDE) */
        const int64_t j0 = i + ib;
        if (j0 < n) {
            int64_t la = j0 < k ? imin(nb, k - j0) : 0;
            if (la > 0) {
                FT_CHECK(be->fork(ctx, FT_Q_SIDE, FT_Q_MAIN)); /* the rest of step p-1 */
                FT_CHECK(larfb(g, FT_Q_MAIN, mi, la, ib, g->dV[b], m, g->dT[b], nb,
                               dA + i + j0 * ld, ld, g->dWa, nb));
                if (g->prof) {
                    g->ev_la[p % FT_EV_SLOTS] = 1;
                    FT_CHECK(be->event_record(ctx, FT_Q_MAIN, ev_id(p, 1)));
                }
                if (!needs_sync(g, p + 1)) {
                    FT_CHECK(be->fork(ctx, FT_Q_MAIN, FT_Q_D2H));
                    double *hP2 = g->host ? dA + j0 + j0 * ld : g->hP;
                    FT_CHECK(be->get_matrix(ctx, FT_Q_D2H, m - j0, la, dA + j0 + j0 * ld, ld,
                                            hP2, ldp));
                }
            }
            FT_CHECK(larfb(g, FT_Q_SIDE, mi, n - j0 - la, ib, g->dV[b], m, g->dT[b], nb,
                           dA + i + (j0 + la) * ld, ld, g->dWb, nb));
        }
        if (g->prof) FT_CHECK(be->event_record(ctx, FT_Q_SIDE, ev_id(p, 2)));
        if (g->protect)
            FT_CHECK(larfb(g, FT_Q_SIDE, mi, 2, ib, g->dV[b], m, g->dT[b], nb, g->dCS + i, m,
                           g->dWc, nb));
        if (g->prof) FT_CHECK(be->event_record(ctx, FT_Q_SIDE, ev_id(p, 3)));
    }
    FT_CHECK(be->sync(ctx, FT_Q_MAIN));
    FT_CHECK(be->sync(ctx, FT_Q_SIDE));
    if (g->prof) FT_CHECK(harvest(g, g->np));
    if (g->nplan) {
        FT_CHECK(inject(g, FT_REGION_R, g->np - 1));
        FT_CHECK(inject(g, FT_REGION_Q, g->np - 1));
    }
    if (g->protect) FT_CHECK(verify(g, k, g->np));
    return FT_SUCCESS;
}

/* ---------------------------------------------------------------------------------------- */
/* Drivers                                                                                   */
/* ---------------------------------------------------------------------------------------- */

static int64_t resolve_nb(const ft_context_t *ctx, int64_t n)
{
    const ft_policy_t *p = ctx ? &ctx->policy : NULL;
    return p && p->nb > 0 ? p->nb : auto_nb(n);
}

static double qr_flops(double m, double n)
{
    if (m >= n) return 2.0 * m * n * n - 2.0 * n * n * n / 3.0;
    return 2.0 * n * m * m - 2.0 * m * m * m / 3.0;
}

/* LAPACK on the host for small problems (policy.crossover); device data (is_gpu) goes through
 * a pinned host copy. */
static int crossover_path(ft_context_t *ctx, const ft_backend_t *be, int is_gpu, int64_t m,
                          int64_t n, double *dA, int64_t ldda, double *tau)
{
    if (!is_gpu) return ft_lapack_dgeqrf(m, n, dA, ldda, tau);
    double *h;
    FT_CHECK(be->alloc_host(ctx, (void **)&h, (size_t)(m * n) * sizeof(double)));
    int st = be->get_matrix(ctx, FT_Q_MAIN, m, n, dA, ldda, h, m);
    if (!st) st = be->sync(ctx, FT_Q_MAIN);
    if (!st) st = ft_lapack_dgeqrf(m, n, h, m, tau);
    if (!st) st = be->set_matrix(ctx, FT_Q_MAIN, m, n, h, m, dA, ldda);
    if (!st) st = be->sync(ctx, FT_Q_MAIN);
    be->free_host(ctx, h);
    return st;
}

static int dgeqrf_driver(ft_context_t *ctx, int is_gpu, const char *name, ft_int m, ft_int n,
                         double *A, ft_int lda, double *tau, double *work, ft_int lwork,
                         ft_int *info, ft_report_t *report)
{
    ft_report_t local;
    ft_report_t *rep = report ? report : &local;
    ft_report_init(rep, FT_DEVICE_CPU);
    int arg = 0;
    const int lquery = !is_gpu && lwork == -1;
    if (m < 0) arg = 1;
    else if (n < 0) arg = 2;
    else if (lda < (m > 1 ? m : 1)) arg = 4;
    else if (!is_gpu && lwork < (n > 1 ? n : 1) && !lquery) arg = 7;
    if (arg) {
        ft_xerbla(name, arg);
        if (info) *info = -arg;
        return rep->status = -arg;
    }
    const int64_t k = m < n ? m : n;
    const int64_t lwkopt = k == 0 ? 1 : (int64_t)n * resolve_nb(ctx, n);
    if (!is_gpu && work) work[0] = (double)lwkopt;
    if (info) *info = 0;
    if (lquery || k == 0) return rep->status = FT_SUCCESS;
    if (!ctx) {
        if (info) *info = FT_ERR_INVALID_VALUE;
        return rep->status = FT_ERR_INVALID_VALUE;
    }

    double t0 = ft_wtime();
    const ft_backend_t *be;
    int st = ft_select_backend(ctx, qr_flops(m, n), is_gpu, &be);
    if (st) {
        if (info) *info = st;
        return rep->status = st;
    }
    rep->backend = be->kind;
    qr_t g = {.ctx = ctx, .be = be, .rep = rep, .m = m, .n = n, .k = k, .tau = tau,
              .located_col = -1};
    ft_policy_resolve(&ctx->policy, &g.pol);
    g.protect = g.pol.protect != 0;
    g.nb = resolve_nb(ctx, n);
    if (g.nb > k) g.nb = k;
    g.np = (k + g.nb - 1) / g.nb;
    g.W = abft_wden(n);
    g.q = g.pol.verify_every;
    g.host = be->kind == FT_DEVICE_CPU;
    g.prof = ctx->policy.verbose >= 1;
    const int64_t cross = g.pol.crossover == 0 ? 128 : g.pol.crossover;
    const int host_on_gpu = !is_gpu && !g.host;
    double *hbuf_owner = NULL;

    if (cross >= 0 && k <= cross) {
        ft_log(ctx, 1, "%s m=%d n=%d: min(m,n) <= crossover %lld: LAPACK dgeqrf, unprotected",
               name, m, n, (long long)cross);
        st = crossover_path(ctx, be, is_gpu, m, n, A, lda, tau);
        goto done;
    }

    if (host_on_gpu) {
        g.ldda = ((int64_t)m + 31) / 32 * 32;
        size_t need = (size_t)(g.ldda * n) * sizeof(double);
        size_t avail = ft_cuda_mem_free();
        if (avail && need + need / 4 + ((size_t)64 << 20) > avail) {
            ft_log(ctx, 1, "dgeqrf: %zu MB do not fit in device memory", need >> 20);
            st = FT_ERR_TOO_LARGE;
            goto done;
        }
        if ((st = ft_workspace(ctx, be, FT_WS_A, need, (void **)&g.dA))) goto done;
        double tc = g.prof ? ft_wtime() : 0.0;
        if ((st = be->set_matrix(ctx, FT_Q_MAIN, m, n, A, lda, g.dA, g.ldda))) goto done;
        if (g.prof) { /* profiling only: wait for the copy so that it is not billed to encode */
            if ((st = be->sync(ctx, FT_Q_MAIN))) goto done;
            g.ph_in = ft_wtime() - tc;
        }
    } else {
        g.dA = A;
        g.ldda = lda;
    }
    if ((st = setup(&g))) goto done;
    hbuf_owner = g.hP;
    plan_faults(&g);
    st = factor(&g);
    if (!st && host_on_gpu) {
        double tc = g.prof ? ft_wtime() : 0.0;
        st = be->get_matrix(ctx, FT_Q_MAIN, m, n, g.dA, g.ldda, A, lda);
        if (!st) st = be->sync(ctx, FT_Q_MAIN);
        if (g.prof) g.ph_out = ft_wtime() - tc;
    }
    if (!st) {
        if (g.uncorrectable) st = FT_ERR_UNCORRECTABLE;
        else if (g.not_recovered) st = FT_ERR_NOT_RECOVERED;
    }
    if (g.protect && g.norms_ready)
        ft_log(ctx, 2, "dgeqrf: check threshold %.3e, max clean residual / (u*bound) = %.3e",
               g.thr, g.max_ratio);
    rep->time_protect = g.tprot;
done:
    if (hbuf_owner) {
        be->sync(ctx, FT_Q_MAIN);
        be->sync(ctx, FT_Q_SIDE);
        be->sync(ctx, FT_Q_H2D);
        be->sync(ctx, FT_Q_D2H);
        be->free_host(ctx, hbuf_owner);
    }
    if (host_on_gpu) ft_workspace_trim(ctx, FT_WS_KEEP);
    ft_inject_drop_call(ctx);
    ctx->ncalls++;
    if (info) *info = st;
    rep->status = st;
    rep->time_total = ft_wtime() - t0;
    if (ctx->policy.verbose >= 1) {
        char buf[512];
        ft_log(ctx, 1, "%s m=%d n=%d nb=%lld: %s", name, m, n, (long long)g.nb,
               ft_report_string(rep, buf, sizeof buf));
        if (g.prof && hbuf_owner) /* the blocked driver ran (not the crossover path) */
            ft_log(ctx, 1, "dgeqrf phases: panel_cpu %.3f ms, wait_panel %.3f ms, update_gpu "
                   "%.3f ms, checksum %.3f ms, copy_in %.3f ms, copy_out %.3f ms, total %.3f ms",
                   1e3 * g.ph_panel, 1e3 * g.ph_wait, 1e3 * g.ph_update, 1e3 * g.ph_csum,
                   1e3 * g.ph_in, 1e3 * g.ph_out, 1e3 * rep->time_total);
    }
    return st;
}

/* Measurement hook for the tests and docs/qr.md: the largest clean residual ratio of the last
 * call is logged at verbose level 2 ("max clean residual / (u*bound)"). */

int ft_dgeqrf_ex(ft_context_t *ctx, ft_int m, ft_int n, double *A, ft_int lda, double *tau,
                 double *work, ft_int lwork, ft_int *info, ft_report_t *report)
{
    if (!ctx) {
        ctx = ft_default_context();
        if (!ctx) {
            if (info) *info = FT_ERR_ALLOC;
            return FT_ERR_ALLOC;
        }
        pthread_mutex_lock(&ctx->lock);
        int st = dgeqrf_driver(ctx, 0, "FT_DGEQRF", m, n, A, lda, tau, work, lwork, info, report);
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }
    return dgeqrf_driver(ctx, 0, "FT_DGEQRF", m, n, A, lda, tau, work, lwork, info, report);
}

int ft_dgeqrf(ft_int m, ft_int n, double *A, ft_int lda, double *tau, double *work, ft_int lwork,
              ft_int *info)
{
    return ft_dgeqrf_ex(NULL, m, n, A, lda, tau, work, lwork, info, NULL);
}

int ft_dgeqrf_gpu_ex(ft_context_t *ctx, ft_int m, ft_int n, double *dA, ft_int ldda, double *tau,
                     ft_int *info, ft_report_t *report)
{
    if (!ctx) {
        ctx = ft_default_context();
        if (!ctx) {
            if (info) *info = FT_ERR_ALLOC;
            return FT_ERR_ALLOC;
        }
        pthread_mutex_lock(&ctx->lock);
        int st = dgeqrf_driver(ctx, 1, "FT_DGEQRF_GPU", m, n, dA, ldda, tau, NULL, 0, info,
                               report);
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }
    return dgeqrf_driver(ctx, 1, "FT_DGEQRF_GPU", m, n, dA, ldda, tau, NULL, 0, info, report);
}

int ft_dgeqrf_gpu(ft_int m, ft_int n, double *dA, ft_int ldda, double *tau, ft_int *info)
{
    return ft_dgeqrf_gpu_ex(NULL, m, n, dA, ldda, tau, info, NULL);
}
