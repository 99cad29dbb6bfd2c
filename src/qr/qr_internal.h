/*
 * qr_internal.h — ft_dgeqrf's shared state (never installed). The module is split by idea:
 *   qr_api.c      public entry points, argument checks, workspace query, staging, the driver;
 *   qr_loop.c     the panel/update loop (panels on the host or on the backend, updates on the
 *                 backend), larfb;
 *   qr_checks.c   threshold, checksum verification, location, in-place correction;
 *   qr_inject.c   the fault plan of a call, applied at panel boundaries;
 *   qr_profile.c  the phase profile (verbose >= 1, tester --profile);
 *   qr_recover.c  recovery of errors consumed by later panels: the original columns, the
 *                 reflectors applied to them, QR update (paper 004, Algorithm 1) and
 *                 re-factorization (docs/recovery.md);
 *   qr_solve.c    the FT factor (qrf.h), ft_dormqr, ft_dgels;
 *   qr_solve_gpu.c ft_dormqr_gpu, ft_dgels_gpu (kernels: qr_solve_kernels.h).
 * Method and protection: docs/qr.md (paper 004).
 */
#ifndef FTLA_QR_INTERNAL_H
#define FTLA_QR_INTERNAL_H

#include "abft/abft.h"
#include "core/call.h"
#include "core/team.h"
#include "core/trace.h"

typedef struct {
    ft_fault_t f;
    int64_t step;
    int done;
} planned_t;

/* Profiling events: a ring of QR_EV_SLOTS steps x 4 events: +0 start (side queue, after the
 * panel arrived), +1 end of the lookahead columns (main), +2 end of the rest of the trailing
 * update (side), +3 end of the checksum update (side). */
#define QR_EV_SLOTS 3

/* Where the original columns of A come from (docs/recovery.md). */
typedef enum {
    QR_SRC_NONE = 0,
    QR_SRC_CALLER,   /* the caller's host A, untouched until the end (host pointers on the GPU) */
    QR_SRC_HOST,     /* a host copy */
    QR_SRC_DEVICE,   /* a copy in work memory */
    QR_SRC_FN        /* the context's column source */
} qr_src_t;

/* How a located error consumed by later panels is recovered. */
typedef enum { QR_PATH_REFACTOR = 0, QR_PATH_UPDATE = 1 } qr_path_t;

#define QR_MAX_REFACTOR 3 /* re-factorizations per call before the error is reported */

typedef struct {
    ft_call_t *call;
    ft_context_t *ctx;
    const ft_backend_t *be;
    ft_report_t *rep;
    ft_policy_t pol;
    ft_queue_t *qm, *qs, *qh2d, *qd2h; /* main (lookahead), side (rest), copies in, copies out */
    ft_queue_t *qck;     /* the checks of a panel on arrival and its checkpoint (qh2d: behind
                          * the copies in, or the panel formed in work memory) */
    int host;            /* host backend: work memory is host memory, no copies */
    int gpanel;          /* panels factored in work memory by the backend (policy.panel,
                          * docs/qr.md "Panel placement"): no panel copies; V, T, their seals
                          * and tau formed there; R_pp and tau come back to hArr */
    int protect;
    int protect_q;       /* the checkpoint of Q (qr_qcheck.c) */
    int64_t m, n, k, nb, np, W, q;
    int64_t nbc, ncb;    /* checksum column blocks: width (abft_qr_check_width) and count */
    /* every block carries QR_NCS checksum columns sigma [A_b e, A_b w, A_b v] (qr_checks.c) */
#define QR_NCS 3
    int64_t cb;          /* the block being verified (qr_checks.c) */
    int64_t cs_upto;     /* panels applied to every checksum block: the loop updates only the
                          * blocks a panel reaches, the others are caught up on the rare path
                          * (qr_cs_catch_up) */
    int64_t *csb;        /* per block: panels 0 .. csb[b]-1 applied by catch-ups (host, B);
                          * block b has max(cs_upto, csb[b], its first skipping panel) */
    double *dA;
    int64_t ldda;
    double *tau;
    /* work memory */
    double *dCS, *dEW, *dX, *dV[2], *dT, *dWa, *dWb, *dWc, *dN1, *dMx;
    /* dT: the T factors of every panel (np x nb x nb; panel p at dT + p nb nb). Recovery:
     * dI the nb x nb identity, dCS0 the checksums of the original A, dY (w), dZ (Q~^T a_j)
     * and dSub m each,
     * dRot 4 m (c, s of J; c, s of G) */
    double *dI, *dCS0, *dY, *dZ, *dSub, *dRot;
    /* gpanel: tau of every panel (k), the seal's digests (2 nb), the backend's LAPACK work */
    double *dTau;
    uint64_t *dSeal;
    void *dLw;
    size_t lw_bytes;
    /* gpanel: a ring of 3 x (nb x nb: the panel's R_pp block; nb: its tau) in host memory, the
     * steps whose copy there was taken in (gp_done: up to), and the end of each step's work on
     * the side queue (qs: the update and the digests after it) and on the check queue (evq:
     * the checks on arrival, the checkpoint, the checksum columns) */
    double *hArr;
    int64_t gp_done, gp_next;
    ft_qevent_t *evg[3], *evq[3];
    /* host (pinned) memory */
    double *hP, *hV, *hT, *hVt, *hwork, *hEW, *hN, *hC, *hX, *hrow, *hcol, *hcol0;
    int64_t *hJ; /* m: column pointed to by each failing row */
    int *hcnt;   /* n: failing rows per column */
    int64_t ldp, lhwork;
    /* checkpoint of Q (qr_qcheck.c): CKP_NS exact sums per column of the Householder vectors
     * (ckp), two copies of tau (tau1, tau2) and a digest of each record (ckrec), host memory;
     * the sums of the vectors now: dQS (work memory), hQS (host). Columns [0, ckdone) have a
     * checkpoint. */
    uint64_t *ckp, *ckrec, *dQS, *hQS;
    double *tau1, *tau2;
    int64_t ckdone, ckrec_done;
    /* the checks of each panel and of the reflectors each update applies (qr_pcheck.c):
     * dPs the kernels' scratch (QR_PC_SCR(nb), qr_pcheck.h); a ring of 3 result slots of
     * QR_PC_SL words (dPslot, hPslot; plus an end slot of 4 nb), the seals of every panel's V
     * and T (vdig, tdig: np nb), the digests of every T now (dTD, hTD: np nb), whether the
     * slots' panels are checkable (pcok). */
    int pcheck;
    double *dPs;
    /* the column checks: dPa[p & 1] = sigma A_p (m x nb) before panel p is factored, then
     * Y = sigma A_p + V W on arrival (dWpc = W, nb x nb); hR a ring of 3 x (nb x nb sigma R_pp,
     * nb thresholds) on the host */
    double *dPa[2], *dWpc, *hR;
    double pc_cratio; /* the largest column ||d_j|| / (u sigma ||r_j||) that passed */
    uint64_t *dPslot, *hPslot, *vdig, *tdig, *dTD, *hTD;
    /* the digests of V and T of every step after its update (np x 2 nb: V's, then T's), taken
     * on the side queue behind the update (qr_pc_after) and copied back to hAD */
    uint64_t *dAD, *hAD;
    int pcok[3];
    int64_t pc_aft;           /* the last step whose qr_pc_after was issued in this pass */
    int64_t pc_from, pc_done; /* this pass of the loop began at step pc_from; the slots and the
                               * digests after the update of steps [.., pc_done) were compared */
    double pc_oratio;         /* the largest |tau ||v||^2 - 2| / 4u that passed (measurement) */
    /* threshold */
    int norms_ready, checkable;
    int unchecked_finite; /* checks impossible although the input is finite (overflow) */
    double thr, bound; /* the largest block threshold and bound (logs, measurements) */
    double *thrb, *boundb; /* per checksum block: tau_b and u (sum_{j in b} ||a_j|| + ||A_b e||) */
    double sigma;      /* power-of-two scale of the checksum columns (qr_encode) */
    double noise_ref;  /* at the current check: max residual / bound of the blocks that pass
                        * (the rounding actually seen), or -1 when none passes */
    double max_ratio;  /* max |r_l| / bound seen on clean checks (measurement, verbose 2) */
    /* fault plan of this call */
    planned_t plan[FT_MAX_FAULTS];
    int nplan;
    /* recovery (qr_recover.c) */
    qr_src_t src;
    const double *srcA; /* QR_SRC_CALLER / HOST / DEVICE: the original A */
    int64_t ldsrc;
    ft_queue_t *qcp;    /* the copy of A is taken on it; the first write to A waits for it */
    int cp_pending;
    double *src_enc;    /* the host backend: the copy of A to take in qr_encode's pass (or NULL) */
    qr_path_t path;
    struct ft_qrf *qrf; /* QR_PATH_UPDATE: where the rotations go (may be NULL: ft_dgels) */
    int64_t refactor_from; /* a re-factorization was asked for from this panel step (-1: no) */
    int nrefactor;
    double trec;
    /* outcome */
    int not_recovered, uncorrectable;
    int64_t located_col;
    /* host pointers, panels in work memory: the finished blocks of columns go to the caller's A
     * (eoA, ld eolda) while the factorization goes on, two steps behind the panel (qr_loop.c);
     * eo_col: the columns issued so far. Any event that may change data sends the whole matrix
     * again at the end (qr_api.c) */
    double *eoA;
    int64_t eolda, eo_col;
    double tprot;
    /* phase profile (policy.verbose >= 1 only; docs/qr.md "Where the time goes"): seconds
     * accumulated over the call. Trailing-update and checksum-update times come from events
     * in a ring of QR_EV_SLOTS steps, read two steps late, when they are known to have
     * completed, so reading them never waits on the device. */
    int prof;
    /* recovery phases (QR_RPH_*): w, J below row i, J above (zero_to_hess), column j, G
     * (hess_to_tri), G on the checksums, the checks after */
    double ph_rec[8];
    double ph_panel, ph_wait, ph_update, ph_csum, ph_in, ph_out;
    /* where the host's time goes in the loop, always measured (a few clock reads per step;
     * logged with the profile): QR_HP_* */
    double hp[8];
    /* the checks' host time, always measured (logged with the profile): the encode, the
     * trapezoid sums of the checks and their copy back, the analysis of them, the verification
     * of Q against its checkpoint */
    double tc_enc, tc_sums, tc_an, tc_q;
    /* location_unique's row-independent sums for the residuals of one block (qr_checks.c),
     * valid while res_gen (bumped by every check_sums that forms X or asks for the residuals)
     * is what they were formed from */
    int64_t res_gen, lu_gen, lu_cb;
    int64_t *hrg; /* per block: the res_gen its columns of hX, hC were brought back at (host, B;
                   * -1: never): a failing check reads only the blocks it analyses */
    double lu_mx, lu_s2, lu_t2;
    /* within one failing check (qr_verify): Q's columns 0 .. qv_c1-1 and their T verified
     * (qr_q_verify with use_t), so the recovery after the catch-up does not form the same
     * sums again; -1 outside */
    int64_t qv_c1;
    int64_t qv_final; /* what the final check verified of Q that way (-1: nothing) */
    double tc_catch, tc_blocks; /* of tc_an: the checksum blocks' catch-up, the blocks' verdicts
                                 * (location, correction, recovery) */
    /* the sizes of a check's residuals (backend qr_res_sizes), 2 3B doubles: work, host */
    double *dRes, *hRes;
    int64_t tstep;  /* the step the host is in, for the timeline (core/trace.h) */
    ft_team_t team; /* helpers for the seals of V (qr_loop.c) */
    ft_qevent_t *ev[QR_EV_SLOTS][4];
    int64_t ev_next;             /* first step whose events have not been read yet */
    int ev_la[QR_EV_SLOTS];      /* the step of this slot recorded its lookahead event */
} qr_t;

/* Host phases of the loop (qr_factor): waiting for the queues; the host's checks (sync points,
 * injections, the slots that came back); the panel's LAPACK calls (dgeqrf, dlarft); the top
 * block of V; issuing what the next panel waits for (copies in, the lookahead, the copy out);
 * issuing the checks that nothing waits for (the next panel's x, the panel check on arrival,
 * the checkpoint of Q); issuing the rest of the update, the checksum update and the digests
 * after it; the seals of V and T and the bound of the panel's check. */
enum { QR_HP_WAIT, QR_HP_CHECK, QR_HP_PANEL, QR_HP_VTOP, QR_HP_ISSUE, QR_HP_PROT, QR_HP_REST,
       QR_HP_SEAL, QR_HP_N };
_Static_assert(QR_HP_N == sizeof(((qr_t *)0)->hp) / sizeof(double), "qr_t.hp has QR_HP_N");

enum { QR_RPH_W, QR_RPH_BELOW, QR_RPH_Z2H, QR_RPH_COLJ, QR_RPH_H2T, QR_RPH_CSUM, QR_RPH_CHECK,
       QR_RPH_N };

static inline int64_t qr_imin(int64_t a, int64_t b) { return a < b ? a : b; }

/* The timeline (core/trace.h): a span of phase ph on queue q (its lane by the queue) from
 * here; qr_te ends it after the work issued on q so far. No-ops when the call is not traced. */
static inline int qr_tb(qr_t *g, ft_queue_t *q, int ph, int64_t step)
{
    if (!ft_traced(g->call)) return -1;
    const int lane = q == g->qs ? FT_LANE_SIDE : q == g->qh2d ? FT_LANE_CHECK
                     : q == g->qd2h ? FT_LANE_COPY_OUT : FT_LANE_MAIN;
    return ft_trace_begin(g->call, q, lane, ph, step);
}
static inline void qr_te(qr_t *g, int span, ft_queue_t *q) { ft_trace_end(g->call, span, q); }
static inline int64_t qr_imax(int64_t a, int64_t b) { return a > b ? a : b; }
static inline ft_qevent_t *qr_ev(const qr_t *g, int64_t step, int which)
{
    return g->ev[step % QR_EV_SLOTS][which];
}

/* Element counts of the work-memory and host buffers of the loop (qr_loop.c); -1 on overflow. */
int64_t qr_work_elems(int64_t m, int64_t n, int64_t nb);
int64_t qr_host_elems(int64_t m, int64_t n, int64_t nb);
/* Leading dimension of the device copy of host data (qr_api.c). */
int64_t qr_stage_ld(int64_t m);
/* Automatic block size for panels on the host (gpanel 0) or in work memory (1). */
int64_t qr_auto_nb(int64_t n, int gpanel);
/* Panel placement without the model: 1 = in work memory (policy.panel, FTLA_PANEL, backend). */
int qr_resolve_panel(const ft_policy_t *pol, const ft_backend_t *be);

/* qr_loop.c */
/* The block reflector: C := H^T C = (I - V T^T V^T) C, V (mi x ib, unit lower, explicit zeros
 * and ones above, qr_larfb's V in place), as LAPACK dlarfb('L','T','F','C'); Wk ib x nc. */
int qr_larfb_v(const ft_backend_t *be, ft_queue_t *q, int64_t mi, int64_t nc, int64_t ib,
               const double *V, int64_t ldv, const double *T, int64_t ldt, double *C,
               int64_t ldc, double *Wk, int64_t ldw);
/* qr_dpanel.c: the panel (mi x ib at P, ld ld) factored in work memory on queue q: dgeqrf
 * layout in place, tau (work memory), V (mi x ib, ld ldv: explicit zeros and unit diagonal)
 * and T (ib x ib, ld ldt, zeros below the diagonal); Wk at least ib x ib (ld ldw); lw: the
 * backend's lapack_work(mi, ib) bytes. With 0 < h < ib the first h columns are factored and
 * applied to the rest, then mid(arg) runs (a planned panel fault), then the rest. */
int qr_dev_panel(const ft_backend_t *be, ft_queue_t *q, int64_t mi, int64_t ib, int64_t h,
                 double *P, int64_t ld, double *tau, double *V, int64_t ldv, double *T,
                 int64_t ldt, double *Wk, int64_t ldw, void *lw, size_t lwb,
                 int (*mid)(void *), void *arg);
int qr_setup(qr_t *g);
int qr_factor(qr_t *g);
/* qr_checks.c */
int qr_encode(qr_t *g);
void qr_threshold(qr_t *g);
double qr_col_norm(const qr_t *g, int64_t j); /* ||a_j||_2 of the input (after qr_encode) */
int qr_verify(qr_t *g, int64_t i, int64_t step);
/* qr_qcheck.c: the checkpoint of panel i (ib columns of dV in work memory, mi rows, ld ldv, the
 * vectors below the diagonal), formed on the copy-in queue, and its tau (which must equal the
 * diagonal of the host's T, hT); the verification and repair of the
 * vectors of columns [0, c1) in A and of their tau */
int qr_q_checkpoint(qr_t *g, int64_t i, int64_t ib, int64_t mi, const double *dV, int64_t ldv,
                    const double *hT, int64_t ldt);
/* the digests of the records of columns [.., c1) that came back since the last call (wait: sync
 * the copy-in queue first; else the caller knows they have arrived) */
int qr_q_records(qr_t *g, int64_t c1, int wait);
/* use_t: the T factors of those panels are about to be applied too (a recovery) */
int qr_q_verify(qr_t *g, int64_t c1, int64_t step, int use_t);
/* qr_pcheck.c: the panel and the reflectors in use. Words of a result slot (qr_pcheck.c). */
#define QR_PC_SL(nb) (4 * (nb) + (nb) * (nb))
int qr_pc_init(qr_t *g);                 /* at the start of the loop */
int qr_pc_sum(qr_t *g, int64_t p, ft_queue_t *q); /* sigma A_p, before the panel is factored */
void qr_pc_bound(qr_t *g, int64_t p, const double *P, int64_t ldp); /* after its factorization */
int qr_pc_after(qr_t *g, int64_t p);     /* step p's V and T after its update (issued after
                                          * it, on the side queue) */
int qr_pc_arrive(qr_t *g, int64_t p);    /* panel p's check on arrival */
/* read the slots of steps < upto (they have arrived); a mismatch asks for a re-factorization */
int qr_pc_check(qr_t *g, int64_t upto);
/* all queues synchronised before step p: every slot, and steps p-2, p-1 after their updates */
int qr_pc_sync_point(qr_t *g, int64_t p);
int qr_pc_end(qr_t *g);                  /* after the loop: the same for all steps */
int qr_pc_tverify(qr_t *g, int64_t npan, int64_t step); /* T of panels < npan, before use */
/* before a re-factorization from panel P (all queues synchronised): the reflectors of the
 * steps before P whose digests after their update have not been compared yet are compared
 * now; returns the step to re-factor from (P, or the first of them that changed) */
int64_t qr_pc_settle(qr_t *g, int64_t P);
/* a mismatch at step s in region reg: re-factorization from panel s, or reported */
void qr_pc_fail(qr_t *g, int64_t s, ft_region_t reg, double a, double b);
/* qr_inject.c */
void qr_plan_faults(qr_t *g);
int qr_inject(qr_t *g, ft_region_t reg, int64_t p);
int qr_needs_sync(const qr_t *g, int64_t p);
int qr_planned(const qr_t *g, ft_region_t reg, int64_t step);
/* a planned FT_REGION_REFLECTORS fault on V or T at step `step`'s arrival (not a kept T) */
int qr_planned_arrival(const qr_t *g, int64_t step);
/* the planned faults on kept T factors (FT_REGION_REFLECTORS, col >= 2 ib) of steps <= p - 3 */
int qr_inject_kept(qr_t *g, int64_t p);
/* the planned FT_REGION_PANEL fault of panel p, between the halves of its factorization; P in
 * host memory, or in work memory (work: through the backend, on the main queue) */
int qr_panel_fault(qr_t *g, int64_t p, double *P, int64_t ldp, int work);
/* qr_recover.c */
/* *early (host pointers on a device): the caller's A is to receive finished columns while the
 * call runs, so the originals must come from elsewhere; cleared when they cannot. */
int qr_source_begin(qr_t *g, int is_gpu, const double *A, int64_t lda, int *early);
/* The host waits for the copy of A / later work on the loop's queues is ordered after it. */
int qr_source_wait(qr_t *g);
int qr_source_order(qr_t *g);
int qr_apply_reflectors(qr_t *g, ft_queue_t *q, char trans, int64_t p0, int64_t p1, int64_t nc,
                        double *X, int64_t ldx, double *Wk);
/* qr_solve_gpu.c: one block of ib reflectors at row i (V in place in dA, T ld nb) applied as
 * LAPACK dlarfb, left (rows i .. nq-1 of the nq x n C) or right (columns i .. nq-1 of the
 * m x nq C), op(H) = H^T where tr; W: ib x n (ld nb) left, m x ib (ld m) right. */
int qr_larfb(const ft_backend_t *be, ft_queue_t *q, int left, int tr, int64_t m, int64_t n,
             int64_t nq, int64_t i, int64_t ib, const double *dA, int64_t ldda, const double *T,
             int64_t nb, const double *dI, double *dC, int64_t lddc, double *W);
int qr_recovery_w(qr_t *g, int64_t i, int64_t j, int *ok);
int qr_recovery_update(qr_t *g, int64_t i, int64_t j);
int qr_recovery_replace(qr_t *g, int64_t j);
int qr_refactor(qr_t *g, int64_t P);
/* Bring the checksum blocks that fail (qr_block_fails_sizes) up to the state at boundary i:
 * the panels that skipped them (the loop updates only the blocks a panel reaches). A block
 * that passes needs nothing: what was skipped are orthogonal transformations of its rows below
 * its last column, which keep the norm its passing check bounds (docs/qr.md, "Checksum
 * columns and weights"). */
int qr_cs_catch_up(qr_t *g, int64_t i);
/* qr_checks.c: does checksum block b fail by the sizes of the last check_sums(full = 0)? */
int qr_block_fails_sizes(const qr_t *g, int64_t b);
/* qr_api.c: the factorization for ft_dgels, with an FT factor F (QR-update recovery). */
int qr_geqrf_factor(ft_context_t *ctx, int is_gpu, struct ft_qrf *F, ft_int m, ft_int n,
                    double *A, ft_int lda, double *tau, ft_report_t *report);
/* qr_solve_gpu.c: the algorithms of ft_dormqr_gpu / ft_dgels_gpu (same arguments and results)
 * on ctx (NULL: the thread's default). is_gpu = 1: device pointers (the public entry points);
 * 0: host pointers on a CPU context, the same code on the host backend (the cpu tests). */
int qr_ormqr_dev(ft_context_t *ctx, int is_gpu, char side, char trans, ft_int m, ft_int n,
                 ft_int k, const double *dA, ft_int ldda, const double *tau, const ft_qrf_t *F,
                 double *dC, ft_int lddc, ft_int *info);
int qr_dgels_dev(ft_context_t *ctx, int is_gpu, char trans, ft_int m, ft_int n, ft_int nrhs,
                 double *dA, ft_int ldda, double *dB, ft_int lddb, ft_int *info);
/* qr_profile.c */
int qr_profile_events(qr_t *g);
int qr_harvest(qr_t *g, int64_t upto);
void qr_profile_log(const qr_t *g);

#endif
