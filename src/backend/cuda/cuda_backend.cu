/*
 * cuda_backend.cu — the cuda backend: cuBLAS and own kernels on device memory (backend.h).
 *
 * A queue is a CUDA stream (non-blocking, so it never synchronises with the legacy default
 * stream) — its own, or the caller's stream it wraps (ft_context_set_stream) — with a cuBLAS
 * handle bound to it once, so BLAS calls on different queues never rebind a shared handle, an
 * event for forks, and one pinned slot for single-element copies. Every CUDA and cuBLAS status
 * is checked and handed back as an ftla code; nothing aborts. FTLA_VERBOSE >= 1 logs the failing
 * call with file:line to stderr.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"

extern "C" {

struct ft_queue {
    ft_context_t *ctx;
    cudaStream_t stream;   /* the stream work is issued on (own or wrapped) */
    cudaStream_t own;      /* ours (NULL while none was needed) */
    cublasHandle_t handle; /* bound to `stream` */
    cusolverDnHandle_t solver; /* bound to `stream`; made on first use (panels on the device) */
    cudaEvent_t fork_ev;   /* recorded by fork(from = this queue) */
    double *hpin;          /* pinned slot for get_elem / set_elem */
    int nsm;               /* multiprocessor count of the device */
    void *scratch;         /* device scratch of the queue's own kernels (ftla_cuda_queue_scratch) */
    size_t scratch_bytes;
};

struct ft_qevent {
    cudaEvent_t ev;
};

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

/* ---- queues and events ---------------------------------------------------------------------- */

int ft_cuda_probe(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n > 0;
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

cudaStream_t ftla_cuda_queue_stream(const ft_queue_t *q) { return q->stream; }

int ftla_cuda_queue_sm_count(const ft_queue_t *q) { return q->nsm; }

int ftla_cuda_queue_scratch(ft_queue_t *q, size_t bytes, void **p)
{
    *p = NULL;
    if (bytes > q->scratch_bytes) {
        /* rare: the old buffer may still be read by work issued on the queue */
        if (q->scratch) {
            FTLA_CUDA_TRY(cudaStreamSynchronize(q->stream));
            FTLA_CUDA_TRY(cudaFree(q->scratch));
            q->scratch = NULL;
            q->scratch_bytes = 0;
        }
        const size_t want = (bytes + (size_t)65535) & ~(size_t)65535;
        FTLA_CUDA_TRY(cudaMalloc(&q->scratch, want));
        q->scratch_bytes = want;
    }
    *p = q->scratch;
    return FT_SUCCESS;
}

static void c_queue_destroy(ft_queue_t *q)
{
    if (!q) return;
    if (q->stream) CUDA_WARN(cudaStreamSynchronize(q->stream));
    if (q->handle) CUBLAS_WARN(cublasDestroy(q->handle));
    if (q->solver) (void)cusolverDnDestroy(q->solver);
    if (q->fork_ev) CUDA_WARN(cudaEventDestroy(q->fork_ev));
    if (q->own) CUDA_WARN(cudaStreamDestroy(q->own)); /* a wrapped stream is the caller's */
    if (q->hpin) CUDA_WARN(cudaFreeHost(q->hpin));
    if (q->scratch) CUDA_WARN(cudaFree(q->scratch));
    free(q);
}

static int queue_init(ft_queue_t *q, void *native)
{
    int dev;
    FTLA_CUDA_TRY(cudaGetDevice(&dev));
    FTLA_CUDA_TRY(cudaDeviceGetAttribute(&q->nsm, cudaDevAttrMultiProcessorCount, dev));
    if (q->nsm < 1) q->nsm = 1;
    if (native) {
        q->stream = (cudaStream_t)native;
    } else {
        FTLA_CUDA_TRY(cudaStreamCreateWithFlags(&q->own, cudaStreamNonBlocking));
        q->stream = q->own;
    }
    FTLA_CUDA_TRY(cudaEventCreateWithFlags(&q->fork_ev, cudaEventDisableTiming));
    cudaError_t err = cudaMallocHost((void **)&q->hpin, 16 * sizeof(double));
    if (err != cudaSuccess) {
        q->hpin = NULL;
        (void)ftla_cuda_error(err, "cudaMallocHost", __FILE__, __LINE__);
        return FT_ERR_ALLOC;
    }
    CUBLAS_TRY(cublasCreate(&q->handle));
    CUBLAS_TRY(cublasSetStream(q->handle, q->stream));
    /* plain IEEE FP64 (no emulation): the ABFT thresholds assume it */
    CUBLAS_TRY(cublasSetMathMode(q->handle, CUBLAS_DEFAULT_MATH));
    return FT_SUCCESS;
}

static int c_queue_create(ft_context_t *ctx, void *native, ft_queue_t **out)
{
    *out = NULL;
    if (!ft_cuda_probe()) return FT_ERR_NO_DEVICE;
    ft_queue_t *q = (ft_queue_t *)calloc(1, sizeof *q);
    if (!q) return FT_ERR_ALLOC;
    q->ctx = ctx;
    int st = queue_init(q, native);
    if (st) {
        c_queue_destroy(q);
        return st;
    }
    *out = q;
    return FT_SUCCESS;
}

static int c_queue_wrap(ft_queue_t *q, void *native)
{
    if (!native && !q->own) FTLA_CUDA_TRY(cudaStreamCreateWithFlags(&q->own, cudaStreamNonBlocking));
    cudaStream_t next = native ? (cudaStream_t)native : q->own;
    if (next == q->stream) return FT_SUCCESS;
    /* work already issued on the old stream stays ahead of everything issued on the new one */
    FTLA_CUDA_TRY(cudaEventRecord(q->fork_ev, q->stream));
    FTLA_CUDA_TRY(cudaStreamWaitEvent(next, q->fork_ev, 0));
    CUBLAS_TRY(cublasSetStream(q->handle, next));
    if (q->solver && cusolverDnSetStream(q->solver, next) != CUSOLVER_STATUS_SUCCESS)
        return FT_ERR_CUDA;
    q->stream = next;
    return FT_SUCCESS;
}

static int c_queue_after_default(ft_queue_t *q)
{
    if (!q->own || q->stream != q->own) return FT_SUCCESS; /* the caller's stream: its ordering */
    FTLA_CUDA_TRY(cudaEventRecord(q->fork_ev, cudaStreamLegacy));
    FTLA_CUDA_TRY(cudaStreamWaitEvent(q->stream, q->fork_ev, 0));
    FTLA_CUDA_TRY(cudaEventRecord(q->fork_ev, cudaStreamPerThread));
    FTLA_CUDA_TRY(cudaStreamWaitEvent(q->stream, q->fork_ev, 0));
    return FT_SUCCESS;
}

/* q's own stream replaced by one of the greatest (raise) or least priority */
static int c_queue_prio(ft_queue_t *q, int raise)
{
    if (!q->own || q->stream != q->own) return FT_SUCCESS; /* the caller's stream: as it is */
    int lo, hi, now;
    FTLA_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    FTLA_CUDA_TRY(cudaStreamGetPriority(q->own, &now));
    const int want = raise ? hi : lo;
    if (now == want) return FT_SUCCESS;
    cudaStream_t s;
    FTLA_CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, want));
    /* work already issued on the old stream stays ahead of everything issued on the new one */
    cudaError_t err = cudaEventRecord(q->fork_ev, q->stream);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(s, q->fork_ev, 0);
    if (err != cudaSuccess) {
        CUDA_WARN(cudaStreamDestroy(s));
        return ftla_cuda_error(err, "queue_raise", __FILE__, __LINE__);
    }
    if (cublasSetStream(q->handle, s) != CUBLAS_STATUS_SUCCESS ||
        (q->solver && cusolverDnSetStream(q->solver, s) != CUSOLVER_STATUS_SUCCESS)) {
        (void)cublasSetStream(q->handle, q->stream); /* as it was */
        if (q->solver) (void)cusolverDnSetStream(q->solver, q->stream);
        CUDA_WARN(cudaStreamDestroy(s));
        return FT_ERR_CUDA;
    }
    CUDA_WARN(cudaStreamDestroy(q->own)); /* released once its work is done */
    q->own = q->stream = s;
    return FT_SUCCESS;
}

static int c_queue_raise(ft_queue_t *q) { return c_queue_prio(q, 1); }
static int c_queue_lower(ft_queue_t *q) { return c_queue_prio(q, 0); }

static int c_sync(ft_queue_t *q)
{
    FTLA_CUDA_TRY(cudaStreamSynchronize(q->stream));
    return FT_SUCCESS;
}

static int c_fork(ft_queue_t *from, ft_queue_t *to)
{
    if (from == to || from->stream == to->stream) return FT_SUCCESS;
    /* cudaStreamWaitEvent captures the event's current record, so re-recording the same
     * event in a later fork does not disturb an earlier wait */
    FTLA_CUDA_TRY(cudaEventRecord(from->fork_ev, from->stream));
    FTLA_CUDA_TRY(cudaStreamWaitEvent(to->stream, from->fork_ev, 0));
    return FT_SUCCESS;
}

static int c_event_create(ft_context_t * /*ctx*/, ft_qevent_t **out)
{
    *out = NULL;
    ft_qevent_t *e = (ft_qevent_t *)calloc(1, sizeof *e);
    if (!e) return FT_ERR_ALLOC;
    cudaError_t err = cudaEventCreate(&e->ev);
    if (err != cudaSuccess) {
        free(e);
        return ftla_cuda_error(err, "cudaEventCreate", __FILE__, __LINE__);
    }
    *out = e;
    return FT_SUCCESS;
}

static void c_event_destroy(ft_qevent_t *e)
{
    if (!e) return;
    CUDA_WARN(cudaEventDestroy(e->ev));
    free(e);
}

static int c_event_record(ft_qevent_t *e, ft_queue_t *q)
{
    FTLA_CUDA_TRY(cudaEventRecord(e->ev, q->stream));
    return FT_SUCCESS;
}

static int c_event_sync(ft_qevent_t *e)
{
    FTLA_CUDA_TRY(cudaEventSynchronize(e->ev));
    return FT_SUCCESS;
}

static int c_event_wait(ft_queue_t *q, ft_qevent_t *e)
{
    FTLA_CUDA_TRY(cudaStreamWaitEvent(q->stream, e->ev, 0));
    return FT_SUCCESS;
}

static int c_event_elapsed(ft_qevent_t *e0, ft_qevent_t *e1, double *seconds)
{
    float ms = 0.0f;
    FTLA_CUDA_TRY(cudaEventSynchronize(e1->ev));
    FTLA_CUDA_TRY(cudaEventElapsedTime(&ms, e0->ev, e1->ev));
    *seconds = (double)ms * 1e-3;
    return FT_SUCCESS;
}

/* ---- memory ---------------------------------------------------------------------------------- */

static int c_alloc(void **p, size_t bytes)
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

static void c_free(void *p)
{
    if (p) CUDA_WARN(cudaFree(p));
}

static int c_alloc_host(void **p, size_t bytes)
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

static void c_free_host(void *p)
{
    if (p) CUDA_WARN(cudaFreeHost(p));
}

static int c_memset0(ft_queue_t *q, void *p, size_t bytes)
{
    if (bytes == 0) return FT_SUCCESS;
    FTLA_CUDA_TRY(cudaMemsetAsync(p, 0, bytes, q->stream));
    return FT_SUCCESS;
}

static void c_describe(char *buf, size_t len)
{
    int dev = 0;
    cudaDeviceProp pr;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&pr, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(buf, len, "cuda-unknown");
        return;
    }
    snprintf(buf, len, "%s cc%d.%d %dSM", pr.name, pr.major, pr.minor, pr.multiProcessorCount);
}

static int c_host_pinned(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error to keep */
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

static size_t c_mem_free(void)
{
    size_t avail = 0, total = 0;
    if (cudaMemGetInfo(&avail, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return avail;
}

/* ---- copies ---------------------------------------------------------------------------------- */

/* m x n column-major copy on queue q. One column (n == 1) is a plain copy, so a vector may come
 * with any leading dimension; otherwise both leading dimensions must be >= m (pitch >= width). */
static int copy2d(ft_queue_t *q, int64_t m, int64_t n, const double *src, int64_t lds,
                  double *dst, int64_t ldd, cudaMemcpyKind kind)
{
    if (m < 0 || n < 0) return FT_ERR_INTERNAL;
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!src || !dst) return FT_ERR_INTERNAL;
    if (n > 1 && (lds < m || ldd < m)) return FT_ERR_INTERNAL;
    if (m > INT64_MAX / (int64_t)sizeof(double) || lds > INT64_MAX / (int64_t)sizeof(double) ||
        ldd > INT64_MAX / (int64_t)sizeof(double))
        return FT_ERR_TOO_LARGE;
    cudaStream_t s = q->stream;
    const size_t width = (size_t)m * sizeof(double);
    if (n == 1 || (lds == m && ldd == m && m <= INT64_MAX / n / (int64_t)sizeof(double))) {
        FTLA_CUDA_TRY(cudaMemcpyAsync(dst, src, width * (size_t)n, kind, s));
    } else {
        FTLA_CUDA_TRY(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src,
                                        (size_t)lds * sizeof(double), width, (size_t)n, kind, s));
    }
    return FT_SUCCESS;
}

static int c_set_matrix(ft_queue_t *q, int64_t m, int64_t n, const double *hA,
                        int64_t lda, double *dA, int64_t ldda)
{
    return copy2d(q, m, n, hA, lda, dA, ldda, cudaMemcpyHostToDevice);
}

static int c_get_matrix(ft_queue_t *q, int64_t m, int64_t n, const double *dA,
                        int64_t ldda, double *hA, int64_t lda)
{
    return copy2d(q, m, n, dA, ldda, hA, lda, cudaMemcpyDeviceToHost);
}

static int c_copy_matrix(ft_queue_t *q, int64_t m, int64_t n, const double *dA,
                         int64_t ldda, double *dB, int64_t lddb)
{
    if (dA == dB && ldda == lddb) return FT_SUCCESS; /* like the host backend */
    return copy2d(q, m, n, dA, ldda, dB, lddb, cudaMemcpyDeviceToDevice);
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

static int c_dgemm(ft_queue_t *q, char ta, char tb, int64_t m, int64_t n, int64_t k,
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
    cublasHandle_t h = q->handle;
    CUBLAS_TRY(cublasDgemm(h, opa, opb, im, in, ik, &alpha, A, ilda, B, ildb, &beta, C, ildc));
    return FT_SUCCESS;
}

/* The side, fill and diagonal flags of a triangular BLAS call. */
static int to_tri(char side, char uplo, char diag, cublasSideMode_t *cs, cublasFillMode_t *cu,
                  cublasDiagType_t *cd)
{
    if (side == 'L' || side == 'l') *cs = CUBLAS_SIDE_LEFT;
    else if (side == 'R' || side == 'r') *cs = CUBLAS_SIDE_RIGHT;
    else return FT_ERR_INTERNAL;
    if (uplo == 'U' || uplo == 'u') *cu = CUBLAS_FILL_MODE_UPPER;
    else if (uplo == 'L' || uplo == 'l') *cu = CUBLAS_FILL_MODE_LOWER;
    else return FT_ERR_INTERNAL;
    if (diag == 'U' || diag == 'u') *cd = CUBLAS_DIAG_UNIT;
    else if (diag == 'N' || diag == 'n') *cd = CUBLAS_DIAG_NON_UNIT;
    else return FT_ERR_INTERNAL;
    return FT_SUCCESS;
}

/* the cuBLAS arguments of a triangular operation (dtrmm, dtrsm); *empty when m or n is 0 */
struct tri_args {
    cublasOperation_t op;
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasDiagType_t diag;
    int m, n, lda, ldb;
};

static int to_tri_args(char side, char uplo, char transa, char diag, int64_t m, int64_t n,
                       int64_t lda, int64_t ldb, tri_args *a, int *empty)
{
    FT_CHECK(to_op(transa, &a->op));
    FT_CHECK(to_tri(side, uplo, diag, &a->side, &a->uplo, &a->diag));
    *empty = m == 0 || n == 0;
    if (*empty) return FT_SUCCESS;
    FT_CHECK(to_int(m, &a->m));
    FT_CHECK(to_int(n, &a->n));
    FT_CHECK(to_int(lda, &a->lda));
    return to_int(ldb, &a->ldb);
}

static int c_dtrmm(ft_queue_t *q, char side, char uplo, char transa, char diag,
                   int64_t m, int64_t n, double alpha, const double *A, int64_t lda, double *B,
                   int64_t ldb)
{
    tri_args a;
    int empty;
    FT_CHECK(to_tri_args(side, uplo, transa, diag, m, n, lda, ldb, &a, &empty));
    if (empty) return FT_SUCCESS;
    /* in place: cuBLAS allows C == B (same ld) for the out-of-place v2 dtrmm */
    CUBLAS_TRY(cublasDtrmm(q->handle, a.side, a.uplo, a.op, a.diag, a.m, a.n, &alpha, A, a.lda, B,
                           a.ldb, B, a.ldb));
    return FT_SUCCESS;
}

static int c_dtrsm(ft_queue_t *q, char side, char uplo, char transa, char diag,
                   int64_t m, int64_t n, double alpha, const double *A, int64_t lda, double *B,
                   int64_t ldb)
{
    tri_args a;
    int empty;
    FT_CHECK(to_tri_args(side, uplo, transa, diag, m, n, lda, ldb, &a, &empty));
    if (empty) return FT_SUCCESS;
    CUBLAS_TRY(cublasDtrsm(q->handle, a.side, a.uplo, a.op, a.diag, a.m, a.n, &alpha, A, a.lda, B,
                           a.ldb));
    return FT_SUCCESS;
}

static int c_dgemv(ft_queue_t *q, char ta, int64_t m, int64_t n, double alpha,
                   const double *A, int64_t lda, const double *x, double beta, double *y)
{
    cublasOperation_t op;
    FT_CHECK(to_op(ta, &op));
    if (m == 0 || n == 0) return FT_SUCCESS; /* BLAS: y untouched */
    int im, in, ilda;
    FT_CHECK(to_int(m, &im));
    FT_CHECK(to_int(n, &in));
    FT_CHECK(to_int(lda, &ilda));
    cublasHandle_t h = q->handle;
    CUBLAS_TRY(cublasDgemv(h, op, im, in, &alpha, A, ilda, x, 1, &beta, y, 1));
    return FT_SUCCESS;
}

/* ---- single elements ------------------------------------------------------------------------- */

static int c_get_elem(ft_queue_t *q, const double *p, double *value)
{
    if (!p || !value) return FT_ERR_INTERNAL;
    FTLA_CUDA_TRY(cudaMemcpyAsync(q->hpin, p, sizeof(double), cudaMemcpyDeviceToHost, q->stream));
    FTLA_CUDA_TRY(cudaStreamSynchronize(q->stream));
    *value = q->hpin[0];
    return FT_SUCCESS;
}

static int c_set_elem(ft_queue_t *q, double *p, double value)
{
    if (!p) return FT_ERR_INTERNAL;
    q->hpin[0] = value; /* idle: every use of hpin synchronises before returning */
    FTLA_CUDA_TRY(cudaMemcpyAsync(p, q->hpin, sizeof(double), cudaMemcpyHostToDevice, q->stream));
    FTLA_CUDA_TRY(cudaStreamSynchronize(q->stream));
    return FT_SUCCESS;
}

/* generic reductions (cuda_reduce.cu) */
int ftla_cuda_block_sums(ft_queue_t *q, char trans, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, int64_t T, double scale, double *sums, int64_t lds, double *abss,
                         int64_t ldabs);
int ftla_cuda_qr_wsums(ft_queue_t *q, int64_t m, int64_t n, int64_t i, const double *A,
                       int64_t lda, const double *EW, int64_t ldew, int64_t nbc, int nw,
                       double *X, int64_t ldx);
int ftla_cuda_qr_res_sizes(ft_queue_t *q, int64_t m, int64_t nc, const double *C,
                           const double *X, int64_t ld, double *out);
int ftla_cuda_col_absmax(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *out);
int ftla_cuda_col_asum_max(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                           int64_t ldx, double *asum, double *amax);
int ftla_cuda_digest(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                     uint64_t *out);

/* ---- LAPACK on work memory (cuSOLVER's geqrf, own T: cuda_lapack.cu) ------------------------ */

int ftla_cuda_larft_rows(cudaStream_t s, int64_t k, const double *G, int64_t ldg,
                         const double *tau, double *T, int64_t ldt);
int ftla_cuda_unit_lower(cudaStream_t s, int64_t n, double *A, int64_t lda);
size_t ftla_cuda_qr_leaf_work(void);
int ftla_cuda_qr_leaf(cudaStream_t s, int nsm, int64_t m, int64_t n, double *A, int64_t lda,
                      double *tau, double *V, int64_t ldv, int64_t vz, double *T, int64_t ldt,
                      void *work, size_t bytes);

static int cusolver_error(cusolverStatus_t st, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();
    if (cuda_verbose() >= 1)
        fprintf(stderr, "ftla: cuSOLVER error %d in %s at %s:%d\n", (int)st, what, file, line);
    return FT_ERR_CUDA;
}

#define CUSOLVER_TRY(call)                                                                         \
    do {                                                                                           \
        cusolverStatus_t cusolver_st_ = (call);                                                    \
        if (cusolver_st_ != CUSOLVER_STATUS_SUCCESS)                                               \
            return cusolver_error(cusolver_st_, #call, __FILE__, __LINE__);                        \
    } while (0)

/* The queue's cuSOLVER handle, made on first use (most queues never factor a panel). */
static int solver_of(ft_queue_t *q, cusolverDnHandle_t *h)
{
    if (!q->solver) {
        cusolverDnHandle_t s;
        CUSOLVER_TRY(cusolverDnCreate(&s));
        cusolverStatus_t st = cusolverDnSetStream(s, q->stream);
        if (st != CUSOLVER_STATUS_SUCCESS) {
            (void)cusolverDnDestroy(s);
            return cusolver_error(st, "cusolverDnSetStream", __FILE__, __LINE__);
        }
        q->solver = s;
    }
    *h = q->solver;
    return FT_SUCCESS;
}

/* Work layout: [0, 256) cuSOLVER's info; from 256 geqrf's workspace, or larft's G (k x k). */
enum { LAPACK_INFO_BYTES = 256 };

static int c_lapack_work(ft_queue_t *q, int64_t m, int64_t n, size_t *bytes)
{
    int im, in, lw = 0;
    FT_CHECK(to_int(m, &im));
    FT_CHECK(to_int(n, &in));
    cusolverDnHandle_t h;
    FT_CHECK(solver_of(q, &h));
    CUSOLVER_TRY(cusolverDnDgeqrf_bufferSize(h, im, in, NULL, im > 1 ? im : 1, &lw));
    size_t g = (size_t)n * (size_t)n, w = lw > 0 ? (size_t)lw : 0;
    const size_t lf = (ftla_cuda_qr_leaf_work() + sizeof(double) - 1) / sizeof(double);
    if (lf > g) g = lf;
    *bytes = LAPACK_INFO_BYTES + (g > w ? g : w) * sizeof(double);
    return FT_SUCCESS;
}

static int c_geqrf(ft_queue_t *q, int64_t m, int64_t n, double *A, int64_t lda, double *tau,
                   void *work, size_t bytes)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    int im, in, ilda;
    FT_CHECK(to_int(m, &im));
    FT_CHECK(to_int(n, &in));
    FT_CHECK(to_int(lda, &ilda));
    if (bytes <= LAPACK_INFO_BYTES) return FT_ERR_INTERNAL;
    const size_t lw = (bytes - LAPACK_INFO_BYTES) / sizeof(double);
    if (lw > (size_t)INT_MAX) return FT_ERR_TOO_LARGE;
    cusolverDnHandle_t h;
    FT_CHECK(solver_of(q, &h));
    /* info is only ever non-zero for an invalid argument, which the sizes above exclude */
    CUSOLVER_TRY(cusolverDnDgeqrf(h, im, in, A, ilda, tau,
                                  (double *)((char *)work + LAPACK_INFO_BYTES), (int)lw,
                                  (int *)work));
    return FT_SUCCESS;
}

static int c_larft(ft_queue_t *q, int64_t m, int64_t k, const double *V, int64_t ldv,
                   const double *tau, double *T, int64_t ldt, void *work, size_t bytes)
{
    if (k == 0) return FT_SUCCESS;
    if (bytes < LAPACK_INFO_BYTES + (size_t)k * (size_t)k * sizeof(double)) return FT_ERR_INTERNAL;
    double *G = (double *)((char *)work + LAPACK_INFO_BYTES);
    /* G = V^T V (its upper triangle is what T needs) */
    FT_CHECK(c_dgemm(q, 'T', 'N', k, k, m, 1.0, V, ldv, V, ldv, 0.0, G, k));
    return ftla_cuda_larft_rows(q->stream, k, G, k, tau, T, ldt);
}

static int c_unit_lower(ft_queue_t *q, int64_t n, double *A, int64_t lda)
{
    return ftla_cuda_unit_lower(q->stream, n, A, lda);
}

/* Work layout as larft's: the leaf's parts from LAPACK_INFO_BYTES on. */
static int c_qr_leaf(ft_queue_t *q, int64_t m, int64_t n, double *A, int64_t lda, double *tau,
                     double *V, int64_t ldv, int64_t vz, double *T, int64_t ldt, void *work,
                     size_t bytes)
{
    if (bytes < LAPACK_INFO_BYTES) return FT_ERR_INTERNAL;
    return ftla_cuda_qr_leaf(q->stream, q->nsm, m, n, A, lda, tau, V, ldv, vz, T, ldt,
                             (char *)work + LAPACK_INFO_BYTES, bytes - LAPACK_INFO_BYTES);
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
    b.mem_free = c_mem_free;
    b.host_pinned = c_host_pinned;
    b.describe = c_describe;
    b.queue_create = c_queue_create;
    b.queue_destroy = c_queue_destroy;
    b.queue_wrap = c_queue_wrap;
    b.queue_raise = c_queue_raise;
    b.queue_lower = c_queue_lower;
    b.queue_after_default = c_queue_after_default;
    b.sync = c_sync;
    b.fork = c_fork;
    b.event_create = c_event_create;
    b.event_destroy = c_event_destroy;
    b.event_record = c_event_record;
    b.event_elapsed = c_event_elapsed;
    b.event_sync = c_event_sync;
    b.event_wait = c_event_wait;
    b.memset0 = c_memset0;
    b.set_matrix = c_set_matrix;
    b.get_matrix = c_get_matrix;
    b.copy_matrix = c_copy_matrix;
    b.get_elem = c_get_elem;
    b.set_elem = c_set_elem;
    b.dgemm = c_dgemm;
    b.dtrmm = c_dtrmm;
    b.dtrsm = c_dtrsm;
    b.dgemv = c_dgemv;
    b.lapack_work = c_lapack_work;
    b.geqrf = c_geqrf;
    b.larft = c_larft;
    b.unit_lower = c_unit_lower;
    b.qr_leaf = c_qr_leaf;
    /* measured on the H100 (test_dpanel --bench): a 32-column leaf took 240 us at 2048 rows
     * and 252 at 8192, cuSOLVER's geqrf and larft 0.21 and 0.32 ms per 32 columns there */
    b.qr_leaf_min_rows = 6144;
    b.block_sums = ftla_cuda_block_sums;
    b.qr_wsums = ftla_cuda_qr_wsums;
    b.qr_res_sizes = ftla_cuda_qr_res_sizes;
    b.col_absmax = ftla_cuda_col_absmax;
    b.col_asum_max = ftla_cuda_col_asum_max;
    b.digest = ftla_cuda_digest;
    return b;
}

const ft_backend_t *ft_backend_cuda(void)
{
    static const ft_backend_t table = make_table();
    return &table;
}

} /* extern "C" */
