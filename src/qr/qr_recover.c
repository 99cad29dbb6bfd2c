/*
 * qr_recover.c — recovery of an error that later panels consumed (paper 004, Sec. 4-5;
 * docs/recovery.md). Error model (paper eq. (2)): the factorization that ran is an exact one of
 * A~ = A - d e_j^T, so with the state S = Q~^T A~ at panel boundary i (columns < i finished):
 *   w = Q~^T a_j - S(:, j)                                          (paper Sec. 5.2)
 * is the whole damage, and it equals the residual of the plain checksum, r / sigma, which is
 * how the original column is itself checked (qr_checks.c). Two ways back:
 *   - QR update (Algorithm 1, as a column replacement): column j := z = Q~^T a_j (S(:, j) + w,
 *     formed from a_j, free of the error's rounding); zero z below row j bottom-up with
 *     rotations J applied to the rows below j (upper Hessenberg there; the subdiagonal in
 *     dSub), reduce that block to triangular top-down with G; the checksum columns take the
 *     same rotations, so the next check verifies the recovery itself. Q = Q~ J G: the
 *     rotations go to the FT factor (qrf.h), the identity above row j. Paper 004 zeroes w
 *     through every row to e_1; stopping at row j gives the same QR from the trailing
 *     (m - j) x (n - j) part of R alone.
 *   - re-factorization from the first panel the error reached: restore the columns from there
 *     on, apply the earlier (verified) reflectors to them and to the original checksums, and
 *     continue the loop from that panel: the output is LAPACK's layout.
 * The original columns come from the caller's A, a copy taken at the start, or the context's
 * column source (qr_source_begin).
 */
#include "core/size.h"
#include "givens/givens.h"
#include "qr/qr_internal.h"
#include "qr/qr_solve_kernels.h"
#include "qr/qrf.h"

#include <stdlib.h>
#include <string.h>

int qr_source_begin(qr_t *g, int is_gpu, const double *A, int64_t lda, int *early)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n;
    g->src = QR_SRC_NONE;
    g->cp_pending = 0;
    g->src_enc = NULL;
    if (!g->protect) return FT_SUCCESS;
    if (g->ctx->colsrc) {
        g->src = QR_SRC_FN;
        return FT_SUCCESS;
    }
    const int keep = g->pol.keep_input;
    if (keep < 0) return FT_SUCCESS;
    int64_t e;
    size_t bytes;
    const int big = ft_mul_ovf(m, n, &e) || ft_dbytes(e, &bytes);
    if (!is_gpu && !g->host && keep == 0) {
        /* the caller's A is staged, and left untouched until the end; when its finished columns
         * are to go back during the call, a copy in work memory instead, if it fits with room to
         * spare (else the columns go back at the end) */
        const size_t fr = be->mem_free ? be->mem_free() : 0;
        if (!*early || big || (fr && fr < bytes + bytes / 4 + ((size_t)512 << 20))) {
            *early = 0;
            g->src = QR_SRC_CALLER;
            g->srcA = A;
            g->ldsrc = lda;
            return FT_SUCCESS;
        }
    }
    if (big) {
        *early = 0;
        return FT_SUCCESS;
    }
    FT_CHECK(ft_call_queue(g->call, &g->qcp));
    double *p = NULL;
    if (!g->host && keep != 1 && ft_call_work_doubles(g->call, e, &p) == FT_SUCCESS) {
        FT_CHECK(be->fork(g->qm, g->qcp));
        FT_CHECK(be->copy_matrix(g->qcp, m, n, g->dA, g->ldda, p, m));
        g->src = QR_SRC_DEVICE;
    } else if (!is_gpu && !g->host && keep == 0) { /* no room after all: the caller's A */
        *early = 0;
        g->src = QR_SRC_CALLER;
        g->srcA = A;
        g->ldsrc = lda;
        return FT_SUCCESS;
    } else if (ft_call_pinned_doubles(g->call, e, &p) == FT_SUCCESS) {
        g->src = QR_SRC_HOST;
        if (g->host) { /* taken by the encoding's read of A, before anything writes A */
            g->src_enc = p;
            g->srcA = p;
            g->ldsrc = m;
            return FT_SUCCESS;
        }
        FT_CHECK(be->fork(g->qm, g->qcp));
        FT_CHECK(be->get_matrix(g->qcp, m, n, g->dA, g->ldda, p, m));
    } else {
        ft_log(g->ctx, 1, "dgeqrf: no memory for a copy of A: propagated errors will be reported, "
                          "not recovered");
        return FT_SUCCESS;
    }
    g->srcA = p;
    g->ldsrc = m;
    g->cp_pending = 1;
    /* the host backend factors in place on the calling thread: the copy must be complete */
    if (g->host) FT_CHECK(qr_source_wait(g));
    return FT_SUCCESS;
}

int qr_source_wait(qr_t *g)
{
    if (!g->cp_pending) return FT_SUCCESS;
    g->cp_pending = 0;
    return g->be->sync(g->qcp);
}

int qr_source_order(qr_t *g)
{
    if (!g->cp_pending) return FT_SUCCESS;
    g->cp_pending = 0;
    FT_CHECK(g->be->fork(g->qcp, g->qh2d));
    FT_CHECK(g->be->fork(g->qcp, g->qm));
    return g->be->fork(g->qcp, g->qs);
}

/* Columns j0 .. j0+nc-1 of the original A into work memory dst (ld ldd), on MAIN (synced).
 * *ok = 0 when there is no source or the column source failed. */
static int source_columns(qr_t *g, int64_t j0, int64_t nc, double *dst, int64_t ldd, int *ok)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m;
    *ok = 1;
    switch (g->src) {
    case QR_SRC_CALLER:
    case QR_SRC_HOST:
        FT_CHECK(qr_source_wait(g));
        FT_CHECK(be->set_matrix(g->qm, m, nc, g->srcA + j0 * g->ldsrc, g->ldsrc, dst, ldd));
        break;
    case QR_SRC_DEVICE:
        FT_CHECK(qr_source_order(g));
        FT_CHECK(be->copy_matrix(g->qm, m, nc, g->srcA + j0 * g->ldsrc, g->ldsrc, dst, ldd));
        break;
    case QR_SRC_FN:
        for (int64_t c = 0; c < nc && *ok; c++) {
            FT_CHECK(be->sync(g->qm)); /* hcol is free */
            if (g->ctx->colsrc(g->ctx->colsrc_user, (ft_int)(j0 + c), (ft_int)m, g->hcol)) {
                ft_log(g->ctx, 1, "dgeqrf: the column source failed for column %lld",
                       (long long)(j0 + c));
                *ok = 0;
                break;
            }
            FT_CHECK(be->set_matrix(g->qm, m, 1, g->hcol, m, dst + c * ldd, ldd));
        }
        break;
    default:
        *ok = 0;
    }
    return be->sync(g->qm);
}

/* X := op(H_p0 ... H_(p1-1)) X for the reflectors of panels p0 .. p1-1 stored in A (unit lower
 * V in the columns of each panel, T in dT): trans 'T' applies H_p0^T first, 'N' H_(p1-1) first.
 * X is m x nc (work memory, ld ldx); Wk nb x nc (ld nb). A thin X (nc <= QR_THIN_X: the
 * recovery's vector, a checksum block) goes to the backend's one-launch kernel where it has one;
 * otherwise each panel is LAPACK dlarfb with V in place (qr_larfb, shared with ft_dormqr_gpu). */
enum { QR_THIN_X = 8 };

int qr_apply_reflectors(qr_t *g, ft_queue_t *q, char trans, int64_t p0, int64_t p1, int64_t nc,
                        double *X, int64_t ldx, double *Wk)
{
    const int64_t nb = g->nb;
    const int t = trans == 'T' || trans == 't';
    if (nc <= 0 || p1 <= p0) return FT_SUCCESS;
    if (nc <= QR_THIN_X) {
        const qr_solve_kernels_t *K = qr_solve_kernels(g->be);
        int done = 0;
        if (K && K->reflect)
            FT_CHECK(K->reflect(q, t, g->m, g->k, nb, p0, p1, g->dA, g->ldda, g->dT, X, ldx, nc,
                                &done));
        if (done) return FT_SUCCESS;
    }
    for (int64_t s = 0; s < p1 - p0; s++) {
        const int64_t p = t ? p0 + s : p1 - 1 - s;
        const int64_t i = p * nb, ib = qr_imin(nb, g->k - i);
        FT_CHECK(qr_larfb(g->be, q, 1, t, g->m, nc, g->m, i, ib, g->dA, g->ldda,
                          g->dT + p * nb * nb, nb, g->dI, X, ldx, Wk));
    }
    return FT_SUCCESS;
}

/* Panels whose reflectors have been applied to the state at boundary i. */
static int64_t panels_done(const qr_t *g, int64_t i) { return i >= g->k ? g->np : i / g->nb; }

/* The first panel checksum block b has not had at the state of pd panels done, or pd when it
 * is up to date: block b is skipped from panel pb = ceil((b + 1) nbc / nb) on (panel p updates
 * the blocks from p nb / nbc), so it holds panels 0 .. max(cs_upto, csb[b], pb) - 1 */
static int64_t cs_missing_from(const qr_t *g, int64_t b, int64_t pd)
{
    const int64_t pb = ((b + 1) * g->nbc + g->nb - 1) / g->nb;
    int64_t from = g->cs_upto > g->csb[b] ? g->cs_upto : g->csb[b];
    if (pb > from) from = pb;
    return from < pd ? from : pd;
}

int qr_cs_catch_up(qr_t *g, int64_t i)
{
    const ft_backend_t *be = g->be;
    const int64_t pd = panels_done(g, i);
    int any = 0;
    for (int64_t b = 0; b < g->ncb && !any; b++)
        any = cs_missing_from(g, b, pd) < pd && qr_block_fails_sizes(g, b);
    if (!any) return FT_SUCCESS;
    FT_CHECK(be->sync(g->qs));
    if (g->qck) FT_CHECK(be->sync(g->qck));
    FT_CHECK(be->sync(g->qm));
    /* the reflectors about to be applied, against their checkpoint */
    FT_CHECK(qr_q_verify(g, pd * g->nb, i / g->nb, 1));
    for (int64_t b = 0; b < g->ncb; b++) {
        const int64_t from = cs_missing_from(g, b, pd);
        if (from >= pd || !qr_block_fails_sizes(g, b)) continue;
        FT_CHECK(qr_apply_reflectors(g, g->qm, 'T', from, pd, QR_NCS, g->dCS + QR_NCS * b * g->m,
                                     g->m, g->dWc));
        g->csb[b] = pd;
    }
    return be->sync(g->qm);
}

int qr_recovery_w(qr_t *g, int64_t i, int64_t j, int *ok)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, ld = g->ldda;
    /* the reflectors about to be applied, against their checkpoint */
    FT_CHECK(qr_q_verify(g, panels_done(g, i) * g->nb, i / g->nb, 1));
    FT_CHECK(source_columns(g, j, 1, g->dY, m, ok));
    if (!*ok) return FT_SUCCESS;
    /* Q^T a_j, Q = H_0 ... R_1 ... H_.. R_2 ...: the reflectors in segments, and between them
     * the rotations of the recoveries made so far in this call (on the host: O(m) each) */
    const int64_t pd = panels_done(g, i);
    int64_t p0 = 0;
    for (int r = 0; g->qrf && r < g->qrf->nrec; r++) {
        const qrf_rec_t *rec = &g->qrf->rec[r];
        const int64_t p1 = rec->i >= g->k ? g->np : rec->i / g->nb;
        FT_CHECK(qr_apply_reflectors(g, g->qm, 'T', p0, p1, 1, g->dY, m, g->dWa));
        p0 = p1;
        FT_CHECK(be->get_matrix(g->qm, m, 1, g->dY, m, g->hcol, m));
        FT_CHECK(be->sync(g->qm));
        qrf_apply_record(rec, 1, 0, g->hcol, m, 1, m);
        FT_CHECK(be->set_matrix(g->qm, m, 1, g->hcol, m, g->dY, m));
    }
    FT_CHECK(qr_apply_reflectors(g, g->qm, 'T', p0, pd, 1, g->dY, m, g->dWa));
    /* z = Q~^T a_j, kept: the recovered column is written from z itself, never as S(:, j) + w
     * (S(:, j) holds the error; for an error far above ||A|| the sum would keep its rounding,
     * u |e|, and the checks after the recovery would fail) */
    FT_CHECK(be->copy_matrix(g->qm, m, 1, g->dY, m, g->dZ, m));
    /* the data rows of column j: 0..j when finished (below: its Householder vector), all
     * when it is still a trailing column; w -= S(rows, j) as a product with the scalar 1 */
    const int64_t rows = j < i ? j + 1 : m;
    FT_CHECK(be->dgemv(g->qm, 'N', rows, 1, -1.0, g->dA + j * ld, ld, g->dI, 1.0, g->dY));
    FT_CHECK(be->get_matrix(g->qm, m, 1, g->dY, m, g->hcol, m));
    return be->sync(g->qm);
}

int qr_recovery_replace(qr_t *g, int64_t j)
{
    const int64_t m = g->m, ld = g->ldda;
    /* S(:, j) + w = z: a trailing column is Q~^T a_j in all its rows */
    FT_CHECK(g->be->copy_matrix(g->qm, m, 1, g->dZ, m, g->dA + j * ld, ld));
    return g->be->sync(g->qm);
}

/* profile only (verbose >= 1): wait for q, add the time since *t to the phase, restart */
static int rphase(qr_t *g, ft_queue_t *q, int ph, double *t)
{
    if (!g->prof) return FT_SUCCESS;
    FT_CHECK(g->be->sync(q));
    const double now = ft_wtime();
    g->ph_rec[ph] += now - *t;
    *t = now;
    return FT_SUCCESS;
}

int qr_recovery_update(qr_t *g, int64_t i, int64_t j)
{
    const ft_backend_t *be = g->be;
    const givens_kernels_t *K = givens_kernels(be);
    const int64_t m = g->m, n = g->n, ld = g->ldda, nc = QR_NCS * g->ncb;
    double *dA = g->dA, *cJ = g->dRot, *sJ = cJ + m, *cG = sJ + m, *sG = cG + m;
    ft_queue_t *q = g->qm;
    const int64_t ip = i + 1 < m ? i + 1 : m; /* rows 0 .. ip-1: finished rows and row i */
    const int64_t r0 = j + 1, hb = ip - r0;   /* the block below row j: rows r0 .. ip-1 (j < i) */
    double tp = ft_wtime();
    /* J, the planes below row i: z(i+1 : m) into z(i); they mix trailing rows only (columns
     * >= i; rows >= i hold no data left of column i, and there w = z: S(:, j) is zero) */
    if (m - 1 > i) {
        FT_CHECK(K->zero_to_hess(q, m - i, 0, g->dZ + i, dA, ld, g->dSub, cJ + i, sJ + i));
        if (n > i) FT_CHECK(K->lasr(q, 'B', m - i, n - i, cJ + i, sJ + i, dA + i + i * ld, ld));
        FT_CHECK(K->lasr(q, 'B', m - i, nc, cJ + i, sJ + i, g->dCS + i, m));
    }
    FT_CHECK(rphase(g, q, QR_RPH_BELOW, &tp));
    /* J, the planes from row j down: column j := z has nonzeros below its diagonal; rows
     * r0 .. ip-1 of R~ right of column j are upper triangular: zero z(r0+1 .. ip-1) into z(r0)
     * bottom-up with the rotations applied to that block (upper Hessenberg after, its
     * subdiagonal in dSub), then z(r0) into z(j) with the plane (j, j+1) on columns > j. Rows
     * above j are not touched: the work is the trailing (m - j) x (n - j) part, not all of R
     * (paper 004 Algorithm 1 zeroes w to e_1 through every row; the QR that results is the
     * same, Q = Q~ J G with the rotations above row j the identity) */
    if (hb > 1) {
        FT_CHECK(K->zero_to_hess(q, hb, n - r0, g->dZ + r0, dA + r0 + r0 * ld, ld, g->dSub + r0,
                                 cJ + r0, sJ + r0));
        FT_CHECK(K->lasr(q, 'B', hb, nc, cJ + r0, sJ + r0, g->dCS + r0, m));
    }
    FT_CHECK(K->zero_to_hess(q, 2, 0, g->dZ + j, dA, ld, g->dSub, cJ + j, sJ + j));
    if (n > r0) FT_CHECK(K->lasr(q, 'B', 2, n - r0, cJ + j, sJ + j, dA + j + r0 * ld, ld));
    FT_CHECK(K->lasr(q, 'B', 2, nc, cJ + j, sJ + j, g->dCS + j, m));
    FT_CHECK(rphase(g, q, QR_RPH_Z2H, &tp));
    /* column j: z(0 .. j) (z formed from a_j itself, not as S(:, j) + w, which would keep the
     * rounding of the error); its rows below j hold its Householder vector, kept */
    FT_CHECK(be->copy_matrix(q, j + 1, 1, g->dZ, m, dA + j * ld, ld));
    /* G: the block to triangular, top-down */
    const int64_t ng = ip - 1 < n ? ip - 1 : n; /* the record's G: planes 0 .. ng-1 */
    const int64_t ngl = hb - 1 < n - r0 ? hb - 1 : n - r0;
    FT_CHECK(rphase(g, q, QR_RPH_COLJ, &tp));
    if (hb > 1 && n > r0) FT_CHECK(K->hess_to_tri(q, hb, n - r0, dA + r0 + r0 * ld, ld,
                                                  g->dSub + r0, cG + r0, sG + r0));
    FT_CHECK(rphase(g, q, QR_RPH_H2T, &tp));
    if (ngl > 0) FT_CHECK(K->lasr(q, 'F', ngl + 1, nc, cG + r0, sG + r0, g->dCS + r0, m));
    FT_CHECK(rphase(g, q, QR_RPH_CSUM, &tp));
    if (g->qrf) {
        double *h = malloc((size_t)(4 * m) * sizeof(double));
        if (!h) return FT_ERR_ALLOC;
        int st = be->get_matrix(q, m, 4, g->dRot, m, h, m);
        if (!st) st = be->sync(q);
        /* the planes the update did not use are the identity: J above row j, G above r0 */
        for (int64_t p = 0; p < j; p++) h[p] = 1.0, h[m + p] = 0.0;
        for (int64_t p = 0; p < r0 && p < m; p++) h[2 * m + p] = 1.0, h[3 * m + p] = 0.0;
        if (!st) st = qrf_add(g->qrf, i, m - 1, ng, h, h + m, h + 2 * m, h + 3 * m);
        free(h);
        FT_CHECK(st);
    }
    return be->sync(q);
}

int qr_refactor(qr_t *g, int64_t P)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n, ld = g->ldda, i0 = P * g->nb, nc = QR_NCS * g->ncb;
    const double t0 = ft_wtime();
    int ok;
    g->nrefactor++;
    FT_CHECK(be->sync(g->qs));
    FT_CHECK(qr_q_verify(g, i0, P, 1)); /* the reflectors about to be applied */
    FT_CHECK(source_columns(g, i0, n - i0, g->dA + i0 * ld, ld, &ok));
    if (!ok) {
        g->not_recovered = 1;
        return FT_SUCCESS;
    }
    FT_CHECK(be->copy_matrix(g->qm, m, nc, g->dCS0, m, g->dCS, m));
    FT_CHECK(qr_apply_reflectors(g, g->qm, 'T', 0, P, n - i0, g->dA + i0 * ld, ld, g->dWb));
    FT_CHECK(qr_apply_reflectors(g, g->qm, 'T', 0, P, nc, g->dCS, m, g->dWc));
    g->cs_upto = P; /* every block has panels 0 .. P-1 */
    for (int64_t b = 0; b < g->ncb; b++) g->csb[b] = 0;
    FT_CHECK(be->sync(g->qm));
    ft_report_t *r = g->rep;
    if (r->refactor_col < 0 || i0 < r->refactor_col) r->refactor_col = i0;
    const double mi = (double)(m - i0), ni = (double)(n - i0), kk = mi < ni ? mi : ni;
    r->refactor_flops += 4.0 * (double)m * (double)i0 * ni +
                         (2.0 * mi * ni * kk - (mi + ni) * kk * kk + 2.0 * kk * kk * kk / 3.0);
    r->recovery |= 2;
    ft_log(g->ctx, 1, "dgeqrf: re-factorization from column %lld (panel %lld)", (long long)i0,
           (long long)P);
    g->trec += ft_wtime() - t0;
    return FT_SUCCESS;
}
