/*
 * dgemm_internal.h — ft_dgemm's shared state (never installed). The module is split by idea:
 *   dgemm_api.c      public entry points, argument checks, staging of host data, the driver;
 *   dgemm_protect.c  the fast path: encode on a side queue, product, verify every (row, block);
 *   dgemm_repair.c   the rare path: locate, correct or recompute the flagged tiles;
 *   dgemm_kernels*   the module's own kernel table (host and cuda).
 */
#ifndef FTLA_DGEMM_INTERNAL_H
#define FTLA_DGEMM_INTERNAL_H

#include "blas3/dgemm_kernels.h"
#include "core/call.h"

#define DGEMM_FLAG_CAP 4096 /* failing checks kept; beyond, every tile is treated as suspect */

typedef struct {
    ft_call_t *call;
    ft_context_t *ctx;
    const ft_backend_t *be;
    const dgemm_kernels_t *kern;
    ft_report_t *rep;
    ft_policy_t pol;
    ft_queue_t *qm, *qs;     /* main queue; side queue (encoding beside the product) */
    ft_qevent_t *ev0, *ev1;  /* around the product: time_protect = total - product */
    char ta, tb;
    int64_t m, n, k;
    double alpha, beta;
    const double *A, *B; /* work memory */
    double *C;
    int64_t lda, ldb, ldc;
    const double *hostC; /* caller's host C when the work is on the GPU (restores tiles) */
    int64_t hostldc;
    double *Cb;          /* backup of the input C (or NULL) */
    int64_t T, W, mb, nb;
    double sig, rsig; /* every checksum sum is of elements times sig = 1/rsig (abft_gemm_rscale) */
    /* work buffers */
    double *Y, *Z, *zmax, *P, *anorm, *CS, *CA, *C0S, *C0A, *C0col, *C0colA;
    double *tmp;         /* per-tile scratch in work memory */
    void *vdev, *vhost;  /* verify_rows scratch (work memory, host memory) */
    int have_c0;
    /* rank-k shapes (dgemm_protect.c, chunk_plan): C in nch chunks of cw columns (a multiple of
     * T), so that the input sums of chunk i+1 and the result sums of chunk i run on qc, a queue
     * of raised priority, beside the product of the next chunk; evc, evp order the queues */
    int64_t nch, cw;
    ft_queue_t *qc;
    ft_qevent_t *evc, *evp;
    /* operand digests (policy.operand_check): stored columns of A (nca) then of B (ncb), taken
     * with the encoding (dg0) and after the product (dg1, work memory); hdg: both on the host */
    int check_operands;
    int64_t nca, ncb;
    uint64_t *dg0, *dg1, *hdg;
    /* fault injection: the planned faults with this step or none (-1: all); the out-of-core
     * scheduler numbers its sub-products */
    int64_t inject_step;
    int warm; /* the warm-up product (dgemm_warm_repair): one element changed after the product,
               * no planned fault taken */
    double tissue; /* the timeline (core/trace.h): when the protected path began issuing */
} gemm_t;

static inline char dgemm_flip(char t) { return ft_is_notrans(t) ? 'T' : 'N'; }

/* Row block starting at row r0 of op(A), and column block at c0 of op(B). */
static inline const double *dgemm_opa_rows(const gemm_t *g, int64_t r0)
{
    return ft_is_notrans(g->ta) ? g->A + r0 : g->A + r0 * g->lda;
}
static inline const double *dgemm_opb_cols(const gemm_t *g, int64_t c0)
{
    return ft_is_notrans(g->tb) ? g->B + c0 * g->ldb : g->B + c0;
}

/* Elements of the per-tile scratch of the rare path (tile T, depth k). */
int64_t dgemm_gather_elems(int64_t T, int64_t k);
/* Elements of the fast path's checksum workspace (dgemm_protect.c); -1 on overflow. */
int64_t dgemm_check_elems(int64_t m, int64_t n, int64_t k, int64_t T, int have_c0, int keep_c0col);
/* Elements of the device copies of A, B, C with host data on the GPU (dgemm_api.c); -1 on
 * overflow. */
int64_t dgemm_stage_elems(int64_t nrowa, int64_t ncola, int64_t nrowb, int64_t ncolb, int64_t m,
                          int64_t n);
/* Automatic verification tile for an m x n result. */
int64_t dgemm_auto_tile(int64_t m, int64_t n);

/* The protected product on work memory (dgemm_protect.c). */
int dgemm_protected(gemm_t *g);
/* The TMR product on work memory (dgemm_tmr.c; policy.protect = FT_PROTECT_TMR). */
int dgemm_tmr(gemm_t *g);
/* The product on work memory as the policy says: ABFT, TMR, or plain (protection off, or
 * scale_only: C := beta C) (dgemm_api.c). */
int dgemm_run(gemm_t *g, int scale_only);

/* Once per process on a device backend: a small protected product with one changed element,
 * for each transpose of A and B, so that the kernels of the rare path (ftla's and cuBLAS's,
 * loaded lazily by CUDA) are loaded before the first real fault (issue 12: the first
 * corrected fault of a process cost ~23 ms). Its report is discarded. */
int dgemm_warm_repair(ft_call_t *c, const dgemm_kernels_t *kern);

/* Out of core (dgemm_ooc.c): host data larger than the work memory the call may use. */
typedef struct {
    int64_t mc, nc, kc;    /* C block, chunk of k */
    int64_t nbm, nbn, nbk; /* blocks and chunks */
    int64_t elems;         /* work memory (doubles) */
    int ncbuf;             /* C block buffers: 1, or 2 (a block stored while the next computes) */
} dgemm_ooc_plan_t;
/* The limit in bytes (policy.gpu_memory, else FTLA_GPU_MEMORY; 0: none). */
double dgemm_ooc_limit(const ft_call_t *c);
/* Work memory (doubles) a protected product of m x n x k takes beyond A, B and C. */
int64_t dgemm_sub_work(const ft_policy_t *pol, int64_t m, int64_t n, int64_t k, char ta, char tb);
/* Blocks and chunks for a budget of work-memory doubles; FT_ERR_TOO_LARGE if none fits. */
int dgemm_ooc_plan(const ft_policy_t *pol, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   int64_t budget, dgemm_ooc_plan_t *p);
/* The same with two C block buffers and chunks of s / 4 (the same memory for the same s), for a
 * scheduler that stores one block while the next one computes; FT_ERR_TOO_LARGE if none fits. */
int dgemm_ooc_plan2(const ft_policy_t *pol, char ta, char tb, int64_t m, int64_t n, int64_t k,
                    int64_t budget, dgemm_ooc_plan_t *p);
/* The plan dgemm_ooc follows on a backend of kind `kind`: dgemm_ooc_plan; on CUDA with
 * several blocks dgemm_ooc_plan2 instead when it has no more blocks (the same traffic of A and
 * B) — unless FTLA_OOC_CBUFS=1. Tests and the campaign place faults by it. */
int dgemm_ooc_choose(const ft_policy_t *pol, ft_device_t kind, char ta, char tb, int64_t m,
                     int64_t n, int64_t k, int64_t budget, dgemm_ooc_plan_t *p);
/* The product of host data g (A, B, C the caller's) in blocks within budget doubles. */
int dgemm_ooc(gemm_t *g, int64_t budget);
/* policy.operand_check (dgemm_protect.c): sets g->check_operands and carves the digests'
 * buffers (nca, ncb, dg0, dg1, hdg); the digests of the stored columns of A then B into out on
 * queue q; after dg1 and hdg were filled (and q synced), whether they differ from dg0: each
 * changed operand reported (FT_EVENT_UNCORRECTABLE). */
int dgemm_operand_workspace(gemm_t *g);
int dgemm_digest_operands(gemm_t *g, ft_queue_t *q, uint64_t *out);
int dgemm_operands_changed(gemm_t *g, int *changed);
/* Handle the failing checks: group them by tile, repair each (dgemm_repair.c). */
int dgemm_repair(gemm_t *g, dgemm_flag_t *flags, int64_t nflags);
/* Apply the faults of `region` planned for this call to X (rows x cols, ld). */
int dgemm_inject(gemm_t *g, ft_region_t region, double *X, int64_t rows, int64_t cols, int64_t ld);

/* Faults in the operands (FT_REGION_A / _B): applied to the memory the product reads, after
 * the checksums were encoded from it, and undone at the end of the call (the caller's arrays
 * are left as they were). */
typedef struct {
    double *p[FT_MAX_FAULTS];
    double before[FT_MAX_FAULTS];
    int n;
} dgemm_opfaults_t;
/* after (or NULL): a queue whose work must have read the operands before any fault is
 * applied (the main queue then waits for it, only when a fault was planned). */
int dgemm_inject_operands(gemm_t *g, ft_queue_t *after, dgemm_opfaults_t *saved);
int dgemm_restore_operands(gemm_t *g, dgemm_opfaults_t *saved);

#endif
