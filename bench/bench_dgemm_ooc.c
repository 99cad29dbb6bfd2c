/*
 * bench_dgemm_ooc — one ft_dgemm on host data larger than the GPU's memory (issue 12 item 2):
 * A, B, C of n x n in pageable host memory (3 * 8 n^2 bytes; n = 59392: 84.6 GB against the
 * H100's 80 GB), ft_dgemm_ex on a CUDA context without a limit (the device's own memory is the
 * limit), alpha = 1, beta = 0.5.
 *
 *   bench_dgemm_ooc [-N n] [--runs R] [--inject] [--limit BYTES]
 *
 * Data: a hash of the index in [-1, 1), filled by all cores. Check: 256 entries drawn at random
 * against a long-double dot product, |C_ij - ref| <= 4 (n + 2) eps (sum_l |a_il b_lj| + 0.5 |c0|)
 * (C0 regenerated from the hash). --inject: one more call with a bit flip (bit 60) planned in
 * the result of a random sub-product (fault.step), which must be reported corrected.
 * Reported: seconds and TFLOP/s of each call (2 n^3 / s), the report's counters.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <pthread.h>

static double hval(uint64_t i, uint64_t salt)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull ^ salt;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29, x *= 0x94D049BB133111EBull, x ^= x >> 32;
    return (double)(x >> 11) * 0x1p-52 - 1.0;
}

typedef struct {
    double *x;
    size_t len;
    uint64_t salt;
    int t, nt;
} fill_t;

static void *fill_part(void *p)
{
    const fill_t *f = p;
    const size_t lo = f->len * (size_t)f->t / (size_t)f->nt, hi = f->len * (size_t)(f->t + 1) / (size_t)f->nt;
    for (size_t i = lo; i < hi; i++) f->x[i] = hval(i, f->salt);
    return NULL;
}

static void fill(double *x, size_t len, uint64_t salt)
{
    enum { NT = 32 };
    pthread_t th[NT];
    fill_t f[NT];
    for (int t = 0; t < NT; t++) {
        f[t] = (fill_t){x, len, salt, t, NT};
        if (pthread_create(&th[t], NULL, fill_part, &f[t])) fill_part(&f[t]), th[t] = 0;
    }
    for (int t = 0; t < NT; t++)
        if (th[t]) pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    int64_t n = 59392;
    int runs = 1, inject = 0;
    double limit = 0.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-N") && i + 1 < argc) n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--inject")) inject = 1;
        else if (!strcmp(argv[i], "--limit") && i + 1 < argc) limit = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_dgemm_ooc [-N n] [--runs R] [--inject] [--limit B]\n");
            return 2;
        }
    }
    const size_t len = (size_t)n * (size_t)n;
    printf("%% bench_dgemm_ooc: n = %lld, host data %.1f GB (pageable), alpha 1, beta 0.5\n",
           (long long)n, 3.0 * 8.0 * (double)len / 1e9);
    double *A = malloc(len * 8), *B = malloc(len * 8), *C = malloc(len * 8);
    if (!A || !B || !C) {
        printf("%% host allocation failed\n");
        return 2;
    }
    ft_context_t *ctx;
    int st = ft_context_create(&ctx, FT_DEVICE_CUDA);
    if (st) {
        printf("SKIP: no CUDA context (%s)\n", ft_strerror(st));
        return 77;
    }
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.gpu_memory = limit;
    ft_context_set_policy(ctx, &pol);
    fill(A, len, 1), fill(B, len, 2);
    int bad = 0;
    for (int r = 0; r < runs + inject; r++) {
        const int inj = r == runs;
        fill(C, len, 3);
        ft_report_t rep;
        if (inj) {
            ft_fault_t f = {.region = FT_REGION_C, .row = -1, .col = -1, .bit = 60, .call = -1,
                            .step = 5};
            ft_inject_add(ctx, &f);
        }
        const double t0 = bench_now();
        st = ft_dgemm_ex(ctx, 'N', 'N', (ft_int)n, (ft_int)n, (ft_int)n, 1.0, A, (ft_int)n, B,
                         (ft_int)n, 0.5, C, (ft_int)n, &rep);
        const double t = bench_now() - t0;
        printf("%s call %d: status %d, %.3f s, %.2f TFLOP/s; injected %lld detected %lld "
               "corrected %lld recomputed %lld uncorrectable %lld checks %lld\n",
               inj ? "fault" : "clean", r, st, t, 2.0 * (double)n * n * n / t / 1e12,
               (long long)rep.injected, (long long)rep.detected, (long long)rep.corrected,
               (long long)rep.recomputed, (long long)rep.uncorrectable, (long long)rep.checks);
        if (st || (inj && (rep.injected != 1 || rep.corrected + rep.recomputed < 1))) bad = 1;
        /* sampled check */
        uint64_t s = 12345 + (uint64_t)r;
        double worst = 0.0;
        for (int q = 0; q < 256; q++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const int64_t i = (int64_t)((s >> 20) % (uint64_t)n);
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const int64_t j = (int64_t)((s >> 20) % (uint64_t)n);
            long double ref = 0.5L * hval((uint64_t)(i + j * n), 3), mag = 0.5 * fabs((double)ref);
            for (int64_t l = 0; l < n; l++) {
                const long double p = (long double)A[i + l * n] * B[l + j * n];
                ref += p;
                mag += fabsl(p);
            }
            const double ratio = fabs((double)((long double)C[i + j * n] - ref)) /
                                 (4.0 * (double)(n + 2) * DBL_EPSILON * (double)mag + DBL_MIN);
            if (ratio > worst) worst = ratio;
        }
        printf("  sampled check: 256 entries, worst |C - ref| / (4 (n + 2) eps sum|ab|) = %.3g "
               "(limit 1) %s\n", worst, worst <= 1.0 ? "ok" : "FAIL");
        if (!(worst <= 1.0)) bad = 1;
    }
    ft_context_destroy(ctx);
    free(A), free(B), free(C);
    printf("%s\n", bad ? "FAIL" : "ok");
    return bad;
}
