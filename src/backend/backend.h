/*
 * backend.h — the only way algorithm code reaches BLAS, memory, copies, queues and CUDA
 * (docs/architecture.md). This layer knows nothing of the modules above it (blas3, qr, ...):
 * it offers memory, copies, queue and event handles, BLAS wrappers, generic reductions and
 * device queries. A module's own device kernels live in that module's op table, which it
 * obtains with ft_backend_kind(); they reach a queue's native handle through the backend's
 * host/ or cuda/ internal header.
 *
 * Two implementations:
 *   host  (host/): OpenBLAS on host memory. Direct mode runs every operation when it is issued;
 *         deferred mode (FTLA_HOST_DEFERRED=1, docs/architecture.md) queues work per queue and
 *         runs it only when a sync, an event or a dependent queue needs it, as late as ordering
 *         allows, so a missing fork or sync shows on the CPU;
 *   cuda  (cuda/): cuBLAS and own kernels on device memory, each queue a CUDA stream with its own
 *         cuBLAS handle, copies cudaMemcpy2DAsync.
 * "Work memory" is host memory for host, device memory for cuda. Matrices are column-major,
 * sizes 64-bit; narrowing to a 32-bit BLAS interface is checked (FT_ERR_TOO_LARGE).
 * Every function returns 0 or an ft_status_t; none aborts.
 */
#ifndef FTLA_BACKEND_H
#define FTLA_BACKEND_H

#include "ftla.h"
#include <stddef.h>
#include <stdint.h>

/* Column-major indexing and transposition flags. */
static inline int64_t ft_ix(int64_t i, int64_t j, int64_t ld) { return i + j * ld; }
static inline int ft_is_trans(char t) { return t == 'T' || t == 't' || t == 'C' || t == 'c'; }
static inline int ft_is_notrans(char t) { return t == 'N' || t == 'n'; }

/* Return a failing status (non-zero) from the enclosing function. */
#define FT_CHECK(call)                                                                             \
    do {                                                                                           \
        int ft_check_status_ = (call);                                                             \
        if (ft_check_status_ != 0) return ft_check_status_;                                        \
    } while (0)

/* Wall clock (monotonic), seconds. */
double ft_wtime(void);

/* A queue: work issued on one queue runs in order; different queues may overlap. Created by
 * whoever needs one (in practice through the context's pool, core/context.h). */
typedef struct ft_queue ft_queue_t;
/* An event: a point in a queue's work, for ordering and timing. */
typedef struct ft_qevent ft_qevent_t;

/* The widest leaf of the recursive panel (qr_leaf), and qr_leaf's "this shape: not here"
 * (positive: not an error; nothing was issued). */
#define FT_QR_LEAF_MAX 32
#define FT_BE_DECLINED 1

typedef struct ft_backend {
    ft_device_t kind;
    const char *name;

    /* ---- memory. alloc/free: work memory. alloc_host: host memory suited for asynchronous
     * copies (pinned on cuda). free functions accept NULL. ---- */
    int (*alloc)(void **p, size_t bytes);
    void (*free)(void *p);
    int (*alloc_host)(void **p, size_t bytes);
    void (*free_host)(void *p);
    /* Free work memory in bytes (0 = unknown / unlimited: host). */
    size_t (*mem_free)(void);
    /* Is host memory at p suited to asynchronous copies already (pinned / registered with the
     * device)? NULL or 0: no (host: not applicable). */
    int (*host_pinned)(const void *p);
    /* A name of the device for caches of measurements (the performance model): the device
     * model, compute capability and multiprocessors (cuda), the online cpus (host). */
    void (*describe)(char *buf, size_t len);

    /* ---- queues and events ---- */
    /* New queue for ctx. native: the caller's stream to wrap (cuda; NULL = a new one). */
    int (*queue_create)(ft_context_t *ctx, void *native, ft_queue_t **q);
    /* Make q's work go ahead of other queues' where both wait for the device (cuda: its own
     * stream replaced by one of the greatest priority, work already issued staying ahead; a
     * wrapped stream and the host backend: nothing). */
    int (*queue_raise)(ft_queue_t *q);
    /* Undo queue_raise: q's work goes at the default priority again (cuda: its own stream
     * replaced by one of the least priority, work already issued staying ahead; nothing when
     * it is not raised, for a wrapped stream and on the host backend). */
    int (*queue_lower)(ft_queue_t *q);
    /* Waits for the queue's work, then destroys it (a wrapped stream is not destroyed). */
    void (*queue_destroy)(ft_queue_t *q);
    /* Make q issue on another native stream from now on (NULL: its own); work already issued
     * stays ahead of everything issued later. */
    int (*queue_wrap)(ft_queue_t *q, void *native);
    /* q (on the backend's own stream) waits for the work issued so far on the calling thread's
     * default streams (CUDA: the legacy default stream and the per-thread one): the device data
     * a caller wrote with plain cudaMemcpy before a _gpu call — which can return before its
     * copy lands — is complete before the call reads it. NULL: nothing to order after. */
    int (*queue_after_default)(ft_queue_t *q);
    /* The host waits for all work issued on q; returns the first failure of deferred work. */
    int (*sync)(ft_queue_t *q);
    /* Queue `to` waits for all work issued so far on `from` (no host wait). */
    int (*fork)(ft_queue_t *from, ft_queue_t *to);
    int (*event_create)(ft_context_t *ctx, ft_qevent_t **e);
    void (*event_destroy)(ft_qevent_t *e);
    int (*event_record)(ft_qevent_t *e, ft_queue_t *q);
    /* Seconds between two recorded events (waits for e1). */
    int (*event_elapsed)(ft_qevent_t *e0, ft_qevent_t *e1, double *seconds);
    /* The host waits until the work before the event's last record has completed (returns at
     * once for an event never recorded); returns the first failure of deferred work. */
    int (*event_sync)(ft_qevent_t *e);
    /* Queue q's later work waits for the work before the event's last record (no host wait;
     * nothing for an event never recorded): a wait on one point of another queue, where fork
     * would wait for everything issued there so far. */
    int (*event_wait)(ft_queue_t *q, ft_qevent_t *e);

    /* ---- copies of an m x n column-major matrix on queue q (asynchronous on cuda) ---- */
    int (*memset0)(ft_queue_t *q, void *p, size_t bytes);
    int (*set_matrix)(ft_queue_t *q, int64_t m, int64_t n, const double *hA, int64_t lda,
                      double *dA, int64_t ldda);                            /* host -> work */
    int (*get_matrix)(ft_queue_t *q, int64_t m, int64_t n, const double *dA, int64_t ldda,
                      double *hA, int64_t lda);                             /* work -> host */
    int (*copy_matrix)(ft_queue_t *q, int64_t m, int64_t n, const double *dA, int64_t ldda,
                       double *dB, int64_t lddb);                           /* work -> work */
    /* Single elements of work memory, synchronous (the queue is drained first): fault
     * injection and in-place correction touch a handful of elements. */
    int (*get_elem)(ft_queue_t *q, const double *p, double *value);
    int (*set_elem)(ft_queue_t *q, double *p, double value);

    /* ---- BLAS on work memory, BLAS semantics (trans 'N'/'T'/'C') ---- */
    int (*dgemm)(ft_queue_t *q, char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha,
                 const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                 double *C, int64_t ldc);
    /* B := alpha*op(A)*B (side 'L') or alpha*B*op(A) (side 'R'), A triangular, in place. */
    int (*dtrmm)(ft_queue_t *q, char side, char uplo, char transa, char diag, int64_t m,
                 int64_t n, double alpha, const double *A, int64_t lda, double *B, int64_t ldb);
    /* B := alpha*op(A)^-1*B (side 'L') or alpha*B*op(A)^-1 (side 'R'), A triangular, in place
     * (no singularity check: a zero diagonal element gives Inf/NaN, as BLAS). */
    int (*dtrsm)(ft_queue_t *q, char side, char uplo, char transa, char diag, int64_t m,
                 int64_t n, double alpha, const double *A, int64_t lda, double *B, int64_t ldb);
    /* y := alpha*op(A)*x + beta*y (incx = incy = 1). */
    int (*dgemv)(ft_queue_t *q, char ta, int64_t m, int64_t n, double alpha, const double *A,
                 int64_t lda, const double *x, double beta, double *y);

    /* ---- LAPACK on work memory: the panel factored where the matrix is (issue 10,
     * docs/qr.md "Panel placement") ---- */
    /* Bytes of work memory that geqrf and larft need for panels of up to m x n (ld >= m). */
    int (*lapack_work)(ft_queue_t *q, int64_t m, int64_t n, size_t *bytes);
    /* QR of the m x n A (ld lda) in place, LAPACK dgeqrf layout; tau (min(m, n) elements) in
     * work memory; work: lapack_work(m, n) bytes of work memory. */
    int (*geqrf)(ft_queue_t *q, int64_t m, int64_t n, double *A, int64_t lda, double *tau,
                 void *work, size_t bytes);
    /* T (k x k upper triangular, ld ldt) of the block reflector H = I - V T V^T of the k forward,
     * column-wise reflectors of the m x k V (ld ldv) as the updates apply them: unit diagonal and
     * zeros above it, explicit (dlarft 'F','C' reads only what is below); tau in work memory;
     * work: lapack_work(m, k) bytes. */
    int (*larft)(ft_queue_t *q, int64_t m, int64_t k, const double *V, int64_t ldv,
                 const double *tau, double *T, int64_t ldt, void *work, size_t bytes);
    /* The n x n top block of A: zeros strictly above the diagonal, ones on it (what is below
     * is left as it is): a factored panel made into V. */
    int (*unit_lower)(ft_queue_t *q, int64_t n, double *A, int64_t lda);
    /* One leaf of the recursive panel (qr_dpanel.c): the Householder QR of the m x n A (ld lda,
     * m >= n, n <= FT_QR_LEAF_MAX) in place, dgeqrf layout, with tau, its V (ld ldv, m rows
     * and the vz rows above: zeros there and above the diagonal, the unit diagonal, the
     * vectors) and its T (n x n, ld ldt, dlarft 'F','C', zeros below the diagonal); work:
     * lapack_work bytes. FT_BE_DECLINED (nothing issued) where the backend cannot take this
     * shape in one piece: for a taller leaf than it can hold. NULL: no leaves (the panel is
     * factored by geqrf and larft). */
    int (*qr_leaf)(ft_queue_t *q, int64_t m, int64_t n, double *A, int64_t lda, double *tau,
                   double *V, int64_t ldv, int64_t vz, double *T, int64_t ldt, void *work,
                   size_t bytes);
    /* Panels shorter than this are factored in one piece (geqrf, larft) even with qr_leaf: the
     * leaves' cost hardly falls with their rows (on cuda two grid-wide syncs a column), the
     * one-piece path's does (bench/NOTES.md "device panel"). */
    int64_t qr_leaf_min_rows;

    /* ---- generic reductions ---- */
    /* Block sums of the logical matrix X' = op(X) (rows x cols; trans 'N': X' = X stored
     * rows x cols; 'T': X' = X^T, X stored cols x rows). The columns of X' are split into
     * nb = ceil(cols / T) blocks; for every row r and block J (weights w_j = abft_weight(j - J*T,
     * abft_wden(T)), src/abft/abft.h), each element first multiplied by `scale` (a power of two:
     * sums of data near the overflow threshold stay finite, issue 7):
     *   sums[r + (2J)  *lds] = sum_{j in J}       (scale X'(r, j))     (if sums != NULL)
     *   sums[r + (2J+1)*lds] = sum_{j in J} w_j * (scale X'(r, j))
     *   abss[r + J*ldabs]    = sum_{j in J}      |scale X'(r, j)|      (if abss != NULL)
     * Outputs are overwritten. */
    int (*block_sums)(ft_queue_t *q, char trans, int64_t rows, int64_t cols, const double *X,
                      int64_t ldx, int64_t T, double scale, double *sums, int64_t lds,
                      double *abss, int64_t ldabs);
    /* The weighted row sums of the trapezoid a QR check reads (qr_checks.c). The n columns
     * are split into blocks of nbc (block b: [b nbc, min((b+1) nbc, n))), each column with nw
     * weights in EW (n x nw, ld ldew: EW(j, c) is column j's weight c in its own block). For
     * every row l < m, block b and c < nw:
     *   X(l, nw b + c) = sum_{j in block b, j >= min(l, i)} A(l, j) EW(j, c),
     * i.e. X = [R11 R12; 0 A22] W at panel boundary i for the block-diagonal W whose column
     * nw b + c is EW(:, c) on block b's rows (rows < i: from the diagonal on; rows >= i: the
     * columns >= i; i = 0: A W) — the product with the dense W at 1 / B of its flops, in one
     * read of the trapezoid. nw in 1 .. 3, nbc <= 1024. X (m x nw B, ld ldx) is overwritten. */
    int (*qr_wsums)(ft_queue_t *q, int64_t m, int64_t n, int64_t i, const double *A,
                    int64_t lda, const double *EW, int64_t ldew, int64_t nbc, int nw, double *X,
                    int64_t ldx);
    /* The sizes of the residuals C - X of a QR check (C, X: m x nc, ld ld; qr_checks.c), a
     * column at a time: out[2 c] = max_r |C(r, c) - X(r, c)| (NaN counts as Inf) and out[2 c
     * + 1] = ||C(:, c) - X(:, c)||_2 (scaled by a power of two: no overflow or underflow; the
     * max where that is 0 or not finite). A clean check then costs 2 nc numbers back, not the
     * m x nc residuals. out: 2 nc doubles of work memory. */
    int (*qr_res_sizes)(ft_queue_t *q, int64_t m, int64_t nc, const double *C, const double *X,
                        int64_t ld, double *out);
    /* out[c] = max_r |X(r, c)| (NaN propagates) for an rows x cols column-major X. */
    int (*col_absmax)(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                      double *out);
    /* asum[c] = sum_r |X(r, c)| and amax[c] = max_r |X(r, c)| (NaN propagates) in one read of
     * X (the encode of the QR checks: the norms of A's columns). */
    int (*col_asum_max)(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                        int64_t ldx, double *asum, double *amax);
    /* A bitwise digest of every column of an rows x cols column-major X (out in work memory):
     *   out[c] = sum_r ft_digest_mix(bits(X(r, c)), r)  (mod 2^64),
     * the same on every backend whatever the order of the additions (integer sums). Any single
     * changed element changes its column's digest (the mix is a bijection of the bits for each
     * r): used to notice that an operand changed during a call (ft_dgemm, issue 7). */
    int (*digest)(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                  uint64_t *out);
} ft_backend_t;

/* The element mix of digest(): for each r a bijection of the 64 bits (add a row-dependent
 * constant, multiply by an odd constant), so one element's change always changes the sum. */
#if defined(__CUDACC__)
#define FT_DIGEST_FN __host__ __device__ __forceinline__
#else
#define FT_DIGEST_FN static inline
#endif
FT_DIGEST_FN uint64_t ft_digest_mix(uint64_t bits, int64_t r)
{
    return (bits + (uint64_t)r * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
}

/* The mix is affine in the bits, so a column's digest is
 *   sum_r mix(b_r, r) = K2 (sum_r b_r + K1 rows (rows - 1) / 2)  (mod 2^64):
 * a plain sum of the bit patterns, finished here (host loops that copy a column anyway sum its
 * bits on the way: qr_loop.c). */
FT_DIGEST_FN uint64_t ft_digest_finish(uint64_t bitsum, int64_t rows)
{
    const uint64_t r = (uint64_t)rows;
    const uint64_t tri = (r & 1u) ? r * ((r - 1u) / 2u) : (r / 2u) * (r - 1u);
    return (bitsum + tri * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
}

/* digest() on the host, directly: out[c] for the rows x cols X (ld ldx) in host memory. */
void ft_digest_ref(int64_t rows, int64_t cols, const double *X, int64_t ldx, uint64_t *out);

/* The two implementations. ft_backend_cuda() is NULL in builds without CUDA. */
const ft_backend_t *ft_backend_host(void);
const ft_backend_t *ft_backend_cuda(void);
/* Index of a backend for per-backend tables: 0 host, 1 cuda. */
static inline int ft_backend_index(const ft_backend_t *be) { return be->kind == FT_DEVICE_CUDA; }
#define FT_NBACKENDS 2

/* CUDA device queries (0 without CUDA or without a device). */
int ft_cuda_probe(void);                 /* 1 when a device is usable */
int ft_cuda_is_device_ptr(const void *p); /* 1 when p is device (or managed) memory */

/* ---- host LAPACK (always on host memory, whatever the backend of the call) ----
 * The CPU panel factorization of the hybrid QR (DESIGN.md). 64-bit dimensions checked against
 * lapack_int; each returns 0 or FT_ERR_LAPACK. */
/* QR of the m x n panel P (ld ldp) in place, LAPACK layout; tau gets min(m,n) scalars.
 * work: lwork >= n doubles. Narrow panels (n <= 16) use the unblocked dgeqr2. */
int ft_lapack_panel_qr(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *work,
                       int64_t lwork);
/* The same QR and its T at once (ld ldt >= n, upper triangle written; tau = diag(T)), by
 * LAPACK's recursive dgeqrt3: level 3 down to single columns, where dgeqrf on a panel narrower
 * than its crossover (128) runs the level-2 dgeqr2 and dlarft then reads V again. Needs m >= n.
 * The reflectors are LAPACK's (dlarfg) to rounding, not bit for bit. */
int ft_lapack_panel_qrt(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *T,
                        int64_t ldt);
/* The host panel with its T (ld ldt): dgeqrt3 (ft_lapack_panel_qrt) on hosts of at most four
 * threads (ft_host_threads), dgeqrf and dlarft (work: lwork >= n) on larger ones. dgeqrt3's
 * recursion does not scale with the BLAS's threads, dgeqr2's level-2 calls do (bench/NOTES.md
 * "Issue 11, session 8"; 4096 x 64 / 16384 x 256, ms, dgeqrt3 against dgeqrf + dlarft: 2 cores
 * of this VM 1.9 / - against 3.4 / -; the 16-core H200 host with 2 BLAS threads 2.2 / 67
 * against 3.3 / 159, 4: 2.0 / 65 against 2.3 / 99, 8: 2.6 / 66 against 2.3 / 90, 16: 2.5 / 65
 * against 1.7 / 51). */
int ft_lapack_panel_factor(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *T,
                           int64_t ldt, double *work, int64_t lwork);
/* T (k x k upper triangular, ld ldt) of the block reflector H = I - V T V^T of k forward,
 * column-wise reflectors stored below the diagonal of the m x k V (dlarft 'F','C'). */
int ft_lapack_larft(int64_t m, int64_t k, const double *V, int64_t ldv, const double *tau,
                    double *T, int64_t ldt);

/* The whole QR by LAPACK (unblocked-size path): dgeqrf with its own optimal workspace. */
int ft_lapack_dgeqrf(int64_t m, int64_t n, double *A, int64_t lda, double *tau);
/* LAPACK dormqr (LAPACKE, its own workspace): C := op(Q) C or C op(Q). */
int ft_lapack_dormqr(char side, char trans, int64_t m, int64_t n, int64_t k, const double *A,
                     int64_t lda, const double *tau, double *C, int64_t ldc);
/* LAPACK dlange('M'): *amax = max |A(i,j)| of the m x n A (NaN propagates; 0 when empty). */
int ft_lapack_dlange_max(int64_t m, int64_t n, const double *A, int64_t lda, double *amax);
/* LAPACK dlascl('G'): A := (cto / cfrom) A without over/underflow in the factor (ft_dgels). */
int ft_lapack_dlascl(double cfrom, double cto, int64_t m, int64_t n, double *A, int64_t lda);

#endif
