/*
 * ft_dgemm.c — C := alpha*op(A)*op(B) + beta*C with algorithm-based fault tolerance.
 *
 * Written once against the backend table (src/core/backend.h); runs on the host and on CUDA.
 *
 * Fast path (no error), paper 003 adapted (docs/dgemm.md, docs/thresholds.md):
 *   side queue : Y = op(B) [e_J w_J] per column block J (k x 2nb), z_J = |op(B)| e_J,
 *                anorm = ||op(A)(i,:)||_1, P = op(A) Y (m x 2nb)       -- overlaps the product
 *   main queue : (beta != 0) block row sums of the input C; the product; block row sums of the
 *                result; compare every (row, block) check with alpha P + beta C0-sums.
 * Rare path (a check failed): for each flagged tile, column checks are computed on demand
 * ([e_I w_I]^T op(A)(I,:) op(B)(:,J)), errors located by intersecting failing rows and columns,
 * single and collinear errors corrected in place, other patterns recomputed, and the tile
 * verified again. A corrupted checksum is recognised because only one of its two checks fails.
 */
#include "blas3/abft.h"
#include "core/context.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_CAP 4096
#define MAX_TILE_FIX 64 /* flagged elements per tile handled by in-place correction */

enum { EV_START = 0, EV_GEMM0 = 1, EV_GEMM1 = 2, EV_END = 3 };

typedef struct {
    ft_context_t *ctx;
    const ft_backend_t *be;
    ft_report_t *rep;
    ft_policy_t pol;
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
    /* work buffers */
    double *Y, *Z, *zmax, *P, *anorm, *CS, *CA, *C0S, *C0A, *C0col, *C0colA;
    double *tmp; /* per-tile scratch in work memory */
    int have_c0;
} gemm_t;

static char flip(char t) { return ft_is_notrans(t) ? 'T' : 'N'; }

/* Pointer to row block starting at row r0 of op(A), and column block at c0 of op(B). */
static const double *opa_rows(const gemm_t *g, int64_t r0)
{
    return ft_is_notrans(g->ta) ? g->A + r0 : g->A + r0 * g->lda;
}
static const double *opb_cols(const gemm_t *g, int64_t c0)
{
    return ft_is_notrans(g->tb) ? g->B + c0 * g->ldb : g->B + c0;
}

static int64_t dmin(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---------------------------------------------------------------------------------------- */
/* Tile analysis on the rare path. All small vectors are brought to the host.               */
/* ---------------------------------------------------------------------------------------- */

typedef struct {
    int64_t I, J, i0, j0, mI, nJ;
    /* rows (length mI): predictions, thresholds' g and h, computed sums */
    double *pe, *pw, *rg, *rh, *rse, *rsw, *rsa;
    /* columns (length nJ) */
    double *qe, *qw, *cg, *ch, *cse, *csw, *csa;
    double *host; /* landing buffer of tile_gather (GR_N mI + GC_N nJ + 2) */
} tile_t;

/*
 * Everything one tile's checks need is assembled in a device scratch block G and brought to
 * the host in ONE transfer (each transfer is a round trip that waits for the GPU):
 *   rows (mI each): P(.,2J), P(.,2J+1), anorm, C0 sums (plain, weighted, abs), computed sums
 *                   (plain, weighted, abs)                                     -> 9 mI
 *   cols (nJ each): q = op(B)(:,J)^T [e_I w_I]^T op(A)(I,:) (2), ||op(B)(:,j)||_1, C0 column
 *                   sums (3), computed column sums (3)                         -> 9 nJ
 *   zmax(J), max_l |op(A)(I,:)|^T e                                            -> 2
 * followed by device-only temporaries Xi (k x 2) and xa (k).
 */
enum { GR_PE, GR_PW, GR_AN, GR_C0E, GR_C0W, GR_C0A, GR_SE, GR_SW, GR_SA, GR_N };
enum { GC_QE, GC_QW, GC_BN, GC_C0E, GC_C0W, GC_C0A, GC_SE, GC_SW, GC_SA, GC_N };

static size_t gather_size(int64_t T, int64_t k) { return (size_t)(GR_N * T + GC_N * T + 2 + 3 * k); }

/* Assemble G on the device (predictions only when `predict`), fetch it, fill the tile. */
static int tile_gather(gemm_t *g, tile_t *t, int predict, double *host)
{
    const ft_backend_t *be = g->be;
    ft_context_t *ctx = g->ctx;
    const int64_t m = g->m, n = g->n, k = g->k, mI = t->mI, nJ = t->nJ;
    double *G = g->tmp, *Gr = G, *Gc = G + GR_N * mI, *Gs = Gc + GC_N * nJ;
    double *Xi = Gs + 2, *xa = Xi + 2 * k;
    double *Ct = g->C + ft_ix(t->i0, t->j0, g->ldc);
    /* computed sums; block size g->T, not the tile's own width: a partial tile's weights must
     * use the same denominator W as the fast-path checks */
    FT_CHECK(be->block_sums(ctx, FT_Q_MAIN, 'N', mI, nJ, Ct, g->ldc, g->T, Gr + GR_SE * mI, mI,
                            Gr + GR_SA * mI, mI));
    FT_CHECK(be->block_sums(ctx, FT_Q_MAIN, 'T', nJ, mI, Ct, g->ldc, g->T, Gc + GC_SE * nJ, nJ,
                            Gc + GC_SA * nJ, nJ));
    if (predict) {
        FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, mI, 2, g->P + t->i0 + 2 * t->J * m, m,
                                 Gr + GR_PE * mI, mI));
        FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, mI, 1, g->anorm + t->i0, m, Gr + GR_AN * mI, mI));
        FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, 1, 1, g->zmax + t->J, 1, Gs, 1));
        if (g->have_c0) {
            FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, mI, 2, g->C0S + t->i0 + 2 * t->J * m, m,
                                     Gr + GR_C0E * mI, mI));
            FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, mI, 1, g->C0A + t->i0 + t->J * m, m,
                                     Gr + GR_C0A * mI, mI));
            if (g->C0col) {
                FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, nJ, 2, g->C0col + t->j0 + 2 * t->I * n, n,
                                         Gc + GC_C0E * nJ, nJ));
                FT_CHECK(be->copy_matrix(ctx, FT_Q_MAIN, nJ, 1, g->C0colA + t->j0 + t->I * n, n,
                                         Gc + GC_C0A * nJ, nJ));
            } else {
                /* column sums of the input C not kept: computed here from its backup */
                FT_CHECK(be->block_sums(ctx, FT_Q_MAIN, 'T', nJ, mI,
                                        g->Cb + ft_ix(t->i0, t->j0, m), m, g->T,
                                        Gc + GC_C0E * nJ, nJ, Gc + GC_C0A * nJ, nJ));
            }
        }
        /* column predictions: Xi = [e_I w_I]^T op(A)(I,:) (k x 2), xa = |op(A)(I,:)|^T e,
         * q = op(B)(:,J)^T Xi (nJ x 2), bn(j) = ||op(B)(:,j)||_1 */
        FT_CHECK(be->block_sums(ctx, FT_Q_MAIN, flip(g->ta), k, mI, opa_rows(g, t->i0), g->lda,
                                g->T, Xi, k, xa, k));
        FT_CHECK(be->col_absmax(ctx, FT_Q_MAIN, k, 1, xa, k, Gs + 1));
        /* two matrix-vector products: a 2-column DGEMM with long k ran on few thread blocks */
        for (int c = 0; c < 2; c++) {
            if (ft_is_notrans(g->tb))
                FT_CHECK(be->dgemv(ctx, FT_Q_MAIN, 'T', k, nJ, 1.0, opb_cols(g, t->j0), g->ldb,
                                   Xi + c * k, 0.0, Gc + (GC_QE + c) * nJ));
            else
                FT_CHECK(be->dgemv(ctx, FT_Q_MAIN, 'N', nJ, k, 1.0, opb_cols(g, t->j0), g->ldb,
                                   Xi + c * k, 0.0, Gc + (GC_QE + c) * nJ));
        }
        FT_CHECK(be->block_sums(ctx, FT_Q_MAIN, flip(g->tb), nJ, k, opb_cols(g, t->j0), g->ldb, k,
                                NULL, 0, Gc + GC_BN * nJ, nJ));
    }
    const int64_t len = GR_N * mI + GC_N * nJ + 2;
    FT_CHECK(be->get_matrix(ctx, FT_Q_MAIN, len, 1, G, len, host, len));
    FT_CHECK(be->sync(ctx, FT_Q_MAIN));
    const double *hr = host, *hc = host + GR_N * mI, *hs = hc + GC_N * nJ;
    for (int64_t i = 0; i < mI; i++) {
        t->rse[i] = hr[GR_SE * mI + i];
        t->rsw[i] = hr[GR_SW * mI + i];
        t->rsa[i] = hr[GR_SA * mI + i];
    }
    for (int64_t j = 0; j < nJ; j++) {
        t->cse[j] = hc[GC_SE * nJ + j];
        t->csw[j] = hc[GC_SW * nJ + j];
        t->csa[j] = hc[GC_SA * nJ + j];
    }
    if (!predict) return FT_SUCCESS;
    for (int64_t i = 0; i < mI; i++) {
        t->pe[i] = g->alpha * hr[GR_PE * mI + i];
        t->pw[i] = g->alpha * hr[GR_PW * mI + i];
        t->rg[i] = hr[GR_AN * mI + i] * hs[0];
        t->rh[i] = 0.0;
        if (g->have_c0) {
            t->pe[i] += g->beta * hr[GR_C0E * mI + i];
            t->pw[i] += g->beta * hr[GR_C0W * mI + i];
            t->rh[i] = hr[GR_C0A * mI + i];
        }
    }
    for (int64_t j = 0; j < nJ; j++) {
        t->qe[j] = g->alpha * hc[GC_QE * nJ + j];
        t->qw[j] = g->alpha * hc[GC_QW * nJ + j];
        t->cg[j] = hs[1] * hc[GC_BN * nJ + j];
        t->ch[j] = 0.0;
        if (g->have_c0) {
            t->qe[j] += g->beta * hc[GC_C0E * nJ + j];
            t->qw[j] += g->beta * hc[GC_C0W * nJ + j];
            t->ch[j] = hc[GC_C0A * nJ + j];
        }
    }
    return FT_SUCCESS;
}

static int tile_sums(gemm_t *g, tile_t *t) { return tile_gather(g, t, 0, t->host); }

/* One check: 0 pass, 1 fail (bit 1: plain, bit 2: weighted), -1 not verifiable. */
static int check_one(const gemm_t *g, int64_t T, double pe, double pw, double gg, double hh,
                     double se, double sw, double sa)
{
    /* same rules as abft_row_check: a non-finite bound means non-finite inputs (not
     * verifiable); a non-finite prediction under a finite bound is a corrupted checksum and
     * fails its own check only */
    double tau = abft_tau(g->pol.tol, g->k, T, g->alpha, g->beta, gg, hh, 0.0);
    if (!isfinite(tau)) return -1;
    if (!isfinite(sa)) return 3;
    tau += abft_tau_s(g->pol.tol, T, sa);
    int r = 0;
    if (!(fabs(se - pe) <= tau)) r |= 1;
    if (!(fabs(sw - pw) <= tau)) r |= 2;
    return r;
}

static int row_status(const gemm_t *g, const tile_t *t, int64_t i)
{
    return check_one(g, g->T, t->pe[i], t->pw[i], t->rg[i], t->rh[i], t->rse[i], t->rsw[i],
                     t->rsa[i]);
}
static int col_status(const gemm_t *g, const tile_t *t, int64_t j)
{
    return check_one(g, g->T, t->qe[j], t->qw[j], t->cg[j], t->ch[j], t->cse[j], t->csw[j],
                     t->csa[j]);
}

/* Correct elements (rows[e], cols[e]) from the row checks (by_row) or the column checks:
 * zero them, recompute the sums, set each to prediction minus the sum of the others. Exact
 * even when the corrupted value is Inf or NaN. Each element must be alone in its row (by_row)
 * or column. */
static int tile_fix(gemm_t *g, tile_t *t, const int64_t *rows, const int64_t *cols, int ne,
                    int by_row)
{
    double *Ct = g->C + ft_ix(t->i0, t->j0, g->ldc);
    double before[MAX_TILE_FIX];
    /* The sum of the others is the computed sum minus the corrupted value, unless that value
     * is Inf/NaN or dominates the sum (the subtraction would cancel catastrophically): then
     * zero the elements and sum again (one more round trip). */
    int resum = 0;
    for (int e = 0; e < ne; e++) {
        FT_CHECK(g->be->get_elem(g->ctx, FT_Q_MAIN, Ct + ft_ix(rows[e], cols[e], g->ldc),
                                 &before[e]));
        double others = by_row ? t->rsa[rows[e]] - fabs(before[e]) : t->csa[cols[e]] - fabs(before[e]);
        if (!isfinite(before[e]) || !(fabs(before[e]) <= others)) resum = 1;
    }
    if (resum) {
        for (int e = 0; e < ne; e++)
            FT_CHECK(g->be->set_elem(g->ctx, FT_Q_MAIN, Ct + ft_ix(rows[e], cols[e], g->ldc), 0.0));
        FT_CHECK(tile_sums(g, t));
    }
    for (int e = 0; e < ne; e++) {
        double v = by_row ? t->pe[rows[e]] - t->rse[rows[e]] : t->qe[cols[e]] - t->cse[cols[e]];
        if (!resum) v += before[e];
        FT_CHECK(g->be->set_elem(g->ctx, FT_Q_MAIN, Ct + ft_ix(rows[e], cols[e], g->ldc), v));
        ft_report_event(g->rep, FT_EVENT_CORRECTED, FT_REGION_C, t->i0 + rows[e],
                        t->j0 + cols[e], t->I * g->nb + t->J, before[e], v);
        ft_log(g->ctx, 2, "dgemm: corrected C(%lld,%lld) %.17g -> %.17g",
               (long long)(t->i0 + rows[e]), (long long)(t->j0 + cols[e]), before[e], v);
    }
    return FT_SUCCESS;
}

/* Recompute the tile from the operands (and the input C). 1 = done, 0 = impossible. */
static int tile_recompute(gemm_t *g, tile_t *t, int *done)
{
    double *Ct = g->C + ft_ix(t->i0, t->j0, g->ldc);
    *done = 0;
    if (g->beta != 0.0) {
        if (g->hostC)
            FT_CHECK(g->be->set_matrix(g->ctx, FT_Q_MAIN, t->mI, t->nJ,
                                       g->hostC + ft_ix(t->i0, t->j0, g->hostldc), g->hostldc, Ct,
                                       g->ldc));
        else if (g->Cb)
            FT_CHECK(g->be->copy_matrix(g->ctx, FT_Q_MAIN, t->mI, t->nJ,
                                        g->Cb + ft_ix(t->i0, t->j0, g->m), g->m, Ct, g->ldc));
        else
            return FT_SUCCESS;
    }
    FT_CHECK(g->be->dgemm(g->ctx, FT_Q_MAIN, g->ta, g->tb, t->mI, t->nJ, g->k, g->alpha,
                          opa_rows(g, t->i0), g->lda, opb_cols(g, t->j0), g->ldb, g->beta, Ct,
                          g->ldc));
    *done = 1;
    g->rep->recomputed++;
    ft_report_event(g->rep, FT_EVENT_RECOMPUTED, FT_REGION_C, t->i0, t->j0, t->I * g->nb + t->J,
                    0.0, 0.0);
    ft_log(g->ctx, 2, "dgemm: recomputed tile (%lld,%lld)", (long long)t->I, (long long)t->J);
    return FT_SUCCESS;
}

/* Are all row and column checks of the tile passing (or unverifiable)? */
static int tile_clean(const gemm_t *g, const tile_t *t)
{
    /* a row failing only one of its two checks, with no failing column, is a corrupted
     * checksum (a data error fails both: its weight is in (1/2, 1]); the data are clean */
    for (int64_t i = 0; i < t->mI; i++)
        if (row_status(g, t, i) == 3) return 0;
    for (int64_t j = 0; j < t->nJ; j++)
        if (col_status(g, t, j) > 0) return 0;
    return 1;
}

/* Locate, correct or recompute the errors of one flagged tile. */
static int tile_repair(gemm_t *g, int64_t I, int64_t J, int *uncorrectable)
{
    tile_t t = {.I = I, .J = J, .i0 = I * g->T, .j0 = J * g->T};
    t.mI = dmin(g->T, g->m - t.i0);
    t.nJ = dmin(g->T, g->n - t.j0);
    double *mem = malloc((size_t)(7 * t.mI + 7 * t.nJ + GR_N * t.mI + GC_N * t.nJ + 2) *
                         sizeof(double));
    int64_t *R = malloc((size_t)(t.mI + t.nJ) * sizeof(int64_t));
    if (!mem || !R) {
        free(mem);
        free(R);
        return FT_ERR_ALLOC;
    }
    int64_t *S = R + t.mI;
    double *p = mem;
    t.pe = p, p += t.mI, t.pw = p, p += t.mI, t.rg = p, p += t.mI, t.rh = p, p += t.mI;
    t.rse = p, p += 2 * t.mI, t.rsw = t.rse + t.mI, t.rsa = p, p += t.mI;
    t.qe = p, p += t.nJ, t.qw = p, p += t.nJ, t.cg = p, p += t.nJ, t.ch = p, p += t.nJ;
    t.cse = p, p += 2 * t.nJ, t.csw = t.cse + t.nJ, t.csa = p, p += t.nJ;
    t.host = p;

    int st = tile_gather(g, &t, 1, t.host);
    if (st) goto out;

    /* R: rows whose plain and weighted checks both fail (a data error shows in both: its
     * weight is >= 1/2); R1: rows where only one fails; S: failing columns. */
    int64_t nR = 0, nS = 0, nR1 = 0, *R1 = malloc((size_t)t.mI * sizeof(int64_t));
    if (!R1) {
        st = FT_ERR_ALLOC;
        goto out;
    }
    for (int64_t i = 0; i < t.mI; i++) {
        int r = row_status(g, &t, i);
        if (r == 3) R[nR++] = i;
        else if (r == 1 || r == 2) R1[nR1++] = i;
    }
    for (int64_t j = 0; j < t.nJ; j++)
        if (col_status(g, &t, j) > 0) S[nS++] = j;
    if (nS > 0) /* with failing columns, a half-failing row is a small data error */
        for (int64_t r = 0; r < nR1; r++) R[nR++] = R1[r];
    int64_t ichk = nR1 > 0 ? R1[0] : -1;
    free(R1);

    /* Only one of a row's two checks fails and no column does: the checksum is corrupt. */
    if (nR == 0 && nS == 0) {
        if (nR1 > 0) {
            g->rep->checksum_errors += nR1;
            ft_report_event(g->rep, FT_EVENT_CHECKSUM, FT_REGION_CHECKSUM, t.i0 + ichk, -1,
                            I * g->nb + J, 0.0, 0.0);
            ft_log(g->ctx, 2, "dgemm: corrupted row checksum in tile (%lld,%lld), data intact",
                   (long long)I, (long long)J);
        }
        goto out;
    }
    int64_t rows[MAX_TILE_FIX], cols[MAX_TILE_FIX];
    int ne = 0, fixed = 0;
    if (nR == 1 && nS >= 1 && nS <= MAX_TILE_FIX) {
        /* single error, or several in one row: each failing column holds one */
        for (int64_t s = 0; s < nS; s++) rows[ne] = R[0], cols[ne++] = S[s];
        st = tile_fix(g, &t, rows, cols, ne, 0);
        fixed = 1;
    } else if (nS == 1 && nR >= 1 && nR <= MAX_TILE_FIX) {
        /* several in one column: each failing row holds one */
        for (int64_t r = 0; r < nR; r++) rows[ne] = R[r], cols[ne++] = S[0];
        st = tile_fix(g, &t, rows, cols, ne, 1);
        fixed = 1;
    } else if (nS == 0 && nR >= 1 && nR <= MAX_TILE_FIX) {
        /* the column checks are blunter than the row checks: locate by the weight ratio */
        int ok = 1;
        for (int64_t r = 0; r < nR && ok; r++) {
            int64_t i = R[r];
            int64_t jj = abft_locate((t.rsw[i] - t.pw[i]) / (t.rse[i] - t.pe[i]), g->W);
            if (jj < 0 || jj >= t.nJ) ok = 0;
            rows[ne] = i, cols[ne++] = jj;
        }
        if (ok) {
            st = tile_fix(g, &t, rows, cols, ne, 1);
            fixed = 1;
        }
    }
    if (st) goto out;
    int64_t nerr = fixed ? ne : (nR > nS ? nR : nS);
    g->rep->detected += nerr;
    g->rep->located += fixed ? ne : 0;
    if (fixed) {
        if ((st = tile_sums(g, &t))) goto out;
        if (tile_clean(g, &t)) {
            g->rep->corrected += ne;
            goto out;
        }
        ft_log(g->ctx, 2, "dgemm: in-place correction of tile (%lld,%lld) did not verify",
               (long long)I, (long long)J);
    }
    int done = 0;
    if ((st = tile_recompute(g, &t, &done))) goto out;
    if (done) {
        if ((st = tile_sums(g, &t))) goto out;
        if (tile_clean(g, &t)) {
            g->rep->corrected += nerr;
            goto out;
        }
    }
    if (!done && !fixed && nS == 2 && nR >= 2 && nR <= MAX_TILE_FIX) {
        /* No input C to recompute from. With two failing columns, each failing row holds at
         * most two errors x0, x1, and its plain and weighted checks give x0 + x1 = de,
         * w0 x0 + w1 x1 = dw (distinct weights: a regular system). Solve to LOCATE the
         * corrupted elements, then correct them with the exact single-element formulas. */
        const double w0 = abft_weight(S[0], g->W), w1 = abft_weight(S[1], g->W);
        int ne2 = 0, ok = 1;
        for (int64_t r = 0; r < nR && ok; r++) {
            int64_t i = R[r];
            double de = t.rse[i] - t.pe[i], dw = t.rsw[i] - t.pw[i];
            double x1 = (dw - w0 * de) / (w1 - w0), x0 = de - x1;
            double tau = abft_tau(g->pol.tol, g->k, g->T, g->alpha, g->beta, t.rg[i], t.rh[i],
                                  t.rsa[i]);
            if (!isfinite(x0) || !isfinite(x1)) ok = 0;
            for (int c = 0; c < 2 && ok; c++)
                if (fabs(c ? x1 : x0) > tau) {
                    if (ne2 == MAX_TILE_FIX) ok = 0;
                    else rows[ne2] = i, cols[ne2++] = S[c];
                }
        }
        /* each located element alone in its row -> row formula; alone in its column -> column
         * formula */
        int alone_row = ok && ne2 > 0, alone_col = ok && ne2 > 0;
        for (int a1 = 0; a1 < ne2; a1++)
            for (int a2 = a1 + 1; a2 < ne2; a2++) {
                if (rows[a1] == rows[a2]) alone_row = 0;
                if (cols[a1] == cols[a2]) alone_col = 0;
            }
        if (alone_row || alone_col) {
            if ((st = tile_fix(g, &t, rows, cols, ne2, alone_row))) goto out;
            if ((st = tile_sums(g, &t))) goto out;
            if (tile_clean(g, &t)) {
                g->rep->located += ne2;
                g->rep->corrected += ne2;
                g->rep->detected += ne2 - nerr;
                goto out;
            }
        }
    }
    *uncorrectable = 1;
    g->rep->uncorrectable += nerr;
    ft_report_event(g->rep, FT_EVENT_UNCORRECTABLE, FT_REGION_C, t.i0, t.j0, I * g->nb + J, 0.0,
                    0.0);
    ft_log(g->ctx, 1, "dgemm: uncorrectable error pattern in tile (%lld,%lld)", (long long)I,
           (long long)J);
out:
    free(mem);
    free(R);
    return st;
}

static int cmp_flag(const void *a, const void *b)
{
    const abft_flag_t *x = a, *y = b;
    if (x->blk != y->blk) return x->blk < y->blk ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Handle the failing checks: group them by tile, repair each tile. */
static int repair(gemm_t *g, abft_flag_t *flags, int64_t nf)
{
    int unc = 0;
    if (nf > FLAG_CAP) {
        /* more failures than we keep: treat every tile as suspect */
        for (int64_t J = 0; J < g->nb; J++)
            for (int64_t I = 0; I < g->mb; I++) FT_CHECK(tile_repair(g, I, J, &unc));
    } else {
        qsort(flags, (size_t)nf, sizeof *flags, cmp_flag);
        int64_t lastI = -1, lastJ = -1;
        for (int64_t f = 0; f < nf; f++) {
            int64_t I = flags[f].row / g->T, J = flags[f].blk;
            if (I == lastI && J == lastJ) continue;
            /* flags are sorted by (J, row): tiles of one J come in increasing I */
            FT_CHECK(tile_repair(g, I, J, &unc));
            lastI = I, lastJ = J;
        }
    }
    return unc ? FT_ERR_UNCORRECTABLE : FT_SUCCESS;
}

/* ---------------------------------------------------------------------------------------- */

static int64_t auto_tile(int64_t m, int64_t n)
{
    int64_t d = m > n ? m : n;
    int64_t T = (d + 7) / 8;
    if (T < 256) T = 256;
    if (T > 4096) T = 4096;
    return (T + 63) / 64 * 64;
}

static int inject(gemm_t *g, ft_region_t region, double *X, int64_t rows, int64_t cols,
                  int64_t ld)
{
    ft_fault_t f[FT_MAX_FAULTS];
    int nf = ft_inject_take(g->ctx, region, -1, f, FT_MAX_FAULTS);
    for (int i = 0; i < nf; i++)
        FT_CHECK(ft_inject_apply(g->ctx, g->be, &f[i], X, rows, cols, ld, -1, g->rep, NULL, NULL));
    return FT_SUCCESS;
}

/* The protected product on work memory. */
static int gemm_protected(gemm_t *g)
{
    const ft_backend_t *be = g->be;
    ft_context_t *ctx = g->ctx;
    const int64_t m = g->m, n = g->n, k = g->k;
    g->T = g->pol.tile > 0 ? g->pol.tile : auto_tile(m, n);
    g->W = abft_wden(g->T);
    g->mb = (m + g->T - 1) / g->T;
    g->nb = (n + g->T - 1) / g->T;
    const int64_t nb = g->nb, mb = g->mb, T = g->T;
    g->have_c0 = g->beta != 0.0;

    /* one allocation for the checksum vectors; the tile scratch is sized for the rare path */
    size_t nwork = (size_t)(2 * k * nb + k * nb + nb + 2 * m * nb + m + 2 * m * nb + m * nb);
    if (g->have_c0) nwork += (size_t)(3 * m * nb + 3 * n * mb);
    size_t ntmp = gather_size(T, k) + 8;
    double *work = NULL;
    FT_CHECK(ft_workspace(ctx, be, FT_WS_CHECK, (nwork + ntmp) * sizeof(double), (void **)&work));
    double *p = work;
    g->Y = p, p += 2 * k * nb;
    g->Z = p, p += k * nb;
    g->zmax = p, p += nb;
    g->P = p, p += 2 * m * nb;
    g->anorm = p, p += m;
    g->CS = p, p += 2 * m * nb;
    g->CA = p, p += m * nb;
    if (g->have_c0) {
        g->C0S = p, p += 2 * m * nb;
        g->C0A = p, p += m * nb;
        /* the input C's column sums serve only the rare path: with a backup of C they are
         * computed there, from the backup, for the flagged tiles alone */
        if (!g->Cb) {
            g->C0col = p, p += 2 * n * mb;
            g->C0colA = p, p += n * mb;
        }
    }
    g->tmp = p;

    int st = FT_SUCCESS;
    if (!ctx->flags) ctx->flags = malloc(FLAG_CAP * sizeof(abft_flag_t));
    abft_flag_t *flags = ctx->flags;
    if (!flags) {
        st = FT_ERR_ALLOC;
        goto out;
    }
    /* input C: its block sums (rows and columns), and a backup when asked */
    if (g->have_c0 && be->c0_pass) {
        if ((st = be->c0_pass(ctx, FT_Q_MAIN, m, n, g->C, g->ldc, T, g->C0S, g->C0A, g->C0col,
                              g->C0colA, g->Cb)))
            goto out;
    } else if (g->have_c0) {
        if ((st = be->block_sums(ctx, FT_Q_MAIN, 'N', m, n, g->C, g->ldc, T, g->C0S, m, g->C0A, m)))
            goto out;
        if (g->C0col && (st = be->block_sums(ctx, FT_Q_MAIN, 'T', n, m, g->C, g->ldc, T, g->C0col,
                                             n, g->C0colA, n)))
            goto out;
        if (g->Cb && (st = be->copy_matrix(ctx, FT_Q_MAIN, m, n, g->C, g->ldc, g->Cb, m))) goto out;
    }
    /* encode on the side queue while the product runs on the main queue */
    const int qe = g->pol.serial_encode ? FT_Q_MAIN : FT_Q_SIDE;
    if ((st = be->fork(ctx, FT_Q_MAIN, FT_Q_SIDE))) goto out;
    if ((st = be->block_sums(ctx, qe, g->tb, k, n, g->B, g->ldb, T, g->Y, k, g->Z, k))) goto out;
    if ((st = be->col_absmax(ctx, qe, k, nb, g->Z, k, g->zmax))) goto out;
    if ((st = be->block_sums(ctx, qe, g->ta, m, k, g->A, g->lda, k, NULL, 0, g->anorm, m)))
        goto out;
    if ((st = be->dgemm(ctx, qe, g->ta, 'N', m, 2 * nb, k, 1.0, g->A, g->lda, g->Y, k, 0.0, g->P,
                        m)))
        goto out;

    if ((st = be->event_record(ctx, FT_Q_MAIN, EV_GEMM0))) goto out;
    if ((st = be->dgemm(ctx, FT_Q_MAIN, g->ta, g->tb, m, n, k, g->alpha, g->A, g->lda, g->B,
                        g->ldb, g->beta, g->C, g->ldc)))
        goto out;
    if ((st = be->event_record(ctx, FT_Q_MAIN, EV_GEMM1))) goto out;
    if ((st = be->fork(ctx, FT_Q_SIDE, FT_Q_MAIN))) goto out;

    /* faults "during the computation": in the result, or in the predicted checksums */
    if (ctx->nfaults) {
        if ((st = inject(g, FT_REGION_C, g->C, m, n, g->ldc))) goto out;
        if ((st = inject(g, FT_REGION_CHECKSUM, g->P, m, 2 * nb, m))) goto out;
    }

    /* verify every (row, column block) */
    if ((st = be->block_sums(ctx, FT_Q_MAIN, 'N', m, n, g->C, g->ldc, T, g->CS, m, g->CA, m)))
        goto out;
    abft_rowcheck_args_t args = {.m = m, .nb = nb, .k = k, .T = T, .W = g->W, .alpha = g->alpha,
                                 .beta = g->beta, .tol = g->pol.tol, .sums = g->CS, .abss = g->CA,
                                 .pred = g->P, .anorm = g->anorm, .zmax = g->zmax,
                                 .csums = g->have_c0 ? g->C0S : NULL,
                                 .cabss = g->have_c0 ? g->C0A : NULL};
    int64_t nf = 0, nu = 0;
    double tv0 = ctx->policy.verbose >= 3 ? ft_wtime() : 0.0;
    if ((st = be->verify_rows(ctx, FT_Q_MAIN, &args, flags, FLAG_CAP, &nf, &nu))) goto out;
    double tv1 = ctx->policy.verbose >= 3 ? ft_wtime() : 0.0;
    g->rep->checks += m * nb;
    g->rep->unchecked += nu;
    if (nf > 0) {
        ft_log(ctx, 2, "dgemm: %lld failing row checks", (long long)nf);
        st = repair(g, flags, nf);
    }
    if (ctx->policy.verbose >= 3)
        ft_log(ctx, 3, "dgemm timing: product+verify wait %.3f ms, repair %.3f ms",
               (tv1 - tv0) * 1e3, (ft_wtime() - tv1) * 1e3);
out:
    be->sync(ctx, FT_Q_SIDE);
    be->sync(ctx, FT_Q_MAIN);
    return st;
}

static int check_args(char ta, char tb, ft_int m, ft_int n, ft_int k, ft_int lda, ft_int ldb,
                      ft_int ldc)
{
    int nota = ft_is_notrans(ta), notb = ft_is_notrans(tb);
    int64_t nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (!nota && !ft_is_trans(ta)) return 1;
    if (!notb && !ft_is_trans(tb)) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < (nrowa > 1 ? nrowa : 1)) return 8;
    if (ldb < (nrowb > 1 ? nrowb : 1)) return 10;
    if (ldc < (m > 1 ? m : 1)) return 13;
    return 0;
}

/* Common driver: is_gpu = the caller's pointers are device pointers. */
static int dgemm_driver(ft_context_t *ctx, int is_gpu, const char *name, char ta, char tb,
                        ft_int m, ft_int n, ft_int k, double alpha, const double *A, ft_int lda,
                        const double *B, ft_int ldb, double beta, double *C, ft_int ldc,
                        ft_report_t *report)
{
    ft_report_t local;
    ft_report_t *rep = report ? report : &local;
    ft_report_init(rep, FT_DEVICE_CPU);
    int info = check_args(ta, tb, m, n, k, lda, ldb, ldc);
    if (info) {
        ft_xerbla(name, info);
        rep->status = -info;
        return -info;
    }
    if (!ctx) return rep->status = FT_ERR_INVALID_VALUE;
    if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return FT_SUCCESS;

    double t0 = ft_wtime();
    const ft_backend_t *be;
    int st = ft_select_backend(ctx, 2.0 * m * n * (double)k, is_gpu, &be);
    if (st) return rep->status = st;
    rep->backend = be->kind;
    gemm_t g = {.ctx = ctx, .be = be, .rep = rep, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
                .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .lda = lda, .ldb = ldb,
                .ldc = ldc};
    ft_policy_resolve(&ctx->policy, &g.pol);
    const int64_t nrowa = ft_is_notrans(ta) ? m : k, ncola = ft_is_notrans(ta) ? k : m;
    const int64_t nrowb = ft_is_notrans(tb) ? k : n, ncolb = ft_is_notrans(tb) ? n : k;
    const int scale_only = alpha == 0.0 || k == 0; /* C := beta*C, no product to protect */
    int host_on_gpu = !is_gpu && be->kind == FT_DEVICE_CUDA;
    double *dA = NULL, *dB = NULL, *dC = NULL, *Cb = NULL;

    if (host_on_gpu) {
        /* copy in; the caller's C stays intact until the verified result is copied back */
        size_t need = (size_t)(nrowa * ncola + nrowb * ncolb + m * n) * sizeof(double);
        size_t avail = ft_cuda_mem_free();
        if (avail && need + need / 8 + ((size_t)64 << 20) > avail) {
            ft_log(ctx, 1, "dgemm: %zu MB do not fit in device memory", need >> 20);
            if (ctx->requested == FT_DEVICE_AUTO) {
                be = ft_backend_host();
                rep->backend = be->kind;
                g.be = be;
                host_on_gpu = 0;
                goto run;
            }
            return rep->status = FT_ERR_TOO_LARGE;
        }
        if ((st = ft_workspace(ctx, be, FT_WS_A, (size_t)(nrowa * ncola + 1) * sizeof(double),
                               (void **)&dA)) ||
            (st = ft_workspace(ctx, be, FT_WS_B, (size_t)(nrowb * ncolb + 1) * sizeof(double),
                               (void **)&dB)) ||
            (st = ft_workspace(ctx, be, FT_WS_C, (size_t)(m * n) * sizeof(double), (void **)&dC)))
            goto done;
        if (!scale_only) {
            if ((st = be->set_matrix(ctx, FT_Q_MAIN, nrowa, ncola, A, lda, dA, nrowa))) goto done;
            if ((st = be->set_matrix(ctx, FT_Q_MAIN, nrowb, ncolb, B, ldb, dB, nrowb))) goto done;
        }
        if (beta != 0.0 && (st = be->set_matrix(ctx, FT_Q_MAIN, m, n, C, ldc, dC, m))) goto done;
        g.A = dA, g.lda = nrowa, g.B = dB, g.ldb = nrowb, g.C = dC, g.ldc = m;
        g.hostC = C, g.hostldc = ldc;
    }
run:
    if (!host_on_gpu && beta != 0.0 && !scale_only && g.pol.protect) {
        int want = g.pol.backup_c == 1 || (g.pol.backup_c == -1 && !is_gpu);
        if (want) {
            if ((st = ft_workspace(ctx, be, FT_WS_BACKUP, (size_t)(m * n) * sizeof(double),
                                   (void **)&Cb)))
                goto done;
            g.Cb = Cb;
        }
    }
    if (scale_only || !g.pol.protect) {
        if ((st = be->event_record(ctx, FT_Q_MAIN, EV_GEMM0))) goto done;
        /* C := beta*C as a k = 0 product; A and B are not read, and cuBLAS wants leading
         * dimensions valid for the operands' nominal shapes */
        int64_t la = scale_only ? (ft_is_notrans(ta) ? (m > 1 ? m : 1) : 1) : g.lda;
        int64_t lb = scale_only ? (ft_is_notrans(tb) ? 1 : (n > 1 ? n : 1)) : g.ldb;
        st = be->dgemm(ctx, FT_Q_MAIN, ta, tb, m, n, scale_only ? 0 : k, scale_only ? 0.0 : alpha,
                       scale_only ? g.C : g.A, la, scale_only ? g.C : g.B, lb, beta, g.C, g.ldc);
        if (!st) st = be->event_record(ctx, FT_Q_MAIN, EV_GEMM1);
        if (!st && ctx->nfaults && !scale_only) st = inject(&g, FT_REGION_C, g.C, m, n, g.ldc);
        if (!st) st = be->sync(ctx, FT_Q_MAIN);
    } else {
        st = gemm_protected(&g);
    }
    if (st && st != FT_ERR_UNCORRECTABLE) goto done;
    if (host_on_gpu) {
        int st2 = be->get_matrix(ctx, FT_Q_MAIN, m, n, dC, m, C, ldc);
        if (!st2) st2 = be->sync(ctx, FT_Q_MAIN);
        if (st2) st = st2;
    }
    double tg = 0.0;
    if (be->event_elapsed(ctx, EV_GEMM0, EV_GEMM1, &tg) == FT_SUCCESS) {
        rep->time_total = ft_wtime() - t0;
        rep->time_protect = g.pol.protect && !scale_only ? rep->time_total - tg : 0.0;
        if (rep->time_protect < 0) rep->time_protect = 0;
    }
done:
    if (host_on_gpu || Cb) ft_workspace_trim(ctx, FT_WS_KEEP);
    /* faults planned for this call that ft_dgemm cannot apply (regions of other routines, or
     * no product to corrupt) are dropped, not left to hit a later call */
    ft_inject_drop_call(ctx);
    ctx->ncalls++;
    rep->status = st;
    rep->time_total = ft_wtime() - t0;
    if (ctx->policy.verbose >= 1) {
        char buf[512];
        ft_log(ctx, 1, "%s %c%c m=%d n=%d k=%d: %s", name, ta, tb, m, n, k,
               ft_report_string(rep, buf, sizeof buf));
    }
    return st;
}

int ft_dgemm_ex(ft_context_t *ctx, char transa, char transb, ft_int m, ft_int n, ft_int k,
                double alpha, const double *A, ft_int lda, const double *B, ft_int ldb,
                double beta, double *C, ft_int ldc, ft_report_t *report)
{
    if (!ctx) {
        ctx = ft_default_context();
        if (!ctx) return FT_ERR_ALLOC;
        pthread_mutex_lock(&ctx->lock);
        int st = dgemm_driver(ctx, 0, "FT_DGEMM", transa, transb, m, n, k, alpha, A, lda, B, ldb,
                              beta, C, ldc, report);
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }
    return dgemm_driver(ctx, 0, "FT_DGEMM", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                        C, ldc, report);
}

int ft_dgemm(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
             const double *A, ft_int lda, const double *B, ft_int ldb, double beta, double *C,
             ft_int ldc)
{
    return ft_dgemm_ex(NULL, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

int ft_dgemm_gpu_ex(ft_context_t *ctx, char transa, char transb, ft_int m, ft_int n, ft_int k,
                    double alpha, const double *dA, ft_int lda, const double *dB, ft_int ldb,
                    double beta, double *dC, ft_int ldc, ft_report_t *report)
{
    if (!ctx) {
        ctx = ft_default_context();
        if (!ctx) return FT_ERR_ALLOC;
        pthread_mutex_lock(&ctx->lock);
        int st = dgemm_driver(ctx, 1, "FT_DGEMM_GPU", transa, transb, m, n, k, alpha, dA, lda, dB,
                              ldb, beta, dC, ldc, report);
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }
    return dgemm_driver(ctx, 1, "FT_DGEMM_GPU", transa, transb, m, n, k, alpha, dA, lda, dB, ldb,
                        beta, dC, ldc, report);
}

int ft_dgemm_gpu(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
                 const double *dA, ft_int lda, const double *dB, ft_int ldb, double beta,
                 double *dC, ft_int ldc)
{
    return ft_dgemm_gpu_ex(NULL, transa, transb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc,
                           NULL);
}
