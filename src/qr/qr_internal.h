/*
 * qr_internal.h — ft_dgeqrf's shared state (never installed). The module is split by idea:
 *   qr_api.c      public entry points, argument checks, workspace query, staging, the driver;
 *   qr_loop.c     the panel/update loop (panels on the host, updates on the backend), larfb;
 *   qr_checks.c   threshold, checksum verification, location, in-place correction;
 *   qr_inject.c   the fault plan of a call, applied at panel boundaries;
 *   qr_profile.c  the phase profile (verbose >= 1, tester --profile).
 * Method and protection: docs/qr.md (paper 004).
 */
#ifndef FTLA_QR_INTERNAL_H
#define FTLA_QR_INTERNAL_H

#include "abft/abft.h"
#include "core/call.h"

typedef struct {
    ft_fault_t f;
    int64_t step;
    int done;
} planned_t;

/* Profiling events: a ring of QR_EV_SLOTS steps x 4 events: +0 start (side queue, after the
 * panel arrived), +1 end of the lookahead columns (main), +2 end of the rest of the trailing
 * update (side), +3 end of the checksum update (side). */
#define QR_EV_SLOTS 3

typedef struct {
    ft_call_t *call;
    ft_context_t *ctx;
    const ft_backend_t *be;
    ft_report_t *rep;
    ft_policy_t pol;
    ft_queue_t *qm, *qs, *qh2d, *qd2h; /* main (lookahead), side (rest), copies in, copies out */
    int host;            /* host backend: work memory is host memory, no copies */
    int protect;
    int64_t m, n, k, nb, np, W, q;
    int64_t nbc, ncb;    /* checksum column blocks: width (abft_qr_check_width) and count */
    /* every block carries QR_NCS checksum columns sigma [A_b e, A_b w, A_b v] (qr_checks.c) */
#define QR_NCS 3
    int64_t cb;          /* the block being verified (qr_checks.c) */
    double *dA;
    int64_t ldda;
    double *tau;
    /* work memory */
    double *dCS, *dEW, *dX, *dV[2], *dT[2], *dWa, *dWb, *dWc, *dN1, *dMx;
    /* host (pinned) memory */
    double *hP, *hV, *hT, *hwork, *hEW, *hN, *hC, *hX, *hrow, *hcol, *hcol0;
    int64_t *hJ; /* m: column pointed to by each failing row */
    int *hcnt;   /* n: failing rows per column */
    int64_t ldp, lhwork;
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
    /* outcome */
    int not_recovered, uncorrectable;
    int64_t located_col;
    double tprot;
    /* phase profile (policy.verbose >= 1 only; docs/qr.md "Where the time goes"): seconds
     * accumulated over the call. Trailing-update and checksum-update times come from events
     * in a ring of QR_EV_SLOTS steps, read two steps late, when they are known to have
     * completed, so reading them never waits on the device. */
    int prof;
    double ph_panel, ph_wait, ph_update, ph_csum, ph_in, ph_out;
    ft_qevent_t *ev[QR_EV_SLOTS][4];
    int64_t ev_next;             /* first step whose events have not been read yet */
    int ev_la[QR_EV_SLOTS];      /* the step of this slot recorded its lookahead event */
} qr_t;

static inline int64_t qr_imin(int64_t a, int64_t b) { return a < b ? a : b; }
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
/* Automatic block size. */
int64_t qr_auto_nb(int64_t n);

/* qr_loop.c */
int qr_setup(qr_t *g);
int qr_factor(qr_t *g);
/* qr_checks.c */
int qr_encode(qr_t *g);
void qr_threshold(qr_t *g);
int qr_verify(qr_t *g, int64_t i, int64_t step);
/* qr_inject.c */
void qr_plan_faults(qr_t *g);
int qr_inject(qr_t *g, ft_region_t reg, int64_t p);
int qr_needs_sync(const qr_t *g, int64_t p);
/* qr_profile.c */
int qr_profile_events(qr_t *g);
int qr_harvest(qr_t *g, int64_t upto);
void qr_profile_log(const qr_t *g);

#endif
