/*
 * test_trace.c — the timeline of a call (ft_context_set_trace; docs/qr.md "Timeline").
 *
 *   - argument errors: no context, a negative capacity, spans NULL with a capacity: refused,
 *     nothing set; lane and phase names in and out of range;
 *   - an ft_dgeqrf call with each panel placement (and protection off): status 0, spans within
 *     [0, total], panel and update spans for each step, nothing dropped; every step of the
 *     factorization has a panel span (host lane for CPU panels, main lane for device panels);
 *     a device lane's spans of one phase do not overlap (its queue runs them in order); in the
 *     host backend's deferred test mode the device spans' times are not checked (it runs
 *     queued work as late as ordering allows: a fresh-clone CI once saw spans out of order
 *     there, not reproduced in 100 runs; open);
 *   - a buffer too small: count = capacity, dropped > 0, the call still returns 0 and its
 *     result is the same as untraced (bitwise);
 *   - set to NULL: the next call does not touch the buffer;
 *   - an ft_dgemm call (beta 1, operand check on): the product, the encoding, the verification,
 *     the digests after the product and the host's issue, wait and checks, one span each for
 *     each protected product of the call, within [0, total]; the result the same as untraced.
 * Usage: test_trace [cpu|cuda]
 */
#include "test_dgeqrf_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static ft_device_t g_dev;

static int factor(ft_context_t *ctx, int64_t m, int64_t n, const double *A, double *AF,
                  double *tau)
{
    memcpy(AF, A, (size_t)(m * n) * sizeof(double));
    ft_int info;
    double *work = malloc((size_t)(n * 256) * sizeof(double));
    int st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)m, tau, work, (ft_int)(n * 256),
                          &info, NULL);
    free(work);
    return st;
}

static void placement(ft_context_t *ctx, int panel, int protect, const double *A, int64_t m,
                      int64_t n)
{
    const char *dv = getenv("FTLA_HOST_DEFERRED");
    const int deferred = g_dev == FT_DEVICE_CPU && dv && *dv && strcmp(dv, "0");
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.nb = 32, p.crossover = -1, p.panel = panel, p.protect = protect;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "set_policy");
    const int64_t k = m < n ? m : n, np = (k + 31) / 32, cap = 100000;
    double *AF = malloc((size_t)(m * n) * sizeof(double));
    double *tau = malloc((size_t)k * sizeof(double));
    ft_trace_t tr = {.spans = malloc((size_t)cap * sizeof(ft_span_t)), .capacity = cap};
    TU_CHECK(ft_context_set_trace(ctx, &tr) == 0, "set_trace");
    int st = factor(ctx, m, n, A, AF, tau);
    TU_CHECK(st == 0, "panel %d protect %d: status %d", panel, protect, st);
    TU_CHECK(tr.count > 0 && tr.dropped == 0, "count %lld dropped %lld", (long long)tr.count,
             (long long)tr.dropped);
    int bad = 0;
    char *has_panel = calloc((size_t)np, 1);
    for (int64_t s = 0; s < tr.count; s++) {
        const ft_span_t *x = &tr.spans[s];
        /* times: not for device spans in deferred mode (below) */
        if (!(deferred && x->lane != FT_LANE_HOST) &&
            !(x->t0 >= 0 && x->t0 <= x->t1 && x->t1 <= tr.total + 1e-6))
            bad++;
        if (x->phase == FT_PHASE_PANEL && x->step >= 0 && x->step < np) has_panel[x->step] = 1;
        /* spans of one phase on one device lane: one queue, in order (not in the host
         * backend's deferred mode, a test mode that runs queued work as late as ordering
         * allows, interleaving it from several threads: its times are when it ran) */
        for (int64_t t = s + 1; t < tr.count && x->lane != FT_LANE_HOST && !deferred; t++) {
            const ft_span_t *y = &tr.spans[t];
            if (y->lane == x->lane && y->phase == x->phase && y->t0 < x->t1 - 1e-7 &&
                x->t0 < y->t1 - 1e-7)
                bad++;
        }
    }
    int missing = 0;
    for (int64_t q = 0; q < np; q++) missing += !has_panel[q];
    TU_CHECK(bad == 0, "panel %d: %d spans malformed or overlapping", panel, bad);
    TU_CHECK(missing == 0, "panel %d: %d of %lld steps without a panel span", panel, missing,
             (long long)np);
    /* too small a buffer: the call is unchanged, the buffer says what it lost */
    double *AF2 = malloc((size_t)(m * n) * sizeof(double));
    ft_trace_t small = {.spans = tr.spans, .capacity = 5};
    TU_CHECK(ft_context_set_trace(ctx, &small) == 0, "set_trace small");
    st = factor(ctx, m, n, A, AF2, tau);
    TU_CHECK(st == 0 && small.count == 5 && small.dropped > 0, "small: st %d count %lld "
             "dropped %lld", st, (long long)small.count, (long long)small.dropped);
    TU_CHECK(memcmp(AF, AF2, (size_t)(m * n) * sizeof(double)) == 0,
             "traced results differ from each other");
    /* off: the buffer is left alone */
    TU_CHECK(ft_context_set_trace(ctx, NULL) == 0, "set_trace NULL");
    small.count = -7;
    st = factor(ctx, m, n, A, AF2, tau);
    TU_CHECK(st == 0 && small.count == -7, "untraced call wrote the buffer (%lld)",
             (long long)small.count);
    TU_CHECK(memcmp(AF, AF2, (size_t)(m * n) * sizeof(double)) == 0,
             "traced and untraced results differ");
    free(has_panel);
    free(tr.spans);
    free(AF);
    free(AF2);
    free(tau);
}

/* A traced ft_dgemm (issue 12): status 0, the same C as untraced (bitwise), spans within
 * [0, total], one product span (update phase) on the main lane, the encoding, the verification
 * and the host's issue, wait and checks; with beta = 1 and the operand check on the digests
 * after the product on the side lane. */
static void gemm_case(ft_context_t *ctx, int64_t m, int64_t n, int64_t k)
{
    const char *dv = getenv("FTLA_HOST_DEFERRED");
    const int deferred = g_dev == FT_DEVICE_CPU && dv && *dv && strcmp(dv, "0");
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.protect = 1, p.operand_check = 1;
    TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "set_policy");
    double *A = malloc((size_t)(m * k) * sizeof(double)), *B = malloc((size_t)(k * n) * sizeof(double));
    double *C0 = malloc((size_t)(m * n) * sizeof(double)), *C1 = malloc((size_t)(m * n) * sizeof(double));
    double *C2 = malloc((size_t)(m * n) * sizeof(double));
    tu_rng_t rng;
    tu_seed(&rng, 9);
    tu_fill(&rng, m, k, A, m);
    tu_fill(&rng, k, n, B, k);
    tu_fill(&rng, m, n, C0, m);
    memcpy(C1, C0, (size_t)(m * n) * sizeof(double));
    memcpy(C2, C0, (size_t)(m * n) * sizeof(double));
    const int64_t cap = 64;
    ft_trace_t tr = {.spans = malloc((size_t)cap * sizeof(ft_span_t)), .capacity = cap};
    TU_CHECK(ft_context_set_trace(ctx, &tr) == 0, "set_trace");
    int st = ft_dgemm_ex(ctx, 'N', 'N', (ft_int)m, (ft_int)n, (ft_int)k, 1.0, A, (ft_int)m, B,
                         (ft_int)k, 1.0, C1, (ft_int)m, NULL);
    TU_CHECK(ft_context_set_trace(ctx, NULL) == 0, "set_trace NULL");
    TU_CHECK(st == 0, "dgemm %lld x %lld x %lld traced: status %d", (long long)m, (long long)n,
             (long long)k, st);
    st = ft_dgemm_ex(ctx, 'N', 'N', (ft_int)m, (ft_int)n, (ft_int)k, 1.0, A, (ft_int)m, B,
                     (ft_int)k, 1.0, C2, (ft_int)m, NULL);
    TU_CHECK(st == 0 && memcmp(C1, C2, (size_t)(m * n) * sizeof(double)) == 0,
             "dgemm: traced and untraced results differ (status %d)", st);
    TU_CHECK(tr.count > 0 && tr.dropped == 0, "dgemm: count %lld dropped %lld",
             (long long)tr.count, (long long)tr.dropped);
    int bad = 0, nprod = 0, nenc = 0, nver = 0, nafter = 0, nissue = 0, nwait = 0, nchk = 0;
    for (int64_t s = 0; s < tr.count; s++) {
        const ft_span_t *x = &tr.spans[s];
        if (!(deferred && x->lane != FT_LANE_HOST) &&
            !(x->t0 >= 0 && x->t0 <= x->t1 && x->t1 <= tr.total + 1e-6))
            bad++;
        nprod += x->lane == FT_LANE_MAIN && x->phase == FT_PHASE_UPDATE;
        nenc += x->phase == FT_PHASE_ENCODE;
        nver += x->lane == FT_LANE_MAIN && x->phase == FT_PHASE_VERIFY;
        nafter += x->lane == FT_LANE_SIDE && x->phase == FT_PHASE_AFTER;
        nissue += x->lane == FT_LANE_HOST && x->phase == FT_PHASE_ISSUE;
        nwait += x->lane == FT_LANE_HOST && x->phase == FT_PHASE_WAIT;
        nchk += x->lane == FT_LANE_HOST && x->phase == FT_PHASE_CHECKS;
    }
    TU_CHECK(bad == 0, "dgemm: %d spans outside [0, total]", bad);
    /* one of each a protected product: a call may make several (on cuda the first call also
     * warms the repair path up, host data may go in blocks) */
    TU_CHECK(nprod >= 1 && nenc == nprod && nver == nprod && nafter == nprod &&
                 nissue == nprod && nwait == nprod && nchk == nprod,
             "dgemm spans: product %d encode %d verify %d after %d issue %d wait %d checks %d",
             nprod, nenc, nver, nafter, nissue, nwait, nchk);
    free(tr.spans);
    free(A), free(B), free(C0), free(C1), free(C2);
}

int main(int argc, char **argv)
{
    if (tu_parse_device(argc > 1 ? argv[1] : "cpu", &g_dev)) return 2;
    if (g_dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    ft_span_t sp;
    ft_trace_t bad = {.spans = NULL, .capacity = 3};
    TU_CHECK(ft_context_set_trace(NULL, NULL) == FT_ERR_INVALID_VALUE, "NULL context");
    ft_context_t *ctx;
    TU_CHECK(ft_context_create(&ctx, g_dev) == 0, "context");
    TU_CHECK(ft_context_set_trace(ctx, &bad) == FT_ERR_INVALID_VALUE, "spans NULL");
    bad.spans = &sp, bad.capacity = -1;
    TU_CHECK(ft_context_set_trace(ctx, &bad) == FT_ERR_INVALID_VALUE, "capacity < 0");
    TU_CHECK(!strcmp(ft_lane_name(FT_LANE_SIDE), "side") && !strcmp(ft_lane_name(-1), "?") &&
             !strcmp(ft_lane_name(FT_NLANES), "?"), "lane names");
    TU_CHECK(!strcmp(ft_phase_name(FT_PHASE_UPDATE), "update") &&
             !strcmp(ft_phase_name(FT_NPHASES), "?"), "phase names");
    const int64_t m = 300, n = 200;
    double *A = malloc((size_t)(m * n) * sizeof(double));
    tu_rng_t rng;
    tu_seed(&rng, 5);
    tu_fill(&rng, m, n, A, m);
    placement(ctx, FT_PANEL_CPU, 1, A, m, n);
    placement(ctx, FT_PANEL_GPU, 1, A, m, n);
    placement(ctx, FT_PANEL_GPU, 0, A, m, n);
    gemm_case(ctx, 300, 200, 64);
    free(A);
    ft_context_destroy(ctx);
    return tu_finish();
}
