/*
 * test_reentrance.c — ftla called from inside an ftla call on the same thread.
 *
 * The argument-error handler (ft_set_xerbla) runs inside the call that found the illegal
 * argument; a handler that itself calls ftla must work (ftla.h, ft_default_context: no global
 * lock, calls nest). With one process-wide mutex these cases deadlocked: the test runs under a
 * CTest TIMEOUT. Cases, each asserting the outer status, that the handler ran exactly once per
 * illegal call with the right routine name and argument number, and the nested call's status
 * and result:
 *   1. ft_dgemm(m = -1) -> -3; the handler runs ft_dgemm (default context) on a valid problem:
 *      0, error ratio < 30 against cblas_dgemm; the outer C untouched;
 *   2. ft_dgeqrf(lda < m) -> -4 (info too); the handler runs ft_dgeqrf on a valid 300 x 200
 *      matrix (min(m,n) > 128: the protected blocked driver): 0, dqrt01 ratios < 30;
 *   3. ft_dgemm_ex(ctx, m = -1) -> -3 (report.status too); the handler runs ft_dgemm_ex on the
 *      SAME explicit context: 0, report clean (checks > 0, backend as asked), result right;
 *   4. ft_dgeqrf_ex(ctx, lda < m) whose handler runs ft_dgeqrf_ex and then ft_dgemm_ex on the
 *      same context (crossover -1), both right;
 *   5. ft_dgemm_ex(NULL, k = -1) -> -5 whose handler runs ft_dgemm_ex(NULL, ...) (the default
 *      context through the _ex entry point), report clean;
 *   6. a fault planned on ctx for its next protected call, then ft_dgemm_ex(ctx, m = -1): the
 *      illegal call computes nothing and applies nothing (report.injected 0); the nested call
 *      inside the handler is the next protected call, and corrects the fault (injected 1,
 *      corrected 1, result right); a following call on ctx sees no fault;
 *   7. two levels: the handler of ft_dgemm(m = -1) calls ft_dgemm(n = -1) (-4), whose handler
 *      (same function, one level deeper) runs a valid ft_dgemm: handler calls 2, infos 3 and 4;
 *   8. a handler that replaces itself with ft_set_xerbla while it runs (the handler lock is not
 *      held while a handler runs).
 *
 * Usage: test_reentrance cpu|cuda   (cuda: exit 77 when no device can be used)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test_dgeqrf_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0

static ft_device_t g_dev;
static ft_context_t *g_ctx; /* the explicit context of cases 3, 4, 6 */

/* ---- nested work --------------------------------------------------------------------------- */

/* A small valid product, run through `api`, checked; returns its status, *ratio the error. */
enum { NEST_PLAIN, NEST_EX_CTX, NEST_EX_NULL };

typedef struct {
    int status;
    double ratio;
    ft_report_t rep;
} nest_gemm_t;

static void nested_gemm(int api, nest_gemm_t *out, int64_t fault_row, int64_t fault_col)
{
    const int m = 57, n = 43, k = 71, lda = 60, ldb = n, ldc = 59;
    const double alpha = 1.25, beta = -0.5;
    tu_rng_t rng;
    tu_seed(&rng, 77);
    double *A = tu_malloc((int64_t)lda * k), *B = tu_malloc((int64_t)ldb * k);
    double *C0 = tu_malloc((int64_t)ldc * n), *C = tu_malloc((int64_t)ldc * n);
    double *R = tu_malloc((int64_t)ldc * n);
    tu_set_all(lda, k, A, 0.0);
    tu_set_all(ldc, n, C0, 0.0);
    tu_fill(&rng, m, k, A, lda); /* 'N': m x k */
    tu_fill(&rng, n, k, B, ldb); /* 'T': op(B) = B^T, B is n x k */
    tu_fill(&rng, m, n, C0, ldc);
    memcpy(R, C0, (size_t)ldc * n * sizeof(double));
    tu_ref_dgemm('N', 'T', m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);
    if (fault_row >= 0) { /* move the faulted element of the result well away from zero */
        const int64_t ij = TU_IX(fault_row, fault_col, ldc);
        C0[ij] += (R[ij] >= 0.0 ? 5.0 : -5.0) / beta;
        memcpy(R, C0, (size_t)ldc * n * sizeof(double));
        tu_ref_dgemm('N', 'T', m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);
    }
    memcpy(C, C0, (size_t)ldc * n * sizeof(double));
    tu_poison_report(&out->rep);
    if (api == NEST_PLAIN)
        out->status = ft_dgemm('N', 'T', m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        out->status = ft_dgemm_ex(api == NEST_EX_CTX ? g_ctx : NULL, 'N', 'T', m, n, k, alpha, A,
                                  lda, B, ldb, beta, C, ldc, &out->rep);
    out->ratio =
        tu_gemm_ratio('N', 'T', m, n, k, alpha, A, lda, B, ldb, beta, C0, ldc, C, ldc, R, ldc);
    free(A);
    free(B);
    free(C0);
    free(C);
    free(R);
}

typedef struct {
    int status, info;
    double res[2];
    ft_report_t rep;
} nest_qr_t;

static void nested_qr(int api, nest_qr_t *out)
{
    const int m = 300, n = 200, lda = 301, lwork = n * 64;
    tu_rng_t rng;
    tu_seed(&rng, 99);
    double *A = tu_malloc((int64_t)lda * n), *AF = tu_malloc((int64_t)lda * n);
    double *tau = tu_malloc(n), *work = tu_malloc(lwork);
    tu_set_all(lda, n, A, 0.0);
    tu_fill(&rng, m, n, A, lda);
    memcpy(AF, A, (size_t)lda * n * sizeof(double));
    ft_int info = -99;
    tu_poison_report(&out->rep);
    if (api == NEST_PLAIN) out->status = ft_dgeqrf(m, n, AF, lda, tau, work, lwork, &info);
    else
        out->status = ft_dgeqrf_ex(api == NEST_EX_CTX ? g_ctx : NULL, m, n, AF, lda, tau, work,
                                   lwork, &info, &out->rep);
    out->info = info;
    qr_ratios(m, n, A, lda, AF, lda, tau, out->res);
    free(A);
    free(AF);
    free(tau);
    free(work);
}

/* ---- the handler --------------------------------------------------------------------------- */

enum {
    H_GEMM_PLAIN,  /* case 1 */
    H_QR_PLAIN,    /* case 2 */
    H_GEMM_CTX,    /* case 3 */
    H_QR_GEMM_CTX, /* case 4 */
    H_GEMM_NULL,   /* case 5 */
    H_GEMM_FAULT,  /* case 6 */
    H_TWO_LEVELS,  /* case 7 */
};

#define MAXLOG 8
static struct {
    int mode;
    int calls, depth, max_depth;
    int info[MAXLOG];
    char name[MAXLOG][32];
    nest_gemm_t gemm;
    nest_qr_t qr;
    int inner_status; /* case 7: the status of the illegal call made by the handler */
    int64_t fault_row, fault_col;
} g_h;

static void reset_log(int mode)
{
    memset(&g_h, 0, sizeof g_h);
    g_h.mode = mode;
    g_h.gemm.status = g_h.qr.status = g_h.inner_status = 12345;
    g_h.fault_row = g_h.fault_col = -1;
}

static void handler(const char *srname, int info)
{
    if (g_h.calls < MAXLOG) {
        g_h.info[g_h.calls] = info;
        snprintf(g_h.name[g_h.calls], sizeof g_h.name[0], "%s", srname ? srname : "(null)");
    }
    g_h.calls++;
    if (g_h.calls > MAXLOG) return; /* runaway recursion: stop, the counts fail the test */
    g_h.depth++;
    if (g_h.depth > g_h.max_depth) g_h.max_depth = g_h.depth;
    switch (g_h.mode) {
    case H_GEMM_PLAIN: nested_gemm(NEST_PLAIN, &g_h.gemm, -1, -1); break;
    case H_QR_PLAIN: nested_qr(NEST_PLAIN, &g_h.qr); break;
    case H_GEMM_CTX: nested_gemm(NEST_EX_CTX, &g_h.gemm, -1, -1); break;
    case H_QR_GEMM_CTX:
        nested_qr(NEST_EX_CTX, &g_h.qr);
        nested_gemm(NEST_EX_CTX, &g_h.gemm, -1, -1);
        break;
    case H_GEMM_NULL: nested_gemm(NEST_EX_NULL, &g_h.gemm, -1, -1); break;
    case H_GEMM_FAULT: nested_gemm(NEST_EX_CTX, &g_h.gemm, g_h.fault_row, g_h.fault_col); break;
    case H_TWO_LEVELS:
        if (g_h.depth == 1) {
            double C[4] = {1, 2, 3, 4};
            g_h.inner_status = ft_dgemm('N', 'N', 2, -1, 2, 1.0, C, 2, C, 2, 0.0, C, 2);
        } else {
            nested_gemm(NEST_PLAIN, &g_h.gemm, -1, -1);
        }
        break;
    default: break;
    }
    g_h.depth--;
}

static int g_other_calls;
static void other_handler(const char *srname, int info)
{
    (void)srname;
    (void)info;
    g_other_calls++;
}

static int g_self_calls;
static ft_xerbla_t g_self_prev;
static void self_replacing_handler(const char *srname, int info)
{
    (void)srname;
    (void)info;
    g_self_calls++;
    g_self_prev = ft_set_xerbla(other_handler);
}

/* ---- checks -------------------------------------------------------------------------------- */

static void check_log(const char *what, int ncalls, const char *name0, int info0)
{
    TU_CHECK(g_h.calls == ncalls, "%s: handler ran %d times, expected %d", what, g_h.calls, ncalls);
    if (g_h.calls >= 1)
        TU_CHECK(strcmp(g_h.name[0], name0) == 0 && g_h.info[0] == info0,
                 "%s: handler got (%s, %d), expected (%s, %d)", what, g_h.name[0], g_h.info[0],
                 name0, info0);
}

/* The nested product: status 0, right, and on a report clean and on the asked backend. */
static void check_nested_gemm(const char *what, int has_report, int expect_injected)
{
    const nest_gemm_t *g = &g_h.gemm;
    const long bad0 = tu_failed;
    TU_CHECK(g->status == 0, "%s: nested dgemm status %d (%s)", what, g->status,
             ft_strerror(g->status));
    TU_CHECK(g->ratio < TOL, "%s: nested dgemm error ratio %.3e", what, g->ratio);
    if (has_report) {
        const ft_report_t *r = &g->rep;
        TU_CHECK(r->status == 0 && r->backend == tu_expected_backend(g_dev),
                 "%s: nested report status %d backend %d", what, r->status, (int)r->backend);
        TU_CHECK(r->checks > 0 && r->uncorrectable == 0, "%s: nested report checks %lld", what,
                 (long long)r->checks);
        TU_CHECK(r->injected == expect_injected && r->detected == expect_injected &&
                     r->corrected == expect_injected,
                 "%s: nested report injected %lld detected %lld corrected %lld, expected %d", what,
                 (long long)r->injected, (long long)r->detected, (long long)r->corrected,
                 expect_injected);
        if (tu_failed != bad0) tu_print_report(what, r);
    }
}

static void check_nested_qr(const char *what, int has_report)
{
    const nest_qr_t *q = &g_h.qr;
    const long bad0 = tu_failed;
    TU_CHECK(q->status == 0 && q->info == 0, "%s: nested dgeqrf status %d info %d (%s)", what,
             q->status, q->info, ft_strerror(q->status));
    TU_CHECK(q->res[0] < TOL && q->res[1] < TOL, "%s: nested dgeqrf ratios %.3g %.3g", what,
             q->res[0], q->res[1]);
    if (has_report) {
        const ft_report_t *r = &q->rep;
        TU_CHECK(r->status == 0 && r->backend == tu_expected_backend(g_dev),
                 "%s: nested report status %d backend %d", what, r->status, (int)r->backend);
        TU_CHECK(r->checks > 0 && r->detected == 0 && r->injected == 0,
                 "%s: nested report checks %lld detected %lld injected %lld", what,
                 (long long)r->checks, (long long)r->detected, (long long)r->injected);
        if (tu_failed != bad0) tu_print_report(what, r);
    }
}

/* An illegal dgemm on the outer level; C must come back untouched. */
static int outer_gemm(ft_context_t *ctx, int use_ex, ft_int m, ft_int n, ft_int k, ft_report_t *rep,
                      int *c_untouched)
{
    double A[16], B[16], C[16], C0[16];
    for (int i = 0; i < 16; i++) A[i] = B[i] = C0[i] = C[i] = 0.5 + i;
    int st = use_ex ? ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0, A, 4, B, 4, 1.0, C, 4, rep)
                    : ft_dgemm('N', 'N', m, n, k, 1.0, A, 4, B, 4, 1.0, C, 4);
    *c_untouched = memcmp(C, C0, sizeof C) == 0;
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 2 || tu_parse_device(argv[1], &g_dev) != 0 || g_dev == FT_DEVICE_AUTO) {
        printf("usage: %s cpu|cuda\n", argv[0]);
        return 2;
    }
    setenv("FTLA_DEVICE", tu_device_name(g_dev), 1); /* before the first ftla call */
    if (g_dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();

    int st = ft_context_create(&g_ctx, g_dev);
    TU_CHECK(st == 0 && g_ctx, "ft_context_create(%s): %s", tu_device_name(g_dev), ft_strerror(st));
    if (!g_ctx) return tu_finish();
    ft_policy_t pol;
    st = ft_context_get_policy(g_ctx, &pol);
    pol.crossover = -1;
    if (st == 0) st = ft_context_set_policy(g_ctx, &pol);
    TU_CHECK(st == 0, "set policy crossover -1: %s", ft_strerror(st));

    ft_set_xerbla(handler);
    int untouched;
    ft_report_t rep;

    /* 1. plain ft_dgemm inside plain ft_dgemm's handler */
    reset_log(H_GEMM_PLAIN);
    st = outer_gemm(NULL, 0, -1, 4, 4, NULL, &untouched);
    TU_CHECK(st == -3, "case 1: outer ft_dgemm(m = -1) returned %d", st);
    TU_CHECK(untouched, "case 1: outer C changed");
    check_log("case 1", 1, "FT_DGEMM", 3);
    check_nested_gemm("case 1", 0, 0);

    /* 2. plain ft_dgeqrf inside plain ft_dgeqrf's handler */
    {
        reset_log(H_QR_PLAIN);
        double A[16], A0[16], tau[4], work[64];
        for (int i = 0; i < 16; i++) A[i] = A0[i] = 1.0 + i;
        ft_int info = 99;
        st = ft_dgeqrf(8, 2, A, 7, tau, work, 64, &info);
        TU_CHECK(st == -4 && info == -4, "case 2: outer ft_dgeqrf(lda < m) returned %d info %d", st,
                 (int)info);
        TU_CHECK(memcmp(A, A0, sizeof A) == 0, "case 2: outer A changed");
        check_log("case 2", 1, "FT_DGEQRF", 4);
        check_nested_qr("case 2", 0);
    }

    /* 3. ft_dgemm_ex on ctx inside the handler of an ft_dgemm_ex on the same ctx */
    reset_log(H_GEMM_CTX);
    tu_poison_report(&rep);
    st = outer_gemm(g_ctx, 1, -1, 4, 4, &rep, &untouched);
    TU_CHECK(st == -3 && rep.status == -3,
             "case 3: outer ft_dgemm_ex(ctx, m = -1) returned %d, report %d", st, rep.status);
    TU_CHECK(untouched, "case 3: outer C changed");
    check_log("case 3", 1, "FT_DGEMM", 3);
    check_nested_gemm("case 3", 1, 0);

    /* 4. ft_dgeqrf_ex and ft_dgemm_ex on ctx inside the handler of ft_dgeqrf_ex on ctx */
    {
        reset_log(H_QR_GEMM_CTX);
        double A[16], A0[16], tau[4], work[64];
        for (int i = 0; i < 16; i++) A[i] = A0[i] = 1.0 + i;
        ft_int info = 99;
        tu_poison_report(&rep);
        st = ft_dgeqrf_ex(g_ctx, 8, 2, A, 7, tau, work, 64, &info, &rep);
        TU_CHECK(st == -4 && info == -4 && rep.status == -4,
                 "case 4: outer ft_dgeqrf_ex(ctx, lda < m) returned %d info %d report %d", st,
                 (int)info, rep.status);
        TU_CHECK(memcmp(A, A0, sizeof A) == 0, "case 4: outer A changed");
        check_log("case 4", 1, "FT_DGEQRF", 4);
        check_nested_qr("case 4", 1);
        check_nested_gemm("case 4", 1, 0);
    }

    /* 5. the default context through ft_dgemm_ex(NULL) at both levels */
    reset_log(H_GEMM_NULL);
    tu_poison_report(&rep);
    st = outer_gemm(NULL, 1, 4, 4, -1, &rep, &untouched);
    TU_CHECK(st == -5 && rep.status == -5,
             "case 5: outer ft_dgemm_ex(NULL, k = -1) returned %d, report %d", st, rep.status);
    TU_CHECK(untouched, "case 5: outer C changed");
    check_log("case 5", 1, "FT_DGEMM", 5);
    check_nested_gemm("case 5", 1, 0);

    /* 6. a fault planned for the next protected call on ctx: the illegal outer call is not one,
     *    the nested call is */
    {
        reset_log(H_GEMM_FAULT);
        g_h.fault_row = 13;
        g_h.fault_col = 7;
        const ft_fault_t f = {.region = FT_REGION_C,
                              .row = 13,
                              .col = 7,
                              .bit = 60,
                              .value = 0.0,
                              .call = -1,
                              .step = -1};
        st = ft_inject_add(g_ctx, &f);
        TU_CHECK(st == 0, "case 6: ft_inject_add: %s", ft_strerror(st));
        tu_poison_report(&rep);
        st = outer_gemm(g_ctx, 1, -1, 4, 4, &rep, &untouched);
        TU_CHECK(st == -3 && rep.status == -3 && rep.injected == 0,
                 "case 6: outer returned %d, report %d, injected %lld", st, rep.status,
                 (long long)rep.injected);
        TU_CHECK(untouched, "case 6: outer C changed");
        check_log("case 6", 1, "FT_DGEMM", 3);
        check_nested_gemm("case 6", 1, 1);
        TU_CHECK(tu_find_event(&g_h.gemm.rep, FT_EVENT_CORRECTED, 13, 7) >= 0,
                 "case 6: no corrected event at (13,7)");
        /* nothing left planned: a following call on ctx is clean */
        reset_log(-1);
        nested_gemm(NEST_EX_CTX, &g_h.gemm, -1, -1);
        check_nested_gemm("case 6, the call after", 1, 0);
        TU_CHECK(g_h.calls == 0, "case 6: the handler ran on a valid call");
    }

    /* 7. two levels of handlers */
    reset_log(H_TWO_LEVELS);
    st = outer_gemm(NULL, 0, -1, 4, 4, NULL, &untouched);
    TU_CHECK(st == -3, "case 7: outer ft_dgemm(m = -1) returned %d", st);
    TU_CHECK(untouched, "case 7: outer C changed");
    check_log("case 7", 2, "FT_DGEMM", 3);
    TU_CHECK(g_h.calls < 2 || (g_h.info[1] == 4 && strcmp(g_h.name[1], "FT_DGEMM") == 0),
             "case 7: second handler call got (%s, %d), expected (FT_DGEMM, 4)", g_h.name[1],
             g_h.info[1]);
    TU_CHECK(g_h.inner_status == -4, "case 7: the handler's ft_dgemm(n = -1) returned %d",
             g_h.inner_status);
    TU_CHECK(g_h.max_depth == 2, "case 7: handler depth %d, expected 2", g_h.max_depth);
    check_nested_gemm("case 7", 0, 0);

    /* 8. a handler that replaces itself while it runs */
    ft_set_xerbla(self_replacing_handler);
    st = outer_gemm(NULL, 0, -1, 4, 4, NULL, &untouched);
    TU_CHECK(st == -3 && g_self_calls == 1 && g_self_prev == self_replacing_handler,
             "case 8: status %d, handler calls %d, ft_set_xerbla inside returned %s", st,
             g_self_calls,
             g_self_prev == self_replacing_handler ? "the running handler" : "another handler");
    st = outer_gemm(NULL, 0, 4, -1, 4, NULL, &untouched);
    TU_CHECK(st == -4 && g_self_calls == 1 && g_other_calls == 1,
             "case 8: after the replacement: status %d, calls %d and %d", st, g_self_calls,
             g_other_calls);

    ft_set_xerbla(NULL);
    st = ft_context_destroy(g_ctx);
    TU_CHECK(st == 0, "ft_context_destroy: %s", ft_strerror(st));
    return tu_finish();
}
