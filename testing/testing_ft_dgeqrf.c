/*
 * testing_ft_dgeqrf.c — MAGMA-style tester of ft_dgeqrf: speed against the unprotected peer
 * (LAPACKE_dgeqrf on the CPU, cusolverDnDgeqrf on CUDA) measured in the same run, protection
 * on and off, the LAPACK dqrt01 accuracy ratios, and fault injection.
 *
 *   testing_ft_dgeqrf [-M m] [-N n] [--nb nb] [--check] [--niter n] [--device cpu|cuda|auto]
 *                     [--inject SPEC]... [--verify-every q] [--protect on|off] [--protect-q on|off]
 *                     [--seed s]
 *                     [--tol t] [--crossover c] [--gpu-pointers] [--verbose v] [--profile]
 *                     [--expect any|corrected|located] [--trace] [--trace-file F] [--model]
 *
 * -M/-N take a value or a range start:end:step; -N alone means square. SPEC is
 * region[:key=value]... with region R|trailing|Q|checksum and keys step, row, col, bit, value
 * (-1 or absent = random; neither bit nor value: bit 55), e.g. `--inject trailing:step=2:bit=55`
 * or `--inject R:step=1:row=3:col=40:bit=62`.
 * Timing: the median of --niter fault-free runs per routine (the first of several is a
 * warm-up). The checked run (--check or --inject) is one more run of ftla with the faults.
 * ok: the call ran on the device asked for (cpu or cuda), every fault-free timed run returned
 * 0, and status 0 with (--check) both ratios below --tol; or, with faults injected, status
 * FT_ERR_NOT_RECOVERED with the error located (the documented outcome of an error consumed by
 * later panels). --expect pins the outcome of the injected faults instead of accepting either:
 * `corrected`: status 0, every --inject fault applied, and each one corrected or recognised as
 * a checksum error (corrected + checksum errors = injected, nothing uncorrectable); `located`:
 * status FT_ERR_NOT_RECOVERED, every fault applied, the error located. `any` (default): either
 * outcome, for exploring. Output: a `%` header, one row per size (a failed row is followed by
 * a `%   ...` line with the first reason), `N passed, N failed`; exit 1 on any failure, 77 when
 * CUDA is asked for and no device can be used.
 * --profile: one more fault-free protected run per size with policy.verbose = 1; the library's
 * "ftla: dgeqrf phases / host / checks" lines of that run (stderr, captured) are printed after the size's row
 * with a `%` prefix (docs/qr.md "Where the time goes"); not timed, not part of ok/failed.
 * --trace: one more fault-free protected run per size with the library's timeline
 * (ft_context_set_trace, docs/qr.md "Timeline"): per step the milliseconds of each phase on each
 * lane, then totals, each lane's busy time and the device's (the union of its queues' spans) and
 * idle time, `%`-prefixed. It counts as a row of its own: passed when the call returned 0 and
 * the timeline is well formed (spans recorded, none dropped, 0 <= t0 <= t1 <= the call's
 * length, panel and update spans present). --trace-file F appends every span as CSV
 * (m,n,lane,phase,step,t0_ms,t1_ms) for bench/plot_trace.py.
 * --model: the performance model's prediction (ft_dgeqrf_model, same policy and pointers) of
 * the protected and unprotected runs beside their measured medians, with the error, and its
 * choices; a `%` line per size (not part of ok/failed: a model's error is a measurement).
 */
#define _POSIX_C_SOURCE 200809L
#include "test_dgeqrf_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusolverDn.h>
#endif

#define MAX_INJECT 64

enum { EXPECT_ANY = 0, EXPECT_CORRECTED = 1, EXPECT_LOCATED = 2 };


typedef struct {
    tu_sizes_t M, N;
    int haveM, haveN;
    int nb, check, niter, verify_every, protect, protect_q, crossover, gpu_pointers, verbose,
        profile;
    int trace, model;
    const char *trace_file;
    int panel; /* policy.panel (ft_panel_t) */
    int expect; /* EXPECT_* */
    ft_device_t device;
    uint64_t seed;
    double tol;
    ft_fault_t faults[MAX_INJECT];
    int nfaults;
} opts_t;

static void usage(const char *prog)
{
    printf("usage: %s [options]\n"
           "  -M m, -N n             sizes: a value or start:end:step (-N alone: square)\n"
           "  --nb nb                block size (policy.nb, 0 = automatic)\n"
           "  --panel auto|cpu|gpu   panel placement (policy.panel, default auto)\n"
           "  --check                dqrt01 ratios of the result (Q from LAPACKE_dorgqr)\n"
           "  --niter n              timed runs per routine, median; n > 1: first is a warm-up\n"
           "  --device cpu|cuda|auto backend (default cpu)\n"
           "  --inject SPEC          region[:step=p][:row=i][:col=j][:bit=b|:value=x], region\n"
           "                         R|trailing|Q|tau|checksum|reflectors|panel\n"
           "                         (repeatable)\n"
           "  --verify-every q       online verification every q panels (0 = at the end)\n"
           "  --protect on|off       the checked run with protection on (default) or off\n"
           "  --protect-q on|off     policy.protect_q (off: issue 9's checks of Q, tau, the\n"
           "                         panels and the reflectors in use left out; default: the\n"
           "                         library's)\n"
           "  --crossover c          policy.crossover (0 = automatic, -1 = never)\n"
           "  --seed s               seed of the data and of random fault positions\n"
           "  --tol t                ratio threshold, times eps (default 30)\n"
           "  --gpu-pointers         data in device memory: ft_dgeqrf_gpu_ex (CUDA builds)\n"
           "  --verbose v            policy.verbose (1: a line per call, 2: per event)\n"
           "  --profile              one more protected run per size at verbose 1: print its\n"
           "                         phases line (panel, waits, updates, checksums, copies)\n"
           "  --trace                one more protected run per size with the library's\n"
           "                         timeline: per-step phases, lanes' busy and idle time\n"
           "  --trace-file F         --trace, and every span appended to F as CSV\n"
           "  --model                the performance model's predictions beside the medians\n"
           "  --expect any|corrected|located\n"
           "                         outcome the injected faults must have (default any:\n"
           "                         corrected, or located with FT_ERR_NOT_RECOVERED)\n",
           prog);
}




static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->niter = 1;
    o->device = FT_DEVICE_CPU;
    o->seed = 1;
    o->tol = 30.0;
    o->protect = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, takes = 1;
        if (!strcmp(a, "-M")) bad = !v || tu_parse_sizes(v, &o->M), o->haveM = 1;
        else if (!strcmp(a, "-N")) bad = !v || tu_parse_sizes(v, &o->N), o->haveN = 1;
        else if (!strcmp(a, "--nb")) bad = !v || tu_parse_int(v, 0, 4096, &o->nb);
        else if (!strcmp(a, "--panel")) {
            bad = !v;
            if (v && !strcmp(v, "auto")) o->panel = FT_PANEL_AUTO;
            else if (v && !strcmp(v, "cpu")) o->panel = FT_PANEL_CPU;
            else if (v && !strcmp(v, "gpu")) o->panel = FT_PANEL_GPU;
            else bad = 1;
        }
        else if (!strcmp(a, "--niter")) bad = !v || tu_parse_int(v, 1, 1000000, &o->niter);
        else if (!strcmp(a, "--device")) bad = !v || tu_parse_device(v, &o->device);
        else if (!strcmp(a, "--verify-every")) bad = !v || tu_parse_int(v, 0, 1 << 30, &o->verify_every);
        else if (!strcmp(a, "--verbose")) bad = !v || tu_parse_int(v, 0, 2, &o->verbose);
        else if (!strcmp(a, "--crossover")) bad = !v || tu_parse_int(v, -1, 1 << 30, &o->crossover);
        else if (!strcmp(a, "--inject")) {
            bad = !v || o->nfaults >= MAX_INJECT || tu_parse_fault(v, &o->faults[o->nfaults]);
            if (!bad) o->nfaults++;
        } else if (!strcmp(a, "--expect")) {
            if (!v) bad = 1;
            else if (!strcasecmp(v, "any")) o->expect = EXPECT_ANY;
            else if (!strcasecmp(v, "corrected")) o->expect = EXPECT_CORRECTED;
            else if (!strcasecmp(v, "located")) o->expect = EXPECT_LOCATED;
            else bad = 1;
        } else if (!strcmp(a, "--protect")) {
            bad = !v || (strcasecmp(v, "on") && strcasecmp(v, "off"));
            if (!bad) o->protect = strcasecmp(v, "on") == 0;
        } else if (!strcmp(a, "--protect-q")) {
            bad = !v || (strcasecmp(v, "on") && strcasecmp(v, "off"));
            if (!bad) o->protect_q = strcasecmp(v, "on") == 0 ? 1 : -1;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            bad = !v || (o->seed = strtoull(v, &end, 10), end == v || *end);
        } else if (!strcmp(a, "--trace-file")) {
            bad = !v;
            o->trace = 1, o->trace_file = v;
        } else if (!strcmp(a, "--tol")) {
            char *end;
            bad = !v || (o->tol = strtod(v, &end), end == v || *end || !(o->tol > 0));
        } else {
            takes = 0;
            if (!strcmp(a, "--check")) o->check = 1;
            else if (!strcmp(a, "--gpu-pointers")) o->gpu_pointers = 1;
            else if (!strcmp(a, "--profile")) o->profile = 1;
            else if (!strcmp(a, "--trace")) o->trace = 1;
            else if (!strcmp(a, "--model")) o->model = 1;
            else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                usage(argv[0]);
                exit(0);
            } else {
                printf("%s: unknown option %s\n", argv[0], a);
                return -1;
            }
        }
        if (bad) {
            printf("%s: bad or missing value for %s\n", argv[0], a);
            return -1;
        }
        i += takes;
    }
    if (!o->haveM && !o->haveN) tu_parse_sizes("256:1024:256", &o->N), o->haveN = 1;
    if (!o->haveM) o->M = o->N;
    if (!o->haveN) o->N = o->M;
    if (o->M.n != o->N.n && o->M.n != 1 && o->N.n != 1) {
        printf("%s: -M and -N lists must have one value or the same length\n", argv[0]);
        return -1;
    }
    if (o->gpu_pointers && o->device == FT_DEVICE_CPU) {
        printf("%s: --gpu-pointers needs --device cuda\n", argv[0]);
        return -1;
    }
#ifndef FTLA_HAVE_CUDA
    if (o->gpu_pointers) tu_skip_no_cuda(); /* device pointers need a CUDA build */
#endif
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the timed runs (the first is a warm-up when there are several). */
static double median_time(double *t, int niter)
{
    if (niter > 1) t++, niter--;
    qsort(t, (size_t)niter, sizeof *t, cmp_double);
    return niter % 2 ? t[niter / 2] : 0.5 * (t[niter / 2 - 1] + t[niter / 2]);
}

static double qr_flops(double m, double n)
{
    double fm, fa;
    if (m > n) {
        fm = n * (n * (0.5 - (1. / 3.) * n + m) + m + 23. / 6.);
        fa = n * (n * (0.5 - (1. / 3.) * n + m) + 5. / 6.);
    } else {
        fm = m * (m * (-0.5 - (1. / 3.) * m + n) + 2. * n + 23. / 6.);
        fa = m * (m * (-0.5 - (1. / 3.) * m + n) + n + 5. / 6.);
    }
    return fm + fa;
}

#ifdef FTLA_HAVE_CUDA
static cusolverDnHandle_t g_solver;
#endif

/* The peer: LAPACKE_dgeqrf (cpu) or cusolverDnDgeqrf (cuda, device memory); median seconds. */
static double time_peer(const opts_t *o, int64_t m, int64_t n, const double *A)
{
    int64_t k = m < n ? m : n;
    double *t = tu_malloc(o->niter), ret = -1;
#ifdef FTLA_HAVE_CUDA
    if (o->device == FT_DEVICE_CUDA) {
        double *dA = NULL, *dTau = NULL, *dWork = NULL;
        int *dInfo = NULL, lwork = 0;
        if (!g_solver && cusolverDnCreate(&g_solver) != CUSOLVER_STATUS_SUCCESS) goto out;
        if (cudaMalloc((void **)&dA, (size_t)(m * n + 1) * sizeof(double)) ||
            cudaMalloc((void **)&dTau, (size_t)(k + 1) * sizeof(double)) ||
            cudaMalloc((void **)&dInfo, sizeof(int)))
            goto cuda_out;
        cusolverDnDgeqrf_bufferSize(g_solver, (int)m, (int)n, dA, (int)(m > 1 ? m : 1), &lwork);
        if (cudaMalloc((void **)&dWork, (size_t)(lwork + 1) * sizeof(double))) goto cuda_out;
        for (int it = 0; it < o->niter; it++) {
            cudaMemcpy(dA, A, (size_t)(m * n) * sizeof(double), cudaMemcpyHostToDevice);
            cudaDeviceSynchronize();
            double t0 = now();
            cusolverDnDgeqrf(g_solver, (int)m, (int)n, dA, (int)(m > 1 ? m : 1), dTau, dWork,
                             lwork, dInfo);
            cudaDeviceSynchronize();
            t[it] = now() - t0;
        }
        ret = median_time(t, o->niter);
    cuda_out:
        cudaFree(dA);
        cudaFree(dTau);
        cudaFree(dWork);
        cudaFree(dInfo);
        goto out;
    }
#endif
    {
        double *B = tu_malloc(m * n), *tau = tu_malloc(k);
        for (int it = 0; it < o->niter; it++) {
            tu_copy(m, n, A, m, B, m);
            double t0 = now();
            LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, (int)n, B, (int)(m > 1 ? m : 1), tau);
            t[it] = now() - t0;
        }
        ret = median_time(t, o->niter);
        free(B);
        free(tau);
    }
#ifdef FTLA_HAVE_CUDA
out:
#endif
    free(t);
    return ret;
}

/* One ftla run on a copy of A into AF/tau; returns the status, *secs the call's time. */
static int run_ftla(const opts_t *o, ft_context_t *ctx, int64_t m, int64_t n, const double *A,
                    double *AF, double *tau, ft_report_t *rep, double *secs)
{
    int64_t lda = m > 1 ? m : 1;
    ft_int info;
    (void)o;
    tu_copy(m, n, A, m, AF, lda);
    int st;
#ifdef FTLA_HAVE_CUDA
    if (o->gpu_pointers) {
        double *dA = NULL;
        if (cudaMalloc((void **)&dA, (size_t)(m * n + 1) * sizeof(double))) return FT_ERR_CUDA;
        cudaMemcpy(dA, AF, (size_t)(m * n) * sizeof(double), cudaMemcpyHostToDevice);
        cudaDeviceSynchronize();
        double t0 = now();
        st = ft_dgeqrf_gpu_ex(ctx, (ft_int)m, (ft_int)n, dA, (ft_int)lda, tau, &info, rep);
        *secs = now() - t0;
        cudaMemcpy(AF, dA, (size_t)(m * n) * sizeof(double), cudaMemcpyDeviceToHost);
        cudaFree(dA);
        return st;
    }
#endif
    int64_t lwork = n * 256 + 1;
    double *work = tu_malloc(lwork);
    double t0 = now();
    st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, work, (ft_int)lwork, &info,
                      rep);
    *secs = now() - t0;
    free(work);
    return st;
}

/* Mark a row failed; the first reason is kept for its `%   ...` line. */
static void row_fail(int *ok, char note[256], const char *fmt, ...)
{
    if (*ok) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(note, 256, fmt, ap);
        va_end(ap);
    }
    *ok = 0;
}

static void set_policy(ft_context_t *ctx, const opts_t *o, int protect)
{
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = o->nb;
    p.panel = o->panel;
    p.verify_every = o->verify_every;
    p.crossover = o->crossover;
    p.protect = protect;
    if (o->protect_q) p.protect_q = o->protect_q;
    p.verbose = o->verbose;
    ft_context_set_policy(ctx, &p);
}

/* Median time of niter fault-free ftla runs with the given protection. */
static double time_ftla(const opts_t *o, ft_context_t *ctx, int64_t m, int64_t n, const double *A,
                        int protect)
{
    int64_t k = m < n ? m : n;
    double *AF = tu_malloc(m * n), *tau = tu_malloc(k), *t = tu_malloc(o->niter), ret;
    set_policy(ctx, o, protect);
    ft_inject_clear(ctx);
    int bad = 0;
    for (int it = 0; it < o->niter; it++) {
        ft_report_t rep;
        int st = run_ftla(o, ctx, m, n, A, AF, tau, &rep, &t[it]);
        if (st) bad = st;
    }
    ret = bad ? -1.0 : median_time(t, o->niter);
    free(AF);
    free(tau);
    free(t);
    return ret;
}

/* --profile: one fault-free protected run at verbose 1 with stderr captured in a temporary
 * file; the library's "dgeqrf phases:", "dgeqrf host:" and "dgeqrf checks" lines are printed on
 * stdout with a `%` prefix, the other
 * captured lines go back to stderr when --verbose >= 1 was asked for. */
static void profile_run(const opts_t *o, ft_context_t *ctx, int64_t m, int64_t n, const double *A)
{
    int64_t k = m < n ? m : n;
    double *AF = tu_malloc(m * n), *tau = tu_malloc(k), secs;
    opts_t po = *o;
    po.verbose = 1;
    set_policy(ctx, &po, 1);
    ft_inject_clear(ctx);
    ft_report_t rep;
    FILE *tmp = tmpfile();
    int saved = -1;
    fflush(stdout);
    fflush(stderr);
    if (tmp && (saved = dup(STDERR_FILENO)) >= 0 && dup2(fileno(tmp), STDERR_FILENO) < 0) {
        close(saved);
        saved = -1;
    }
    int st = run_ftla(&po, ctx, m, n, A, AF, tau, &rep, &secs);
    fflush(stderr);
    int found = 0;
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
        rewind(tmp);
        char line[1024];
        while (fgets(line, sizeof line, tmp)) {
            if (strstr(line, "dgeqrf phases:") || strstr(line, "dgeqrf host:") ||
                strstr(line, "dgeqrf checks")) {
                printf("%% %s", line);
                found = 1;
            } else if (o->verbose >= 1) { /* the lines the caller asked for */
                fputs(line, stderr);
            }
        }
    }
    if (tmp) fclose(tmp);
    if (!found)
        printf("%% %lld x %lld: no phases line (status %d%s)\n", (long long)m, (long long)n, st,
               saved < 0 ? ", stderr not captured" : "; min(m,n) <= crossover: LAPACK path");
    set_policy(ctx, o, o->protect);
    free(AF);
    free(tau);
}

/* --model: the prediction of each measured median, same policy. */
static void model_line(const opts_t *o, ft_context_t *ctx, int64_t m, int64_t n, double ton,
                       double toff)
{
    ft_qr_model_t pr[2];
    int st = 0;
    for (int pt = 0; pt < 2 && !st; pt++) {
        set_policy(ctx, o, pt == 0);
        st = ft_dgeqrf_model(ctx, (ft_int)m, (ft_int)n, o->gpu_pointers, &pr[pt]);
    }
    set_policy(ctx, o, o->protect);
    if (st) {
        printf("%% model %lld x %lld: %s\n", (long long)m, (long long)n, ft_strerror(st));
        return;
    }
    const double t[2] = {ton, toff};
    for (int pt = 0; pt < 2; pt++) {
        const ft_qr_model_t *x = &pr[pt];
        printf("%% model %lld x %lld protect %s: predicted %.3f ms (panel %s nb %d lookahead %d "
               "verify_every %d; best cpu %.3f ms nb %d, best gpu %.3f ms nb %d, no lookahead "
               "%.3f ms)", (long long)m, (long long)n, pt ? "off" : "on", 1e3 * x->seconds,
               x->panel == FT_PANEL_GPU ? "gpu" : "cpu", x->nb, x->lookahead, x->verify_every,
               1e3 * x->seconds_cpu, x->nb_cpu, 1e3 * x->seconds_gpu, x->nb_gpu,
               1e3 * x->seconds_depth0);
        if (t[pt] > 0)
            printf(", measured %.3f ms: error %+.1f %%", 1e3 * t[pt],
                   100.0 * (x->seconds - t[pt]) / t[pt]);
        printf("\n");
    }
    printf("%% model calibration: %s (%s%s%s)\n", pr[0].device,
           pr[0].source == 1 ? "measured now" : pr[0].source == 2 ? "cache file" : "memory",
           pr[0].cache[0] ? ", " : "", pr[0].cache);
}

static int cmp_span(const void *a, const void *b)
{
    const ft_span_t *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* --trace: one fault-free protected run with the timeline; returns 1 when it passed. */
static int trace_run(const opts_t *o, ft_context_t *ctx, int64_t m, int64_t n, const double *A)
{
    const int64_t k = m < n ? m : n, cap = 1 << 20;
    double *AF = tu_malloc(m * n), *tau = tu_malloc(k), secs;
    ft_trace_t tr = {.spans = malloc((size_t)cap * sizeof(ft_span_t)), .capacity = cap};
    set_policy(ctx, o, 1);
    ft_inject_clear(ctx);
    ft_report_t rep;
    int st = tr.spans ? ft_context_set_trace(ctx, &tr) : FT_ERR_ALLOC;
    if (!st) st = run_ftla(o, ctx, m, n, A, AF, tau, &rep, &secs);
    ft_context_set_trace(ctx, NULL);
    set_policy(ctx, o, o->protect);
    char why[160] = "";
    const double tot = tr.total;
    int have_panel = 0, have_update = 0;
    for (int64_t s = 0; s < tr.count && !why[0]; s++) {
        const ft_span_t *x = &tr.spans[s];
        if (!(x->t0 >= -1e-4 && x->t0 <= x->t1 + 1e-9 && x->t1 <= tot + 1e-4) ||
            x->lane < 0 || x->lane >= FT_NLANES || x->phase < 0 || x->phase >= FT_NPHASES)
            snprintf(why, sizeof why, "span %lld (%s/%s step %lld) [%.6f, %.6f] s outside [0, "
                     "%.6f]", (long long)s, ft_lane_name(x->lane), ft_phase_name(x->phase),
                     (long long)x->step, x->t0, x->t1, tot);
        have_panel |= x->phase == FT_PHASE_PANEL;
        have_update |= x->phase == FT_PHASE_UPDATE || x->phase == FT_PHASE_LOOKAHEAD;
    }
    if (st) snprintf(why, sizeof why, "status %d (%s)", st, ft_strerror(st));
    else if (!why[0] && (tr.count == 0 || tr.dropped))
        snprintf(why, sizeof why, "%lld spans, %lld dropped", (long long)tr.count,
                 (long long)tr.dropped);
    else if (!why[0] && (!have_panel || (!have_update && n > k)))
        snprintf(why, sizeof why, "no %s span", have_panel ? "update" : "panel");
    /* per step and phase, per lane, the device's union */
    const int64_t np = tr.count ? 1 + k : 1; /* steps are < k */
    double *ph = calloc((size_t)(np + 1) * FT_NPHASES, sizeof(double));
    double lane[FT_NLANES] = {0}, tph[FT_NPHASES] = {0}, hostph[FT_NPHASES] = {0};
    int64_t maxstep = -1;
    ft_span_t *dev = malloc((size_t)(tr.count + 1) * sizeof *dev);
    int64_t nd = 0;
    for (int64_t s = 0; s < tr.count && ph && dev; s++) {
        const ft_span_t *x = &tr.spans[s];
        const double d = x->t1 - x->t0;
        lane[x->lane] += d;
        if (x->lane == FT_LANE_HOST) hostph[x->phase] += d;
        else {
            tph[x->phase] += d;
            dev[nd++] = *x;
        }
        if (x->step >= 0 && x->step < np) {
            /* host spans: the panel (CPU panels) and the waits, in their own columns */
            const int f = x->lane != FT_LANE_HOST ? x->phase
                          : x->phase == FT_PHASE_PANEL ? FT_PHASE_SEAL
                          : x->phase == FT_PHASE_WAIT ? FT_PHASE_WAIT : -1;
            if (f >= 0) ph[x->step * FT_NPHASES + f] += d;
            if (x->step > maxstep) maxstep = x->step;
        }
    }
    double uni = 0.0, end = -1.0;
    if (dev) {
        qsort(dev, (size_t)nd, sizeof *dev, cmp_span);
        double a = 0.0;
        for (int64_t s = 0; s < nd; s++) {
            if (dev[s].t0 > end) {
                if (end > a) uni += end - a;
                a = dev[s].t0, end = dev[s].t1;
            } else if (dev[s].t1 > end) end = dev[s].t1;
        }
        if (end > a) uni += end - a;
    }
    printf("%% trace %lld x %lld: call %.3f ms, %lld spans (%lld dropped)%s%s\n", (long long)m,
           (long long)n, 1e3 * tot, (long long)tr.count, (long long)tr.dropped,
           why[0] ? ": FAILED: " : "", why);
    printf("%% trace step    panel lookahead   update checksum   arrive  ckpoint    after     "
           "copy  h_panel   h_wait  (ms; h_: host)\n");
    static const int cols[] = {FT_PHASE_PANEL, FT_PHASE_LOOKAHEAD, FT_PHASE_UPDATE,
                               FT_PHASE_CHECKSUM, FT_PHASE_ARRIVE, FT_PHASE_CHECKPOINT,
                               FT_PHASE_AFTER, FT_PHASE_COPY, FT_PHASE_SEAL, FT_PHASE_WAIT};
    for (int64_t p = 0; p <= maxstep && ph; p++) {
        printf("%% trace %4lld", (long long)p);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            printf(" %8.3f", 1e3 * ph[p * FT_NPHASES + cols[c]]);
        printf("\n");
    }
    printf("%% trace device phases (ms):");
    for (int f = 0; f < FT_NPHASES; f++)
        if (tph[f] > 0) printf(" %s %.3f", ft_phase_name(f), 1e3 * tph[f]);
    printf("\n%% trace host phases (ms):");
    for (int f = 0; f < FT_NPHASES; f++)
        if (hostph[f] > 0) printf(" %s %.3f", ft_phase_name(f), 1e3 * hostph[f]);
    printf("\n%% trace lanes busy (ms):");
    for (int l = 0; l < FT_NLANES; l++) printf(" %s %.3f", ft_lane_name(l), 1e3 * lane[l]);
    printf("; device busy (union of its queues' spans) %.3f ms = %.1f %% of the call, idle "
           "%.3f ms\n", 1e3 * uni, tot > 0 ? 100.0 * uni / tot : 0.0, 1e3 * (tot - uni));
    if (o->trace_file && tr.count) {
        FILE *f = fopen(o->trace_file, "a");
        if (!f) snprintf(why, sizeof why, "cannot open %s", o->trace_file);
        else {
            for (int64_t s = 0; s < tr.count; s++)
                fprintf(f, "%lld,%lld,%s,%s,%lld,%.6f,%.6f\n", (long long)m, (long long)n,
                        ft_lane_name(tr.spans[s].lane), ft_phase_name(tr.spans[s].phase),
                        (long long)tr.spans[s].step, 1e3 * tr.spans[s].t0,
                        1e3 * tr.spans[s].t1);
            fclose(f);
        }
    }
    fflush(stdout);
    free(ph);
    free(dev);
    free(tr.spans);
    free(AF);
    free(tau);
    return !why[0];
}

int main(int argc, char **argv)
{
    opts_t o;
    if (parse_args(argc, argv, &o)) return 2;
    if (o.device == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, o.device);
    if (st) {
        printf("ft_context_create: %s\n", ft_strerror(st));
        return 1;
    }
    tu_rng_t rng;
    tu_seed(&rng, o.seed);
    ft_inject_seed(ctx, o.seed);
    printf("%% device %s, nb %d%s, verify every %d panels, crossover %d, tol %g, niter %d%s\n",
           tu_device_name(o.device), o.nb, o.nb ? "" : " (automatic)", o.verify_every,
           o.crossover, o.tol, o.niter, o.gpu_pointers ? ", device pointers" : "");
    printf("%% peer: LAPACKE_dgeqrf (OpenBLAS) on cpu, cusolverDnDgeqrf on cuda (device memory); "
           "GFLOP/s = LAPACK flop count / median time\n");
    printf("%%     M      N   peer GF/s  ftla-on GF/s  ftla-off GF/s  ||A-QR||/(..eps)  "
           "||I-QQ'||/(m eps)  inj det loc cor csum  status  result\n");
    int len = o.M.n > o.N.n ? o.M.n : o.N.n;
    for (int c = 0; c < len; c++) {
        int64_t m = o.M.v[o.M.n == 1 ? 0 : c], n = o.N.v[o.N.n == 1 ? 0 : c];
        int64_t k = m < n ? m : n;
        double *A = tu_malloc(m * n), *AF = tu_malloc(m * n), *tau = tu_malloc(k);
        tu_fill(&rng, m, n, A, m > 1 ? m : 1);
        double fl = qr_flops((double)m, (double)n) / 1e9;
        double tp = time_peer(&o, m, n, A);
        double ton = o.protect ? time_ftla(&o, ctx, m, n, A, 1) : -1;
        double toff = time_ftla(&o, ctx, m, n, A, 0);
        /* the checked run, with the faults */
        ft_report_t rep;
        memset(&rep, 0, sizeof rep);
        double res[2] = {0, 0}, secs;
        set_policy(ctx, &o, o.protect);
        ft_inject_clear(ctx);
        int ok = 1;
        char note[256] = "";
        for (int f = 0; f < o.nfaults; f++) {
            int sa = ft_inject_add(ctx, &o.faults[f]);
            if (sa) row_fail(&ok, note, "ft_inject_add(fault %d): %s", f, ft_strerror(sa));
        }
        st = run_ftla(&o, ctx, m, n, A, AF, tau, &rep, &secs);
        if (o.check) qr_ratios(m, n, A, m > 1 ? m : 1, AF, m > 1 ? m : 1, tau, res);
        if (tp < 0 || (o.protect && ton < 0) || toff < 0)
            row_fail(&ok, note, "a fault-free timed run failed (peer %s, ftla on %s, off %s)",
                     tp < 0 ? "failed" : "ok", o.protect && ton < 0 ? "failed" : "ok",
                     toff < 0 ? "failed" : "ok");
        if (st == 0) {
            if (o.check && !(res[0] < o.tol && res[1] < o.tol))
                row_fail(&ok, note, "ratios %.3e %.3e >= tol %g", res[0], res[1], o.tol);
        } else if (!(st == FT_ERR_NOT_RECOVERED && rep.injected > 0 && rep.located > 0)) {
            row_fail(&ok, note, "status %d (%s), injected %lld located %lld", st,
                     ft_strerror(st), (long long)rep.injected, (long long)rep.located);
        }
        if (o.nfaults > 0 && rep.injected == 0 && k > 0) row_fail(&ok, note, "no fault applied");
        if (k > 0 && o.device != FT_DEVICE_AUTO && rep.backend != o.device)
            row_fail(&ok, note, "ran on backend %d, asked for %s", (int)rep.backend,
                     tu_device_name(o.device));
        if (o.expect == EXPECT_CORRECTED &&
            !(st == 0 && rep.injected == o.nfaults && rep.uncorrectable == 0 &&
              rep.corrected + rep.checksum_errors == rep.injected))
            row_fail(&ok, note,
                     "--expect corrected: status %d, %d faults, injected %lld corrected %lld "
                     "checksum errors %lld uncorrectable %lld",
                     st, o.nfaults, (long long)rep.injected, (long long)rep.corrected,
                     (long long)rep.checksum_errors, (long long)rep.uncorrectable);
        if (o.expect == EXPECT_LOCATED &&
            !(st == FT_ERR_NOT_RECOVERED && rep.injected == o.nfaults && rep.located >= 1))
            row_fail(&ok, note,
                     "--expect located: status %d, %d faults, injected %lld located %lld", st,
                     o.nfaults, (long long)rep.injected, (long long)rep.located);

        char on[32], off[32], r0[32], r1[32];
        if (ton > 0) snprintf(on, sizeof on, "%12.2f", fl / ton);
        else snprintf(on, sizeof on, "%12s", "-");
        if (toff > 0) snprintf(off, sizeof off, "%13.2f", fl / toff);
        else snprintf(off, sizeof off, "%13s", "-");
        if (o.check && st == 0) {
            snprintf(r0, sizeof r0, "%16.2e", res[0]);
            snprintf(r1, sizeof r1, "%17.2e", res[1]);
        } else {
            snprintf(r0, sizeof r0, "%16s", "-");
            snprintf(r1, sizeof r1, "%17s", "-");
        }
        printf("%7lld %6lld %11.2f  %s  %s  %s  %s  %3lld %3lld %3lld %3lld %4lld  %6d  %s\n",
               (long long)m, (long long)n, tp > 0 ? fl / tp : 0.0, on, off, r0, r1,
               (long long)rep.injected, (long long)rep.detected, (long long)rep.located,
               (long long)rep.corrected, (long long)rep.checksum_errors, st,
               ok ? "ok" : "failed");
        if (note[0]) printf("%%   %s\n", note);
        fflush(stdout);
        if (o.profile) profile_run(&o, ctx, m, n, A);
        if (o.model) model_line(&o, ctx, m, n, ton, toff);
        if (o.trace) {
            if (trace_run(&o, ctx, m, n, A)) tu_passed++;
            else tu_failed++;
        }
        if (ok) tu_passed++;
        else tu_failed++;
        free(A);
        free(AF);
        free(tau);
    }
    ft_context_destroy(ctx);
#ifdef FTLA_HAVE_CUDA
    if (g_solver) cusolverDnDestroy(g_solver);
#endif
    return tu_finish();
}
