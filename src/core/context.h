/*
 * context.h — the internals of ft_context_t, fault injection and small helpers shared by all
 * modules (never installed).
 */
#ifndef FTLA_CONTEXT_H
#define FTLA_CONTEXT_H

#include "backend.h"
#include "ftla.h"
#include <pthread.h>
#include <stdint.h>

#define FT_MAX_FAULTS 64
/* workspace slots: checksums, backup of C, device copies of A, B, C */
enum { FT_WS_CHECK = 0, FT_WS_BACKUP = 1, FT_WS_A = 2, FT_WS_B = 3, FT_WS_C = 4, FT_WS_SLOTS = 5 };

struct ft_context {
    ft_device_t requested;      /* what the caller asked for */
    ft_policy_t policy;
    int cuda_ready;             /* ft_cuda_ctx_init done */
    void *cuda;                 /* backend_cuda.cu private state (streams, handles, events) */
    double host_events[FT_NEVENTS]; /* host backend "events": wall-clock seconds */
    /* fault injection plan */
    ft_fault_t faults[FT_MAX_FAULTS];
    int nfaults;
    uint64_t rng;
    int64_t ncalls;             /* protected calls made on this context */
    pthread_mutex_t lock;       /* serialises the plain entry points on the default context */
    /* grow-only workspaces, [backend kind == CUDA][slot]: per-call allocation would page-fault
     * on the host and synchronise the device (cudaFree) on the GPU */
    void *ws[2][FT_WS_SLOTS];
    void *flags;                /* host buffer for failing checks (ft_dgemm), allocated once */
    size_t ws_size[2][FT_WS_SLOTS];
};

/* Workspace `slot` of at least `bytes` in the backend's work memory, owned by the context. */
int ft_workspace(ft_context_t *ctx, const ft_backend_t *be, int slot, size_t bytes, void **p);
void ft_workspace_release(ft_context_t *ctx);
/* Free the matrix-sized slots (not the checksum slot) larger than `keep` bytes, so a context
 * does not hold copies of large matrices between calls. */
void ft_workspace_trim(ft_context_t *ctx, size_t keep);
#define FT_WS_KEEP ((size_t)512 << 20)

/* Policy with every 0 replaced by its default. */
void ft_policy_resolve(const ft_policy_t *in, ft_policy_t *out);

/* Pick the backend for a call of `flops` operations on host data (is_gpu_data = 0) or device
 * data (1). Initialises the CUDA state on first use. */
int ft_select_backend(ft_context_t *ctx, double flops, int is_gpu_data, const ft_backend_t **be);

/* Wall clock, seconds. */
double ft_wtime(void);

/* Verbose log (policy.verbose >= level), one line, to stderr. */
void ft_log(const ft_context_t *ctx, int level, const char *fmt, ...);

/* Report helpers. */
void ft_report_init(ft_report_t *r, ft_device_t backend);
void ft_report_event(ft_report_t *r, ft_event_kind_t kind, ft_region_t region, int64_t row,
                     int64_t col, int64_t step, double before, double after);

/* ---- fault injection (inject.c) ---- */
uint64_t ft_rng_next(uint64_t *state);
double ft_flip_bit(double x, int bit);
/* Take (remove) the faults of region `region` planned for the current call (ctx->ncalls) and
 * for panel step `step` (-1: any step); at most `cap`. Random steps are resolved by the caller
 * with ft_rng_next. Returns how many were taken. */
int ft_inject_take(ft_context_t *ctx, ft_region_t region, int64_t step, ft_fault_t *out, int cap);
/* Drop the faults still planned for the current call (it could not apply them). */
int ft_inject_drop_call(ft_context_t *ctx);
/* Apply one fault to element (row, col) of a rows x cols work-memory matrix X (ld ldx),
 * resolving random row/col/bit, recording the event. */
int ft_inject_apply(ft_context_t *ctx, const ft_backend_t *be, const ft_fault_t *f, double *X,
                    int64_t rows, int64_t cols, int64_t ldx, int64_t step, ft_report_t *rep,
                    int64_t *row_out, int64_t *col_out);

/* Index of element (i, j) of a column-major matrix with leading dimension ld (64-bit). */
static inline int64_t ft_ix(int64_t i, int64_t j, int64_t ld) { return i + j * ld; }

static inline int ft_is_trans(char t) { return t == 'T' || t == 't' || t == 'C' || t == 'c'; }
static inline int ft_is_notrans(char t) { return t == 'N' || t == 'n'; }

#define FT_CHECK(call)                                                                             \
    do {                                                                                           \
        int ft_check_status_ = (call);                                                             \
        if (ft_check_status_ != 0) return ft_check_status_;                                        \
    } while (0)

#endif
