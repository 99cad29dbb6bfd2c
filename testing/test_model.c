/*
 * test_model.c — the performance model of ft_dgeqrf (ft_dgeqrf_model; docs/qr.md
 * "Performance model").
 *
 *   test_model cpu|cuda fresh DIR: with FTLA_MODEL_CACHE=DIR (emptied first) the first call
 *     calibrates (source 1, a cache file written), the second comes from memory (source 3);
 *     argument errors (-1, -2, NULL out); predictions positive and finite, growing with n;
 *     a fixed policy (panel, nb) is honoured; no lookahead is never predicted faster; the
 *     verification interval: 0 without an error rate, >= 1 and shorter for a higher rate;
 *     an ft_dgeqrf with a high policy.error_rate verifies online (more checks than without)
 *     and gives the same R;
 *   test_model cpu|cuda cached DIR: the same device from the file written before (source 2).
 */
#define _POSIX_C_SOURCE 200809L
#include "test_dgeqrf_common.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void empty_dir(const char *dir)
{
    mkdir(dir, 0755);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            remove(p);
        }
    closedir(d);
}

static int run(ft_context_t *ctx, int64_t m, int64_t n, const double *A, double *AF,
               ft_report_t *rep)
{
    double *tau = malloc((size_t)n * sizeof(double)), *work = malloc((size_t)n * 64 * 8);
    memcpy(AF, A, (size_t)(m * n) * sizeof(double));
    ft_int info;
    int st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)m, tau, work, (ft_int)(n * 64),
                          &info, rep);
    free(tau);
    free(work);
    return st;
}

int main(int argc, char **argv)
{
    ft_device_t dev;
    if (argc < 4 || tu_parse_device(argv[1], &dev)) {
        printf("usage: test_model cpu|cuda fresh|cached DIR\n");
        return 2;
    }
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    const int fresh = !strcmp(argv[2], "fresh");
    if (fresh) empty_dir(argv[3]);
    setenv("FTLA_MODEL_CACHE", argv[3], 1);
    unsetenv("FTLA_PANEL");
    ft_context_t *ctx;
    TU_CHECK(ft_context_create(&ctx, dev) == 0, "context");
    const int gpu = dev == FT_DEVICE_CUDA;
    ft_qr_model_t a, b;
    int st = ft_dgeqrf_model(ctx, 4096, 4096, gpu, &a);
    TU_CHECK(st == 0, "model: %d", st);
    TU_CHECK(a.source == (fresh ? 1 : 2), "source %d (expected %d)", a.source, fresh ? 1 : 2);
    if (fresh) {
        struct stat sb;
        TU_CHECK(a.cache[0] && stat(a.cache, &sb) == 0 && sb.st_size > 0, "cache file '%s'",
                 a.cache);
        TU_CHECK(a.calib_seconds > 0, "calibration time %g", a.calib_seconds);
    }
    TU_CHECK(a.device[0] != 0, "device name");
    TU_CHECK(isfinite(a.seconds) && a.seconds > 0, "seconds %g", a.seconds);
    TU_CHECK(a.nb >= 32 && a.nb <= 256, "nb %d", a.nb);
    TU_CHECK(a.panel == FT_PANEL_CPU || a.panel == FT_PANEL_GPU, "panel %d", a.panel);
    TU_CHECK(a.seconds_depth0 >= a.seconds * (1 - 1e-12), "no lookahead %g < %g",
             a.seconds_depth0, a.seconds);
    TU_CHECK(a.verify_every == 0, "verify_every %d without an error rate", a.verify_every);
    st = ft_dgeqrf_model(ctx, 8192, 8192, gpu, &b);
    TU_CHECK(st == 0 && b.source == 3, "second: %d source %d", st, b.source);
    TU_CHECK(b.seconds > a.seconds, "8192 %g <= 4096 %g", b.seconds, a.seconds);
    /* arguments */
    TU_CHECK(ft_dgeqrf_model(ctx, -1, 5, gpu, &b) == -1, "m < 0");
    TU_CHECK(ft_dgeqrf_model(ctx, 5, -1, gpu, &b) == -2, "n < 0");
    TU_CHECK(ft_dgeqrf_model(ctx, 5, 5, gpu, NULL) == FT_ERR_INVALID_VALUE, "out NULL");
    TU_CHECK(ft_dgeqrf_model(ctx, 0, 5, gpu, &b) == 0 && b.seconds == 0, "m = 0");
    /* a fixed policy is honoured */
    ft_policy_t p, p0;
    ft_context_get_policy(ctx, &p0);
    p = p0;
    p.panel = FT_PANEL_CPU, p.nb = 48;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "policy");
    st = ft_dgeqrf_model(ctx, 2000, 1000, gpu, &b);
    TU_CHECK(st == 0 && b.panel == FT_PANEL_CPU && b.nb == 48 && b.seconds_gpu == 0,
             "fixed: panel %d nb %d gpu %g", b.panel, b.nb, b.seconds_gpu);
    /* Young/Daly */
    p = p0;
    p.error_rate = 1.0;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "policy");
    st = ft_dgeqrf_model(ctx, 4096, 4096, gpu, &b);
    int q1 = b.verify_every;
    p.error_rate = 1e4;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "policy");
    st |= ft_dgeqrf_model(ctx, 4096, 4096, gpu, &b);
    TU_CHECK(st == 0 && b.verify_every >= 1 && (q1 == 0 || b.verify_every <= q1),
             "verify_every %d (rate 1e4), %d (rate 1)", b.verify_every, q1);
    p.error_rate = -1;
    TU_CHECK(ft_context_set_policy(ctx, &p) == FT_ERR_INVALID_VALUE, "negative rate refused");
    /* the driver verifies online with a high rate */
    const int64_t m = 700, n = 600;
    double *A = malloc((size_t)(m * n) * sizeof(double)), *F0 = malloc((size_t)(m * n) * 8),
           *F1 = malloc((size_t)(m * n) * 8);
    tu_rng_t rng;
    tu_seed(&rng, 3);
    tu_fill(&rng, m, n, A, m);
    ft_report_t r0, r1;
    p = p0;
    p.nb = 32, p.crossover = -1;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "policy");
    st = run(ctx, m, n, A, F0, &r0);
    p.error_rate = 1e6;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "policy");
    st |= run(ctx, m, n, A, F1, &r1);
    TU_CHECK(st == 0 && r1.checks > r0.checks, "checks %lld with a rate, %lld without",
             (long long)r1.checks, (long long)r0.checks);
    double dmax = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= j && i < m; i++)
            dmax = fmax(dmax, fabs(F0[i + j * m] - F1[i + j * m]));
    TU_CHECK(dmax == 0.0, "R differs by %g with online verification", dmax);
    free(A);
    free(F0);
    free(F1);
    ft_context_destroy(ctx);
    return tu_finish();
}
