/*
 * bench_preload.c — an unmodified LAPACK program for timing libftla_preload.so
 * (docs/interposer.md, bench/NOTES.md "Issue 11: the interposer"). It links BLAS and LAPACK
 * only; bench/run_preload.sh runs it without and with LD_PRELOAD=libftla_preload.so, processes
 * alternated, and compares the medians.
 *
 *   bench_preload dgeqrf M N [RUNS]        A = QR (dgeqrf_, workspace from its query)
 *   bench_preload dgels M N NRHS [RUNS]    least squares, dgels_('N'), workspace from its query
 *   bench_preload small [SECONDS]          per-call time of dgemm_ (n^3, n = 4 ... 64, NN,
 *                                          beta 1), dgeqrf_ (n x n, n = 8 ... 64) and dormqr_
 *                                          (L, T: n x n C, k = n reflectors)
 *   bench_preload alt dgeqrf|dgels ...     the same call plain and protected in one process,
 *                                          under LD_PRELOAD: ftla_preload_pause (preload.h)
 *                                          sends every other call to the real routines, the
 *                                          order alternating from run to run; prints both
 *                                          medians and `PAIRED op m n k median min max` of
 *                                          plain / protected within each run (on a machine
 *                                          whose speed drifts, steadier than two processes)
 *
 * Protocol: fresh random data (uniform in [-1, 1), fixed seed); one warm-up call, untimed; then
 * RUNS (default 3) timed calls, the input restored from a pristine copy before each (untimed);
 * CLOCK_MONOTONIC around the call; the median, min and max. info must be 0 (exit 1 otherwise).
 * small: batches of calls of about SECONDS / 10 (default 2 s in all); the median of 5 batches
 * per size, in microseconds per call; dgeqrf_ restores A with a memcpy before each call inside
 * the batch, timed alone too and printed beside it (the same in both processes).
 * Output: `%` comment lines, then one line per measurement: `RESULT op m n k median min max`
 * (seconds; small: microseconds per call).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t la, size_t lb);
void dgeqrf_(const int *m, const int *n, double *A, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
             const double *A, const int *lda, const double *tau, double *C, const int *ldc,
             double *work, const int *lwork, int *info, size_t ls, size_t lt);
void dgels_(const char *trans, const int *m, const int *n, const int *nrhs, double *A,
            const int *lda, double *B, const int *ldb, double *work, const int *lwork, int *info,
            size_t lt);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * 0x1.0p-52 - 1.0;
}

static double *alloc(size_t n)
{
    double *p = malloc((n ? n : 1) * sizeof(double));
    if (!p) {
        fprintf(stderr, "bench_preload: out of memory (%zu doubles)\n", n);
        exit(2);
    }
    return p;
}

static double *random_matrix(size_t n)
{
    double *p = alloc(n);
    for (size_t i = 0; i < n; i++) p[i] = urand();
    return p;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void result(const char *op, int m, int n, int k, double *t, int runs)
{
    qsort(t, runs, sizeof *t, cmp);
    const double med = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    printf("RESULT %s %d %d %d %.6g %.6g %.6g\n", op, m, n, k, med, t[0], t[runs - 1]);
    fflush(stdout);
}

static int bench_dgeqrf(int m, int n, int runs)
{
    const size_t mn = (size_t)m * n;
    double *A0 = random_matrix(mn), *A = alloc(mn), *tau = alloc(m < n ? m : n), q;
    int info, lw = -1;
    dgeqrf_(&m, &n, A, &m, tau, &q, &lw, &info);
    lw = (int)q > n ? (int)q : n;
    double *work = alloc(lw), t[64];
    printf("%% dgeqrf_ %d x %d, lwork %d, %d runs after a warm-up\n", m, n, lw, runs);
    for (int r = -1; r < runs; r++) {
        memcpy(A, A0, mn * sizeof(double));
        const double t0 = now();
        dgeqrf_(&m, &n, A, &m, tau, work, &lw, &info);
        const double dt = now() - t0;
        if (info) {
            printf("FAIL: dgeqrf_ info %d\n", info);
            return 1;
        }
        if (r >= 0) t[r] = dt;
        printf("%% run %d: %.4f s (%.1f GFLOP/s)\n", r, dt,
               (2.0 * m * n * (double)n - 2.0 * n * (double)n * n / 3.0) / dt * 1e-9);
    }
    result("dgeqrf", m, n, 0, t, runs);
    free(A0), free(A), free(tau), free(work);
    return 0;
}

static int bench_dgels(int m, int n, int nrhs, int runs)
{
    const size_t mn = (size_t)m * n, mr = (size_t)m * nrhs;
    double *A0 = random_matrix(mn), *B0 = random_matrix(mr), *A = alloc(mn), *B = alloc(mr), q;
    int info, lw = -1;
    dgels_("N", &m, &n, &nrhs, A, &m, B, &m, &q, &lw, &info, 1);
    lw = (int)q;
    double *work = alloc(lw), t[64];
    printf("%% dgels_ 'N' %d x %d, nrhs %d, lwork %d, %d runs after a warm-up\n", m, n, nrhs, lw,
           runs);
    for (int r = -1; r < runs; r++) {
        memcpy(A, A0, mn * sizeof(double));
        memcpy(B, B0, mr * sizeof(double));
        const double t0 = now();
        dgels_("N", &m, &n, &nrhs, A, &m, B, &m, work, &lw, &info, 1);
        const double dt = now() - t0;
        if (info) {
            printf("FAIL: dgels_ info %d\n", info);
            return 1;
        }
        if (r >= 0) t[r] = dt;
        printf("%% run %d: %.4f s\n", r, dt);
    }
    result("dgels", m, n, nrhs, t, runs);
    free(A0), free(B0), free(A), free(B), free(work);
    return 0;
}

/* ---- alt: plain and protected calls alternated in one process ---- */

typedef struct {
    int op; /* 0 dgeqrf, 1 dgels */
    int m, n, nrhs, lw;
    size_t mn, mr;
    double *A0, *B0, *A, *B, *tau, *work;
} alt_t;

static double alt_call(alt_t *a)
{
    int info = 0;
    memcpy(a->A, a->A0, a->mn * sizeof(double));
    if (a->op) memcpy(a->B, a->B0, a->mr * sizeof(double));
    const double t0 = now();
    if (a->op)
        dgels_("N", &a->m, &a->n, &a->nrhs, a->A, &a->m, a->B, &a->m, a->work, &a->lw, &info, 1);
    else
        dgeqrf_(&a->m, &a->n, a->A, &a->m, a->tau, a->work, &a->lw, &info);
    const double dt = now() - t0;
    if (info) {
        printf("FAIL: %s info %d\n", a->op ? "dgels_" : "dgeqrf_", info);
        exit(1);
    }
    return dt;
}

static int bench_alt(int argc, char **argv)
{
    int (*pause_fn)(int) = NULL;
    *(void **)&pause_fn = dlsym(RTLD_DEFAULT, "ftla_preload_pause");
    if (!pause_fn) {
        fprintf(stderr, "bench_preload alt: run under LD_PRELOAD=.../libftla_preload.so\n");
        return 1;
    }
    alt_t a = {0};
    int runs;
    if (argc >= 5 && !strcmp(argv[2], "dgeqrf")) {
        a.op = 0, a.m = atoi(argv[3]), a.n = atoi(argv[4]), runs = argc > 5 ? atoi(argv[5]) : 3;
    } else if (argc >= 6 && !strcmp(argv[2], "dgels")) {
        a.op = 1, a.m = atoi(argv[3]), a.n = atoi(argv[4]), a.nrhs = atoi(argv[5]);
        runs = argc > 6 ? atoi(argv[6]) : 3;
    } else {
        fprintf(stderr, "usage: bench_preload alt dgeqrf M N [RUNS] | alt dgels M N NRHS [RUNS]\n");
        return 2;
    }
    runs = runs < 1 ? 1 : runs > 63 ? 63 : runs;
    a.mn = (size_t)a.m * a.n, a.mr = (size_t)a.m * a.nrhs;
    a.A0 = random_matrix(a.mn), a.A = alloc(a.mn), a.tau = alloc(a.m < a.n ? a.m : a.n);
    if (a.op) a.B0 = random_matrix(a.mr), a.B = alloc(a.mr);
    double q;
    int info, lw = -1;
    if (a.op)
        dgels_("N", &a.m, &a.n, &a.nrhs, a.A, &a.m, a.B, &a.m, &q, &lw, &info, 1);
    else
        dgeqrf_(&a.m, &a.n, a.A, &a.m, a.tau, &q, &lw, &info);
    a.lw = (int)q > a.n ? (int)q : a.n;
    a.work = alloc(a.lw);
    const char *op = a.op ? "dgels" : "dgeqrf";
    printf("%% alt %s %d x %d, nrhs %d, lwork %d: %d runs of a plain and a protected call, order "
           "alternated, after a warm-up of each\n", op, a.m, a.n, a.nrhs, a.lw, runs);
    double tp[64], tf[64], ratio[64];
    for (int r = -1; r < runs; r++) {
        double dp = 0, df = 0;
        for (int h = 0; h < 2; h++) {
            const int plain = (h == 0) == (r % 2 == 0); /* even runs: plain first */
            pause_fn(plain);
            const double dt = alt_call(&a);
            if (plain) dp = dt; else df = dt;
        }
        pause_fn(0);
        printf("%% run %d: plain %.4f s, protected %.4f s, ratio %.3f\n", r, dp, df, dp / df);
        if (r >= 0) tp[r] = dp, tf[r] = df, ratio[r] = dp / df;
    }
    char name[32];
    snprintf(name, sizeof name, "%s_plain", op);
    result(name, a.m, a.n, a.nrhs, tp, runs);
    snprintf(name, sizeof name, "%s_ftla", op);
    result(name, a.m, a.n, a.nrhs, tf, runs);
    qsort(ratio, runs, sizeof *ratio, cmp);
    const double med =
        runs % 2 ? ratio[runs / 2] : 0.5 * (ratio[runs / 2 - 1] + ratio[runs / 2]);
    printf("PAIRED %s %d %d %d %.4f %.4f %.4f\n", op, a.m, a.n, a.nrhs, med, ratio[0],
           ratio[runs - 1]);
    return 0;
}

/* Calls per batch so that a batch lasts about `secs`, from a short trial. */
static long batch_calls(double per_call, double secs)
{
    long c = (long)(secs / (per_call > 1e-9 ? per_call : 1e-9));
    return c < 10 ? 10 : c;
}

static int bench_small(double seconds)
{
    const double bsec = seconds / 10.0 / 9.0; /* 9 sizes, 5 batches each, half the budget */
    double t[5];
    printf("%% per-call times, microseconds, median of 5 batches of ~%.3f s\n", bsec);
    const int gsz[] = {4, 8, 16, 32, 64};
    for (int s = 0; s < 5; s++) {
        int n = gsz[s];
        double *A = random_matrix((size_t)n * n), *B = random_matrix((size_t)n * n);
        double *C = random_matrix((size_t)n * n), one = 1.0, beta = 1.0;
        double t0 = now();
        for (int i = 0; i < 10; i++)
            dgemm_("N", "N", &n, &n, &n, &one, A, &n, B, &n, &beta, C, &n, 1, 1);
        const long calls = batch_calls((now() - t0) / 10, bsec);
        for (int b = 0; b < 5; b++) {
            t0 = now();
            for (long i = 0; i < calls; i++) {
                beta = i & 1 ? 1.0 : -1.0; /* C stays bounded */
                dgemm_("N", "N", &n, &n, &n, &one, A, &n, B, &n, &beta, C, &n, 1, 1);
            }
            t[b] = (now() - t0) / calls * 1e6;
        }
        result("dgemm_small", n, n, n, t, 5);
        free(A), free(B), free(C);
    }
    const int qsz[] = {8, 16, 32, 64};
    for (int s = 0; s < 4; s++) {
        int n = qsz[s], lw = n * 64, info;
        const size_t nn = (size_t)n * n;
        double *A0 = random_matrix(nn), *A = alloc(nn), *tau = alloc(n), *work = alloc(lw);
        double t0 = now();
        for (int i = 0; i < 10; i++) {
            memcpy(A, A0, nn * sizeof(double));
            dgeqrf_(&n, &n, A, &n, tau, work, &lw, &info);
        }
        const long calls = batch_calls((now() - t0) / 10, bsec);
        double tc[5];
        for (int b = 0; b < 5; b++) {
            t0 = now();
            for (long i = 0; i < calls; i++) {
                memcpy(A, A0, nn * sizeof(double));
                dgeqrf_(&n, &n, A, &n, tau, work, &lw, &info);
            }
            t[b] = (now() - t0) / calls * 1e6;
            if (info) {
                printf("FAIL: dgeqrf_ info %d\n", info);
                return 1;
            }
            t0 = now();
            for (long i = 0; i < calls; i++) {
                memcpy(A, A0, nn * sizeof(double));
                __asm__ volatile("" : : "r"(A) : "memory");
            }
            tc[b] = (now() - t0) / calls * 1e6;
        }
        result("dgeqrf_small", n, n, 0, t, 5);
        result("memcpy_small", n, n, 0, tc, 5);
        free(A0), free(A), free(tau), free(work);
    }
    /* dormqr_ ('L', 'T', n x n C, k = n reflectors of an n x n QR): Q^T applied again and again
     * (orthogonal: C stays bounded) */
    for (int s = 0; s < 4; s++) {
        int n = qsz[s], lw = n * 64, info, query = -1;
        const size_t nn = (size_t)n * n;
        double *A = random_matrix(nn), *C = random_matrix(nn), *tau = alloc(n), *work = alloc(lw);
        dgeqrf_(&n, &n, A, &n, tau, work, &lw, &info);
        double q = 0.0;
        dormqr_("L", "T", &n, &n, &n, A, &n, tau, C, &n, &q, &query, &info, 1, 1);
        int lq = (int)q > 0 ? (int)q : n;
        double *wq = alloc((size_t)lq);
        double t0 = now();
        for (int i = 0; i < 10; i++)
            dormqr_("L", "T", &n, &n, &n, A, &n, tau, C, &n, wq, &lq, &info, 1, 1);
        const long calls = batch_calls((now() - t0) / 10, bsec);
        for (int b = 0; b < 5; b++) {
            t0 = now();
            for (long i = 0; i < calls; i++)
                dormqr_("L", "T", &n, &n, &n, A, &n, tau, C, &n, wq, &lq, &info, 1, 1);
            t[b] = (now() - t0) / calls * 1e6;
            if (info) {
                printf("FAIL: dormqr_ info %d\n", info);
                return 1;
            }
        }
        result("dormqr_small", n, n, n, t, 5);
        free(A), free(C), free(tau), free(work), free(wq);
    }
    return 0;
}

static int runs_arg(int argc, char **argv, int i)
{
    const int r = argc > i ? atoi(argv[i]) : 3;
    return r < 1 ? 1 : r > 63 ? 63 : r;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 4 && !strcmp(argv[1], "dgeqrf"))
        return bench_dgeqrf(atoi(argv[2]), atoi(argv[3]), runs_arg(argc, argv, 4));
    if (argc >= 5 && !strcmp(argv[1], "dgels"))
        return bench_dgels(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), runs_arg(argc, argv, 5));
    if (argc >= 2 && !strcmp(argv[1], "alt")) return bench_alt(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "small")) return bench_small(argc > 2 ? atof(argv[2]) : 2.0);
    fprintf(stderr, "usage: bench_preload dgeqrf M N [RUNS] | dgels M N NRHS [RUNS] | small "
                    "[SECONDS] | alt dgeqrf M N [RUNS] | alt dgels M N NRHS [RUNS]\n");
    return 2;
}
