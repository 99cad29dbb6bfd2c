/*
 * call.h — the call layer every public routine goes through (docs/architecture.md):
 *
 *   ft_call_begin   resolve the context (NULL: the thread's default), start the report;
 *   (argument checks, quick returns: the module's, LAPACK order)
 *   ft_call_select  choose the backend (FT_DEVICE_AUTO: by size, fit and availability), take the
 *                   main queue, mark the workspace arenas, number the call for fault injection;
 *   ft_call_queue / ft_call_event / ft_call_work / ft_call_pinned
 *                   further queues, events and workspace for this call only;
 *   ft_stage_in / ft_stage_out
 *                   host <-> work-memory copies of the caller's matrices;
 *   ft_call_end     wait for the call's queues, give back its resources, drop faults it could not
 *                   apply, finish and copy out the report, log one line (verbose >= 1).
 *
 * Calls nest (a recovery may call a protected product on the same context): each call takes its
 * own queues, events and workspace, and gives back only those.
 */
#ifndef FTLA_CALL_H
#define FTLA_CALL_H

#include "core/context.h"

#define FT_CALL_QUEUES 8
#define FT_CALL_EVENTS 24

/* The staging ring (ft_stage_in / ft_stage_out): FT_STAGE_NS slots of FT_STAGE_SLOT bytes.
 * Host data that is not pinned, at least a slot in all and at most a slot a column, goes
 * through it, packed by the host team; the rest is copied directly. The driver stages pageable
 * memory itself, but on one thread: 7 GB/s to the H200 and 11 from it, against 55 pinned and
 * 45-51 packed by 8 threads. Slots of 16 MB: ft_dgeqrf at 16384 with pageable host data
 * 360-363 ms against 365-372 with 8 MB (bench/NOTES.md, issue 10 session 41). */
#define FT_STAGE_NS 4
#define FT_STAGE_SLOT ((size_t)16 << 20)
/* The slot size in use: FT_STAGE_SLOT, or FTLA_STAGE_SLOT (bytes, 4096 .. 2^30; read once) — a
 * test hook: small slots send small matrices through the ring, and ft_dgeqrf's copies during
 * the call with them, so the fault campaign and the tests reach those paths. */
size_t ft_stage_slot(void);

typedef struct ft_call {
    ft_context_t *ctx;
    const ft_backend_t *be; /* set by ft_call_select */
    const char *name;       /* routine name for ft_xerbla and logs, e.g. "FT_DGEMM" */
    ft_policy_t pol;        /* the context's policy, resolved */
    ft_report_t rep;        /* the report being filled */
    ft_report_t *user_rep;  /* where it goes at the end (may be NULL) */
    size_t user_size;       /* the caller's sizeof(ft_report_t) */
    int64_t index;          /* this call's number on the context (fault plans name it); -1
                             * for an unnumbered call (ft_call_select_unnumbered) */
    double t0;
    int selected;
    ft_queue_t *main;
    ft_queue_t *queues[FT_CALL_QUEUES];
    unsigned char raised[FT_CALL_QUEUES]; /* taken by ft_call_queue_raised: lowered at the end */
    int nqueues;
    ft_qevent_t *events[FT_CALL_EVENTS];
    int nevents;
    int work_mark, pin_mark;
    char desc[128]; /* shape of the call for the log line, set by the module */
    double xfer_bytes; /* host data: bytes its copies move to and from a GPU (set by the module
                        * before ft_call_select; 0: not known, the flop count decides alone) */
    struct ft_tracer *tr; /* the timeline being recorded (core/trace.h), or NULL */
    /* ft_stage_in / ft_stage_out of pageable host data: a ring of FT_STAGE_NS pinned slots
     * (taken on first use), each slot's last copy's event, the pieces moved so far (-1: the
     * ring could not be had, copies go directly) */
    double *stage;
    ft_qevent_t *stage_ev[FT_STAGE_NS];
    int64_t stage_next;
    /* pieces copied out and not yet unpacked: the last stage_npend of those moved, each with
     * where it goes */
    struct {
        double *h;
        int64_t ldh, m, nc;
    } stage_pc[FT_STAGE_NS];
    int stage_npend;
} ft_call_t;

/* Start a call. ctx may be NULL (the calling thread's default context). report/report_size: the
 * caller's report and its sizeof (report may be NULL). Fails only with FT_ERR_INVALID_VALUE (a
 * report smaller than FT_REPORT_SIZE_V1, which is then not written). */
int ft_call_begin(ft_call_t *c, ft_context_t *ctx, const char *name, ft_report_t *report,
                  size_t report_size);

/* Choose the backend and take the call's resources (FT_ERR_ALLOC when there is no context: the
 * default one could not be created). flops: size of the work (FT_DEVICE_AUTO
 * uses the GPU from FT_AUTO_GPU_FLOPS on); is_gpu_data: the caller's pointers are device
 * pointers; stage_bytes: work memory the call needs on the device when host data runs there
 * (0: none). When that does not fit, AUTO runs on the CPU and CUDA fails with FT_ERR_TOO_LARGE. */
#define FT_AUTO_GPU_FLOPS (2.0 * 512.0 * 512.0 * 512.0)
/* ... and, with host data (c->xfer_bytes > 0: what crosses PCIe to and from the device), at
 * least FT_AUTO_GPU_INTENSITY flops per byte copied: a call with less work per byte spends
 * longer in its copies (~50 GB/s pinned) than a multicore CPU (~1-2 TFLOP/s) in the whole call
 * — ScaLAPACK's rank-64 updates under the interposer ran 5x slower on the GPU (docs/dist.md
 * "GPUs per rank"). A 1024^3 product has 64, a rank-k update about k / 8. */
#define FT_AUTO_GPU_INTENSITY 32.0
int ft_call_select(ft_call_t *c, double flops, int is_gpu_data, size_t stage_bytes);
/* ft_call_select for a call that protects no computation of its own (ft_dormqr_gpu, the steps
 * of ft_dgels_gpu around its factorization): it takes no call number, so a fault planned for
 * "the next call" stays for the next protected call (ft_dgels_gpu's factorization, nested in
 * it), as with the host ft_dormqr / ft_dgels, which open no call of their own. */
int ft_call_select_unnumbered(ft_call_t *c, double flops, int is_gpu_data);

int ft_call_queue(ft_call_t *c, ft_queue_t **q);
/* A queue of the call whose work goes ahead of the others' where both wait for the device
 * (backend queue_raise), back at the default priority when the call ends. */
int ft_call_queue_raised(ft_call_t *c, ft_queue_t **q);
int ft_call_event(ft_call_t *c, ft_qevent_t **e);
/* Workspace of this call: work memory of the backend, or host memory suited to asynchronous
 * copies (pinned on cuda). Valid until ft_call_end. */
int ft_call_work(ft_call_t *c, size_t bytes, void **p);
int ft_call_pinned(ft_call_t *c, size_t bytes, void **p);
/* ft_call_work for n doubles (overflow-checked). */
int ft_call_work_doubles(ft_call_t *c, int64_t n, double **p);
int ft_call_pinned_doubles(ft_call_t *c, int64_t n, double **p);

/* Workspace taken from now on (marks[2]: work and host memory) is given back by
 * ft_call_release(c, marks) — for a loop inside a call that takes workspace per iteration
 * (the out-of-core ft_dgemm), once that iteration's work has completed. */
void ft_call_mark(const ft_call_t *c, int marks[2]);
void ft_call_release(ft_call_t *c, const int marks[2]);

/* Wait for all of the call's queues. */
int ft_call_sync(ft_call_t *c);

/* Finish the call with `status` (the routine's result); returns the final status (a failure
 * of the final synchronisation replaces a 0). Always call it once ft_call_begin succeeded. */
int ft_call_end(ft_call_t *c, int status);

/* ---- host <-> device staging ---- */

/* Bytes of a work-memory copy of an m x n matrix with leading dimension ld (overflow: 1). */
int ft_stage_bytes(int64_t ld, int64_t n, size_t *bytes);
/* Work-memory copy (leading dimension ldd >= m) of the host matrix h, from the call's arena;
 * copied on queue q when h != NULL (asynchronous). */
int ft_stage_in(ft_call_t *c, ft_queue_t *q, int64_t m, int64_t n, const double *h, int64_t ldh,
                int64_t ldd, double **d);
/* Copy a work-memory matrix back to the host and wait for it. */
int ft_stage_out(ft_call_t *c, ft_queue_t *q, int64_t m, int64_t n, const double *d, int64_t ldd,
                 double *h, int64_t ldh);

/* Copies out in parts, while the call goes on (ft_dgeqrf's finished columns, docs/qr.md
 * "Host pointers"). ft_stage_out_ok: whether the m x n host matrix h goes out asynchronously
 * in parts — through the ring (pageable, at least a slot in all, a column under a slot) or
 * directly (pinned); 0: only ft_stage_out. ft_stage_out_async: columns of such a matrix (d and h
 * at the first of them) issued on q; a piece waits for the ring only when all its slots hold
 * pieces not yet unpacked (the oldest is then unpacked). ft_stage_out_wait: everything issued is
 * on the host (the ring's pieces unpacked in order, then q synchronized). */
int ft_stage_out_ok(ft_call_t *c, int64_t m, int64_t n, const double *h);
int ft_stage_out_async(ft_call_t *c, ft_queue_t *q, int64_t m, int64_t n, const double *d,
                       int64_t ldd, double *h, int64_t ldh);
int ft_stage_out_wait(ft_call_t *c, ft_queue_t *q);

#endif
