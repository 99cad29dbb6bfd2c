/*
 * test_threads.c — ftla called from 8 threads at once.
 *
 * The default context is per thread (ftla.h, ft_default_context): no global lock, no shared
 * state between the calls of different threads. NTHREADS threads run at the same time, each:
 *   - ft_default_context() twice: non-NULL, the same pointer both times (and again later), a
 *     pointer different from every other thread's (taken while all the threads are alive, so
 *     no address can be reused) and from the main thread's; its device is FTLA_DEVICE's;
 *   - creates its own context (FT_DEVICE_CPU or FT_DEVICE_CUDA, the argument);
 *   - plans one fault into its own context and one into its default context (FT_REGION_C, a
 *     chosen element, bit 60), waits until every thread has planned its faults, then runs one
 *     ft_dgemm_ex on each: each report counts exactly its own fault, injected 1, detected 1,
 *     corrected 1, with the event at the planned element, and the result is right — fault plans
 *     do not leak across threads (nor between a thread's two contexts);
 *   - NITER iterations of: ft_dgemm (plain entry point), ft_dgemm_ex on its own context and on
 *     the default context (ctx = NULL), each on its own random data (m, n, k in 150..400, random
 *     transposes, alpha, beta, leading dimensions), against cblas_dgemm with the GEMM error
 *     ratio < 30; ft_dgeqrf (plain), ft_dgeqrf_ex on its own context (policy.crossover = -1)
 *     and on the default context, on random matrices with min(m,n) > 128 (so the protected
 *     blocked driver runs with the default crossover), the dqrt01 ratios < 30. Every report:
 *     status 0, backend as requested, nothing injected or detected, checks > 0.
 * The plain entry points use the default context, configured from FTLA_DEVICE, which main sets
 * (cpu or cuda) before its first ftla call.
 *
 * Usage: test_threads cpu|cuda   (cuda: exit 77 when no device can be used)
 */
#define _POSIX_C_SOURCE 200809L /* setenv, pthread_barrier_t */
#include "test_dgeqrf_common.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0
#define NTHREADS 8
#define NITER 3
#define FAULT_BIT 60

static ft_device_t g_dev;
static pthread_barrier_t g_barrier;
static pthread_mutex_t g_print_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int id;
    pthread_t tid;
    long passed, failed;
    ft_context_t *def; /* the thread's default context, as first seen */
} thr_t;

/* TU_CHECK for threads: counts into the thread's record (summed by main after the join). */
#define TH_CHECK(t, cond, ...)                                                                     \
    do {                                                                                           \
        if (cond) {                                                                                \
            (t)->passed++;                                                                         \
        } else {                                                                                   \
            (t)->failed++;                                                                         \
            pthread_mutex_lock(&g_print_lock);                                                     \
            printf("FAILED %s:%d: thread %d: (%s) ", __FILE__, __LINE__, (t)->id, #cond);          \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
            pthread_mutex_unlock(&g_print_lock);                                                   \
        }                                                                                          \
    } while (0)

static void th_print_report(const char *what, const ft_report_t *rep)
{
    pthread_mutex_lock(&g_print_lock);
    tu_print_report(what, rep);
    fflush(stdout);
    pthread_mutex_unlock(&g_print_lock);
}

/* ---- one GEMM problem ---------------------------------------------------------------------- */

typedef struct {
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
    double *A, *B, *C0, *C, *Cref;
} gemm_prob_t;

static void gemm_init(gemm_prob_t *p, tu_rng_t *rng)
{
    static const char tr[] = {'N', 'T', 'C', 'n', 't'};
    static const double betas[] = {0.0, 1.0, -0.75};
    memset(p, 0, sizeof *p);
    p->ta = tr[tu_int(rng, 0, 4)];
    p->tb = tr[tu_int(rng, 0, 4)];
    p->m = tu_int(rng, 150, 400);
    p->n = tu_int(rng, 150, 400);
    p->k = tu_int(rng, 150, 400);
    p->alpha = tu_int(rng, 0, 1) ? 1.0 : 0.5 + 1.5 * tu_uniform(rng);
    if (p->alpha == 0.0) p->alpha = 1.0;
    p->beta = tu_int(rng, 0, 3) < 3 ? betas[tu_int(rng, 0, 2)] : tu_uniform(rng);
    const int64_t nrowa = tu_nrows(p->ta, p->m, p->k), ncola = tu_nrows(p->ta, p->k, p->m);
    const int64_t nrowb = tu_nrows(p->tb, p->k, p->n), ncolb = tu_nrows(p->tb, p->n, p->k);
    p->lda = nrowa + tu_int(rng, 0, 3);
    p->ldb = nrowb + tu_int(rng, 0, 3);
    p->ldc = p->m + tu_int(rng, 0, 3);
    p->A = tu_malloc(p->lda * ncola);
    p->B = tu_malloc(p->ldb * ncolb);
    p->C0 = tu_malloc(p->ldc * p->n);
    p->C = tu_malloc(p->ldc * p->n);
    p->Cref = tu_malloc(p->ldc * p->n);
    tu_set_all(p->lda, ncola, p->A, 0.0);
    tu_set_all(p->ldb, ncolb, p->B, 0.0);
    tu_set_all(p->ldc, p->n, p->C0, 0.0);
    tu_fill(rng, nrowa, ncola, p->A, p->lda);
    tu_fill(rng, nrowb, ncolb, p->B, p->ldb);
    tu_fill(rng, p->m, p->n, p->C0, p->ldc);
    memcpy(p->C, p->C0, (size_t)(p->ldc * p->n) * sizeof(double));
    memcpy(p->Cref, p->C0, (size_t)(p->ldc * p->n) * sizeof(double));
    tu_ref_dgemm(p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->A, p->lda, p->B, p->ldb, p->beta,
                 p->Cref, p->ldc);
}

static double gemm_ratio(const gemm_prob_t *p)
{
    return tu_gemm_ratio(p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->A, p->lda, p->B, p->ldb,
                         p->beta, p->C0, p->ldc, p->C, p->ldc, p->Cref, p->ldc);
}

static void gemm_free(gemm_prob_t *p)
{
    free(p->A);
    free(p->B);
    free(p->C0);
    free(p->C);
    free(p->Cref);
}

static void gemm_desc(const gemm_prob_t *p, const char *api, char *buf, size_t len)
{
    snprintf(buf, len, "%s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g", api, p->ta, p->tb,
             (long long)p->m, (long long)p->n, (long long)p->k, p->alpha, p->beta);
}

/* A fault-free report of a protected call that computed something. */
static void check_clean_report(thr_t *t, const ft_report_t *rep, int st, const char *where)
{
    const long bad0 = t->failed;
    TH_CHECK(t, st == 0 && rep->status == 0, "status %d, report %d (%s): %s", st, rep->status,
             ft_strerror(st), where);
    TH_CHECK(t, rep->backend == tu_expected_backend(g_dev), "backend %d, asked %s: %s",
             (int)rep->backend, tu_device_name(g_dev), where);
    TH_CHECK(t,
             rep->injected == 0 && rep->detected == 0 && rep->corrected == 0 &&
                 rep->uncorrectable == 0 && rep->checksum_errors == 0 && rep->recomputed == 0,
             "injected %lld detected %lld corrected %lld: %s", (long long)rep->injected,
             (long long)rep->detected, (long long)rep->corrected, where);
    TH_CHECK(t, rep->checks > 0 && rep->unchecked == 0, "checks %lld unchecked %lld: %s",
             (long long)rep->checks, (long long)rep->unchecked, where);
    if (t->failed != bad0) th_print_report(where, rep);
}

enum { API_PLAIN, API_EX_OWN, API_EX_DEFAULT };

static void gemm_case(thr_t *t, tu_rng_t *rng, ft_context_t *own, int api, int iter)
{
    static const char *names[] = {"ft_dgemm", "ft_dgemm_ex(own ctx)", "ft_dgemm_ex(NULL)"};
    gemm_prob_t p;
    gemm_init(&p, rng);
    char where[256], desc[192];
    gemm_desc(&p, names[api], desc, sizeof desc);
    snprintf(where, sizeof where, "iter %d %s", iter, desc);
    ft_report_t rep;
    tu_poison_report(&rep);
    int st;
    if (api == API_PLAIN)
        st = ft_dgemm(p.ta, p.tb, (ft_int)p.m, (ft_int)p.n, (ft_int)p.k, p.alpha, p.A,
                      (ft_int)p.lda, p.B, (ft_int)p.ldb, p.beta, p.C, (ft_int)p.ldc);
    else
        st = ft_dgemm_ex(api == API_EX_OWN ? own : NULL, p.ta, p.tb, (ft_int)p.m, (ft_int)p.n,
                         (ft_int)p.k, p.alpha, p.A, (ft_int)p.lda, p.B, (ft_int)p.ldb, p.beta, p.C,
                         (ft_int)p.ldc, &rep);
    TH_CHECK(t, st == 0, "status %d (%s): %s", st, ft_strerror(st), where);
    if (api != API_PLAIN) check_clean_report(t, &rep, st, where);
    double r = gemm_ratio(&p);
    TH_CHECK(t, r < TOL, "error ratio %.3e: %s", r, where);
    gemm_free(&p);
}

static void qr_case(thr_t *t, tu_rng_t *rng, ft_context_t *own, int api, int iter)
{
    static const char *names[] = {"ft_dgeqrf", "ft_dgeqrf_ex(own ctx)", "ft_dgeqrf_ex(NULL)"};
    /* min(m,n) > 128: the blocked, protected driver also on the default crossover */
    const int tall = tu_int(rng, 0, 3) != 0;
    const int64_t m = tall ? tu_int(rng, 250, 340) : tu_int(rng, 140, 200);
    const int64_t n = tall ? tu_int(rng, 140, 220) : tu_int(rng, 200, 260);
    const int64_t lda = m + tu_int(rng, 0, 2), k = m < n ? m : n;
    char where[256];
    snprintf(where, sizeof where, "iter %d %s %lldx%lld lda %lld", iter, names[api], (long long)m,
             (long long)n, (long long)lda);
    double *A = tu_malloc(lda * n), *AF = tu_malloc(lda * n), *tau = tu_malloc(k);
    tu_set_all(lda, n, A, 0.0);
    tu_fill(rng, m, n, A, lda);
    memcpy(AF, A, (size_t)(lda * n) * sizeof(double));
    for (int64_t i = 0; i < k; i++) tau[i] = NAN;

    /* workspace query, then the factorization */
    double wq = -1.0;
    ft_int info = -99;
    ft_context_t *ctx = api == API_EX_OWN ? own : NULL;
    int st =
        api == API_PLAIN
            ? ft_dgeqrf((ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, &wq, -1, &info)
            : ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, &wq, -1, &info, NULL);
    TH_CHECK(t, st == 0 && info == 0 && wq >= (double)n,
             "workspace query: status %d info %d lwork %g: %s", st, (int)info, wq, where);
    const int64_t lwork = wq >= (double)n && wq < 1e9 ? (int64_t)wq : n * 64;
    double *work = tu_malloc(lwork);
    ft_report_t rep;
    tu_poison_report(&rep);
    info = -99;
    if (api == API_PLAIN)
        st = ft_dgeqrf((ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, work, (ft_int)lwork, &info);
    else
        st = ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, AF, (ft_int)lda, tau, work, (ft_int)lwork,
                          &info, &rep);
    TH_CHECK(t, st == 0 && info == 0, "status %d info %d (%s): %s", st, (int)info, ft_strerror(st),
             where);
    if (api != API_PLAIN) check_clean_report(t, &rep, st, where);
    double res[2];
    qr_ratios(m, n, A, lda, AF, lda, tau, res);
    TH_CHECK(t, res[0] < TOL && res[1] < TOL, "dqrt01 ratios %.3g %.3g: %s", res[0], res[1], where);
    free(A);
    free(AF);
    free(tau);
    free(work);
}

/* ---- the injected product --------------------------------------------------------------- */

typedef struct {
    gemm_prob_t p;
    int64_t row, col;
    ft_context_t *ctx; /* where it was planned (the default context: ft_default_context()) */
    int use_null;      /* run through ctx = NULL (the default context) */
} inj_t;

/* A product and an element of it well away from zero (so that flipping bit 60 is a large
 * error), and the fault planned for the next call on ctx. */
static void inject_plan(thr_t *t, tu_rng_t *rng, inj_t *q, ft_context_t *ctx, int use_null)
{
    gemm_init(&q->p, rng);
    q->ctx = ctx;
    q->use_null = use_null;
    q->row = tu_int(rng, 0, (int)q->p.m - 1);
    q->col = tu_int(rng, 0, (int)q->p.n - 1);
    for (int tries = 0; tries < 1000; tries++) {
        if (fabs(q->p.Cref[TU_IX(q->row, q->col, q->p.ldc)]) > 0.25) break;
        q->row = tu_int(rng, 0, (int)q->p.m - 1);
        q->col = tu_int(rng, 0, (int)q->p.n - 1);
    }
    const ft_fault_t f = {.region = FT_REGION_C,
                          .row = q->row,
                          .col = q->col,
                          .bit = FAULT_BIT,
                          .value = 0.0,
                          .call = -1,
                          .step = -1};
    int st = ctx ? ft_inject_add(ctx, &f) : FT_ERR_INVALID_VALUE;
    TH_CHECK(t, st == 0, "ft_inject_add(%s): %s", use_null ? "default ctx" : "own ctx",
             ft_strerror(st));
}

static void inject_run(thr_t *t, inj_t *q)
{
    gemm_prob_t *p = &q->p;
    char where[256], desc[192];
    gemm_desc(p, q->use_null ? "injected ft_dgemm_ex(NULL)" : "injected ft_dgemm_ex(own ctx)", desc,
              sizeof desc);
    snprintf(where, sizeof where, "%s, bit %d at (%lld,%lld)", desc, FAULT_BIT, (long long)q->row,
             (long long)q->col);
    ft_report_t rep;
    tu_poison_report(&rep);
    int st = ft_dgemm_ex(q->use_null ? NULL : q->ctx, p->ta, p->tb, (ft_int)p->m, (ft_int)p->n,
                         (ft_int)p->k, p->alpha, p->A, (ft_int)p->lda, p->B, (ft_int)p->ldb,
                         p->beta, p->C, (ft_int)p->ldc, &rep);
    const long bad0 = t->failed;
    TH_CHECK(t, st == 0 && rep.status == 0, "status %d report %d (%s): %s", st, rep.status,
             ft_strerror(st), where);
    TH_CHECK(t, rep.backend == tu_expected_backend(g_dev), "backend %d, asked %s: %s",
             (int)rep.backend, tu_device_name(g_dev), where);
    TH_CHECK(t, rep.injected == 1, "injected %lld (expected exactly this thread's fault): %s",
             (long long)rep.injected, where);
    TH_CHECK(t, rep.detected == 1 && rep.corrected == 1 && rep.uncorrectable == 0,
             "detected %lld corrected %lld uncorrectable %lld: %s", (long long)rep.detected,
             (long long)rep.corrected, (long long)rep.uncorrectable, where);
    TH_CHECK(t, tu_find_event(&rep, FT_EVENT_INJECTED, q->row, q->col) >= 0,
             "no injected event at the planned element: %s", where);
    TH_CHECK(t, tu_find_event(&rep, FT_EVENT_CORRECTED, q->row, q->col) >= 0,
             "no corrected event at the planned element: %s", where);
    double r = gemm_ratio(p);
    TH_CHECK(t, r < TOL, "error ratio %.3e after the correction: %s", r, where);
    if (t->failed != bad0) th_print_report(where, &rep);
    gemm_free(p);
}

/* ---- the thread ------------------------------------------------------------------------ */

static void *thread_main(void *arg)
{
    thr_t *t = arg;
    tu_rng_t rng;
    tu_seed(&rng, 1000 + (uint64_t)t->id);

    /* the default context: this thread's own, stable */
    t->def = ft_default_context();
    ft_context_t *again = ft_default_context();
    TH_CHECK(t, t->def != NULL, "ft_default_context() returned NULL");
    TH_CHECK(t, again == t->def, "ft_default_context() twice in one thread: %p then %p",
             (void *)t->def, (void *)again);
    TH_CHECK(t, t->def == NULL || ft_context_device(t->def) == g_dev,
             "default context device %d, FTLA_DEVICE=%s", (int)ft_context_device(t->def),
             tu_device_name(g_dev));

    /* the thread's own context */
    ft_context_t *own = NULL;
    int st = ft_context_create(&own, g_dev);
    TH_CHECK(t, st == 0 && own != NULL, "ft_context_create(%s): %s", tu_device_name(g_dev),
             ft_strerror(st));
    if (own) {
        ft_policy_t pol;
        st = ft_context_get_policy(own, &pol);
        pol.crossover = -1; /* ft_dgeqrf_ex: always the blocked driver */
        if (st == 0) st = ft_context_set_policy(own, &pol);
        TH_CHECK(t, st == 0, "policy crossover -1: %s", ft_strerror(st));
        ft_inject_seed(own, 11 + (uint64_t)t->id);
    }

    /* every thread has its default context now: the pointers are compared by main */
    pthread_barrier_wait(&g_barrier);

    /* one fault planned in each of this thread's contexts, by every thread, before any runs */
    inj_t qown, qdef;
    inject_plan(t, &rng, &qown, own, 0);
    inject_plan(t, &rng, &qdef, t->def, 1);
    pthread_barrier_wait(&g_barrier);
    if (own) inject_run(t, &qown);
    else gemm_free(&qown.p);
    if (t->def) inject_run(t, &qdef);
    else gemm_free(&qdef.p);

    for (int it = 0; it < NITER; it++) {
        gemm_case(t, &rng, own, API_PLAIN, it);
        if (own) gemm_case(t, &rng, own, API_EX_OWN, it);
        gemm_case(t, &rng, own, API_EX_DEFAULT, it);
        qr_case(t, &rng, own, API_PLAIN, it);
        if (own) qr_case(t, &rng, own, API_EX_OWN, it);
        qr_case(t, &rng, own, API_EX_DEFAULT, it);
    }

    again = ft_default_context();
    TH_CHECK(t, again == t->def, "ft_default_context() changed within the thread: %p then %p",
             (void *)t->def, (void *)again);
    st = ft_context_destroy(own);
    TH_CHECK(t, st == 0, "ft_context_destroy: %s", ft_strerror(st));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2 || tu_parse_device(argv[1], &g_dev) != 0 || g_dev == FT_DEVICE_AUTO) {
        printf("usage: %s cpu|cuda\n", argv[0]);
        return 2;
    }
    /* read once per process, on the first use of a default context: before any ftla call */
    setenv("FTLA_DEVICE", tu_device_name(g_dev), 1);
    if (g_dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();

    ft_context_t *main_def = ft_default_context();
    TU_CHECK(main_def != NULL && main_def == ft_default_context(),
             "main thread: ft_default_context() NULL or not stable");

    thr_t thr[NTHREADS];
    memset(thr, 0, sizeof thr);
    if (pthread_barrier_init(&g_barrier, NULL, NTHREADS) != 0) {
        printf("FAILED: pthread_barrier_init\n");
        return 1;
    }
    int nstarted = 0;
    for (int i = 0; i < NTHREADS; i++) {
        thr[i].id = i;
        if (pthread_create(&thr[i].tid, NULL, thread_main, &thr[i]) != 0) {
            /* the others wait at the barrier for NTHREADS: nothing sensible left to do */
            printf("FAILED: pthread_create %d\n", i);
            return 1;
        }
        nstarted++;
    }
    for (int i = 0; i < nstarted; i++) pthread_join(thr[i].tid, NULL);
    pthread_barrier_destroy(&g_barrier);

    for (int i = 0; i < NTHREADS; i++) {
        tu_passed += thr[i].passed;
        tu_failed += thr[i].failed;
        TU_CHECK(thr[i].def != main_def, "thread %d has the main thread's default context %p", i,
                 (void *)main_def);
        for (int j = 0; j < i; j++)
            TU_CHECK(thr[i].def != thr[j].def,
                     "threads %d and %d (alive at the same time) share default context %p", j, i,
                     (void *)thr[i].def);
    }
    TU_CHECK(ft_default_context() == main_def, "main thread's default context changed");
    return tu_finish();
}
