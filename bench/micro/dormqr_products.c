/*
 * dormqr_products.c — what the interposer costs on the products inside LAPACK's dormqr (issue
 * 11: dgels_ with many right-hand sides). Standalone (not part of the build); run under the
 * interposer, which it asks through ftla_preload_pause (preload.h) to send every other call to
 * the real routines, the order alternated from run to run:
 *
 *   gcc -O2 -o dormqr_products bench/micro/dormqr_products.c -llapack -lopenblas -ldl
 *   OPENBLAS_CORETYPE=SkylakeX LD_PRELOAD=build/libftla_preload.so FTLA_DEVICE=cpu \
 *     ./dormqr_products pair [m nrhs k runs]     dlarfb's two products, m x nrhs x k
 *     ./dormqr_products dormqr [m n nrhs runs]   a whole dormqr_('L', 'T') on dgeqrf_'s factor
 *
 * pair: W := C^T V (nrhs x k, inner dimension m, beta 0) and C := C - V W^T (m x nrhs, inner
 * dimension k, beta 1) on C restored before each pair (untimed); default 4064 64 32 41.
 * dormqr: the factor of a random m x n matrix (dgeqrf_, plain), then dormqr_ on B (m x nrhs)
 * restored before each call (untimed); default 4096 2048 64 21. Prints medians of the plain
 * and protected calls and, for dormqr, the median [min max] of the per-run ratios plain /
 * protected. Without the interposer both columns time the real routines.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *,
             int *);
void dormqr_(const char *, const char *, const int *, const int *, const int *, const double *,
             const int *, const double *, double *, const int *, double *, const int *, int *,
             size_t, size_t);

enum { MAXR = 400 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static double *rnd(long n)
{
    double *x = malloc((size_t)n * sizeof *x);
    if (!x) exit(2);
    for (long i = 0; i < n; i++) x[i] = rand() / (double)RAND_MAX - 0.5;
    return x;
}

int main(int argc, char **argv)
{
    const int dorm = argc > 1 && strcmp(argv[1], "dormqr") == 0;
    if (argc < 2 || (!dorm && strcmp(argv[1], "pair") != 0)) {
        fprintf(stderr, "usage: %s pair [m nrhs k runs] | dormqr [m n nrhs runs]\n", argv[0]);
        return 2;
    }
    int (*pause_fn)(int) = NULL;
    *(void **)&pause_fn = dlsym(RTLD_DEFAULT, "ftla_preload_pause");
    if (!pause_fn) printf("%% not under the interposer: both columns are the real routines\n");
    const int a = argc > 2 ? atoi(argv[2]) : dorm ? 4096 : 4064;
    const int b = argc > 3 ? atoi(argv[3]) : dorm ? 2048 : 64;
    const int c = argc > 4 ? atoi(argv[4]) : dorm ? 64 : 32;
    int runs = argc > 5 ? atoi(argv[5]) : dorm ? 21 : 41;
    if (runs < 1) runs = 1;
    if (runs > MAXR) runs = MAXR;
    srand(1);
    static double t[2][2][MAXR], r[MAXR];
    if (!dorm) { /* m = a, nrhs = b, k = c */
        const int m = a, n = b, k = c;
        double *C0 = rnd((long)m * n), *C = rnd((long)m * n), *V = rnd((long)m * k),
               *W = rnd((long)n * k), *W2 = rnd((long)n * k);
        const double one = 1, mone = -1, zero = 0;
        for (int run = 0; run <= runs; run++)
            for (int h = 0; h < 2; h++) {
                const int plain = (h + run) % 2;
                if (pause_fn) pause_fn(plain);
                memcpy(C, C0, (size_t)m * n * sizeof *C);
                const double t0 = now();
                dgemm_("T", "N", &n, &k, &m, &one, C, &m, V, &m, &zero, W2, &n, 1, 1);
                const double t1 = now();
                dgemm_("N", "T", &m, &n, &k, &mone, V, &m, W, &n, &one, C, &m, 1, 1);
                const double t2 = now();
                if (run > 0) t[plain][0][run - 1] = t1 - t0, t[plain][1][run - 1] = t2 - t1;
            }
        if (pause_fn) pause_fn(0);
        for (int p = 1; p >= 0; p--)
            printf("%-9s W := C^T V %.3f ms   C -= V W^T %.3f ms   (m %d nrhs %d k %d, %d runs)\n",
                   p ? "plain" : "protected", 1e3 * median(t[p][0], runs),
                   1e3 * median(t[p][1], runs), m, n, k, runs);
        return 0;
    }
    const int m = a, n = b, nrhs = c;
    double *A = rnd((long)m * n), *tau = rnd(n), *B0 = rnd((long)m * nrhs),
           *B = rnd((long)m * nrhs), q;
    int info, lw = -1;
    if (pause_fn) pause_fn(1);
    dgeqrf_(&m, &n, A, &m, tau, &q, &lw, &info);
    lw = (int)q;
    double *w = malloc((size_t)lw * sizeof *w);
    dgeqrf_(&m, &n, A, &m, tau, w, &lw, &info);
    int lw2 = -1;
    dormqr_("L", "T", &m, &nrhs, &n, A, &m, tau, B, &m, &q, &lw2, &info, 1, 1);
    lw2 = (int)q;
    double *w2 = malloc((size_t)lw2 * sizeof *w2);
    if (!w || !w2 || info) return 2;
    for (int run = 0; run <= runs; run++)
        for (int h = 0; h < 2; h++) {
            const int plain = (h + run) % 2;
            if (pause_fn) pause_fn(plain);
            memcpy(B, B0, (size_t)m * nrhs * sizeof *B);
            const double t0 = now();
            dormqr_("L", "T", &m, &nrhs, &n, A, &m, tau, B, &m, w2, &lw2, &info, 1, 1);
            if (info) return 1;
            if (run > 0) t[plain][0][run - 1] = now() - t0;
        }
    if (pause_fn) pause_fn(0);
    for (int i = 0; i < runs; i++) r[i] = t[1][0][i] / t[0][0][i];
    qsort(r, (size_t)runs, sizeof *r, cmp);
    printf("dormqr %d x %d, nrhs %d, %d runs: plain %.2f ms, protected %.2f ms, paired %.3f "
           "[%.3f %.3f]\n", m, n, nrhs, runs, 1e3 * median(t[1][0], runs),
           1e3 * median(t[0][0], runs), r[runs / 2], r[0], r[runs - 1]);
    return 0;
}
