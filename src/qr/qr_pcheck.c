/*
 * qr_pcheck.c — what the checksum columns cannot see in the loop itself (issue 9 items 3 and 4;
 * docs/qr.md "The panel and the reflectors in use"):
 *
 *  - the panel factorization: before panel p is factored, the backend keeps sigma A_p
 *    (qr_pc_sum); when the factored panel, V and T are in work memory, it forms
 *    Y = sigma A_p - Q_p [sigma R_pp; 0] + [sigma R_pp; 0] with the V and T the updates apply
 *    (qr_pc_arrive), each of whose columns must differ from [sigma r_j; 0] by rounding only
 *    (qr_pc_bound: a threshold a column), and |tau_c ||v_c||^2 - 2| must be rounding. A change
 *    inside the factorization, in its copies on either side, in R_pp, V or T breaks them;
 *  - the reflectors in use: the host seals V and T as it forms them (a bitwise digest of every
 *    column: any changed element changes its column's digest; qr_loop.c, panel(), seal_dev());
 *    on arrival the same pass takes their digests again, and once more right behind the
 *    update that applied them (qr_pc_after). A change after the seal, on the host, on the
 *    way or while an update was reading them, makes them differ.
 *
 * None of this waits: the kernels run on the copy-in and side queues behind the update's forks,
 * issued after what the next panel waits for; their results come back to host memory (the
 * arrival's in a ring of three slots, the digests after the update per step in hAD), and the
 * host reads those of step t two steps later, when the loop knows they have arrived
 * (qr_pc_check). On a mismatch at step s the loop
 * re-factors from panel s: the columns from s nb on come back from the original A, the
 * reflectors before s (verified against their checkpoints) are applied again, and panel s is
 * factored again. Without the original A the error is reported (FT_ERR_NOT_RECOVERED).
 *
 * Slot t (QR_PC_SL words): [0, nb) the digests of V on arrival of step t, [nb, 2 nb) of T,
 * [2 nb, 3 nb) ||v_c||^2, [3 nb, 4 nb) the column maxima of Y below row ib, then Y's top
 * ib x ib block (ld nb).
 */
#include "backend/host/host_queue.h"
#include "core/simd.h"
#include "core/vec.h"
#include "core/team.h"
#include "qr/qr_internal.h"
#include "qr/qr_pcheck.h"
#include "qr/qrf.h"

#include <math.h>
#include <string.h>

/* ---- the host kernels ---- */

static double nanmax_h(double m, double v) { return (isnan(m) || isnan(v)) ? NAN : v > m ? v : m; }

void qr_pc_wform_ref(int64_t ib, const double *V, int64_t ldv, const double *T, int64_t ldt,
                     const double *R, int64_t ldr, double s, double *W, int64_t ldw)
{
    for (int64_t j = 0; j < ib; j++)
        for (int64_t i = 0; i < ib; i++) {
            double w = 0.0; /* sum_{i <= k <= j} T(i, k) sum_{k <= l <= j} V(l, k) s R(l, j) */
            for (int64_t k = i; k <= j; k++) {
                double mkj = 0.0;
                for (int64_t l = k; l <= j; l++) mkj += V[l + k * ldv] * (s * R[l + j * ldr]);
                w += T[i + k * ldt] * mkj;
            }
            W[i + j * ldw] = w;
        }
}

void qr_pc_arrive_ref(int64_t mi, int64_t ib, const double *V, int64_t ldv, const double *T,
                      int64_t ldt, const double *Y, int64_t ldy, uint64_t *digV,
                      uint64_t *digT, double *ss, double *cmx, double *top, int64_t ldtop)
{
    ft_digest_ref(mi, ib, V, ldv, digV);
    ft_digest_ref(ib, ib, T, ldt, digT);
    for (int64_t c = 0; c < ib; c++) {
        double q = 0.0, m = 0.0;
        for (int64_t r = 0; r < mi; r++) {
            q += V[r + c * ldv] * V[r + c * ldv];
            if (r >= ib) m = nanmax_h(m, fabs(Y[r + c * ldy]));
            else top[r + c * ldtop] = Y[r + c * ldy];
        }
        ss[c] = q, cmx[c] = m;
    }
}

typedef struct {
    int64_t mi, ib, ldv, ldt, ldy, ldtop;
    const double *V, *T, *Y;
    uint64_t *digV, *digT;
    double *ss, *cmx, *top;
} arrive_args;

/* The host kernel: qr_pc_arrive_ref's results (the digests and maxima bit for bit, the sums in
 * another order) by columns on the shared team, one read of each column of V and Y. */
FT_SIMD_CLONES static void arrive_cols(void *p, int t, int nt)
{
    const arrive_args *a = p;
    const int64_t mi = a->mi, ib = a->ib;
    for (int64_t c = ib * t / nt; c < ib * (t + 1) / nt; c++) {
        const double *v = a->V + c * a->ldv, *y = a->Y + c * a->ldy;
        uint64_t h = 0;
        double q = 0.0, m = 0.0;
        int nan = 0;
        int64_t r = 0;
#ifdef FT_HAVE_VEC
        /* eight lanes (vec.h): the scalar loops below were left scalar by the compiler (the
         * NaN-propagating maximum) and took ~70 % of the checks' pass */
        ft_v8u vh = {0, 0, 0, 0, 0, 0, 0, 0};
        ft_v8d vq = {0, 0, 0, 0, 0, 0, 0, 0};
        for (; r + 8 <= mi; r += 8) {
            const ft_v8d x = ft_v8d_load(v + r);
            vh += (ft_v8u)x;
            vq += x * x;
        }
        h = ft_v8u_hsum(vh);
        q = ((vq[0] + vq[1]) + (vq[2] + vq[3])) + ((vq[4] + vq[5]) + (vq[6] + vq[7]));
#endif
        for (; r < mi; r++) {
            uint64_t b;
            memcpy(&b, v + r, sizeof b);
            h += b;
            q += v[r] * v[r];
        }
        const int64_t t0 = ib < mi ? ib : mi;
        for (r = 0; r < t0; r++) a->top[r + c * a->ldtop] = y[r];
        r = ib;
#ifdef FT_HAVE_VEC
        ft_v8d vm = {0, 0, 0, 0, 0, 0, 0, 0};
        ft_v8l vn = {0, 0, 0, 0, 0, 0, 0, 0};
        for (; r + 8 <= mi; r += 8) {
            const ft_v8d x = ft_v8d_abs(ft_v8d_load(y + r));
            vn |= ft_v8d_isnan(x);
            vm = ft_v8d_max(vm, x);
        }
        m = ft_v8d_hmax(vm);
        nan = ft_v8l_any(vn);
#endif
        for (; r < mi; r++) {
            const double x = fabs(y[r]);
            nan |= x != x;
            m = x > m ? x : m;
        }
        a->digV[c] = ft_digest_finish(h, mi);
        a->ss[c] = q;
        a->cmx[c] = nan ? NAN : m;
    }
}

static int run_arrive(void *p)
{
    arrive_args *a = p;
    ft_digest_ref(a->ib, a->ib, a->T, a->ldt, a->digT);
    ft_team_par_dyn(arrive_cols, a, (long long)a->mi * a->ib);
    return FT_SUCCESS;
}

static int h_arrive(ft_queue_t *q, int64_t mi, int64_t ib, const double *V, int64_t ldv,
                    const double *T, int64_t ldt, const double *Y, int64_t ldy, uint64_t *digV,
                    uint64_t *digT, double *ss, double *cmx, double *top, int64_t ldtop,
                    double *scratch)
{
    (void)scratch;
    if (ib <= 0 || mi <= 0) return FT_SUCCESS;
    arrive_args a = {mi, ib, ldv, ldt, ldy, ldtop, V, T, Y, digV, digT, ss, cmx, top};
    return ft_host_submit(q, run_arrive, &a, sizeof a);
}

static const qr_pc_kernels_t s_host = {"host", NULL, h_arrive}; /* W by dtrmm */

#ifndef FTLA_HAVE_CUDA
const qr_pc_kernels_t *qr_pc_kernels_cuda(void) { return NULL; }
#endif

const qr_pc_kernels_t *qr_pc_kernels(const ft_backend_t *be)
{
    const qr_pc_kernels_t *k = NULL;
    if (be && be->kind == FT_DEVICE_CUDA) k = qr_pc_kernels_cuda();
    return k ? k : &s_host;
}

/* ---- the checks in the loop ---- */

static uint64_t *slot(const qr_t *g, uint64_t *base, int64_t t)
{
    return base + (t % 3) * QR_PC_SL(g->nb);
}

/* Offsets in a slot. */
enum { SL_SS = 2, SL_BOT = 3, SL_TOP = 4 }; /* x nb */

int qr_pc_init(qr_t *g)
{
    g->pc_from = g->pc_done = 0;
    g->pc_aft = -1;
    g->pc_oratio = g->pc_cratio = 0.0;
    return FT_SUCCESS;
}

int qr_pc_sum(qr_t *g, int64_t p, ft_queue_t *q)
{
    if (!g->pcheck || p >= g->np) return FT_SUCCESS;
    const int64_t i = p * g->nb, ib = qr_imin(g->nb, g->k - i), ld = g->ldda;
    /* sigma A_p for the checks: a copy, or a product with sigma I (exact: sigma a power of
     * two) */
    if (g->sigma == 1.0)
        return g->be->copy_matrix(q, g->m - i, ib, g->dA + i + i * ld, ld, g->dPa[p & 1], g->m);
    return g->be->dgemm(q, 'N', 'N', g->m - i, ib, ib, g->sigma, g->dA + i + i * ld, ld, g->dI,
                        g->nb, 0.0, g->dPa[p & 1], g->m);
}

/* Ring entry of step p on the host: sigma R_pp (nb x nb, zeros below the diagonal), then the
 * nb thresholds of its column checks. */
static double *ring(const qr_t *g, int64_t p)
{
    return g->hR + (p % 3) * (g->nb * g->nb + g->nb);
}

void qr_pc_bound(qr_t *g, int64_t p, const double *P, int64_t ldp)
{
    if (!g->pcheck) return;
    const int64_t i = p * g->nb, ib = qr_imin(g->nb, g->k - i), mi = g->m - i;
    const double s = g->sigma;
    /* the column checks: sigma R_pp, and for each column the threshold of the panel's
     * column-wise backward error and of the device applying Q_p to R_pp (twice the rounding
     * of one Householder QR of the column: 2 u sigma ||a_j||, ||a_j|| = ||r_j||) */
    double *sR = ring(g, p), *cthr = sR + g->nb * g->nb;
    /* 1: checkable; 0: a threshold overflows (unchecked); -1: R is not finite, which a finite
     * panel cannot give (its columns' norms are those of A's), or grew: a fault */
    int ok = 1;
    for (int64_t c = 0; c < ib; c++) {
        for (int64_t r = 0; r < ib; r++) {
            sR[r + c * g->nb] = r <= c ? s * P[r + c * ldp] : 0.0;
            if (r <= c && !isfinite(P[r + c * ldp])) ok = -1;
        }
        cthr[c] = abft_qr_tau(g->pol.tol, mi, ib, 2.0 * ABFT_U * s * abft_nrm2(c + 1, P + c * ldp));
    }
    for (int64_t c = 0; c < ib && ok > 0; c++) {
        if (isfinite(cthr[c])) continue;
        ok = 0;
        /* the threshold overflows: unchecked, unless A's column says it cannot. The panel's
         * columns are orthogonal transforms of A's, so honestly ||r_c|| <= ||a_c|| (1 + m u);
         * when that ceiling's threshold is finite, R grew: a fault (an exponent bit of R, say) */
        if (g->checkable &&
            isfinite(abft_qr_tau(g->pol.tol, mi, ib, 2.01 * ABFT_U * s * qr_col_norm(g, i + c))))
            ok = -1;
    }
    g->pcok[p % 3] = ok;
}

/* The digests of step s's V and T now, into d (V) and d + nb (T) in work memory, on queue q,
 * and their copy to host memory h. */
static int digests_now(qr_t *g, ft_queue_t *q, int64_t s, uint64_t *d, uint64_t *h)
{
    const int64_t nb = g->nb, i = s * nb, ib = qr_imin(nb, g->k - i);
    FT_CHECK(g->be->digest(q, g->m - i, ib, g->dV[s & 1], g->m, d));
    FT_CHECK(g->be->digest(q, ib, ib, g->dT + s * nb * nb, nb, d + nb));
    return g->be->get_matrix(q, 2 * nb, 1, (const double *)d, 2 * nb, (double *)h, 2 * nb);
}

int qr_pc_after(qr_t *g, int64_t p)
{
    if (!g->pcheck || p < g->pc_from) return FT_SUCCESS;
    const int64_t nb = g->nb;
    const double t0 = ft_wtime();
    /* behind the update on the side queue and the lookahead on the main queue. Host panels:
     * on the side queue, before anything that follows there; the copy back arrives where
     * qr_pc_check reads it (the lookahead of step p + 1, which the copy of panel p + 2 waits
     * for, waits for it). Panels in work memory: on the check queue, whose end of step p panel
     * p + 2 and the host wait for (qr_loop.c), so that nothing on the panels' critical path
     * waits for these digests: on the side queue the next lookahead did (0.6 % of the call at
     * n = 32768, bench/NOTES.md) */
    ft_queue_t *q = g->gpanel ? g->qck : g->qs;
    FT_CHECK(g->be->fork(g->qm, q));
    if (g->gpanel) FT_CHECK(g->be->fork(g->qs, q));
    FT_CHECK(digests_now(g, q, p, g->dAD + 2 * nb * p, g->hAD + 2 * nb * p));
    g->pc_aft = p;
    g->tprot += ft_wtime() - t0;
    return FT_SUCCESS;
}

int qr_pc_arrive(qr_t *g, int64_t p)
{
    if (!g->pcheck) return FT_SUCCESS;
    const int64_t nb = g->nb, i = p * nb, ib = qr_imin(nb, g->k - i), ld = g->ldda;
    const double t0 = ft_wtime();
    uint64_t *o = slot(g, g->dPslot, p);
    /* Y = sigma A_p - Q_p [sigma R_pp; 0] + [sigma R_pp; 0] with the V and T the updates apply
     * and the R_pp in place (Q_p [R; 0] = [R; 0] - V T V_1^T R, V_1 the top ib x ib block of
     * V: W = T V_1^T sigma R, small triangular products, and one product of mi x ib x ib on the
     * copy), then one pass over V and Y (qr_pcheck.h): the digests of V and T, ||v_c||^2, the
     * largest |.| of each column of Y below row ib and of its row sums there, and its top
     * ib x ib block (which must equal sigma R_pp: compared on the host, qr_pc_check). The
     * residual of A_p = Q_p R_pp rather than of Q_p^T A_p = R_pp: the same size in exact
     * arithmetic, half the flops, and no product with a long inner dimension (Q_p^T A_p took
     * 2 x 2 mi ib^2, the tall shapes' largest protection cost, bench/NOTES.md) */
    const ft_backend_t *be = g->be;
    const qr_pc_kernels_t *K = qr_pc_kernels(be);
    const int64_t mi = g->m - i;
    double *Y = g->dPa[p & 1], *V = g->dV[p & 1], *T = g->dT + p * nb * nb, *W = g->dWpc;
    if (K->wform) {
        FT_CHECK(K->wform(g->qck, ib, V, g->m, T, nb, g->dA + i + i * ld, ld, g->sigma, W, nb,
                          g->dPs));
    } else {
        FT_CHECK(be->copy_matrix(g->qck, ib, ib, g->dI, nb, W, nb));
        FT_CHECK(be->dtrmm(g->qck, 'L', 'U', 'N', 'N', ib, ib, g->sigma, g->dA + i + i * ld, ld,
                           W, nb));                                                 /* sigma R */
        FT_CHECK(be->dtrmm(g->qck, 'L', 'L', 'T', 'N', ib, ib, 1.0, V, g->m, W, nb)); /* V_1^T */
        FT_CHECK(be->dtrmm(g->qck, 'L', 'U', 'N', 'N', ib, ib, 1.0, T, nb, W, nb));   /* T */
    }
    FT_CHECK(be->dgemm(g->qck, 'N', 'N', mi, ib, ib, 1.0, V, g->m, W, nb, 1.0, Y, g->m));
    FT_CHECK(K->arrive(g->qck, mi, ib, V, g->m, T, nb, Y, g->m, o, o + nb,
                       (double *)(o + SL_SS * nb), (double *)(o + SL_BOT * nb),
                       (double *)(o + SL_TOP * nb), nb, g->dPs));
    FT_CHECK(g->be->get_matrix(g->qck, QR_PC_SL(nb), 1, (const double *)o, QR_PC_SL(nb),
                               (double *)slot(g, g->hPslot, p), QR_PC_SL(nb)));
    g->tprot += ft_wtime() - t0;
    return FT_SUCCESS;
}

void qr_pc_fail(qr_t *g, int64_t s, ft_region_t reg, double a, double b)
{
    ft_report_t *rep = g->rep;
    const int64_t col = s * g->nb;
    rep->detected++;
    const char *what = reg == FT_REGION_PANEL ? "panel factorization" : "reflectors in use";
    if (g->src == QR_SRC_NONE || g->nrefactor >= QR_MAX_REFACTOR ||
        (g->qrf && g->qrf->nrec > 0)) {
        /* no original A, too many passes, or QR-update records a re-factorization would undo */
        g->not_recovered = 1;
        g->located_col = col;
        ft_report_event(rep, FT_EVENT_LOCATED, reg, -1, col, s, a, b);
        ft_log(g->ctx, 1, "dgeqrf: error in the %s of step %lld: not recovered", what,
               (long long)s);
        return;
    }
    /* a panel that fails its check may have been computed from columns that the update of
     * step s-1 changed with a wrong V or T (whose digests after it come two steps later):
     * step s-1 is redone too */
    const int64_t from = reg == FT_REGION_PANEL && s - 1 >= g->pc_from ? s - 1 : s;
    if (g->refactor_from < 0 || from < g->refactor_from) g->refactor_from = from;
    rep->corrected++;
    ft_report_event(rep, FT_EVENT_RECOMPUTED, reg, -1, col, s, a, b);
    ft_log(g->ctx, 1, "dgeqrf: error in the %s of step %lld (%.3g, threshold %.3g): "
           "re-factorization from panel %lld", what, (long long)s, a, b, (long long)from);
}

/* The digests of step s's V and T at o against their seal (panel(), qr_loop.c). */
static int after_differs(const qr_t *g, int64_t s, const uint64_t *o)
{
    const int64_t nb = g->nb, ib = qr_imin(nb, g->k - s * nb);
    return memcmp(o, g->vdig + s * nb, (size_t)ib * sizeof *o) != 0 ||
           memcmp(o + nb, g->tdig + s * nb, (size_t)ib * sizeof *o) != 0;
}

int qr_pc_check(qr_t *g, int64_t upto)
{
    if (!g->pcheck || g->not_recovered) return FT_SUCCESS;
    const int64_t nb = g->nb;
    if (g->pc_done < g->pc_from) g->pc_done = g->pc_from;
    for (int64_t t = g->pc_done; t < upto && t < g->np; t++) {
        const uint64_t *o = slot(g, g->hPslot, t);
        g->pc_done = t + 1;
        /* what arrived against the host's seal of V and T (taken as they were formed) */
        if (after_differs(g, t, o)) {
            qr_pc_fail(g, t, FT_REGION_REFLECTORS, 0.0, 0.0);
            return FT_SUCCESS;
        }
        /* and after the update that applied them (qr_pc_after, issued at the end of step t) */
        if (t > g->pc_aft) return FT_ERR_INTERNAL;
        if (after_differs(g, t, g->hAD + 2 * nb * t)) {
            qr_pc_fail(g, t, FT_REGION_REFLECTORS, 0.0, 0.0);
            return FT_SUCCESS;
        }
        g->rep->checks++;
        /* not checkable: counted unchecked by qr_threshold (input) or below (threshold) */
        if (!g->checkable) continue;
        /* each reflector orthogonal: |tau_c ||v_c||^2 - 2| within the rounding of the sum of
         * mi squares (sequential on the host: up to mi u ||v||^2, ||v||^2 <= 2) and of tau: in
         * units of 4u (one rounding of the product 2) at most mi / 2 + a few; measured: about
         * 0.45 sqrt(mi) on random matrices, mi / 10 on integer ones (bench/NOTES.md). The
         * threshold tol (mi / 2 + 8) units never fires on clean data; what it lets through is
         * the limit documented in docs/qr.md */
        const double *ss = (const double *)(o + SL_SS * nb);
        const int64_t mi = g->m - t * nb, ib = qr_imin(nb, g->k - t * nb);
        const double othr = g->pol.tol * (0.5 * (double)mi + 8.0) * (4.0 * ABFT_U);
        for (int64_t c = 0; c < ib; c++) {
            const double tc = g->tau[t * nb + c];
            if (tc == 0.0) continue; /* H_c = I: v_c is not applied */
            const double od = fabs(tc * ss[c] - 2.0);
            if (!(od <= othr)) {
                qr_pc_fail(g, t, FT_REGION_PANEL, od, othr);
                return FT_SUCCESS;
            }
            if (od / (4.0 * ABFT_U) > g->pc_oratio) g->pc_oratio = od / (4.0 * ABFT_U);
        }
        if (g->pcok[t % 3] == 0) {
            g->rep->unchecked++;
            g->unchecked_finite = 1; /* the call says so (FT_ERR_UNCHECKED) */
            ft_log(g->ctx, 1, "dgeqrf: the check of panel %lld overflows: UNCHECKED", (long long)t);
            continue;
        }
        if (g->pcok[t % 3] < 0) {
            qr_pc_fail(g, t, FT_REGION_PANEL, INFINITY, 0.0);
            return FT_SUCCESS;
        }
        /* each column: sigma (a_j - Q_p [r_j; 0]) within its own threshold, so that a change
         * is measured against its column, not diluted by the whole panel's */
        const double *bot = (const double *)(o + SL_BOT * nb);
        const double *top = (const double *)(o + SL_TOP * nb);
        const double *sR = ring(g, t), *cthr = sR + nb * nb;
        for (int64_t c = 0; c < ib; c++) {
            double e = mi > ib ? bot[c] : 0.0, rn = 0.0;
            for (int64_t r = 0; r < ib; r++) {
                const double dv = fabs(top[r + c * nb] - sR[r + c * nb]);
                if (isnan(dv) || dv > e) e = isnan(e) ? e : dv;
                rn += sR[r + c * nb] * sR[r + c * nb];
            }
            if (!(e <= cthr[c])) {
                qr_pc_fail(g, t, FT_REGION_PANEL, e, cthr[c]);
                return FT_SUCCESS;
            }
            rn = sqrt(rn);
            if (rn > 0 && e / (ABFT_U * rn) > g->pc_cratio) g->pc_cratio = e / (ABFT_U * rn);
        }
    }
    return FT_SUCCESS;
}

/* The digests of step s's V and T after its update, in host memory (all queues synchronised):
 * those qr_pc_after took, or, if it was not issued for s, taken now (V is still in its
 * buffer). */
static int after_settled(qr_t *g, int64_t s, const uint64_t **h)
{
    const int64_t nb = g->nb;
    if (s <= g->pc_aft) {
        *h = g->hAD + 2 * nb * s;
        return FT_SUCCESS;
    }
    uint64_t *o = g->hPslot + 3 * QR_PC_SL(nb);
    FT_CHECK(digests_now(g, g->qh2d, s, g->dPslot + 3 * QR_PC_SL(nb), o));
    *h = o;
    return g->be->sync(g->qh2d);
}

int64_t qr_pc_settle(qr_t *g, int64_t P)
{
    if (!g->pcheck) return P;
    /* steps [pc_from, pc_done) were compared, after their update too; the others' digests
     * after the update are compared now */
    for (int64_t s = qr_imax(g->pc_from, g->pc_done); s < P && s < g->np; s++) {
        const uint64_t *h;
        if (after_settled(g, s, &h)) return -1;
        if (after_differs(g, s, h)) {
            g->rep->detected++, g->rep->corrected++;
            ft_report_event(g->rep, FT_EVENT_RECOMPUTED, FT_REGION_REFLECTORS, -1, s * g->nb, s,
                            0.0, 0.0);
            ft_log(g->ctx, 1, "dgeqrf: error in the reflectors in use of step %lld: "
                   "re-factorization from panel %lld", (long long)s, (long long)s);
            return s;
        }
    }
    return P;
}

/* All queues synchronised at step p (before its panel): every step before p, after its update
 * too, so that no check at this point sees the effect of a changed V or T first. */
int qr_pc_sync_point(qr_t *g, int64_t p)
{
    if (!g->pcheck) return FT_SUCCESS;
    return qr_pc_check(g, p);
}

int qr_pc_end(qr_t *g)
{
    if (!g->pcheck) return FT_SUCCESS;
    FT_CHECK(g->be->sync(g->qck));
    return qr_pc_sync_point(g, g->np);
}

int qr_pc_tverify(qr_t *g, int64_t npan, int64_t step)
{
    if (!g->pcheck) return FT_SUCCESS;
    const ft_backend_t *be = g->be;
    const int64_t nb = g->nb;
    if (npan <= 0) return FT_SUCCESS; /* the seals of every panel factored so far exist */
    const int64_t nfull = qr_imin(npan, g->k / nb);
    if (nfull > 0) FT_CHECK(be->digest(g->qm, nb, nfull * nb, g->dT, nb, g->dTD));
    if (npan > nfull) { /* the last panel, narrower */
        const int64_t ib = g->k - nfull * nb;
        FT_CHECK(be->digest(g->qm, ib, ib, g->dT + nfull * nb * nb, nb, g->dTD + nfull * nb));
    }
    FT_CHECK(be->get_matrix(g->qm, npan * nb, 1, (const double *)g->dTD, npan * nb,
                            (double *)g->hTD, npan * nb));
    FT_CHECK(be->sync(g->qm));
    for (int64_t p = 0; p < npan; p++) {
        const int64_t i = p * nb, ib = qr_imin(nb, g->k - i), mi = g->m - i, ld = g->ldda;
        if (!memcmp(g->hTD + i, g->tdig + i, (size_t)ib * sizeof *g->hTD)) continue;
        /* T of panel p changed while it waited: formed again from the vectors (verified
         * against their checkpoint just before) and tau */
        double *hv = g->hV, *ht = g->hT;
        FT_CHECK(be->get_matrix(g->qm, mi, ib, g->dA + i + i * ld, ld, hv, g->m));
        FT_CHECK(be->sync(g->qm));
        int st = ft_lapack_larft(mi, ib, hv, g->m, g->tau + i, ht, nb);
        if (st) return st;
        ft_digest_ref(ib, ib, ht, nb, g->tdig + i);
        FT_CHECK(be->set_matrix(g->qm, ib, ib, ht, nb, g->dT + p * nb * nb, nb));
        FT_CHECK(be->sync(g->qm));
        g->rep->detected++, g->rep->corrected++;
        ft_report_event(g->rep, FT_EVENT_RECOMPUTED, FT_REGION_REFLECTORS, -1, i, step, 0.0,
                        0.0);
        ft_log(g->ctx, 1, "dgeqrf: T of panel %lld changed while kept: formed again",
               (long long)p);
    }
    return FT_SUCCESS;
}
