/*
 * bench_recovery.h — the driver shared by bench_recovery_cpu and bench_recovery_gpu: the cost
 * of recovering one error consumed by later panels in ft_dgeqrf (issue 8; docs/recovery.md),
 * n x n, three cases:
 *   none      no fault (the keep-input copy of A is taken, as in every protected call);
 *   update    one fault in the trailing matrix at step np/4, column (np/4 + 1) nb + 1, found at
 *             the final check and recovered by QR update (an FT factor attached);
 *   refactor  the same fault, recovered by re-factorization (no factor: LAPACK layout);
 *   noop      a "fault" that adds 0.0 at the same place and step: nothing changes and nothing is
 *             found, but the call pays what injecting costs (the loop drains its queues at
 *             that step and waits for the copy of A), so update / noop is the recovery's own
 *             cost and noop / none the injection's.
 * Protocol (bench/NOTES.md): one warm-up of each, then R rounds with the three alternated; the
 * input restored from a pristine copy before each call (not timed); a call is timed from before
 * it to its return (it returns when the factorization is verified); median, min-max; ratio =
 * median / median(none). Every timed call must return 0, and the faulted ones must report one
 * recovered error, else the program fails. What differs per backend (where A lives, which
 * entry point) comes in bench_recovery_ops_t.
 */
#ifndef FTLA_BENCH_RECOVERY_H
#define FTLA_BENCH_RECOVERY_H

#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    /* state for one size from the host matrix h (n x n); restore() puts h back before a call */
    void *(*setup)(ft_context_t *ctx, int64_t n, const double *h);
    void (*restore)(void *st);
    int (*call)(void *st, ft_context_t *ctx, ft_int *info, ft_report_t *rep);
    void (*teardown)(void *st);
} bench_recovery_ops_t;

static inline int bench_recovery_main(int argc, char **argv, const char *name, const char *what,
                                      ft_device_t dev, const int *defaults, int ndefaults,
                                      const bench_recovery_ops_t *ops)
{
    int sizes[BENCH_MAX_SIZES], ns = ndefaults, R = 7, nb = 0, prof = 0;
    memcpy(sizes, defaults, (size_t)ndefaults * sizeof(int));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            ns = 0; /* the list replaces the defaults (bench_parse_list appends) */
            bench_parse_list(argv[++i], "--sizes", sizes, &ns, 64, 1 << 17);
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            R = bench_parse_int(argv[++i], "--rounds", 1, 100);
        else if (!strcmp(argv[i], "--nb") && i + 1 < argc)
            nb = bench_parse_int(argv[++i], "--nb", 0, 1024);
        else if (!strcmp(argv[i], "--profile")) /* phase logs (synced: not for the timings) */
            prof = 1;
        else bench_die("usage: %s [--sizes a,b] [--rounds R] [--nb NB] [--profile]", name);
    }
    ft_context_t *ctx;
    if (ft_context_create(&ctx, dev)) bench_die("%s: no context", name);
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = nb;
    p.crossover = -1;
    if (prof) p.verbose = 1;
    ft_context_set_policy(ctx, &p);
    ft_qrf_t *F;
    if (ft_qrf_create(&F)) bench_die("ft_qrf_create");
    printf("%% %s: %s, %d rounds alternated\n", name, what, R);
    printf("%% %6s %-9s %10s %10s %10s %7s %9s %10s\n", "n", "case", "median_s", "min_s", "max_s",
           "ratio", "recov_s", "refac_col");
    for (int s = 0; s < ns; s++) {
        const int64_t n = sizes[s];
        double *h = bench_malloc((size_t)n * (size_t)n * sizeof(double));
        bench_fill(h, (size_t)n * (size_t)n, 7 + (uint64_t)n);
        void *st = ops->setup(ctx, n, h);
        /* the block size the call will use (with nb = 0 the performance model's choice: 256
         * with the panels on the device at these sizes), so that the fault lands at a quarter
         * of the steps and in a column that later panels consume */
        int64_t nbe = nb;
        if (nbe <= 0) {
            ft_qr_model_t mo;
            if (ft_dgeqrf_model(ctx, (ft_int)n, (ft_int)n, dev == FT_DEVICE_CUDA, &mo) || mo.nb < 1)
                bench_die("n=%lld: ft_dgeqrf_model gave no block size", (long long)n);
            nbe = mo.nb;
        }
        const int64_t np = (n + nbe - 1) / nbe;
        const int64_t step = np / 4, col = (step + 1) * nbe + 1;
        double *t[4];
        double rec[4] = {0, 0, 0, 0};
        int64_t rcol[4] = {-1, -1, -1, -1};
        for (int c = 0; c < 4; c++) t[c] = bench_malloc((size_t)R * sizeof(double));
        for (int r = -1; r < R; r++)
            for (int c = 0; c < 4; c++) {
                ops->restore(st);
                ft_inject_clear(ctx);
                if (c > 0) {
                    ft_fault_t f = {.region = FT_REGION_TRAILING, .row = n - 1, .col = col,
                                    .bit = -1, .value = c == 3 ? 0.0 : 1.0, .call = -1,
                                    .step = step};
                    if (ft_inject_add(ctx, &f)) bench_die("ft_inject_add");
                }
                ft_context_set_qrf(ctx, c == 1 ? F : NULL);
                ft_report_t rep;
                ft_int info;
                const double t0 = bench_now();
                const int rc = ops->call(st, ctx, &info, &rep);
                const double dt = bench_now() - t0;
                if (rc) bench_die("n=%lld case %d: status %d (%s)", (long long)n, c, rc,
                                  ft_strerror(rc));
                if (c == 3 && (rep.detected != 0 || rep.recovered != 0))
                    bench_die("n=%lld noop: detected %lld", (long long)n, (long long)rep.detected);
                if ((c == 1 || c == 2) && (rep.recovered != 1 || rep.recovery != c))
                    bench_die("n=%lld case %d: recovered %lld recovery %d", (long long)n, c,
                              (long long)rep.recovered, rep.recovery);
                if (r >= 0) {
                    t[c][r] = dt;
                    rec[c] += rep.time_recovery / R;
                    rcol[c] = rep.refactor_col;
                }
            }
        ft_context_set_qrf(ctx, NULL);
        static const char *cn[4] = {"none", "update", "refactor", "noop"};
        const bench_stats_t b0 = bench_stats(t[0], R);
        for (int c = 0; c < 4; c++) {
            const bench_stats_t b = bench_stats(t[c], R);
            printf("  %6lld %-9s %10.4f %10.4f %10.4f %7.4f %9.4f %10lld\n", (long long)n, cn[c],
                   b.med, b.min, b.max, b.med / b0.med, rec[c], (long long)rcol[c]);
        }
        {
            const bench_stats_t bu = bench_stats(t[1], R), bz = bench_stats(t[3], R);
            printf("  %6lld update/noop %.4f (the recovery's own cost; noop/none %.4f: what "
                   "injecting costs)\n", (long long)n, bu.med / bz.med, bz.med / b0.med);
        }
        for (int c = 0; c < 4; c++) free(t[c]);
        fflush(stdout);
        ops->teardown(st);
        free(h);
    }
    ft_qrf_destroy(F);
    ft_context_destroy(ctx);
    return 0;
}

#endif
