/*
 * test_dgeqrf_nofalse.c — ft_dgeqrf never reports an error on valid data (no false alarms).
 *
 * Status 0 on the backend asked for, nothing detected, located, corrected or flagged as a
 * checksum error, every check evaluated (report.unchecked == 0, report.checks > 0), and dqrt01
 * ratios below 30, over the matrix types: uniform random, normal random, scaled by 1e-290 and
 * 1e+290, columns graded 1e-10 .. 1e+10, rank-deficient (rank n/2, A = X Y^T), condition number
 * 1e15 (U diag(sigma) V^T, sigma geometric from 1 to 1e-15), integer-valued; shapes square,
 * tall and wide; checks at the end only and online before every panel (verify_every = 1).
 *
 * Usage: test_dgeqrf_nofalse [cpu|cuda|auto] [--measure]
 *   --measure: policy.verbose = 2, so each call logs "max clean residual / (u*bound)" to
 *   stderr after a "type" line: the measured headroom of docs/qr.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_dgeqrf_common.h"

#include <stdio.h>

#define TOL 30.0

int main(int argc, char **argv)
{
    ft_device_t dev = tu_device_from_args(argc, argv);
    int measure = argc > 2 && strcmp(argv[2], "--measure") == 0;
    tu_rng_t rng;
    tu_seed(&rng, 77);
    const int64_t shapes[][2] = {{256, 256}, {300, 120}, {120, 300}, {520, 520}};
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, dev);
    if (st) {
        printf("ft_context_create: %s\n", ft_strerror(st));
        return 1;
    }
    for (int t = 0; t < MT_COUNT; t++)
        for (int s = 0; s < 4; s++)
            for (int q = 0; q <= 1; q++) {
                int64_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n, lda = m + 1;
                ft_policy_t p;
                ft_context_get_policy(ctx, &p);
                p.nb = 32;
                p.crossover = -1;
                p.verify_every = q;
                p.verbose = measure ? 2 : 0;
                st = ft_context_set_policy(ctx, &p);
                TU_CHECK(st == 0, "ft_context_set_policy: %s", ft_strerror(st));
                double *A = tu_malloc(lda * n), *AF = tu_malloc(lda * n), *tau = tu_malloc(k);
                double *work = tu_malloc(n * 32);
                mt_fill(&rng, t, m, n, A, lda);
                tu_copy(m, n, A, lda, AF, lda);
                if (measure)
                    fprintf(stderr, "type %d (%s) %lldx%lld verify_every %d\n", t, mt_name(t),
                            (long long)m, (long long)n, q);
                ft_report_t rep;
                tu_poison_report(&rep); /* every field checked below must come from the call */
                ft_int info = -99;
                long f0 = tu_failed;
                st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, work,
                                  (ft_int)(n * 32), &info, &rep);
                TU_CHECK(st == 0 && info == 0 && rep.status == 0,
                         "%s %lldx%lld q=%d: status %d info %d", mt_name(t), (long long)m,
                         (long long)n, q, st, (int)info);
                TU_CHECK(rep.backend == tu_expected_backend(dev), "%s %lldx%lld: backend %d",
                         mt_name(t), (long long)m, (long long)n, (int)rep.backend);
                TU_CHECK(rep.detected == 0 && rep.located == 0 && rep.corrected == 0 &&
                             rep.checksum_errors == 0 && rep.uncorrectable == 0,
                         "%s %lldx%lld q=%d: false alarm", mt_name(t), (long long)m,
                         (long long)n, q);
                TU_CHECK(rep.unchecked == 0 && rep.checks > 0, "%s %lldx%lld: unchecked %lld",
                         mt_name(t), (long long)m, (long long)n, (long long)rep.unchecked);
                if (tu_failed > f0) tu_print_report(mt_name(t), &rep);
                double res[2];
                qr_ratios(m, n, A, lda, AF, lda, tau, res);
                TU_CHECK(res[0] < TOL && res[1] < TOL, "%s %lldx%lld q=%d: ratios %.3g %.3g",
                         mt_name(t), (long long)m, (long long)n, q, res[0], res[1]);
                free(A);
                free(AF);
                free(tau);
                free(work);
            }
    ft_context_destroy(ctx);
    return tu_finish();
}
