/*
 * bench_common.h — shared helpers of the ftla benchmarks (header only, C11).
 *
 * Timing: bench_now() is CLOCK_MONOTONIC wall time in seconds. Every timed call of every method
 * is bracketed the same way by its program: (inputs restored, untimed) -> synchronise -> t0 ->
 * call -> synchronise -> t1 (GPU programs: cudaDeviceSynchronize, see bench_cuda.h).
 * Statistics: median and min/max of the timed runs (warm-up runs are never recorded).
 * Table: every (size, method) row is kept and printed last, machine-readable.
 *
 * Only the public header ftla.h is used, so the same source builds against older trees of ftla.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strtok_r, gethostname with -std=c11 */
#endif

#include "ftla.h"

#include <cblas.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_LIB_LABEL
#define BENCH_LIB_LABEL "this build"
#endif

#define BENCH_MAX_SIZES 32
#define BENCH_MAX_ROWS 256
#define BENCH_MIN_PROTOCOL_RUNS 7

/* ---- failure exits (never abort) ----------------------------------------------------------- */

/* Error in the benchmark's own machinery (allocation, a peer library call, a bad option). */
static inline void bench_die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "bench: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(2);
}

/* An ftla call in the setup path (context, policy, stream): any non-zero status is fatal. */
#define BENCH_FT(call)                                                                             \
    do {                                                                                           \
        int bench_st_ = (call);                                                                    \
        if (bench_st_ != 0)                                                                        \
            bench_die("%s:%d: %s returned %d (%s)", __FILE__, __LINE__, #call, bench_st_,         \
                      ft_strerror(bench_st_));                                                     \
    } while (0)

static inline void *bench_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) bench_die("out of host memory (%zu bytes)", bytes);
    return p;
}

/* ---- time and statistics ------------------------------------------------------------------- */

static inline double bench_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) bench_die("clock_gettime: %s", strerror(errno));
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    double med, min, max;
} bench_stats_t;

/* Median, min and max of v[0..n-1] (v is not modified). n = 0 gives NaNs. */
static inline bench_stats_t bench_stats(const double *v, int n)
{
    bench_stats_t s = {NAN, NAN, NAN};
    if (n <= 0) return s;
    double *w = bench_malloc((size_t)n * sizeof *w);
    memcpy(w, v, (size_t)n * sizeof *w);
    qsort(w, (size_t)n, sizeof *w, bench_cmp_double);
    s.min = w[0];
    s.max = w[n - 1];
    s.med = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    free(w);
    return s;
}

/* Timed runs of one method: times, and ftla's report fields per run. */
typedef struct {
    const char *name;
    int is_ftla;
    int n;                  /* timed runs recorded */
    double t[1024];         /* seconds per timed run */
    double prot[1024];      /* report.time_protect per timed run (ftla methods) */
    int64_t injected, detected, corrected, uncorrectable, unchecked; /* sums over timed runs */
    int bad_calls;          /* calls whose report failed the protocol's checks */
} bench_series_t;

static inline void bench_series_init(bench_series_t *s, const char *name, int is_ftla)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->is_ftla = is_ftla;
}

/* Record one ftla call's report against the protocol: status 0; without faults nothing
 * detected; with nfault faults planned, exactly nfault injected, all corrected, none
 * uncorrectable. Returns 1 when the call is acceptable. `timed` adds the run's figures. */
static inline int bench_check_report(bench_series_t *s, const ft_report_t *r, int call_status,
                                     int nfault, int timed, const char *what)
{
    int ok = call_status == 0 && r->status == 0 && r->uncorrectable == 0;
    if (nfault == 0) ok = ok && r->detected == 0 && r->injected == 0;
    else ok = ok && r->injected == nfault && r->corrected == r->injected && r->detected >= nfault;
    if (!ok) {
        char buf[512];
        printf("%% FAIL: %s %s: returned %d (%s), faults planned %d, report: %s\n", s->name, what,
               call_status, ft_strerror(call_status), nfault,
               ft_report_string(r, buf, sizeof buf));
        s->bad_calls++;
    }
    if (timed) {
        s->injected += r->injected;
        s->detected += r->detected;
        s->corrected += r->corrected;
        s->uncorrectable += r->uncorrectable;
        s->unchecked += r->unchecked;
    }
    return ok;
}

/* ---- options ------------------------------------------------------------------------------- */

/* Parse a positive int (whole string). */
static inline int bench_parse_int(const char *s, const char *opt, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        bench_die("option %s: '%s' is not an integer in [%ld, %ld]", opt, s, lo, hi);
    return (int)v;
}

static inline double bench_parse_double(const char *s, const char *opt)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        bench_die("option %s: '%s' is not a finite number", opt, s);
    return v;
}

/* Append the comma-separated list s ("8192,16384") to out[*n...]. */
static inline void bench_parse_list(const char *s, const char *opt, int *out, int *n, long lo,
                                    long hi)
{
    char buf[512];
    if (strlen(s) >= sizeof buf) bench_die("option %s: list too long", opt);
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (*n >= BENCH_MAX_SIZES) bench_die("option %s: more than %d values", opt,
                                             BENCH_MAX_SIZES);
        out[(*n)++] = bench_parse_int(tok, opt, lo, hi);
    }
}

/* ---- data ---------------------------------------------------------------------------------- */

/* Uniform [-1, 1) from splitmix64 (fast, reproducible for a seed). */
static inline void bench_fill(double *x, size_t len, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (size_t i = 0; i < len; i++) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[i] = 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
    }
}

static inline uint64_t bench_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double bench_absmax(const double *x, size_t len)
{
    double m = 0.0;
    for (size_t i = 0; i < len; i++) {
        double a = fabs(x[i]);
        if (!(a <= m)) m = a; /* NaN propagates */
    }
    return m;
}

/* max_ij |X - Y| over an m x n column-major pair (same ld). */
static inline double bench_maxdiff(int64_t m, int64_t n, const double *X, const double *Y,
                                   int64_t ld)
{
    double d = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double e = fabs(X[i + j * ld] - Y[i + j * ld]);
            if (!(e <= d)) d = e;
        }
    return d;
}

/* ---- QR result checks (host, untimed) ------------------------------------------------------ */

/* 2-norms of the m-long columns of A (long double accumulation). */
static inline void bench_colnorms(int64_t m, int64_t n, const double *A, int64_t lda, double *nrm)
{
    for (int64_t j = 0; j < n; j++) {
        long double s = 0.0L;
        const double *a = A + j * lda;
        for (int64_t i = 0; i < m; i++) s += (long double)a[i] * a[i];
        nrm[j] = (double)sqrtl(s);
    }
}

/* Check a factored A (LAPACK layout) against the original column norms anrm: Q is orthogonal,
 * so ||R(0:min(j,m-1), j)||_2 = ||A(:, j)||_2 up to rounding. Returns
 * max_j | ||R_j|| - ||A_j|| | / (m * u * ||A_j||) (a residual check that needs no reference),
 * and stores |R_ii| in diag[0..min(m,n)-1]. */
static inline double bench_qr_colnorm_err(int64_t m, int64_t n, const double *F, int64_t ld,
                                          const double *anrm, double *diag)
{
    const double u = DBL_EPSILON / 2;
    double worst = 0.0;
    for (int64_t j = 0; j < n; j++) {
        int64_t top = j < m - 1 ? j : m - 1;
        long double s = 0.0L;
        for (int64_t i = 0; i <= top; i++) s += (long double)F[i + j * ld] * F[i + j * ld];
        double r = (double)sqrtl(s);
        double e = anrm[j] > 0 ? fabs(r - anrm[j]) / ((double)m * u * anrm[j]) : fabs(r);
        if (!(e <= worst)) worst = e;
        if (j < m) diag[j] = fabs(F[j + j * ld]);
    }
    return worst;
}

/* max_i | d1_i - d2_i | / max_i d2_i over k entries. */
static inline double bench_diag_err(int64_t k, const double *d1, const double *d2)
{
    double dm = 0.0, mx = 0.0;
    for (int64_t i = 0; i < k; i++) {
        double e = fabs(d1[i] - d2[i]);
        if (!(e <= dm)) dm = e;
        if (d2[i] > mx) mx = d2[i];
    }
    return mx > 0 ? dm / mx : dm;
}

/* Thresholds of the untimed checks (printed in every header). */
/* max|C - C_peer| / (eps (k |alpha| max|A| max|B| + |beta| max|C0|)) */
#define BENCH_DGEMM_TOL 10.0
#define BENCH_QR_NORM_TOL 10.0 /* colnorm residual, in units of m*u*||a_j|| */
#define BENCH_QR_DIAG_TOL 1e-6 /* | |R_ii| - |R_ii|_peer | / max |R_ii|_peer */

/* QR flops, LAPACK's operation count (LAWN 41: multiplications + additions). */
static inline double bench_qr_flops(double m, double n)
{
    double fm, fa;
    if (m > n) {
        fm = n * (n * (0.5 - (1. / 3.) * n + m) + m + 23. / 6.);
        fa = n * (n * (0.5 - (1. / 3.) * n + m) + 5. / 6.);
    } else {
        fm = m * (m * (-0.5 - (1. / 3.) * m + n) + 2. * n + 23. / 6.);
        fa = m * (m * (-0.5 - (1. / 3.) * m + n) + n + 5. / 6.);
    }
    return fm + fa;
}

/* ---- the result table ---------------------------------------------------------------------- */

typedef struct {
    char op[12];      /* dgemm / dgeqrf */
    char mode[8];     /* dev / host / cpu */
    int64_t m, n, k;
    char param[24];   /* dgemm: "NN/b=0"; dgeqrf: "nb=64" */
    char method[16];
    int runs;
    bench_stats_t st;
    double rate;      /* flop/s from the median */
    double prot;      /* median report.time_protect (ftla), NaN for peers */
    double ratio;     /* peer median / this median */
    double ratio2;    /* second peer (CPU QR: blocked, ftla's nb) median / this median, or NaN */
    int faults;       /* faults planned per ftla-on call */
    int ok;
} bench_row_t;

static bench_row_t bench_rows[BENCH_MAX_ROWS];
static int bench_nrows;
static int bench_nfail;

/* Add a row from a series; ratio(s) computed against the peer series. */
static inline bench_row_t *bench_add_row(const char *op, const char *mode, int64_t m, int64_t n,
                                         int64_t k, const char *param, const bench_series_t *s,
                                         double flops, const bench_series_t *peer,
                                         const bench_series_t *peer2, int faults, int ok)
{
    if (bench_nrows >= BENCH_MAX_ROWS) bench_die("too many table rows");
    bench_row_t *r = &bench_rows[bench_nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    snprintf(r->param, sizeof r->param, "%s", param);
    snprintf(r->method, sizeof r->method, "%s", s->name);
    r->m = m, r->n = n, r->k = k;
    r->runs = s->n;
    r->st = bench_stats(s->t, s->n);
    r->rate = flops / r->st.med;
    r->prot = s->is_ftla ? bench_stats(s->prot, s->n).med : NAN;
    r->ratio = peer ? bench_stats(peer->t, peer->n).med / r->st.med : NAN;
    r->ratio2 = peer2 ? bench_stats(peer2->t, peer2->n).med / r->st.med : NAN;
    r->faults = s->is_ftla && strcmp(s->name, "ftla-off") ? faults : 0;
    r->ok = ok;
    if (!ok) bench_nfail++;
    return r;
}

static inline void bench_fmt(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, fmt, v);
}

/* Human-readable line of one row (times in ms, rate scaled by rate_scale). */
static inline void bench_print_row_human(const bench_row_t *r, double rate_scale)
{
    char pr[32], ra[32], rb[32];
    bench_fmt(pr, sizeof pr, "%10.3f", 1e3 * r->prot);
    bench_fmt(ra, sizeof ra, "%6.3f", r->ratio);
    bench_fmt(rb, sizeof rb, "%6.3f", r->ratio2);
    printf("  %-9s %11.3f %11.3f %11.3f %9.3f %10s %8s %8s  %s\n", r->method, 1e3 * r->st.med,
           1e3 * r->st.min, 1e3 * r->st.max, r->rate / rate_scale, pr, ra, rb,
           r->ok ? "ok" : "FAIL");
}

static inline void bench_print_human_header(const char *rate_unit, const char *peer,
                                            const char *peer2)
{
    printf("  %-9s %11s %11s %11s %9s %10s %8s %8s  %s\n", "method", "median_ms", "min_ms",
           "max_ms", rate_unit, "protect_ms", peer, peer2 ? peer2 : "-", "check");
}

/* The machine-readable table: one row per size/method, whitespace-separated, '-' = n/a.
 * ratio = peer median time / this median time (> 1: this method is faster). */
static inline void bench_print_table(const char *rate_unit, double rate_scale)
{
    printf("\n# TABLE BEGIN (lib: %s)\n", BENCH_LIB_LABEL);
    printf("# op mode m n k param method runs median_s min_s max_s %s protect_med_s "
           "ratio_peer ratio_peer2 faults_per_call check\n", rate_unit);
    for (int i = 0; i < bench_nrows; i++) {
        const bench_row_t *r = &bench_rows[i];
        char pr[32], ra[32], rb[32];
        bench_fmt(pr, sizeof pr, "%.6f", r->prot);
        bench_fmt(ra, sizeof ra, "%.4f", r->ratio);
        bench_fmt(rb, sizeof rb, "%.4f", r->ratio2);
        printf("%s %s %lld %lld %lld %s %s %d %.6f %.6f %.6f %.3f %s %s %s %d %s\n", r->op,
               r->mode, (long long)r->m, (long long)r->n, (long long)r->k, r->param, r->method,
               r->runs, r->st.med, r->st.min, r->st.max, r->rate / rate_scale, pr, ra, rb,
               r->faults, r->ok ? "ok" : "FAIL");
    }
    printf("# TABLE END\n");
}

/* Final verdict; returns the process exit status. */
static inline int bench_finish(void)
{
    if (bench_nfail) {
        printf("\n%% ********************************************************************\n");
        printf("%% FAIL: %d row(s) failed a check or a report; see the lines marked FAIL\n",
               bench_nfail);
        printf("%% ********************************************************************\n");
        return 1;
    }
    printf("%% all rows ok\n");
    return 0;
}

/* Header lines common to all programs. */
static inline void bench_print_env(int runs, int warmup)
{
    char host[256] = "?";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    const char *ct = getenv("OPENBLAS_CORETYPE"), *nt = getenv("OPENBLAS_NUM_THREADS");
    printf("%% lib: %s; ftla.h %d.%d.%d; host %s; %ld online cpus; %s\n", BENCH_LIB_LABEL,
           FTLA_VERSION_MAJOR, FTLA_VERSION_MINOR, FTLA_VERSION_PATCH, host,
           sysconf(_SC_NPROCESSORS_ONLN), when);
    printf("%% OPENBLAS_CORETYPE=%s OPENBLAS_NUM_THREADS=%s", ct ? ct : "(unset)",
           nt ? nt : "(unset)");
#ifdef OPENBLAS_VERSION
    printf(";%score %s, %d threads", OPENBLAS_VERSION, openblas_get_corename(),
           openblas_get_num_threads());
#endif
    printf("\n");
    printf("%% runs: %d timed per method after %d untimed warm-up call(s) of each method%s\n",
           runs, warmup,
           runs < BENCH_MIN_PROTOCOL_RUNS ? "  ** WARNING: fewer than 7 timed runs: below the "
                                            "protocol, for smoke tests only **"
                                          : "");
}

#endif /* BENCH_COMMON_H */
