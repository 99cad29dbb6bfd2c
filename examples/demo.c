/*
 * demo.c — ftla in one run: multiply two random matrices with ft_dgemm_ex, flip one exponent bit
 * of C while the product is being computed, and show that the ABFT checks detect and correct it.
 *
 *   ftla_demo                 m = n = k = 1024
 *   ftla_demo N               m = n = k = N
 *   ftla_demo M N K [SEED]    C (M x N) = A (M x K) * B (K x N); SEED picks data and fault position
 *
 * Backend: the GPU when ft_cuda_available(), else the CPU. FTLA_DEVICE=cpu forces the CPU,
 * FTLA_DEVICE=cuda requires the GPU (exit 77 = skipped when there is none).
 *
 * Exit 0 and "demo: OK" only when the fault was injected, detected and corrected in place, the
 * call returned 0, and ||C - C_ref||_1 / (sqrt(k+2) ||A||_1 ||B||_1 eps) < 30 against a
 * fault-free cblas_dgemm (eps = 2^-53, LAPACK's dlamch('E'), as in the testers); exit 1 otherwise.
 */
#include "ftla.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define FAULT_BIT 60 /* exponent bit 8: scales the element by 2^256 or 2^-256 */
#define RATIO_MAX 30.0
#define EXIT_SKIP 77

/* splitmix64 -> uniform [-1, 1): fresh data for every seed, no dependence on rand(). */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-52 - 1.0; }

/* ||X||_1 = max column sum of |X| (column-major, rows x cols, ld = rows). */
static double norm1(const double *X, int rows, int cols)
{
    double nrm = 0.0;
    for (int j = 0; j < cols; j++) {
        double s = 0.0;
        for (int i = 0; i < rows; i++) s += fabs(X[i + (size_t)j * rows]);
        if (!(s <= nrm)) nrm = s; /* keeps NaN */
    }
    return nrm;
}

static const char *backend_name(ft_device_t d)
{
    return d == FT_DEVICE_CUDA ? "GPU (cuda)" : "CPU";
}

static int parse_dim(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > 1000000) return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    int m = 1024, n = 1024, k = 1024;
    uint64_t seed = (uint64_t)time(NULL);
    if (argc == 2) {
        if (parse_dim(argv[1], &m)) goto usage;
        n = k = m;
    } else if (argc == 4 || argc == 5) {
        if (parse_dim(argv[1], &m) || parse_dim(argv[2], &n) || parse_dim(argv[3], &k)) goto usage;
        if (argc == 5) seed = strtoull(argv[4], NULL, 10);
    } else if (argc != 1) {
        goto usage;
    }

    // Backend: GPU when usable, unless FTLA_DEVICE says otherwise.
    ft_device_t dev = ft_cuda_available() ? FT_DEVICE_CUDA : FT_DEVICE_CPU;
    const char *env = getenv("FTLA_DEVICE");
    if (env && strcasecmp(env, "cpu") == 0) dev = FT_DEVICE_CPU;
    if (env && (strcasecmp(env, "cuda") == 0 || strcasecmp(env, "gpu") == 0)) {
        if (!ft_cuda_available()) {
            printf("demo: SKIPPED (FTLA_DEVICE=%s but %s)\n", env,
                   ft_have_cuda() ? "no usable CUDA device" : "ftla was built without CUDA");
            return EXIT_SKIP;
        }
        dev = FT_DEVICE_CUDA;
    }

    printf("ftla demo: C = A*B with A %d x %d, B %d x %d (uniform [-1,1]), seed %llu\n", m, k, k, n,
           (unsigned long long)seed);
    printf("CUDA backend built: %s, usable now: %s\n", ft_have_cuda() ? "yes" : "no",
           ft_cuda_available() ? "yes" : "no");

    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
    double *C = malloc(nc * sizeof *C), *Cref = malloc(nc * sizeof *Cref);
    if (!A || !B || !C || !Cref) {
        fprintf(stderr, "demo: out of memory\n");
        return 1;
    }
    uint64_t rs = seed;
    for (size_t i = 0; i < na; i++) A[i] = uniform(&rs);
    for (size_t i = 0; i < nb; i++) B[i] = uniform(&rs);
    for (size_t i = 0; i < nc; i++) C[i] = NAN; // beta = 0: C is output only, poison it

    // Fault-free reference.
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, m, B, k, 0.0, Cref, m);

    // Context and fault plan: flip bit 60 of one random element of C after the product, before
    // the verification (FT_REGION_C), in the next call on this context.
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, dev);
    if (st) {
        fprintf(stderr, "demo: ft_context_create: %s\n", ft_strerror(st));
        return 1;
    }
    ft_fault_t fault = {.region = FT_REGION_C,
                        .row = -1,
                        .col = -1,
                        .bit = FAULT_BIT,
                        .value = 0.0,
                        .call = -1,
                        .step = -1};
    if ((st = ft_inject_seed(ctx, seed)) || (st = ft_inject_add(ctx, &fault))) {
        fprintf(stderr, "demo: fault plan: %s\n", ft_strerror(st));
        return 1;
    }

    ft_report_t rep;
    st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0, A, m, B, k, 0.0, C, m, &rep);
    printf("backend that ran: %s\n", backend_name(rep.backend));
    printf("ft_dgemm_ex returned %d (%s)\n", st, ft_strerror(st));

    // What the report says happened.
    int ninj = 0, ncor = 0, same_place = 0;
    int64_t fi = -1, fj = -1;
    for (int e = 0; e < rep.nevents; e++) {
        const ft_event_t *ev = &rep.events[e];
        if (ev->kind == FT_EVENT_INJECTED && ev->region == FT_REGION_C) {
            ninj++;
            fi = ev->row, fj = ev->col;
            printf("injected : bit %d of C(%lld,%lld) (0-based): %.17g -> %.17g\n", FAULT_BIT,
                   (long long)ev->row, (long long)ev->col, ev->before, ev->after);
        }
    }
    for (int e = 0; e < rep.nevents; e++) {
        const ft_event_t *ev = &rep.events[e];
        if (ev->kind == FT_EVENT_CORRECTED) {
            ncor++;
            if (ev->row == fi && ev->col == fj) same_place = 1;
            printf("corrected: C(%lld,%lld) in tile %lld: %.17g -> %.17g\n", (long long)ev->row,
                   (long long)ev->col, (long long)ev->step, ev->before, ev->after);
        } else if (ev->kind == FT_EVENT_RECOMPUTED) {
            printf("recomputed: tile %lld (first element C(%lld,%lld))\n", (long long)ev->step,
                   (long long)ev->row, (long long)ev->col);
        } else if (ev->kind == FT_EVENT_UNCORRECTABLE) {
            printf("UNCORRECTABLE: tile %lld (first element C(%lld,%lld))\n", (long long)ev->step,
                   (long long)ev->row, (long long)ev->col);
        }
    }
    printf("report   : injected %lld, detected %lld, located %lld, corrected %lld, "
           "uncorrectable %lld, checksum errors %lld, recomputed %lld, checks %lld, "
           "unchecked %lld\n",
           (long long)rep.injected, (long long)rep.detected, (long long)rep.located,
           (long long)rep.corrected, (long long)rep.uncorrectable, (long long)rep.checksum_errors,
           (long long)rep.recomputed, (long long)rep.checks, (long long)rep.unchecked);
    if (fi >= 0 && fj >= 0)
        printf("C(%lld,%lld) now %.17g, reference %.17g\n", (long long)fi, (long long)fj,
               C[fi + fj * (int64_t)m], Cref[fi + fj * (int64_t)m]);
    printf("time     : %.3f s total, %.3f s in protection\n", rep.time_total, rep.time_protect);

    // Normwise error against the fault-free reference (C overwritten by C - Cref).
    double anorm = norm1(A, m, k), bnorm = norm1(B, k, n);
    for (size_t i = 0; i < nc; i++) C[i] -= Cref[i];
    double ratio = norm1(C, m, n) / (sqrt((double)k + 2.0) * anorm * bnorm * (DBL_EPSILON / 2));
    printf("error    : ||C - C_ref||_1 / (sqrt(k+2) ||A||_1 ||B||_1 eps) = %.3g (must be < %g)\n",
           ratio, RATIO_MAX);

    const char *why = NULL;
    if (st != 0) why = "ft_dgemm_ex did not return 0";
    else if (ninj != 1 || rep.injected != 1) why = "the fault was not injected";
    else if (rep.detected < 1) why = "the fault was not detected";
    else if (rep.corrected < 1 || ncor < 1 || rep.uncorrectable != 0) why = "not corrected";
    else if (!same_place) why = "the correction is not where the fault was injected";
    else if (!(ratio < RATIO_MAX)) why = "the result is not accurate";
    if (st == 0 && same_place && rep.uncorrectable == 0)
        printf("verdict  : the fault was detected and corrected in place at C(%lld,%lld)\n",
               (long long)fi, (long long)fj);

    ft_context_destroy(ctx);
    free(A);
    free(B);
    free(C);
    free(Cref);
    if (why) {
        printf("demo: FAILED (%s)\n", why);
        return 1;
    }
    printf("demo: OK\n");
    return 0;

usage:
    fprintf(stderr, "usage: %s [N | M N K [SEED]]   (sizes >= 1, default 1024)\n", argv[0]);
    return 1;
}
