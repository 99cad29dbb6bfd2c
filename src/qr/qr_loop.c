/*
 * qr_loop.c — the panel/update loop of ft_dgeqrf (MAGMA dgeqrf structure, paper 004): panels
 * factored on the host by LAPACK (panel()) or in work memory by the backend (panel_dev(),
 * policy.panel; docs/qr.md "Panel placement"), trailing updates on the backend, one panel of
 * lookahead:
 * the next panel's columns are updated first on the main queue and copied to the host while the
 * side queue updates the rest and the checksum columns. On the host backend everything runs in
 * the caller's A; in deferred host mode the queues run out of order as ordering allows.
 */
#include "core/inject.h"
#include "core/simd.h"
#include "core/vec.h"
#include "core/size.h"
#include "checkpoint/checkpoint.h"
#include "qr/qr_internal.h"
#include "qr/qr_pcheck.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* qr_internal.h */
int qr_larfb_v(const ft_backend_t *be, ft_queue_t *q, int64_t mi, int64_t nc, int64_t ib,
               const double *V, int64_t ldv, const double *T, int64_t ldt, double *C,
               int64_t ldc, double *Wk, int64_t ldw)
{
    if (mi <= 0 || nc <= 0 || ib <= 0) return FT_SUCCESS;
    FT_CHECK(be->dgemm(q, 'T', 'N', ib, nc, mi, 1.0, V, ldv, C, ldc, 0.0, Wk, ldw));
    FT_CHECK(be->dtrmm(q, 'L', 'U', 'T', 'N', ib, nc, 1.0, T, ldt, Wk, ldw));
    FT_CHECK(be->dgemm(q, 'N', 'N', mi, nc, ib, -1.0, V, ldv, Wk, ldw, 1.0, C, ldc));
    return FT_SUCCESS;
}

/* Adds the time since t0 to host phase ph; returns now. */
static double hp_add(qr_t *g, int ph, double t0)
{
    static const int tph[QR_HP_N] = {FT_PHASE_WAIT, FT_PHASE_CHECKS, FT_PHASE_PANEL,
                                     FT_PHASE_ISSUE, FT_PHASE_ISSUE, FT_PHASE_ISSUE,
                                     FT_PHASE_ISSUE, FT_PHASE_SEAL};
    const double t = ft_wtime();
    g->hp[ph] += t - t0;
    if (t - t0 > 2e-6) ft_trace_host(g->call, tph[ph], g->tstep, t0, t);
    return t;
}

/* The seal of the factored panel P's vectors (mi rows, ld ldp), columns [c0, c1): dig[c] =
 * digest() of column c of V as the updates apply it (zeros above the diagonal, the unit
 * diagonal, the vector below it), the bits of its elements summed (four sums, for speed). */
FT_SIMD_CLONES static void seal_vectors(int64_t mi, int64_t c0, int64_t c1, const double *P, int64_t ldp,
                         uint64_t *dig)
{
    for (int64_t c = c0; c < c1; c++) {
        const double *a = P + c * ldp;
        uint64_t s = 0x3ff0000000000000ull; /* the unit diagonal; zeros add 0 */
        int64_t r = c + 1;
#ifdef FT_HAVE_VEC
        ft_v8u v = {0, 0, 0, 0, 0, 0, 0, 0}; /* sums mod 2^64: any order, the same sum */
        for (; r + 8 <= mi; r += 8) v += ft_v8u_load(a + r);
        s += ft_v8u_hsum(v);
#endif
        for (; r < mi; r++) {
            uint64_t w;
            memcpy(&w, a + r, sizeof w);
            s += w;
        }
        dig[c] = ft_digest_finish(s, mi);
    }
}

typedef struct {
    int64_t mi, ib, ldp;
    const double *P;
    uint64_t *dig;
} seal_job;

static void seal_part(void *p, int t, int nt)
{
    const seal_job *j = p;
    seal_vectors(j->mi, j->ib * t / nt, j->ib * (t + 1) / nt, j->P, j->ldp, j->dig);
}

/* Threads for the seals: the seal of a panel reads it once from host memory (4 MB on average
 * at n = 16384), one thread alone took 80 ms of the host's 105 ms wait for the device there
 * (bench/NOTES.md); a few threads share it, while the panel's BLAS threads are idle. */
static int seal_threads(const qr_t *g)
{
    if (!g->pcheck || g->host || g->gpanel || g->m * g->nb < ((int64_t)1 << 18)) return 1;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus >= 8 ? 4 : cpus >= 4 ? 2 : 1;
}

/* Panel p on the host (P: mi x ib, ld ldp): the QR and T (ft_lapack_panel_factor: LAPACK's
 * recursive dgeqrt3 on small hosts, dgeqrf and dlarft on large ones) and T sealed, and the top ib x ib block of V (zeros above the
 * diagonal, the unit diagonal) into g->hVt: the device forms V from the panel it receives and
 * that block (qr_factor). The vectors are sealed after the copies are issued, while the host
 * waits (qr_factor). A later change to V or T — on the way, in work memory — makes them
 * differ from the digests the device takes on arrival and after the update (qr_pc_check).
 * With a planned FT_REGION_PANEL fault the panel is factored in two halves (the first h = ib / 2
 * columns, their reflectors applied to the rest, the rest) with the fault in between
 * (qr_panel_fault). Two halves always, sealing the first as soon as it is finished, ran 18 %
 * slower on the H100 host (bench/NOTES.md): a change inside the factorization is the panel's
 * own column checks' (qr_pcheck.c). *th: the end of the last host phase. */
static int panel(qr_t *g, int64_t p, double *P, int64_t ldp, double *T, double *th)
{
    const int64_t m = g->m, nb = g->nb, i = p * nb, ib = qr_imin(nb, g->k - i), mi = m - i;
    const int64_t h = g->nplan && qr_planned(g, FT_REGION_PANEL, p) ? ib / 2 : 0;
    double *tau = g->tau + i;
    int st;
    if (h > 0) {
        if ((st = ft_lapack_panel_qr(mi, h, P, ldp, tau, g->hwork, g->lhwork))) return st;
        if ((st = ft_lapack_dormqr('L', 'T', mi, ib - h, h, P, ldp, tau, P + h * ldp, ldp)))
            return st;
    }
    if (g->nplan) FT_CHECK(qr_panel_fault(g, p, P, ldp, 0));
    if (h == 0) { /* the QR and T (dgeqrt3 on small hosts) */
        if ((st = ft_lapack_panel_factor(mi, ib, P, ldp, tau, T, nb, g->hwork, g->lhwork)))
            return st;
    } else {
        if ((st = ft_lapack_panel_qr(mi - h, ib - h, P + h + h * ldp, ldp, tau + h, g->hwork,
                                     g->lhwork)))
            return st;
        if ((st = ft_lapack_larft(mi, ib, P, ldp, tau, T, nb))) return st;
    }
    *th = hp_add(g, QR_HP_PANEL, *th);
    /* T sealed at once (on the host backend T is already in work memory) */
    if (g->pcheck) ft_digest_ref(ib, ib, T, nb, g->tdig + i);
    double *Vt = g->hVt;
    for (int64_t c = 0; c < ib; c++)
        for (int64_t r = 0; r < ib; r++)
            Vt[r + c * nb] = r < c ? 0.0 : r == c ? 1.0 : P[r + c * ldp];
    *th = hp_add(g, QR_HP_VTOP, *th);
    return FT_SUCCESS;
}

typedef struct {
    qr_t *g;
    int64_t p;
    double *P;
    int64_t ld;
} pfault_t;

/* The planned panel fault between the two halves of a device panel (qr_dev_panel's mid). */
static int pfault_mid(void *a)
{
    const pfault_t *f = a;
    return qr_panel_fault(f->g, f->p, f->P, f->ld, 1);
}

/* Panel p (buffer b) in work memory, on the main queue behind the lookahead that finished its
 * columns (policy.panel = GPU; docs/qr.md "Panel placement"): sigma A_p for the panel's
 * checks; the backend's geqrf in place (tau into dTau); V (the panel with explicit zeros and
 * unit diagonal) and T (larft) formed from it (sealed right behind it on the check queue,
 * seal_dev); the panel's R_pp block and tau to
 * the host's ring hArr, taken in two steps later (gp_arrived). With a planned FT_REGION_PANEL
 * fault the panel is factored in two halves with the fault in between, as panel() does. */
static int panel_dev(qr_t *g, int64_t p, int b)
{
    const ft_backend_t *be = g->be;
    ft_queue_t *q = g->qm;
    const int64_t m = g->m, nb = g->nb, i = p * nb, ib = qr_imin(nb, g->k - i), mi = m - i;
    const int64_t ld = g->ldda;
    const int64_t h = g->nplan && qr_planned(g, FT_REGION_PANEL, p) ? ib / 2 : 0;
    double *P = g->dA + i + i * ld, *tau = g->dTau + i, *V = g->dV[b], *T = g->dT + p * nb * nb;
    /* the check queue's work of step p - 2 reads the buffers of this parity (dV, dPa):
     * panel p waits for it (after a re-factorization the event may be of an earlier pass:
     * completed, since every pass begins with a sync of all queues) */
    if (p >= 2) FT_CHECK(be->event_wait(q, g->evq[(p - 2) % 3]));
    const int sp = qr_tb(g, q, FT_PHASE_PANEL, p);
    FT_CHECK(qr_pc_sum(g, p, q));
    if (g->nplan && h == 0) FT_CHECK(qr_panel_fault(g, p, P, ld, 1));
    pfault_t pf = {g, p, P, ld};
    FT_CHECK(qr_dev_panel(be, q, mi, ib, h, P, ld, tau, V, m, T, nb, g->dWa, nb, g->dLw,
                          g->lw_bytes, h > 0 ? pfault_mid : NULL, &pf));
    double *ring = g->hArr + (p % 3) * (nb * nb + nb);
    FT_CHECK(be->get_matrix(q, ib, ib, P, ld, ring, nb));
    FT_CHECK(be->get_matrix(q, ib, 1, tau, ib, ring + nb * nb, ib));
    qr_te(g, sp, q);
    g->gp_next = p + 1;
    return FT_SUCCESS;
}

/* The seal of panel p's V and T (buffer b) formed in work memory: their digests, on the check
 * queue right behind the panel (forked from the main queue), to the host's vdig and tdig as the
 * host's seal of a CPU panel. Not on the main queue: there it delayed the lookahead, on the
 * critical path, by two reductions and a copy back a step (bench/NOTES.md, issue 9 session 6);
 * the lookahead and the update only read V and T, and the arrival check, behind the seal on the
 * same queue, compares them again. */
static int seal_dev(qr_t *g, int64_t p, int b)
{
    if (!g->pcheck) return FT_SUCCESS;
    const ft_backend_t *be = g->be;
    const int64_t nb = g->nb, i = p * nb, ib = qr_imin(nb, g->k - i), mi = g->m - i;
    FT_CHECK(be->digest(g->qck, mi, ib, g->dV[b], g->m, g->dSeal));
    FT_CHECK(be->digest(g->qck, ib, ib, g->dT + p * nb * nb, nb, g->dSeal + nb));
    /* one copy back: the digests of V to vdig, those of T to tdig (np nb further on) */
    return be->get_matrix(g->qck, ib, 2, (const double *)g->dSeal, nb, (double *)(g->vdig + i),
                          g->tdig - g->vdig);
}

/* Panels factored in work memory whose R_pp block and tau have come back (the caller knows):
 * steps [gp_done, upto) — tau into the output and its two checkpoint copies, the bound of the
 * panel's check from R_pp (as qr_pc_bound on a host panel). */
static void gp_arrived(qr_t *g, int64_t upto)
{
    const int64_t nb = g->nb;
    for (int64_t t = g->gp_done; t < upto && t < g->gp_next; t++) {
        const int64_t i = t * nb, ib = qr_imin(nb, g->k - i);
        const double *ring = g->hArr + (t % 3) * (nb * nb + nb);
        for (int64_t c = 0; c < ib; c++) {
            g->tau[i + c] = ring[nb * nb + c];
            if (g->protect_q) g->tau1[i + c] = g->tau2[i + c] = ring[nb * nb + c];
        }

        qr_pc_bound(g, t, ring, nb);
        g->gp_done = t + 1;
    }
}

/* The panel runs on the CPU and its cost grows with nb (2 m n nb flops in all), while the GPU
 * update stays efficient down to nb = 64: measured on the H100 host (16 cores) at n = 16384,
 * nb = 64 ran 3.7 TFLOP/s against 1.5 with nb = 256 (bench/NOTES.md). */
int64_t qr_auto_nb(int64_t n, int gpanel)
{
    /* panels on the device: cuSOLVER's geqrf on the panel costs about the same in all for
     * nb = 64 ... 256 (its time grows with nb), the update gains with nb; measured on the H100
     * with lookahead at n = 16384: nb 256 ran 318 ms, nb 128 337 ms (bench/NOTES.md) */
    if (gpanel) return n < 1024 ? 32 : n < 4096 ? 64 : n < 8192 ? 128 : 256;
    return n < 1024 ? 32 : 64;
}

/* Work memory (B = checksum blocks, QR_NCS columns each): dCS m x 3B, dEW n x 3 (qr_wsums), dX m x 3B,
 * dV 2 x m x nb, dT np x nb x nb, dWa nb x nb, dWb nb x n, dWc nb x 3B, dN1 n, dMx n; recovery:
 * dI nb x nb, dCS0 m x 3B, dY m, dZ m, dSub m, dRot 4m; checkpoint dQS CKP_NS k; panel checks:
 * dPs QR_PC_SCR(nb), dPslot 3 QR_PC_SL(nb) + 4 nb, dTD np nb, dAD 2 np nb,
 * dPa 2 m nb, dWpc nb nb; panels in work memory: dTau k, dSeal 2 nb; the checks' residual
 * sizes dRes 2 3B. */
int64_t qr_work_elems(int64_t m, int64_t n, int64_t nb)
{
    const int64_t B = (n + abft_qr_check_width(n) - 1) / abft_qr_check_width(n);
    const int64_t k = m < n ? m : n, np = (k + nb - 1) / nb;
    int64_t t[] = {3 * QR_NCS * B, m, QR_NCS + 2, n, 2 * nb, m, np + 2, nb * nb, nb, n,
                   QR_NCS * B, nb, 7, m, 1, 64, CKP_NS, k, 16, nb, 3 * np, nb,
                   2 * m + 4 * nb, nb, 1, k + 2 * nb, 2 * QR_NCS, B, 1, QR_PC_SCR(nb)}, e;
    return ft_sum_of_products(15, t, &e) ? -1 : e;
}

/* Host memory: hP m x nb, hV m x nb (the panels of odd steps), hT nb x nb, hVt nb x nb,
 * hwork 64 nb, hEW n x 3, hN 2n + m B,
 * hC m x 3B, hX m x 3B, hrow n, hJ m (int64), hcol m, hcol0 m, hcnt n (int), thrb B, boundb B;
 * the checkpoint of Q: ckp and hQS CKP_NS k each (uint64), ckrec k, tau1 k, tau2 k; the panel
 * checks: hPslot 3 QR_PC_SL(nb) + 4 nb, vdig, tdig, hTD np nb each, hAD 2 np nb,
 * hR 3 (nb nb + nb); panels in work memory: hArr 3 (nb nb + nb); hRes 2 3B; csb B, hrg B (int64). */
int64_t qr_host_elems(int64_t m, int64_t n, int64_t nb)
{
    const int64_t B = (n + abft_qr_check_width(n) - 1) / abft_qr_check_width(n);
    const int64_t k = m < n ? m : n, np = (k + nb - 1) / nb;
    int64_t t[] = {2 * nb, m, 2 * nb, nb, 64, nb, QR_NCS + 4, n, (2 * QR_NCS + 1) * B + 3, m,
                   2, B, 1, 64, 2 * CKP_NS + 3, k, 19, nb, 5 * np, nb, 9 * nb + 3, nb,
                   2 * QR_NCS, B, 2, B}, e;
    return ft_sum_of_products(13, t, &e) ? -1 : e;
}

/* Work and host buffers, from the call's arenas. */
int qr_setup(qr_t *g)
{
    const int64_t m = g->m, n = g->n, nb = g->nb;
    int64_t nw = qr_work_elems(m, n, nb), nh = qr_host_elems(m, n, nb);
    if (nw < 0 || nh < 0) return FT_ERR_TOO_LARGE;
    double *w;
    FT_CHECK(ft_call_work_doubles(g->call, nw, &w));
    const int64_t B = g->ncb;
    g->dCS = w, w += QR_NCS * B * m;
    g->dEW = w, w += QR_NCS * n;
    g->dX = w, w += QR_NCS * B * m;
    g->dV[0] = w, w += m * nb;
    g->dV[1] = w, w += m * nb;
    g->dT = w, w += g->np * nb * nb;
    g->dWa = w, w += nb * nb;
    g->dWb = w, w += nb * n;
    g->dWc = w, w += QR_NCS * B * nb;
    g->dN1 = w, w += n;
    g->dMx = w, w += n;
    g->dI = w, w += nb * nb;
    g->dCS0 = w, w += QR_NCS * B * m;
    g->dY = w, w += m;
    g->dZ = w, w += m;
    g->dSub = w, w += m;
    g->dRot = w, w += 4 * m;
    g->dQS = (uint64_t *)w, w += CKP_NS * g->k;
    g->dPs = w, w += QR_PC_SCR(nb);
    g->dPslot = (uint64_t *)w, w += 3 * QR_PC_SL(nb) + 4 * nb;
    g->dTD = (uint64_t *)w, w += g->np * nb;
    g->dAD = (uint64_t *)w, w += 2 * g->np * nb;
    g->dPa[0] = w, w += m * nb;
    g->dPa[1] = w, w += m * nb;
    g->dWpc = w, w += nb * nb;
    g->dTau = w, w += g->k;
    g->dSeal = (uint64_t *)w, w += 2 * nb;
    g->dRes = w, w += 2 * QR_NCS * B;
    g->lhwork = nb * 64;
    double *h;
    FT_CHECK(ft_call_pinned_doubles(g->call, nh, &h));
    g->hP = h, h += m * nb;
    g->hV = h, h += m * nb;
    g->hT = h, h += nb * nb;
    g->hVt = h, h += nb * nb;
    g->hwork = h, h += g->lhwork;
    g->hEW = h, h += QR_NCS * n;
    g->hN = h, h += 2 * n + B * m;
    g->hC = h, h += QR_NCS * B * m;
    g->hX = h, h += QR_NCS * B * m;
    g->thrb = h, h += B;
    g->boundb = h, h += B;
    g->hrow = h, h += n;
    g->hJ = (int64_t *)h, h += m;
    g->hcol = h, h += m;
    g->hcol0 = h, h += m;
    g->hcnt = (int *)h, h += n;
    g->ckp = (uint64_t *)h, h += CKP_NS * g->k;
    g->hQS = (uint64_t *)h, h += CKP_NS * g->k;
    g->ckrec = (uint64_t *)h, h += g->k;
    g->tau1 = h, h += g->k;
    g->tau2 = h, h += g->k;
    g->hPslot = (uint64_t *)h, h += 3 * QR_PC_SL(nb) + 4 * nb;
    g->vdig = (uint64_t *)h, h += g->np * nb;
    g->tdig = (uint64_t *)h, h += g->np * nb;
    g->hTD = (uint64_t *)h, h += g->np * nb;
    g->hAD = (uint64_t *)h, h += 2 * g->np * nb;
    g->hR = h, h += 3 * (nb * nb + nb);
    g->hArr = h, h += 3 * (nb * nb + nb);
    g->hRes = h, h += 2 * QR_NCS * B;
    g->csb = (int64_t *)h;
    for (int64_t b = 0; b < B; b++) g->csb[b] = 0;
    g->hrg = g->csb + B;
    for (int64_t b = 0; b < B; b++) g->hrg[b] = -1;
    g->dLw = NULL, g->lw_bytes = 0;
    if (g->gpanel) { /* the backend's LAPACK work for the first (tallest) panel */
        FT_CHECK(g->be->lapack_work(g->qm, m, nb, &g->lw_bytes));
        FT_CHECK(ft_call_work(g->call, g->lw_bytes, &g->dLw));
        for (int s = 0; s < 3; s++) {
            FT_CHECK(ft_call_event(g->call, &g->evg[s]));
            FT_CHECK(ft_call_event(g->call, &g->evq[s]));
        }
    }
    g->ckdone = g->ckrec_done = 0;
    g->ldp = m;
    /* the identity (recovery: C -= W and scalar updates as products, qr_recover.c) */
    memset(g->hP, 0, (size_t)(nb * nb) * sizeof(double));
    for (int64_t t = 0; t < nb; t++) g->hP[t + t * nb] = 1.0;
    FT_CHECK(g->be->set_matrix(g->qm, nb, nb, g->hP, nb, g->dI, nb));
    FT_CHECK(g->be->sync(g->qm));
    return FT_SUCCESS;
}

/* After a check asked for a re-factorization (qr_checks.c): restore and re-transform the
 * columns from that panel on, then check them against the original checksums. *p0 = the panel
 * step the loop starts again from. */
static int restart_one(qr_t *g, int64_t *p0);
static int restart_from(qr_t *g, int64_t *p0)
{
    const double t0 = ft_wtime();
    const int st = restart_one(g, p0);
    ft_trace_host(g->call, FT_PHASE_RECOVER, *p0, t0, ft_wtime());
    return st;
}

static int restart_one(qr_t *g, int64_t *p0)
{
    const int64_t P = g->refactor_from;
    g->refactor_from = -1;
    /* nothing of the pass being abandoned may still run: the checks on the copy-in queue read
     * the panels, the copy-out queue writes the host's panel */
    FT_CHECK(g->be->sync(g->qh2d));
    FT_CHECK(g->be->sync(g->qd2h));
    if (g->eoA) { /* columns from P on change: all of A goes back at the end */
        FT_CHECK(ft_stage_out_wait(g->call, g->qd2h));
        g->eoA = NULL;
    }
    FT_CHECK(g->be->sync(g->qm));
    FT_CHECK(g->be->sync(g->qs));
    if (g->gpanel) gp_arrived(g, g->gp_next); /* everything issued has completed */
    /* the reflectors re-applied below must be those verified: steps before P whose digests
     * after their update have not been compared yet are compared now (an earlier change found
     * there moves the re-factorization back to its step) */
    const int64_t P0 = qr_pc_settle(g, P);
    if (P0 < 0) return FT_ERR_INTERNAL;
    FT_CHECK(qr_refactor(g, P0));
    g->pc_from = g->pc_done = P0;
    g->pc_aft = -1;
    if (g->ckdone > P0 * g->nb) g->ckdone = P0 * g->nb; /* the panels from P0 on are redone */
    if (g->ckrec_done > g->ckdone) g->ckrec_done = g->ckdone;
    if (g->gp_done > P0) g->gp_done = P0;
    if (g->gp_next > P0) g->gp_next = P0;
    g->prof = 0; /* the phase profile covers the first pass only */
    *p0 = P0;
    return qr_verify(g, P0 * g->nb, P0);
}

static int factor(qr_t *g);

/* Host pointers, panels in work memory: block P of the factored columns (R above its diagonal
 * block, R and V in it) is final once panel P has completed, unless a correction or recovery
 * changes it later — any such event sends the whole matrix again at the end (qr_api.c), and a
 * re-factorization stops these copies (restart_one). Issued on the copy-out queue, which the
 * loop does not otherwise use with panels in work memory; unpacked at the next step. */
static int early_out(qr_t *g, int64_t P)
{
    const int64_t i = P * g->nb, ib = qr_imin(g->nb, g->k - i);
    if (i != g->eo_col) return FT_ERR_INTERNAL;
    FT_CHECK(ft_stage_out_async(g->call, g->qd2h, g->m, ib, g->dA + i * g->ldda, g->ldda,
                                g->eoA + i * g->eolda, g->eolda));
    g->eo_col = i + ib;
    return FT_SUCCESS;
}

int qr_factor(qr_t *g)
{
    ft_team_start(&g->team, seal_threads(g));
    const int st = factor(g);
    ft_team_stop(&g->team);
    return st;
}

/* FTLA_QR_CS_EAGER=1 (read once; for measurements): every checksum block updated by every
 * panel, as before the skip of finished blocks */
static int cs_eager(void)
{
    static int env = -1;
    if (env < 0) {
        const char *e = getenv("FTLA_QR_CS_EAGER");
        env = e && e[0] == '1' && e[1] == '\0';
    }
    return env;
}

static int factor(qr_t *g)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n, k = g->k, nb = g->nb, ld = g->ldda;
    double *dA = g->dA;
    int st;

    if (g->protect) {
        double t0 = ft_wtime();
        FT_CHECK(qr_encode(g));
        if (g->src != QR_SRC_NONE) /* the original checksums, for a re-factorization */
            FT_CHECK(be->copy_matrix(g->qm, m, QR_NCS * g->ncb, g->dCS, m, g->dCS0, m));
        FT_CHECK(be->sync(g->qm));
        qr_threshold(g);
        if (g->gpanel && !g->checkable && !g->unchecked_finite) {
            /* input not finite: nothing can be checked, and the result is IEEE arithmetic on
             * it — LAPACK's (host panels, the reference), not cuSOLVER's, whose Inf and NaN
             * land elsewhere (the campaign's stress set compares with LAPACK) */
            g->gpanel = 0;
            ft_log(g->ctx, 1, "dgeqrf: input not finite: panels on the host");
        }
        FT_CHECK(qr_pc_init(g));
        ft_trace_host(g->call, FT_PHASE_ENCODE, -1, t0, ft_wtime());
        g->tprot += ft_wtime() - t0;
        if (g->prof) g->ph_csum += ft_wtime() - t0;
    }
    int64_t p0 = 0;
    g->gp_done = g->gp_next = 0;
    double th; /* the end of the last host phase (g->hp; a re-factorization is not in them) */
restart:
    th = ft_wtime();
    for (int64_t p = p0; p < g->np; p++) {
        const int64_t i = p * nb, ib = qr_imin(nb, k - i), mi = m - i;
        const int b = (int)(p & 1);
        double *hP = g->host ? dA + i + i * ld : b ? g->hV : g->hP; /* two, by step */
        const int64_t ldp = g->host ? ld : g->ldp;
        double tw = g->prof ? ft_wtime() : 0.0;
        g->tstep = p;
        if (qr_needs_sync(g, p) || p == p0) {
            FT_CHECK(be->sync(g->qm));
            FT_CHECK(be->sync(g->qs));
            FT_CHECK(be->sync(g->qh2d));
            if (g->gpanel) gp_arrived(g, p);
            th = hp_add(g, QR_HP_WAIT, th);
            if (g->prof) {
                double t1 = ft_wtime();
                g->ph_wait += t1 - tw;
                FT_CHECK(qr_harvest(g, p)); /* everything issued so far has completed */
            }
            /* the panels and reflectors of the steps so far, before anything else looks */
            FT_CHECK(qr_pc_sync_point(g, p));
            if (g->refactor_from >= 0) {
                while (g->refactor_from >= 0) FT_CHECK(restart_from(g, &p0));
                goto restart;
            }
            if (g->nplan && p > 0) {
                FT_CHECK(qr_inject(g, FT_REGION_R, p - 1));
                FT_CHECK(qr_inject(g, FT_REGION_Q, p - 1));
                FT_CHECK(qr_inject(g, FT_REGION_TAU, p - 1));
                FT_CHECK(qr_inject_kept(g, p));
            }
            if (g->nplan) {
                FT_CHECK(qr_source_wait(g)); /* the copy of A comes before any fault */
                FT_CHECK(qr_inject(g, FT_REGION_TRAILING, p));
                if (g->protect) FT_CHECK(qr_inject(g, FT_REGION_CHECKSUM, p));
            }
            if (g->protect && g->q > 0 && p % g->q == 0) {
                th = hp_add(g, QR_HP_CHECK, th);
                FT_CHECK(qr_verify(g, i, p));
                const double tv = ft_wtime();
                ft_trace_host(g->call, FT_PHASE_VERIFY, p, th, tv);
                g->hp[QR_HP_CHECK] += tv - th; /* a host check, as before the timeline */
                th = tv;
            }
            if (g->refactor_from >= 0) {
                while (g->refactor_from >= 0) FT_CHECK(restart_from(g, &p0));
                goto restart;
            }
            if (!g->gpanel) {
                const int sp = qr_tb(g, g->qd2h, FT_PHASE_COPY, p);
                FT_CHECK(qr_pc_sum(g, p, g->qd2h));
                FT_CHECK(be->get_matrix(g->qd2h, mi, ib, dA + i + i * ld, ld, hP, ldp));
                qr_te(g, sp, g->qd2h);
            }
            if (g->prof) tw = ft_wtime();
            th = hp_add(g, QR_HP_CHECK, th);
        }
        if (!g->gpanel) FT_CHECK(be->sync(g->qd2h));
        th = hp_add(g, QR_HP_WAIT, th);
        if (g->refactor_from >= 0) {
            while (g->refactor_from >= 0) FT_CHECK(restart_from(g, &p0));
            goto restart;
        }
        if (g->prof) {
            double tp = ft_wtime();
            g->ph_wait += tp - tw;
            /* the panel copy of step p-1 was forked from MAIN after step p-1's lookahead, which
             * waited for all of step p-2 on SIDE: step p-2's events have completed */
            FT_CHECK(qr_harvest(g, p - 1));
            tw = tp;
        }
        th = hp_add(g, QR_HP_CHECK, th);

        double *hT = g->host ? (g->dT + p * nb * nb) : g->hT;
        if (g->gpanel) {
            /* panel in work memory, on the main queue */
            if (g->cp_pending) FT_CHECK(qr_source_order(g)); /* the first write to A */
            FT_CHECK(panel_dev(g, p, b));
            th = hp_add(g, QR_HP_PANEL, th);
            FT_CHECK(be->fork(g->qm, g->qck));
            FT_CHECK(seal_dev(g, p, b));
            goto issued;
        }
        /* panel on the host: QR, T (sealed), the top block of V */
        if ((st = panel(g, p, hP, ldp, hT, &th))) return st;
        if (g->prof) g->ph_panel += ft_wtime() - tw;
        if (g->cp_pending) FT_CHECK(qr_source_order(g)); /* the first write to A */
        const int spc = qr_tb(g, g->qh2d, FT_PHASE_COPY, p);
        FT_CHECK(be->set_matrix(g->qh2d, mi, ib, hP, ldp, dA + i + i * ld, ld));
        /* V as the updates apply it (explicit zeros and unit diagonal): the rows below the top
         * block from the panel just copied in, the top block from the host. (Step p-2's V,
         * whose buffer is written now, had its digests after its update taken and back: they
         * were checked above.) */
        FT_CHECK(be->copy_matrix(g->qh2d, mi - ib, ib, dA + i + ib + i * ld, ld, g->dV[b] + ib,
                                 m));
        FT_CHECK(be->set_matrix(g->qh2d, ib, ib, g->hVt, nb, g->dV[b], m));
        FT_CHECK(be->set_matrix(g->qh2d, ib, ib, hT, nb, (g->dT + p * nb * nb), nb));
        qr_te(g, spc, g->qh2d);
    issued:;
        const int arrived = g->nplan && qr_planned_arrival(g, p);
        if (arrived) {
            /* a fault in V or T after they arrived, before the update: on odd steps before the
             * arrival digests (which then differ from the host's seal), on even steps after
             * them (the digests after the update differ) */
            FT_CHECK(be->sync(g->qck));
            if (p & 1) FT_CHECK(qr_inject(g, FT_REGION_REFLECTORS, p));
            FT_CHECK(qr_pc_arrive(g, p));
            FT_CHECK(be->sync(g->qck));
            if (!(p & 1)) FT_CHECK(qr_inject(g, FT_REGION_REFLECTORS, p));
        }
        if (!g->gpanel) FT_CHECK(be->fork(g->qh2d, g->qm));
        FT_CHECK(be->fork(g->gpanel ? g->qm : g->qh2d, g->qs));
        if (g->prof) {
            g->ev_la[p % QR_EV_SLOTS] = 0;
            FT_CHECK(be->event_record(qr_ev(g, p, 0), g->qs));
        }

        /* trailing update: the next panel first (MAIN) and its copy out, then the checks that
         * nothing waits for, then the rest and the checksums (SIDE) */
        const int64_t j0 = i + ib;
        int64_t la = j0 < n && j0 < k ? qr_imin(nb, k - j0) : 0;
        int sum_next = 0;
        if (la > 0) {
            FT_CHECK(be->fork(g->qs, g->qm)); /* the rest of step p-1 */
            const int sp = qr_tb(g, g->qm, FT_PHASE_LOOKAHEAD, p);
            FT_CHECK(qr_larfb_v(be, g->qm, mi, la, ib, g->dV[b], m, g->dT + p * nb * nb, nb,
                                dA + i + j0 * ld, ld, g->dWa, nb));
            qr_te(g, sp, g->qm);
            if (g->prof) {
                g->ev_la[p % QR_EV_SLOTS] = 1;
                FT_CHECK(be->event_record(qr_ev(g, p, 1), g->qm));
            }
            if (!g->gpanel && !qr_needs_sync(g, p + 1)) {
                double *hP2 = g->host ? dA + j0 + j0 * ld : b ? g->hP : g->hV;
                /* the next panel's check, sigma A_p: on the host backend before the
                 * copy (the host factors the panel in place once the copy is done); on a
                 * device beside it (below), and the copy in of the factored panel waits for it */
                if (g->host) FT_CHECK(qr_pc_sum(g, p + 1, g->qm));
                FT_CHECK(be->fork(g->qm, g->qd2h));
                const int spo = qr_tb(g, g->qd2h, FT_PHASE_COPY, p + 1);
                FT_CHECK(be->get_matrix(g->qd2h, m - j0, la, dA + j0 + j0 * ld, ld, hP2, ldp));
                qr_te(g, spo, g->qd2h);
                sum_next = !g->host && g->pcheck;
            }
        }
        th = hp_add(g, QR_HP_ISSUE, th);
        /* panels in work memory: the host waits here for step p-2 to complete on the side
         * queue (its update, the digests after it) and on the check queue (the checks on its
         * arrival, the checkpoint of its vectors, the checksum columns), with panel p
         * and its lookahead issued (the device is not left without work), then reads them */
        if (g->gpanel && p >= p0 + 2) {
            /* the block of columns sent back at the last step unpacked into the caller's A
             * first: the host would wait here anyway */
            if (g->eoA) FT_CHECK(ft_stage_out_wait(g->call, g->qd2h));
            FT_CHECK(be->event_sync(g->evg[(p - 2) % 3]));
            FT_CHECK(be->event_sync(g->evq[(p - 2) % 3]));
            gp_arrived(g, p - 1);
            th = hp_add(g, QR_HP_WAIT, th);
            /* panel p-2 has completed (the check queue forked from after it): its block of
             * columns is final, unless an event changes it, and goes back now */
            if (g->eoA) FT_CHECK(early_out(g, p - 2));
        }
        /* panel p-1's copies in had completed when the copy out waited for above returned
         * (the lookahead it waited for waited for them), so what was issued before them — the
         * checks of panels <= p-2 and the digests after the updates of steps <= p-2 — is here:
         * compared now, while the queues work (a mismatch re-factors at the next step) */
        if (p >= 2) {
            FT_CHECK(qr_q_records(g, (p - 1) * nb, 0));
            FT_CHECK(qr_pc_check(g, p - 1));
        }
        th = hp_add(g, QR_HP_CHECK, th);
        /* what nothing waits for, while the host waits for the copy out: the next panel's
         * sigma A_p; the panel's check and digests on arrival and the checkpoint of its
         * vectors, on the copy-in queue behind the forks */
        if (sum_next) {
            const int sp = qr_tb(g, g->qm, FT_PHASE_ARRIVE, p + 1);
            FT_CHECK(qr_pc_sum(g, p + 1, g->qm));
            qr_te(g, sp, g->qm);
            FT_CHECK(be->fork(g->qm, g->qh2d));
        }
        int sp = qr_tb(g, g->qck, FT_PHASE_ARRIVE, p);
        if (!arrived) FT_CHECK(qr_pc_arrive(g, p));
        qr_te(g, sp, g->qck);
        sp = qr_tb(g, g->qck, FT_PHASE_CHECKPOINT, p);
        FT_CHECK(qr_q_checkpoint(g, i, ib, mi, g->dV[b], m, g->gpanel ? NULL : hT, nb));
        qr_te(g, sp, g->qck);
        th = hp_add(g, QR_HP_PROT, th);
        sp = qr_tb(g, g->qs, FT_PHASE_UPDATE, p);
        if (j0 < n)
            FT_CHECK(qr_larfb_v(be, g->qs, mi, n - j0 - la, ib, g->dV[b], m,
                                g->dT + p * nb * nb, nb, dA + i + (j0 + la) * ld, ld, g->dWb,
                                nb));
        qr_te(g, sp, g->qs);
        if (g->prof) FT_CHECK(be->event_record(qr_ev(g, p, 2), g->qs));
        /* the checksum columns: behind the rest on the side queue; with panels in work memory
         * beside it, on the check queue (a product of m_i x 3B columns that runs at a fraction
         * of the device's rate: on the side queue it cost 23 ms of 282 at n = 16384) */
        if (g->protect) {
            /* only the blocks this panel's reflector reaches: a block whose columns all lie
             * left of i is done, and rows i:m of its checksums are zero up to rounding (its
             * columns are [R; 0] there), so the reflectors would only rotate that rounding —
             * left as it is, a clean check compares the same magnitude with the same zero, and a
             * failing one first applies what was skipped (qr_cs_catch_up; docs/qr.md, "Checksum
             * columns and weights"); about half the update's columns on average */
            const int64_t b0 = p < g->cs_upto || cs_eager() ? 0 : i / g->nbc;
            ft_queue_t *qc = g->gpanel ? g->qck : g->qs;
            sp = qr_tb(g, qc, FT_PHASE_CHECKSUM, p);
            FT_CHECK(qr_larfb_v(be, qc, mi, QR_NCS * (g->ncb - b0), ib, g->dV[b], m,
                                g->dT + p * nb * nb, nb, g->dCS + i + QR_NCS * b0 * m, m,
                                g->dWc, nb));
            qr_te(g, sp, qc);
            if (b0 == 0 && g->cs_upto < p + 1) g->cs_upto = p + 1; /* nothing skipped so far */
        }
        if (g->prof) FT_CHECK(be->event_record(qr_ev(g, p, 3), g->qs));
        /* the reflectors after the update that applied them: on the side queue, or with
         * panels in work memory on the check queue behind the update (qr_pc_after) */
        ft_queue_t *qa = g->gpanel ? g->qck : g->qs;
        sp = qr_tb(g, qa, FT_PHASE_AFTER, p);
        FT_CHECK(qr_pc_after(g, p));
        qr_te(g, sp, qa);
        /* panels in work memory: the end of what ran on the check queue for this step (the
         * checks on arrival, the checkpoint, the checksum columns, the digests after the
         * update), which read dV and dPa of this step's parity: panel p + 2, which rewrites
         * them, waits for it (panel_dev), and the host for its results two steps later. Not
         * the next lookahead: through the side queue it put this chain of small kernels on
         * the panels' critical path (bench/NOTES.md, issue 9 session 5) */
        if (g->gpanel) FT_CHECK(be->event_record(g->evq[p % 3], g->qck));
        if (g->gpanel) FT_CHECK(be->event_record(g->evg[p % 3], g->qs));
        th = hp_add(g, QR_HP_REST, th);
        /* the seal of the vectors and the bound of the panel's check, while the queues work
         * (the next panel comes to the other host buffer) */
        if (g->pcheck && !g->gpanel) {
            seal_job job = {mi, ib, ldp, hP, g->vdig + i};
            ft_team_run(&g->team, seal_part, &job);
            qr_pc_bound(g, p, hP, ldp);
        }
        th = hp_add(g, QR_HP_SEAL, th);
    }
    FT_CHECK(be->sync(g->qm));
    FT_CHECK(be->sync(g->qs));
    FT_CHECK(be->sync(g->qck));
    if (g->gpanel) gp_arrived(g, g->np);
    if (g->prof) FT_CHECK(qr_harvest(g, g->np));
    FT_CHECK(qr_pc_end(g)); /* the checks of the last steps */
    if (g->refactor_from >= 0) {
        while (g->refactor_from >= 0) FT_CHECK(restart_from(g, &p0));
        goto restart;
    }
    if (g->nplan) {
        FT_CHECK(qr_inject(g, FT_REGION_R, g->np - 1));
        FT_CHECK(qr_inject(g, FT_REGION_Q, g->np - 1));
        FT_CHECK(qr_inject(g, FT_REGION_TAU, g->np - 1));
        FT_CHECK(qr_inject_kept(g, g->np + 2));
    }
    double tv = ft_wtime();
    if (g->protect) FT_CHECK(qr_verify(g, k, g->np));
    if (g->refactor_from >= 0) {
        while (g->refactor_from >= 0) FT_CHECK(restart_from(g, &p0));
        goto restart;
    }
    /* the Householder vectors and tau against their checkpoint (unless the final check's
     * recovery has just verified them all, with T) */
    st = g->qv_final >= k ? FT_SUCCESS : qr_q_verify(g, k, g->np, 0); /* no T after this */
    ft_trace_host(g->call, FT_PHASE_VERIFY, g->np, tv, ft_wtime());
    return st;
}

