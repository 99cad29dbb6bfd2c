/*
 * qr_api.c — ft_dgeqrf's public entry points (ftla.h): LAPACK DGEQRF's arguments checked in
 * order, the workspace query, quick return, the call layer (core/call.h), host data staged to
 * the device when the GPU runs the call, then the protected loop (qr_loop.c) — or, for small
 * problems (policy.crossover), LAPACK dgeqrf on the host.
 */
#include "core/size.h"
#include "qr/qr_internal.h"
#include "qr/qr_model.h"
#include "qr/qrf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t resolve_nb(const ft_context_t *ctx, int64_t n, int gpanel)
{
    return ctx && ctx->policy.nb > 0 ? ctx->policy.nb : qr_auto_nb(n, gpanel);
}

/* Panel placement (policy.panel; docs/qr.md "Panel placement"): 1 = in work memory on the
 * backend. AUTO: the environment's FTLA_PANEL (cpu or gpu) when set, else the device on CUDA
 * (measured faster at every size: bench/NOTES.md), the host LAPACK hybrid on the CPU backend. */
int qr_resolve_panel(const ft_policy_t *pol, const ft_backend_t *be)
{
    if (pol->panel == FT_PANEL_CPU) return 0;
    if (pol->panel == FT_PANEL_GPU) return 1;
    const char *e = getenv("FTLA_PANEL");
    if (e && !strcmp(e, "cpu")) return 0;
    if (e && !strcmp(e, "gpu")) return 1;
    return be->kind == FT_DEVICE_CUDA;
}

static double qr_flops(double m, double n)
{
    if (m >= n) return 2.0 * m * n * n - 2.0 * n * n * n / 3.0;
    return 2.0 * n * m * m - 2.0 * m * m * m / 3.0;
}

/* Leading dimension of the device copy of host data: rows rounded up to 32 (aligned columns). */
int64_t qr_stage_ld(int64_t m) { return (m + 31) / 32 * 32; }

/* LAPACK on the host for small problems (policy.crossover); device data (is_gpu) goes through
 * a host copy from the call's pinned arena. */
static int crossover_path(ft_call_t *c, int is_gpu, int64_t m, int64_t n, double *dA,
                          int64_t ldda, double *tau)
{
    if (!is_gpu) return ft_lapack_dgeqrf(m, n, dA, ldda, tau);
    size_t bytes;
    double *h;
    if (ft_stage_bytes(m, n, &bytes)) return FT_ERR_TOO_LARGE;
    FT_CHECK(ft_call_pinned(c, bytes, (void **)&h));
    FT_CHECK(ft_stage_out(c, c->main, m, n, dA, ldda, h, m));
    FT_CHECK(ft_lapack_dgeqrf(m, n, h, m, tau));
    FT_CHECK(c->be->set_matrix(c->main, m, n, h, m, dA, ldda));
    return c->be->sync(c->main);
}

/* FTLA_QR_EARLY_OUT=0 (read once; for measurements): host pointers on a device copy the whole
 * factor back at the end, as before the finished columns went back during the call */
static int early_out_enabled(void)
{
    static int env = -1;
    if (env < 0) {
        const char *e = getenv("FTLA_QR_EARLY_OUT");
        env = !(e && e[0] == '0' && e[1] == '\0');
    }
    return env;
}

/* Whether anything in the call may have changed data after it was factored: a detected error
 * (corrected, recovered, re-factored or not), a recognised checksum error. */
static int changed(const qr_t *g)
{
    const ft_report_t *r = g->rep;
    return r->detected || r->located || r->corrected || r->uncorrectable || r->recomputed ||
           r->recovered || r->checksum_errors || g->not_recovered || g->uncorrectable ||
           g->nrefactor;
}

/* F: the FT factor to fill (QR-update recovery), or NULL (re-factorization: LAPACK layout). */
static int driver(ft_call_t *c, int is_gpu, struct ft_qrf *F, ft_int m, ft_int n, double *A,
                  ft_int lda, double *tau, double *work, ft_int lwork)
{
    int arg = 0;
    const int lquery = !is_gpu && lwork == -1;
    if (m < 0) arg = 1;
    else if (n < 0) arg = 2;
    else if (lda < (m > 1 ? m : 1)) arg = 4;
    else if (!is_gpu && lwork < (n > 1 ? n : 1) && !lquery) arg = 7;
    if (arg) {
        ft_xerbla(c->name, arg);
        return -arg;
    }
    const int64_t k = m < n ? m : n;
    const int64_t lwkopt = k == 0 ? 1 : (int64_t)n * resolve_nb(c->ctx, n, 0);
    if (!is_gpu && work) work[0] = (double)lwkopt;
    if (lquery) return FT_SUCCESS;
    if (F) qrf_reset(F, m, n);
    if (k == 0) return FT_SUCCESS;

    qr_t g = {.call = c, .m = m, .n = n, .k = k, .tau = tau, .located_col = -1, .qv_c1 = -1, .qv_final = -1,
              .refactor_from = -1, .qrf = F, .path = F ? QR_PATH_UPDATE : QR_PATH_REFACTOR};
    /* the work memory of the larger block size of the two placements, for the choice of the
     * backend; the placement and block size once it is known */
    g.nb = qr_imin(k, c->ctx && c->ctx->policy.nb > 0 ? c->ctx->policy.nb : 256);
    const int64_t ldst = qr_stage_ld(m);
    size_t stage_bytes;
    int64_t wk = qr_work_elems(m, n, g.nb), ws;
    if (wk < 0 || ft_mul_ovf(ldst, n, &ws) || ft_add_ovf(ws, wk, &ws) ||
        ft_dbytes(ws, &stage_bytes))
        return FT_ERR_TOO_LARGE;
    if (!is_gpu) c->xfer_bytes = 16.0 * (double)m * (double)n; /* A in, the factor out */
    FT_CHECK(ft_call_select(c, qr_flops(m, n), is_gpu, stage_bytes));
    const ft_backend_t *be = c->be;
    g.ctx = c->ctx, g.be = be, g.rep = &c->rep, g.pol = c->pol, g.qm = c->main;
    g.gpanel = qr_resolve_panel(&g.pol, be);
    g.nb = qr_imin(k, resolve_nb(c->ctx, n, g.gpanel));
    g.q = g.pol.verify_every;
    /* the performance model (qr_model.c): on the device, placement AUTO (no FTLA_PANEL) and
     * nb automatic are its choices; a verification interval from policy.error_rate on any
     * backend. A model that cannot be had leaves the fixed choices. */
    const char *envp = getenv("FTLA_PANEL");
    const int free_place = g.pol.panel == FT_PANEL_AUTO && !(envp && *envp);
    const int want_place = be->kind == FT_DEVICE_CUDA && (free_place || g.pol.nb == 0);
    const int want_q = g.pol.verify_every == 0 && g.pol.error_rate > 0 && g.pol.protect;
    if (qr_model_enabled() && (want_place || want_q) &&
        !(g.pol.crossover > 0 && k <= g.pol.crossover)) {
        const qr_model_t *M;
        int src;
        double secs;
        if (!qr_model_get(c, &M, &src, &secs, NULL, 0)) {
            qr_problem_t P = {m, n, is_gpu, g.pol.protect != 0,
                              g.pol.protect != 0 && g.pol.protect_q != -1};
            ft_qr_model_t ch;
            memset(&ch, 0, sizeof ch);
            qr_model_choose(M, &P, free_place ? -1 : g.gpanel, want_place ? g.pol.nb : g.nb,
                            g.pol.error_rate, &ch);
            if (want_place) {
                g.gpanel = ch.panel == FT_PANEL_GPU;
                /* host panels keep the measured fixed nb: the model's host-panel predictions
                 * are off by 30-60 % on the H100 (bench/NOTES.md), and its nb there ran slower */
                g.nb = qr_imin(k, g.gpanel ? ch.nb : resolve_nb(c->ctx, n, 0));
            }
            if (want_q) g.q = ch.verify_every;
            ft_log(c->ctx, 1, "dgeqrf model: panel %s nb %d verify every %d, predicted %.3f ms",
                   ch.panel == FT_PANEL_GPU ? "gpu" : "cpu", ch.nb, ch.verify_every,
                   1e3 * ch.seconds);
        }
    }
    g.np = (k + g.nb - 1) / g.nb;
    snprintf(c->desc, sizeof c->desc, "m=%d n=%d nb=%lld panel=%s", m, n, (long long)g.nb,
             g.gpanel ? "gpu" : "cpu");
    g.protect = g.pol.protect != 0;
    g.protect_q = g.protect && g.pol.protect_q != -1;
    g.pcheck = g.protect_q; /* the panels and the reflectors in use (qr_pcheck.c) */
    /* the vectors, the panels and the reflectors in use are not checked */
    if (g.protect && !g.protect_q) c->rep.unchecked++;
    g.nbc = abft_qr_check_width(n);
    g.ncb = (n + g.nbc - 1) / g.nbc;
    /* weights are local to a checksum block (of at most min(nbc, n) columns) */
    g.W = abft_wden(g.nbc < n ? g.nbc : n);
    g.host = be->kind == FT_DEVICE_CPU;
    g.prof = c->ctx->policy.verbose >= 1;
    const int host_on_gpu = !is_gpu && !g.host;

    /* The checksum columns work at any size, so every size is protected by default
     * (crossover 0 or -1). Only an explicit crossover > 0 sends small problems to plain LAPACK,
     * and the report then says the result is unchecked. */
    if (g.pol.crossover > 0 && k <= g.pol.crossover) {
        ft_log(c->ctx, 1, "%s m=%d n=%d: min(m,n) <= crossover %d: LAPACK dgeqrf, UNCHECKED",
               c->name, m, n, g.pol.crossover);
        c->rep.unchecked++;
        return crossover_path(c, is_gpu, m, n, A, lda, tau);
    }
    FT_CHECK(ft_call_queue(c, &g.qs));
    FT_CHECK(ft_call_queue(c, &g.qh2d));
    FT_CHECK(ft_call_queue(c, &g.qd2h));
    g.qck = g.qh2d;
    if (g.gpanel && !g.host) {
        /* the panel and the lookahead on a queue whose work goes ahead of the trailing
         * update's when both wait for the device: the panel is the critical path */
        ft_queue_t *qp;
        FT_CHECK(ft_call_queue(c, &qp));
        FT_CHECK(be->queue_raise(qp));
        FT_CHECK(be->fork(g.qm, qp));
        g.qm = qp;
    }
    if (g.prof) FT_CHECK(qr_profile_events(&g));
    FT_CHECK(ft_trace_start(c, g.qm));

    if (host_on_gpu) {
        g.ldda = ldst;
        double tc = g.prof ? ft_wtime() : 0.0;
        const int sp = qr_tb(&g, g.qm, FT_PHASE_STAGE, -1);
        FT_CHECK(ft_stage_in(c, g.qm, m, n, A, lda, g.ldda, &g.dA));
        qr_te(&g, sp, g.qm);
        if (g.prof) { /* profiling only: wait for the copy so that it is not billed to encode */
            FT_CHECK(be->sync(g.qm));
            g.ph_in = ft_wtime() - tc;
        }
    } else {
        g.dA = A;
        g.ldda = lda;
    }
    FT_CHECK(qr_setup(&g));
    /* host pointers with panels in work memory: the finished columns go back while the call
     * runs (docs/qr.md "Host pointers"), the originals for a recovery then from a copy in work
     * memory */
    int early = host_on_gpu && g.gpanel && early_out_enabled() && ft_stage_out_ok(c, m, n, A);
    FT_CHECK(qr_source_begin(&g, is_gpu, A, lda, &early));
    if (early) {
        g.eoA = A;
        g.eolda = lda;
    }
    qr_plan_faults(&g);
    int st = qr_factor(&g);
    if (!st && host_on_gpu) {
        double tc = g.prof ? ft_wtime() : 0.0;
        const double t0 = ft_wtime();
        const int again = early && (!g.eoA || changed(&g));
        if (early && !again) { /* the columns not sent yet */
            st = ft_stage_out_async(c, g.qd2h, m, n - g.eo_col, g.dA + g.eo_col * g.ldda,
                                    g.ldda, A + g.eo_col * lda, lda);
            if (!st) st = ft_stage_out_wait(c, g.qd2h);
        } else { /* all of it (what went early may have changed since) */
            if (early) st = ft_stage_out_wait(c, g.qd2h);
            if (!st) st = ft_stage_out(c, g.qm, m, n, g.dA, g.ldda, A, lda);
        }
        if (early)
            ft_log(c->ctx, 2, "dgeqrf: %lld of %lld columns went back to the host during the "
                   "call%s", (long long)g.eo_col, (long long)n,
                   again ? "; all sent again at the end (an event may have changed them)" : "");
        ft_trace_host(c, FT_PHASE_STAGE, g.np, t0, ft_wtime());
        if (g.prof) g.ph_out = ft_wtime() - tc;
    }
    if (!st) {
        if (g.uncorrectable) st = FT_ERR_UNCORRECTABLE;
        else if (g.not_recovered) st = FT_ERR_NOT_RECOVERED;
        else if (g.unchecked_finite) st = FT_ERR_UNCHECKED;
    }
    if (g.protect && g.norms_ready)
        ft_log(c->ctx, 2, "dgeqrf: check threshold %.3e, max clean residual / (u*bound) = %.3e; "
               "panel checks: max |tau ||v||^2 - 2| / 4u = %.3e, "
               "max column ||d_j|| / (u sigma ||r_j||) = %.3e",
               g.thr, g.max_ratio, g.pc_oratio, g.pc_cratio);
    c->rep.time_protect = g.tprot;
    c->rep.time_recovery = g.trec;
    if (g.prof) qr_profile_log(&g);
    return st;
}

/* lapack_layout: the plain entry points, which never return an FT factor. */
static int entry(ft_context_t *ctx, int is_gpu, int lapack_layout, const char *name, ft_int m,
                 ft_int n, double *A, ft_int lda, double *tau, double *work, ft_int lwork,
                 ft_int *info, ft_report_t *report, size_t report_size)
{
    ft_call_t c;
    int st = ft_call_begin(&c, ctx, name, report, report_size);
    if (!st) st = driver(&c, is_gpu, lapack_layout ? NULL : c.ctx->qrf, m, n, A, lda, tau, work,
                         lwork);
    st = ft_call_end(&c, st);
    if (info) *info = st;
    return st;
}

int ft_dgeqrf_ex_v(ft_context_t *ctx, ft_int m, ft_int n, double *A, ft_int lda, double *tau,
                   double *work, ft_int lwork, ft_int *info, ft_report_t *report,
                   size_t report_size)
{
    return entry(ctx, 0, 0, "FT_DGEQRF", m, n, A, lda, tau, work, lwork, info, report,
                 report_size);
}

int ft_dgeqrf(ft_int m, ft_int n, double *A, ft_int lda, double *tau, double *work, ft_int lwork,
              ft_int *info)
{
    return entry(NULL, 0, 1, "FT_DGEQRF", m, n, A, lda, tau, work, lwork, info, NULL, 0);
}

int ft_dgeqrf_gpu_ex_v(ft_context_t *ctx, ft_int m, ft_int n, double *dA, ft_int ldda,
                       double *tau, ft_int *info, ft_report_t *report, size_t report_size)
{
    return entry(ctx, 1, 0, "FT_DGEQRF_GPU", m, n, dA, ldda, tau, NULL, 0, info, report,
                 report_size);
}

int ft_dgeqrf_gpu(ft_int m, ft_int n, double *dA, ft_int ldda, double *tau, ft_int *info)
{
    return entry(NULL, 1, 1, "FT_DGEQRF_GPU", m, n, dA, ldda, tau, NULL, 0, info, NULL, 0);
}

/* ft_dgels (qr_solve.c): the factorization with an explicit FT factor, on ctx. */
int qr_geqrf_factor(ft_context_t *ctx, int is_gpu, struct ft_qrf *F, ft_int m, ft_int n,
                    double *A, ft_int lda, double *tau, ft_report_t *report)
{
    ft_call_t c;
    ft_int lw = n > 1 ? n : 1;
    int st = ft_call_begin(&c, ctx, is_gpu ? "FT_DGELS_GPU" : "FT_DGELS", report,
                           report ? sizeof *report : 0);
    if (!st) st = driver(&c, is_gpu, F, m, n, A, lda, tau, NULL, is_gpu ? 0 : lw);
    return ft_call_end(&c, st);
}
