/*
 * host_backend.c — the host backend: OpenBLAS (CBLAS) on host memory.
 *
 * Queues run their work at once (direct mode) or deferred (host_queue.h): a deferred queue keeps
 * a FIFO of tasks; a fork appends to the waiting queue a task "wait for queue F up to its n-th
 * task"; a sync runs the queue's tasks in order and, for a wait, first runs exactly the tasks of
 * the other queue it waits for, recursively. Nothing else runs: work that no one waited for stays
 * queued, as late as ordering allows. (A wait refers only to tasks issued before it, so the
 * recursion cannot cycle.)
 */
#include "backend/host/host_queue.h"

#include <cblas.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>

double ft_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- queues ------------------------------------------------------------------------------- */

enum { TASK_RUN = 0, TASK_WAIT = 1, TASK_RECORD = 2 };

typedef struct task {
    struct task *next;
    int kind;
    ft_host_fn fn;
    struct ft_queue *dep; /* TASK_WAIT: wait until dep has completed dep_seq tasks */
    uint64_t dep_seq;
    struct ft_qevent *ev; /* TASK_RECORD */
    _Alignas(16) unsigned char args[];
} task_t;

struct ft_queue {
    ft_context_t *ctx;
    int deferred;
    task_t *head, *tail;
    uint64_t issued, done; /* tasks issued and completed on this queue */
    int status;            /* first failure of deferred work, handed back by the next sync */
};

struct ft_qevent {
    ft_context_t *ctx;
    struct ft_queue *q; /* queue of the last record (NULL: never recorded) */
    uint64_t seq;       /* the record is task number seq of q (1-based) */
    double t;           /* wall-clock seconds when it ran */
};

static int g_mode = -1; /* -1: environment, 0 direct, 1 deferred */

int ft_host_deferred(void)
{
    if (g_mode >= 0) return g_mode;
    const char *s = getenv("FTLA_HOST_DEFERRED");
    return s && *s && strcmp(s, "0") != 0;
}

void ft_host_set_deferred(int mode) { g_mode = mode < 0 ? -1 : mode != 0; }

static int enqueue(struct ft_queue *q, task_t *t)
{
    t->next = NULL;
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
    q->issued++;
    return FT_SUCCESS;
}

static task_t *task_new(size_t argbytes)
{
    return calloc(1, sizeof(task_t) + argbytes);
}

/* Run the tasks of q until it has completed `upto` of them (see the file comment). */
static void drain(struct ft_queue *q, uint64_t upto)
{
    while (q->done < upto && q->head) {
        task_t *t = q->head;
        int st = FT_SUCCESS;
        if (t->kind == TASK_WAIT) {
            drain(t->dep, t->dep_seq);
        } else if (t->kind == TASK_RECORD) {
            t->ev->t = ft_wtime();
        } else {
            st = t->fn(t->args);
        }
        if (st && !q->status) q->status = st;
        q->head = t->next;
        if (!q->head) q->tail = NULL;
        q->done++;
        free(t);
    }
}

int ft_host_submit(ft_queue_t *q, ft_host_fn fn, const void *args, size_t size)
{
    if (!q->deferred) return fn((void *)args);
    task_t *t = task_new(size);
    if (!t) return FT_ERR_ALLOC;
    t->kind = TASK_RUN;
    t->fn = fn;
    if (size) memcpy(t->args, args, size);
    return enqueue(q, t);
}

static int h_queue_create(ft_context_t *ctx, void *native, ft_queue_t **out)
{
    *out = NULL;
    struct ft_queue *q = calloc(1, sizeof *q);
    if (!q) return FT_ERR_ALLOC;
    q->ctx = ctx;
    q->deferred = ft_host_deferred();
    *out = q;
    return FT_SUCCESS;
}

static void h_queue_destroy(ft_queue_t *q)
{
    if (!q) return;
    drain(q, q->issued);
    free(q);
}

static int h_queue_wrap(ft_queue_t *q, void *native) { return native ? FT_ERR_INVALID_VALUE : 0; }

static int h_queue_raise(ft_queue_t *q) { return FT_SUCCESS; }
static int h_queue_lower(ft_queue_t *q) { return FT_SUCCESS; }

static int h_sync(ft_queue_t *q)
{
    drain(q, q->issued);
    int st = q->status;
    q->status = FT_SUCCESS;
    return st;
}

static int h_fork(ft_queue_t *from, ft_queue_t *to)
{
    if (from == to || (!from->deferred && !to->deferred)) return FT_SUCCESS;
    if (!to->deferred) { /* a direct queue runs at once: what it waits for must run now */
        drain(from, from->issued);
        return FT_SUCCESS;
    }
    task_t *t = task_new(0);
    if (!t) return FT_ERR_ALLOC;
    t->kind = TASK_WAIT;
    t->dep = from;
    t->dep_seq = from->issued;
    return enqueue(to, t);
}

static int h_event_create(ft_context_t *ctx, ft_qevent_t **out)
{
    struct ft_qevent *e = calloc(1, sizeof *e);
    if (!e) return FT_ERR_ALLOC;
    e->ctx = ctx;
    *out = e;
    return FT_SUCCESS;
}

static void h_event_destroy(ft_qevent_t *e) { free(e); }

static int h_event_record(ft_qevent_t *e, ft_queue_t *q)
{
    if (!q->deferred) {
        e->t = ft_wtime();
        e->q = NULL;
        return FT_SUCCESS;
    }
    task_t *t = task_new(0);
    if (!t) return FT_ERR_ALLOC;
    t->kind = TASK_RECORD;
    t->ev = e;
    FT_CHECK(enqueue(q, t));
    e->q = q;
    e->seq = q->issued;
    return FT_SUCCESS;
}

static int h_event_elapsed(ft_qevent_t *e0, ft_qevent_t *e1, double *s)
{
    if (e0->q) drain(e0->q, e0->seq);
    if (e1->q) drain(e1->q, e1->seq);
    *s = e1->t - e0->t;
    return FT_SUCCESS;
}

static int h_event_sync(ft_qevent_t *e)
{
    if (!e->q) return FT_SUCCESS;
    drain(e->q, e->seq);
    return e->q->status;
}

static int h_event_wait(ft_queue_t *q, ft_qevent_t *e)
{
    if (!e->q || e->q == q) return FT_SUCCESS;
    if (!q->deferred) { /* a direct queue runs at once: what it waits for must run now */
        drain(e->q, e->seq);
        return FT_SUCCESS;
    }
    task_t *t = task_new(0);
    if (!t) return FT_ERR_ALLOC;
    t->kind = TASK_WAIT;
    t->dep = e->q;
    t->dep_seq = e->seq;
    return enqueue(q, t);
}

/* ---- memory ------------------------------------------------------------------------------- */

static int h_alloc(void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0) bytes = 64;
    if (bytes > SIZE_MAX - 63) return FT_ERR_ALLOC;
    bytes = (bytes + 63) / 64 * 64;
    *p = aligned_alloc(64, bytes);
    return *p ? FT_SUCCESS : FT_ERR_ALLOC;
}

static void h_free(void *p) { free(p); }

static size_t h_mem_free(void) { return 0; }

static void h_describe(char *buf, size_t len)
{
    snprintf(buf, len, "host %ldcpu", sysconf(_SC_NPROCESSORS_ONLN));
}

/* ---- copies ------------------------------------------------------------------------------- */

typedef struct {
    int64_t m, n, lda, ldb;
    const double *A;
    double *B;
} copy_args;

static int run_copy(void *p)
{
    const copy_args *a = p;
    if (a->m <= 0 || a->n <= 0 || a->A == a->B) return FT_SUCCESS;
    if ((a->lda == a->m && a->ldb == a->m) || a->n == 1) {
        memmove(a->B, a->A, (size_t)a->m * (size_t)a->n * sizeof(double));
        return FT_SUCCESS;
    }
    for (int64_t j = 0; j < a->n; j++)
        memmove(a->B + j * a->ldb, a->A + j * a->lda, (size_t)a->m * sizeof(double));
    return FT_SUCCESS;
}

static int h_copy(ft_queue_t *q, int64_t m, int64_t n, const double *A, int64_t lda, double *B,
                  int64_t ldb)
{
    if (m < 0 || n < 0) return FT_ERR_INTERNAL;
    copy_args a = {m, n, lda, ldb, A, B};
    return ft_host_submit(q, run_copy, &a, sizeof a);
}

typedef struct {
    void *p;
    size_t bytes;
} memset_args;

static int run_memset(void *p)
{
    const memset_args *a = p;
    if (a->bytes) memset(a->p, 0, a->bytes);
    return FT_SUCCESS;
}

static int h_memset0(ft_queue_t *q, void *p, size_t bytes)
{
    memset_args a = {p, bytes};
    return ft_host_submit(q, run_memset, &a, sizeof a);
}

static int h_get_elem(ft_queue_t *q, const double *p, double *v)
{
    FT_CHECK(h_sync(q));
    *v = *p;
    return FT_SUCCESS;
}

static int h_set_elem(ft_queue_t *q, double *p, double v)
{
    FT_CHECK(h_sync(q));
    *p = v;
    return FT_SUCCESS;
}

/* ---- BLAS --------------------------------------------------------------------------------- */

static int fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }
static enum CBLAS_TRANSPOSE cbt(char t) { return (t == 'N' || t == 'n') ? CblasNoTrans : CblasTrans; }

typedef struct {
    char ta, tb;
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;
    const double *A, *B;
    double *C;
} gemm_args;

static int run_gemm(void *p)
{
    const gemm_args *a = p;
    cblas_dgemm(CblasColMajor, cbt(a->ta), cbt(a->tb), a->m, a->n, a->k, a->alpha, a->A, a->lda,
                a->B, a->ldb, a->beta, a->C, a->ldc);
    return FT_SUCCESS;
}

static int h_dgemm(ft_queue_t *q, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                   double beta, double *C, int64_t ldc)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(lda) || !fits_int(ldb) ||
        !fits_int(ldc))
        return FT_ERR_TOO_LARGE;
    gemm_args a = {ta, tb, (int)m, (int)n, (int)k, (int)lda, (int)ldb, (int)ldc, alpha, beta,
                   A, B, C};
    return ft_host_submit(q, run_gemm, &a, sizeof a);
}

typedef struct {
    char side, uplo, transa, diag;
    int m, n, lda, ldb;
    double alpha;
    const double *A;
    double *B;
} trmm_args;

static int run_trmm(void *p)
{
    const trmm_args *a = p;
    cblas_dtrmm(CblasColMajor, (a->side == 'L' || a->side == 'l') ? CblasLeft : CblasRight,
                (a->uplo == 'U' || a->uplo == 'u') ? CblasUpper : CblasLower, cbt(a->transa),
                (a->diag == 'U' || a->diag == 'u') ? CblasUnit : CblasNonUnit, a->m, a->n,
                a->alpha, a->A, a->lda, a->B, a->ldb);
    return FT_SUCCESS;
}

static int h_dtrmm(ft_queue_t *q, char side, char uplo, char transa, char diag, int64_t m,
                   int64_t n, double alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(lda) || !fits_int(ldb)) return FT_ERR_TOO_LARGE;
    trmm_args a = {side, uplo, transa, diag, (int)m, (int)n, (int)lda, (int)ldb, alpha, A, B};
    return ft_host_submit(q, run_trmm, &a, sizeof a);
}

static int run_trsm(void *p)
{
    const trmm_args *a = p;
    cblas_dtrsm(CblasColMajor, (a->side == 'L' || a->side == 'l') ? CblasLeft : CblasRight,
                (a->uplo == 'U' || a->uplo == 'u') ? CblasUpper : CblasLower, cbt(a->transa),
                (a->diag == 'U' || a->diag == 'u') ? CblasUnit : CblasNonUnit, a->m, a->n,
                a->alpha, a->A, a->lda, a->B, a->ldb);
    return FT_SUCCESS;
}

static int h_dtrsm(ft_queue_t *q, char side, char uplo, char transa, char diag, int64_t m,
                   int64_t n, double alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(lda) || !fits_int(ldb)) return FT_ERR_TOO_LARGE;
    trmm_args a = {side, uplo, transa, diag, (int)m, (int)n, (int)lda, (int)ldb, alpha, A, B};
    return ft_host_submit(q, run_trsm, &a, sizeof a);
}

typedef struct {
    char ta;
    int m, n, lda;
    double alpha, beta;
    const double *A, *x;
    double *y;
} gemv_args;

static int run_gemv(void *p)
{
    const gemv_args *a = p;
    cblas_dgemv(CblasColMajor, cbt(a->ta), a->m, a->n, a->alpha, a->A, a->lda, a->x, 1, a->beta,
                a->y, 1);
    return FT_SUCCESS;
}

static int h_dgemv(ft_queue_t *q, char ta, int64_t m, int64_t n, double alpha, const double *A,
                   int64_t lda, const double *x, double beta, double *y)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits_int(m) || !fits_int(n) || !fits_int(lda)) return FT_ERR_TOO_LARGE;
    gemv_args a = {ta, (int)m, (int)n, (int)lda, alpha, beta, A, x, y};
    return ft_host_submit(q, run_gemv, &a, sizeof a);
}

/* ---- LAPACK on work memory (host memory: LAPACK itself) ---- */

static int h_lapack_work(ft_queue_t *q, int64_t m, int64_t n, size_t *bytes)
{
    (void)q, (void)m;
    *bytes = (size_t)(64 * (n > 1 ? n : 1)) * sizeof(double);
    return FT_SUCCESS;
}

typedef struct {
    int64_t m, n, lda, lwork;
    double *A, *tau, *work;
} geqrf_args;

static int run_geqrf(void *p)
{
    const geqrf_args *a = p;
    return ft_lapack_panel_qr(a->m, a->n, a->A, a->lda, a->tau, a->work, a->lwork);
}

static int h_geqrf(ft_queue_t *q, int64_t m, int64_t n, double *A, int64_t lda, double *tau,
                   void *work, size_t bytes)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    geqrf_args a = {m, n, lda, (int64_t)(bytes / sizeof(double)), A, tau, work};
    if (a.lwork < n) return FT_ERR_INTERNAL;
    return ft_host_submit(q, run_geqrf, &a, sizeof a);
}

typedef struct {
    int64_t m, k, ldv, ldt;
    const double *V, *tau;
    double *T;
} larft_args;

static int run_larft(void *p)
{
    const larft_args *a = p;
    return ft_lapack_larft(a->m, a->k, a->V, a->ldv, a->tau, a->T, a->ldt);
}

static int h_larft(ft_queue_t *q, int64_t m, int64_t k, const double *V, int64_t ldv,
                   const double *tau, double *T, int64_t ldt, void *work, size_t bytes)
{
    (void)work, (void)bytes;
    if (k == 0) return FT_SUCCESS;
    larft_args a = {m, k, ldv, ldt, V, tau, T};
    return ft_host_submit(q, run_larft, &a, sizeof a);
}

typedef struct {
    int64_t m, n, lda, ldv, vz, ldt, lwork;
    double *A, *tau, *V, *T, *work;
} leaf_args;

/* LAPACK's dgeqrf on the leaf, V written out (zeros above, the unit diagonal), dlarft's T with
 * zeros below its diagonal. */
static int run_leaf(void *p)
{
    const leaf_args *a = p;
    int st = ft_lapack_panel_qr(a->m, a->n, a->A, a->lda, a->tau, a->work, a->lwork);
    if (st) return st;
    for (int64_t c = 0; c < a->n; c++) {
        double *v = a->V + c * a->ldv - a->vz;
        const double *x = a->A + c * a->lda;
        for (int64_t r = 0; r < a->vz + c; r++) v[r] = 0.0;
        v[a->vz + c] = 1.0;
        memcpy(v + a->vz + c + 1, x + c + 1, (size_t)(a->m - c - 1) * sizeof(double));
    }
    if ((st = ft_lapack_larft(a->m, a->n, a->V, a->ldv, a->tau, a->T, a->ldt))) return st;
    for (int64_t c = 0; c < a->n; c++)
        for (int64_t r = c + 1; r < a->n; r++) a->T[r + c * a->ldt] = 0.0;
    return FT_SUCCESS;
}

static int h_qr_leaf(ft_queue_t *q, int64_t m, int64_t n, double *A, int64_t lda, double *tau,
                     double *V, int64_t ldv, int64_t vz, double *T, int64_t ldt, void *work,
                     size_t bytes)
{
    if (n < 1 || n > FT_QR_LEAF_MAX || m < n || vz < 0) return FT_BE_DECLINED;
    leaf_args a = {m, n, lda, ldv, vz, ldt, (int64_t)(bytes / sizeof(double)), A, tau, V, T,
                   work};
    if (a.lwork < n) return FT_ERR_INTERNAL;
    return ft_host_submit(q, run_leaf, &a, sizeof a);
}

typedef struct {
    int64_t n, lda;
    double *A;
} unit_args;

static int run_unit_lower(void *p)
{
    const unit_args *a = p;
    for (int64_t c = 0; c < a->n; c++) {
        for (int64_t r = 0; r < c; r++) a->A[r + c * a->lda] = 0.0;
        a->A[c + c * a->lda] = 1.0;
    }
    return FT_SUCCESS;
}

static int h_unit_lower(ft_queue_t *q, int64_t n, double *A, int64_t lda)
{
    if (n == 0) return FT_SUCCESS;
    unit_args a = {n, lda, A};
    return ft_host_submit(q, run_unit_lower, &a, sizeof a);
}

/* generic reductions (host_reduce.c) */
int ft_host_block_sums(ft_queue_t *q, char trans, int64_t rows, int64_t cols, const double *X,
                       int64_t ldx, int64_t T, double scale, double *sums, int64_t lds, double *abss,
                       int64_t ldabs);
int ft_host_qr_res_sizes(ft_queue_t *q, int64_t m, int64_t nc, const double *C, const double *X,
                         int64_t ld, double *out);
int ft_host_col_absmax(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                       double *out);
int ft_host_digest(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                   uint64_t *out);

static const ft_backend_t g_host = {
    .kind = FT_DEVICE_CPU,
    .name = "cpu",
    .alloc = h_alloc,
    .free = h_free,
    .alloc_host = h_alloc,
    .free_host = h_free,
    .mem_free = h_mem_free,
    .describe = h_describe,
    .queue_create = h_queue_create,
    .queue_destroy = h_queue_destroy,
    .queue_wrap = h_queue_wrap,
    .queue_raise = h_queue_raise,
    .queue_lower = h_queue_lower,
    .sync = h_sync,
    .fork = h_fork,
    .event_create = h_event_create,
    .event_destroy = h_event_destroy,
    .event_record = h_event_record,
    .event_elapsed = h_event_elapsed,
    .event_sync = h_event_sync,
    .event_wait = h_event_wait,
    .memset0 = h_memset0,
    .set_matrix = h_copy,
    .get_matrix = h_copy,
    .copy_matrix = h_copy,
    .get_elem = h_get_elem,
    .set_elem = h_set_elem,
    .dgemm = h_dgemm,
    .dtrmm = h_dtrmm,
    .dtrsm = h_dtrsm,
    .dgemv = h_dgemv,
    .lapack_work = h_lapack_work,
    .geqrf = h_geqrf,
    .larft = h_larft,
    .unit_lower = h_unit_lower,
    .qr_leaf = h_qr_leaf,
    .block_sums = ft_host_block_sums,
    .qr_wsums = ft_host_qr_wsums,
    .qr_res_sizes = ft_host_qr_res_sizes,
    .col_absmax = ft_host_col_absmax,
    .col_asum_max = ft_host_col_asum_max,
    .digest = ft_host_digest,
};

const ft_backend_t *ft_backend_host(void) { return &g_host; }
