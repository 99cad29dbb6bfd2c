/*
 * bench_recovery_cpu — the cost of recovering one error consumed by later panels in
 * ft_dgeqrf_ex on the CPU backend (issue 8; docs/recovery.md), host pointers, n x n; the same
 * cases and protocol as bench_recovery_gpu:
 *   none      no fault (the keep-input copy of A is taken, as in every protected call);
 *   update    one fault in the trailing matrix at step np/4, column (np/4 + 1) nb + 1, found at
 *             the final check and recovered by QR update (an FT factor attached);
 *   refactor  the same fault, recovered by re-factorization (no factor: LAPACK layout).
 * Protocol (bench/NOTES.md): one warm-up of each, then R rounds with the three alternated; the
 * input restored from a pristine copy before each call (not timed); a call is timed from before
 * it to its return (it returns when the factorization is verified); median, min-max; ratio =
 * median / median(none). Every timed call must return 0, and the faulted ones must report one
 * recovered error, else the program fails.
 *
 * Usage: bench_recovery_cpu [--sizes 2048] [--rounds 7] [--nb 0]
 * (threads: OpenBLAS's, OPENBLAS_NUM_THREADS to pin them)
 */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int sizes[BENCH_MAX_SIZES] = {2048}, ns = 1, R = 7, nb = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            ns = 0; /* the list replaces the defaults (bench_parse_list appends) */
            bench_parse_list(argv[++i], "--sizes", sizes, &ns, 64, 1 << 17);
        }
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            R = bench_parse_int(argv[++i], "--rounds", 1, 100);
        else if (!strcmp(argv[i], "--nb") && i + 1 < argc)
            nb = bench_parse_int(argv[++i], "--nb", 0, 1024);
        else bench_die("usage: bench_recovery_cpu [--sizes a,b] [--rounds R] [--nb NB]");
    }
    ft_context_t *ctx;
    if (ft_context_create(&ctx, FT_DEVICE_CPU)) bench_die("no CPU context");
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = nb;
    p.crossover = -1;
    ft_context_set_policy(ctx, &p);
    ft_context_get_policy(ctx, &p);
    ft_qrf_t *F;
    if (ft_qrf_create(&F)) bench_die("ft_qrf_create");
    printf("%% bench_recovery_cpu: ft_dgeqrf_ex, CPU backend, host pointers, %d rounds alternated\n", R);
    printf("%% %6s %-9s %10s %10s %10s %7s %9s %10s\n", "n", "case", "median_s", "min_s", "max_s",
           "ratio", "recov_s", "refac_col");
    for (int s = 0; s < ns; s++) {
        const int64_t n = sizes[s];
        const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
        double *h = bench_malloc(bytes), *A = bench_malloc(bytes);
        double *tau = bench_malloc((size_t)n * sizeof(double)), wq;
        bench_fill(h, (size_t)n * (size_t)n, 7 + (uint64_t)n);
        ft_int info, lwork;
        ft_dgeqrf_ex(ctx, (ft_int)n, (ft_int)n, A, (ft_int)n, tau, &wq, -1, &info, NULL);
        lwork = (ft_int)wq > 1 ? (ft_int)wq : 1;
        double *work = bench_malloc((size_t)lwork * sizeof(double));
        const int64_t nbe = nb > 0 ? nb : (n < 1024 ? 32 : 64), np = (n + nbe - 1) / nbe;
        const int64_t step = np / 4, col = (step + 1) * nbe + 1;
        double *t[3];
        double rec[3] = {0, 0, 0};
        int64_t rcol[3] = {-1, -1, -1};
        for (int c = 0; c < 3; c++) t[c] = bench_malloc((size_t)R * sizeof(double));
        for (int r = -1; r < R; r++)
            for (int c = 0; c < 3; c++) {
                memcpy(A, h, bytes);
                ft_inject_clear(ctx);
                if (c > 0) {
                    ft_fault_t f = {.region = FT_REGION_TRAILING, .row = n - 1, .col = col,
                                    .bit = -1, .value = 1.0, .call = -1, .step = step};
                    if (ft_inject_add(ctx, &f)) bench_die("ft_inject_add");
                }
                ft_context_set_qrf(ctx, c == 1 ? F : NULL);
                ft_report_t rep;
                double t0 = bench_now();
                int st = ft_dgeqrf_ex(ctx, (ft_int)n, (ft_int)n, A, (ft_int)n, tau, work, lwork,
                                      &info, &rep);
                double dt = bench_now() - t0;
                if (st) bench_die("n=%lld case %d: status %d (%s)", (long long)n, c, st,
                                  ft_strerror(st));
                if (c > 0 && (rep.recovered != 1 || rep.recovery != (c == 1 ? 1 : 2)))
                    bench_die("n=%lld case %d: recovered %lld recovery %d", (long long)n, c,
                              (long long)rep.recovered, rep.recovery);
                if (r >= 0) {
                    t[c][r] = dt;
                    rec[c] += rep.time_recovery / R;
                    rcol[c] = rep.refactor_col;
                }
            }
        ft_context_set_qrf(ctx, NULL);
        static const char *cn[3] = {"none", "update", "refactor"};
        bench_stats_t b0 = bench_stats(t[0], R);
        for (int c = 0; c < 3; c++) {
            bench_stats_t b = bench_stats(t[c], R);
            printf("  %6lld %-9s %10.4f %10.4f %10.4f %7.4f %9.4f %10lld\n", (long long)n, cn[c],
                   b.med, b.min, b.max, b.med / b0.med, rec[c], (long long)rcol[c]);
            free(t[c]);
        }
        fflush(stdout);
        free(A);
        free(work);
        free(h);
        free(tau);
    }
    ft_qrf_destroy(F);
    ft_context_destroy(ctx);
    return 0;
}
