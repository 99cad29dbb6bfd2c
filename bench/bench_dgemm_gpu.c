/*
 * bench_dgemm_gpu — ft_dgemm on the GPU against cuBLAS DGEMM, measured under one protocol.
 *
 *   bench_dgemm_gpu [-N n[,n...]] [-m M -n N -k K] [--transa N|T] [--transb N|T] [--beta b]
 *                   [--alpha a] [--runs R] [--warmup W] [--inject F] [--tile T] [--host]
 *                   [--pinned] [--seed S] [--tmr] [--limit BYTES]
 *
 * Defaults: -N 8192,16384 (square), NN, alpha 1, beta 0, 7 timed runs, 1 warm-up, no faults.
 *
 * Methods: cublas = cublasDgemm; ftla-on = ft_dgemm_gpu_ex (policy.protect = 1); ftla-off = the
 * same driver with policy.protect = 0. One ftla context, switched between on and off (untimed).
 * --tmr: ftla-tmr = ft_dgemm_gpu_ex with policy.protect = FT_PROTECT_TMR in place of ftla-on,
 * and cublas-x3 = three cublasDgemm calls back to back (one timed bracket) in place of
 * ftla-off: what three products cost on this GPU when they run in a row (clocks under load).
 * --limit BYTES (with --host): ftla's policy.gpu_memory = BYTES (out of core when the call does
 * not fit), and cublas-dev = cublasDgemm on the device-resident copies (no transfers) in place
 * of ftla-off: the in-core cuBLAS rate of the same run.
 *
 * Protocol (printed in the output header too):
 *  - like for like. Default: device pointers; ftla (ft_dgemm_gpu_ex) and cublasDgemm work on the
 *    same device arrays, on the same CUDA stream (ft_context_set_stream / cublasSetStream).
 *    --host: host pointers; ftla (ft_dgemm_ex on a CUDA context) against cuBLAS INCLUDING its
 *    copies: H2D of A and B (and of C when beta != 0), the product, D2H of C, all on the stream;
 *    both use the same host buffers (pageable malloc, or pinned with --pinned).
 *  - W warm-up calls of each method first (untimed), then R rounds; each round calls cublas,
 *    ftla-on, ftla-off in that order. Before every call C is restored from a pristine copy
 *    (untimed; A and B are read-only).
 *  - timing: cudaDeviceSynchronize; t0 = CLOCK_MONOTONIC; call; cudaDeviceSynchronize; t1.
 *  - reported per method: median and min-max of the R timed runs, TFLOP/s = 2mnk / median,
 *    ratio = cublas median / method median, and for ftla the median of report.time_protect.
 *  - checks (untimed, once per size, on the last warm-up results): each ftla result against
 *    cuBLAS's, max|C - C_cublas| / (eps (k |alpha| max|A| max|B| + |beta| max|C0|)) < 10.
 *    Every ftla call (warm-up and timed): status 0 and report.status 0; without --inject
 *    detected == 0; with --inject F: F random exponent-bit flips (bits 52..62) in C planned
 *    before each ftla-on call (ft_inject_add, FT_REGION_C), and injected == F == corrected,
 *    uncorrectable == 0. Any failure prints FAIL and the exit status is 1.
 *  - every CUDA / cuBLAS / ftla setup status is checked (exit 2 with a message); exit 77 when
 *    no CUDA device is usable.
 * The last lines are a machine-readable table, one row per size and method.
 */
#include "bench_cuda.h"

typedef struct {
    int ns[BENCH_MAX_SIZES], nn;
    int m, n, k; /* -m -n -k (all three), else 0 */
    char ta, tb;
    double alpha, beta;
    int runs, warmup, inject, tile, host, pinned, opcheck, tmr, verbose, trace;
    double limit;
    uint64_t seed;
} opts_t;

enum { M_PEER = 0, M_ON = 1, M_OFF = 2, NMETHOD = 3 };

static void usage(const char *p)
{
    fprintf(stderr,
            "usage: %s [-N n[,n...]] [-m M -n N -k K] [--transa N|T] [--transb N|T] [--beta b]\n"
            "          [--alpha a] [--runs R] [--warmup W] [--inject F] [--tile T] [--host]\n"
            "          [--pinned] [--seed S] [--operand-check -1|0|1] [--tmr] [--limit BYTES]\n"
            "          [--verbose V]  (ftla's log level, policy.verbose: 3 prints its timings)\n"
            "          [--trace N]  (after the timed runs, the timeline of N ftla-on calls)\n",
            p);
    exit(2);
}

static char parse_trans(const char *s, const char *opt)
{
    if ((s[0] == 'N' || s[0] == 'n') && !s[1]) return 'N';
    if ((s[0] == 'T' || s[0] == 't' || s[0] == 'C' || s[0] == 'c') && !s[1]) return 'T';
    bench_die("option %s: '%s' is not N or T", opt, s);
    return 'N';
}

static void parse(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->ta = o->tb = 'N';
    o->alpha = 1.0;
    o->runs = BENCH_MIN_PROTOCOL_RUNS;
    o->warmup = 1;
    o->seed = 2024;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--host")) o->host = 1;
        else if (!strcmp(a, "--tmr")) o->tmr = 1;
        else if (!strcmp(a, "--limit") && i + 1 < argc) o->limit = atof(argv[++i]);
        else if (!strcmp(a, "--pinned")) o->pinned = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) usage(argv[0]);
        else if (!v) usage(argv[0]);
        else if (!strcmp(a, "-N")) bench_parse_list(v, a, o->ns, &o->nn, 1, INT_MAX), i++;
        else if (!strcmp(a, "-m")) o->m = bench_parse_int(v, a, 1, INT_MAX), i++;
        else if (!strcmp(a, "-n")) o->n = bench_parse_int(v, a, 1, INT_MAX), i++;
        else if (!strcmp(a, "-k")) o->k = bench_parse_int(v, a, 1, INT_MAX), i++;
        else if (!strcmp(a, "--transa")) o->ta = parse_trans(v, a), i++;
        else if (!strcmp(a, "--transb")) o->tb = parse_trans(v, a), i++;
        else if (!strcmp(a, "--alpha")) o->alpha = bench_parse_double(v, a), i++;
        else if (!strcmp(a, "--beta")) o->beta = bench_parse_double(v, a), i++;
        else if (!strcmp(a, "--runs")) o->runs = bench_parse_int(v, a, 1, 1000), i++;
        else if (!strcmp(a, "--warmup")) o->warmup = bench_parse_int(v, a, 1, 100), i++;
        else if (!strcmp(a, "--inject")) o->inject = bench_parse_int(v, a, 0, 64), i++;
        else if (!strcmp(a, "--tile")) o->tile = bench_parse_int(v, a, 0, INT_MAX), i++;
        else if (!strcmp(a, "--operand-check"))
            o->opcheck = bench_parse_int(v, a, -1, 1), i++;
        else if (!strcmp(a, "--verbose")) o->verbose = bench_parse_int(v, a, 0, 3), i++;
        else if (!strcmp(a, "--trace")) o->trace = bench_parse_int(v, a, 0, 100), i++;
        else if (!strcmp(a, "--seed")) o->seed = (uint64_t)bench_parse_int(v, a, 0, INT_MAX), i++;
        else usage(argv[0]);
    }
    if (o->pinned && !o->host) bench_die("--pinned applies to --host mode only");
    const int nmnk = (o->m > 0) + (o->n > 0) + (o->k > 0);
    if (nmnk != 0 && nmnk != 3) bench_die("give -m, -n and -k together (or -N for square)");
    if (nmnk == 0 && o->nn == 0) o->ns[o->nn++] = 8192, o->ns[o->nn++] = 16384;
}

/* The state of one shape. */
typedef struct {
    const opts_t *o;
    int m, n, k, lda, ldb, ldc;
    size_t szA, szB, szC;
    double *hA, *hB, *hC0, *hC, *hRef, *hOut; /* hC: --host working C */
    double *dA, *dB, *dC0, *dC;
    cudaStream_t stream;
    cublasHandle_t blas;
    ft_context_t *ctx;
    ft_policy_t pol;
    uint64_t rng;
} shape_t;

/* Restore the inputs (untimed), then time one call of `method` (the common bracket). */
static double timed_call(shape_t *s, int method, int nfault, ft_report_t *rep, int *status)
{
    const opts_t *o = s->o;
    const size_t bC = s->szC * sizeof(double);
    if (o->host) memcpy(s->hC, s->hC0, bC);
    else BENCH_CUDA(cudaMemcpyAsync(s->dC, s->dC0, bC, cudaMemcpyDeviceToDevice, s->stream));
    const int devpeer = o->limit > 0 && method == M_OFF; /* cublas-dev: no transfers */
    const int peer = method == M_PEER || (o->tmr && method == M_OFF) || devpeer;
    const int reps = method == M_OFF && o->tmr ? 3 : 1;
    if (!peer) {
        s->pol.protect = method == M_ON ? (o->tmr ? FT_PROTECT_TMR : FT_PROTECT_ABFT) : 0;
        BENCH_FT(ft_context_set_policy(s->ctx, &s->pol));
        BENCH_FT(ft_inject_clear(s->ctx));
        for (int f = 0; f < nfault; f++) {
            ft_fault_t fl = {FT_REGION_C, -1, -1, 52 + (int)(bench_rand(&s->rng) % 11), 0.0, -1,
                             -1};
            BENCH_FT(ft_inject_add(s->ctx, &fl));
        }
    }
    memset(rep, 0, sizeof *rep);
    *status = 0;
    const cublasOperation_t oa = o->ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t ob = o->tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    const double alpha = o->alpha, beta = o->beta;

    bench_sync();
    const double t0 = bench_now();
    if (peer) {
        if (o->host && !devpeer) {
            BENCH_CUDA(cudaMemcpyAsync(s->dA, s->hA, s->szA * sizeof(double),
                                       cudaMemcpyHostToDevice, s->stream));
            BENCH_CUDA(cudaMemcpyAsync(s->dB, s->hB, s->szB * sizeof(double),
                                       cudaMemcpyHostToDevice, s->stream));
            if (beta != 0.0)
                BENCH_CUDA(cudaMemcpyAsync(s->dC, s->hC, bC, cudaMemcpyHostToDevice, s->stream));
        }
        for (int r = 0; r < reps; r++)
            BENCH_CUBLAS(cublasDgemm(s->blas, oa, ob, s->m, s->n, s->k, &alpha, s->dA, s->lda,
                                     s->dB, s->ldb, &beta, s->dC, s->ldc));
        if (o->host && !devpeer)
            BENCH_CUDA(cudaMemcpyAsync(s->hC, s->dC, bC, cudaMemcpyDeviceToHost, s->stream));
    } else if (o->host) {
        *status = ft_dgemm_ex(s->ctx, o->ta, o->tb, s->m, s->n, s->k, alpha, s->hA, s->lda, s->hB,
                              s->ldb, beta, s->hC, s->ldc, rep);
    } else {
        *status = ft_dgemm_gpu_ex(s->ctx, o->ta, o->tb, s->m, s->n, s->k, alpha, s->dA, s->lda,
                                  s->dB, s->ldb, beta, s->dC, s->ldc, rep);
    }
    bench_sync();
    return bench_now() - t0;
}

/* The result of the call just made, as a host pointer. */
static const double *result(shape_t *s, double *into)
{
    if (s->o->host) return s->hC;
    BENCH_CUDA(cudaMemcpy(into, s->dC, s->szC * sizeof(double), cudaMemcpyDeviceToHost));
    return into;
}

static void run_shape(const opts_t *o, int m, int n, int k, cudaStream_t stream,
                      cublasHandle_t blas, ft_context_t *ctx, const ft_policy_t *pol0)
{
    shape_t s = {.o = o, .m = m, .n = n, .k = k, .stream = stream, .blas = blas, .ctx = ctx,
                 .pol = *pol0};
    s.rng = o->seed * 7919u + (uint64_t)m * 31u + (uint64_t)n * 17u + (uint64_t)k;
    s.lda = o->ta == 'N' ? m : k;
    s.ldb = o->tb == 'N' ? k : n;
    s.ldc = m;
    s.szA = (size_t)s.lda * (size_t)(o->ta == 'N' ? k : m);
    s.szB = (size_t)s.ldb * (size_t)(o->tb == 'N' ? n : k);
    s.szC = (size_t)m * (size_t)n;
    const int pin = o->host && o->pinned;
    s.hA = bench_hmalloc(s.szA * sizeof(double), pin, "A");
    s.hB = bench_hmalloc(s.szB * sizeof(double), pin, "B");
    s.hC0 = bench_malloc(s.szC * sizeof(double));
    s.hRef = bench_malloc(s.szC * sizeof(double));
    bench_fill(s.hA, s.szA, o->seed + 1);
    bench_fill(s.hB, s.szB, o->seed + 2);
    bench_fill(s.hC0, s.szC, o->seed + 3);
    const double maxA = bench_absmax(s.hA, s.szA), maxB = bench_absmax(s.hB, s.szB);
    const double maxC = bench_absmax(s.hC0, s.szC);
    s.dA = bench_dmalloc(s.szA * sizeof(double), "A");
    s.dB = bench_dmalloc(s.szB * sizeof(double), "B");
    s.dC = bench_dmalloc(s.szC * sizeof(double), "C");
    if (o->host) {
        s.hC = bench_hmalloc(s.szC * sizeof(double), pin, "C");
    } else {
        s.hOut = bench_malloc(s.szC * sizeof(double));
        s.dC0 = bench_dmalloc(s.szC * sizeof(double), "C0");
        BENCH_CUDA(cudaMemcpy(s.dA, s.hA, s.szA * sizeof(double), cudaMemcpyHostToDevice));
        BENCH_CUDA(cudaMemcpy(s.dB, s.hB, s.szB * sizeof(double), cudaMemcpyHostToDevice));
        BENCH_CUDA(cudaMemcpy(s.dC0, s.hC0, s.szC * sizeof(double), cudaMemcpyHostToDevice));
    }

    static bench_series_t ser[NMETHOD];
    bench_series_init(&ser[M_PEER], "cublas", 0);
    bench_series_init(&ser[M_ON], o->tmr ? "ftla-tmr" : "ftla-on", 1);
    bench_series_init(&ser[M_OFF], o->tmr ? "cublas-x3" : o->limit > 0 ? "cublas-dev" : "ftla-off",
                      !o->tmr && !(o->limit > 0));
    double err[NMETHOD] = {0, 0, 0};
    const double scale =
        DBL_EPSILON * ((double)k * fabs(o->alpha) * maxA * maxB + fabs(o->beta) * maxC) +
        DBL_MIN;

    for (int round = 0; round < o->warmup + o->runs; round++) {
        const int timed = round >= o->warmup, last_warm = round == o->warmup - 1;
        for (int meth = 0; meth < NMETHOD; meth++) {
            ft_report_t rep;
            int st;
            const int nf = meth == M_ON ? o->inject : 0;
            double t = timed_call(&s, meth, nf, &rep, &st);
            bench_series_t *se = &ser[meth];
            const int is_peer = meth == M_PEER || ((o->tmr || o->limit > 0) && meth == M_OFF);
            if (!is_peer) {
                char what[64];
                snprintf(what, sizeof what, "%s call %d", timed ? "timed" : "warm-up",
                         timed ? round - o->warmup : round);
                bench_check_report(se, &rep, st, nf, timed, what);
                if (rep.backend != FT_DEVICE_CUDA) {
                    printf("%% FAIL: %s ran on backend %d, not CUDA\n", se->name,
                           (int)rep.backend);
                    se->bad_calls++;
                }
            }
            if (timed) {
                se->t[se->n] = t;
                se->prot[se->n++] = rep.time_protect;
            }
            if (last_warm) { /* untimed result checks, once per size */
                if (meth == M_PEER) {
                    const double *c = result(&s, s.hRef);
                    if (c != s.hRef) memcpy(s.hRef, c, s.szC * sizeof(double));
                } else if (!is_peer) {
                    const double *c = result(&s, s.hOut);
                    err[meth] = bench_maxdiff(m, n, c, s.hRef, m) / scale;
                }
            }
        }
    }

    char param[24];
    snprintf(param, sizeof param, "%c%c/b=%g", o->ta, o->tb, o->beta);
    const double flops = 2.0 * m * (double)n * k;
    printf("\n%% dgemm %s m=%d n=%d k=%d %c%c alpha=%g beta=%g tile=%d faults/call=%d "
           "runs=%d warm-up=%d\n",
           o->host ? "host pointers (cuBLAS incl. copies)" : "device pointers", m, n, k, o->ta,
           o->tb, o->alpha, o->beta, o->tile, o->inject, o->runs, o->warmup);
    printf("%% check: max|C - C_cublas| / (eps (k|alpha| max|A| max|B| + |beta| max|C0|)): "
           "ftla-on %.3g, ftla-off %.3g (limit %g)\n",
           err[M_ON], err[M_OFF], BENCH_DGEMM_TOL);
    if (ser[M_ON].unchecked || ser[M_OFF].unchecked)
        printf("%% note: report.unchecked > 0 (checks skipped) in timed ftla calls\n");
    if (o->inject)
        printf("%% faults over the timed ftla-on calls: injected %lld, detected %lld, corrected "
               "%lld, uncorrectable %lld\n",
               (long long)ser[M_ON].injected, (long long)ser[M_ON].detected,
               (long long)ser[M_ON].corrected, (long long)ser[M_ON].uncorrectable);
    bench_print_human_header("TFLOP/s", "cublas/x", NULL);
    for (int meth = 0; meth < NMETHOD; meth++) {
        int ok = ser[meth].bad_calls == 0 &&
                 (meth == M_PEER || ((o->tmr || o->limit > 0) && meth == M_OFF) ||
                  err[meth] < BENCH_DGEMM_TOL);
        bench_row_t *r = bench_add_row("dgemm", o->host ? "host" : "dev", m, n, k, param,
                                       &ser[meth], flops, &ser[M_PEER], NULL, o->inject, ok);
        bench_print_row_human(r, 1e12);
    }
    if (o->trace > 0) { /* the timeline of ftla-on calls after the timed ones (not timed) */
        ft_span_t *sp = malloc(256 * sizeof *sp);
        ft_trace_t tr = {.spans = sp, .capacity = sp ? 256 : 0};
        for (int c = 0; c < o->trace && sp; c++) {
            ft_report_t rep;
            int st;
            BENCH_FT(ft_context_set_trace(ctx, &tr));
            timed_call(&s, M_ON, o->inject, &rep, &st);
            BENCH_FT(ft_context_set_trace(ctx, NULL));
            printf("%% timeline of an ftla-on call (%d of %d): %.1f us in the call, %lld spans"
                   "%s\n%%   lane   phase        start_us   end_us    dur_us\n",
                   c + 1, o->trace, 1e6 * tr.total, (long long)tr.count,
                   tr.dropped ? " (some dropped)" : "");
            for (int64_t i = 0; i < tr.count; i++)
                printf("%%   %-6s %-10s %9.1f %9.1f %9.1f\n", ft_lane_name(sp[i].lane),
                       ft_phase_name(sp[i].phase), 1e6 * sp[i].t0, 1e6 * sp[i].t1,
                       1e6 * (sp[i].t1 - sp[i].t0));
        }
        free(sp);
    }
    fflush(stdout);

    bench_hfree(s.hA, pin);
    bench_hfree(s.hB, pin);
    bench_hfree(s.hC, pin);
    free(s.hC0);
    free(s.hRef);
    free(s.hOut);
    BENCH_CUDA(cudaFree(s.dA));
    BENCH_CUDA(cudaFree(s.dB));
    BENCH_CUDA(cudaFree(s.dC));
    if (s.dC0) BENCH_CUDA(cudaFree(s.dC0));
}

int main(int argc, char **argv)
{
    opts_t o;
    parse(argc, argv, &o);
    printf("%% bench_dgemm_gpu: ft_dgemm (ABFT) vs cuBLAS DGEMM\n");
    bench_cuda_probe_or_skip("bench_dgemm_gpu");
    bench_print_env(o.runs, o.warmup);
    int cublas_ver = 0;

    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreate(&stream));
    cublasHandle_t blas;
    BENCH_CUBLAS(cublasCreate(&blas));
    BENCH_CUBLAS(cublasSetStream(blas, stream));
    BENCH_CUBLAS(cublasGetVersion(blas, &cublas_ver));
    ft_context_t *ctx = NULL;
    BENCH_FT(ft_context_create(&ctx, FT_DEVICE_CUDA));
    BENCH_FT(ft_context_set_stream(ctx, (void *)stream));
    BENCH_FT(ft_inject_seed(ctx, o.seed));
    ft_policy_t pol;
    BENCH_FT(ft_context_get_policy(ctx, &pol));
    pol.tile = o.tile;
    pol.operand_check = o.opcheck;
    pol.gpu_memory = o.limit;
    pol.verbose = o.verbose;
    BENCH_FT(ft_context_set_policy(ctx, &pol));

    printf("%% cuBLAS %d; peer: cublasDgemm, default math mode, handle on the same stream as "
           "ftla's context\n", cublas_ver);
    printf("%% protocol: %s\n",
           o.host ? "HOST pointers: ft_dgemm_ex vs cuBLAS including H2D of A, B (and C when "
                    "beta != 0) and D2H of C, same host buffers"
                  : "DEVICE pointers: ft_dgemm_gpu_ex vs cublasDgemm on the same device data "
                    "and stream");
    if (o.host)
        printf("%% host buffers: %s (the same for ftla and cuBLAS)\n",
               o.pinned ? "pinned (cudaMallocHost)" : "pageable (malloc)");
    printf("%% protocol: warm-up calls of every method first (untimed); then rounds of "
           "cublas, ftla-on, ftla-off;\n%%   C restored from a pristine copy before every call "
           "(untimed); time = host CLOCK_MONOTONIC\n%%   between cudaDeviceSynchronize before "
           "and after the call; median, min-max; TFLOP/s = 2mnk/median;\n%%   ratio = cublas "
           "median / method median; protect = median report.time_protect;\n%%   checks "
           "(untimed, last warm-up call): ftla C vs cuBLAS C, report status 0, detected 0\n"
           "%%   (with --inject F: injected = corrected = F per call)\n");

    if (o.m > 0) run_shape(&o, o.m, o.n, o.k, stream, blas, ctx, &pol);
    for (int i = 0; i < o.nn; i++)
        run_shape(&o, o.ns[i], o.ns[i], o.ns[i], stream, blas, ctx, &pol);

    BENCH_FT(ft_context_destroy(ctx));
    BENCH_CUBLAS(cublasDestroy(blas));
    BENCH_CUDA(cudaStreamDestroy(stream));
    bench_print_table("TFLOP/s", 1e12);
    return bench_finish();
}
