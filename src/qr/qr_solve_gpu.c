/*
 * qr_solve_gpu.c — ft_dormqr_gpu and ft_dgels_gpu (ftla.h; docs/recovery.md): ft_dormqr and
 * ft_dgels on device pointers. Everything goes through the backend (BLAS-3 block reflectors,
 * dtrsm, reductions, copies) and the module's kernel table (qr_solve_kernels.h: the FT factor's
 * rotations, transposition, scaling), so the same code also runs on the host backend with host
 * memory (qr_ormqr_dev / qr_dgels_dev with is_gpu = 0: how the cpu tests check it).
 *
 * Q or Q^T, blocked as LAPACK dormqr: the reflector range [0, k) is cut at every rotation
 * record's boundary i, and each piece into blocks of at most nb reflectors. The triangular
 * factor T of every block (H = I - V T V^T, dlarft 'F','C') is built on the host from the Gram
 * matrix V^T V, which the device computes with V in place (its unit lower triangle through
 * dtrmm on an identity, the rest by dgemm): nb x nb doubles per block cross the bus, once for
 * all blocks, instead of the whole panel of V. Then the blocks (dlarfb with V in place, as
 * qr_recover.c's qr_apply_reflectors) and the records' rotation sweeps run in the order of Q,
 * the records' order from qrf_record_sweeps, shared with the host ft_dormqr.
 */
#include "core/size.h"
#include "qr/qr_internal.h"
#include "qr/qr_solve_kernels.h"
#include "qr/qrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reflectors per block when the policy sets none (policy.nb = 0). */
#define QRS_NB 64

/* ---- the pieces of ormqr_dev ------------------------------------------------------------- */

/* LAPACK dlarft('F', 'C') from the Gram matrix of the block's ib reflectors. On entry the
 * strictly upper part of column j of the nb x nb T holds G(0:j-1, j) = V(:, 0:j-1)^T V(:, j);
 * on exit T(0:j-1, j) = -tau_j T(0:j-1, 0:j-1) G(0:j-1, j) and T(j, j) = tau_j (LAPACK's
 * recursion: dgemv then dtrmv), zero below the diagonal and right of column ib. w: nb doubles. */
static void larft_gram(int64_t ib, int64_t nb, const double *tau, double *T, double *w)
{
    for (int64_t j = 0; j < nb; j++) {
        double *t = T + j * nb;
        if (j < ib && tau[j] != 0.0) {
            for (int64_t i = 0; i < j; i++) w[i] = -tau[j] * t[i];
            for (int64_t i = 0; i < j; i++) { /* columns < j hold T already */
                double sum = 0.0;
                for (int64_t l = i; l < j; l++) sum += T[i + l * nb] * w[l];
                t[i] = sum;
            }
            t[j] = tau[j];
        } else { /* H_j = I (tau_j = 0, as dlarft), or no reflector */
            for (int64_t i = 0; i <= j && i < nb; i++) t[i] = 0.0;
        }
        for (int64_t i = j + 1; i < nb; i++) t[i] = 0.0;
    }
}

/* The Gram matrix G = V^T V of the block of ib reflectors at i (nq - i rows), into the nb x nb
 * G: V1 (ib x ib, unit lower, R above it in A) through two dtrmm on the identity dI, V2 by
 * dgemm. */
static int gram(const ft_backend_t *be, ft_queue_t *q, int64_t nq, int64_t i, int64_t ib,
                const double *dA, int64_t ldda, const double *dI, int64_t nb, double *G)
{
    const int64_t mi = nq - i;
    const double *V1 = dA + i + i * ldda, *V2 = V1 + ib;
    FT_CHECK(be->copy_matrix(q, ib, ib, dI, nb, G, nb));
    FT_CHECK(be->dtrmm(q, 'L', 'L', 'T', 'U', ib, ib, 1.0, V1, ldda, G, nb)); /* V1^T */
    FT_CHECK(be->dtrmm(q, 'R', 'L', 'N', 'U', ib, ib, 1.0, V1, ldda, G, nb)); /* V1^T V1 */
    if (mi > ib)
        FT_CHECK(be->dgemm(q, 'T', 'N', ib, ib, mi - ib, 1.0, V2, ldda, V2, ldda, 1.0, G, nb));
    return FT_SUCCESS;
}

/* The block of ib reflectors at i applied as LAPACK dlarfb (forward, columnwise) with V in
 * place: left, C(i:nq, :) := op(H) C(i:nq, :) through W = op(T) V^T C (ib x n, ld nb); right,
 * C(:, i:nq) := C(:, i:nq) op(H) through W = C V op(T) (m x ib, ld m). op(H) = H^T = I - V T^T
 * V^T for trans 'T'. The unit triangle V1 works through dtrmm; C1 -= W through a product with
 * the identity dI (the backend has no matrix add). */
int qr_larfb(const ft_backend_t *be, ft_queue_t *q, int left, int tr, int64_t m, int64_t n,
             int64_t nq, int64_t i, int64_t ib, const double *dA, int64_t ldda, const double *T,
             int64_t nb, const double *dI, double *dC, int64_t lddc, double *W)
{
    const int64_t mi = nq - i;
    const double *V1 = dA + i + i * ldda, *V2 = V1 + ib;
    const char op = tr ? 'T' : 'N';
    if (left) {
        double *C1 = dC + i, *C2 = C1 + ib;
        FT_CHECK(be->copy_matrix(q, ib, n, C1, lddc, W, nb));
        FT_CHECK(be->dtrmm(q, 'L', 'L', 'T', 'U', ib, n, 1.0, V1, ldda, W, nb));
        if (mi > ib)
            FT_CHECK(be->dgemm(q, 'T', 'N', ib, n, mi - ib, 1.0, V2, ldda, C2, lddc, 1.0, W, nb));
        FT_CHECK(be->dtrmm(q, 'L', 'U', op, 'N', ib, n, 1.0, T, nb, W, nb));
        if (mi > ib)
            FT_CHECK(
                be->dgemm(q, 'N', 'N', mi - ib, n, ib, -1.0, V2, ldda, W, nb, 1.0, C2, lddc));
        FT_CHECK(be->dtrmm(q, 'L', 'L', 'N', 'U', ib, n, 1.0, V1, ldda, W, nb));
        return be->dgemm(q, 'N', 'N', ib, n, ib, -1.0, dI, nb, W, nb, 1.0, C1, lddc);
    }
    double *C1 = dC + i * lddc, *C2 = C1 + ib * lddc;
    FT_CHECK(be->copy_matrix(q, m, ib, C1, lddc, W, m));
    FT_CHECK(be->dtrmm(q, 'R', 'L', 'N', 'U', m, ib, 1.0, V1, ldda, W, m));
    if (mi > ib)
        FT_CHECK(be->dgemm(q, 'N', 'N', m, ib, mi - ib, 1.0, C2, lddc, V2, ldda, 1.0, W, m));
    FT_CHECK(be->dtrmm(q, 'R', 'U', op, 'N', m, ib, 1.0, T, nb, W, m));
    if (mi > ib)
        FT_CHECK(be->dgemm(q, 'N', 'T', m, mi - ib, ib, -1.0, W, m, V2, ldda, 1.0, C2, lddc));
    FT_CHECK(be->dtrmm(q, 'R', 'L', 'T', 'U', m, ib, 1.0, V1, ldda, W, m));
    return be->dgemm(q, 'N', 'N', m, ib, ib, -1.0, W, m, dI, nb, 1.0, C1, lddc);
}

/* Record r (its rotations uploaded to dcs in qrf_add's layout: cj, sj, cg, sg) applied to C
 * with qrf_record_sweeps' meaning. */
static int record(const qr_solve_kernels_t *kern, ft_queue_t *q, const qrf_rec_t *r,
                  const double *dcs, int left, int inverse, double *dC, int64_t m, int64_t n,
                  int64_t lddc)
{
    qrf_sweep_t sw[2];
    const int ns = qrf_record_sweeps(r, left, inverse, sw);
    const double *cj = dcs, *sj = dcs + r->nj, *cg = dcs + 2 * r->nj, *sg = cg + r->ng;
    for (int u = 0; u < ns; u++)
        FT_CHECK(kern->rot(q, left, sw[u].transposed, sw[u].t0, sw[u].dt, sw[u].cnt,
                           sw[u].g ? cg : cj, sw[u].g ? sg : sj, dC, m, n, lddc));
    return FT_SUCCESS;
}

typedef struct {
    int64_t i, ib;
} block_t;

/* The blocks of [0, k): cut at the records' boundaries (non-decreasing), then every nb. blk
 * NULL: count only. */
static int64_t cut_blocks(const struct ft_qrf *F, int64_t nr, int64_t k, int64_t nb, block_t *blk)
{
    int64_t nblk = 0, s0 = 0;
    for (int64_t r = 0; r <= nr; r++) {
        const int64_t e = r < nr ? qr_imax(qr_imin(F->rec[r].i, k), s0) : k;
        for (int64_t i = s0; i < e; i += nb, nblk++)
            if (blk) blk[nblk] = (block_t){i, qr_imin(nb, e - i)};
        s0 = e;
    }
    return nblk;
}

/*
 * op(Q) C (left) or C op(Q) on the call's main queue; c selected, dA, dC in its work memory,
 * tau and F on the host (F may be NULL). Q = H_0 ... H_(i1-1) R_1 H_(i1) ... : with left and
 * trans 'T', or right and 'N', H_0 (and R_1 ...) reach C first (forward), else the last block
 * does (backward, the records inverted) — the order of the host ft_dormqr.
 */
static int ormqr_dev(ft_call_t *c, int left, int tr, int64_t m, int64_t n, int64_t k,
                     const double *dA, int64_t ldda, const double *tau, const struct ft_qrf *F,
                     double *dC, int64_t lddc)
{
    if (m == 0 || n == 0 || k == 0) return FT_SUCCESS;
    const ft_backend_t *be = c->be;
    const qr_solve_kernels_t *kern = qr_solve_kernels(be);
    ft_queue_t *q = c->main;
    const int64_t nq = left ? m : n, nr = F ? F->nrec : 0;
    const int64_t nb = qr_imin(c->ctx->policy.nb > 0 ? c->ctx->policy.nb : QRS_NB, k);
    const int64_t nblk = cut_blocks(F, nr, k, nb, NULL);
    /* work memory: T of every block, the identity, W, the records' rotations; pinned: the Gram
     * matrices / T of every block, the identity's source, w of larft_gram, the rotations' source
     * (a copy of F's: the upload may run after the caller's F is gone, on a deferred queue) */
    const int64_t nbb = nb * nb;
    int64_t nt, nw, nrot = 0, ne, nh;
    for (int64_t r = 0; r < nr; r++) nrot += 2 * (F->rec[r].nj + F->rec[r].ng);
    if (ft_mul_ovf(nbb, nblk, &nt) || ft_mul_ovf(nb, left ? n : m, &nw) ||
        ft_add_ovf(nt, nbb, &ne) || ft_add_ovf(ne, nw, &ne) || ft_add_ovf(ne, nrot, &ne) ||
        ft_add_ovf(nt, nbb + nb, &nh) || ft_add_ovf(nh, nrot, &nh))
        return FT_ERR_TOO_LARGE;
    double *dT, *hT;
    FT_CHECK(ft_call_work_doubles(c, ne, &dT));
    FT_CHECK(ft_call_pinned_doubles(c, nh, &hT));
    double *dI = dT + nt, *dW = dI + nbb, *dR = dW + nw, *hI = hT + nt, *hw = hI + nbb,
           *hR = hw + nb;
    block_t *blk = malloc((size_t)nblk * sizeof *blk);
    if (!blk) return FT_ERR_ALLOC;
    cut_blocks(F, nr, k, nb, blk);

    memset(hI, 0, (size_t)nbb * sizeof(double));
    for (int64_t j = 0; j < nb; j++) hI[j + j * nb] = 1.0;
    int st = be->set_matrix(q, nb, nb, hI, nb, dI, nb);
    /* T of every block: Gram matrices on the device, one copy to the host and back */
    for (int64_t b = 0; b < nblk && !st; b++)
        st = gram(be, q, nq, blk[b].i, blk[b].ib, dA, ldda, dI, nb, dT + b * nbb);
    if (!st) st = be->get_matrix(q, nb, nblk * nb, dT, nb, hT, nb);
    if (!st) st = be->sync(q);
    for (int64_t b = 0; b < nblk && !st; b++)
        larft_gram(blk[b].ib, nb, tau + blk[b].i, hT + b * nbb, hw);
    if (!st) st = be->set_matrix(q, nb, nblk * nb, hT, nb, dT, nb);
    /* the records' rotations, one after the other in qrf_add's layout */
    for (int64_t r = 0, off = 0; r < nr; r++) {
        const int64_t len = 2 * (F->rec[r].nj + F->rec[r].ng);
        if (len) memcpy(hR + off, F->rec[r].cj, (size_t)len * sizeof(double));
        off += len;
    }
    if (!st && nrot) st = be->set_matrix(q, nrot, 1, hR, nrot, dR, nrot);

    const int forward = left ? tr : !tr;
    if (forward) {
        int64_t b = 0, off = 0;
        for (int64_t r = 0; r <= nr && !st; r++) {
            const int64_t end = r < nr ? qr_imin(F->rec[r].i, k) : k;
            for (; b < nblk && blk[b].i < end && !st; b++)
                st = qr_larfb(be, q, left, tr, m, n, nq, blk[b].i, blk[b].ib, dA, ldda,
                           dT + b * nbb, nb, dI, dC, lddc, dW);
            if (r < nr && !st) {
                st = record(kern, q, &F->rec[r], dR + off, left, 0, dC, m, n, lddc);
                off += 2 * (F->rec[r].nj + F->rec[r].ng);
            }
        }
    } else {
        int64_t b = nblk - 1, off = nrot;
        for (int64_t r = nr; r >= 0 && !st; r--) {
            const int64_t start = r > 0 ? qr_imin(F->rec[r - 1].i, k) : 0;
            for (; b >= 0 && blk[b].i >= start && !st; b--)
                st = qr_larfb(be, q, left, tr, m, n, nq, blk[b].i, blk[b].ib, dA, ldda,
                           dT + b * nbb, nb, dI, dC, lddc, dW);
            if (r > 0 && !st) {
                off -= 2 * (F->rec[r - 1].nj + F->rec[r - 1].ng);
                st = record(kern, q, &F->rec[r - 1], dR + off, left, 1, dC, m, n, lddc);
            }
        }
    }
    free(blk);
    return st;
}

/* ---- the pieces of ft_dgels_gpu ----------------------------------------------------------- */

/* max |X(i,j)| (LAPACK dlange 'M': NaN propagates) of the rows x cols X; dmx: cols doubles of
 * work memory, hmx: cols of pinned memory. */
static int absmax(ft_call_t *c, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                  double *dmx, double *hmx, double *amax)
{
    const ft_backend_t *be = c->be;
    *amax = 0.0;
    if (rows <= 0 || cols <= 0) return FT_SUCCESS;
    FT_CHECK(be->col_absmax(c->main, rows, cols, X, ldx, dmx));
    FT_CHECK(be->get_matrix(c->main, cols, 1, dmx, cols, hmx, cols));
    FT_CHECK(be->sync(c->main));
    double a = 0.0;
    for (int64_t j = 0; j < cols && !isnan(a); j++)
        if (hmx[j] > a || isnan(hmx[j])) a = hmx[j];
    *amax = a;
    return FT_SUCCESS;
}

/* LAPACK dlascl('G'): X := (cto / cfrom) X, as the factors LAPACK uses, in its order (each one
 * representable: dlamch('S') and its inverse while cto / cfrom is not). */
static int lascl(const qr_solve_kernels_t *kern, ft_queue_t *q, double cfrom, double cto,
                 int64_t rows, int64_t cols, double *X, int64_t ldx)
{
    const double smlnum = DBL_MIN, bignum = 1.0 / smlnum;
    double cfromc = cfrom, ctoc = cto;
    for (int it = 0; it < 64; it++) { /* a handful of steps for any double */
        const double cfrom1 = cfromc * smlnum;
        double mul;
        int done = 1;
        if (cfrom1 == cfromc) { /* cfrom infinite */
            mul = ctoc / cfromc;
        } else {
            const double cto1 = ctoc / bignum;
            if (cto1 == ctoc) { /* cto 0 or infinite */
                mul = ctoc;
                cfromc = 1.0;
            } else if (fabs(cfrom1) > fabs(ctoc) && ctoc != 0.0) {
                mul = smlnum;
                done = 0;
                cfromc = cfrom1;
            } else if (fabs(cto1) > fabs(cfromc)) {
                mul = bignum;
                done = 0;
                ctoc = cto1;
            } else {
                mul = ctoc / cfromc;
                if (mul == 1.0) return FT_SUCCESS;
            }
        }
        FT_CHECK(kern->scale(q, rows, cols, mul, X, ldx));
        if (done) return FT_SUCCESS;
    }
    return FT_ERR_INTERNAL;
}

/* LAPACK dgels' scaling of X into [smlnum, bignum]: *how = 0 (none), 1 (scaled up from *nrm to
 * smlnum) or 2 (down from *nrm to bignum). */
static int scale_in(ft_call_t *c, const qr_solve_kernels_t *kern, int64_t rows, int64_t cols,
                    double *X, int64_t ldx, double *dmx, double *hmx, double *nrm, int *how)
{
    *how = 0;
    FT_CHECK(absmax(c, rows, cols, X, ldx, dmx, hmx, nrm));
    if (*nrm > 0.0 && *nrm < QRF_SMLNUM) *how = 1;
    else if (*nrm > QRF_BIGNUM) *how = 2;
    if (*how)
        FT_CHECK(lascl(kern, c->main, *nrm, *how == 1 ? QRF_SMLNUM : QRF_BIGNUM, rows, cols, X,
                       ldx));
    return FT_SUCCESS;
}

/* X(0:rows, 0:cols) := 0. */
static int zero_rows(const ft_backend_t *be, ft_queue_t *q, int64_t rows, int64_t cols, double *X,
                     int64_t ldx)
{
    size_t bytes;
    if (rows <= 0 || cols <= 0) return FT_SUCCESS;
    if (ldx == rows || cols == 1) {
        int64_t e;
        if (ft_mul_ovf(rows, cols, &e) || ft_dbytes(e, &bytes)) return FT_ERR_TOO_LARGE;
        return be->memset0(q, X, bytes);
    }
    if (ft_dbytes(rows, &bytes)) return FT_ERR_TOO_LARGE;
    for (int64_t j = 0; j < cols; j++) FT_CHECK(be->memset0(q, X + j * ldx, bytes));
    return FT_SUCCESS;
}

/* ft_dgels_gpu's work on the selected call c (arguments checked, nrhs > 0); returns the status,
 * or j + 1 when R(j, j) = 0. */
static int gels(ft_call_t *c, int is_gpu, int tr, int64_t m, int64_t n, int64_t nrhs, double *dA,
                int64_t ldda, double *dB, int64_t lddb)
{
    const ft_backend_t *be = c->be;
    const qr_solve_kernels_t *kern = qr_solve_kernels(be);
    ft_queue_t *q = c->main;
    const int64_t mn = m < n ? m : n, mx = m > n ? m : n;
    if (mn == 0) return zero_rows(be, q, mx, nrhs, dB, lddb); /* LAPACK: B(1:max(m,n), :) = 0 */
    /* LAPACK dgels: A and B whose largest element lies outside [smlnum, bignum] are scaled into
     * it and the solution scaled back; A = 0 gives X = 0 */
    double *dmx, *hmx, anrm, bnrm;
    int iascl, ibscl;
    FT_CHECK(ft_call_work_doubles(c, qr_imax(n, nrhs), &dmx));
    FT_CHECK(ft_call_pinned_doubles(c, qr_imax(qr_imax(n, nrhs), mn), &hmx));
    FT_CHECK(scale_in(c, kern, m, n, dA, ldda, dmx, hmx, &anrm, &iascl));
    if (anrm == 0.0) return zero_rows(be, q, mx, nrhs, dB, lddb);
    FT_CHECK(scale_in(c, kern, tr ? n : m, nrhs, dB, lddb, dmx, hmx, &bnrm, &ibscl));

    /* factor X = A (m >= n) or A^T (m < n, transposed on the device): p x q, p >= q */
    const int64_t p = mx, qn = mn;
    double *X = dA;
    int64_t ldx = ldda;
    if (m < n) {
        int64_t e;
        if (ft_mul_ovf(p, qn, &e)) return FT_ERR_TOO_LARGE;
        FT_CHECK(ft_call_work_doubles(c, e, &X));
        ldx = p;
        FT_CHECK(kern->transpose(q, m, n, dA, ldda, X, ldx));
    }
    double *tau = malloc((size_t)qn * sizeof(double));
    ft_qrf_t *F = NULL;
    int st = tau ? ft_qrf_create(&F) : FT_ERR_ALLOC;
    /* the protected call (numbered: the faults planned for the next call go to it), nested in
     * this one on the same main queue, so it sees the work above */
    if (!st) st = qr_geqrf_factor(c->ctx, is_gpu, F, (ft_int)p, (ft_int)qn, X, (ft_int)ldx, tau,
                                  NULL);
    /* info > 0: R(j, j) exactly zero (LAPACK dtrtrs) */
    int64_t sing = 0;
    if (!st) st = be->get_matrix(q, 1, qn, X, ldx + 1, hmx, 1);
    if (!st) st = be->sync(q);
    for (int64_t j = 0; j < qn && !st && !sing; j++)
        if (hmx[j] == 0.0) sing = j + 1;
    /* overdetermined (A x ~ b with m >= n, or A^T x ~ b with m < n): x = R^-1 (Q^T b)(0:q);
     * underdetermined (the other two): x = Q [R^-T b; 0] */
    const int over = (m >= n) != tr;
    if (!st && !sing) {
        if (over) {
            st = ormqr_dev(c, 1, 1, p, nrhs, qn, X, ldx, tau, F, dB, lddb);
            if (!st) st = be->dtrsm(q, 'L', 'U', 'N', 'N', qn, nrhs, 1.0, X, ldx, dB, lddb);
        } else {
            st = be->dtrsm(q, 'L', 'U', 'T', 'N', qn, nrhs, 1.0, X, ldx, dB, lddb);
            if (!st) st = zero_rows(be, q, p - qn, nrhs, dB + qn, lddb);
            if (!st) st = ormqr_dev(c, 1, 0, p, nrhs, qn, X, ldx, tau, F, dB, lddb);
        }
    }
    /* undo the scaling on the solution's rows (LAPACK's SCLLEN: the columns of op(A)) */
    const int64_t scllen = tr ? m : n;
    if (!st && !sing && iascl)
        st = lascl(kern, q, anrm, iascl == 1 ? QRF_SMLNUM : QRF_BIGNUM, scllen, nrhs, dB, lddb);
    if (!st && !sing && ibscl)
        st = lascl(kern, q, ibscl == 1 ? QRF_SMLNUM : QRF_BIGNUM, bnrm, scllen, nrhs, dB, lddb);
    /* A takes the factorization of A^T transposed back (dgelqf's layout), as ft_dgels */
    if (X != dA) {
        int s = kern->transpose(q, n, m, X, ldx, dA, ldda);
        if (!st) st = s;
    }
    ft_qrf_destroy(F);
    free(tau);
    return st ? st : (int)sing;
}

/* ---- entry points --------------------------------------------------------------------------- */

/* Begin and select the unnumbered call of ft_dormqr_gpu / ft_dgels_gpu. is_gpu = 0 (tests) is
 * for host memory on the host backend only. */
static int begin(ft_call_t *c, ft_context_t *ctx, int is_gpu, const char *name)
{
    FT_CHECK(ft_call_begin(c, ctx, name, NULL, 0));
    /* flops are not used: device data always runs on the GPU, and a host test with 0 on CPU */
    FT_CHECK(ft_call_select_unnumbered(c, 0.0, is_gpu));
    if (!is_gpu && c->be->kind != FT_DEVICE_CPU) return FT_ERR_INVALID_VALUE;
    return FT_SUCCESS;
}

int qr_ormqr_dev(ft_context_t *ctx, int is_gpu, char side, char trans, ft_int m, ft_int n,
                 ft_int k, const double *dA, ft_int ldda, const double *tau, const ft_qrf_t *F,
                 double *dC, ft_int lddc, ft_int *info)
{
    const int left = side == 'L' || side == 'l', tr = trans == 'T' || trans == 't';
    const int arg = qrf_ormqr_arg(side, trans, m, n, k, ldda, F, lddc);
    if (arg) {
        ft_xerbla("FT_DORMQR_GPU", arg);
        if (info) *info = -arg;
        return -arg;
    }
    int st = FT_SUCCESS;
    if (m > 0 && n > 0 && k > 0) { /* quick return before the backend, as ft_dgeqrf_gpu */
        ft_call_t c;
        st = begin(&c, ctx, is_gpu, "FT_DORMQR_GPU");
        if (!st) {
            snprintf(c.desc, sizeof c.desc, "side=%c trans=%c m=%d n=%d k=%d", left ? 'L' : 'R',
                     tr ? 'T' : 'N', m, n, k);
            st = ormqr_dev(&c, left, tr, m, n, k, dA, ldda, tau, F, dC, lddc);
        }
        st = ft_call_end(&c, st);
    }
    if (info) *info = st;
    return st;
}

int qr_dgels_dev(ft_context_t *ctx, int is_gpu, char trans, ft_int m, ft_int n, ft_int nrhs,
                 double *dA, ft_int ldda, double *dB, ft_int lddb, ft_int *info)
{
    const int tr = trans == 'T' || trans == 't';
    const int arg = qrf_gels_arg(1, trans, m, n, nrhs, ldda, lddb, 0);
    if (arg) {
        ft_xerbla("FT_DGELS_GPU", arg);
        if (info) *info = -arg;
        return -arg;
    }
    int st = FT_SUCCESS;
    if (nrhs > 0 && (m > 0 || n > 0)) { /* else no element of B to solve for or to zero */
        ft_call_t c;
        st = begin(&c, ctx, is_gpu, "FT_DGELS_GPU");
        if (!st) {
            snprintf(c.desc, sizeof c.desc, "trans=%c m=%d n=%d nrhs=%d", tr ? 'T' : 'N', m, n,
                     nrhs);
            st = gels(&c, is_gpu, tr, m, n, nrhs, dA, ldda, dB, lddb);
        }
        st = ft_call_end(&c, st);
    }
    if (info) *info = st;
    return st;
}

int ft_dormqr_gpu(char side, char trans, ft_int m, ft_int n, ft_int k, const double *dA,
                  ft_int ldda, const double *tau, const ft_qrf_t *F, double *dC, ft_int lddc,
                  ft_int *info)
{
    return qr_ormqr_dev(NULL, 1, side, trans, m, n, k, dA, ldda, tau, F, dC, lddc, info);
}

int ft_dgels_gpu(char trans, ft_int m, ft_int n, ft_int nrhs, double *dA, ft_int ldda, double *dB,
                 ft_int lddb, ft_int *info)
{
    return qr_dgels_dev(NULL, 1, trans, m, n, nrhs, dA, ldda, dB, lddb, info);
}
