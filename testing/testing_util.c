/* testing_util.c — helpers shared by the ftla testers and unit tests (see testing_util.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include <errno.h>
#include "testing_util.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

long tu_passed = 0, tu_failed = 0;

/* ---- test data ------------------------------------------------------------------------- */

void tu_seed(tu_rng_t *r, uint64_t seed) { r->s = seed * 0x2545F4914F6CDD1Dull + 12345u; }

uint64_t tu_next(tu_rng_t *r)
{
    /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double tu_uniform(tu_rng_t *r)
{
    /* 53 random bits -> [0, 1) -> [-1, 1) */
    return 2.0 * ((double)(tu_next(r) >> 11) * 0x1.0p-53) - 1.0;
}

int tu_int(tu_rng_t *r, int lo, int hi)
{
    if (hi <= lo) return lo;
    return lo + (int)(tu_next(r) % (uint64_t)(hi - lo + 1));
}

void tu_fill(tu_rng_t *r, int64_t rows, int64_t cols, double *A, int64_t lda)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) A[TU_IX(i, j, lda)] = tu_uniform(r);
}

void tu_set_all(int64_t lda, int64_t cols, double *A, double v)
{
    for (int64_t p = 0; p < lda * cols; p++) A[p] = v;
}

double *tu_malloc(int64_t n)
{
    double *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!p) {
        printf("FAILED: out of host memory (%lld doubles)\n", (long long)n);
        exit(2);
    }
    return p;
}

void tu_copy(int64_t m, int64_t n, const double *A, int64_t lda, double *B, int64_t ldb)
{
    for (int64_t j = 0; j < n; j++)
        if (m > 0) memcpy(B + j * ldb, A + j * lda, (size_t)m * sizeof(double));
}

/* ---- norms and the reference product --------------------------------------------------- */

double tu_dlange(char norm, int64_t m, int64_t n, const double *A, int64_t lda)
{
    double v = 0.0;
    if (m <= 0 || n <= 0) return 0.0;
    if (norm == '1' || norm == 'O' || norm == 'o') {
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int64_t i = 0; i < m; i++) s += fabs(A[TU_IX(i, j, lda)]);
            if (!(s <= v)) v = s; /* keeps NaN */
        }
    } else if (norm == 'I' || norm == 'i') {
        double *w = calloc((size_t)m, sizeof(double));
        if (!w) return NAN;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) w[i] += fabs(A[TU_IX(i, j, lda)]);
        for (int64_t i = 0; i < m; i++)
            if (!(w[i] <= v)) v = w[i];
        free(w);
    } else {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double a = fabs(A[TU_IX(i, j, lda)]);
                if (!(a <= v)) v = a;
            }
    }
    return v;
}

static int notrans(char t) { return t == 'N' || t == 'n'; }

int64_t tu_nrows(char trans, int64_t m, int64_t k) { return notrans(trans) ? m : k; }

double tu_opnorm1(char trans, int64_t rows_op, int64_t cols_op, const double *X, int64_t ldx)
{
    /* ||X^T||_1 = ||X||_inf */
    return notrans(trans) ? tu_dlange('1', rows_op, cols_op, X, ldx)
                          : tu_dlange('I', cols_op, rows_op, X, ldx);
}

double tu_diffnorm1(int64_t m, int64_t n, const double *C, int64_t ldc, const double *R,
                    int64_t ldr)
{
    double v = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double s = 0.0;
        for (int64_t i = 0; i < m; i++) s += fabs(C[TU_IX(i, j, ldc)] - R[TU_IX(i, j, ldr)]);
        if (!(s <= v)) v = s;
    }
    return v;
}

void tu_ref_dgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                  int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    if (m <= 0 || n <= 0) return;
    if (beta == 0.0)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) C[TU_IX(i, j, ldc)] = 0.0;
    if ((alpha == 0.0 || k == 0) && beta == 1.0) return;
    if (alpha == 0.0 || k == 0) {
        /* reference BLAS does not read A and B then */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) C[TU_IX(i, j, ldc)] *= beta;
        return;
    }
    cblas_dgemm(CblasColMajor, notrans(ta) ? CblasNoTrans : CblasTrans,
                notrans(tb) ? CblasNoTrans : CblasTrans, (int)m, (int)n, (int)k, alpha, A, (int)lda,
                B, (int)ldb, beta, C, (int)ldc);
}

double tu_eps(void) { return DBL_EPSILON * 0.5; }

double tu_gemm_ratio(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha,
                     const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                     const double *C0, int64_t ldc0, const double *C, int64_t ldc,
                     const double *Cref, int64_t ldr)
{
    if (m <= 0 || n <= 0) return 0.0;
    double err = tu_diffnorm1(m, n, C, ldc, Cref, ldr);
    double an = (alpha != 0.0 && k > 0) ? tu_opnorm1(ta, m, k, A, lda) : 0.0;
    double bn = (alpha != 0.0 && k > 0) ? tu_opnorm1(tb, k, n, B, ldb) : 0.0;
    double cn = beta != 0.0 ? tu_dlange('1', m, n, C0, ldc0) : 0.0;
    double den = (sqrt((double)k + 2.0) * fabs(alpha) * an * bn + 2.0 * fabs(beta) * cn) * tu_eps();
    if (isnan(err)) return NAN;
    if (err == 0.0) return 0.0;
    return den > 0.0 ? err / den : INFINITY;
}

/* ---- assertions ------------------------------------------------------------------------ */

int tu_finish(void)
{
    printf("%ld passed, %ld failed\n", tu_passed, tu_failed);
    fflush(stdout);
    return tu_failed ? 1 : 0;
}

/* ---- device ------------------------------------------------------------------------------ */

int tu_parse_device(const char *s, ft_device_t *dev)
{
    if (!s) return -1;
    if (strcasecmp(s, "cpu") == 0) *dev = FT_DEVICE_CPU;
    else if (strcasecmp(s, "cuda") == 0 || strcasecmp(s, "gpu") == 0) *dev = FT_DEVICE_CUDA;
    else if (strcasecmp(s, "auto") == 0) *dev = FT_DEVICE_AUTO;
    else return -1;
    return 0;
}

const char *tu_device_name(ft_device_t dev)
{
    return dev == FT_DEVICE_CPU ? "cpu" : dev == FT_DEVICE_CUDA ? "cuda" : "auto";
}

void tu_skip_no_cuda(void)
{
    printf("SKIP: no CUDA device (or built without CUDA)\n");
    fflush(stdout);
    exit(TU_SKIP);
}

ft_device_t tu_device_from_args(int argc, char **argv)
{
    ft_device_t dev = FT_DEVICE_CPU;
    if (argc > 1 && tu_parse_device(argv[1], &dev) != 0) {
        printf("usage: %s [cpu|cuda|auto]\n", argv[0]);
        exit(2);
    }
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    return dev;
}

/* ---- reports ----------------------------------------------------------------------------- */

int tu_find_event(const ft_report_t *rep, ft_event_kind_t kind, int64_t row, int64_t col)
{
    for (int e = 0; e < rep->nevents && e < FT_REPORT_MAX_EVENTS; e++) {
        const ft_event_t *ev = &rep->events[e];
        if (ev->kind == kind && ev->row == row && (col < 0 || ev->col == col)) return e;
    }
    return -1;
}

void tu_print_report(const char *what, const ft_report_t *rep)
{
    char buf[512];
    printf("    %s: %s\n", what, ft_report_string(rep, buf, sizeof buf));
    for (int e = 0; e < rep->nevents && e < FT_REPORT_MAX_EVENTS; e++) {
        const ft_event_t *ev = &rep->events[e];
        printf("      event kind=%d region=%d (%lld,%lld) step=%lld %.17g -> %.17g\n",
               (int)ev->kind, (int)ev->region, (long long)ev->row, (long long)ev->col,
               (long long)ev->step, ev->before, ev->after);
    }
}

void tu_poison_report(ft_report_t *rep) { memset(rep, 0x5a, sizeof *rep); }

ft_device_t tu_expected_backend(ft_device_t requested)
{
    return requested == FT_DEVICE_CUDA ? FT_DEVICE_CUDA : FT_DEVICE_CPU;
}

int tu_parse_sizes(const char *s, tu_sizes_t *out)
{
    char *end;
    errno = 0;
    long long a = strtoll(s, &end, 10), b = a, c = 1;
    if (end == s || errno) return -1;
    if (*end == ':') {
        const char *p = end + 1;
        b = strtoll(p, &end, 10);
        if (end == p) return -1;
        if (*end == ':') {
            p = end + 1;
            c = strtoll(p, &end, 10);
            if (end == p) return -1;
        }
    }
    if (*end != '\0' || a < 0 || b < a || c <= 0) return -1;
    out->n = 0;
    for (long long v = a; v <= b; v += c) {
        if (out->n >= TU_MAX_SIZES) return -1;
        out->v[out->n++] = v;
    }
    return 0;
}

int tu_parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

int tu_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

ft_context_t *tu_make_context(ft_device_t dev, int tile, int backup_c)
{
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, dev);
    TU_CHECK(st == 0, "ft_context_create(%s): %s", tu_device_name(dev), ft_strerror(st));
    if (!ctx) exit(tu_finish());
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.tile = tile;
    pol.backup_c = backup_c;
    st = ft_context_set_policy(ctx, &pol);
    TU_CHECK(st == 0, "ft_context_set_policy: %s", ft_strerror(st));
    return ctx;
}

int tu_parse_fault(const char *spec, ft_fault_t *f)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    memset(f, 0, sizeof *f);
    f->row = f->col = f->step = f->call = -1;
    f->bit = -2; /* unset */
    char *save = NULL, *tok = strtok_r(buf, ":", &save);
    if (!tok) return -1;
    if (!strcasecmp(tok, "R")) f->region = FT_REGION_R;
    else if (!strcasecmp(tok, "trailing")) f->region = FT_REGION_TRAILING;
    else if (!strcasecmp(tok, "Q")) f->region = FT_REGION_Q;
    else if (!strcasecmp(tok, "tau")) f->region = FT_REGION_TAU;
    else if (!strcasecmp(tok, "checksum")) f->region = FT_REGION_CHECKSUM;
    else if (!strcasecmp(tok, "reflectors")) f->region = FT_REGION_REFLECTORS;
    else if (!strcasecmp(tok, "panel")) f->region = FT_REGION_PANEL;
    else return -1;
    int have_value = 0;
    while ((tok = strtok_r(NULL, ":", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) return -1;
        *eq = '\0';
        const char *k = tok, *v = eq + 1;
        char *end;
        errno = 0;
        if (!strcmp(k, "value")) {
            f->value = strtod(v, &end);
            have_value = 1;
        } else {
            long long x = strtoll(v, &end, 10);
            if (!strcmp(k, "step")) f->step = x;
            else if (!strcmp(k, "row")) f->row = x;
            else if (!strcmp(k, "col")) f->col = x;
            else if (!strcmp(k, "bit")) {
                if (x < 0 || x > 63) return -1;
                f->bit = (int)x;
            } else return -1;
            if (x < -1) return -1;
        }
        if (end == v || *end || errno) return -1;
    }
    if (f->bit == -2) f->bit = have_value ? -1 : 55;
    else if (have_value) return -1;
    return 0;
}
