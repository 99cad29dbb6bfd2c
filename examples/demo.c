/*
 * demo.c — ftla in one run, in two parts.
 *
 * 1. ft_dgemm: multiply two random matrices with ft_dgemm_ex, flip one exponent bit of C while
 *    the product is being computed, and show that the ABFT checks detect and correct it.
 * 2. ft_dgeqrf: factor a random M x N matrix A = QR with ft_dgeqrf_ex three times, each time with
 *    one bit flip (bit 60) injected:
 *      a. into a finished row of R (FT_REGION_R, after panel step 2), checks at the end:
 *         detected, located and corrected in place;
 *      b. into the trailing matrix before panel step 3 (FT_REGION_TRAILING) with online checks
 *         before every panel (policy.verify_every = 1): corrected in place before the panel
 *         consumes it;
 *      c. the same as b without online checks (verify_every = 0): the panel consumes the error,
 *         it spreads over many rows; detected, located in the injected column and recovered
 *         by re-factorization from the first panel it reached (docs/recovery.md): status 0,
 *         LAPACK's layout, the same ratios. Required.
 *    a and b print the injection, the report and the LAPACK dqrt01 ratios
 *    ||A - QR||_1 / (max(m,n) ||A||_1 eps) and ||I - Q^T Q||_1 / (m eps) (Q from LAPACKE_dorgqr).
 *
 *   ftla_demo                 m = n = k = 1024 (QR of 1024 x 1024)
 *   ftla_demo N               m = n = k = N    (QR of N x N)
 *   ftla_demo M N K [SEED]    C (M x N) = A (M x K) * B (K x N), QR of a random M x N matrix;
 *                             SEED picks data and fault positions
 *
 * Backend: the GPU when ft_cuda_available(), else the CPU. FTLA_DEVICE=cpu forces the CPU,
 * FTLA_DEVICE=cuda requires the GPU (exit 77 = skipped when there is none). Both parts use it.
 *
 * Exit 0 and "demo: OK" only when
 *   - ft_dgemm: the fault was injected, detected and corrected in place, the call returned 0, and
 *     ||C - C_ref||_1 / (sqrt(k+2) ||A||_1 ||B||_1 eps) < 30 against a fault-free cblas_dgemm;
 *   - ft_dgeqrf a and b: the call returned 0, the fault was injected, corrected == injected, the
 *     correction is at the injected element, and both dqrt01 ratios are < 30;
 * (eps = 2^-53, LAPACK's dlamch('E'), as in the testers); exit 1 otherwise.
 */
#include "ftla.h"

#include <cblas.h>
#include <lapacke.h>
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

/* ------------------------------------------------------------------------------------------ */
/* Part 2: ft_dgeqrf                                                                             */
/* ------------------------------------------------------------------------------------------ */

static const char *region_name(ft_region_t r)
{
    switch (r) {
    case FT_REGION_R: return "R";
    case FT_REGION_TRAILING: return "trailing";
    case FT_REGION_Q: return "Q";
    case FT_REGION_TAU: return "tau";
    case FT_REGION_CHECKSUM: return "checksum";
    case FT_REGION_REFLECTORS: return "reflectors in use";
    case FT_REGION_PANEL: return "panel";
    default: return "?";
    }
}

/* dqrt01 ratios of the LAPACK-layout factorization AF/tau of the m x n A (ld m):
 * res[0] = ||A - Q R||_1 / (max(m,n) ||A||_1 eps), res[1] = ||I - Q^T Q||_1 / (m eps). */
static int qr_ratios(int m, int n, const double *A, const double *AF, const double *tau,
                     double res[2])
{
    const double eps = DBL_EPSILON / 2;
    const int k = m < n ? m : n;
    double *Q = calloc((size_t)m * m, sizeof *Q), *Id = calloc((size_t)m * m, sizeof *Id);
    double *R = malloc((size_t)m * n * sizeof *R), *E = malloc((size_t)m * n * sizeof *E);
    if (!Q || !Id || !R || !E) {
        free(Q), free(Id), free(R), free(E);
        return -1;
    }
    for (int j = 0; j < k; j++)
        for (int i = j + 1; i < m; i++) Q[i + (size_t)j * m] = AF[i + (size_t)j * m];
    int info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, m, k, Q, m, tau);
    /* E = A - Q R, R = the upper trapezoid of AF */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) R[i + (size_t)j * m] = i <= j ? AF[i + (size_t)j * m] : 0.0;
    memcpy(E, A, (size_t)m * n * sizeof *E);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, m, -1.0, Q, m, R, m, 1.0, E, m);
    double an = norm1(A, m, n);
    res[0] = an > 0 ? norm1(E, m, n) / ((double)(m > n ? m : n) * an * eps) : norm1(E, m, n);
    /* Id - Q^T Q */
    for (int i = 0; i < m; i++) Id[i + (size_t)i * m] = 1.0;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, m, m, -1.0, Q, m, Q, m, 1.0, Id, m);
    res[1] = norm1(Id, m, m) / ((double)m * eps);
    free(Q), free(E), free(Id), free(R);
    return info;
}

/* One ft_dgeqrf_ex run on a copy of A with one fault; prints what happened. Returns NULL when
 * the run is as required (must_correct: corrected in place, ratios < 30), else the reason. */
static const char *qr_run(ft_context_t *ctx, const char *title, int m, int n, const double *A,
                          ft_region_t region, int64_t step, int verify_every, int nb,
                          int64_t npanels, int must_correct)
{
    const int k = m < n ? m : n;
    double *AF = malloc((size_t)m * n * sizeof *AF), *tau = malloc((size_t)k * sizeof *tau);
    double *work = malloc((size_t)n * sizeof *work);
    if (!AF || !tau || !work) {
        free(AF), free(tau), free(work);
        return "out of memory";
    }
    memcpy(AF, A, (size_t)m * n * sizeof *AF);

    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.protect = 1;
    pol.nb = nb;                  /* 0 = automatic */
    pol.crossover = -1;           /* always the blocked, protected driver (also for small sizes) */
    pol.verify_every = verify_every;
    ft_context_set_policy(ctx, &pol);
    ft_fault_t fault = {.region = region, .row = -1, .col = -1, .bit = FAULT_BIT, .value = 0.0,
                        .call = -1, .step = step};
    ft_inject_clear(ctx);
    ft_inject_add(ctx, &fault);

    printf("\n%s\n", title);
    ft_report_t rep;
    ft_int info = 0;
    int st = ft_dgeqrf_ex(ctx, m, n, AF, m, tau, work, n, &info, &rep);
    printf("  ft_dgeqrf_ex returned %d (%s), backend %s\n", st, ft_strerror(st),
           backend_name(rep.backend));

    int64_t fi = -1, fj = -1, ci = -1, cj = -1, lj = -1;
    for (int e = 0; e < rep.nevents; e++) {
        const ft_event_t *ev = &rep.events[e];
        switch (ev->kind) {
        case FT_EVENT_INJECTED:
            fi = ev->row, fj = ev->col;
            printf("  injected : bit %d of A(%lld,%lld) (0-based, %s region, panel step %lld): "
                   "%.17g -> %.17g\n", FAULT_BIT, (long long)ev->row, (long long)ev->col,
                   region_name(ev->region), (long long)ev->step, ev->before, ev->after);
            break;
        case FT_EVENT_CORRECTED:
            ci = ev->row, cj = ev->col;
            printf("  corrected: A(%lld,%lld) in place (%s region, %s check", (long long)ev->row,
                   (long long)ev->col, region_name(ev->region),
                   ev->step >= npanels ? "final" : "online");
            if (ev->step < npanels) printf(" before panel step %lld", (long long)ev->step);
            printf("): %.17g -> %.17g\n", ev->before, ev->after);
            break;
        case FT_EVENT_RECOVERED:
            lj = ev->col;
            printf("  recovered: column %lld (%s check): the error was consumed by a panel and "
                   "spread over many rows; recovered by %s\n", (long long)ev->col,
                   ev->step >= npanels ? "final" : "online",
                   ev->before == 1.0 ? "QR update" : "re-factorization from its panel");
            break;
        case FT_EVENT_LOCATED:
            lj = ev->col;
            printf("  located  : column %lld (%s check): the error was consumed by a panel and "
                   "spread over many rows; not recovered\n", (long long)ev->col,
                   ev->step >= npanels ? "final" : "online");
            break;
        case FT_EVENT_CHECKSUM:
            printf("  checksum : checksum column %lld corrupted, data intact\n",
                   (long long)ev->col);
            break;
        case FT_EVENT_UNCORRECTABLE:
            printf("  UNCORRECTABLE: row %lld, column %lld (step %lld)\n", (long long)ev->row,
                   (long long)ev->col, (long long)ev->step);
            break;
        default: break;
        }
    }
    printf("  report   : injected %lld, detected %lld, located %lld, corrected %lld, "
           "uncorrectable %lld, checksum errors %lld, checks %lld, unchecked %lld\n",
           (long long)rep.injected, (long long)rep.detected, (long long)rep.located,
           (long long)rep.corrected, (long long)rep.uncorrectable, (long long)rep.checksum_errors,
           (long long)rep.checks, (long long)rep.unchecked);
    printf("  time     : %.3f s total, %.3f s in protection\n", rep.time_total, rep.time_protect);

    const char *why = NULL;
    if (must_correct) {
        double res[2] = {NAN, NAN};
        if (qr_ratios(m, n, A, AF, tau, res) < 0) why = "out of memory or dorgqr failed";
        printf("  accuracy : ||A - QR||_1/(max(m,n)||A||_1 eps) = %.3g, ||I - Q^T Q||_1/(m eps) = "
               "%.3g (both must be < %g)\n", res[0], res[1], RATIO_MAX);
        if (why) {
        } else if (st != 0) why = "ft_dgeqrf_ex did not return 0";
        else if (rep.injected != 1 || fi < 0) why = "the fault was not injected";
        else if (rep.detected < 1) why = "the fault was not detected";
        else if (rep.corrected != rep.injected || rep.uncorrectable != 0) why = "not corrected";
        else if (must_correct == 2 && (rep.recovered != 1 || lj != fj))
            why = "not recovered at the injected column";
        else if (must_correct == 1 && (ci != fi || cj != fj))
            why = "the correction is not where the fault was injected";
        else if (!(res[0] < RATIO_MAX && res[1] < RATIO_MAX)) why = "the factorization is not accurate";
        if (!why && must_correct == 2)
            printf("  verdict  : detected, located in column %lld and recovered (report: "
                   "refactor from column %lld, %.3f s)\n", (long long)fj,
                   (long long)rep.refactor_col, rep.time_recovery);
        else if (!why)
            printf("  verdict  : detected, located and corrected in place at A(%lld,%lld)\n",
                   (long long)fi, (long long)fj);
        else
            printf("  verdict  : FAILED (%s)\n", why);
    } else {
        int ok = st == FT_ERR_NOT_RECOVERED && rep.injected == 1 && rep.detected >= 1 &&
                 lj >= 0 && lj == fj;
        if (ok)
            printf("  verdict  : detected, located in the injected column, not recovered (as "
                   "documented)\n");
        else if (st == 0 && rep.injected == 1 && rep.corrected == 1)
            printf("  verdict  : corrected in place (no later panel consumed the element)\n");
        else
            printf("  verdict  : status %d (informational only)\n", st);
    }
    ft_inject_clear(ctx);
    free(AF), free(tau), free(work);
    return why;
}

/* Part 2. Returns NULL when a and b passed. */
static const char *qr_part(ft_context_t *ctx, int m, int n, uint64_t seed)
{
    const int k = m < n ? m : n;
    if (k < 4) {
        printf("\nft_dgeqrf part skipped: min(M,N) = %d < 4 leaves too few panel steps\n", k);
        return NULL;
    }
    /* block size 64 (the library's automatic choice for n >= 1024, docs/qr.md), set explicitly
     * so the demo knows its panel steps; small matrices get k/4: at least four steps */
    int nb = k >= 256 ? 64 : k / 4;
    int nb_eff = nb;
    int64_t np = (k + nb_eff - 1) / nb_eff;
    printf("\nftla demo, part 2: A = QR with ft_dgeqrf_ex, A %d x %d (uniform [-1,1]), block size "
           "%d, %lld panel steps\n", m, n, nb_eff, (long long)np);
    double *A = malloc((size_t)m * n * sizeof *A);
    if (!A) return "out of memory";
    uint64_t rs = seed ^ 0x51526465ull;
    for (size_t i = 0; i < (size_t)m * n; i++) A[i] = uniform(&rs);
    ft_inject_seed(ctx, seed);

    const char *why = qr_run(ctx, "a. bit flip in a finished row of R after panel step 2, "
                             "checks at the end (verify_every = 0):",
                             m, n, A, FT_REGION_R, 2, 0, nb, np, 1);
    const char *why2 = qr_run(ctx, "b. bit flip in the trailing matrix before panel step 3, "
                              "online checks before every panel (verify_every = 1):",
                              m, n, A, FT_REGION_TRAILING, 3, 1, nb, np, 1);
    const char *why3 = qr_run(ctx, "c. bit flip in the trailing matrix before panel step 3 "
                              "without online checks (verify_every = 0): a panel consumes it, it "
                              "propagates, and is recovered:",
                              m, n, A, FT_REGION_TRAILING, 3, 0, nb, np, 2);
    free(A);
    return why ? why : why2 ? why2 : why3;
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

    printf("ftla demo, part 1: C = A*B with ft_dgemm_ex, A %d x %d, B %d x %d (uniform [-1,1]), seed %llu\n", m, k, k, n,
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

    free(A);
    free(B);
    free(C);
    free(Cref);

    const char *why_qr = qr_part(ctx, m, n, seed);
    ft_context_destroy(ctx);
    if (why || why_qr) {
        printf("\ndemo: FAILED (%s%s%s%s%s)\n", why ? "ft_dgemm: " : "", why ? why : "",
               why && why_qr ? "; " : "", why_qr ? "ft_dgeqrf: " : "", why_qr ? why_qr : "");
        return 1;
    }
    printf("\ndemo: OK\n");
    return 0;

usage:
    fprintf(stderr, "usage: %s [N | M N K [SEED]]   (sizes >= 1, default 1024)\n", argv[0]);
    return 1;
}
