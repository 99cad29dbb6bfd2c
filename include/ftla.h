/**
 * @file ftla.h
 * @brief ftla — fault-tolerant dense linear algebra (the whole public C API).
 *
 * Column-major storage, LAPACK argument order and semantics. Every routine returns an int status:
 *   0            success
 *   -i  (i >= 1) the i-th argument had an illegal value (also reported through ft_xerbla)
 *   <= -1000     a library error (ft_status_t below; ft_strerror() gives its text)
 * No routine of this library ever exits or aborts the caller's process.
 *
 * Suffixes: none = host pointers; _gpu = device pointers (CUDA builds); _ex = explicit context and report.
 */
#ifndef FTLA_H
#define FTLA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTLA_VERSION_MAJOR 0
#define FTLA_VERSION_MINOR 1
#define FTLA_VERSION_PATCH 0

/** Integer type of dimensions and leading dimensions (LP64: same as LAPACK's INTEGER). */
typedef int ft_int;

/** Library status codes, all below the LAPACK argument-error range. */
typedef enum {
    FT_SUCCESS = 0,
    FT_ERR_ALLOC = -1001,          /**< host memory allocation failed */
    FT_ERR_DEVICE_ALLOC = -1002,   /**< device memory allocation failed */
    FT_ERR_CUDA = -1003,           /**< a CUDA runtime call failed */
    FT_ERR_CUBLAS = -1004,         /**< a cuBLAS call failed */
    FT_ERR_NO_DEVICE = -1005,      /**< the CUDA backend was asked for but no usable device/driver */
    FT_ERR_NOT_BUILT = -1006,      /**< the CUDA backend was asked for but ftla was built without CUDA */
    FT_ERR_UNCORRECTABLE = -1007,  /**< a soft error was detected and could not be corrected */
    FT_ERR_NOT_RECOVERED = -1008,  /**< a soft error was detected and located but not recovered */
    FT_ERR_LAPACK = -1009,         /**< a host LAPACK call failed */
    FT_ERR_INVALID_VALUE = -1010,  /**< a context, option or fault description was invalid */
    FT_ERR_TOO_LARGE = -1011,      /**< the problem does not fit in device memory / int range */
    FT_ERR_INTERNAL = -1012,       /**< an internal inconsistency (a bug: please report) */
    FT_ERR_UNCHECKED = -1013       /**< finite inputs, but part of the result could not be verified:
                                        it (or its checksums) is not representable (overflow);
                                        the result is the computed one, unverified. NaN/Inf
                                        inputs give status 0 (IEEE semantics, as BLAS/LAPACK)
                                        with report.unchecked > 0 */
} ft_status_t;

/** Text of a status code (argument errors, library errors and 0). Never NULL. */
const char *ft_strerror(int status);

/** Where a routine runs. AUTO: the GPU when one is present and the problem is large enough. */
typedef enum { FT_DEVICE_AUTO = 0, FT_DEVICE_CPU = 1, FT_DEVICE_CUDA = 2 } ft_device_t;

/** Version of the library that is running (may be newer than the header a caller was built
 *  with). Any pointer may be NULL. */
void ft_version(int *major, int *minor, int *patch);

/** 1 when this build of ftla includes the CUDA backend, else 0. */
int ft_have_cuda(void);
/** 1 when the CUDA backend is built and a device can be used now, else 0. */
int ft_cuda_available(void);

/* ------------------------------------------------------------------------------------------- */
/* Errors                                                                                        */
/* ------------------------------------------------------------------------------------------- */

/**
 * Argument-error handler, called as ft_xerbla("FT_DGEMM", i) when argument i is illegal.
 * The default logs one line to stderr ("** On entry to FT_DGEMM parameter number 3 had an illegal
 * value") and returns; it never stops the program. Replace it with ft_set_xerbla().
 */
typedef void (*ft_xerbla_t)(const char *srname, int info);
void ft_xerbla(const char *srname, int info);
/** Install a handler (NULL restores the default). Returns the previous handler, or NULL when
 *  it was the default. Thread-safe. */
ft_xerbla_t ft_set_xerbla(ft_xerbla_t handler);

/**
 * Status of the calling thread's most recent call of a drop-in entry point: the Fortran ABI
 * routines FT_DGEMM / FT_DGEQRF (symbols ft_dgemm_, ft_dgeqrf_; docs/fortran.md), whose reference
 * argument lists have no status return (DGEMM not even an INFO). 0, -i for an argument error
 * (reported through XERBLA), or an ft_status_t. 0 before any such call on the thread. Fortran:
 * FT_LAST_STATUS() (symbol ft_last_status_), or ft_last_status() from the module.
 */
int ft_last_status(void);

/* ------------------------------------------------------------------------------------------- */
/* Policy, context, fault injection, report                                                      */
/* ------------------------------------------------------------------------------------------- */

/*
 * ABI stability of the structures that grow (ft_policy_t, ft_report_t). New fields are only ever
 * appended. Every function that reads or writes one takes the caller's sizeof as a hidden
 * argument: the names without _v below are macros that pass sizeof(...) as compiled into the
 * caller, so a program built against an older ftla.h keeps working with a newer library — the
 * library reads and writes only the fields that program knows (and keeps or defaults the rest).
 * A program built against a newer header on an older library: fields that library lacks read
 * as 0 from it, and a policy setting any of them to non-zero is refused (FT_ERR_INVALID_VALUE).
 * Bindings that cannot use the macros (Fortran, dlsym) call the _v functions with the size of
 * their own copy of the structure, at least FT_POLICY_SIZE_V1 / FT_REPORT_SIZE_V1.
 */

/** Protection policy. Zero-initialised fields mean "library default" unless stated. */
typedef struct {
    int protect;      /**< FT_PROTECT_ABFT (1, default): checksums; FT_PROTECT_OFF (0): plain
                           computation through the same driver; FT_PROTECT_TMR (2): ft_dgemm
                           computes the product three times and votes element by element
                           (docs/dgemm.md "TMR"); ft_dgeqrf treats it as FT_PROTECT_ABFT */
    int tile;         /**< ft_dgemm verification tile (rows and columns); 0 = automatic */
    double tol;       /**< threshold safety factor c in c*u*bound (docs/thresholds.md); 0 = 2.0 */
    int backup_c;     /**< ft_dgemm, beta != 0: keep a copy of C for tile recomputation.
                           -1 = automatic (host data: yes; _gpu: no), 0 = never, 1 = always;
                           ft_pdgemm: 1 only (failing rows computed again, docs/dist.md) */
    int nb;           /**< ft_dgeqrf block size; 0 = automatic */
    int verify_every; /**< ft_dgeqrf online verification every q panels; 0 = only at the end */
    int crossover;    /**< ft_dgeqrf: min(m,n) <= crossover (> 0) runs plain host LAPACK,
                           UNPROTECTED (the report counts it unchecked); 0 or -1 = never: every
                           size runs the protected driver (default) */
    int verbose;      /**< 0 quiet, 1 one line per call, 2 per detected event */
    int serial_encode;/**< ft_dgemm on CUDA: 0 = encode the operands on a side stream while the
                           product runs (default), 1 = encode before the product on the main
                           stream (for measurement; docs/dgemm.md) */
    int operand_check;/**< ft_dgemm: notice an operand (A or B) that changes during the call,
                           after its checksums were taken (a soft error in the caller's or the
                           staged input): 0 = default (on), 1 = on, -1 = off. Costs one more
                           read of A and B (docs/fault-model.md). A later field: callers
                           built against an older header keep the default. */
    int keep_input;   /**< ft_dgeqrf: keep the input that recovery of a propagated error needs
                           (the original columns of A; docs/recovery.md). 0 = default: the
                           caller's A where it is left untouched (host pointers on the GPU),
                           else a copy taken while the first panel is factored — in device
                           memory when it fits (CUDA), else in host memory; 1 = a host copy;
                           2 = a device copy (CUDA; the host otherwise); -1 = none: such errors
                           are located and returned as FT_ERR_NOT_RECOVERED. A column source
                           (ft_context_set_column_source) replaces the copy. */
    int protect_q;    /**< ft_dgeqrf: what the checksum columns cannot see (issue 9,
                           docs/fault-model.md): the checkpoint of the Householder vectors and
                           tau, the check of the reflectors each update applies and the check of
                           each panel factorization. 0 = default (on when protect is), 1 = on,
                           -1 = off (for measurement; the report then counts them as
                           unchecked). */
    int panel;        /**< ft_dgeqrf: where the panels are factored (ft_panel_t, issue 10;
                           docs/qr.md "Panel placement"): FT_PANEL_AUTO (0, default),
                           FT_PANEL_CPU (host LAPACK, the hybrid of paper 004) or FT_PANEL_GPU
                           (in work memory on the call's backend: cuSOLVER's geqrf on CUDA; host
                           LAPACK through the same driver on the CPU backend). Every protection
                           works in each. AUTO: the environment's FTLA_PANEL=cpu|gpu when set,
                           else GPU on CUDA and CPU on the CPU backend; on CUDA, with nb = 0,
                           the performance model (ft_dgeqrf_model) picks both. */
    double error_rate;/**< ft_dgeqrf: soft errors per second the caller expects (>= 0; 0 = not
                           given). With verify_every = 0 and a rate, the online verification
                           interval is the performance model's Young/Daly choice (docs/qr.md
                           "Performance model"). */
    double gpu_memory;/**< ft_dgemm with host pointers: the work memory (bytes) it may use;
                           0 = default: the environment's FTLA_GPU_MEMORY when set, else the
                           device's free memory (CUDA) or no limit (CPU). A product whose copies
                           do not fit runs out of core: C in blocks, A and B streamed through
                           the limit in chunks (docs/dgemm.md "Out of core"). A later field. */
    /* fields added by later versions go here, after all the fields above */
} ft_policy_t;

/** Panel placement of ft_dgeqrf (policy.panel). */
typedef enum { FT_PANEL_AUTO = 0, FT_PANEL_CPU = 1, FT_PANEL_GPU = 2 } ft_panel_t;
/** policy.protect */
typedef enum { FT_PROTECT_OFF = 0, FT_PROTECT_ABFT = 1, FT_PROTECT_TMR = 2 } ft_protect_t;

/** Size of the first version of ft_policy_t (the smallest a caller may pass). */
#define FT_POLICY_SIZE_V1 (offsetof(ft_policy_t, serial_encode) + sizeof(int))

/** Opaque context: backend choice, streams, cuBLAS handles, policy, injection plan, statistics. */
typedef struct ft_context ft_context_t;

/**
 * Create a context. device: AUTO, CPU or CUDA. CUDA fails with FT_ERR_NOT_BUILT or
 * FT_ERR_NO_DEVICE when unavailable; AUTO silently uses the CPU then. The policy starts at the
 * defaults. Environment variables are NOT read here (only by the default context).
 */
int ft_context_create(ft_context_t **ctx, ft_device_t device);
/** Destroy a context (NULL is fine). Waits for its device work. */
int ft_context_destroy(ft_context_t *ctx);
/** Use the caller's CUDA stream (a cudaStream_t, passed as void*) for the main queue; NULL = own. */
int ft_context_set_stream(ft_context_t *ctx, void *cuda_stream);
/** Read / replace the context's policy. size = the caller's sizeof(ft_policy_t) (see "ABI
 *  stability" above; the macros pass it). set validates every field first and changes nothing
 *  on FT_ERR_INVALID_VALUE. */
int ft_context_get_policy_v(const ft_context_t *ctx, ft_policy_t *policy, size_t size);
int ft_context_set_policy_v(ft_context_t *ctx, const ft_policy_t *policy, size_t size);
#define ft_context_get_policy(ctx, policy)                                                         \
    ft_context_get_policy_v((ctx), (policy), sizeof(ft_policy_t))
#define ft_context_set_policy(ctx, policy)                                                         \
    ft_context_set_policy_v((ctx), (policy), sizeof(ft_policy_t))
/** The device requested for this context (what AUTO resolves to depends on the problem). */
ft_device_t ft_context_device(const ft_context_t *ctx);
/**
 * The calling thread's default context, used by the plain entry points and by the _ex routines
 * called with ctx = NULL. Each thread has its own, created on the thread's first use and
 * destroyed when the thread exits, configured from FTLA_DEVICE=auto|cpu|cuda, FTLA_VERBOSE,
 * FTLA_PROTECT=0|1, FTLA_TILE=n, FTLA_TOL=x, FTLA_NB=n, FTLA_SERIAL_ENCODE (read once per
 * process). So threads run in parallel, and a call made from inside another ftla call on the
 * same thread (re-entrance: a handler, a nested routine) works. NULL only when it cannot be
 * created (out of memory).
 */
ft_context_t *ft_default_context(void);

/** Regions a fault can be injected into. */
typedef enum {
    FT_REGION_C = 0,        /**< ft_dgemm: the result C, after the product, before verification */
    FT_REGION_A = 1,        /**< an input operand A, after encoding (input corruption) */
    FT_REGION_B = 2,        /**< the input operand B, after encoding */
    FT_REGION_CHECKSUM = 3, /**< the checksums themselves (dgemm: predicted row checks; QR: columns) */
    FT_REGION_R = 4,        /**< ft_dgeqrf: finished rows of R */
    FT_REGION_TRAILING = 5, /**< ft_dgeqrf: the trailing matrix before a panel step */
    FT_REGION_Q = 6,        /**< ft_dgeqrf: finished Householder vectors */
    FT_REGION_TAU = 7,      /**< ft_dgeqrf: finished tau (host memory); col = its index, row unused */
    FT_REGION_REFLECTORS = 8, /**< ft_dgeqrf: the reflectors an update is about to apply (work
                               *   memory): row, col < ib: V(row, col) of the panel's m_i x ib V;
                               *   col in [ib, 2 ib): T(row, col - ib), row <= col - ib;
                               *   col in [2 ib, 3 ib): T(row, col - 2 ib) while it is kept
                               *   after its update (at the check point of step + 3) */
    FT_REGION_PANEL = 9     /**< ft_dgeqrf: inside a panel factorization (host memory), between its
                             *   two halves: the element (row, col) of A, row >= the panel's
                             *   first column i, col in [i, i + ib) */
} ft_region_t;

/** One planned fault. row/col/step/call = -1 mean "random" (call: the next call). */
typedef struct {
    ft_region_t region;
    int64_t row, col; /**< element inside the region (0-based), -1 = random */
    int bit;          /**< bit to flip, 0..63 (63 = sign, 52..62 exponent); -1 = add `value` */
    double value;     /**< additive corruption when bit = -1 */
    int64_t call;     /**< 0-based index of the protected call on this context; -1 = next call */
    int64_t step;     /**< QR panel step (or -1 = random); ignored by ft_dgemm */
} ft_fault_t;

/** Append a fault to the context's plan (at most 64 pending). A fault planned for a call that
 *  cannot apply it (ft_dgemm: regions other than C and CHECKSUM, or no product because alpha = 0
 *  or k = 0) is dropped at the end of that call. */
int ft_inject_add(ft_context_t *ctx, const ft_fault_t *fault);
/** Remove all pending faults. */
int ft_inject_clear(ft_context_t *ctx);
/** Seed of the generator used for random positions/bits (default 1). */
int ft_inject_seed(ft_context_t *ctx, uint64_t seed);

/** What happened to one fault, detected error or check. */
typedef enum {
    FT_EVENT_INJECTED = 0,     /**< a fault was injected (old and new value) */
    FT_EVENT_CORRECTED = 1,    /**< an element was corrected in place from the checksums */
    FT_EVENT_RECOMPUTED = 2,   /**< a tile / panel was recomputed */
    FT_EVENT_CHECKSUM = 3,     /**< a checksum itself was found corrupted; data unchanged */
    FT_EVENT_UNCORRECTABLE = 4,/**< detected, not corrected */
    FT_EVENT_LOCATED = 5,      /**< detected and located (column), not recovered */
    FT_EVENT_RECOVERED = 6     /**< ft_dgeqrf: an error consumed by later panels (column col,
                                    found at step `step`) was recovered: by a QR update
                                    (before = 1) or by re-factorization (before = 2) */
} ft_event_kind_t;

typedef struct {
    ft_event_kind_t kind;
    ft_region_t region;
    int64_t row, col; /**< element (or -1 when only the column / tile is known) */
    int64_t step;     /**< QR panel step, or dgemm tile index */
    double before, after;
} ft_event_t;

#define FT_REPORT_MAX_EVENTS 64

/** Filled by the _ex routines. Counters cover the whole call. */
typedef struct {
    ft_device_t backend;  /**< the backend that ran: FT_DEVICE_CPU or FT_DEVICE_CUDA */
    int status;           /**< the routine's return value */
    int64_t injected;     /**< faults injected during the call */
    int64_t detected;     /**< distinct erroneous elements / columns detected */
    int64_t located;      /**< of those, located */
    int64_t corrected;    /**< corrected in place (or by recomputation) */
    int64_t uncorrectable;/**< detected and not corrected */
    int64_t checksum_errors; /**< corrupted checksums recognised (no data changed) */
    int64_t recomputed;   /**< tiles / panels recomputed */
    int64_t unchecked;    /**< checks skipped because inputs were NaN/Inf or checksums overflowed */
    int64_t checks;       /**< checks evaluated */
    double time_total;    /**< seconds, whole call */
    double time_protect;  /**< seconds spent in protection (encode, verify, correct) on the
                               critical path, measured with the backend's clock */
    int nevents;          /**< events recorded (at most FT_REPORT_MAX_EVENTS; the counters count all) */
    ft_event_t events[FT_REPORT_MAX_EVENTS];
    /* ---- later fields (ft_dgeqrf recovery, docs/recovery.md) ---- */
    int recovery;         /**< how propagated errors were recovered: 0 none, 1 QR update (the
                               rotations are in the FT factor), 2 re-factorization, 3 both */
    int64_t recovered;    /**< propagated errors recovered (also counted in corrected) */
    int64_t refactor_col; /**< re-factorization: the first column re-factored, else -1 */
    double refactor_flops;/**< re-factorization: flops of the work redone (reflectors re-applied
                               and panels factored again) */
    double time_recovery; /**< seconds spent recovering (QR update or re-factorization) */
    /* fields added by later versions go here, after all the fields above */
} ft_report_t;

/** Size of the first version of ft_report_t (the smallest a caller may pass). */
#define FT_REPORT_SIZE_V1 (offsetof(ft_report_t, events) + FT_REPORT_MAX_EVENTS * sizeof(ft_event_t))

/** One line summary of a report into buf (always NUL-terminated). Returns buf. size = the
 *  caller's sizeof(ft_report_t) (the macro passes it). */
char *ft_report_string_v(const ft_report_t *report, size_t size, char *buf, size_t len);
#define ft_report_string(report, buf, len)                                                         \
    ft_report_string_v((report), sizeof(ft_report_t), (buf), (len))

/* ------------------------------------------------------------------------------------------- */
/* ft_dgemm                                                                                      */
/* ------------------------------------------------------------------------------------------- */

/**
 * ft_dgemm: C := alpha*op(A)*op(B) + beta*C with ABFT verification and correction.
 *
 * @param transa  'N'/'n': op(A) = A; 'T'/'t'/'C'/'c': op(A) = A^T.
 * @param transb  as transa, for B.
 * @param m       rows of op(A) and C, m >= 0.
 * @param n       columns of op(B) and C, n >= 0.
 * @param k       columns of op(A) and rows of op(B), k >= 0.
 * @param alpha   scalar.
 * @param A       lda-by-ka array, ka = k when transa = 'N' else m. Not read when m = 0, or k = 0,
 *                or alpha = 0.
 * @param lda     lda >= max(1, m) when transa = 'N', else lda >= max(1, k).
 * @param B       ldb-by-kb array, kb = n when transb = 'N' else k.
 * @param ldb     ldb >= max(1, k) when transb = 'N', else ldb >= max(1, n).
 * @param beta    scalar. When beta = 0, C need not be set on entry (NaN in C is overwritten).
 * @param C       ldc-by-n array (in/out).
 * @param ldc     ldc >= max(1, m).
 * @return 0; -i for an illegal argument i (1..13, reported by ft_xerbla("FT_DGEMM", i), nothing
 *         computed, C untouched); FT_ERR_UNCORRECTABLE when a detected error could not be
 *         corrected (C then holds the product with the affected tile marked in the report);
 *         FT_ERR_UNCHECKED when the inputs are finite but part of the result (or its checksums)
 *         overflows, so it could not be verified (C holds the computed product);
 *         another ft_status_t for allocation / device failures (C untouched).
 * Quick return (C untouched) when m = 0, n = 0, or (alpha = 0 or k = 0) and beta = 1, as BLAS.
 */
int ft_dgemm(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
             const double *A, ft_int lda, const double *B, ft_int ldb, double beta, double *C,
             ft_int ldc);

/** ft_dgemm with an explicit context (NULL = the thread's default) and report (may be NULL).
 *  report_size = the caller's sizeof(ft_report_t) (the macro ft_dgemm_ex passes it). */
int ft_dgemm_ex_v(ft_context_t *ctx, char transa, char transb, ft_int m, ft_int n, ft_int k,
                  double alpha, const double *A, ft_int lda, const double *B, ft_int ldb,
                  double beta, double *C, ft_int ldc, ft_report_t *report, size_t report_size);
#define ft_dgemm_ex(ctx, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, report)             \
    ft_dgemm_ex_v((ctx), (ta), (tb), (m), (n), (k), (alpha), (A), (lda), (B), (ldb), (beta), (C),  \
                  (ldc), (report), sizeof(ft_report_t))

/**
 * ft_dgemm on device pointers (CUDA builds): A, B, C live in GPU memory; the work runs on the
 * context's stream and the call returns when C is verified (the report needs the result).
 * Returns FT_ERR_NOT_BUILT / FT_ERR_NO_DEVICE without CUDA.
 */
int ft_dgemm_gpu(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
                 const double *dA, ft_int lda, const double *dB, ft_int ldb, double beta,
                 double *dC, ft_int ldc);
int ft_dgemm_gpu_ex_v(ft_context_t *ctx, char transa, char transb, ft_int m, ft_int n, ft_int k,
                      double alpha, const double *dA, ft_int lda, const double *dB, ft_int ldb,
                      double beta, double *dC, ft_int ldc, ft_report_t *report,
                      size_t report_size);
#define ft_dgemm_gpu_ex(ctx, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, report)         \
    ft_dgemm_gpu_ex_v((ctx), (ta), (tb), (m), (n), (k), (alpha), (A), (lda), (B), (ldb), (beta),   \
                      (C), (ldc), (report), sizeof(ft_report_t))

/* ------------------------------------------------------------------------------------------- */
/* ft_dgeqrf                                                                                     */
/* ------------------------------------------------------------------------------------------- */

/**
 * ft_dgeqrf: QR factorization A = Q*R with checksum-column protection (paper 004).
 * Arguments exactly as LAPACK DGEQRF; the output layout is LAPACK's (R on and above the
 * diagonal, Householder vectors below, tau), so LAPACK dorgqr/dormqr/dgels work on it.
 *
 * @param m      rows of A, m >= 0.                                      (argument 1)
 * @param n      columns of A, n >= 0.                                   (argument 2)
 * @param A      lda-by-n, in/out.                                       (argument 3)
 * @param lda    lda >= max(1, m).                                       (argument 4)
 * @param tau    min(m,n) scalar factors of the reflectors, out.         (argument 5)
 * @param work   workspace, work[0] returns the optimal lwork.           (argument 6)
 * @param lwork  >= max(1, n), or -1 for a workspace query.              (argument 7)
 * @param info   out: 0, -i, or an ft_status_t (also the return value).
 */
int ft_dgeqrf(ft_int m, ft_int n, double *A, ft_int lda, double *tau, double *work, ft_int lwork,
              ft_int *info);
int ft_dgeqrf_ex_v(ft_context_t *ctx, ft_int m, ft_int n, double *A, ft_int lda, double *tau,
                   double *work, ft_int lwork, ft_int *info, ft_report_t *report,
                   size_t report_size);
#define ft_dgeqrf_ex(ctx, m, n, A, lda, tau, work, lwork, info, report)                            \
    ft_dgeqrf_ex_v((ctx), (m), (n), (A), (lda), (tau), (work), (lwork), (info), (report),          \
                   sizeof(ft_report_t))
/** Device-pointer variant: dA in GPU memory, tau on the host. */
int ft_dgeqrf_gpu(ft_int m, ft_int n, double *dA, ft_int ldda, double *tau, ft_int *info);
int ft_dgeqrf_gpu_ex_v(ft_context_t *ctx, ft_int m, ft_int n, double *dA, ft_int ldda,
                       double *tau, ft_int *info, ft_report_t *report, size_t report_size);
#define ft_dgeqrf_gpu_ex(ctx, m, n, dA, ldda, tau, info, report)                                   \
    ft_dgeqrf_gpu_ex_v((ctx), (m), (n), (dA), (ldda), (tau), (info), (report), sizeof(ft_report_t))

/* ------------------------------------------------------------------------------------------- */
/* Performance model of ft_dgeqrf (issue 10; docs/qr.md "Performance model")                     */
/* ------------------------------------------------------------------------------------------- */

/** What the model predicts for an m x n ft_dgeqrf on a context, and what it chooses. */
typedef struct {
    double seconds;       /**< predicted time of the chosen configuration */
    int panel;            /**< FT_PANEL_CPU or FT_PANEL_GPU chosen */
    int nb;               /**< block size chosen */
    int lookahead;        /**< lookahead depth chosen (the loop has depths 0 and 1) */
    int verify_every;     /**< online verification interval (Young/Daly from policy.error_rate;
                               0 = at the end only) */
    double seconds_depth0;/**< the chosen placement and nb without lookahead */
    double seconds_cpu;   /**< the best of FT_PANEL_CPU (0 when not considered) */
    double seconds_gpu;   /**< the best of FT_PANEL_GPU (0 when not considered) */
    int nb_cpu, nb_gpu;   /**< their block sizes */
    double verify_seconds;/**< one online verification */
    int source;           /**< where the calibration came from: 1 measured now, 2 the cache
                               file, 3 this process's memory */
    double calib_seconds; /**< time the calibration took when measured now */
    char device[96];      /**< the device the calibration is for */
    char cache[256];      /**< the cache file ("" when none is used) */
} ft_qr_model_t;

/**
 * Predict ft_dgeqrf (is_gpu = 0: host pointers, copies included; 1: device pointers) on ctx
 * with its policy (protect, panel, nb fixed or automatic, error_rate). The first use on a
 * device calibrates the model there (a few short measurements, ~1 s on a GPU) and caches it in
 * memory and in a file: $FTLA_MODEL_CACHE, else $XDG_CACHE_HOME/ftla, else ~/.cache/ftla
 * (FTLA_MODEL_CACHE=off: memory only). FTLA_MODEL=off stops ft_dgeqrf from using the model
 * for its automatic choices (this function still works).
 */
int ft_dgeqrf_model(ft_context_t *ctx, ft_int m, ft_int n, int is_gpu, ft_qr_model_t *out);

/* ------------------------------------------------------------------------------------------- */
/* Timeline of a call (issue 10; docs/qr.md "Timeline")                                          */
/* ------------------------------------------------------------------------------------------- */

/** Where a span of the timeline ran: the host thread of the call, or one of the call's queues
 *  (ft_dgeqrf: MAIN = the panels and the lookahead, SIDE = the rest of each trailing update,
 *  CHECK = the checks on a panel's arrival, the checkpoint of Q and (panels on the device) the
 *  checksum columns, sharing the queue of the copies in; COPY_OUT = panels to the host). */
typedef enum {
    FT_LANE_HOST = 0, FT_LANE_MAIN = 1, FT_LANE_SIDE = 2, FT_LANE_CHECK = 3,
    FT_LANE_COPY_OUT = 4, FT_NLANES = 5
} ft_lane_t;

/** What a span was. */
typedef enum {
    FT_PHASE_ENCODE = 0,     /**< checksums of the input, thresholds (host: until done) */
    FT_PHASE_PANEL = 1,      /**< a panel factorization (host LAPACK or on the device) */
    FT_PHASE_LOOKAHEAD = 2,  /**< the next panel's columns updated */
    FT_PHASE_UPDATE = 3,     /**< the rest of the trailing update */
    FT_PHASE_CHECKSUM = 4,   /**< the checksum columns' update */
    FT_PHASE_ARRIVE = 5,     /**< a panel's checks and digests on arrival (and copies in) */
    FT_PHASE_CHECKPOINT = 6, /**< the checkpoint of the panel's Householder vectors */
    FT_PHASE_AFTER = 7,      /**< the digests of V and T after their update */
    FT_PHASE_COPY = 8,       /**< a panel copied to the host */
    FT_PHASE_WAIT = 9,       /**< the host waiting for the device */
    FT_PHASE_CHECKS = 10,    /**< the host's checks (results that came back, sync points) */
    FT_PHASE_ISSUE = 11,     /**< the host issuing work */
    FT_PHASE_SEAL = 12,      /**< the seals of a host panel */
    FT_PHASE_VERIFY = 13,    /**< a verification of the checksum columns (host: until done) */
    FT_PHASE_STAGE = 14,     /**< host data copied in or out (host: until done) */
    FT_PHASE_RECOVER = 15,   /**< a recovery or re-factorization (host: until done) */
    FT_NPHASES = 16
} ft_phase_t;

/** One span: lane, phase, panel step (-1: none), start and end in seconds from the call's
 *  start (device spans: from the queue's events, placed on the host's clock at the call's
 *  start; a span that waited in its queue begins when the queue reached it). */
typedef struct {
    int lane, phase;
    int64_t step;
    double t0, t1;
} ft_span_t;

/** A caller's buffer for the timeline of the next calls on a context. Each traced call
 *  overwrites it: count spans written (at most capacity), dropped = spans that did not fit,
 *  total = the call's seconds. */
typedef struct {
    ft_span_t *spans;
    int64_t capacity;
    int64_t count, dropped;
    double total;
} ft_trace_t;

/** Trace the next calls on ctx into trace (NULL: stop). ft_dgeqrf and the protected path of
 *  ft_dgemm record spans (ft_dgemm: UPDATE = the product on MAIN, ENCODE the checksums of the
 *  operands, VERIFY the result's sums, AFTER the operands' digests after the product, and the
 *  host's ISSUE, WAIT and CHECKS); the other routines none;
 *  tracing adds a few microseconds of host time per span (two events on a device). The caller
 *  keeps trace and its spans alive while it is set. */
int ft_context_set_trace(ft_context_t *ctx, ft_trace_t *trace);
/** Names of lanes and phases ("host", "main", ...; "panel", "update", ...), "?" when out of
 *  range. */
const char *ft_lane_name(int lane);
const char *ft_phase_name(int phase);

/* ------------------------------------------------------------------------------------------- */
/* Recovery of propagated errors in ft_dgeqrf, and the FT factor (docs/recovery.md)              */
/* ------------------------------------------------------------------------------------------- */

/**
 * A source of the original columns of A, for recovery: fills col[0..m-1] with column j (0-based)
 * of the matrix the call was given, in host memory; returns 0, or non-zero when it cannot
 * (the error is then reported, FT_ERR_NOT_RECOVERED). Called only when an error is found.
 */
typedef int (*ft_column_source_t)(void *user, ft_int j, ft_int m, double *col);
/** Use fn (NULL: none) for the next ft_dgeqrf calls on ctx instead of keeping a copy of A. */
int ft_context_set_column_source(ft_context_t *ctx, ft_column_source_t fn, void *user);

/**
 * The FT factor: ft_dgeqrf's LAPACK-layout Householder part (A below the diagonal, tau) plus the
 * plane rotations of any QR-update recovery, Q = H_0 ... H_(p-1) J G H_p ... (paper 004,
 * Algorithm 1). An object attached to a context with ft_context_set_qrf makes the _ex QR calls
 * on that context recover by QR update (fast: no re-factorization) and record the rotations in
 * it; R is then correct, and Q is only available through ft_dormqr with that factor. Without one
 * (the default, and always for ft_dgeqrf / ft_dgeqrf_gpu), recovery re-factors from the first
 * panel the error reached, and the output is exactly LAPACK's layout.
 */
typedef struct ft_qrf ft_qrf_t;
int ft_qrf_create(ft_qrf_t **F);
int ft_qrf_destroy(ft_qrf_t *F);
/** Rotation sequences held (0: the factor is plain LAPACK layout). -1 for NULL. */
int ft_qrf_recoveries(const ft_qrf_t *F);
/** Attach F (NULL detaches) to ctx: the context's next ft_dgeqrf_ex / ft_dgeqrf_gpu_ex calls
 *  reset it and fill it. The caller keeps ownership; detach before destroying it. */
int ft_context_set_qrf(ft_context_t *ctx, ft_qrf_t *F);

/**
 * ft_dormqr: C := op(Q) C (side 'L') or C op(Q) (side 'R'), op = 'N' or 'T', with Q of the
 * FT factor (A, tau from ft_dgeqrf, F its rotations or NULL), as LAPACK DORMQR. Arguments:
 * side(1) trans(2) m(3) n(4) k(5) A(6) lda(7) tau(8) F(9) C(10) ldc(11). k = min of the
 * factored shape; F, when not NULL, must come from the call that produced A and tau.
 */
int ft_dormqr(char side, char trans, ft_int m, ft_int n, ft_int k, const double *A, ft_int lda,
              const double *tau, const ft_qrf_t *F, double *C, ft_int ldc, ft_int *info);
/**
 * ft_dormqr_gpu: ft_dormqr on device pointers (CUDA builds): A (the reflectors, ldda) and C
 * (lddc) in GPU memory, tau and F in host memory (as ft_dgeqrf_gpu leaves them). Same arguments,
 * checks (ft_xerbla("FT_DORMQR_GPU", i), -i) and result; the work runs on the default context's
 * main stream and the call returns when C is final. Quick return (0) when m, n or k is 0;
 * otherwise FT_ERR_INVALID_VALUE on a CPU context, FT_ERR_NOT_BUILT / FT_ERR_NO_DEVICE without
 * CUDA, as ft_dgeqrf_gpu. Blocked: T factors of nb reflectors (policy.nb, else 64), the recorded
 * rotations between them by a kernel.
 */
int ft_dormqr_gpu(char side, char trans, ft_int m, ft_int n, ft_int k, const double *dA,
                  ft_int ldda, const double *tau, const ft_qrf_t *F, double *dC, ft_int lddc,
                  ft_int *info);
/**
 * ft_dgels: full-rank least squares / minimum-norm solutions, arguments and results as LAPACK
 * DGELS (trans 'N' or 'T', m >= n or m < n, nrhs right-hand sides in B). The factorization is
 * ft_dgeqrf's with QR-update recovery, of A when m >= n, of A^T when m < n; on return A is
 * overwritten by the factorization (when m < n: that of A^T, transposed back, the layout of
 * LAPACK's dgelqf). info > 0: R(info, info) is exactly zero (A not of full rank), as LAPACK.
 * As LAPACK, A and B whose largest element is outside [smlnum, bignum] (smlnum = dlamch('S') /
 * dlamch('P')) are scaled into it first and the solution scaled back (A then holds the
 * factorization of the scaled A); A = 0 gives B = 0, info 0.
 * work/lwork as LAPACK (lwork = -1: query; any lwork >= 1 works, ftla takes its own memory).
 */
int ft_dgels(char trans, ft_int m, ft_int n, ft_int nrhs, double *A, ft_int lda, double *B,
             ft_int ldb, double *work, ft_int lwork, ft_int *info);
/**
 * ft_dgels_gpu: ft_dgels on device pointers (CUDA builds): A (ldda) and B (lddb) in GPU memory,
 * the same results and scaling; no workspace arguments. Arguments: trans(1) m(2) n(3) nrhs(4)
 * dA(5) ldda(6) dB(7) lddb(8), checked in that order (ft_xerbla("FT_DGELS_GPU", i), -i). The
 * factorization is ft_dgeqrf_gpu_ex's with QR-update recovery (A^T transposed on the device
 * when m < n) on the default context: a fault planned for its next call goes to that
 * factorization. Returns when B is final; FT_ERR_INVALID_VALUE on a CPU context,
 * FT_ERR_NOT_BUILT / FT_ERR_NO_DEVICE without CUDA, unless there is nothing to do (nrhs = 0, or
 * m = n = 0).
 */
int ft_dgels_gpu(char trans, ft_int m, ft_int n, ft_int nrhs, double *dA, ft_int ldda, double *dB,
                 ft_int lddb, ft_int *info);

#ifdef __cplusplus
}
#endif
#endif /* FTLA_H */
