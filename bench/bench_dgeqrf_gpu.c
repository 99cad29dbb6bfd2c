/*
 * bench_dgeqrf_gpu — ft_dgeqrf (checksum-protected hybrid QR) against cuSOLVER DGEQRF.
 *
 *   bench_dgeqrf_gpu [-N n[,n...]] [-M m[,m...]] [--nb NB] [--runs R] [--warmup W] [--host]
 *                    [--pinned] [--seed S] [--phases P] [--panel auto|cpu|gpu] [--cpanel]
 *                    [--no-noq] [--lapacke] [--lapacke-runs R2] [--lapacke-max N]
 *
 * Defaults: -N 8192,16384,32768, M = N (square; -M with one value applies to every N, or one
 * value per N for tall shapes), nb = ftla's automatic choice, 7 timed runs, 1 warm-up.
 *
 * Methods: cusolver = cusolverDnDgeqrf; ftla-on = ftla with policy.protect = 1; ftla-off = the
 * same driver with policy.protect = 0; ftla-on-noQ = protect = 1 without issue 9's protection
 * (policy.protect_q = -1: the checkpoint of Q and tau, the panel checks and the checks of the
 * reflectors in use; what they cost is on - on-noQ). One ftla
 * context, switched between the methods (untimed).
 * Optional methods, for the table of the issue (TFLOP/s against n, every panel placement and
 * the host's LAPACK in one run):
 *  --cpanel: ftla-on-cpu / ftla-off-cpu = ftla-on / ftla-off with policy.panel = FT_PANEL_CPU
 *    (ftla-on / ftla-off keep --panel's placement; its default, auto, is ftla's own choice:
 *    FTLA_PANEL, else device panels on CUDA or the performance model's pick when nb = 0, see
 *    policy.panel in ftla.h); they join the rounds after the other ftla methods.
 *  --no-noq: ftla-on-noQ is not run (saves a quarter of the rounds in a sweep).
 *  --lapacke: lapacke = LAPACKE_dgeqrf (column-major, LAPACK's own block size, its workspace
 *    allocated by LAPACKE in the call) on a host copy of A, on the host's cores (OpenBLAS
 *    threads). It is slow at large n, so it runs outside the rounds, after them: 1 warm-up call,
 *    then R2 timed calls (--lapacke-runs, default 3); A restored from a host pristine copy
 *    before each call (untimed); time = CLOCK_MONOTONIC around the call only (nothing runs on
 *    the device). Checks: info 0 on every call; on the warm-up result the column-norm residual
 *    and |R_ii| against cuSOLVER, with the limits below. Skipped (row "skipped (n > max)", no
 *    table row) when min(m,n) > --lapacke-max (default 16384). Ratio = cusolver median / its
 *    median, as for the others.
 *
 * Protocol (printed in the output header too):
 *  - like for like. Default: device pointers: ft_dgeqrf_gpu_ex and cusolverDnDgeqrf factor the
 *    same device array on the same CUDA stream (ft_context_set_stream, cusolverDnSetStream).
 *    The pristine copy of A lives on the device. (ftla's _gpu entry returns tau on the host,
 *    cuSOLVER's stays on the device: each API's own contract.)
 *    --host: host pointers: ft_dgeqrf_ex on a CUDA context against cuSOLVER INCLUDING its copies:
 *    H2D of A, the factorization, D2H of A and of tau, on the stream; both use the same host
 *    buffers for A and tau (pageable malloc, or pinned with --pinned); the pristine copy of A
 *    lives on the host. Each round also times cusolver-dev: cuSOLVER on A already on the device
 *    (copied untimed before the call), the device-resident time issue 10's host-pointer target
 *    is set against; a line gives cusolver-dev / ftla-on (medians and per round).
 *  - W warm-up calls of each method first (untimed), then R rounds; each round calls cusolver,
 *    ftla-on, ftla-off, ftla-on-noQ in that order; A is restored from the pristine copy before
 *    every call (untimed).
 *  - timing: cudaDeviceSynchronize; t0 = CLOCK_MONOTONIC; call; cudaDeviceSynchronize; t1.
 *  - reported per method: median and min-max of the R timed runs, TFLOP/s = LAPACK's flop count
 *    (LAWN 41) / median, ratio = cusolver median / method median, and for ftla the median of
 *    report.time_protect.
 *  - checks: cuSOLVER's devInfo == 0 after every call; every ftla call: status 0, info 0,
 *    report.status 0, detected 0, backend CUDA. Once per size (untimed, on the last warm-up
 *    results): for every method max_j | ||R(:,j)|| - ||A(:,j)|| | / (m u ||A(:,j)||) < 10 (Q is
 *    orthogonal), and for ftla max_i | |R_ii| - |R_ii|_cusolver | / max_i |R_ii| < 1e-6.
 *    Any failure prints FAIL and the exit status is 1. No faults are injected.
 *  - every CUDA / cuSOLVER / ftla setup status is checked (exit 2 with a message); exit 77 when
 *    no CUDA device is usable.
 * --phases P: after the table, P untimed calls each of ftla-on and ftla-on-noQ with
 * policy.verbose = 1, whose phase profile ftla logs on stderr (docs/qr.md "Where the time goes").
 * A paired line gives, per round, (ftla-on - ftla-on-noQ) / ftla-on-noQ and
 * (ftla-on-noQ - ftla-off) / ftla-off: median, min, max.
 * The host's OpenBLAS runs ftla's CPU panels: on the H100 host run with
 * OPENBLAS_CORETYPE=SkylakeX (its value is printed in the header).
 * The last lines are a machine-readable table, one row per size and method.
 */
#include "bench_cuda.h"

#include <cusolverDn.h>
#include <lapacke.h>

typedef struct {
    int ns[BENCH_MAX_SIZES], nn, ms[BENCH_MAX_SIZES], nm;
    int nb, runs, warmup, host, pinned, phases, panel;
    int cpanel, no_noq, lapacke, lapacke_runs, lapacke_max;
    uint64_t seed;
} opts_t;

/* M_ONC / M_OFFC: ftla-on / ftla-off with host (CPU) panels; M_LAPACKE runs after the rounds */
enum {
    M_PEER = 0, M_ON = 1, M_OFF = 2, M_NOQ = 3, M_ONC = 4, M_OFFC = 5, M_PEERD = 6,
    M_LAPACKE = 7, NMETHOD = 8
};

static int method_enabled(const opts_t *o, int meth)
{
    switch (meth) {
    case M_NOQ: return !o->no_noq;
    case M_ONC:
    case M_OFFC: return o->cpanel;
    case M_LAPACKE: return o->lapacke;
    case M_PEERD: return o->host;
    default: return 1;
    }
}

static void usage(const char *p)
{
    fprintf(stderr,
            "usage: %s [-N n[,n...]] [-M m[,m...]] [--nb NB] [--runs R] [--warmup W] [--host]\n"
            "          [--pinned] [--seed S] [--phases P] [--panel auto|cpu|gpu] [--cpanel]\n"
            "          [--no-noq] [--lapacke] [--lapacke-runs R2] [--lapacke-max N]\n",
            p);
    exit(2);
}

static void parse(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->runs = BENCH_MIN_PROTOCOL_RUNS;
    o->warmup = 1;
    o->seed = 2024;
    o->lapacke_runs = 3;
    o->lapacke_max = 16384;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--host")) o->host = 1;
        else if (!strcmp(a, "--pinned")) o->pinned = 1;
        else if (!strcmp(a, "--cpanel")) o->cpanel = 1;
        else if (!strcmp(a, "--no-noq")) o->no_noq = 1;
        else if (!strcmp(a, "--lapacke")) o->lapacke = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) usage(argv[0]);
        else if (!v) usage(argv[0]);
        else if (!strcmp(a, "-N")) bench_parse_list(v, a, o->ns, &o->nn, 1, INT_MAX), i++;
        else if (!strcmp(a, "-M")) bench_parse_list(v, a, o->ms, &o->nm, 1, INT_MAX), i++;
        else if (!strcmp(a, "--nb")) o->nb = bench_parse_int(v, a, 0, 4096), i++;
        else if (!strcmp(a, "--panel")) {
            if (!strcmp(v, "auto")) o->panel = FT_PANEL_AUTO;
            else if (!strcmp(v, "cpu")) o->panel = FT_PANEL_CPU;
            else if (!strcmp(v, "gpu")) o->panel = FT_PANEL_GPU;
            else usage(argv[0]);
            i++;
        }
        else if (!strcmp(a, "--runs")) o->runs = bench_parse_int(v, a, 1, 1000), i++;
        else if (!strcmp(a, "--warmup")) o->warmup = bench_parse_int(v, a, 1, 100), i++;
        else if (!strcmp(a, "--phases")) o->phases = bench_parse_int(v, a, 0, 100), i++;
        else if (!strcmp(a, "--lapacke-runs"))
            o->lapacke_runs = bench_parse_int(v, a, 1, 1000), i++;
        else if (!strcmp(a, "--lapacke-max"))
            o->lapacke_max = bench_parse_int(v, a, 1, INT_MAX), i++;
        else if (!strcmp(a, "--seed")) o->seed = (uint64_t)bench_parse_int(v, a, 0, INT_MAX), i++;
        else usage(argv[0]);
    }
    if (o->pinned && !o->host) bench_die("--pinned applies to --host mode only");
    if (o->nn == 0) o->ns[o->nn++] = 8192, o->ns[o->nn++] = 16384, o->ns[o->nn++] = 32768;
    if (o->nm > 1 && o->nm != o->nn) bench_die("-M: give one value, or one per -N value");
}

typedef struct {
    const opts_t *o;
    int m, n, k;
    size_t sz;
    double *hA0, *hA, *htau, *work; /* hA0: host pristine (--host); hA: host A / result buffer */
    int lwork;
    double *dA0, *dA, *dTau, *dWork; /* dA0: device pristine (device mode) */
    int *dInfo, lwork_dev;
    cudaStream_t stream;
    cusolverDnHandle_t solver;
    ft_context_t *ctx;
    ft_policy_t pol;
} shape_t;

static double timed_call(shape_t *s, int method, ft_report_t *rep, int *status, int *info)
{
    const opts_t *o = s->o;
    const size_t bA = s->sz * sizeof(double);
    if (method == M_PEERD) /* untimed: A already on the device (issue 10's measure) */
        BENCH_CUDA(cudaMemcpy(s->dA, s->hA0, bA, cudaMemcpyHostToDevice));
    else if (o->host) memcpy(s->hA, s->hA0, bA);
    else BENCH_CUDA(cudaMemcpyAsync(s->dA, s->dA0, bA, cudaMemcpyDeviceToDevice, s->stream));
    if (method != M_PEER) {
        s->pol.protect = method == M_ON || method == M_NOQ || method == M_ONC;
        s->pol.protect_q = method == M_NOQ ? -1 : 0;
        /* the --cpanel methods force host panels; the others keep --panel's placement */
        s->pol.panel = method == M_ONC || method == M_OFFC ? FT_PANEL_CPU : o->panel;
        BENCH_FT(ft_context_set_policy(s->ctx, &s->pol));
        BENCH_FT(ft_inject_clear(s->ctx));
    }
    memset(rep, 0, sizeof *rep);
    *status = 0;
    *info = 0;
    ft_int finfo = 0;

    bench_sync();
    const double t0 = bench_now();
    if (method == M_PEERD) {
        BENCH_CUSOLVER(cusolverDnDgeqrf(s->solver, s->m, s->n, s->dA, s->m, s->dTau, s->dWork,
                                        s->lwork_dev, s->dInfo));
    } else if (method == M_PEER) {
        if (o->host)
            BENCH_CUDA(cudaMemcpyAsync(s->dA, s->hA, bA, cudaMemcpyHostToDevice, s->stream));
        BENCH_CUSOLVER(cusolverDnDgeqrf(s->solver, s->m, s->n, s->dA, s->m, s->dTau, s->dWork,
                                        s->lwork_dev, s->dInfo));
        if (o->host) {
            BENCH_CUDA(cudaMemcpyAsync(s->hA, s->dA, bA, cudaMemcpyDeviceToHost, s->stream));
            BENCH_CUDA(cudaMemcpyAsync(s->htau, s->dTau, (size_t)s->k * sizeof(double),
                                       cudaMemcpyDeviceToHost, s->stream));
        }
    } else if (o->host) {
        *status = ft_dgeqrf_ex(s->ctx, s->m, s->n, s->hA, s->m, s->htau, s->work, s->lwork,
                               &finfo, rep);
    } else {
        *status = ft_dgeqrf_gpu_ex(s->ctx, s->m, s->n, s->dA, s->m, s->htau, &finfo, rep);
    }
    bench_sync();
    const double t = bench_now() - t0;
    if (method == M_PEER || method == M_PEERD)
        BENCH_CUDA(cudaMemcpy(info, s->dInfo, sizeof(int), cudaMemcpyDeviceToHost));
    else
        *info = finfo;
    return t;
}

static const double *result(shape_t *s, int method)
{
    if (!s->o->host || method == M_PEERD)
        BENCH_CUDA(cudaMemcpy(s->hA, s->dA, s->sz * sizeof(double), cudaMemcpyDeviceToHost));
    return s->hA;
}

/* lapacke: LAPACKE_dgeqrf on the host buffer s->hA, restored from s->hA0 before each call
 * (untimed), outside the rounds: 1 warm-up call, whose result is checked like the others' last
 * warm-up, then o->lapacke_runs timed calls. Only host work, so the clock brackets the call alone
 * (the device is idle; a device synchronisation would add nothing but its own cost). */
static void run_lapacke(shape_t *s, bench_series_t *se, const double *anrm, double *diag,
                        const double *diag_peer, double *nerr, double *derr)
{
    const opts_t *o = s->o;
    const size_t bA = s->sz * sizeof(double);
    for (int call = 0; call < 1 + o->lapacke_runs; call++) {
        const int timed = call >= 1;
        memcpy(s->hA, s->hA0, bA);
        const double t0 = bench_now();
        const lapack_int info =
            LAPACKE_dgeqrf(LAPACK_COL_MAJOR, s->m, s->n, s->hA, s->m, s->htau);
        const double t = bench_now() - t0;
        if (info != 0) { /* -1010 = LAPACKE could not allocate its workspace */
            printf("%% FAIL: lapacke %s call %d: LAPACKE_dgeqrf info %d\n",
                   timed ? "timed" : "warm-up", timed ? call - 1 : call, (int)info);
            se->bad_calls++;
        }
        if (timed) {
            se->t[se->n++] = t;
        } else {
            *nerr = bench_qr_colnorm_err(s->m, s->n, s->hA, s->m, anrm, diag);
            *derr = bench_diag_err(s->k, diag, diag_peer);
        }
    }
}

/* One paired per-round figure: (a - b) / b over the rounds both ran, printed in %. */
static void print_paired(const char *label, const bench_series_t *a, const bench_series_t *b)
{
    const int nr = a->n < b->n ? a->n : b->n;
    double *d = bench_malloc((size_t)(nr > 0 ? nr : 1) * sizeof(double));
    for (int r = 0; r < nr; r++) d[r] = (a->t[r] - b->t[r]) / b->t[r];
    const bench_stats_t q = bench_stats(d, nr);
    printf("%s median %+.2f %% (min %+.2f, max %+.2f)", label, 100 * q.med, 100 * q.min,
           100 * q.max);
    free(d);
}

static void run_shape(const opts_t *o, int m, int n, cudaStream_t stream,
                      cusolverDnHandle_t solver, ft_context_t *ctx, const ft_policy_t *pol0)
{
    shape_t s = {.o = o, .m = m, .n = n, .k = m < n ? m : n, .stream = stream, .solver = solver,
                 .ctx = ctx, .pol = *pol0};
    s.sz = (size_t)m * (size_t)n;
    const size_t bA = s.sz * sizeof(double);
    const int pin = o->host && o->pinned;
    double *anrm = bench_malloc((size_t)n * sizeof(double));
    double *diag[NMETHOD];
    /* lapacke runs for this size unless min(m,n) is above --lapacke-max (hours at n = 32768) */
    const int lap_run = o->lapacke && s.k <= o->lapacke_max;
    for (int i = 0; i < NMETHOD; i++) diag[i] = bench_malloc((size_t)s.k * sizeof(double));

    /* host A (generation; device mode: the result buffer too), pristine copy, peer buffers */
    s.hA = bench_hmalloc(bA, pin, "A");
    s.htau = bench_hmalloc((size_t)s.k * sizeof(double), pin, "tau");
    bench_fill(s.hA, s.sz, o->seed + (uint64_t)m * 131u + (uint64_t)n);
    bench_colnorms(m, n, s.hA, m, anrm);
    s.dA = bench_dmalloc(bA, "A");
    if (o->host) {
        s.hA0 = bench_malloc(bA);
        memcpy(s.hA0, s.hA, bA);
        ft_int qinfo = 0;
        double wq = 0.0;
        BENCH_FT(ft_dgeqrf_ex(ctx, m, n, s.hA, m, s.htau, &wq, -1, &qinfo, NULL));
        s.lwork = wq > n ? (int)wq : n;
        s.work = bench_malloc((size_t)s.lwork * sizeof(double));
    } else {
        s.dA0 = bench_dmalloc(bA, "A0 (pristine)");
        BENCH_CUDA(cudaMemcpy(s.dA0, s.hA, bA, cudaMemcpyHostToDevice));
        if (lap_run) { /* hA becomes the result buffer: lapacke needs its own host pristine */
            s.hA0 = bench_malloc(bA);
            memcpy(s.hA0, s.hA, bA);
        }
    }
    s.dTau = bench_dmalloc((size_t)s.k * sizeof(double), "tau");
    s.dInfo = bench_dmalloc(sizeof(int), "devInfo");
    BENCH_CUSOLVER(cusolverDnDgeqrf_bufferSize(solver, m, n, s.dA, m, &s.lwork_dev));
    s.dWork = bench_dmalloc((size_t)(s.lwork_dev > 0 ? s.lwork_dev : 1) * sizeof(double),
                            "cuSOLVER work");

    static bench_series_t ser[NMETHOD];
    bench_series_init(&ser[M_PEER], "cusolver", 0);
    bench_series_init(&ser[M_ON], "ftla-on", 1);
    bench_series_init(&ser[M_OFF], "ftla-off", 1);
    bench_series_init(&ser[M_NOQ], "ftla-on-noQ", 1);
    bench_series_init(&ser[M_ONC], "ftla-on-cpu", 1);
    bench_series_init(&ser[M_OFFC], "ftla-off-cpu", 1);
    bench_series_init(&ser[M_PEERD], "cusolver-dev", 0);
    bench_series_init(&ser[M_LAPACKE], "lapacke", 0);
    double nerr[NMETHOD] = {0}, derr[NMETHOD] = {0};

    for (int round = 0; round < o->warmup + o->runs; round++) {
        const int timed = round >= o->warmup, last_warm = round == o->warmup - 1;
        for (int meth = 0; meth < M_LAPACKE; meth++) { /* lapacke: after the rounds */
            if (!method_enabled(o, meth)) continue;
            ft_report_t rep;
            int st, info;
            double t = timed_call(&s, meth, &rep, &st, &info);
            bench_series_t *se = &ser[meth];
            char what[64];
            snprintf(what, sizeof what, "%s call %d", timed ? "timed" : "warm-up",
                     timed ? round - o->warmup : round);
            if (meth == M_PEER || meth == M_PEERD) {
                if (info != 0) {
                    printf("%% FAIL: cusolverDnDgeqrf %s: devInfo = %d\n", what, info);
                    se->bad_calls++;
                }
            } else {
                bench_check_report(se, &rep, st, 0, timed, what);
                if (info != 0 || rep.backend != FT_DEVICE_CUDA) {
                    printf("%% FAIL: %s %s: info %d, backend %d (want 0, CUDA)\n", se->name, what,
                           info, (int)rep.backend);
                    se->bad_calls++;
                }
            }
            if (timed) {
                se->t[se->n] = t;
                se->prot[se->n++] = rep.time_protect;
            }
            if (last_warm) { /* untimed result checks, once per size */
                const double *F = result(&s, meth);
                nerr[meth] = bench_qr_colnorm_err(m, n, F, m, anrm, diag[meth]);
                if (meth != M_PEER && meth != M_PEERD)
                    derr[meth] = bench_diag_err(s.k, diag[meth], diag[M_PEER]);
            }
        }
    }
    /* lapacke after the rounds, not in them: its calls take seconds to minutes each, and the
     * rounds should keep the device methods' calls close together in time */
    if (lap_run)
        run_lapacke(&s, &ser[M_LAPACKE], anrm, diag[M_LAPACKE], diag[M_PEER], &nerr[M_LAPACKE],
                    &derr[M_LAPACKE]);

    char param[24];
    if (o->nb) snprintf(param, sizeof param, "nb=%d", o->nb);
    else snprintf(param, sizeof param, "nb=auto");
    printf("\n%% dgeqrf %s m=%d n=%d %s runs=%d warm-up=%d\n",
           o->host ? "host pointers (cuSOLVER incl. H2D A, D2H A and tau)" : "device pointers",
           m, n, param, o->runs, o->warmup);
    if (s.k <= 128)
        printf("%% note: min(m,n) <= 128: ftla's automatic crossover runs unprotected LAPACK on "
               "the host\n");
    printf("%% check: colnorm residual (limit %g): cusolver %.3g, ftla-on %.3g, ftla-off %.3g; "
           "|R_ii| vs cusolver (limit %g): ftla-on %.3g, ftla-off %.3g\n",
           BENCH_QR_NORM_TOL, nerr[M_PEER], nerr[M_ON], nerr[M_OFF], BENCH_QR_DIAG_TOL,
           derr[M_ON], derr[M_OFF]);
    if (method_enabled(o, M_NOQ))
        printf("%% check: ftla-on-noQ colnorm %.3g, |R_ii| %.3g\n", nerr[M_NOQ], derr[M_NOQ]);
    if (o->cpanel)
        printf("%% check: ftla-on-cpu colnorm %.3g, |R_ii| %.3g; ftla-off-cpu colnorm %.3g, "
               "|R_ii| %.3g\n", nerr[M_ONC], derr[M_ONC], nerr[M_OFFC], derr[M_OFFC]);
    if (lap_run)
        printf("%% check: lapacke colnorm %.3g, |R_ii| %.3g (lapacke: %d timed call(s) after 1 "
               "warm-up, after the rounds)\n", nerr[M_LAPACKE], derr[M_LAPACKE],
               o->lapacke_runs);
    if (ser[M_ON].unchecked || ser[M_OFF].unchecked || ser[M_ONC].unchecked ||
        ser[M_OFFC].unchecked)
        printf("%% note: report.unchecked > 0 (checks skipped) in timed ftla calls\n");
    bench_print_human_header("TFLOP/s", "cusolv/x", NULL);
    const double flops = bench_qr_flops(m, n);
    for (int meth = 0; meth < NMETHOD; meth++) {
        if (!method_enabled(o, meth)) continue;
        if (meth == M_LAPACKE && !lap_run) { /* no table row: there is no time to report */
            printf("  %-9s skipped (n > max: min(m,n) = %d > --lapacke-max %d)\n",
                   ser[meth].name, s.k, o->lapacke_max);
            continue;
        }
        int ok = ser[meth].bad_calls == 0 && nerr[meth] < BENCH_QR_NORM_TOL &&
                 (meth == M_PEER || meth == M_PEERD || derr[meth] < BENCH_QR_DIAG_TOL);
        bench_row_t *r = bench_add_row("dgeqrf", o->host ? "host" : "dev", m, n, s.k, param,
                                       &ser[meth], flops, &ser[M_PEER], NULL, 0, ok);
        bench_print_row_human(r, 1e12);
    }
    if (method_enabled(o, M_PEERD)) { /* issue 10: host pointers against device-resident */
        printf("%% host pointers against cuSOLVER device-resident (cusolver-dev, A already on the "
               "device, same rounds): cusolver-dev / ftla-on %.3f, / ftla-off %.3f (medians); "
               "per round:", bench_stats(ser[M_PEERD].t, ser[M_PEERD].n).med /
                                 bench_stats(ser[M_ON].t, ser[M_ON].n).med,
               bench_stats(ser[M_PEERD].t, ser[M_PEERD].n).med /
                   bench_stats(ser[M_OFF].t, ser[M_OFF].n).med);
        for (int r = 0; r < ser[M_ON].n && r < ser[M_PEERD].n; r++)
            printf(" %.3f", ser[M_PEERD].t[r] / ser[M_ON].t[r]);
        printf("\n");
    }
    /* paired per round (the calls of one round ran back to back): what issue 9's protection
     * and the checksum protection cost, without the drift between rounds */
    const int nr = ser[M_ON].n;
    printf("%% paired per round, %d rounds: ", nr);
    if (method_enabled(o, M_NOQ)) {
        print_paired("(ftla-on - ftla-on-noQ) / ftla-on-noQ", &ser[M_ON], &ser[M_NOQ]);
        print_paired("; (ftla-on-noQ - ftla-off) / ftla-off", &ser[M_NOQ], &ser[M_OFF]);
    } else {
        print_paired("(ftla-on - ftla-off) / ftla-off", &ser[M_ON], &ser[M_OFF]);
    }
    printf("\n");
    if (o->cpanel) { /* the protection's cost with host panels, and host vs --panel placement */
        printf("%% paired per round, %d rounds: ", nr);
        print_paired("(ftla-on-cpu - ftla-off-cpu) / ftla-off-cpu", &ser[M_ONC], &ser[M_OFFC]);
        print_paired("; (ftla-on-cpu - ftla-on) / ftla-on", &ser[M_ONC], &ser[M_ON]);
        printf("\n");
    }
    for (int meth = 0; meth < NMETHOD; meth++) { /* for pooling rounds across runs */
        if (!method_enabled(o, meth) || ser[meth].n == 0) continue;
        printf("%% raw %s ms:", ser[meth].name);
        for (int r = 0; r < ser[meth].n; r++) printf(" %.3f", 1e3 * ser[meth].t[r]);
        printf("\n");
    }
    fflush(stdout);
    /* untimed: the library's phase profile (policy.verbose 1, on stderr) of ftla-on and
     * ftla-on-noQ, alternated */
    static const int phase_meth[2] = {M_ON, M_NOQ};
    for (int r = 0; r < o->phases; r++)
        for (int pm = 0; pm < 2; pm++) {
            const int meth = phase_meth[pm];
            if (!method_enabled(o, meth)) continue;
            ft_report_t rep;
            int st, info;
            printf("%% phases %s, call %d (verbose 1, stderr):\n", ser[meth].name, r);
            fflush(stdout);
            s.pol.verbose = 1;
            double t = timed_call(&s, meth, &rep, &st, &info);
            s.pol.verbose = pol0->verbose;
            fflush(stderr);
            printf("%%   %.3f ms, status %d, detected %d\n", 1e3 * t, st, (int)rep.detected);
        }
    BENCH_FT(ft_context_set_policy(ctx, pol0));
    fflush(stdout);

    bench_hfree(s.hA, pin);
    bench_hfree(s.htau, pin);
    free(s.hA0);
    free(s.work);
    free(anrm);
    for (int i = 0; i < NMETHOD; i++) free(diag[i]);
    BENCH_CUDA(cudaFree(s.dA));
    if (s.dA0) BENCH_CUDA(cudaFree(s.dA0));
    BENCH_CUDA(cudaFree(s.dTau));
    BENCH_CUDA(cudaFree(s.dWork));
    BENCH_CUDA(cudaFree(s.dInfo));
}

int main(int argc, char **argv)
{
    opts_t o;
    parse(argc, argv, &o);
    printf("%% bench_dgeqrf_gpu: ft_dgeqrf (checksum-protected hybrid QR) vs cuSOLVER DGEQRF\n");
    bench_cuda_probe_or_skip("bench_dgeqrf_gpu");
    bench_print_env(o.runs, o.warmup);

    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreate(&stream));
    cusolverDnHandle_t solver;
    BENCH_CUSOLVER(cusolverDnCreate(&solver));
    BENCH_CUSOLVER(cusolverDnSetStream(solver, stream));
    int vmaj = 0, vmin = 0, vpat = 0;
    BENCH_CUSOLVER(cusolverGetProperty(MAJOR_VERSION, &vmaj));
    BENCH_CUSOLVER(cusolverGetProperty(MINOR_VERSION, &vmin));
    BENCH_CUSOLVER(cusolverGetProperty(PATCH_LEVEL, &vpat));
    ft_context_t *ctx = NULL;
    BENCH_FT(ft_context_create(&ctx, FT_DEVICE_CUDA));
    BENCH_FT(ft_context_set_stream(ctx, (void *)stream));
    ft_policy_t pol;
    BENCH_FT(ft_context_get_policy(ctx, &pol));
    pol.nb = o.nb; /* 0 = ftla's automatic block size */
    pol.panel = o.panel;
    printf("%% ftla panel placement: %s (policy.panel)\n",
           o.panel == FT_PANEL_CPU ? "cpu" : o.panel == FT_PANEL_GPU ? "gpu" : "auto");
    BENCH_FT(ft_context_set_policy(ctx, &pol));

    printf("%% cuSOLVER %d.%d.%d; peer: cusolverDnDgeqrf (workspace from _bufferSize, allocated "
           "once), handle on the same stream as ftla's context\n", vmaj, vmin, vpat);
    printf("%% protocol: %s\n",
           o.host ? "HOST pointers: ft_dgeqrf_ex vs cuSOLVER including H2D of A and D2H of A "
                    "and tau, same host buffers; pristine A on the host"
                  : "DEVICE pointers: ft_dgeqrf_gpu_ex vs cusolverDnDgeqrf on the same device "
                    "data and stream; pristine A on the device");
    if (o.host)
        printf("%% host buffers: %s (the same for ftla and cuSOLVER)\n",
               o.pinned ? "pinned (cudaMallocHost)" : "pageable (malloc)");
    printf("%% ftla block size: %s\n", o.nb ? "--nb, through policy.nb" : "automatic (policy.nb "
           "= 0)");
    printf("%% protocol: warm-up calls of every method first (untimed); then rounds of "
           "cusolver, ftla-on, ftla-off;\n%%   A restored from the pristine copy before every "
           "call (untimed); time = host CLOCK_MONOTONIC\n%%   between cudaDeviceSynchronize "
           "before and after the call; median, min-max; TFLOP/s = LAWN 41 flops/median;\n%%   "
           "ratio = cusolver median / method median; protect = median report.time_protect;\n"
           "%%   checks: devInfo 0, ftla status/info 0 and detected 0 on every call; "
           "untimed, last warm-up: column-norm\n%%   residual of R and |R_ii| vs cuSOLVER\n");
    if (o.cpanel || o.no_noq || o.lapacke || o.host) { /* only then: the default header */
        printf("%% protocol: each round calls cusolver, ftla-on, ftla-off%s%s%s\n",
               o.no_noq ? "" : ", ftla-on-noQ", o.cpanel ? ", ftla-on-cpu, ftla-off-cpu" : "",
               o.host ? ", cusolver-dev (A on the device before the call, untimed copy)" : "");
        if (o.no_noq) printf("%% protocol: --no-noq: ftla-on-noQ is not run\n");
        if (o.cpanel)
            printf("%% protocol: --cpanel: ftla-on-cpu / ftla-off-cpu = ftla-on / ftla-off with "
                   "policy.panel = FT_PANEL_CPU\n%%   (panels in the host's LAPACK; ftla-on / "
                   "ftla-off keep the placement above)\n");
    }
    if (o.lapacke) {
        int nthr = 0; /* unknown unless the CBLAS header is OpenBLAS's */
#ifdef OPENBLAS_VERSION
        nthr = openblas_get_num_threads();
#endif
        printf("%% protocol: --lapacke: lapacke = LAPACKE_dgeqrf (column-major, LAPACK's block "
               "size, workspace allocated\n%%   by LAPACKE in the call) on a host copy of A, on "
               "the host's cores (OpenBLAS, %d threads);\n%%   after the rounds of each size: 1 "
               "warm-up call, then %d timed call(s); A restored from a host\n%%   pristine copy "
               "before each call (untimed); time = CLOCK_MONOTONIC around the call only;\n%%   "
               "checks: info 0 on every call; on the warm-up result the column-norm residual and "
               "|R_ii|\n%%   vs cuSOLVER; skipped (no table row) when min(m,n) > %d "
               "(--lapacke-max)\n", nthr, o.lapacke_runs, o.lapacke_max);
    }

    for (int i = 0; i < o.nn; i++) {
        int n = o.ns[i], m = o.nm == 0 ? n : o.nm == 1 ? o.ms[0] : o.ms[i];
        run_shape(&o, m, n, stream, solver, ctx, &pol);
    }

    BENCH_FT(ft_context_destroy(ctx));
    BENCH_CUSOLVER(cusolverDnDestroy(solver));
    BENCH_CUDA(cudaStreamDestroy(stream));
    bench_print_table("TFLOP/s", 1e12);
    return bench_finish();
}
