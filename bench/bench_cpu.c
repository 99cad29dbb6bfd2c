/*
 * bench_cpu — ftla's CPU backend against the host BLAS/LAPACK (OpenBLAS), measured under one
 * protocol.
 *
 *   bench_cpu [-N n[,n...]] [--beta b[,b...]] [--nb NB] [--runs R] [--warmup W]
 *             [--ops dgemm|dgeqrf|all] [--seed S]
 *
 * Defaults: -N 2048, betas 0 and 1, nb = ftla's automatic rule, 7 timed runs, 1 warm-up, both
 * operations. The context is ft_context_create(&ctx, FT_DEVICE_CPU).
 *
 * dgemm (square NN, alpha 1): openblas = cblas_dgemm; ftla-on = ft_dgemm_ex (policy.protect 1);
 *   ftla-off = ft_dgemm_ex with policy.protect 0. Same host arrays for all; ratio = openblas
 *   median / method median.
 * dgeqrf (square, or m x n with -M m): lapacke = LAPACKE_dgeqrf_work with LAPACK's default block size (workspace
 *   from the query, allocated once); blocked = a plain blocked Householder QR written here with
 *   ftla's block size nb (for each panel: the m-i x ib panel by LAPACKE_dgeqr2_work when ib <= 16
 *   else LAPACKE_dgeqrf_work, as ftla's host panel does; LAPACKE_dlarft_work('F','C');
 *   LAPACKE_dlarfb_work('L','T','F','C') on the trailing columns); ftla-on / ftla-off =
 *   ft_dgeqrf_ex (workspace from its query). nb: --nb, else ftla's automatic rule (32 for
 *   n < 1024, else 64; capped at min(m,n)); it is ALWAYS passed to ftla through policy.nb, so
 *   ftla and `blocked` use the same nb whatever the library's own default. ratio = lapacke
 *   median / method median, ratio_peer2 = blocked median / method median.
 *
 * Protocol (printed in the output header too):
 *  - W warm-up calls of each method first (untimed), then R rounds, each calling the methods in
 *    the order listed above; the in/out array (C, or A) is restored from a pristine copy before
 *    every call (untimed).
 *  - timing: CLOCK_MONOTONIC around the call (everything is synchronous on the host).
 *  - reported: median and min-max of the R timed runs, GFLOP/s from the median (dgemm 2n^3,
 *    QR LAPACK's count, LAWN 41), ratios as above, and for ftla the median report.time_protect.
 *  - checks: every ftla call: status 0, report.status 0, detected 0 (no faults are injected);
 *    once per size (untimed, on the last warm-up results): dgemm C vs OpenBLAS's,
 *    max|dC| / (eps (k max|A| max|B| + |beta| max|C0|)) < 10; QR: for every method the
 *    column-norm residual max_j | ||R(:,j)|| - ||A(:,j)|| | / (m u ||A(:,j)||) < 10 and
 *    max_i | |R_ii| - |R_ii|_lapacke | / max_i |R_ii| < 1e-6. Any failure: FAIL, exit status 1.
 * The last lines are a machine-readable table, one row per size and method.
 */
#include "bench_common.h"

#include <lapacke.h>

typedef struct {
    int ns[BENCH_MAX_SIZES], nn;
    int m; /* dgeqrf rows (-M; 0: square) */
    double betas[8];
    int nbeta;
    int nb, runs, warmup, do_gemm, do_qr;
    uint64_t seed;
} opts_t;

static void usage(const char *p)
{
    fprintf(stderr,
            "usage: %s [-N n[,n...]] [-M m] [--beta b[,b...]] [--nb NB] [--runs R] [--warmup W]\n"
            "          [--ops dgemm|dgeqrf|all] [--seed S]\n",
            p);
    exit(2);
}

static void parse(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->runs = BENCH_MIN_PROTOCOL_RUNS;
    o->warmup = 1;
    o->seed = 2024;
    o->do_gemm = o->do_qr = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || !v) usage(argv[0]);
        else if (!strcmp(a, "-N")) bench_parse_list(v, a, o->ns, &o->nn, 1, INT_MAX), i++;
        else if (!strcmp(a, "-M")) o->m = bench_parse_int(v, a, 1, INT_MAX), i++;
        else if (!strcmp(a, "--nb")) o->nb = bench_parse_int(v, a, 1, 4096), i++;
        else if (!strcmp(a, "--runs")) o->runs = bench_parse_int(v, a, 1, 1000), i++;
        else if (!strcmp(a, "--warmup")) o->warmup = bench_parse_int(v, a, 1, 100), i++;
        else if (!strcmp(a, "--seed")) o->seed = (uint64_t)bench_parse_int(v, a, 0, INT_MAX), i++;
        else if (!strcmp(a, "--ops")) {
            o->do_gemm = !strcmp(v, "dgemm") || !strcmp(v, "all");
            o->do_qr = !strcmp(v, "dgeqrf") || !strcmp(v, "all");
            if (!o->do_gemm && !o->do_qr) bench_die("--ops: dgemm, dgeqrf or all");
            i++;
        } else if (!strcmp(a, "--beta")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            o->nbeta = 0;
            for (char *sv = NULL, *t = strtok_r(buf, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
                if (o->nbeta >= 8) bench_die("--beta: at most 8 values");
                o->betas[o->nbeta++] = bench_parse_double(t, a);
            }
            i++;
        } else usage(argv[0]);
    }
    if (o->nn == 0) o->ns[o->nn++] = 2048;
    if (o->nbeta == 0) o->betas[o->nbeta++] = 0.0, o->betas[o->nbeta++] = 1.0;
}

static void set_protect(ft_context_t *ctx, ft_policy_t *pol, int on)
{
    pol->protect = on;
    BENCH_FT(ft_context_set_policy(ctx, pol));
    BENCH_FT(ft_inject_clear(ctx));
}

/* ---- dgemm --------------------------------------------------------------------------------- */

enum { G_PEER = 0, G_ON = 1, G_OFF = 2, NG = 3 };

static void bench_gemm(const opts_t *o, int n, double beta, ft_context_t *ctx, ft_policy_t *pol)
{
    const size_t sz = (size_t)n * n;
    const double alpha = 1.0;
    double *A = bench_malloc(sz * sizeof(double)), *B = bench_malloc(sz * sizeof(double));
    double *C0 = bench_malloc(sz * sizeof(double)), *C = bench_malloc(sz * sizeof(double));
    double *Ref = bench_malloc(sz * sizeof(double));
    bench_fill(A, sz, o->seed + 1);
    bench_fill(B, sz, o->seed + 2);
    bench_fill(C0, sz, o->seed + 3);
    const double scale =
        DBL_EPSILON * ((double)n * fabs(alpha) * bench_absmax(A, sz) * bench_absmax(B, sz) +
                       fabs(beta) * bench_absmax(C0, sz)) +
        DBL_MIN;

    static bench_series_t ser[NG];
    bench_series_init(&ser[G_PEER], "openblas", 0);
    bench_series_init(&ser[G_ON], "ftla-on", 1);
    bench_series_init(&ser[G_OFF], "ftla-off", 1);
    double err[NG] = {0, 0, 0};
    for (int round = 0; round < o->warmup + o->runs; round++) {
        const int timed = round >= o->warmup, last_warm = round == o->warmup - 1;
        for (int meth = 0; meth < NG; meth++) {
            ft_report_t rep;
            memset(&rep, 0, sizeof rep);
            int st = 0;
            memcpy(C, C0, sz * sizeof(double));
            if (meth != G_PEER) set_protect(ctx, pol, meth == G_ON);
            const double t0 = bench_now();
            if (meth == G_PEER)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, alpha, A, n, B, n,
                            beta, C, n);
            else
                st = ft_dgemm_ex(ctx, 'N', 'N', n, n, n, alpha, A, n, B, n, beta, C, n, &rep);
            const double t = bench_now() - t0;
            bench_series_t *se = &ser[meth];
            if (meth != G_PEER) {
                char what[64];
                snprintf(what, sizeof what, "%s call %d", timed ? "timed" : "warm-up",
                         timed ? round - o->warmup : round);
                bench_check_report(se, &rep, st, 0, timed, what);
            }
            if (timed) {
                se->t[se->n] = t;
                se->prot[se->n++] = rep.time_protect;
            }
            if (last_warm) {
                if (meth == G_PEER) memcpy(Ref, C, sz * sizeof(double));
                else err[meth] = bench_maxdiff(n, n, C, Ref, n) / scale;
            }
        }
    }
    char param[24];
    snprintf(param, sizeof param, "NN/b=%g", beta);
    printf("\n%% dgemm cpu n=%d NN alpha=%g beta=%g runs=%d warm-up=%d\n", n, alpha, beta,
           o->runs, o->warmup);
    printf("%% check: max|C - C_openblas| / (eps (k max|A| max|B| + |beta| max|C0|)): ftla-on "
           "%.3g, ftla-off %.3g (limit %g)\n", err[G_ON], err[G_OFF], BENCH_DGEMM_TOL);
    bench_print_human_header("GFLOP/s", "oblas/x", NULL);
    for (int meth = 0; meth < NG; meth++) {
        int ok = ser[meth].bad_calls == 0 && (meth == G_PEER || err[meth] < BENCH_DGEMM_TOL);
        bench_row_t *r = bench_add_row("dgemm", "cpu", n, n, n, param, &ser[meth],
                                       2.0 * n * (double)n * n, &ser[G_PEER], NULL, 0, ok);
        bench_print_row_human(r, 1e9);
    }
    fflush(stdout);
    free(A), free(B), free(C0), free(C), free(Ref);
}

/* ---- dgeqrf -------------------------------------------------------------------------------- */

/* Plain blocked Householder QR (LAPACK's dgeqrf structure, no look-ahead), block size nb.
 * work: at least n*nb doubles; T: nb*nb. Returns the first non-zero LAPACKE info, else 0. */
static int blocked_qr(int m, int n, int nb, double *A, int lda, double *tau, double *T,
                      double *work, int lwork)
{
    const int k = m < n ? m : n;
    for (int i = 0; i < k; i += nb) {
        const int ib = k - i < nb ? k - i : nb;
        double *Aii = A + i + (size_t)i * lda;
        lapack_int info =
            ib <= 16 ? LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, m - i, ib, Aii, lda, tau + i, work)
                     : LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m - i, ib, Aii, lda, tau + i, work,
                                           lwork);
        if (info) return (int)info;
        if (i + ib < n) {
            info = LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', m - i, ib, Aii, lda, tau + i,
                                       T, nb);
            if (info) return (int)info;
            info = LAPACKE_dlarfb_work(LAPACK_COL_MAJOR, 'L', 'T', 'F', 'C', m - i, n - i - ib,
                                       ib, Aii, lda, T, nb, A + i + (size_t)(i + ib) * lda, lda,
                                       work, n);
            if (info) return (int)info;
        }
    }
    return 0;
}

enum { Q_LAPACKE = 0, Q_BLOCKED = 1, Q_ON = 2, Q_OFF = 3, NQ = 4 };

static void bench_qr(const opts_t *o, int n, ft_context_t *ctx, ft_policy_t *pol)
{
    const int m = o->m ? o->m : n, k = m < n ? m : n;
    const size_t sz = (size_t)m * n;
    /* ftla's block size: --nb, else its automatic rule; always handed to ftla explicitly */
    int nb = o->nb ? o->nb : (n < 1024 ? 32 : 64);
    if (nb > k) nb = k;
    pol->nb = nb;
    BENCH_FT(ft_context_set_policy(ctx, pol));

    double *A0 = bench_malloc(sz * sizeof(double)), *A = bench_malloc(sz * sizeof(double));
    double *tau = bench_malloc((size_t)k * sizeof(double));
    double *anrm = bench_malloc((size_t)n * sizeof(double));
    double *diag[NQ];
    for (int i = 0; i < NQ; i++) diag[i] = bench_malloc((size_t)k * sizeof(double));
    bench_fill(A0, sz, o->seed + (uint64_t)n);
    bench_colnorms(m, n, A0, m, anrm);

    /* workspaces, all allocated once outside the timed region */
    double wq = 0.0;
    lapack_int linfo = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, A, m, tau, &wq, -1);
    if (linfo) bench_die("LAPACKE_dgeqrf_work workspace query: info %d", (int)linfo);
    const int lw_lapack = wq > n ? (int)wq : n;
    double *w_lapack = bench_malloc((size_t)lw_lapack * sizeof(double));
    const int lw_blk = n * nb;
    double *w_blk = bench_malloc((size_t)lw_blk * sizeof(double));
    double *T = bench_malloc((size_t)nb * nb * sizeof(double));
    ft_int finfo = 0;
    BENCH_FT(ft_dgeqrf_ex(ctx, m, n, A, m, tau, &wq, -1, &finfo, NULL));
    const int lw_ft = wq > n ? (int)wq : n;
    double *w_ft = bench_malloc((size_t)lw_ft * sizeof(double));

    static bench_series_t ser[NQ];
    bench_series_init(&ser[Q_LAPACKE], "lapacke", 0);
    bench_series_init(&ser[Q_BLOCKED], "blocked", 0);
    bench_series_init(&ser[Q_ON], "ftla-on", 1);
    bench_series_init(&ser[Q_OFF], "ftla-off", 1);
    double nerr[NQ] = {0}, derr[NQ] = {0};
    for (int round = 0; round < o->warmup + o->runs; round++) {
        const int timed = round >= o->warmup, last_warm = round == o->warmup - 1;
        for (int meth = 0; meth < NQ; meth++) {
            ft_report_t rep;
            memset(&rep, 0, sizeof rep);
            int st = 0;
            finfo = 0;
            memcpy(A, A0, sz * sizeof(double));
            if (meth >= Q_ON) set_protect(ctx, pol, meth == Q_ON);
            const double t0 = bench_now();
            if (meth == Q_LAPACKE)
                st = (int)LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, A, m, tau, w_lapack,
                                              lw_lapack);
            else if (meth == Q_BLOCKED)
                st = blocked_qr(m, n, nb, A, m, tau, T, w_blk, lw_blk);
            else
                st = ft_dgeqrf_ex(ctx, m, n, A, m, tau, w_ft, lw_ft, &finfo, &rep);
            const double t = bench_now() - t0;
            bench_series_t *se = &ser[meth];
            char what[64];
            snprintf(what, sizeof what, "%s call %d", timed ? "timed" : "warm-up",
                     timed ? round - o->warmup : round);
            if (meth < Q_ON) {
                if (st) {
                    printf("%% FAIL: %s %s: LAPACKE info %d\n", se->name, what, st);
                    se->bad_calls++;
                }
            } else {
                bench_check_report(se, &rep, st, 0, timed, what);
                if (finfo != 0) {
                    printf("%% FAIL: %s %s: info %d\n", se->name, what, (int)finfo);
                    se->bad_calls++;
                }
            }
            if (timed) {
                se->t[se->n] = t;
                se->prot[se->n++] = rep.time_protect;
            }
            if (last_warm) {
                nerr[meth] = bench_qr_colnorm_err(m, n, A, m, anrm, diag[meth]);
                if (meth != Q_LAPACKE) derr[meth] = bench_diag_err(k, diag[meth], diag[Q_LAPACKE]);
            }
        }
    }
    char param[24];
    snprintf(param, sizeof param, "nb=%d", nb);
    printf("\n%% dgeqrf cpu m=%d n=%d nb=%d (ftla and blocked; %s) runs=%d warm-up=%d\n", m, n,
           nb, o->nb ? "--nb" : "ftla's automatic rule, set through policy.nb", o->runs,
           o->warmup);
    printf("%% check: colnorm residual (limit %g): lapacke %.3g, blocked %.3g, ftla-on %.3g, "
           "ftla-off %.3g;\n%%        |R_ii| vs lapacke (limit %g): blocked %.3g, ftla-on %.3g, "
           "ftla-off %.3g\n",
           BENCH_QR_NORM_TOL, nerr[Q_LAPACKE], nerr[Q_BLOCKED], nerr[Q_ON], nerr[Q_OFF],
           BENCH_QR_DIAG_TOL, derr[Q_BLOCKED], derr[Q_ON], derr[Q_OFF]);
    bench_print_human_header("GFLOP/s", "lapacke/x", "blocked/x");
    const double flops = bench_qr_flops(m, n);
    for (int meth = 0; meth < NQ; meth++) {
        int ok = ser[meth].bad_calls == 0 && nerr[meth] < BENCH_QR_NORM_TOL &&
                 (meth == Q_LAPACKE || derr[meth] < BENCH_QR_DIAG_TOL);
        bench_row_t *r = bench_add_row("dgeqrf", "cpu", m, n, k, param, &ser[meth], flops,
                                       &ser[Q_LAPACKE], &ser[Q_BLOCKED], 0, ok);
        bench_print_row_human(r, 1e9);
    }
    fflush(stdout);
    pol->nb = 0;
    BENCH_FT(ft_context_set_policy(ctx, pol));
    free(A0), free(A), free(tau), free(anrm), free(w_lapack), free(w_blk), free(T), free(w_ft);
    for (int i = 0; i < NQ; i++) free(diag[i]);
}

int main(int argc, char **argv)
{
    opts_t o;
    parse(argc, argv, &o);
    printf("%% bench_cpu: ftla CPU backend vs OpenBLAS (cblas_dgemm) and LAPACK (dgeqrf)\n");
    bench_print_env(o.runs, o.warmup);
    ft_context_t *ctx = NULL;
    BENCH_FT(ft_context_create(&ctx, FT_DEVICE_CPU));
    ft_policy_t pol;
    BENCH_FT(ft_context_get_policy(ctx, &pol));
    printf("%% context: FT_DEVICE_CPU; policy defaults (tile %d = auto, backup_c %d, crossover %d)"
           "\n", pol.tile, pol.backup_c, pol.crossover);
    printf("%% protocol: host pointers on both sides, the same arrays; warm-up calls of every "
           "method first (untimed);\n%%   then rounds calling the methods in table order; the "
           "in/out array restored from a pristine copy\n%%   before every call (untimed); time = "
           "CLOCK_MONOTONIC around the call; median, min-max;\n%%   ratio = peer median / "
           "method median (dgemm: openblas; QR: lapacke, and blocked with ftla's nb);\n%%   "
           "protect = median report.time_protect; checks: ftla status 0 and detected 0 on every "
           "call;\n%%   untimed, last warm-up: dgemm vs OpenBLAS's C, QR column-norm residual "
           "and |R_ii| vs LAPACKE\n");
    for (int i = 0; i < o.nn; i++) {
        if (o.do_gemm)
            for (int b = 0; b < o.nbeta; b++) bench_gemm(&o, o.ns[i], o.betas[b], ctx, &pol);
        if (o.do_qr) bench_qr(&o, o.ns[i], ctx, &pol);
    }
    BENCH_FT(ft_context_destroy(ctx));
    bench_print_table("GFLOP/s", 1e9);
    return bench_finish();
}
