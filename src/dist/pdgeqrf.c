/*
 * pdgeqrf.c — ft_pdgeqrf: ScaLAPACK's QR, panel by panel, with checksum blocks carried by the
 * engine (docs/dist.md).
 *
 * The factorization runs on a work array W with the caller's layout: sub(A) copied in, and the
 * checksum blocks CK = sub(A) E (E: per block of nbc = abft_qr_check_width(n) columns the three
 * sigma [e, w, v], as ft_dgeqrf: v the permuted weights abft_weight_perm) as its 3B columns right
 * after sub(A), so that each panel's block
 * reflector (PDLARFT, as PDGEQRF) goes to the trailing matrix and the checksums in one PDLARFB
 * call; the caller's A is the pristine copy until the result is copied back. After panel step
 * p (boundary i) the partly factored matrix [R11 R12; 0 A22] satisfies CK = [R11 R12; 0 A22] E
 * (paper 004 eqs. (5)-(6)); its trapezoid sums X are formed
 * locally and reduced over the grid, CK gathered, and every process compares the residuals
 * r = CK - X with ft_dgeqrf's threshold (abft_qr_tau, the column norms of the original A).
 * A failing row is located by s/r (abft_locate) when the third residual t agrees (one error in
 * that column):
 *   - column c >= i, or row <= c (R, R12, the trailing matrix): rebuilt in place from its row
 *     check (set to 0, the row summed again, A = (CK - X) / sigma);
 *   - column c < i and row > c: the error was consumed by the panel of column c (it spread through
 *     the reflectors): re-factored from that panel — the columns from it restored from the
 *     caller's A, the earlier (verified) reflectors applied to them and to the checksums formed
 *     again by PDORMQR;
 *   - one check alone: the checksum was hit, its row is formed again from X;
 *   - not one error (the ratio out of the block, or the third check disagreeing: two errors in
 *     the row, one of which a correction from the first two checks would absorb): re-factored
 *     from the panel of the row's first checked column in the block (the columns restored, as
 *     above).
 * The result is verified again, each block's aggregate now at half the threshold (as is every
 * verification after a re-factorization in the call; a correction
 * leaves rounding only: a rest above that is an error spread over rows that the corrected rows
 * absorbed in part, re-factored where it fits a finished column); what is still wrong is
 * reported (FT_ERR_UNCORRECTABLE).
 * The Householder vectors below the diagonal and tau, which the checksum blocks cannot see
 * (CK = [R11 R12; 0 A22] E holds without V), have a diskless checkpoint as ft_dgeqrf's (paper
 * 004 Sec. 6; checkpoint.h): after each panel's update every process takes the CKP_NS exact sums
 * in GF(p) of its own elements of each of the panel's columns below the diagonal (the weights of
 * their places in its local column), and right after the panel two copies of its tau — no
 * communication; before the reflectors are applied again (a re-factorization) and at the end,
 * every process sums its elements again and compares — up to two changed elements of its part
 * of a column located and
 * restored (ckp_locate, ckp_restore), more reported (one all-reduce of the verdict) — and votes
 * tau among its three copies.
 * Inside a step: a change to the panel's vectors or tau between the panel and the end of the
 * update that applies them is found by a hash of each process's part of the panel taken right
 * after the panel and compared after the update with the hash the checkpoint's pass forms
 * (inuse_check); the columns from that panel on (a changed vector: the checkpoint holds it) or
 * after it (a changed tau, restored from its copies) are re-factored; so are those after the
 * panel for a change to T on its owner between PDLARFT and the end of PDLARFB (its seal,
 * t_check); an error inside the panel factorization is one the panel consumed (the checksum
 * blocks). The checkpoint is taken after the update, not before it: there it is off the steps'
 * critical path (the panel's process column takes it while the next panel is factored).
 */
#include "abft/abft.h"
#include "backend/backend.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/ckp_field.h"
#include "core/context.h"
#include "core/inject.h"
#include "core/simd.h"
#include "core/team.h"
#include "core/vec.h"
#include "dist/dist.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* checksum columns a block: sigma [e, w, v] */
#define PQ_NCS 3

typedef struct {
    dist_grid_t g;
    ft_context_t *ctx;
    ft_report_t *rep;
    int m, n, ia, ja, k;
    double *A, *tau;
    const int *dA;
    int64_t nbc, ncb, Wb;
    double sig, tol;
    /* weights; the work array W (the caller's layout, sub(A) then the checksum blocks CK as
     * its global columns ckc .. ckc + 3B - 1); CK, a view of W; A0, the caller's A (pristine
     * until the result is copied back: what a re-factorization restores columns from) */
    dist_mat_t E, W, CK, A0;
    int ckc;
    double *hX, *hC; /* m x 3B replicated */
    double *hR;      /* 3m: one block's residuals r, s, t */
    double *thr;     /* B */
    double *work;
    int lwork;
    double *uw; /* the caller's work, when it holds W and work (w_elems + lwork): else NULL */
    int root;
    int64_t *rowg; /* global row (in sub(A)) of each local row, or -1 */
    /* the local rows of sub(A) are [va, vb) (the local order is the global order), in nrun runs
     * of consecutive global rows (row blocks): run k is [run[k], run[k + 1]), run[nrun] = vb */
    int64_t va, vb, nrun, *run;
    int q;         /* verify after every q-th panel step (and after the last) */
    /* the panel's vectors below its diagonal as the panel left them (vk: a hash of each of this
     * process's local columns of the panel; tau: its copies), compared after the update that
     * applies them (vr: the hashes then, from the checkpoint's pass); iu: the first column to
     * re-factor at the next verification because reflectors changed in that window (the
     * panel's first column for a changed vector, its end for a changed tau or T), or -1 */
    uint64_t *vk, *vr; /* vr: the same hashes after the update */
    int64_t iu;
    /* FT_REGION_REFLECTORS faults with col >= n, T(row, col - n) of their step's panel: taken
     * with the step's other reflector faults, applied between PDLARFT and PDLARFB */
    ft_fault_t tf[FT_MAX_FAULTS];
    int ntf;
    int anyf;      /* a fault is planned on some process (the setup's all-reduce): the steps ask
                    * each other whether a panel is to be factored in halves (FT_REGION_PANEL) */
    /* the checkpoint of Q, each process its own elements: ck[CKP_NS lj + e] for its local
     * columns lj of the finished columns c < ckdone, the sums now, the two copies of its tau */
    uint64_t *ck, *cknow;
    double *tau1, *tau2;
    int64_t ckdone;
    int64_t r0;  /* rows of sub(A) from r0 on changed since the last verification (trap_sums) */
    double *hB;  /* 2 m x 3B: the packed rows of one verification's all-reduce */
    /* FTLA_DIST_PROFILE: seconds of each phase on this process (printed by the root) */
    double pf[8];
} pq_t;

enum { PF_SETUP, PF_WEIGHTS, PF_PANEL, PF_UPDATE, PF_CKP, PF_VERIFY, PF_COPYOUT, PF_N };
static const char *const pf_name[PF_N] = {"setup", "weights", "panel",   "update",
                                          "ckp",   "verify",  "copy_out"};

/* ---- the checkpoint of Q ----------------------------------------------------------------- */

static int64_t local_first(const pq_t *p, int64_t r0);

/* out[CKP_NS lj + e] for this process's local columns lj whose column c of sub(A) is in
 * [c0, c1): the sums of its local elements below the diagonal — a contiguous piece of the local
 * column, rows [local_first(c + 1), vb) — with checkpoint.h's weights of the element's place in
 * that piece (t = vb - li, the last local row t = 1), one ckp_run_sums call a column. Each
 * process checkpoints and verifies its own elements: a change is located from the difference
 * of its own sums (ckp_verify maps t back to the local row), so no sum crosses the network.
 * (Until session 46 the weights were those of the global row, t = m - r: each row block of 64
 * rows summed apart and shifted to its place by 15 modular products — the per-block work, not
 * the dot products, was most of the checkpoint's time.) raw[x]: the hash of the x-th local
 * column in [c0, c1) (col_hash), from the same loads, when raw is not NULL. The columns are
 * split over the host team (core/team.h; each column's sums are one thread's: the same bits
 * whatever the number of threads). */
typedef struct {
    pq_t *p;
    int64_t l0, l1, lraw; /* local columns [l0, l1) (local_cols); raw[lj - lraw] */
    uint64_t *out, *raw;
    int det; /* S_0 and S_1 only (ckp_run_detect), out[2 lj + e] */
} ckc_t;

static void ckp_cols_work(void *arg, int t, int nt)
{
    const ckc_t *a = arg;
    pq_t *p = a->p;
    const int *d = p->dA;
    const int64_t nl = a->l1 - a->l0;
    for (int64_t lj = a->l0 + nl * t / nt; lj < a->l0 + nl * (t + 1) / nt; lj++) {
        const int64_t c =
            dist_global(lj, d[NB_], p->g.mycol, d[CSRC_], p->g.npcol) - (p->ja - 1);
        const int64_t lo = local_first(p, c + 1);
        if (a->det) {
            uint64_t *o = a->out + 2 * lj;
            if (lo < p->vb) ckp_run_detect(p->A + lj * d[LLD_] + lo, p->vb - lo, o);
            else o[0] = o[1] = 0;
            continue;
        }
        uint64_t *o = a->out + CKP_NS * lj, *h = a->raw ? a->raw + (lj - a->lraw) : NULL;
        if (h) *h = 0;
        if (lo < p->vb) ckp_run_sums(p->A + lj * d[LLD_] + lo, p->vb - lo, o, h);
        else
            for (int e = 0; e < CKP_NS; e++) o[e] = 0;
    }
}

/* this process's local columns [*l0, *l1) whose columns of sub(A) are in [c0, c1): consecutive
 * (the local order is the global one) */
static void local_cols(const pq_t *p, int64_t c0, int64_t c1, int64_t *l0, int64_t *l1)
{
    const dist_grid_t *g = &p->g;
    const int *d = p->dA;
    const int lc = dist_numroc(d[N_], d[NB_], g->mycol, d[CSRC_], g->npcol);
    const int64_t ja0 = p->ja - 1;
    int64_t a = 0, b;
    while (a < lc && dist_global(a, d[NB_], g->mycol, d[CSRC_], g->npcol) - ja0 < c0) a++;
    for (b = a; b < lc && dist_global(b, d[NB_], g->mycol, d[CSRC_], g->npcol) - ja0 < c1;) b++;
    *l0 = a, *l1 = b;
}

static void ckp_cols(pq_t *p, int64_t c0, int64_t c1, uint64_t *out, uint64_t *raw, int det)
{
    int64_t l0, l1;
    local_cols(p, c0, c1, &l0, &l1);
    ckc_t a = {.p = p, .l0 = l0, .l1 = l1, .lraw = l0, .out = out, .raw = raw, .det = det};
    dist_team_par(ckp_cols_work, &a, (long long)(p->vb - p->va) * (l1 - l0));
}

/* right after the panel [c0, c1): the two copies of this process's tau */
static void tau_keep(pq_t *p, int64_t c0, int64_t c1)
{
    const int *d = p->dA;
    const int lc = dist_numroc(d[N_], d[NB_], p->g.mycol, d[CSRC_], p->g.npcol);
    for (int64_t lj = 0; lj < lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], p->g.mycol, d[CSRC_], p->g.npcol) - (p->ja - 1);
        if (c >= c0 && c < c1) p->tau1[lj] = p->tau2[lj] = p->tau[lj];
    }
}

/* after the update that applied the panel [c0, c1): the checkpoint of its vectors, and raw[x]
 * the hashes (col_hash) of its x-th local column from the same loads (inuse_check). Taken here,
 * not right after the panel, so that it is off the steps' critical path: the panel's process
 * column does it while the next process column factors the next panel, instead of holding back
 * the update every other process waits for. */
static void ckp_take(pq_t *p, int64_t c0, int64_t c1, uint64_t *raw)
{
    ckp_cols(p, c0, c1, p->ck, raw, 0);
    if (c1 > p->ckdone) p->ckdone = c1;
}

static int same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* this process's local columns of the panel [c0, c1) (one column block: consecutive local
 * columns), or none: *l0 and the count */
static int panel_cols(const pq_t *p, int64_t c0, int64_t c1, int64_t *l0)
{
    const int *d = p->dA;
    const int lc = dist_numroc(d[N_], d[NB_], p->g.mycol, d[CSRC_], p->g.npcol);
    int nc = 0;
    for (int64_t lj = 0; lj < lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], p->g.mycol, d[CSRC_], p->g.npcol) - (p->ja - 1);
        if (c >= c0 && c < c1 && nc++ == 0) *l0 = lj;
    }
    return nc;
}

static void local_rows(const pq_t *p, int64_t r0, int64_t *lo, int64_t *hi);

/* the first local row of sub(A) whose row in sub(A) is >= r0, or vb: a binary search of
 * [va, vb), where the global rows increase */
static int64_t local_first(const pq_t *p, int64_t r0)
{
    int64_t a = p->va, b = p->vb;
    while (a < b) {
        const int64_t h = a + (b - a) / 2;
        if (p->rowg[h] < r0) a = h + 1;
        else b = h;
    }
    return a;
}

/* the sum mod 2^64 of the bit patterns of local column lj's elements below the diagonal of
 * column c (a change of one element always changes it) */
static uint64_t col_hash(const pq_t *p, int64_t lj, int64_t c)
{
    const double *a = p->A + lj * p->dA[LLD_];
    uint64_t h = 0;
    int64_t lo, hi;
    local_rows(p, c + 1, &lo, &hi);
    for (int64_t li = lo; li < hi; li++) {
        uint64_t v;
        memcpy(&v, a + li, sizeof v);
        h += v; /* (local_rows: every row in [lo, hi) is a row of sub(A) below c) */
    }
    return h;
}

/* right after the panel [c0, c1): its vectors as they are now (one hash a local column; tau's
 * copies, tau_keep) */
static void inuse_keep(pq_t *p, int64_t c0, int64_t c1)
{
    int64_t l0 = 0;
    const int nc = panel_cols(p, c0, c1, &l0);
    for (int x = 0; x < nc; x++)
        p->vk[x] = col_hash(p, l0 + x, dist_global(l0 + x, p->dA[NB_], p->g.mycol, p->dA[CSRC_],
                                                   p->g.npcol) - (p->ja - 1));
}

/* after the update that applied the panel [c0, c1): its checkpoint taken (ckp_take), and its
 * vectors (below the diagonal), hashed by the same pass, and tau against inuse_keep's hashes
 * and tau's copies. A change — the update may have used it — marks columns for re-factoring
 * (p->iu; the verification decides it over the grid): a changed tau, those after the panel (the
 * verification restores tau from its copies first); a changed vector, the panel itself and
 * those after it (the checkpoint, just taken, holds the changed vector: its original is in the
 * caller's A only) */
static void inuse_check(pq_t *p, int64_t c0, int64_t c1, int64_t step)
{
    int64_t l0 = 0;
    const int nc = panel_cols(p, c0, c1, &l0);
    ckp_take(p, c0, c1, p->vr);
    int hit = 0, hitv = 0;
    for (int x = 0; x < nc; x++) {
        const int64_t c = dist_global(l0 + x, p->dA[NB_], p->g.mycol, p->dA[CSRC_], p->g.npcol) -
                          (p->ja - 1);
        const int hv = p->vr[x] != p->vk[x];
        const int ht = !same_bits(p->tau[l0 + x], p->tau1[l0 + x]);
        if (hv || ht)
            ft_report_event(p->rep, FT_EVENT_LOCATED, FT_REGION_REFLECTORS, ht && !hv ? c : -1, c,
                            step, 0.0, 0.0);
        hit += hv + ht, hitv += hv;
    }
    if (hit) {
        const int64_t from = hitv ? c0 : c1;
        p->rep->detected++;
        ft_log(p->ctx, 1, "pdgeqrf: the panel at column %lld changed while its update used it: "
               "the columns from %lld on to be re-factored", (long long)c0, (long long)from);
        if (p->iu < 0 || from < p->iu) p->iu = from;
    }
}

/* every finished column (c < ckdone) against the checkpoint, each process its own elements:
 * tau voted among its three copies, up to two changed elements of a column restored;
 * FT_ERR_UNCORRECTABLE (on every process) when a column or a tau cannot be */
static int ckp_verify(pq_t *p, int64_t step, int pend)
{
    const dist_grid_t *g = &p->g;
    const int *d = p->dA;
    const int64_t nc = p->ckdone;
    int bad = 0;
    const int lc = dist_numroc(d[N_], d[NB_], g->mycol, d[CSRC_], g->npcol);
    /* the first pass S_0 and S_1 only (a change of one or two elements of a column always
     * changes them; more go unseen with probability ~p^-2, as ft_dgeqrf's verification:
     * checkpoint.h); all CKP_NS sums of a column that differs, to locate */
    if (nc > 0) ckp_cols(p, 0, nc, p->cknow, NULL, 1);
    for (int64_t lj = 0; lj < lc && nc > 0; lj++) {
        const int64_t c = dist_global(lj, d[NB_], g->mycol, d[CSRC_], g->npcol) - (p->ja - 1);
        if (c < 0 || c >= nc) continue;
        double *t = p->tau + lj, *t1 = p->tau1 + lj, *t2 = p->tau2 + lj;
        if (!same_bits(*t, *t1) || !same_bits(*t, *t2)) {
            if (same_bits(*t1, *t2)) {
                const double before = *t;
                *t = *t1;
                p->rep->detected++, p->rep->located++, p->rep->corrected++;
                ft_report_event(p->rep, FT_EVENT_CORRECTED, FT_REGION_TAU, -1, c, step, before, *t);
                ft_log(p->ctx, 1, "pdgeqrf: tau(%lld) changed, restored from its copies",
                       (long long)c);
            } else if (same_bits(*t, *t1)) {
                *t2 = *t; /* a copy changed: the data is right */
            } else if (same_bits(*t, *t2)) {
                *t1 = *t;
            } else {
                p->rep->detected++, p->rep->uncorrectable++, bad = 1;
                ft_log(p->ctx, 1, "pdgeqrf: tau(%lld) and both its copies differ", (long long)c);
            }
        }
        const uint64_t *ref = p->ck + CKP_NS * lj;
        p->rep->checks++;
        if (!memcmp(ref, p->cknow + 2 * lj, 2 * sizeof *ref)) continue;
        uint64_t now[CKP_NS] = {0};
        ckp_fix_t fix[2];
        const int64_t lf = local_first(p, c + 1), len = p->vb - lf; /* ckp_cols: t = vb - li */
        if (len > 0) ckp_run_sums(p->A + lj * d[LLD_] + lf, len, now, NULL);
        const int nf = len > 0 ? ckp_locate(ref, now, len, fix) : -1;
        int ok = nf > 0;
        for (int f = 0; f < nf && ok; f++) ok = fix[f].t >= 1 && fix[f].t <= len;
        if (!ok) {
            p->rep->detected++, p->rep->uncorrectable++, bad = 1;
            ft_log(p->ctx, 1,
                   "pdgeqrf: Householder vector %lld changed in more than two "
                   "elements: uncorrectable",
                   (long long)c);
            continue;
        }
        for (int f = 0; f < nf; f++) { /* counted per element, as ft_dgeqrf */
            const int64_t li = p->vb - fix[f].t, r = p->rowg[li];
            double *e = p->A + lj * d[LLD_] + li;
            const double before = *e;
            *e = ckp_restore(before, fix[f].delta);
            p->rep->detected++, p->rep->located++, p->rep->corrected++;
            ft_report_event(p->rep, FT_EVENT_CORRECTED, FT_REGION_Q, r, c, step, before, *e);
            ft_log(p->ctx, 1,
                   "pdgeqrf: Householder vector element (%lld, %lld) changed, "
                   "restored from the checkpoint",
                   (long long)r, (long long)c);
        }
    }
    double v = bad + pend; /* a verdict every process shares (pend: what is still to be done) */
    dist_allsum(g, &v, 1, 1);
    return v > 0 ? FT_ERR_UNCORRECTABLE : FT_SUCCESS;
}

/* The local rows of sub(A) whose row in sub(A) is >= r0: [*lo, *hi) of the local array (the
 * local order is the global order). */
static void local_rows(const pq_t *p, int64_t r0, int64_t *lo, int64_t *hi)
{
    *lo = local_first(p, r0), *hi = p->vb;
}

/* Rows [r0, m) of X := [R11 R12; 0 A22] E at boundary i and of the checksum blocks CK, into hX
 * and hC (ld m), with one all-reduce over the grid. Rows above r0 are left as they are: the
 * last verification (boundary r0) saw them, and no step since has changed them (the reflectors
 * of panels at or after r0 act on rows >= r0), so only what changed is read — the final
 * verification (r0 = 0) reads everything again. For a row l >= r0, a column c < r0 holds V
 * there (l > c): it is left out with its column. */
/* the end of the run of consecutive rows that local row li (of sub(A)) is in */
static int64_t run_end(const pq_t *p, int64_t li)
{
    int64_t a = 0, b = p->nrun; /* the last run starting at or before li */
    while (b - a > 1) {
        const int64_t h = a + (b - a) / 2;
        if (p->run[h] <= li) a = h;
        else b = h;
    }
    return p->run[a + 1];
}

/* xe += we a, xw += ww a, xv += wv a over len rows (sums compared under a threshold) */
FT_SIMD_CLONES static void axpy3(int64_t len, const double *restrict a, double we, double ww,
                                 double wv, double *restrict xe, double *restrict xw,
                                 double *restrict xv)
{
    for (int64_t k = 0; k < len; k++) xe[k] += we * a[k], xw[k] += ww * a[k], xv[k] += wv * a[k];
}

#if FT_HAVE_VEC
/* axpy3 for four columns (x: the first, ld apart; weights we[g], ww[g], wv[g]): each row's sums
 * read and written once, the columns added in their order */
FT_SIMD_CLONES static void axpy3x4(int64_t len, const double *restrict x, int64_t ld,
                                   const double *restrict wt, double *restrict xe,
                                   double *restrict xw, double *restrict xv)
{
    int64_t k = 0;
    for (; k + 8 <= len; k += 8) {
        ft_v8d E = ft_v8d_load(xe + k), W = ft_v8d_load(xw + k), V = ft_v8d_load(xv + k);
        for (int g = 0; g < 4; g++) {
            const ft_v8d y = ft_v8d_load(x + g * ld + k);
            E += wt[3 * g] * y, W += wt[3 * g + 1] * y, V += wt[3 * g + 2] * y;
        }
        ft_v8d_store(xe + k, E), ft_v8d_store(xw + k, W), ft_v8d_store(xv + k, V);
    }
    for (; k < len; k++) {
        double e = xe[k], f = xw[k], h = xv[k];
        for (int g = 0; g < 4; g++) {
            const double y = x[g * ld + k];
            e += wt[3 * g] * y, f += wt[3 * g + 1] * y, h += wt[3 * g + 2] * y;
        }
        xe[k] = e, xw[k] = f, xv[k] = h;
    }
}
#endif

/* The runs of thread t of nt in the row-split passes (trap_sums, setup_pass): the runs are cut
 * into PQ_PARTS fixed parts, [nrun q / PQ_PARTS, nrun (q + 1) / PQ_PARTS), and thread t takes
 * parts [PQ_PARTS t / nt, PQ_PARTS (t + 1) / nt): whole runs, rows no other thread touches, and
 * partial sums per part whatever nt is (the same bits with one thread or sixteen). */
#define PQ_PARTS FT_TEAM_MAX
static int64_t part_run(const pq_t *p, int q) { return p->nrun * q / PQ_PARTS; }

typedef struct {
    pq_t *p;
    int64_t i, r0, nr;
    double *bx, *bc;
} tr_t;

static void trap_work(void *arg, int t, int nt)
{
    const tr_t *a = arg;
    pq_t *p = a->p;
    const dist_grid_t *g = &p->g;
    const int *d = p->dA;
    const int64_t n = p->n, c2 = PQ_NCS * p->ncb, nr = a->nr, r0 = a->r0, i = a->i;
    const int64_t k0 = part_run(p, PQ_PARTS * t / nt), k1 = part_run(p, PQ_PARTS * (t + 1) / nt);
    if (k0 >= k1) return;
    /* this thread's local rows [R0, R1), those from r0 on [lo, hi) */
    const int64_t R0 = p->run[k0], R1 = p->run[k1];
    int64_t lo, hi;
    local_rows(p, r0, &lo, &hi);
    lo = lo > R0 ? lo : R0, hi = hi < R1 ? hi : R1;
    if (lo >= hi) return;
    const int64_t lld = d[LLD_];
    for (int64_t lj = 0; lj < p->W.lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], g->mycol, d[CSRC_], g->npcol) - (p->ja - 1);
        const double *x = p->A + lj * lld;
        if (c >= n && c < n + c2) { /* a checksum column */
            double *o = a->bc + (c - n) * nr - r0;
            for (int64_t li = lo; li < hi;) { /* by runs of consecutive rows */
                const int64_t e = run_end(p, li);
                memcpy(o + p->rowg[li], x + li, sizeof(double) * (size_t)(e - li));
                li = e;
            }
            continue;
        }
        if (c < r0 || c >= n) continue;
        const int64_t b = c / p->nbc;
        const double we = p->sig, ww = p->sig * abft_weight(c - b * p->nbc, p->Wb),
                     wv = p->sig * abft_weight_perm(c - b * p->nbc, p->Wb);
        double *xe = a->bx + PQ_NCS * b * nr - r0, *xw = xe + nr, *xv = xw + nr;
        /* a finished column: R only (rows <= c), not V */
        int64_t e = c < i ? local_first(p, c + 1) : hi;
        e = e < hi ? e : hi;
#if FT_HAVE_VEC
        if (lj + 4 <= p->W.lc) { /* with the next three columns of this block: their rows
                                  * [lo, e) four at a time (a later column ends no earlier),
                                  * then the rest of each of them */
            const int64_t cl = dist_global(lj + 3, d[NB_], g->mycol, d[CSRC_], g->npcol) -
                               (p->ja - 1);
            if (cl < n && cl / p->nbc == b) {
                double wt[12];
                int64_t eg[4];
                for (int u = 0; u < 4; u++) {
                    const int64_t cu = dist_global(lj + u, d[NB_], g->mycol, d[CSRC_],
                                                   g->npcol) - (p->ja - 1);
                    wt[3 * u] = we, wt[3 * u + 1] = p->sig * abft_weight(cu - b * p->nbc, p->Wb);
                    wt[3 * u + 2] = p->sig * abft_weight_perm(cu - b * p->nbc, p->Wb);
                    eg[u] = cu < i ? local_first(p, cu + 1) : hi;
                    eg[u] = eg[u] < hi ? eg[u] : hi;
                }
                for (int64_t li = lo; li < e;) {
                    const int64_t y = run_end(p, li) < e ? run_end(p, li) : e, l = p->rowg[li];
                    axpy3x4(y - li, x + li, lld, wt, xe + l, xw + l, xv + l);
                    li = y;
                }
                for (int u = 1; u < 4; u++)
                    for (int64_t li = e > lo ? e : lo; li < eg[u];) {
                        const int64_t y = run_end(p, li) < eg[u] ? run_end(p, li) : eg[u],
                                      l = p->rowg[li];
                        axpy3(y - li, x + u * lld + li, wt[3 * u], wt[3 * u + 1], wt[3 * u + 2],
                              xe + l, xw + l, xv + l);
                        li = y;
                    }
                lj += 3;
                continue;
            }
        }
#endif
        for (int64_t li = lo; li < e;) {
            const int64_t y = run_end(p, li) < e ? run_end(p, li) : e, l = p->rowg[li];
            axpy3(y - li, x + li, we, ww, wv, xe + l, xw + l, xv + l);
            li = y;
        }
    }
}

/* (the rows split over the host team: each X row's sums are one thread's, added in the same
 * column order as one thread would) */
static void trap_sums(pq_t *p, int64_t i, int64_t r0)
{
    const dist_grid_t *g = &p->g;
    const int64_t m = p->m, c2 = PQ_NCS * p->ncb, nr = m - r0;
    if (nr <= 0) return;
    double *bx = p->hB, *bc = p->hB + nr * c2; /* packed rows [r0, m): X, then CK */
    memset(bx, 0, sizeof(double) * (size_t)(2 * nr * c2));
    int64_t lo, hi;
    local_rows(p, r0, &lo, &hi);
    tr_t a = {.p = p, .i = i, .r0 = r0, .nr = nr, .bx = bx, .bc = bc};
    dist_team_par(trap_work, &a, (long long)(hi - lo) * p->W.lc);
    dist_allsum(g, bx, nr, 2 * c2);
    for (int64_t x = 0; x < c2; x++) {
        memcpy(p->hX + x * m + r0, bx + x * nr, sizeof(double) * (size_t)nr);
        memcpy(p->hC + x * m + r0, bc + x * nr, sizeof(double) * (size_t)nr);
    }
}

/* CK := sub(A) E, from the current sub(A) (the original, before the first panel) */
static void encode(pq_t *p, const double *A, const int *dA)
{
    const int one = 1, c2 = (int)(PQ_NCS * p->ncb), jc = p->ckc + 1;
    const double d1 = 1.0, d0 = 0.0;
    pdgemm_("N", "N", &p->m, &c2, &p->n, &d1, A, &p->ia, &p->ja, dA, p->E.a, &one, &one, p->E.desc,
            &d0, p->CK.a, &p->ia, &jc, p->CK.desc, 1, 1);
}

static int ormqr(pq_t *p, int m, int n, int k, int ia, int ja, double *C, int ic, int jc,
                 const int *dC)
{
    int info = 0, q = -1;
    if (m <= 0 || n <= 0 || k <= 0) return FT_SUCCESS;
    /* its workspace asked for here, on this rare path (a query checks the arguments over the
     * whole grid), and the work array grown to it (every process calls this together) */
    double w = 0.0;
    pdormqr_("L", "T", &m, &n, &k, p->A, &ia, &ja, p->dA, p->tau, C, &ic, &jc, dC, &w, &q, &info,
             1, 1);
    if (info) return FT_ERR_INTERNAL;
    if ((int)w > p->lwork) {
        double *x = realloc(p->work, sizeof(double) * (size_t)w);
        if (!x) return FT_ERR_ALLOC;
        p->work = x, p->lwork = (int)w;
    }
    pdormqr_("L", "T", &m, &n, &k, p->A, &ia, &ja, p->dA, p->tau, C, &ic, &jc, dC, p->work,
             &p->lwork, &info, 1, 1);
    return info ? FT_ERR_INTERNAL : FT_SUCCESS;
}

/* fault f applied to element e (row r, column c of region reg), the injection reported */
static void apply_fault(pq_t *p, const ft_fault_t *f, double *e, ft_region_t reg, int64_t r,
                        int64_t c, int64_t step)
{
    const double before = *e;
    *e = f->bit >= 0 ? ft_flip_bit(before, f->bit) : before + f->value;
    p->rep->injected++;
    ft_report_event(p->rep, FT_EVENT_INJECTED, reg, r, c, step, before, *e);
    ft_log(p->ctx, 2, "pdgeqrf: injected region %d at (%lld,%lld) step %lld: %.17g -> %.17g",
           (int)reg, (long long)r, (long long)c, (long long)step, before, *e);
}

static int inject(pq_t *p, int64_t call, int64_t step, int64_t i)
{
    static const ft_region_t regs[5] = {FT_REGION_TRAILING, FT_REGION_R, FT_REGION_CHECKSUM,
                                        FT_REGION_Q, FT_REGION_TAU};
    for (int q = 0; q < 5; q++) {
        ft_fault_t f[FT_MAX_FAULTS];
        const int nf = ft_inject_take(p->ctx, call, regs[q], step, f, FT_MAX_FAULTS);
        for (int x = 0; x < nf; x++) {
            int64_t r = f[x].row, c = f[x].col;
            uint64_t *rng = &p->ctx->rng;
            if (regs[q] == FT_REGION_TRAILING) { /* rows and columns >= i */
                if (i >= p->m || i >= p->n) continue;
                if (r < 0) r = i + (int64_t)(ft_rng_next(rng) % (uint64_t)(p->m - i));
                if (c < 0) c = i + (int64_t)(ft_rng_next(rng) % (uint64_t)(p->n - i));
            } else if (regs[q] == FT_REGION_R) { /* finished rows: r < i, c >= r */
                if (i == 0) continue;
                if (r < 0) r = (int64_t)(ft_rng_next(rng) % (uint64_t)i);
                if (c < 0) c = r + (int64_t)(ft_rng_next(rng) % (uint64_t)(p->n - r));
            } else if (regs[q] == FT_REGION_Q) { /* finished vectors: c < i, r > c */
                if (c < 0 && i > 0) c = (int64_t)(ft_rng_next(rng) % (uint64_t)i);
                if (c < 0 || c + 1 >= p->m) continue;
                if (r < 0) r = c + 1 + (int64_t)(ft_rng_next(rng) % (uint64_t)(p->m - c - 1));
            } else if (regs[q] == FT_REGION_TAU) { /* a finished tau, on the process owning the
                                                      diagonal element of its column */
                if (c < 0 && i > 0) c = (int64_t)(ft_rng_next(rng) % (uint64_t)i);
                if (c < 0 || c >= p->k) continue;
                r = c;
            } else {
                if (r < 0) r = (int64_t)(ft_rng_next(rng) % (uint64_t)p->m);
                if (c < 0) c = (int64_t)(ft_rng_next(rng) % (uint64_t)(PQ_NCS * p->ncb));
            }
            double *e = regs[q] == FT_REGION_TAU
                            ? (dist_elem(&p->g, p->A, p->dA, p->ia - 1 + r, p->ja - 1 + c)
                                   ? p->tau + dist_local(p->ja - 1 + c, p->dA[NB_], p->g.npcol)
                                   : NULL)
                        : regs[q] == FT_REGION_CHECKSUM
                            ? (r < p->m && c < PQ_NCS * p->ncb
                                   ? dist_elem(&p->g, p->CK.a, p->CK.desc, p->ia - 1 + r,
                                               p->ckc + c)
                                   : NULL)
                            : (r < p->m && c < p->n
                                   ? dist_elem(&p->g, p->A, p->dA, p->ia - 1 + r, p->ja - 1 + c)
                                   : NULL);
            if (!e) {
                ft_log(p->ctx, 1,
                       "pdgeqrf: fault (%lld, %lld) at step %lld not applied: not on "
                       "this process",
                       (long long)r, (long long)c, (long long)step);
                continue;
            }
            apply_fault(p, &f[x], e, regs[q], r, c, step);
        }
    }
    return FT_SUCCESS;
}

/* The owner of the panel at column i's T (PDLARFT forms it on the process holding the panel's
 * first diagonal element): 1 on that process. */
static int t_owner(const pq_t *p, int64_t i)
{
    const int *d = p->dA;
    return dist_owner(p->ia - 1 + i, d[MB_], d[RSRC_], p->g.nprow) == p->g.myrow &&
           dist_owner(p->ja - 1 + i, d[NB_], d[CSRC_], p->g.npcol) == p->g.mycol;
}

/* the stashed T faults of the panel [i, i + jb), on T's owner: T(row, col - n), row <= col - n
 * < jb (the upper triangle PDLARFB reads; ld NB) */
static void inject_t(pq_t *p, int64_t step, int64_t i, int64_t jb, double *T)
{
    for (int x = 0; x < p->ntf; x++) {
        const ft_fault_t *f = &p->tf[x];
        const int64_t c = f->col - p->n, r = f->row < 0 ? c : f->row;
        if (!t_owner(p, i)) continue;
        if (c >= jb || r < 0 || r > c) {
            ft_log(p->ctx, 1, "pdgeqrf: T fault (%lld, %lld) at step %lld outside the panel's T",
                   (long long)r, (long long)c, (long long)step);
            continue;
        }
        apply_fault(p, f, T + r + c * p->dA[NB_], FT_REGION_REFLECTORS, r, f->col, step);
    }
    p->ntf = 0;
}

/* the seal of T (its upper triangle, ld NB): the sum mod 2^64 of its elements' bit patterns,
 * each times an odd multiplier of its position */
static uint64_t t_seal(const double *T, int64_t jb, int nb)
{
    uint64_t h = 0;
    for (int64_t c = 0; c < jb; c++)
        for (int64_t a = 0; a <= c; a++) {
            uint64_t v;
            memcpy(&v, T + a + c * nb, sizeof v);
            h += v * (uint64_t)(2 * (a + c * jb) + 1);
        }
    return h;
}

/*
 * T as the update used it: on its owner, after PDLARFB, against its seal taken right after
 * PDLARFT — any change while PDLARFB applies it, however small, bit for bit. The checksum blocks
 * see a wrong T too (PDLARFB transforms the panel's share of its block's checksums but not the
 * panel), but only above their threshold, and a re-factorization from a later panel (another
 * error) can leave the rest of its damage below it (campaign seed 61, F = 3, trial 1511; a low
 * mantissa bit of T: dqrt01 ratios of 220 in test_dist). A change marks the columns after the
 * panel for re-factoring (p->iu, as inuse_check). Not covered by the seal: a T that PDLARFT
 * itself forms wrong, and T's broadcast copies inside PDLARFB (the checksums only; a product
 * check of T against V cost ~0.03 s of 1.3 at 4096 on 2 x 2 in its messages: bench/NOTES.md).
 */
static void t_check(pq_t *p, int64_t i, int64_t jb, const double *T, int64_t step, uint64_t seal)
{
    if (!t_owner(p, i) || jb <= 0 || t_seal(T, jb, p->dA[NB_]) == seal) return;
    p->rep->detected++;
    ft_report_event(p->rep, FT_EVENT_LOCATED, FT_REGION_REFLECTORS, -1, p->n + i, step, 0.0, 0.0);
    ft_log(p->ctx, 1,
           "pdgeqrf: the T of the panel at column %lld changed while its update used it: the "
           "columns after it to be re-factored",
           (long long)i);
    if (p->iu < 0 || i + jb < p->iu) p->iu = i + jb;
}

/* the faults of the regions inside a step, by their owners: FT_REGION_PANEL (row, col) of the
 * panel [i, i + jb) between its two halves, row >= i; FT_REGION_REFLECTORS between the panel's
 * checkpoint and the update that applies it: row > col an element of a vector of the panel, row =
 * col its tau (on the process owning that diagonal element) */
static void inject_step(pq_t *p, int64_t call, int64_t step, ft_region_t reg, int64_t i, int64_t jb)
{
    ft_fault_t f[FT_MAX_FAULTS];
    const int nf = ft_inject_take(p->ctx, call, reg, step, f, FT_MAX_FAULTS);
    uint64_t *rng = &p->ctx->rng;
    for (int x = 0; x < nf; x++) {
        int64_t r = f[x].row, c = f[x].col;
        if (reg == FT_REGION_REFLECTORS && c >= p->n) { /* T: after PDLARFT (inject_t) */
            if (p->ntf < FT_MAX_FAULTS) p->tf[p->ntf++] = f[x];
            continue;
        }
        if (c < 0) c = i + (int64_t)(ft_rng_next(rng) % (uint64_t)jb);
        if (reg == FT_REGION_PANEL) {
            if (r < 0) r = i + (int64_t)(ft_rng_next(rng) % (uint64_t)(p->m - i));
        } else if (r < 0) {
            r = c + 1 < p->m ? c + 1 + (int64_t)(ft_rng_next(rng) % (uint64_t)(p->m - c - 1)) : c;
        }
        const int in =
            c >= i && c < i + jb && r < p->m && (reg == FT_REGION_PANEL ? r >= i : r >= c);
        double *e = !in ? NULL : dist_elem(&p->g, p->A, p->dA, p->ia - 1 + r, p->ja - 1 + c);
        if (e && reg == FT_REGION_REFLECTORS && r == c)
            e = p->tau + dist_local(p->ja - 1 + c, p->dA[NB_], p->g.npcol);
        if (!e) {
            ft_log(p->ctx, 1, "pdgeqrf: fault (%lld, %lld) at step %lld not applied: %s",
                   (long long)r, (long long)c, (long long)step,
                   in ? "not on this process" : "outside the region");
            continue;
        }
        apply_fault(p, &f[x], e, reg, r, c, step);
    }
}

/* a FT_REGION_PANEL fault planned on this process for this call and step (not taken) */
static int panel_planned(const pq_t *p, int64_t call, int64_t step)
{
    for (int x = 0; x < p->ctx->nfaults; x++) {
        const ft_fault_t *f = &p->ctx->faults[x];
        if (f->region == FT_REGION_PANEL && f->call == call && (f->step < 0 || f->step == step))
            return 1;
    }
    return 0;
}

/* The setup, in one pass over the caller's local array: W := A (the columns W shares with A,
 * all local rows; W's checksum columns zeroed), and from sub(A) the per-column 1-norms and
 * maxima (the thresholds) and the unscaled sums X = sub(A) [e, w] per block (the checksum
 * blocks, with sigma = 1). Then the norms and maxima over the grid give sigma (scaled checksums
 * when n max|a| is near the overflow threshold, as ft_dgeqrf) and the thresholds; X over the
 * grid (or, when sigma != 1, formed again from W by trap_sums) is CK: written into W's checksum
 * columns and kept as the first hC. This replaces a PDLACPY, a pass for the norms, a PDGEMM for
 * CK and a gather of it (0.07 s of 1.3 at 4096 on 2 x 2: bench/NOTES.md). Returns FT_SUCCESS,
 * or FT_ERR_UNCHECKED when the thresholds are not finite (W and CK are set up either way). */
/* one run of len rows of a column of sub(A): copied into w, its contributions to the three
 * sums at the run's rows, *s1 += its 1-norm and *mx := the maximum of *mx and its largest
 * magnitude (NaN when an element is NaN) */
FT_SIMD_CLONES static void setup_run(int64_t len, const double *restrict a, double *restrict w,
                                     double ww, double wv, double *restrict xe,
                                     double *restrict xw, double *restrict xv, double *s1,
                                     double *mx)
{
    double ss = 0.0, mt = 0.0;
    int64_t k = 0;
#if FT_HAVE_VEC
    /* eight lanes of the norm and the maximum (vec.h: GCC left the scalar form of this loop
     * scalar — 1.2 % of a whole test_dist --bench 4096 run; lane u holds rows u mod 8, as that
     * form's s[u], mm[u] did: the same sums) */
    ft_v8d s = {0.0}, mm = {0.0};
    for (; k + 8 <= len; k += 8) {
        const ft_v8d v = ft_v8d_load(a + k), av = ft_v8d_abs(v);
        ft_v8d_store(w + k, v);
        s += av;
        mm = ft_v8d_max(mm, av);
        ft_v8d_store(xe + k, ft_v8d_load(xe + k) + v);
        ft_v8d_store(xw + k, ft_v8d_load(xw + k) + ww * v);
        ft_v8d_store(xv + k, ft_v8d_load(xv + k) + wv * v);
    }
#else
    double s[8] = {0.0}, mm[8] = {0.0};
    for (; k + 8 <= len; k += 8) /* eight lanes of the norm and the maximum */
        for (int u = 0; u < 8; u++) {
            const double v = a[k + u], av = fabs(v);
            w[k + u] = v;
            s[u] += av;
            mm[u] = av > mm[u] ? av : mm[u];
            xe[k + u] += v, xw[k + u] += ww * v, xv[k + u] += wv * v;
        }
#endif
    for (; k < len; k++) {
        const double v = a[k], av = fabs(v);
        w[k] = v;
        ss += av;
        mt = av > mt ? av : mt;
        xe[k] += v, xw[k] += ww * v, xv[k] += wv * v;
    }
    for (int u = 0; u < 8; u++) ss += s[u], mt = mm[u] > mt ? mm[u] : mt;
    if (ss != ss) mt = ss; /* a NaN (a sum of magnitudes is NaN only from a NaN element) */
    *s1 += ss;
    if (mt > *mx || mt != mt) *mx = mt;
}

#if FT_HAVE_VEC
/* setup_run for PQ_G = 4 consecutive local columns of one checksum block (a, w: the first; lda,
 * ldw apart): each row's three sums are read and written once a group, not once a column (the
 * per-column loop is bound by those reads and writes, as ft_pdgemm's sums were: bench/NOTES.md),
 * the columns added in their order; each column's norm and maximum as setup_run forms them (the
 * same bits). */
#define PQ_G 4
FT_SIMD_CLONES static void setup_run4(int64_t len, const double *restrict a, int64_t lda,
                                      double *restrict w, int64_t ldw, const double *restrict ww,
                                      const double *restrict wv, double *restrict xe,
                                      double *restrict xw, double *restrict xv,
                                      double *restrict s1, double *restrict mx)
{
    ft_v8d s[PQ_G], mm[PQ_G];
    for (int g = 0; g < PQ_G; g++) s[g] = mm[g] = (ft_v8d){0.0};
    int64_t k = 0;
    for (; k + 8 <= len; k += 8) {
        ft_v8d E = ft_v8d_load(xe + k), W = ft_v8d_load(xw + k), V = ft_v8d_load(xv + k);
        for (int g = 0; g < PQ_G; g++) {
            const ft_v8d v = ft_v8d_load(a + g * lda + k), av = ft_v8d_abs(v);
            ft_v8d_store(w + g * ldw + k, v);
            s[g] += av;
            mm[g] = ft_v8d_max(mm[g], av);
            E += v, W += ww[g] * v, V += wv[g] * v;
        }
        ft_v8d_store(xe + k, E), ft_v8d_store(xw + k, W), ft_v8d_store(xv + k, V);
    }
    double ss[PQ_G] = {0.0}, mt[PQ_G] = {0.0};
    for (; k < len; k++) {
        double e = xe[k], f = xw[k], h = xv[k];
        for (int g = 0; g < PQ_G; g++) {
            const double v = a[g * lda + k], av = fabs(v);
            w[g * ldw + k] = v;
            ss[g] += av;
            mt[g] = av > mt[g] ? av : mt[g];
            e += v, f += ww[g] * v, h += wv[g] * v;
        }
        xe[k] = e, xw[k] = f, xv[k] = h;
    }
    for (int g = 0; g < PQ_G; g++) {
        for (int u = 0; u < 8; u++) ss[g] += s[g][u], mt[g] = mm[g][u] > mt[g] ? mm[g][u] : mt[g];
        if (ss[g] != ss[g]) mt[g] = ss[g];
        s1[g] += ss[g];
        if (mt[g] > mx[g] || mt[g] != mt[g]) mx[g] = mt[g];
    }
}
#endif

typedef struct {
    pq_t *p;
    const double *A;
    int64_t lda;
    double *X, *part; /* part[2 (PQ_PARTS lj + q) ..]: part q's 1-norm and maximum of lj */
} su_t;

static void setup_work(void *arg, int t, int nt)
{
    const su_t *s = arg;
    pq_t *p = s->p;
    const int *d = p->dA;
    const int64_t m = p->m, n = p->n, lld = d[LLD_];
    const int q0 = PQ_PARTS * t / nt, q1 = PQ_PARTS * (t + 1) / nt;
    for (int64_t lj = 0; lj < p->W.lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], p->g.mycol, d[CSRC_], p->g.npcol) - (p->ja - 1);
        if (c < 0 || c >= n) continue;
        const double *a = s->A + lj * s->lda;
        double *w = p->W.a + lj * lld;
        const int64_t b = c / p->nbc;
        const double ww = abft_weight(c - b * p->nbc, p->Wb),
                     wv = abft_weight_perm(c - b * p->nbc, p->Wb);
        double *xe = s->X + PQ_NCS * b * m, *xw = xe + m, *xv = xw + m;
#if FT_HAVE_VEC
        if (lj + PQ_G <= p->W.lc) { /* four columns of this block at a time */
            const int64_t cl = dist_global(lj + PQ_G - 1, d[NB_], p->g.mycol, d[CSRC_],
                                           p->g.npcol) - (p->ja - 1);
            if (cl < n && cl / p->nbc == b) {
                double gw[PQ_G], gv[PQ_G];
                for (int g = 0; g < PQ_G; g++) {
                    const int64_t cg = dist_global(lj + g, d[NB_], p->g.mycol, d[CSRC_],
                                                   p->g.npcol) - (p->ja - 1) - b * p->nbc;
                    gw[g] = abft_weight(cg, p->Wb), gv[g] = abft_weight_perm(cg, p->Wb);
                }
                for (int q = q0; q < q1; q++) {
                    double s1[PQ_G] = {0.0}, mx[PQ_G] = {0.0};
                    for (int64_t k = part_run(p, q); k < part_run(p, q + 1); k++) {
                        const int64_t li = p->run[k], l = p->rowg[li];
                        setup_run4(p->run[k + 1] - li, a + li, s->lda, w + li, lld, gw, gv,
                                   xe + l, xw + l, xv + l, s1, mx);
                    }
                    for (int g = 0; g < PQ_G; g++)
                        s->part[2 * (PQ_PARTS * (lj + g) + q)] = s1[g],
                                   s->part[2 * (PQ_PARTS * (lj + g) + q) + 1] = mx[g];
                }
                lj += PQ_G - 1;
                continue;
            }
        }
#endif
        for (int q = q0; q < q1; q++) {
            double s1 = 0.0, mx = 0.0;
            for (int64_t k = part_run(p, q); k < part_run(p, q + 1); k++) {
                const int64_t li = p->run[k], l = p->rowg[li];
                setup_run(p->run[k + 1] - li, a + li, w + li, ww, wv, xe + l, xw + l, xv + l,
                          &s1, &mx);
            }
            s->part[2 * (PQ_PARTS * lj + q)] = s1, s->part[2 * (PQ_PARTS * lj + q) + 1] = mx;
        }
    }
}

static int setup_pass(pq_t *p, const double *A, int64_t lda)
{
    const dist_grid_t *g = &p->g;
    const int *d = p->dA; /* W's descriptor */
    const int64_t m = p->m, n = p->n, c2 = PQ_NCS * p->ncb, lr = p->W.lr, lld = d[LLD_];
    double *nr = calloc((size_t)(2 * n + 1), sizeof(double)); /* 1-norms, maxima */
    if (!nr) return FT_ERR_ALLOC;
    double *X = p->hX;
    memset(X, 0, sizeof(double) * (size_t)(m * c2));
    int64_t lo, hi;
    local_rows(p, 0, &lo, &hi);
    for (int64_t lj = 0; lj < p->W.lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], g->mycol, d[CSRC_], g->npcol) - (p->ja - 1);
        double *w = p->W.a + lj * lld;
        if (c >= n) { /* a checksum column */
            memset(w, 0, sizeof(double) * (size_t)lr);
            continue;
        }
        const double *a = A + lj * lda;
        if (c < 0) {
            memcpy(w, a, sizeof(double) * (size_t)lr);
            continue;
        }
        /* the rows outside sub(A) copied; those of sub(A) copied and summed by setup_work */
        memcpy(w, a, sizeof(double) * (size_t)lo);
        memcpy(w + hi, a + hi, sizeof(double) * (size_t)(lr - hi));
    }
    /* the rows of sub(A) on the host team, split by parts of the runs; each part's 1-norm and
     * maximum of each column, then summed in part order (the same bits whatever the threads) */
    double *part = malloc(sizeof(double) * (size_t)(2 * PQ_PARTS * (p->W.lc > 0 ? p->W.lc : 1)));
    if (!part) {
        free(nr);
        return FT_ERR_ALLOC;
    }
    su_t su = {.p = p, .A = A, .lda = lda, .X = X, .part = part};
    dist_team_par(setup_work, &su, (long long)(hi - lo) * p->W.lc);
    for (int64_t lj = 0; lj < p->W.lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], g->mycol, d[CSRC_], g->npcol) - (p->ja - 1);
        if (c < 0 || c >= n) continue;
        double s1 = 0.0, mx = 0.0;
        for (int q = 0; q < PQ_PARTS; q++) {
            const double ps = part[2 * (PQ_PARTS * lj + q)], pm = part[2 * (PQ_PARTS * lj + q) + 1];
            s1 += ps;
            if (pm > mx || pm != pm) mx = pm;
        }
        nr[c] = s1, nr[n + c] = mx;
    }
    free(part);
    nr[2 * n] = p->ctx->nfaults > 0; /* (with the maxima: no message of its own) */
    Cdgamx2d(g->ctxt, "All", " ", (int)n + 1, 1, nr + n, (int)n + 1, NULL, NULL, -1, -1, -1);
    p->anyf = nr[2 * n] > 0.0;
    double amax = 0.0;
    for (int64_t c = 0; c < n; c++)
        if (nr[n + c] > amax || nr[n + c] != nr[n + c]) amax = nr[n + c];
    p->sig = 1.0;
    if (isfinite(amax) && amax * (double)n > 0x1p1000)
        p->sig = ldexp(1.0, 1000 - (int)ceil(log2(amax * (double)n)));
    if (p->sig == 1.0) { /* the sums taken above are CK's (we = sigma = 1): one all-reduce */
        memcpy(X + m * c2, nr, sizeof(double) * (size_t)n); /* with the 1-norms after them */
        dist_allsum(g, X, m * c2 + n, 1);
        memcpy(nr, X + m * c2, sizeof(double) * (size_t)n);
    } else {
        dist_allsum(g, nr, n, 1);
    }
    int ok = isfinite(amax);
    for (int64_t b = 0; b < p->ncb; b++) {
        const int64_t j0 = b * p->nbc, j1 = j0 + p->nbc < n ? j0 + p->nbc : n;
        double sa = 0.0;
        for (int64_t c = j0; c < j1; c++) {
            const double n1 = nr[c], mx = nr[n + c];
            const double cn =
                isfinite(n1) || !isfinite(mx) ? sqrt(n1) * sqrt(mx) : sqrt((double)m) * mx;
            sa += (p->sig * ABFT_U) * cn;
        }
        p->thr[b] = sa; /* completed with ||A_b e|| below */
        if (!isfinite(sa)) ok = 0;
    }
    free(nr);
    if (p->sig != 1.0) trap_sums(p, 0, 0); /* X with the scaled weights, from W */
    /* CK := X: this process's elements of W's checksum columns, and the first hC */
    for (int64_t lj = 0; lj < p->W.lc; lj++) {
        const int64_t c = dist_global(lj, d[NB_], g->mycol, d[CSRC_], g->npcol) - (p->ja - 1);
        if (c < n || c >= n + c2) continue;
        double *w = p->W.a + lj * lld;
        const double *x = X + (c - n) * m;
        for (int64_t li = lo; li < hi; li++)
            if (p->rowg[li] >= 0) w[li] = x[p->rowg[li]];
    }
    memcpy(p->hC, X, sizeof(double) * (size_t)(m * c2));
    if (ok)
        for (int64_t b = 0; b < p->ncb; b++)
            p->thr[b] =
                abft_qr_tau(p->tol, m, n,
                            p->thr[b] + ABFT_U * abft_nrm2(m, p->hC + PQ_NCS * b * m));
    return ok ? FT_SUCCESS : FT_ERR_UNCHECKED;
}

/* Compare CK with X at boundary i. Returns 0 clean, else the number of failing checks; fills
 * loc[l + b m] = -1 pass, -2 checksum only (one of the three), -3 not one error in the row (the
 * ratio s/r out of the block or inconsistent with r, or the third residual t disagreeing with
 * the column it names: two errors, or one that is not finite; any failure of a row corrected
 * before, fixed[l + b m], checked at its clean level), else the located column (0-based in
 * sub(A)); and afit[b] = -1 when the block's aggregate test passes (||r||_2, ||s||_2, ||t||_2
 * <= agg tau: tau bounds the 2-norm of the rounding residual, so an error spread over many rows,
 * each below tau, still fails it — as ft_dgeqrf; agg is 1, or 1/2 after a correction or a
 * re-factorization in this call), else the column fitted over all rows, w = (s.r)/(r.r), that t
 * fits too: c, or c + n when c < i and the residual below its diagonal fails (consumed by its
 * panel), -2 for one checksum column alone, -3 when no column fits, -4 when none fits but
 * located failing rows may explain it (their correction is re-checked). */
static int64_t compare(pq_t *p, int64_t i, double agg, const unsigned char *fixed, int64_t *loc,
                       int64_t *afit)
{
    const int64_t m = p->m;
    trap_sums(p, i, p->r0);
    int64_t nf = 0;
    const int64_t V = abft_perm_den(p->Wb);
    for (int64_t b = 0; b < p->ncb; b++) {
        const int64_t w = p->nbc < p->n - b * p->nbc ? p->nbc : p->n - b * p->nbc;
        const double *ce = p->hC + PQ_NCS * b * m, *cw = ce + m, *cv = cw + m;
        const double *xe = p->hX + PQ_NCS * b * m, *xw = xe + m, *xv = xw + m;
        const double thr = p->thr[b];
        double *dr = p->hR, *ds = p->hR + m, *dt = p->hR + 2 * m;
        double noise = 0.0; /* the largest residual of the rows that pass, not corrected */
        for (int64_t l = 0; l < m; l++) {
            const double r = ce[l] - xe[l], s = cw[l] - xw[l], t = cv[l] - xv[l];
            dr[l] = r, ds[l] = s, dt[l] = t;
            const double a = fmax(fabs(r), fmax(fabs(s), fabs(t)));
            if (!(fixed && fixed[l + b * m]) && a <= thr && a > noise) noise = a;
        }
        for (int64_t l = 0; l < m; l++) {
            const double r = dr[l], s = ds[l], t = dt[l];
            /* a row corrected in place: its three residuals at the clean level, 16 times the
             * rounding the block's other rows measure (or 64 u its checksums), at most agg tau
             * — what is left above it is a second error that the rebuilt element absorbed,
             * (w_a - w_j) delta and (v_a - v_j) delta: not one error, re-factored (a clean
             * row above that level costs a re-factorization, never a wrong result) */
            const int fx = fixed && fixed[l + b * m];
            const double ck = fabs(ce[l]) + fabs(cw[l]) + fabs(cv[l]);
            const double rt = fx ? fmin(agg * thr, fmax(16.0 * noise, 64.0 * ABFT_U * ck)) : thr;
            const int fr = !(fabs(r) <= rt), fs = !(fabs(s) <= rt), ft = !(fabs(t) <= rt);
            int64_t v = -1;
            if (fr || fs || ft) {
                /* the plain check failing, with the three consistent with one error in column
                 * jj (a data error delta in (tau, tau / w_j] shows in s and t as w_j delta, v_j
                 * delta <= tau): data; the weighted or the third alone: the checksum (neither
                 * can come from data without r: w, v <= 1); else not one error */
                const int64_t jj =
                    isfinite(r) && isfinite(s) && r != 0.0 ? abft_locate(s / r, p->Wb) : -1;
                const int ok = jj >= 0 && jj < w && isfinite(t) &&
                               abft_consistent(r, s, jj, p->Wb, thr) &&
                               abft_consistent(r, t, abft_perm(jj, p->Wb), V, thr);
                v = fx                  ? -3
                    : fr && ok          ? b * p->nbc + jj
                    : fr + fs + ft == 1 ? -2
                                        : -3;
            }
            loc[l + b * m] = v;
            if (v != -1) nf++;
        }
        const double lim = agg * thr;
        const double nr = abft_nrm2(m, dr), ns = abft_nrm2(m, ds), nt = abft_nrm2(m, dt);
        afit[b] = -1;
        if (nr <= lim && ns <= lim && nt <= lim) continue;
        nf++;
        if ((nr > lim) + (ns > lim) + (nt > lim) == 1 &&
            (nr > lim || nr <= lim / 4) && (ns > lim || ns <= lim / 4) &&
            (nt > lim || nt <= lim / 4)) {
            afit[b] = -2; /* one checksum column of the block, spread by the updates */
            continue;
        }
        double rs = 0.0, rr = 0.0, mx = 0.0;
        for (int64_t l = 0; l < m; l++) mx = fabs(dr[l]) > mx ? fabs(dr[l]) : mx;
        const double sc = mx > 0.0 && isfinite(mx) ? 1.0 / mx : 0.0; /* no overflow in r.r */
        for (int64_t l = 0; l < m; l++)
            rs += (sc * dr[l]) * (sc * ds[l]), rr += (sc * dr[l]) * (sc * dr[l]);
        const int64_t jj = rr > 0.0 && isfinite(rs / rr) ? abft_locate(rs / rr, p->Wb) : -1;
        afit[b] = -3;
        int64_t rows = 0; /* failing rows that were located: they may explain the aggregate */
        for (int64_t l = 0; l < m; l++) rows += loc[l + b * m] >= 0;
        if (jj >= 0 && jj < w) {
            const double wj = abft_weight(jj, p->Wb), vj = abft_weight_perm(jj, p->Wb);
            for (int64_t l = 0; l < m; l++) ds[l] -= wj * dr[l], dt[l] -= vj * dr[l];
            const double fl = 2.0 * lim + nr / (4.0 * (double)p->Wb);
            if (abft_nrm2(m, ds) <= fl && abft_nrm2(m, dt) <= fl) {
                const int64_t c = b * p->nbc + jj;
                afit[b] = c;
                /* in a finished column, residual below its diagonal: consumed by its panel
                 * (marked c + n); at and above it: an error in R itself */
                if (c < i && c + 1 < m && abft_nrm2(m - c - 1, dr + c + 1) > lim)
                    afit[b] = c + p->n;
            }
        }
        if (afit[b] == -3 && rows) afit[b] = -4; /* left to the rows; the re-check decides */
    }
    return nf;
}

/* dst := src for this process's elements of sub(A)'s columns from c0 on (dst and src the
 * same layout but their leading dimensions: W's local indices are A's, docs/dist.md) — what
 * PDLACPY does for two arrays of one distribution, without its per-block calls */
typedef struct {
    const pq_t *p;
    double *dst;
    const double *src;
    int64_t ldd, lds, l0, l1;
} cl_t;

static void copy_work(void *arg, int t, int nt)
{
    const cl_t *a = arg;
    const pq_t *p = a->p;
    const size_t len = sizeof(double) * (size_t)(p->vb - p->va);
    const int64_t nl = a->l1 - a->l0;
    for (int64_t lj = a->l0 + nl * t / nt; lj < a->l0 + nl * (t + 1) / nt; lj++)
        memcpy(a->dst + lj * a->ldd + p->va, a->src + lj * a->lds + p->va, len);
}

static void copy_local(const pq_t *p, double *dst, int64_t ldd, const double *src, int64_t lds,
                       int64_t c0)
{
    if (p->vb <= p->va) return;
    cl_t a = {.p = p, .dst = dst, .src = src, .ldd = ldd, .lds = lds};
    local_cols(p, c0, p->n, &a.l0, &a.l1);
    dist_team_par(copy_work, &a, (long long)(p->vb - p->va) * (a.l1 - a.l0)); /* by columns */
}

/* restore the columns [ps, n) from the copy, apply the reflectors of [0, ps), form CK again */
static int refactor_from(pq_t *p, int64_t ps, int64_t step)
{
    /* the reflectors of [0, ps) are applied again: against their checkpoint first */
    FT_CHECK(ckp_verify(p, step, 0));
    p->ckdone = ps < p->ckdone ? ps : p->ckdone; /* the panels from ps on are factored again */
    p->r0 = 0; /* CK formed again: the next verification reads every row */
    const int nc = (int)(p->n - ps), jc = p->ja + (int)ps;
    copy_local(p, p->A, p->dA[LLD_], p->A0.a, p->A0.desc[LLD_], ps);
    encode(p, p->A0.a, p->A0.desc);
    const int k = (int)ps, c2 = (int)(PQ_NCS * p->ncb);
    /* the columns and the checksum blocks right after them in W: one call */
    return ormqr(p, p->m, nc + c2, k, p->ia, p->ja, p->A, p->ia, jc, p->dA);
}

/* va, vb and the runs, from rowg (lr local rows) */
static int make_runs(pq_t *p, int64_t lr)
{
    int64_t a = 0, b;
    while (a < lr && p->rowg[a] < 0) a++;
    b = a;
    while (b < lr && p->rowg[b] >= 0) b++;
    p->va = a, p->vb = b;
    int64_t nr = 0;
    for (int64_t li = a; li < b; li++) nr += li == a || p->rowg[li] != p->rowg[li - 1] + 1;
    p->run = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    if (!p->run) return FT_ERR_ALLOC;
    p->nrun = 0;
    for (int64_t li = a; li < b; li++)
        if (li == a || p->rowg[li] != p->rowg[li - 1] + 1) p->run[p->nrun++] = li;
    p->run[p->nrun] = b;
    return FT_SUCCESS;
}

static int run(pq_t *p)
{
    const dist_grid_t *g = &p->g;
    const int64_t m = p->m, n = p->n, kk = p->k, c2 = PQ_NCS * p->ncb;
    const int64_t call = p->ctx->ncalls++;
    int st;
    double tp = 0.0, t0 = ft_wtime();
    /* the work array W: the caller's global layout (M_, MB_, NB_, RSRC_, CSRC_ of descA, so that
     * W's local indices, tau's included, are A's) with the checksum blocks CK as 3B more columns
     * right after sub(A), global columns ckc = ja - 1 + n on: each panel's PDLARFB updates the
     * trailing matrix and the checksums in one call (separate calls on CK cost ~10 % of the
     * factorization at 4096 on 2 x 2: bench/NOTES.md). The caller's A stays untouched until the
     * result is copied back (ft_pdgeqrf_ex): it is the pristine copy A0. */
    {
        const int *da = p->dA;
        const int M = da[M_], NW = p->ja - 1 + (int)(n + c2);
        const int lr = dist_numroc(M, da[MB_], g->myrow, da[RSRC_], g->nprow);
        const int lc = dist_numroc(NW, da[NB_], g->mycol, da[CSRC_], g->npcol);
        int lld = lr > 1 ? lr : 1, info = 0;
        descinit_(p->W.desc, &M, &NW, &da[MB_], &da[NB_], &da[RSRC_], &da[CSRC_], &g->ctxt, &lld,
                  &info);
        if (info) return FT_ERR_INTERNAL;
        p->W.lr = lr, p->W.lc = lc;
        /* from the context's host arena: cached between calls like the single-node routines'
         * work memory (blocks up to FT_ARENA_KEEP), so that a call does not pay the page faults
         * of a fresh local matrix (~0.02-0.05 s at 4096 on 2 x 2: bench/NOTES.md) */
        void *w = p->uw; /* the caller's work, when its LWORK holds W (w_elems) */
        const ft_backend_t *hb = ft_backend_host();
        if (!w && (st = ft_arena_alloc(&p->ctx->work[ft_backend_index(hb)], hb, 0,
                                       sizeof(double) * (size_t)lld * (size_t)(lc > 1 ? lc : 1),
                                       &w)))
            return st;
        p->W.a = w;
        p->A0.a = p->A;
        memcpy(p->A0.desc, da, sizeof p->A0.desc);
        p->A = p->W.a, p->dA = p->W.desc;
        p->CK.a = p->W.a;
        memcpy(p->CK.desc, p->W.desc, sizeof p->CK.desc);
        p->ckc = p->ja - 1 + (int)n;
    }
    const int *d = p->dA;
    /* E: n x 3B */
    if ((st = dist_mat_alloc(g, (int)n, (int)c2, d[NB_], PQ_NCS, &p->E))) return st;
    {
        const int lr = dist_numroc(d[M_], d[MB_], g->myrow, d[RSRC_], g->nprow);
        p->rowg = malloc(sizeof(int64_t) * (size_t)(lr > 1 ? lr : 1));
        if (!p->rowg) return FT_ERR_ALLOC;
        for (int64_t li = 0; li < lr; li++) {
            const int64_t l = dist_global(li, d[MB_], g->myrow, d[RSRC_], g->nprow) - (p->ia - 1);
            p->rowg[li] = l >= 0 && l < m ? l : -1;
        }
        if ((st = make_runs(p, lr))) return st;
    }
    /* hX: X, then n spare numbers (the setup's all-reduce carries the 1-norms there), hC, hR;
     * hB. From the context's host arena, as W: kept between calls, so that a call does not
     * fault in their ~3.5 MB afresh (4096, 2 x 2; as ft_pdgemm's scratch, bench/NOTES.md) */
    {
        const ft_backend_t *hb = ft_backend_host();
        ft_arena_t *ar = &p->ctx->work[ft_backend_index(hb)];
        void *x = NULL, *y = NULL;
        if (ft_arena_alloc(ar, hb, 0,
                           sizeof(double) * (size_t)(2 * m * c2 + n + PQ_NCS * m) +
                               sizeof(int64_t) * (size_t)(m * p->ncb + p->ncb) +
                               (size_t)(m * p->ncb),
                           &x) ||
            ft_arena_alloc(ar, hb, 0, sizeof(double) * (size_t)(2 * m * c2 > 0 ? 2 * m * c2 : 1),
                           &y))
            return FT_ERR_ALLOC;
        p->hX = x, p->hB = y;
    }
    p->thr = malloc(sizeof(double) * (size_t)p->ncb);
    if (!p->hX || !p->hB || !p->thr) return FT_ERR_ALLOC;
    {
        const int lc = dist_numroc(d[N_], d[NB_], g->mycol, d[CSRC_], g->npcol),
                  l1 = lc > 1 ? lc : 1;
        p->ck = malloc(sizeof(uint64_t) * (size_t)(2 * CKP_NS * l1));
        p->tau1 = malloc(sizeof(double) * (size_t)(2 * l1));
        if (!p->ck || !p->tau1) return FT_ERR_ALLOC;
        p->cknow = p->ck + CKP_NS * l1, p->tau2 = p->tau1 + l1;
        p->vk = malloc(sizeof(uint64_t) * (size_t)(2 * d[NB_]));
        if (!p->vk) return FT_ERR_ALLOC;
        p->vr = p->vk + d[NB_];
        p->iu = -1;
        p->ckdone = 0;
    }
    p->hC = p->hX + m * c2 + n, p->hR = p->hC + m * c2;
    int64_t *loc = (int64_t *)(p->hR + PQ_NCS * m), *afit = loc + m * p->ncb;
    unsigned char *fixed = (unsigned char *)(afit + p->ncb); /* rows corrected in place */
    const int checkable = (st = setup_pass(p, p->A0.a, p->A0.desc[LLD_])) == FT_SUCCESS;
    if (st && st != FT_ERR_UNCHECKED) return st;
    p->pf[PF_SETUP] += ft_wtime() - t0;
    p->r0 = 0;
    for (int64_t lj = 0; lj < p->E.lc; lj++) {
        const int64_t c = dist_global(lj, PQ_NCS, g->mycol, 0, g->npcol), b = c / PQ_NCS;
        for (int64_t li = 0; li < p->E.lr; li++) {
            const int64_t j = dist_global(li, d[NB_], g->myrow, 0, g->nprow);
            if (j / p->nbc != b) continue;
            p->E.a[li + lj * p->E.desc[LLD_]] =
                c % PQ_NCS == 0   ? p->sig
                : c % PQ_NCS == 1 ? p->sig * abft_weight(j - b * p->nbc, p->Wb)
                                  : p->sig * abft_weight_perm(j - b * p->nbc, p->Wb);
        }
    }
    if (!checkable && p->root) p->rep->unchecked++;
    tp += ft_wtime() - t0;
    p->pf[PF_WEIGHTS] += ft_wtime() - t0 - p->pf[PF_SETUP];

    int refactors = 0, status = FT_SUCCESS;
    int64_t step = 0;
    for (int64_t j = 0; j < kk;) {
        const int64_t jb0 = d[NB_] - (p->ja - 1 + j) % d[NB_];
        const int64_t jb = jb0 < kk - j ? jb0 : kk - j;
        if (p->ctx->nfaults) inject(p, call, step, j);
        int info = 0;
        const int mi = (int)(m - j), jbi = (int)jb, iaj = p->ia + (int)j, jaj = p->ja + (int)j;
        const double tpn = ft_wtime();
        /* a planned panel fault anywhere: every process factors this panel in two halves, the
         * first's reflectors applied to the second before it, with the fault in between */
        int half = 0;
        if (p->anyf) {
            double v = panel_planned(p, call, step);
            Cdgamx2d(g->ctxt, "All", " ", 1, 1, &v, 1, NULL, NULL, -1, -1, -1);
            half = v > 0.0 ? jbi / 2 : 0;
            /* (a panel of one column: the fault before its factorization, as ft_dgeqrf's) */
            if (v > 0.0 && !half) inject_step(p, call, step, FT_REGION_PANEL, j, jb);
        }
        /* the panel by PDGEQR2, as PDGEQRF factors its panels: PDGEQRF itself would check its
         * arguments over the whole grid (PCHK1MAT: a broadcast and an all-reduce) every panel,
         * a synchronization of every process the engine's own loop does not have */
        if (half) {
            const int h2 = jbi - half, jah = jaj + half, mh = mi - half, iah = iaj + half;
            pdgeqr2_(&mi, &half, p->A, &iaj, &jaj, d, p->tau, p->work, &p->lwork, &info);
            if (info || ormqr(p, mi, h2, half, iaj, jaj, p->A, iaj, jah, d)) return FT_ERR_INTERNAL;
            inject_step(p, call, step, FT_REGION_PANEL, j, jb);
            pdgeqr2_(&mh, &h2, p->A, &iah, &jah, d, p->tau, p->work, &p->lwork, &info);
        } else {
            pdgeqr2_(&mi, &jbi, p->A, &iaj, &jaj, d, p->tau, p->work, &p->lwork, &info);
        }
        if (info) return FT_ERR_INTERNAL;
        {
            const double tc = ft_wtime();
            p->pf[PF_PANEL] += tc - tpn;
            tau_keep(p, j, j + jb);
            inuse_keep(p, j, j + jb);
            tp += ft_wtime() - tc;
            p->pf[PF_CKP] += ft_wtime() - tc;
        }
        if (p->ctx->nfaults) inject_step(p, call, step, FT_REGION_REFLECTORS, j, jb);
        const double tu = ft_wtime();
        /* the panel's block reflector (T once) on the trailing matrix and on the checksums, as
         * PDGEQRF does it (PDORMQR with k <= NB would apply the reflectors one at a time) */
        /* the trailing matrix and the checksum blocks after it in W: nt + 3B columns, one call */
        const int ntc = (int)(n - j - jb + c2), jat = jaj + jbi;
        double *T = p->work, *w2 = p->work + (size_t)d[NB_] * d[NB_];
        pdlarft_("F", "C", &mi, &jbi, p->A, &iaj, &jaj, d, p->tau, T, w2, 1, 1);
        const uint64_t tseal = t_owner(p, j) ? t_seal(T, jb, d[NB_]) : 0;
        if (p->ntf) inject_t(p, step, j, jb, T);
        pdlarfb_("L", "T", "F", "C", &mi, &ntc, &jbi, p->A, &iaj, &jaj, d, T, p->A, &iaj, &jat, d,
                 w2, 1, 1, 1, 1);
        p->pf[PF_UPDATE] += ft_wtime() - tu;
        {
            const double tc = ft_wtime();
            inuse_check(p, j, j + jb, step);
            if (checkable) t_check(p, j, jb, T, step, tseal);
            tp += ft_wtime() - tc;
            p->pf[PF_CKP] += ft_wtime() - tc;
        }
        j += jb, step++;
        if (!checkable) continue;

        /* policy.verify_every: after every q-th panel step, or (q = 0, the default, as
         * ft_dgeqrf) at the end only — an error a panel consumed in between is re-factored
         * from that panel then */
        if (j < kk && (p->q == 0 || step % p->q != 0)) continue;
        const double t1 = ft_wtime();
        if (j >= kk) p->r0 = 0; /* the last verification reads every row */
        const int64_t r0 = p->r0;
        /* the first panel whose reflectors changed while its update used them (inuse_check),
         * over the grid: the columns after it are re-factored */
        int64_t psu = -1;
        {
            double v = p->iu >= 0 ? (double)(n - p->iu) : -1.0;
            Cdgamx2d(g->ctxt, "All", " ", 1, 1, &v, 1, NULL, NULL, -1, -1, -1);
            if (v >= 0.0) psu = n - (int64_t)v;
        }
        /* round 0: the checks at tau; what they locate is corrected in place and round 1
         * verifies it, the aggregates and the corrected rows at tau / 2 (verify) */
        int refactored = 0;
        int64_t nfixed = 0; /* corrected in round 0: counted once round 1 passes */
        memset(fixed, 0, (size_t)(m * p->ncb));
        /* round 0's changes, undone when round 1 re-factors instead: a rebuilt element took its
         * row's whole residual, and with it the row's share of an error that the
         * re-factorization removes (an error spread down a column by the updates, found by the
         * aggregate at tau / 2): the next verification locates it again without that share —
         * before[x] the element's value, fcol[x] its column (-1: none), cadd[x] what a column
         * correction added to row x % m of block x / m's column ccol[b] */
        double *before = NULL, *cadd = NULL;
        int64_t *fcol = NULL, *ccol = NULL;
        for (int round = 0; round < 2; round++) {
            const int64_t nf =
                compare(p, j, round || refactors ? 0.5 : 1.0, round ? fixed : NULL, loc, afit);
            if (!nf && psu < 0) {
                if (p->root) p->rep->corrected += nfixed;
                break;
            }
            /* an error not correctable in place: re-factor from the first panel it reached —
             *  - consumed (a row or a block's fit pointing into a finished panel below its
             *    diagonal): that panel;
             *  - not one error in a row (-3): the panel of the row's first checked column of
             *    the block, min(l, j) on (R's row l starts at its diagonal; below j, the
             *    columns before j hold V), at most the last panel factored */
            int64_t ps = -1, nloc = 0, bad = 0, nck = 0;
            for (int64_t x = 0; nf && x < m * p->ncb + p->ncb; x++) {
                const int agg = x >= m * p->ncb;
                const int64_t b = agg ? x - m * p->ncb : x / m;
                int64_t c = agg ? afit[b] : loc[x], l = agg ? 0 : x % m;
                if (agg && c >= n) c -= n, l = m; /* consumed (compare) */
                if (c == -1 || c == -4) continue;
                if (c == -2) {
                    nck++;
                    continue;
                }
                if (c == -3 && agg) {
                    bad++;
                    continue;
                }
                if (c == -3) { /* not one error in row l of block b */
                    int64_t c0 = b * p->nbc > (l < j ? l : j) ? b * p->nbc : (l < j ? l : j);
                    if (c0 >= n || c0 >= (b + 1) * p->nbc) c0 = b * p->nbc;
                    c = c0 < j - 1 ? c0 : j - 1, l = m; /* (as a consumed one: l > c) */
                } else if (!agg) {
                    nloc++;
                }
                if (c < j && l > c) {
                    const int64_t pc = c - (p->ja - 1 + c) % d[NB_]; /* its panel's first column */
                    const int64_t s0 = pc < 0 ? 0 : pc;
                    if (ps < 0 || s0 < ps) ps = s0;
                }
            }
            if (p->root && round == 0) p->rep->detected += (nloc || ps >= 0 ? 1 : 0) + bad;
            if (psu >= 0 && (ps < 0 || psu < ps)) ps = psu; /* (detected where it was found) */
            if (ps >= 0 && refactors < 3) {
                refactors++;
                for (int64_t x = 0; before && x < m * p->ncb; x++) {
                    double *e = fcol[x] < 0 ? NULL
                                            : dist_elem(g, p->A, d, p->ia - 1 + x % m,
                                                        p->ja - 1 + fcol[x]);
                    if (e) *e = before[x];
                    const int64_t cc = ccol[x / m];
                    e = cc < 0 ? NULL : dist_elem(g, p->A, d, p->ia - 1 + x % m, p->ja - 1 + cc);
                    if (e) *e -= cadd[x];
                }
                ft_log(p->ctx, 2,
                       "pdgeqrf: %s at column %lld: re-factoring from it",
                       round ? "an error left after the correction"
                             : "an error consumed by a panel, or two in a row,",
                       (long long)ps);
                const double tr = ft_wtime();
                if ((st = refactor_from(p, ps, step))) {
                    free(before);
                    return st;
                }
                p->iu = -1; /* (ps <= psu: the columns after that panel too) */
                if (p->root) {
                    p->rep->located++, p->rep->recovered++, p->rep->corrected++;
                    p->rep->recovery |= 2;
                    if (p->rep->refactor_col < 0 || ps < p->rep->refactor_col)
                        p->rep->refactor_col = ps;
                    p->rep->refactor_flops += 4.0 * (double)m * (double)ps * (double)(n - ps);
                    ft_report_event(p->rep, FT_EVENT_RECOVERED, FT_REGION_TRAILING, -1, ps, step,
                                    2.0, 2.0);
                }
                p->rep->time_recovery += ft_wtime() - tr;
                step = 0; /* steps count from the restart; faults are planned per step */
                for (int64_t q = 0; q < ps;) { /* the step index of the panel at ps */
                    const int64_t b0 = d[NB_] - (p->ja - 1 + q) % d[NB_];
                    q += b0 < kk - q ? b0 : kk - q;
                    step++;
                }
                j = ps;
                refactored = 1;
                break;
            }
            if (ps >= 0) bad++, nloc = 0; /* the same error again: give up */
            if (round > 0 || bad) { /* still wrong after the correction, or not correctable */
                if (p->root) p->rep->uncorrectable += (round > 0 ? nf : 0) + bad;
                status = FT_ERR_UNCORRECTABLE;
                ft_log(p->ctx, 1, "pdgeqrf: %lld check(s) failing%s at step %lld",
                       (long long)((round > 0 ? nf : 0) + bad),
                       round > 0 ? " after correction" : "", (long long)step);
                break;
            }
            /* in place (R, R12, the trailing matrix):
             *  - each located element is rebuilt from its row check: set to 0, the sums formed
             *    again, A(l, c) = (CK - X)(l) / sigma (an element that dominates its row — Inf,
             *    NaN, an exponent flip — leaves no rounding of it behind);
             *  - an error an update spread down a trailing column c (a block's fit at c >= i,
             *    with no failing row or with two or more pointing to c): the rows below tau
             *    too, A(l, c) += r_l / sigma;
             *  - a checksum row hit alone is formed again from X. */
            before = malloc(sizeof(double) * (size_t)(2 * m * p->ncb) +
                            sizeof(int64_t) * (size_t)(m * p->ncb + p->ncb));
            if (!before) return FT_ERR_ALLOC;
            cadd = before + m * p->ncb, fcol = (int64_t *)(cadd + m * p->ncb);
            ccol = fcol + m * p->ncb;
            for (int64_t x = 0; x < m * p->ncb; x++) fcol[x] = -1, cadd[x] = 0.0;
            for (int64_t b = 0; b < p->ncb; b++) ccol[b] = -1;
            int64_t ncol = 0;
            for (int64_t b = 0; b < p->ncb; b++) {
                const int64_t c = afit[b];
                if (c == -2) { /* a checksum column spread over rows: the block formed again */
                    for (int64_t l = 0; l < m; l++)
                        for (int h = 0; h < PQ_NCS; h++) {
                            double *e = dist_elem(g, p->CK.a, p->CK.desc, p->ia - 1 + l,
                                                  p->ckc + PQ_NCS * b + h);
                            if (e) *e = p->hX[l + (PQ_NCS * b + h) * m];
                        }
                    continue;
                }
                if (c < 0 || c >= n) continue;
                /* every located row of the block points to c: the whole column (an error an
                 * update spread leaves rows below tau that one row's correction would not
                 * touch; for a single element the others' residuals are rounding) */
                int other = 0;
                for (int64_t l = 0; l < m; l++) other |= loc[l + b * m] >= 0 && loc[l + b * m] != c;
                if (other) continue;
                ccol[b] = c;
                for (int64_t l = 0; l < m; l++) {
                    if (loc[l + b * m] != -1 || (c < j && l > c)) continue; /* R's rows only */
                    const double r = p->hC[l + PQ_NCS * b * m] - p->hX[l + PQ_NCS * b * m];
                    double *e = dist_elem(g, p->A, d, p->ia - 1 + l, p->ja - 1 + c);
                    if (e) *e += r / p->sig, cadd[l + b * m] = r / p->sig;
                }
                ncol++;
                if (p->root)
                    ft_report_event(p->rep, FT_EVENT_CORRECTED, FT_REGION_TRAILING, -1, c, step,
                                    0.0, 0.0);
            }
            for (int64_t x = 0; x < m * p->ncb; x++) {
                const int64_t l = x % m, b = x / m, c = loc[x];
                if (c == -2) {
                    for (int h = 0; h < PQ_NCS; h++) {
                        double *e = dist_elem(g, p->CK.a, p->CK.desc, p->ia - 1 + l,
                                              p->ckc + PQ_NCS * b + h);
                        if (e) *e = p->hX[l + (PQ_NCS * b + h) * m];
                    }
                } else if (c >= 0) {
                    double *e = dist_elem(g, p->A, d, p->ia - 1 + l, p->ja - 1 + c);
                    if (e) before[x] = *e, *e = 0.0;
                    fixed[x] = 1, fcol[x] = c;
                }
            }
            if (nloc) trap_sums(p, j, p->r0);
            for (int64_t x = 0; x < m * p->ncb && nloc; x++) {
                const int64_t l = x % m, b = x / m, c = loc[x];
                if (c < 0) continue;
                double *e = dist_elem(g, p->A, d, p->ia - 1 + l, p->ja - 1 + c);
                if (e) {
                    *e = (p->hC[l + PQ_NCS * b * m] - p->hX[l + PQ_NCS * b * m]) / p->sig;
                    ft_report_event(p->rep, FT_EVENT_CORRECTED,
                                    l < j ? FT_REGION_R : FT_REGION_TRAILING, l, c, step, before[x],
                                    *e);
                }
            }
            if (p->root) p->rep->checksum_errors += nck ? 1 : 0, p->rep->located += nloc + ncol;
            nfixed = nloc + ncol;
            psu = -1;
        }
        free(before);
        if (refactored) {
            tp += ft_wtime() - t1;
            p->pf[PF_VERIFY] += ft_wtime() - t1;
            continue;
        }
        if (status) {
            tp += ft_wtime() - t1;
            p->pf[PF_VERIFY] += ft_wtime() - t1;
            break;
        }
        if (p->root) p->rep->checks += (m - r0) * p->ncb;
        p->r0 = j; /* rows above j are final: the next verification reads rows from j on */
        tp += ft_wtime() - t1;
        p->pf[PF_VERIFY] += ft_wtime() - t1;
    }
    { /* the Householder vectors and tau against their checkpoint */
        const double tc = ft_wtime();
        /* (with a panel whose reflectors changed in use and were not re-factored after: no
         * verification ran since — unchecked thresholds — so the result is reported) */
        const int sq = ckp_verify(p, step, p->iu >= 0);
        if (sq && !status) status = sq;
        tp += ft_wtime() - tc;
        p->pf[PF_CKP] += ft_wtime() - tc;
    }
    p->rep->time_protect += tp;
    return status;
}

/* the local elements of the work array W (run(): the caller's rows, ja - 1 + n + c2 columns) */
static int64_t w_elems(const dist_grid_t *g, const int *da, int ja, int64_t n, int64_t c2)
{
    const int NW = ja - 1 + (int)(n + c2);
    const int lr = dist_numroc(da[M_], da[MB_], g->myrow, da[RSRC_], g->nprow);
    const int lc = dist_numroc(NW, da[NB_], g->mycol, da[CSRC_], g->npcol);
    return (int64_t)(lr > 1 ? lr : 1) * (lc > 1 ? lc : 1);
}

static int check_args(const dist_grid_t *g, int m, int n, int ia, int ja, const int *dA, int lwork,
                      int *lwmin)
{
    if (m < 0) return -1;
    if (n < 0) return -2;
    int st = dist_check_desc(g, dA, 6, ia, 4, ja, 5, m, n);
    if (st) return st;
    /* PDGEQRF's minimum: NB_A (Mp0 + Nq0 + NB_A) */
    const int nb = dA[NB_], mb = dA[MB_];
    const int iroff = (ia - 1) % mb, icoff = (ja - 1) % nb;
    const int iarow = dist_owner(ia - 1, mb, dA[RSRC_], g->nprow);
    const int iacol = dist_owner(ja - 1, nb, dA[CSRC_], g->npcol);
    const int mp0 = dist_numroc(m + iroff, mb, g->myrow, iarow, g->nprow);
    const int nq0 = dist_numroc(n + icoff, nb, g->mycol, iacol, g->npcol);
    *lwmin = nb * (mp0 + nq0 + nb);
    if (lwork != -1 && lwork < *lwmin) return -9;
    return 0;
}

int ft_pdgeqrf_ex(ft_context_t *ctx, int m, int n, double *A, int ia, int ja, const int *descA,
                  double *tau, double *work, int lwork, int *info, ft_report_t *report)
{
    ft_report_t local;
    ft_report_t *rep = report ? report : &local;
    ft_report_init(rep, FT_DEVICE_CPU);
    rep->refactor_col = -1;
    int dummy = 0;
    if (!info) info = &dummy;
    *info = 0;
    if (!ctx) ctx = ft_default_context();
    if (!ctx) return FT_ERR_ALLOC;
    const double t0 = ft_wtime();
    pq_t p;
    memset(&p, 0, sizeof p);
    if (!descA) return *info = -6;
    if (dist_grid(descA[CTXT_], &p.g)) return *info = -602;
    int lwmin = 1;
    int st = check_args(&p.g, m, n, ia, ja, descA, lwork, &lwmin);
    if (st) {
        const int e = -st;
        pxerbla_(&p.g.ctxt, "FT_PDGEQRF", &e, 10);
        *info = st;
        return rep->status = st;
    }
    /* the work of the loop: PDGEQRF's minimum (T and PDLARFB's work; PDGEQR2's is less), computed
     * here rather than asked for (a query checks the arguments over the whole grid: two more
     * collectives a call), + T again, and PDLARFB's work on the 3B checksum columns beside the
     * trailing matrix (their local count rounded up by a block); a re-factorization's PDORMQR
     * asks for its own (ormqr). With W before it (w_elems), the optimal LWORK: a caller's work
     * that large holds both, so that no call allocates (or page-faults) its own copy of the
     * local matrix — a W over the context's cached blocks (FT_ARENA_KEEP) is otherwise
     * allocated afresh every call. The minimum stays PDGEQRF's (W then from the arena). */
    const int64_t nbc = abft_qr_check_width(n), ncb = (n + nbc - 1) / nbc;
    const int64_t lwi = lwmin + 2 * (int64_t)descA[NB_] * descA[NB_] +
                        (int64_t)descA[NB_] * (PQ_NCS * ncb) + 64,
                  lwopt = lwi + w_elems(&p.g, descA, ja, n, PQ_NCS * ncb) + 8;
    if (lwork == -1) { /* PDGEQRF's own answer, or W and the loop's work in one (lwopt) */
        pdgeqrf_(&m, &n, A, &ia, &ja, descA, tau, work, &lwork, info);
        if (lwopt <= INT_MAX && (double)lwopt > work[0]) work[0] = (double)lwopt;
        return rep->status = 0;
    }
    const int k = m < n ? m : n;
    if (k == 0) return rep->status = 0;
    const int root = p.g.myrow == 0 && p.g.mycol == 0;
    if (ctx->policy.protect == FT_PROTECT_OFF) {
        pdgeqrf_(&m, &n, A, &ia, &ja, descA, tau, work, &lwork, info);
        if (root) rep->unchecked++;
        dist_report_reduce(&p.g, rep);
        rep->time_total = ft_wtime() - t0;
        return rep->status = *info ? FT_ERR_INTERNAL : 0;
    }
    p.ctx = ctx, p.rep = rep, p.m = m, p.n = n, p.ia = ia, p.ja = ja, p.k = k;
    p.A = A, p.tau = tau, p.dA = descA, p.root = root;
    p.nbc = nbc, p.ncb = ncb;
    p.Wb = abft_wden(p.nbc < n ? p.nbc : n);
    p.tol = ctx->policy.tol > 0.0 ? ctx->policy.tol : 2.0;
    p.q = ctx->policy.verify_every > 0 ? ctx->policy.verify_every : 0;
    p.lwork = (int)lwi;
    if (work && lwork >= lwopt) { /* the caller's work: W from its first 64-byte boundary (as
                                   * the arena's blocks: a column of W misaligned by 16 bytes cost
                                   * ~2 ms a call at 4096 on 2 x 2 in split vector loads), then
                                   * the loop's work */
        const size_t off = (64 - (uintptr_t)work % 64) % 64 / sizeof(double);
        p.uw = work + off, p.work = work + (lwopt - lwi);
    }
    else
        p.work = malloc(sizeof(double) * (size_t)p.lwork);
    const ft_backend_t *hb = ft_backend_host();
    const int mark = ft_arena_mark(&ctx->work[ft_backend_index(hb)]);
    if (p.work) {
        /* the broadcast topologies PDGEQRF's loop uses (rowwise 'I-ring': the panel's reflectors
         * go round the process row as PDLARFB needs them), restored after */
        char rtop = ' ', ctop = ' ';
        pb_topget_(&p.g.ctxt, "B", "R", &rtop);
        pb_topget_(&p.g.ctxt, "B", "C", &ctop);
        pb_topset_(&p.g.ctxt, "B", "R", "I");
        pb_topset_(&p.g.ctxt, "B", "C", " ");
        st = run(&p);
        pb_topset_(&p.g.ctxt, "B", "R", &rtop);
        pb_topset_(&p.g.ctxt, "B", "C", &ctop);
    } else {
        st = FT_ERR_ALLOC;
    }
    const double to = ft_wtime();
    if (p.W.a && p.A0.a) { /* the result from W into the caller's A (the same layout: local) */
        copy_local(&p, p.A0.a, p.A0.desc[LLD_], p.W.a, p.W.desc[LLD_], 0);
    }
    p.pf[PF_COPYOUT] += ft_wtime() - to;
    rep->time_protect += ft_wtime() - to; /* (the copy exists for the work array: protection) */
    {
        const char *e = getenv("FTLA_DIST_PROFILE");
        if (e && *e && *e != '0' && root) {
            char line[256];
            int o = snprintf(line, sizeof line, "ft_pdgeqrf %dx%d phases (s):", m, n);
            for (int x = 0; x < PF_N && o < (int)sizeof line; x++)
                o += snprintf(line + o, sizeof line - (size_t)o, " %s %.4f", pf_name[x], p.pf[x]);
            fprintf(stderr, "%s total %.4f\n", line, ft_wtime() - t0);
        }
    }
    ft_arena_release(&ctx->work[ft_backend_index(hb)], hb, 0, mark); /* W, hX, hB */
    free(p.E.a), free(p.thr);
    if (!p.uw) free(p.work);
    free(p.rowg), free(p.run), free(p.ck), free(p.tau1), free(p.vk);
    { /* one all-reduce: an internal error anywhere, what only the root recorded, and the
       * report's counters, on every process */
        double x[4] = {st < 0 && st != FT_ERR_UNCORRECTABLE && st != FT_ERR_UNCHECKED ? 1.0 : 0.0,
                       root ? (double)rep->recovery : 0.0,
                       root ? (double)(rep->refactor_col + 1) : 0.0,
                       root ? rep->refactor_flops : 0.0};
        dist_report_reduce_with(&p.g, rep, x, 4);
        if (x[0] > 0.0 && st == 0) st = FT_ERR_INTERNAL;
        rep->recovery = (int)x[1], rep->refactor_col = (int64_t)x[2] - 1;
        rep->refactor_flops = x[3];
    }
    rep->time_total = ft_wtime() - t0;
    if (ctx->policy.verbose >= 1 && root)
        ft_log(ctx, 1,
               "ft_pdgeqrf m=%d n=%d: status=%d detected=%lld corrected=%lld "
               "recovered=%lld uncorrectable=%lld",
               m, n, st, (long long)rep->detected, (long long)rep->corrected,
               (long long)rep->recovered, (long long)rep->uncorrectable);
    return rep->status = st;
}

int ft_pdgeqrf(int m, int n, double *A, int ia, int ja, const int *descA, double *tau, double *work,
               int lwork, int *info)
{
    return ft_pdgeqrf_ex(NULL, m, n, A, ia, ja, descA, tau, work, lwork, info, NULL);
}
