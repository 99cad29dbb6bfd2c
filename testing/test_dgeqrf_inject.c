/*
 * test_dgeqrf_inject.c — ft_dgeqrf detects, locates and (where this issue can) corrects
 * injected soft errors (docs/qr.md, error model).
 *
 *   - FT_REGION_R (finished R) at early, middle and late panel steps, bit flips (mantissa and
 *     exponent, including flips to Inf/NaN-free huge values), additive values, Inf and NaN:
 *     detected, located at the injected element, corrected in place; status 0; dqrt01 ratios
 *     below 30; the same with online verification (verify_every = 1);
 *   - FT_REGION_TRAILING, checks at the end only: detected every time and located in the
 *     injected column, not recovered: status and info FT_ERR_NOT_RECOVERED, a LOCATED event
 *     with that column; with verify_every = 1: corrected in place before any panel consumes it,
 *     status 0, ratios below 30;
 *   - FT_REGION_CHECKSUM (either column, any step, with and without online checks): recognised
 *     as a checksum error, nothing detected in the data, status 0, and the factorization is
 *     bit-identical to the fault-free run;
 *   - random steps and positions (-1) for R and trailing faults;
 *   - shapes: square 256 (8 panels of 32), tall 300x160, wide 160x300.
 *
 * With the second argument `q`, only FT_REGION_Q and FT_REGION_TAU (the finished Householder
 * vectors and tau, issue 9, checkpoint of Q), at early, middle and late steps, additive values
 * and bit flips down to the lowest mantissa bit, with and without online checks: one and two
 * changed elements per vector (in one or two vectors), tau, a vector and its tau: detected,
 * restored bit for bit (status 0, each injected element corrected at its place, the output
 * identical to the fault-free run, dqrt01 ratios below 30 through LAPACKE_dorgqr); three changed
 * elements in one vector: reported (FT_ERR_UNCORRECTABLE).
 *
 *
 * With the second argument `pv`, FT_REGION_REFLECTORS (V or T of a panel on the device after
 * they arrived, before the update applies them) and FT_REGION_PANEL (inside the host's panel
 * factorization, between its two halves: in the finished half's R or vectors, in the half not
 * yet factored), issue 9 items 3 and 4, at early, middle and late steps, with and without online
 * checks: detected (a RECOMPUTED event of the region at the fault's step), re-factored from that
 * panel, status 0, dqrt01 ratios below 30; a flip of a low mantissa bit inside the panel may
 * stay below the rounding threshold and then the ratios must still be below 30; without the
 * original A (keep_input -1): reported (FT_ERR_NOT_RECOVERED). Panels in work memory are
 * recursive (qr_dpanel.c): each leaf writes its vectors into V as it finishes, so a change to a
 * vector of the finished half afterwards is a change to the output's Householder vectors
 * (FT_REGION_Q), which the checkpoint of Q corrects in place (a CORRECTED event of FT_REGION_Q
 * at that element) instead of a re-factorization (which panels that the backend factors in one
 * piece still get).
 *
 * Usage: test_dgeqrf_inject [cpu|cuda|auto] [q|pv]
 */
#define _POSIX_C_SOURCE 200809L
#include "abft/abft.h" /* abft_qr_check_width: where the checksum columns are */
#include "test_dgeqrf_common.h"

#include <stdio.h>

#define TOL 30.0
/* the block size of the calls (run()); 32, and 128 / 256 in wide_nb() (the device panels'
 * block sizes: the reflectors' one-launch kernel and the checksum blocks' catch-up there) */
static int64_t NB = 32;

static ft_device_t g_dev;
static ft_context_t *g_ctx;
static int g_keep;      /* policy.keep_input of the next runs */
static ft_qrf_t *g_qrf; /* attached FT factor (QR-update recovery), or NULL */

typedef struct {
    int status;
    ft_report_t rep;
    double res[2];
    double *AF, *tau;
} run_t;

/* Factor a copy of A with the given policy and faults; the result stays in r->AF/r->tau. */
static void run(const double *A, int64_t m, int64_t n, int q, const ft_fault_t *faults, int nf,
                run_t *r)
{
    ft_policy_t p;
    ft_context_get_policy(g_ctx, &p);
    p.nb = NB;
    p.crossover = -1;
    p.verify_every = q;
    p.protect = 1;
    p.keep_input = g_keep;
    ft_context_set_qrf(g_ctx, g_qrf);
    int st = ft_context_set_policy(g_ctx, &p);
    TU_CHECK(st == 0, "ft_context_set_policy(verify_every %d): %s", q, ft_strerror(st));
    ft_inject_clear(g_ctx);
    for (int f = 0; f < nf; f++) {
        st = ft_inject_add(g_ctx, &faults[f]);
        TU_CHECK(st == 0, "ft_inject_add(region %d): %s", (int)faults[f].region, ft_strerror(st));
    }
    int64_t k = m < n ? m : n;
    r->AF = tu_malloc(m * n);
    r->tau = tu_malloc(k);
    tu_copy(m, n, A, m, r->AF, m);
    double *work = tu_malloc(n * NB);
    ft_int info = 0;
    tu_poison_report(&r->rep);
    r->status = ft_dgeqrf_ex(g_ctx, (ft_int)m, (ft_int)n, r->AF, (ft_int)m, r->tau, work,
                             (ft_int)(n * NB), &info, &r->rep);
    TU_CHECK(info == r->status && r->rep.status == r->status, "info %d report %d != status %d",
             (int)info, r->rep.status, r->status);
    if (g_qrf) qr_ratios_ft(m, n, A, m, r->AF, m, r->tau, g_qrf, r->res);
    else qr_ratios(m, n, A, m, r->AF, m, r->tau, r->res);
    ft_context_set_qrf(g_ctx, NULL);
    free(work);
}

static void done(run_t *r)
{
    free(r->AF);
    free(r->tau);
}

static const ft_event_t *find(const ft_report_t *rep, ft_event_kind_t kind)
{
    for (int e = 0; e < rep->nevents; e++)
        if (rep->events[e].kind == kind) return &rep->events[e];
    return NULL;
}

static ft_fault_t fault(ft_region_t reg, int64_t step, int64_t row, int64_t col, int bit,
                        double value)
{
    ft_fault_t f = {.region = reg, .row = row, .col = col, .bit = bit, .value = value,
                    .call = -1, .step = step};
    return f;
}

static const char *desc(const ft_fault_t *f, char *buf)
{
    static const char *rn[] = {"C",        "A", "B",   "checksum",   "R",
                               "trailing", "Q", "tau", "reflectors", "panel"};
    if (f->bit >= 0)
        sprintf(buf, "%s step %lld (%lld,%lld) bit %d", rn[f->region], (long long)f->step,
                (long long)f->row, (long long)f->col, f->bit);
    else
        sprintf(buf, "%s step %lld (%lld,%lld) value %g", rn[f->region], (long long)f->step,
                (long long)f->row, (long long)f->col, f->value);
    return buf;
}

/* A fault that must be corrected in place (R always; trailing with verify_every = 1). */
static void expect_corrected(const double *A, int64_t m, int64_t n, int q, ft_fault_t f)
{
    run_t r;
    char d[160];
    long f0 = tu_failed;
    run(A, m, n, q, &f, 1, &r);
    const ft_event_t *inj = find(&r.rep, FT_EVENT_INJECTED), *cor = find(&r.rep, FT_EVENT_CORRECTED);
    desc(&f, d);
    TU_CHECK(r.status == 0 && r.rep.injected == 1 && r.rep.detected == 1 && r.rep.corrected == 1,
             "%lldx%lld q=%d %s: status %d injected %lld detected %lld corrected %lld",
             (long long)m, (long long)n, q, d, r.status, (long long)r.rep.injected,
             (long long)r.rep.detected, (long long)r.rep.corrected);
    TU_CHECK(inj && cor && inj->row == cor->row && inj->col == cor->col,
             "%s: corrected element differs from the injected one", d);
    TU_CHECK(r.res[0] < TOL && r.res[1] < TOL, "%s q=%d: ratios %.3g %.3g", d, q, r.res[0],
             r.res[1]);
    if (tu_failed > f0) tu_print_report(d, &r.rep);
    done(&r);
}

/* Faults consumed by later panels (end-only check, or every q panels), each in its own column
 * (and its own checksum block): without the original A (keep_input = -1) located in their
 * columns and reported FT_ERR_NOT_RECOVERED; by default recovered by re-factorization, the
 * output LAPACK's layout (dqrt01 ratios through LAPACK dorgqr); with an FT factor attached,
 * recovered by QR update (ratios through ft_dormqr with the factor's rotations). */
static void expect_located_n(const double *A, int64_t m, int64_t n, int q, const ft_fault_t *f,
                             int nf)
{
    run_t r;
    char d[400] = "";
    for (int t = 0; t < nf; t++) {
        char b[160];
        desc(&f[t], b);
        snprintf(d + strlen(d), sizeof d - strlen(d), "%s%s", t ? " + " : "", b);
    }
    for (int mode = 0; mode < 3; mode++) {
        long f0 = tu_failed;
        g_keep = mode == 2 ? -1 : 0;
        if (mode == 1 && ft_qrf_create(&g_qrf)) TU_CHECK(0, "ft_qrf_create");
        run(A, m, n, q, f, nf, &r);
        const char *mn = mode == 0 ? "re-factor" : mode == 1 ? "qr-update" : "no copy";
        int64_t ok = 0;
        for (int t = 0; t < r.rep.nevents; t++) {
            const ft_event_t *e = &r.rep.events[t];
            if (e->kind != (mode == 2 ? FT_EVENT_LOCATED : FT_EVENT_RECOVERED)) continue;
            for (int u = 0; u < r.rep.nevents; u++)
                if (r.rep.events[u].kind == FT_EVENT_INJECTED && r.rep.events[u].col == e->col)
                    ok++;
        }
        if (mode == 2) {
            TU_CHECK(r.status == FT_ERR_NOT_RECOVERED && r.rep.located >= 1 && ok >= 1,
                     "%lldx%lld q=%d %s [%s]: status %d located %lld (at the injected column: "
                     "%lld)", (long long)m, (long long)n, q, d, mn, r.status,
                     (long long)r.rep.located, (long long)ok);
        } else {
            TU_CHECK(r.status == 0 && r.rep.recovered == nf && ok == nf &&
                         r.rep.recovery == (mode == 0 ? 2 : 1),
                     "%lldx%lld q=%d %s [%s]: status %d recovered %lld (at injected columns "
                     "%lld) of %d, recovery %d", (long long)m, (long long)n, q, d, mn, r.status,
                     (long long)r.rep.recovered, (long long)ok, nf, r.rep.recovery);
            TU_CHECK(r.res[0] < TOL && r.res[1] < TOL, "%lldx%lld q=%d %s [%s]: ratios %.3g %.3g",
                     (long long)m, (long long)n, q, d, mn, r.res[0], r.res[1]);
            if (mode == 0)
                TU_CHECK(r.rep.refactor_col >= 0 && r.rep.refactor_flops > 0,
                         "%s: re-factor cost not reported", d);
            if (mode == 1) { /* columns right of min(m, n) are never consumed: replaced */
                int consumed = 0;
                for (int t = 0; t < r.rep.nevents; t++)
                    if (r.rep.events[t].kind == FT_EVENT_INJECTED &&
                        r.rep.events[t].col < (m < n ? m : n))
                        consumed++;
                TU_CHECK(ft_qrf_recoveries(g_qrf) == consumed, "%s: %d rotation records for %d",
                         d, ft_qrf_recoveries(g_qrf), consumed);
            }
        }
        if (tu_failed > f0) {
            printf("    [%s]\n", mn);
            tu_print_report(d, &r.rep);
        }
        done(&r);
        ft_qrf_destroy(g_qrf);
        g_qrf = NULL;
    }
    g_keep = 0;
}

static void expect_located(const double *A, int64_t m, int64_t n, ft_fault_t f)
{
    expect_located_n(A, m, n, 0, &f, 1);
}

static void expect_checksum(const double *A, int64_t m, int64_t n, int q, ft_fault_t f,
                            const run_t *clean)
{
    run_t r;
    char d[160];
    long f0 = tu_failed;
    run(A, m, n, q, &f, 1, &r);
    desc(&f, d);
    TU_CHECK(r.status == 0 && r.rep.injected == 1 && r.rep.checksum_errors == 1 &&
                 r.rep.detected == 0 && r.rep.corrected == 0,
             "%lldx%lld q=%d %s: status %d checksum_errors %lld detected %lld", (long long)m,
             (long long)n, q, d, r.status, (long long)r.rep.checksum_errors,
             (long long)r.rep.detected);
    int64_t k = m < n ? m : n;
    TU_CHECK(memcmp(r.AF, clean->AF, (size_t)(m * n) * sizeof(double)) == 0 &&
                 memcmp(r.tau, clean->tau, (size_t)k * sizeof(double)) == 0,
             "%s: data changed by a checksum error", d);
    if (tu_failed > f0) tu_print_report(d, &r.rep);
    done(&r);
}

/*
 * Faults in the finished Householder vectors (FT_REGION_Q) or in tau (FT_REGION_TAU), issue 9:
 * up to two changed elements per vector and any tau are restored bit for bit from the
 * checkpoint (status 0, every injected element corrected at its place, the output identical to
 * the fault-free run); three changed elements of one vector are reported (status
 * FT_ERR_UNCORRECTABLE, detected >= 1), never left unnoticed.
 */
static void fault_desc(const ft_fault_t *f, int nf, char *d, size_t nd)
{
    d[0] = 0;
    for (int t = 0; t < nf; t++) {
        char b[160];
        desc(&f[t], b);
        snprintf(d + strlen(d), nd - strlen(d), "%s%s", t ? " + " : "", b);
    }
}

static void expect_q_corrected(const double *A, int64_t m, int64_t n, int q, const ft_fault_t *f,
                               int nf, const run_t *clean)
{
    run_t r;
    char d[500];
    long f0 = tu_failed;
    fault_desc(f, nf, d, sizeof d);
    run(A, m, n, q, f, nf, &r);
    TU_CHECK(r.status == 0 && r.rep.injected == nf && r.rep.corrected == nf &&
                 r.rep.detected == nf && r.rep.uncorrectable == 0,
             "%lldx%lld q=%d %s: status %d injected %lld detected %lld corrected %lld",
             (long long)m, (long long)n, q, d, r.status, (long long)r.rep.injected,
             (long long)r.rep.detected, (long long)r.rep.corrected);
    int matched = 0;
    for (int t = 0; t < r.rep.nevents; t++) {
        const ft_event_t *e = &r.rep.events[t];
        if (e->kind != FT_EVENT_INJECTED) continue;
        for (int u = 0; u < r.rep.nevents; u++) {
            const ft_event_t *c = &r.rep.events[u];
            if (c->kind == FT_EVENT_CORRECTED && c->region == FT_REGION_Q && c->col == e->col &&
                (e->region == FT_REGION_TAU ? c->row == -1 : c->row == e->row)) {
                matched++;
                break;
            }
        }
    }
    TU_CHECK(matched == nf, "%s: %d of %d injected elements corrected at their place", d,
             matched, nf);
    const int64_t k = m < n ? m : n;
    TU_CHECK(memcmp(r.AF, clean->AF, (size_t)(m * n) * sizeof(double)) == 0 &&
                 memcmp(r.tau, clean->tau, (size_t)k * sizeof(double)) == 0,
             "%s: the restored factorization differs from the fault-free one", d);
    TU_CHECK(r.res[0] < TOL && r.res[1] < TOL, "%s q=%d: ratios %.3g %.3g", d, q, r.res[0],
             r.res[1]);
    if (tu_failed > f0) tu_print_report(d, &r.rep);
    done(&r);
}

static void expect_q_reported(const double *A, int64_t m, int64_t n, int q, const ft_fault_t *f,
                              int nf)
{
    run_t r;
    char d[500];
    long f0 = tu_failed;
    fault_desc(f, nf, d, sizeof d);
    run(A, m, n, q, f, nf, &r);
    TU_CHECK(r.rep.injected == nf && r.status == FT_ERR_UNCORRECTABLE && r.rep.detected >= 1 &&
                 r.rep.uncorrectable >= 1,
             "%lldx%lld q=%d %s: injected %lld status %d (%s) detected %lld uncorrectable %lld",
             (long long)m, (long long)n, q, d, (long long)r.rep.injected, r.status,
             ft_strerror(r.status), (long long)r.rep.detected, (long long)r.rep.uncorrectable);
    if (tu_failed > f0) tu_print_report(d, &r.rep);
    done(&r);
}

/* The FT_REGION_Q / FT_REGION_TAU cases (argument q): early, middle and late panel steps. */
static void shape_q(tu_rng_t *rng, int64_t m, int64_t n)
{
    int64_t k = m < n ? m : n, np = (k + NB - 1) / NB;
    double *A = tu_malloc(m * n);
    tu_fill(rng, m, n, A, m);
    run_t clean;
    run(A, m, n, 0, NULL, 0, &clean);
    TU_CHECK(clean.status == 0 && clean.rep.detected == 0, "clean run %lldx%lld",
             (long long)m, (long long)n);
    const int64_t steps[3] = {0, np / 2, np - 1};
    for (int s = 0; s < 3; s++) {
        int64_t p = steps[s], i = p * NB;
        /* Q of step p: columns i .. i+ib-1, rows below the column (m - 1 > i in every shape) */
        for (int q = 0; q <= 1; q++) {
            ft_fault_t f1[1] = {fault(FT_REGION_Q, p, -1, -1, -1, 1.0)};
            expect_q_corrected(A, m, n, q, f1, 1, &clean);
            f1[0] = fault(FT_REGION_Q, p, m - 1, i, 55, 0);
            expect_q_corrected(A, m, n, q, f1, 1, &clean);
            f1[0] = fault(FT_REGION_Q, p, i + 1, i, 62, 0);
            expect_q_corrected(A, m, n, q, f1, 1, &clean);
            f1[0] = fault(FT_REGION_Q, p, i + 1, i, 0, 0); /* lowest mantissa bit */
            expect_q_corrected(A, m, n, q, f1, 1, &clean);
            f1[0] = fault(FT_REGION_TAU, p, -1, i, 52, 0);
            expect_q_corrected(A, m, n, q, f1, 1, &clean);
            /* two in one column, and two columns with two each */
            ft_fault_t f2[4] = {fault(FT_REGION_Q, p, m - 1, i, 51, 0),
                                fault(FT_REGION_Q, p, i + 2, i, -1, -0.75),
                                fault(FT_REGION_Q, p, m - 2, i + 1, 63, 0),
                                fault(FT_REGION_Q, p, i + 3, i + 1, 3, 0)};
            expect_q_corrected(A, m, n, q, f2, 2, &clean);
            expect_q_corrected(A, m, n, q, f2, 4, &clean);
            /* a vector and tau of the same column */
            ft_fault_t f3[2] = {fault(FT_REGION_Q, p, m - 3, i, 40, 0),
                                fault(FT_REGION_TAU, p, -1, i, 10, 0)};
            expect_q_corrected(A, m, n, q, f3, 2, &clean);
            /* three in one column: reported */
            ft_fault_t f4[3] = {fault(FT_REGION_Q, p, m - 1, i, 51, 0),
                                fault(FT_REGION_Q, p, i + 2, i, 30, 0),
                                fault(FT_REGION_Q, p, (m + i) / 2, i, -1, 2.0)};
            expect_q_reported(A, m, n, q, f4, 3);
        }
    }
    done(&clean);
    free(A);
}

/* The panels are factored in work memory: FTLA_PANEL, else (AUTO) on CUDA only. */
static int gpanel(void)
{
    const char *e = getenv("FTLA_PANEL");
    if (ft_context_device(g_ctx) == FT_DEVICE_CUDA) return !(e && strcmp(e, "cpu") == 0);
    return e && strcmp(e, "gpu") == 0;
}

/* A panel or reflector fault: re-factored from its step (or, for a change below the rounding
 * threshold of the panel check, `small`, left with ratios below 30; or, a vector of the
 * finished half of a panel in work memory, corrected by the checkpoint of Q: the header). */
static void expect_pv(const double *A, int64_t m, int64_t n, int q, ft_fault_t f, int small)
{
    run_t r;
    char d[200];
    long f0 = tu_failed;
    desc(&f, d);
    run(A, m, n, q, &f, 1, &r);
    const ft_event_t *in = find(&r.rep, FT_EVENT_INJECTED);
    const int64_t k = m < n ? m : n, i0 = f.step * NB, h = (k - i0 < NB ? k - i0 : NB) / 2;
    if (f.region == FT_REGION_PANEL && gpanel() && in && in->row > in->col && in->col < i0 + h) {
        /* corrected by the checkpoint of Q (recursive panel), or re-factored (a panel the
         * backend factors in one piece: shorter than its qr_leaf_min_rows), or there a change
         * below the panel check's rounding threshold (`small`, the ratios below 30) */
        int fixed = small && r.rep.detected == 0;
        for (int e = 0; e < r.rep.nevents; e++) {
            const ft_event_t *c = &r.rep.events[e];
            fixed |= c->kind == FT_EVENT_CORRECTED && c->region == FT_REGION_Q &&
                     c->row == in->row && c->col == in->col && c->after == in->before;
            fixed |= c->kind == FT_EVENT_RECOMPUTED && c->region == FT_REGION_PANEL &&
                     c->step == f.step;
        }
        TU_CHECK(r.status == 0 && r.rep.injected == 1 && r.rep.uncorrectable == 0 && fixed &&
                     r.res[0] < TOL && r.res[1] < TOL,
                 "%lldx%lld q=%d %s (a finished vector): status %d uncorrectable %lld, corrected "
                 "by the checkpoint of Q or re-factored %d, ratios %.3g %.3g",
                 (long long)m, (long long)n, q, d, r.status, (long long)r.rep.uncorrectable,
                 fixed, r.res[0], r.res[1]);
        if (tu_failed > f0) tu_print_report(d, &r.rep);
        done(&r);
        return;
    }
    /* a changed V or T may be seen first by a panel check: on the host backend (where T is
     * the host's) its diagonal no longer equals tau, and the next panel, computed from the
     * columns that the wrong update changed, fails its own check (before the digests of the
     * reflectors after the update come back) */
    const ft_event_t *e = find(&r.rep, FT_EVENT_RECOMPUTED);
    const int found = e && (e->region == f.region
                          ? e->step == f.step
                          : f.region == FT_REGION_REFLECTORS && e->region == FT_REGION_PANEL &&
                                (e->step == f.step || e->step == f.step + 1));
    TU_CHECK(r.status == 0 && r.rep.injected == 1 && r.rep.uncorrectable == 0,
             "%lldx%lld q=%d %s: status %d injected %lld uncorrectable %lld", (long long)m,
             (long long)n, q, d, r.status, (long long)r.rep.injected,
             (long long)r.rep.uncorrectable);
    TU_CHECK(found || (small && r.rep.detected == 0),
             "%lldx%lld q=%d %s: no re-factorization of step %lld (detected %lld)", (long long)m,
             (long long)n, q, d, (long long)f.step, (long long)r.rep.detected);
    TU_CHECK(!found || (r.rep.detected >= 1 && r.rep.corrected >= 1 && r.rep.refactor_col >= 0 &&
                        r.rep.refactor_col <= f.step * NB),
             "%s: detected %lld corrected %lld refactor_col %lld", d, (long long)r.rep.detected,
             (long long)r.rep.corrected, (long long)r.rep.refactor_col);
    TU_CHECK(r.res[0] < TOL && r.res[1] < TOL, "%s q=%d: ratios %.3g %.3g", d, q, r.res[0],
             r.res[1]);
    if (tu_failed > f0) tu_print_report(d, &r.rep);
    done(&r);
}

static void expect_pv_reported(const double *A, int64_t m, int64_t n, ft_fault_t f)
{
    run_t r;
    char d[200];
    long f0 = tu_failed;
    desc(&f, d);
    g_keep = -1;
    run(A, m, n, 0, &f, 1, &r);
    g_keep = 0;
    TU_CHECK(r.status == FT_ERR_NOT_RECOVERED && r.rep.detected >= 1 && r.rep.injected == 1,
             "%s without the original A: status %d (%s) detected %lld", d, r.status,
             ft_strerror(r.status), (long long)r.rep.detected);
    if (tu_failed > f0) tu_print_report(d, &r.rep);
    done(&r);
}

/* T of panel 0 changed while it is kept (after its update and its checks: FT_REGION_REFLECTORS,
 * col >= 2 ib), then a trailing error that a recovery repairs by applying the reflectors again:
 * the recovery's check of the T factors forms it again from the verified vectors (both paths).
 * Alone, the change touches nothing the call returns. */
static void expect_kept_t(const double *A, int64_t m, int64_t n)
{
    const int64_t k = m < n ? m : n, np = (k + NB - 1) / NB;
    if (np < 5) return;
    const int64_t p2 = np - 1, i2 = p2 * NB;
    ft_fault_t f[2] = {fault(FT_REGION_REFLECTORS, 0, 0, 2 * NB + NB - 1, -1, 1.0),
                       fault(FT_REGION_TRAILING, p2, i2 + (m - i2) / 2, i2 + (n - i2) / 2, 55, 0)};
    for (int mode = 0; mode < 2; mode++) {
        run_t r;
        long f0 = tu_failed;
        if (mode == 1 && ft_qrf_create(&g_qrf)) TU_CHECK(0, "ft_qrf_create");
        run(A, m, n, 0, f, 2, &r);
        int reformed = 0;
        for (int t = 0; t < r.rep.nevents; t++) {
            const ft_event_t *e = &r.rep.events[t];
            if (e->kind == FT_EVENT_RECOMPUTED && e->region == FT_REGION_REFLECTORS && e->col == 0)
                reformed = 1;
        }
        TU_CHECK(r.status == 0 && r.rep.injected == 2 && r.rep.recovered == 1 && reformed &&
                     r.res[0] < TOL && r.res[1] < TOL,
                 "%lldx%lld kept T of panel 0 + trailing at step %lld [%s]: status %d injected "
                 "%lld recovered %lld T formed again %d ratios %.3g %.3g",
                 (long long)m, (long long)n, (long long)p2, mode ? "qr-update" : "re-factor",
                 r.status, (long long)r.rep.injected, (long long)r.rep.recovered, reformed,
                 r.res[0], r.res[1]);
        if (tu_failed > f0) tu_print_report("kept T", &r.rep);
        done(&r);
        if (mode == 1) {
            ft_qrf_destroy(g_qrf);
            g_qrf = NULL;
        }
    }
    run_t r;
    run(A, m, n, 0, f, 1, &r);
    TU_CHECK(r.status == 0 && r.rep.injected == 1 && r.res[0] < TOL && r.res[1] < TOL,
             "%lldx%lld kept T of panel 0 alone: status %d ratios %.3g %.3g", (long long)m,
             (long long)n, r.status, r.res[0], r.res[1]);
    done(&r);
}

/* The FT_REGION_REFLECTORS / FT_REGION_PANEL cases (argument pv). */
static void shape_pv(tu_rng_t *rng, int64_t m, int64_t n)
{
    int64_t k = m < n ? m : n, np = (k + NB - 1) / NB;
    double *A = tu_malloc(m * n);
    tu_fill(rng, m, n, A, m);
    const int64_t steps[3] = {0, np / 2, np - 1};
    for (int s = 0; s < 3; s++) {
        const int64_t p = steps[s], i = p * NB, ib = (k - i) < NB ? (k - i) : NB, mi = m - i;
        const int64_t h = ib / 2;
        for (int q = 0; q <= 1; q++) {
            /* V: a vector element, the explicit zero above the diagonal and the unit diagonal
             * (row, col relative to the panel); T: an element and its diagonal */
            expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, mi - 1, 0, 55, 0), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, ib / 2 + 1, ib / 2, 0, 0), 0);
            if (ib > 1)
                expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, 0, ib - 1, -1, 1.0), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, ib - 1, ib - 1, 62, 0), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, 0, 2 * ib - 1, 51, 0), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, 0, ib, 63, 0), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_REFLECTORS, p, -1, -1, -1, -0.5), 0);
            /* the panel: R and a vector of the finished half, the half not yet factored (its
             * R12 rows and below), a random element; a low mantissa bit */
            expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, i, i, 62, 0), 0);
            if (h > 0) {
                expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, m - 1, i, 55, 0), 0);
                expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, i, i + h, 52, 0), 0);
            }
            expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, m - 2, i + ib - 1, -1, 0.25), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, -1, -1, -1, 4.0), 0);
            expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, -1, -1, 0, 0), 1);
            expect_pv(A, m, n, q, fault(FT_REGION_PANEL, p, i + 1, i + ib - 1, -1, NAN), 0);
        }
        expect_pv_reported(A, m, n, fault(FT_REGION_REFLECTORS, p, mi - 1, 0, 55, 0));
        expect_pv_reported(A, m, n, fault(FT_REGION_PANEL, p, m - 1, i + ib - 1, 57, 0));
    }
    expect_kept_t(A, m, n);
    /* out of the region: refused */
    {
        ft_fault_t f = fault(FT_REGION_REFLECTORS, 1, 1, NB + 0, -1, 1.0); /* T below the diag */
        run_t r;
        run(A, m, n, 0, &f, 1, &r);
        TU_CHECK(r.status == FT_ERR_INVALID_VALUE, "reflector fault outside: status %d",
                 r.status);
        done(&r);
        f = fault(FT_REGION_PANEL, 1, 0, NB, -1, 1.0); /* above the panel */
        run(A, m, n, 0, &f, 1, &r);
        TU_CHECK(r.status == FT_ERR_INVALID_VALUE, "panel fault outside: status %d", r.status);
        done(&r);
    }
    free(A);
}

static void shape(tu_rng_t *rng, int64_t m, int64_t n)
{
    int64_t k = m < n ? m : n, np = (k + NB - 1) / NB;
    double *A = tu_malloc(m * n);
    tu_fill(rng, m, n, A, m);
    const int64_t steps[3] = {0, np / 2, np - 1};
    /* fault-free reference */
    run_t clean;
    run(A, m, n, 0, NULL, 0, &clean);
    TU_CHECK(clean.status == 0 && clean.rep.detected == 0 && clean.res[0] < TOL &&
                 clean.res[1] < TOL,
             "clean run %lldx%lld", (long long)m, (long long)n);
    for (int s = 0; s < 3; s++) {
        int64_t p = steps[s], i = p * NB, ib = (k - i) < NB ? (k - i) : NB;
        /* R: rows < i + ib, cols >= max(row, i) */
        int64_t rr = i + ib - 1, rc = n - 1 - s < rr ? rr : n - 1 - s;
        for (int q = 0; q <= 1; q++) {
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, rr, rc, 62, 0));
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, 0, i + ib / 2, 55, 0));
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, i / 2, i, 51, 0));
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, -1, -1, -1, 3.5));
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, -1, -1, -1, INFINITY));
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, -1, -1, -1, NAN));
            expect_corrected(A, m, n, q, fault(FT_REGION_R, p, -1, -1, 60, 0));
        }
        /* trailing: rows >= i, cols >= i */
        int64_t tr = i + (m - i) / 3, tc = i + (n - i) / 2;
        expect_located(A, m, n, fault(FT_REGION_TRAILING, p, tr, tc, 55, 0));
        expect_located(A, m, n, fault(FT_REGION_TRAILING, p, m - 1, i, 58, 0));
        expect_located(A, m, n, fault(FT_REGION_TRAILING, p, i, n - 1, -1, 0.25));
        expect_located(A, m, n, fault(FT_REGION_TRAILING, p, -1, -1, -1, -2.0));
        /* far above ||A||: the QR update must not keep the error's rounding in R */
        expect_located(A, m, n, fault(FT_REGION_TRAILING, p, tr, tc, -1, 3e12));
        expect_corrected(A, m, n, 1, fault(FT_REGION_TRAILING, p, tr, tc, 55, 0));
        expect_corrected(A, m, n, 1, fault(FT_REGION_TRAILING, p, m - 1, i, 62, 0));
        expect_corrected(A, m, n, 1, fault(FT_REGION_TRAILING, p, i, n - 1, -1, 0.25));
        expect_corrected(A, m, n, 1, fault(FT_REGION_TRAILING, p, -1, -1, -1, NAN));
        expect_corrected(A, m, n, 1, fault(FT_REGION_TRAILING, p, -1, -1, -1, INFINITY));
        /* checksum columns: one pair per block of abft_qr_check_width(n) columns; the flips go
         * into the last block's pair, whose columns are still in the trailing matrix (a block
         * whose columns are all finished has checksum entries ~0 below its rows, where a bit
         * flip changes nothing; the entry at row i may be rounding-sized or exactly 0 too, as
         * the panel's rounding falls: bit 62, which makes any |x| < 2 at least 2) */
        const int64_t nbc = abft_qr_check_width(n), lastc = 2 * ((n + nbc - 1) / nbc) - 2;
        for (int q = 0; q <= 1; q++) {
            expect_checksum(A, m, n, q, fault(FT_REGION_CHECKSUM, p, i, lastc, 62, 0), &clean);
            expect_checksum(A, m, n, q, fault(FT_REGION_CHECKSUM, p, m - 1, lastc + 1, 57, 0),
                            &clean);
            expect_checksum(A, m, n, q, fault(FT_REGION_CHECKSUM, p, -1, 0, -1, 1.0), &clean);
            expect_checksum(A, m, n, q, fault(FT_REGION_CHECKSUM, p, -1, 1, -1, -1.0), &clean);
        }
        /* FT_REGION_Q: its own invocation (argument q), expected to fail until issue 9 */
    }
    /* several per call, in columns of different checksum blocks: at the same step, at two
     * steps, and found at two different online checks (verify_every 2) */
    {
        const int64_t nbc = abft_qr_check_width(n), c2 = nbc + nbc / 2 < n ? nbc + nbc / 2 : -1;
        if (c2 >= 0 && np >= 4) {
            ft_fault_t two[2] = {fault(FT_REGION_TRAILING, 0, m / 2, 3, -1, 1.5),
                                 fault(FT_REGION_TRAILING, 0, m - 2, c2, 56, 0)};
            expect_located_n(A, m, n, 0, two, 2);
            two[1].step = np / 2;
            two[1].row = m - 1;
            two[1].col = n - 1 - (n - 1) % nbc; /* the last block's first column */
            if (two[1].col >= np / 2 * NB && two[1].col >= nbc) expect_located_n(A, m, n, 0, two, 2);
            /* both consumed (by panels 1 and 3) before the check at step 4 */
            ft_fault_t on[2] = {fault(FT_REGION_TRAILING, 1, m / 3, NB + 1, -1, -0.75),
                                fault(FT_REGION_TRAILING, 3, m - 3, 3 * NB + 5, -1, 2.0)};
            expect_located_n(A, m, n, 4, on, 2);
        }
    }
    /* random steps and positions */
    for (int t = 0; t < 6; t++) {
        ft_inject_seed(g_ctx, 1000 + (uint64_t)t);
        expect_corrected(A, m, n, t & 1, fault(FT_REGION_R, -1, -1, -1, -1, 10.0));
        expect_located(A, m, n, fault(FT_REGION_TRAILING, -1, -1, -1, -1, 10.0));
        expect_corrected(A, m, n, 1, fault(FT_REGION_TRAILING, -1, -1, -1, -1, 10.0));
    }
    expect_kept_t(A, m, n);
    /* out of the region: refused */
    {
        ft_fault_t f = fault(FT_REGION_TRAILING, 1, 0, 0, 55, 0);
        run_t r;
        run(A, m, n, 0, &f, 1, &r);
        TU_CHECK(r.status == FT_ERR_INVALID_VALUE, "fault outside the region: status %d",
                 r.status);
        done(&r);
    }
    done(&clean);
    free(A);
}

/* Two errors consumed by later panels at block sizes 128 and 256, found at the final check (and
 * at online checks every 2 panels): each checksum block is left behind by the panels right of
 * it and caught up only when it fails; recovered by re-factorization and by QR update (z =
 * Q~^T a_j through the one-launch kernel on the device at these block sizes), located without
 * the copy of A. */
static void wide_nb(tu_rng_t *rng)
{
    const int64_t m = 1100, n = 1060;
    double *A = malloc((size_t)(m * n) * sizeof(double));
    TU_CHECK(A != NULL, "malloc");
    if (!A) return;
    tu_fill(rng, m, n, A, m);
    const int64_t nbs[2] = {128, 256};
    for (int t = 0; t < 2; t++) {
        NB = nbs[t];
        ft_fault_t two[2] = {fault(FT_REGION_TRAILING, 0, m / 2, NB + 3, -1, 1.5),
                             fault(FT_REGION_TRAILING, 2, m - 2, 3 * NB + 5, 56, 0)};
        expect_located_n(A, m, n, 0, two, 2);
        /* every 2 panels: injected after the checks at steps 0 and 2 (a fault at step p comes
         * before the check at p), consumed by panels 1 and 3, found at the checks at 2 and 4 */
        two[0].step = 1;
        two[1].step = 3;
        expect_located_n(A, m, n, 2, two, 2);
    }
    NB = 32;
    free(A);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    const int mode_q = argc > 2 && strcmp(argv[2], "q") == 0;
    const int mode_pv = argc > 2 && strcmp(argv[2], "pv") == 0;
    if (argc > 2 && !mode_q && !mode_pv) {
        printf("usage: %s [cpu|cuda|auto] [q|pv]\n", argv[0]);
        return 2;
    }
    int st = ft_context_create(&g_ctx, g_dev);
    if (st) {
        printf("ft_context_create: %s\n", ft_strerror(st));
        return 1;
    }
    tu_rng_t rng;
    tu_seed(&rng, 4242);
    void (*run_shape)(tu_rng_t *, int64_t, int64_t) = mode_q ? shape_q : mode_pv ? shape_pv : shape;
    run_shape(&rng, 256, 256);
    run_shape(&rng, 300, 160);
    run_shape(&rng, 160, 300);
    if (!mode_q && !mode_pv) wide_nb(&rng);
    ft_context_destroy(g_ctx);
    return tu_finish();
}
