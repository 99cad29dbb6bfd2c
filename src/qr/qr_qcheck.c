/*
 * qr_qcheck.c — protection of the Householder vectors and tau by diskless checkpointing (paper
 * 004 Sec. 6; checkpoint/checkpoint.h; docs/qr.md "Protection of Q").
 *
 * After each panel is sent to the backend, the backend forms CKP_NS exact sums per column of the
 * copy of its Householder vectors that the updates apply (dV), on the copy-in queue after the
 * panel (off the critical path: nothing waits for it), and they come back to host memory, where
 * they are kept with two copies of tau; two panels later, when the loop knows they have arrived
 * (without waiting for them), the host adds a digest of each record (qr_q_records). Paper 004 (Sec. 6.2) forms the sums on the CPU in its
 * idle time; here the CPU has none to spare (one panel of lookahead keeps it busy) and the sums
 * on the CPU cost 40 % of the factorization at n = 16384 (bench/NOTES.md). Before a recovery
 * applies the reflectors, and at the end of the factorization, the backend forms the same sums
 * of the vectors where they are now (work memory) and the host compares them: up to two changed
 * elements per column are located and restored bit for bit (checkpoint.h), more are reported
 * (FT_ERR_UNCORRECTABLE), a changed tau is restored from its copies.
 */
#include "checkpoint/checkpoint.h"
#include "qr/qr_internal.h"

#include <string.h>

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Columns with a Householder vector below the diagonal. */
static int64_t q_cols(const qr_t *g, int64_t c1)
{
    int64_t c = qr_imin(c1, g->m - 1);
    return c < 0 ? 0 : qr_imin(c, g->k);
}

int qr_q_checkpoint(qr_t *g, int64_t i, int64_t ib, int64_t mi, const double *dV, int64_t ldv,
                    const double *hT, int64_t ldt)
{
    if (!g->protect_q) return FT_SUCCESS;
    const double t0 = ft_wtime();
    const int64_t nc = qr_imin(ib, mi - 1); /* local columns with elements below the diagonal */
    /* hT NULL: the panel was factored in work memory, its tau is on its way to the host, and
     * the copies are taken when it arrives (qr_gp_arrived, qr_loop.c) */
    for (int64_t c = 0; hT && c < ib; c++) {
        /* dlarft sets T(c, c) = tau(c): a difference is a change in one of them since the
         * panel; which one is not known here, so the panel is factored again (the T on the
         * device is checked by the panel's own check) */
        if (!same_bits(g->tau[i + c], hT[c + c * ldt]) && g->refactor_from < 0)
            qr_pc_fail(g, i / g->nb, FT_REGION_PANEL, g->tau[i + c], hT[c + c * ldt]);
        g->tau1[i + c] = g->tau2[i + c] = g->tau[i + c];
    }
    if (nc > 0) {
        FT_CHECK(ckp_kernels(g->be)->sums(g->qck, mi, nc, dV, ldv, g->dQS + CKP_NS * i));
        FT_CHECK(g->be->get_matrix(g->qck, CKP_NS, nc, (const double *)(g->dQS + CKP_NS * i),
                                   CKP_NS, (double *)(g->ckp + CKP_NS * i), CKP_NS));
    }
    if (i + ib > g->ckdone) g->ckdone = i + ib;
    g->tprot += ft_wtime() - t0;
    return FT_SUCCESS;
}

int qr_q_records(qr_t *g, int64_t c1, int wait)
{
    c1 = qr_imin(c1, g->ckdone);
    if (!g->protect_q || g->ckrec_done >= c1) return FT_SUCCESS;
    if (wait) FT_CHECK(g->be->sync(g->qck)); /* the sums of the panels since the last records */
    for (int64_t c = g->ckrec_done; c < c1; c++)
        g->ckrec[c] = ckp_record(g->ckp + CKP_NS * c, g->tau1[c]);
    g->ckrec_done = c1;
    return FT_SUCCESS;
}

/* Detected and not correctable: counted, the call's status, an event. */
static void q_uncorrectable(qr_t *g, int64_t c, int64_t step, double before)
{
    g->rep->detected++, g->rep->uncorrectable++;
    g->uncorrectable = 1;
    ft_report_event(g->rep, FT_EVENT_UNCORRECTABLE, FT_REGION_Q, -1, c, step, before, 0.0);
}

/* tau(c) against its two copies: restore it, refresh a corrupted copy, or report. */
static void check_tau(qr_t *g, int64_t c, int64_t step)
{
    ft_report_t *rep = g->rep;
    const double t = g->tau[c], a = g->tau1[c], b = g->tau2[c];
    if (same_bits(t, a) && same_bits(t, b)) return;
    if (same_bits(a, b)) { /* tau changed */
        g->tau[c] = a;
        rep->detected++, rep->located++, rep->corrected++;
        ft_report_event(rep, FT_EVENT_CORRECTED, FT_REGION_Q, -1, c, step, t, a);
        ft_log(g->ctx, 1, "dgeqrf: tau(%lld) changed (%.17g), restored from the checkpoint",
               (long long)c, t);
    } else if (same_bits(t, a) || same_bits(t, b)) { /* a copy changed */
        g->tau1[c] = g->tau2[c] = t;
        rep->checksum_errors++;
        ft_report_event(rep, FT_EVENT_CHECKSUM, FT_REGION_Q, -1, c, step, 0.0, 0.0);
    } else {
        q_uncorrectable(g, c, step, t);
        ft_log(g->ctx, 1, "dgeqrf: tau(%lld) and both of its copies differ: uncorrectable",
               (long long)c);
    }
}

/* Column c's vector differs from its checkpoint: locate and restore on the host. */
static int repair_column(qr_t *g, int64_t c, const uint64_t *now, int64_t step)
{
    const ft_backend_t *be = g->be;
    ft_report_t *rep = g->rep;
    const int64_t m = g->m, ld = g->ldda, len = m - c - 1;
    ckp_fix_t fix[2];
    const int nf = ckp_locate(g->ckp + CKP_NS * c, now, len, fix);
    if (nf <= 0) {
        q_uncorrectable(g, c, step, 0.0);
        ft_log(g->ctx, 1, "dgeqrf: Householder vector %lld changed in more than two elements: "
               "uncorrectable", (long long)c);
        return FT_SUCCESS;
    }
    double *v = g->hcol; /* rows c+1 .. m-1 of column c */
    FT_CHECK(be->get_matrix(g->qm, len, 1, g->dA + c + 1 + c * ld, ld, v, len));
    FT_CHECK(be->sync(g->qm));
    double before[2];
    for (int f = 0; f < nf; f++) {
        const int64_t r = m - fix[f].t, o = r - c - 1;
        before[f] = v[o];
        v[o] = ckp_restore(v[o], fix[f].delta);
    }
    /* the restored column must give the checkpoint's sums (v as the column of a len+1-row
     * matrix whose rows 1 .. len are v) */
    uint64_t chk[CKP_NS];
    ckp_sums_ref(len + 1, 1, v - 1, len + 1, chk);
    if (memcmp(chk, g->ckp + CKP_NS * c, sizeof chk)) {
        q_uncorrectable(g, c, step, 0.0);
        return FT_SUCCESS;
    }
    for (int f = 0; f < nf; f++) {
        const int64_t r = m - fix[f].t, o = r - c - 1;
        FT_CHECK(be->set_matrix(g->qm, 1, 1, v + o, 1, g->dA + r + c * ld, ld));
        rep->detected++, rep->located++, rep->corrected++;
        ft_report_event(rep, FT_EVENT_CORRECTED, FT_REGION_Q, r, c, step, before[f], v[o]);
        ft_log(g->ctx, 1, "dgeqrf: Householder vector element (%lld,%lld) changed (%.17g), "
               "restored from the checkpoint (%.17g)", (long long)r, (long long)c, before[f],
               v[o]);
    }
    return be->sync(g->qm);
}

int qr_q_verify(qr_t *g, int64_t c1, int64_t step, int use_t)
{
    if (!g->protect_q) return FT_SUCCESS;
    /* verified a moment ago in the same check (nothing has written the vectors since) */
    if (use_t && g->qv_c1 >= 0 && c1 <= g->qv_c1) return FT_SUCCESS;
    const double t0 = ft_wtime();
    const ft_backend_t *be = g->be;
    FT_CHECK(qr_q_records(g, g->ckdone, 1));
    const int64_t nc = q_cols(g, qr_imin(c1, g->ckdone));
    for (int64_t c = 0; c < qr_imin(c1, g->ckdone) && c < g->k; c++) check_tau(g, c, step);
    if (nc <= 0) {
        g->tprot += ft_wtime() - t0;
        return FT_SUCCESS;
    }
    const ckp_kernels_t *K = ckp_kernels(be);
    if (K->detect) {
        /* two sums a column first (ckp_detect_host: any change of one or two elements shows);
         * all of them only for the columns that differ, or whose record changed */
        FT_CHECK(K->detect(g->qm, g->m, nc, g->dA, g->ldda, g->dQS));
        FT_CHECK(be->get_matrix(g->qm, 2, nc, (const double *)g->dQS, 2, (double *)g->hQS, 2));
        FT_CHECK(be->sync(g->qm));
        /* hQS in place from the back: column c's pair moves to CKP_NS c (CKP_NS >= 2) */
        for (int64_t c = nc - 1; c >= 0; c--) {
            uint64_t *now = g->hQS + CKP_NS * c;
            const uint64_t s0 = g->hQS[2 * c], s1 = g->hQS[2 * c + 1],
                           *ref = g->ckp + CKP_NS * c;
            if (s0 == ref[0] && s1 == ref[1] && g->ckrec[c] == ckp_record(ref, g->tau1[c])) {
                memcpy(now, ref, CKP_NS * sizeof *now); /* unchanged */
                continue;
            }
            /* column c alone: the strict lower part of column 0 of A(c:m, c:n) */
            FT_CHECK(K->sums(g->qm, g->m - c, 1, g->dA + c + c * g->ldda, g->ldda,
                             g->dQS + CKP_NS * c));
            FT_CHECK(be->get_matrix(g->qm, CKP_NS, 1, (const double *)(g->dQS + CKP_NS * c),
                                    CKP_NS, (double *)now, CKP_NS));
            FT_CHECK(be->sync(g->qm));
        }
    } else {
        FT_CHECK(K->sums(g->qm, g->m, nc, g->dA, g->ldda, g->dQS));
        FT_CHECK(be->get_matrix(g->qm, CKP_NS, nc, (const double *)g->dQS, CKP_NS,
                                (double *)g->hQS, CKP_NS));
        FT_CHECK(be->sync(g->qm));
    }
    g->rep->checks += nc;
    for (int64_t c = 0; c < nc; c++) {
        const uint64_t *now = g->hQS + CKP_NS * c, *ref = g->ckp + CKP_NS * c;
        if (g->ckrec[c] != ckp_record(ref, g->tau1[c])) {
            /* the record itself changed: this column cannot be verified */
            if (memcmp(now, ref, CKP_NS * sizeof *now)) {
                g->rep->unchecked++;
                g->unchecked_finite = 1;
                ft_report_event(g->rep, FT_EVENT_CHECKSUM, FT_REGION_Q, -1, c, step, 0.0, 0.0);
                ft_log(g->ctx, 1, "dgeqrf: checkpoint record of column %lld corrupted: "
                       "its Householder vector is UNCHECKED", (long long)c);
            } else { /* the vector matches the sums: the record's digest or tau copy changed */
                g->ckrec[c] = ckp_record(ref, g->tau1[c]);
            }
            continue;
        }
        if (memcmp(now, ref, CKP_NS * sizeof *now)) FT_CHECK(repair_column(g, c, now, step));
    }
    /* the T factors of the panels whose vectors were just verified (a recovery or a
     * re-factorization applies them) */
    if (use_t) FT_CHECK(qr_pc_tverify(g, qr_imin(c1, g->ckdone) / g->nb, step));
    if (use_t && g->qv_c1 >= 0 && qr_imin(c1, g->ckdone) > g->qv_c1)
        g->qv_c1 = qr_imin(c1, g->ckdone); /* inside a check: see qr_t */
    g->tprot += ft_wtime() - t0;
    g->tc_q += ft_wtime() - t0;
    return FT_SUCCESS;
}
