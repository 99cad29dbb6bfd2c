/*
 * backend_cuda.cu — the cuda backend: cuBLAS and own kernels on device memory (core/backend.h).
 *
 * Each queue of a context is a CUDA stream (non-blocking, so it never synchronises with the legacy
 * default stream); the main queue may instead be the caller's stream (ft_cuda_set_stream). Each
 * queue gets its own cuBLAS handle, bound once to its stream, so BLAS calls on different queues
 * never rebind a shared handle. Every CUDA and cuBLAS status is checked and handed back as an
 * ftla code; nothing aborts. FTLA_VERBOSE >= 1 logs the failing call with file:line to stderr.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas3/abft_cuda.h"

extern "C" {

/* ---- private state (ctx->cuda) ----------------------------------------------------------- */

struct cuda_state {
    int device;                                      /* device current at init */
    int nsm;                                         /* its multiprocessor count */
    cudaStream_t streams[FT_NQUEUES];                /* the queues */
    cudaStream_t own_main;                           /* ours; kept while a user's is set */
    int user_main;                                   /* streams[FT_Q_MAIN] is the caller's */
    cublasHandle_t handles[FT_NQUEUES];              /* one per queue, created on first use */
    cudaEvent_t events[FT_NEVENTS];                  /* timing events */
    cudaEvent_t fork_ev[FT_NQUEUES][FT_NQUEUES];     /* one per (from, to): no reuse races */
    cudaEvent_t switch_ev;                           /* orders old -> new main stream */
    double *hpin;                                    /* pinned: [0] get/set_elem, rest scratch */
    void *dscratch;                                  /* device scratch (verify_rows) */
    size_t dscratch_bytes;
};

/* Pinned host scratch: one element for get/set_elem, then FTLA_CUDA_HOST_SCRATCH bytes. */
#define HPIN_ELEM_SLOTS 16
#define HPIN_BYTES (HPIN_ELEM_SLOTS * sizeof(double) + FTLA_CUDA_HOST_SCRATCH)

/* ---- errors ---------------------------------------------------------------------------------- */

static int read_verbose(void)
{
    const char *s = getenv("FTLA_VERBOSE");
    return s ? atoi(s) : 0;
}

/* FTLA_VERBOSE, read once (thread-safe initialisation of a function-local static). */
static int cuda_verbose(void)
{
    static const int level = read_verbose();
    return level;
}

int ftla_cuda_error(cudaError_t err, const char *what, const char *file, int line)
{
    (void)cudaGetLastError(); /* clear the non-sticky error so later launch checks are clean */
    if (cuda_verbose() >= 1)
        fprintf(stderr, "ftla: CUDA error %s (%s) in %s at %s:%d\n", cudaGetErrorName(err),
                cudaGetErrorString(err), what, file, line);
    return err == cudaErrorMemoryAllocation ? FT_ERR_DEVICE_ALLOC : FT_ERR_CUDA;
}

static int cublas_error(cublasStatus_t s, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();
    if (cuda_verbose() >= 1)
        fprintf(stderr, "ftla: cuBLAS error %s (%s) in %s at %s:%d\n", cublasGetStatusName(s),
                cublasGetStatusString(s), what, file, line);
    return FT_ERR_CUBLAS;
}

#define CUBLAS_TRY(call)                                                                           \
    do {                                                                                           \
        cublasStatus_t cublas_st_ = (call);                                                        \
        if (cublas_st_ != CUBLAS_STATUS_SUCCESS)                                                   \
            return cublas_error(cublas_st_, #call, __FILE__, __LINE__);                            \
    } while (0)

/* For cleanup paths that have no status to return: log (when verbose) and go on. */
#define CUDA_WARN(call)                                                                            \
    do {                                                                                           \
        cudaError_t cuda_warn_err_ = (call);                                                       \
        if (cuda_warn_err_ != cudaSuccess)                                                         \
            (void)ftla_cuda_error(cuda_warn_err_, #call, __FILE__, __LINE__);                      \
    } while (0)

#define CUBLAS_WARN(call)                                                                          \
    do {                                                                                           \
        cublasStatus_t cublas_warn_st_ = (call);                                                   \
        if (cublas_warn_st_ != CUBLAS_STATUS_SUCCESS)                                              \
            (void)cublas_error(cublas_warn_st_, #call, __FILE__, __LINE__);                        \
    } while (0)

/* ---- life cycle ------------------------------------------------------------------------------ */

int ft_cuda_probe(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n > 0;
}

/* Destroy whatever of st exists (partially built states included). Work is waited for first. */
static void state_destroy(struct cuda_state *st)
{
    if (!st) return;
    for (int q = 0; q < FT_NQUEUES; q++)
        if (st->streams[q]) CUDA_WARN(cudaStreamSynchronize(st->streams[q]));
    for (int q = 0; q < FT_NQUEUES; q++)
        if (st->handles[q]) CUBLAS_WARN(cublasDestroy(st->handles[q]));
    for (int e = 0; e < FT_NEVENTS; e++)
        if (st->events[e]) CUDA_WARN(cudaEventDestroy(st->events[e]));
    for (int a = 0; a < FT_NQUEUES; a++)
        for (int b = 0; b < FT_NQUEUES; b++)
            if (st->fork_ev[a][b]) CUDA_WARN(cudaEventDestroy(st->fork_ev[a][b]));
    if (st->switch_ev) CUDA_WARN(cudaEventDestroy(st->switch_ev));
    /* the caller's stream (streams[FT_Q_MAIN] when user_main) is never destroyed */
    if (st->own_main) CUDA_WARN(cudaStreamDestroy(st->own_main));
    for (int q = 1; q < FT_NQUEUES; q++)
        if (st->streams[q]) CUDA_WARN(cudaStreamDestroy(st->streams[q]));
    if (st->dscratch) CUDA_WARN(cudaFree(st->dscratch));
    if (st->hpin) CUDA_WARN(cudaFreeHost(st->hpin));
    free(st);
}

/* cuBLAS handle of queue q, created and bound to the queue's stream on first use. */
static int state_handle(struct cuda_state *st, int q, cublasHandle_t *h)
{
    if (!st->handles[q]) {
        cublasHandle_t nh = NULL;
        CUBLAS_TRY(cublasCreate(&nh));
        cublasStatus_t s = cublasSetStream(nh, st->streams[q]);
        /* plain IEEE FP64 (no emulation): the ABFT thresholds assume it */
        if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetMathMode(nh, CUBLAS_DEFAULT_MATH);
        if (s != CUBLAS_STATUS_SUCCESS) {
            CUBLAS_WARN(cublasDestroy(nh));
            return cublas_error(s, "cublasSetStream/cublasSetMathMode", __FILE__, __LINE__);
        }
        st->handles[q] = nh;
    }
    *h = st->handles[q];
    return FT_SUCCESS;
}

static int state_create(struct cuda_state *st)
{
    FTLA_CUDA_TRY(cudaGetDevice(&st->device));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&st->nsm, cudaDevAttrMultiProcessorCount, st->device));
    if (st->nsm < 1) st->nsm = 1;
    FTLA_CUDA_TRY(cudaStreamCreateWithFlags(&st->own_main, cudaStreamNonBlocking));
    st->streams[FT_Q_MAIN] = st->own_main;
    for (int q = 1; q < FT_NQUEUES; q++)
        FTLA_CUDA_TRY(cudaStreamCreateWithFlags(&st->streams[q], cudaStreamNonBlocking));
    for (int e = 0; e < FT_NEVENTS; e++) FTLA_CUDA_TRY(cudaEventCreate(&st->events[e]));
    for (int a = 0; a < FT_NQUEUES; a++)
        for (int b = 0; b < FT_NQUEUES; b++)
            if (a != b)
                FTLA_CUDA_TRY(
                    cudaEventCreateWithFlags(&st->fork_ev[a][b], cudaEventDisableTiming));
    FTLA_CUDA_TRY(cudaEventCreateWithFlags(&st->switch_ev, cudaEventDisableTiming));
    cudaError_t err = cudaMallocHost((void **)&st->hpin, HPIN_BYTES);
    if (err != cudaSuccess) {
        st->hpin = NULL;
        (void)ftla_cuda_error(err, "cudaMallocHost", __FILE__, __LINE__);
        return FT_ERR_ALLOC; /* host memory, though pinned */
    }
    cublasHandle_t h;
    return state_handle(st, FT_Q_MAIN, &h); /* the main handle now: a broken cuBLAS shows early */
}

int ft_cuda_ctx_init(ft_context_t *ctx)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    if (ctx->cuda_ready && ctx->cuda) return FT_SUCCESS;
    if (!ft_cuda_probe()) return FT_ERR_NO_DEVICE;
    struct cuda_state *st = (struct cuda_state *)calloc(1, sizeof *st);
    if (!st) return FT_ERR_ALLOC;
    int status = state_create(st);
    if (status != FT_SUCCESS) {
        state_destroy(st);
        return status;
    }
    ctx->cuda = st;
    ctx->cuda_ready = 1;
    return FT_SUCCESS;
}

void ft_cuda_ctx_fini(ft_context_t *ctx)
{
    if (!ctx || !ctx->cuda) {
        if (ctx) ctx->cuda_ready = 0;
        return;
    }
    state_destroy((struct cuda_state *)ctx->cuda);
    ctx->cuda = NULL;
    ctx->cuda_ready = 0;
}

int ft_cuda_set_stream(ft_context_t *ctx, void *stream)
{
    FT_CHECK(ft_cuda_ctx_init(ctx));
    struct cuda_state *st = (struct cuda_state *)ctx->cuda;
    cudaStream_t next = stream ? (cudaStream_t)stream : st->own_main;
    cudaStream_t prev = st->streams[FT_Q_MAIN];
    if (next == prev) return FT_SUCCESS;
    /* work already issued on the old main queue stays ahead of everything issued on the new one */
    FTLA_CUDA_TRY(cudaEventRecord(st->switch_ev, prev));
    FTLA_CUDA_TRY(cudaStreamWaitEvent(next, st->switch_ev, 0));
    if (st->handles[FT_Q_MAIN]) CUBLAS_TRY(cublasSetStream(st->handles[FT_Q_MAIN], next));
    st->streams[FT_Q_MAIN] = next;
    st->user_main = stream != NULL;
    return FT_SUCCESS;
}

size_t ft_cuda_mem_free(void)
{
    size_t avail = 0, total = 0;
    if (cudaMemGetInfo(&avail, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return avail;
}

int ft_cuda_is_device_ptr(const void *p)
{
    if (!p) return 0;
    cudaPointerAttributes attr;
    memset(&attr, 0, sizeof attr);
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

/* ---- helpers for the kernels file ------------------------------------------------------------ */

/* The state of ctx (created on first use) and the stream of queue q. */
static int state_stream(ft_context_t *ctx, int q, struct cuda_state **st, cudaStream_t *s)
{
    if (q < 0 || q >= FT_NQUEUES) return FT_ERR_INTERNAL;
    FT_CHECK(ft_cuda_ctx_init(ctx));
    *st = (struct cuda_state *)ctx->cuda;
    *s = (*st)->streams[q];
    return FT_SUCCESS;
}

cudaStream_t ftla_cuda_stream(ft_context_t *ctx, int q)
{
    struct cuda_state *st;
    cudaStream_t s;
    return state_stream(ctx, q, &st, &s) == FT_SUCCESS ? s : (cudaStream_t)NULL;
}

int ftla_cuda_sm_count(ft_context_t *ctx)
{
    if (ft_cuda_ctx_init(ctx) != FT_SUCCESS) return 1;
    return ((struct cuda_state *)ctx->cuda)->nsm;
}

int ftla_cuda_scratch(ft_context_t *ctx, size_t dev_bytes, void **dev, void **host)
{
    FT_CHECK(ft_cuda_ctx_init(ctx));
    struct cuda_state *st = (struct cuda_state *)ctx->cuda;
    if (dev) {
        if (dev_bytes > st->dscratch_bytes) {
            /* grow geometrically; the old buffer is idle (its users synchronise before return) */
            size_t want = dev_bytes > 2 * st->dscratch_bytes ? dev_bytes : 2 * st->dscratch_bytes;
            want = (want + 255) / 256 * 256;
            if (st->dscratch) FTLA_CUDA_TRY(cudaFree(st->dscratch));
            st->dscratch = NULL;
            st->dscratch_bytes = 0;
            FTLA_CUDA_TRY(cudaMalloc(&st->dscratch, want));
            st->dscratch_bytes = want;
        }
        *dev = st->dscratch;
    }
    if (host) *host = (void *)(st->hpin + HPIN_ELEM_SLOTS);
    return FT_SUCCESS;
}

/* ---- memory ---------------------------------------------------------------------------------- */

static int c_alloc(ft_context_t * /*ctx*/, void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0) bytes = 256; /* like the host backend: a valid, distinct pointer */
    cudaError_t err = cudaMalloc(p, bytes);
    if (err != cudaSuccess) {
        *p = NULL;
        (void)ftla_cuda_error(err, "cudaMalloc", __FILE__, __LINE__);
        return FT_ERR_DEVICE_ALLOC;
    }
    return FT_SUCCESS;
}

static void c_free(ft_context_t * /*ctx*/, void *p)
{
    if (p) CUDA_WARN(cudaFree(p));
}

static int c_alloc_host(ft_context_t * /*ctx*/, void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0) bytes = 64;
    cudaError_t err = cudaMallocHost(p, bytes);
    if (err != cudaSuccess) {
        *p = NULL;
        (void)ftla_cuda_error(err, "cudaMallocHost", __FILE__, __LINE__);
        return FT_ERR_ALLOC;
    }
    return FT_SUCCESS;
}

static void c_free_host(ft_context_t * /*ctx*/, void *p)
{
    if (p) CUDA_WARN(cudaFreeHost(p));
}

static int c_memset0(ft_context_t *ctx, int q, void *p, size_t bytes)
{
    if (bytes == 0) return FT_SUCCESS;
    struct cuda_state *st;
    cudaStream_t s;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FTLA_CUDA_TRY(cudaMemsetAsync(p, 0, bytes, s));
    return FT_SUCCESS;
}

/* ---- copies ---------------------------------------------------------------------------------- */

/* m x n column-major copy on queue q. One column (n == 1) is a plain copy, so a vector may come
 * with any leading dimension; otherwise both leading dimensions must be >= m (pitch >= width). */
static int copy2d(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *src, int64_t lds,
                  double *dst, int64_t ldd, cudaMemcpyKind kind)
{
    if (m < 0 || n < 0) return FT_ERR_INTERNAL;
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!src || !dst) return FT_ERR_INTERNAL;
    if (n > 1 && (lds < m || ldd < m)) return FT_ERR_INTERNAL;
    if (m > INT64_MAX / (int64_t)sizeof(double) || lds > INT64_MAX / (int64_t)sizeof(double) ||
        ldd > INT64_MAX / (int64_t)sizeof(double))
        return FT_ERR_TOO_LARGE;
    struct cuda_state *st;
    cudaStream_t s;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    const size_t width = (size_t)m * sizeof(double);
    if (n == 1 || (lds == m && ldd == m && m <= INT64_MAX / n / (int64_t)sizeof(double))) {
        FTLA_CUDA_TRY(cudaMemcpyAsync(dst, src, width * (size_t)n, kind, s));
    } else {
        FTLA_CUDA_TRY(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src,
                                        (size_t)lds * sizeof(double), width, (size_t)n, kind, s));
    }
    return FT_SUCCESS;
}

static int c_set_matrix(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *hA,
                        int64_t lda, double *dA, int64_t ldda)
{
    return copy2d(ctx, q, m, n, hA, lda, dA, ldda, cudaMemcpyHostToDevice);
}

static int c_get_matrix(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *dA,
                        int64_t ldda, double *hA, int64_t lda)
{
    return copy2d(ctx, q, m, n, dA, ldda, hA, lda, cudaMemcpyDeviceToHost);
}

static int c_copy_matrix(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *dA,
                         int64_t ldda, double *dB, int64_t lddb)
{
    if (dA == dB && ldda == lddb) return FT_SUCCESS; /* like the host backend */
    return copy2d(ctx, q, m, n, dA, ldda, dB, lddb, cudaMemcpyDeviceToDevice);
}

/* ---- ordering and timing --------------------------------------------------------------------- */

static int c_sync(ft_context_t *ctx, int q)
{
    struct cuda_state *st;
    cudaStream_t s;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FTLA_CUDA_TRY(cudaStreamSynchronize(s));
    return FT_SUCCESS;
}

static int c_fork(ft_context_t *ctx, int from, int to)
{
    struct cuda_state *st;
    cudaStream_t sf, sto;
    FT_CHECK(state_stream(ctx, from, &st, &sf));
    FT_CHECK(state_stream(ctx, to, &st, &sto));
    if (from == to || sf == sto) return FT_SUCCESS;
    /* cudaStreamWaitEvent captures the event's current record, so re-recording the same
     * event in a later fork does not disturb an earlier wait */
    cudaEvent_t ev = st->fork_ev[from][to];
    FTLA_CUDA_TRY(cudaEventRecord(ev, sf));
    FTLA_CUDA_TRY(cudaStreamWaitEvent(sto, ev, 0));
    return FT_SUCCESS;
}

static int c_event_record(ft_context_t *ctx, int q, int e)
{
    if (e < 0 || e >= FT_NEVENTS) return FT_ERR_INTERNAL;
    struct cuda_state *st;
    cudaStream_t s;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FTLA_CUDA_TRY(cudaEventRecord(st->events[e], s));
    return FT_SUCCESS;
}

static int c_event_elapsed(ft_context_t *ctx, int e0, int e1, double *seconds)
{
    if (e0 < 0 || e0 >= FT_NEVENTS || e1 < 0 || e1 >= FT_NEVENTS) return FT_ERR_INTERNAL;
    FT_CHECK(ft_cuda_ctx_init(ctx));
    struct cuda_state *st = (struct cuda_state *)ctx->cuda;
    float ms = 0.0f;
    FTLA_CUDA_TRY(cudaEventSynchronize(st->events[e1]));
    FTLA_CUDA_TRY(cudaEventElapsedTime(&ms, st->events[e0], st->events[e1]));
    *seconds = (double)ms * 1e-3;
    return FT_SUCCESS;
}

/* ---- BLAS ------------------------------------------------------------------------------------ */

/* Dimension or leading dimension narrowed to cuBLAS int. */
static int to_int(int64_t v, int *out)
{
    if (v < 0) return FT_ERR_INTERNAL;
    if (v > INT_MAX) return FT_ERR_TOO_LARGE;
    *out = (int)v;
    return FT_SUCCESS;
}

static int to_op(char t, cublasOperation_t *op)
{
    if (t == 'N' || t == 'n') *op = CUBLAS_OP_N;
    else if (t == 'T' || t == 't' || t == 'C' || t == 'c') *op = CUBLAS_OP_T; /* real: C == T */
    else return FT_ERR_INTERNAL;
    return FT_SUCCESS;
}

static int c_dgemm(ft_context_t *ctx, int q, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                   double beta, double *C, int64_t ldc)
{
    cublasOperation_t opa, opb;
    FT_CHECK(to_op(ta, &opa));
    FT_CHECK(to_op(tb, &opb));
    if (m == 0 || n == 0) return FT_SUCCESS;
    int im, in, ik, ilda, ildb, ildc;
    FT_CHECK(to_int(m, &im));
    FT_CHECK(to_int(n, &in));
    FT_CHECK(to_int(k, &ik));
    FT_CHECK(to_int(lda, &ilda));
    FT_CHECK(to_int(ldb, &ildb));
    FT_CHECK(to_int(ldc, &ildc));
    struct cuda_state *st;
    cudaStream_t s;
    cublasHandle_t h;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FT_CHECK(state_handle(st, q, &h));
    CUBLAS_TRY(cublasDgemm(h, opa, opb, im, in, ik, &alpha, A, ilda, B, ildb, &beta, C, ildc));
    return FT_SUCCESS;
}

static int c_dtrmm(ft_context_t *ctx, int q, char side, char uplo, char transa, char diag,
                   int64_t m, int64_t n, double alpha, const double *A, int64_t lda, double *B,
                   int64_t ldb)
{
    cublasOperation_t op;
    FT_CHECK(to_op(transa, &op));
    cublasSideMode_t cs;
    if (side == 'L' || side == 'l') cs = CUBLAS_SIDE_LEFT;
    else if (side == 'R' || side == 'r') cs = CUBLAS_SIDE_RIGHT;
    else return FT_ERR_INTERNAL;
    cublasFillMode_t cu;
    if (uplo == 'U' || uplo == 'u') cu = CUBLAS_FILL_MODE_UPPER;
    else if (uplo == 'L' || uplo == 'l') cu = CUBLAS_FILL_MODE_LOWER;
    else return FT_ERR_INTERNAL;
    cublasDiagType_t cd;
    if (diag == 'U' || diag == 'u') cd = CUBLAS_DIAG_UNIT;
    else if (diag == 'N' || diag == 'n') cd = CUBLAS_DIAG_NON_UNIT;
    else return FT_ERR_INTERNAL;
    if (m == 0 || n == 0) return FT_SUCCESS;
    int im, in, ilda, ildb;
    FT_CHECK(to_int(m, &im));
    FT_CHECK(to_int(n, &in));
    FT_CHECK(to_int(lda, &ilda));
    FT_CHECK(to_int(ldb, &ildb));
    struct cuda_state *st;
    cudaStream_t s;
    cublasHandle_t h;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FT_CHECK(state_handle(st, q, &h));
    /* in place: cuBLAS allows C == B (same ld) for the out-of-place v2 dtrmm */
    CUBLAS_TRY(cublasDtrmm(h, cs, cu, op, cd, im, in, &alpha, A, ilda, B, ildb, B, ildb));
    return FT_SUCCESS;
}

static int c_dgemv(ft_context_t *ctx, int q, char ta, int64_t m, int64_t n, double alpha,
                   const double *A, int64_t lda, const double *x, double beta, double *y)
{
    cublasOperation_t op;
    FT_CHECK(to_op(ta, &op));
    if (m == 0 || n == 0) return FT_SUCCESS; /* BLAS: y untouched */
    int im, in, ilda;
    FT_CHECK(to_int(m, &im));
    FT_CHECK(to_int(n, &in));
    FT_CHECK(to_int(lda, &ilda));
    struct cuda_state *st;
    cudaStream_t s;
    cublasHandle_t h;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FT_CHECK(state_handle(st, q, &h));
    CUBLAS_TRY(cublasDgemv(h, op, im, in, &alpha, A, ilda, x, 1, &beta, y, 1));
    return FT_SUCCESS;
}

/* ---- single elements ------------------------------------------------------------------------- */

static int c_get_elem(ft_context_t *ctx, int q, const double *p, double *value)
{
    if (!p || !value) return FT_ERR_INTERNAL;
    struct cuda_state *st;
    cudaStream_t s;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    FTLA_CUDA_TRY(cudaMemcpyAsync(st->hpin, p, sizeof(double), cudaMemcpyDeviceToHost, s));
    FTLA_CUDA_TRY(cudaStreamSynchronize(s));
    *value = st->hpin[0];
    return FT_SUCCESS;
}

static int c_set_elem(ft_context_t *ctx, int q, double *p, double value)
{
    if (!p) return FT_ERR_INTERNAL;
    struct cuda_state *st;
    cudaStream_t s;
    FT_CHECK(state_stream(ctx, q, &st, &s));
    st->hpin[0] = value; /* idle: every user of hpin synchronises before returning */
    FTLA_CUDA_TRY(cudaMemcpyAsync(p, st->hpin, sizeof(double), cudaMemcpyHostToDevice, s));
    FTLA_CUDA_TRY(cudaStreamSynchronize(s));
    return FT_SUCCESS;
}

/* ---- the table ------------------------------------------------------------------------------- */

static ft_backend_t make_table(void)
{
    ft_backend_t b;
    memset(&b, 0, sizeof b);
    b.kind = FT_DEVICE_CUDA;
    b.name = "cuda";
    b.alloc = c_alloc;
    b.free = c_free;
    b.alloc_host = c_alloc_host;
    b.free_host = c_free_host;
    b.memset0 = c_memset0;
    b.set_matrix = c_set_matrix;
    b.get_matrix = c_get_matrix;
    b.copy_matrix = c_copy_matrix;
    b.sync = c_sync;
    b.fork = c_fork;
    b.event_record = c_event_record;
    b.event_elapsed = c_event_elapsed;
    b.dgemm = c_dgemm;
    b.dtrmm = c_dtrmm;
    b.dgemv = c_dgemv;
    b.get_elem = c_get_elem;
    b.set_elem = c_set_elem;
    b.block_sums = abft_cuda_block_sums;
    b.col_absmax = abft_cuda_col_absmax;
    b.verify_rows = abft_cuda_verify_rows;
    return b;
}

const ft_backend_t *ft_backend_cuda(void)
{
    static const ft_backend_t table = make_table();
    return &table;
}

} /* extern "C" */
