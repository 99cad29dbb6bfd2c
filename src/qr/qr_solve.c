/*
 * qr_solve.c — what consumes ft_dgeqrf's FT factor (ftla.h; docs/recovery.md): the rotation
 * records (qrf.h), ft_dormqr (Q or Q^T from the left or the right: LAPACK dormqr on the
 * reflector ranges between recoveries, the recorded rotations in between) and ft_dgels (the
 * least-squares and minimum-norm solutions of LAPACK dgels from that factor, with its scaling
 * near under/overflow). The device-pointer variants are in qr_solve_gpu.c.
 */
#include "core/call.h"
#include "qr/qr_internal.h"
#include "qr/qr_solve_kernels.h"
#include "qr/qrf.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* ---- the FT factor object ---------------------------------------------------------------- */

int ft_qrf_create(ft_qrf_t **F)
{
    if (!F) return FT_ERR_INVALID_VALUE;
    *F = calloc(1, sizeof **F);
    return *F ? FT_SUCCESS : FT_ERR_ALLOC;
}

int ft_qrf_destroy(ft_qrf_t *F)
{
    if (!F) return FT_SUCCESS;
    for (int r = 0; r < F->cap; r++) free(F->rec[r].cj);
    free(F->rec);
    free(F);
    return FT_SUCCESS;
}

int ft_qrf_recoveries(const ft_qrf_t *F) { return F ? F->nrec : -1; }

void qrf_reset(struct ft_qrf *F, int64_t m, int64_t n)
{
    F->m = m;
    F->n = n;
    F->nrec = 0;
}

int qrf_add(struct ft_qrf *F, int64_t i, int64_t nj, int64_t ng, const double *cj,
            const double *sj, const double *cg, const double *sg)
{
    if (F->nrec == F->cap) {
        int cap = F->cap ? 2 * F->cap : 4;
        qrf_rec_t *r = realloc(F->rec, (size_t)cap * sizeof *r);
        if (!r) return FT_ERR_ALLOC;
        memset(r + F->cap, 0, (size_t)(cap - F->cap) * sizeof *r);
        F->rec = r;
        F->cap = cap;
    }
    qrf_rec_t *r = &F->rec[F->nrec];
    double *p = realloc(r->cj, (size_t)(2 * (nj + ng) + 1) * sizeof(double));
    if (!p) return FT_ERR_ALLOC;
    r->i = i, r->nj = nj, r->ng = ng;
    r->cj = p, r->sj = p + nj, r->cg = p + 2 * nj, r->sg = p + 2 * nj + ng;
    memcpy(r->cj, cj, (size_t)nj * sizeof(double));
    memcpy(r->sj, sj, (size_t)nj * sizeof(double));
    memcpy(r->cg, cg, (size_t)ng * sizeof(double));
    memcpy(r->sg, sg, (size_t)ng * sizeof(double));
    F->nrec++;
    return FT_SUCCESS;
}

/* ---- rotations of a record ----------------------------------------------------------------- */

int qrf_record_sweeps(const qrf_rec_t *r, int left, int inverse, qrf_sweep_t sw[2])
{
    const int64_t nj = r->nj, ng = r->ng;
    int ns = 0;
    /* J^T = P_0 ... P_(nj-1), G^T = P'_(ng-1) ... P'_0 (products of dlasr rotations) */
    if (left && !inverse) {        /* R^T C: P_(nj-1) first ... then P'_0 first ... */
        if (nj) sw[ns++] = (qrf_sweep_t){0, 0, nj - 1, -1, nj};
        if (ng) sw[ns++] = (qrf_sweep_t){1, 0, 0, 1, ng};
    } else if (left) {             /* R C = J G C: P'_(ng-1)^T first, then P_0^T first */
        if (ng) sw[ns++] = (qrf_sweep_t){1, 1, ng - 1, -1, ng};
        if (nj) sw[ns++] = (qrf_sweep_t){0, 1, 0, 1, nj};
    } else if (!inverse) {         /* C R = C J G: P_(nj-1)^T first, then P'_0^T first */
        if (nj) sw[ns++] = (qrf_sweep_t){0, 1, nj - 1, -1, nj};
        if (ng) sw[ns++] = (qrf_sweep_t){1, 1, 0, 1, ng};
    } else {                       /* C R^T = C G^T J^T: P'_(ng-1) first, then P_0 first */
        if (ng) sw[ns++] = (qrf_sweep_t){1, 0, ng - 1, -1, ng};
        if (nj) sw[ns++] = (qrf_sweep_t){0, 0, 0, 1, nj};
    }
    return ns;
}

void qrf_apply_record(const qrf_rec_t *r, int left, int inverse, double *C, int64_t m,
                      int64_t n, int64_t ldc)
{
    qrf_sweep_t sw[2];
    const int ns = qrf_record_sweeps(r, left, inverse, sw);
    for (int u = 0; u < ns; u++)
        qr_rotate_ref(left, sw[u].transposed, sw[u].t0, sw[u].dt, sw[u].cnt,
                      sw[u].g ? r->cg : r->cj, sw[u].g ? r->sg : r->sj, C, m, n, ldc);
}

/* Reflectors [r0, r1) of A (LAPACK layout), op as LAPACK dormqr, on the rows (left) or columns
 * (right) r0 .. nq-1 of C. */
static int reflectors(char side, char trans, int64_t nq, int64_t r0, int64_t r1, const double *A,
                      int64_t lda, const double *tau, double *C, int64_t m, int64_t n,
                      int64_t ldc)
{
    if (r1 <= r0) return FT_SUCCESS;
    const double *Ar = A + r0 + r0 * lda;
    if (side == 'L') return ft_lapack_dormqr('L', trans, nq - r0, n, r1 - r0, Ar, lda, tau + r0,
                                             C + r0, ldc);
    return ft_lapack_dormqr('R', trans, m, nq - r0, r1 - r0, Ar, lda, tau + r0, C + r0 * ldc,
                            ldc);
}

int qrf_ormqr_arg(char side, char trans, ft_int m, ft_int n, ft_int k, ft_int lda,
                  const struct ft_qrf *F, ft_int ldc)
{
    const int left = side == 'L' || side == 'l', tr = trans == 'T' || trans == 't';
    const int64_t nq = left ? m : n;
    if (!left && side != 'R' && side != 'r') return 1;
    if (!tr && trans != 'N' && trans != 'n') return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0 || k > nq) return 5;
    if (lda < (nq > 1 ? nq : 1)) return 7;
    if (F && F->nrec > 0 && (F->m != nq || k != (F->m < F->n ? F->m : F->n))) return 9;
    if (ldc < (m > 1 ? m : 1)) return 11;
    return 0;
}

int ft_dormqr(char side, char trans, ft_int m, ft_int n, ft_int k, const double *A, ft_int lda,
              const double *tau, const ft_qrf_t *F, double *C, ft_int ldc, ft_int *info)
{
    const int left = side == 'L' || side == 'l', tr = trans == 'T' || trans == 't';
    const int64_t nq = left ? m : n;
    const int arg = qrf_ormqr_arg(side, trans, m, n, k, lda, F, ldc);
    if (arg) {
        ft_xerbla("FT_DORMQR", arg);
        if (info) *info = -arg;
        return -arg;
    }
    int st = FT_SUCCESS;
    if (m > 0 && n > 0 && k > 0) {
        const int nr = F ? F->nrec : 0;
        const char s = left ? 'L' : 'R', t = tr ? 'T' : 'N';
        /* Q = H_0 .. H_(i1-1) R_1 H_(i1) .. ; records in order, i non-decreasing */
        const int forward = left ? tr : !tr; /* H_0 (and R_1 ...) reach C first */
        if (forward) {
            int64_t r0 = 0;
            for (int r = 0; r < nr && !st; r++) {
                const int64_t i = F->rec[r].i < k ? F->rec[r].i : k;
                st = reflectors(s, t, nq, r0, i, A, lda, tau, C, m, n, ldc);
                r0 = i;
                if (!st) qrf_apply_record(&F->rec[r], left, 0, C, m, n, ldc);
            }
            if (!st) st = reflectors(s, t, nq, r0, k, A, lda, tau, C, m, n, ldc);
        } else {
            int64_t r1 = k;
            for (int r = nr - 1; r >= 0 && !st; r--) {
                const int64_t i = F->rec[r].i < k ? F->rec[r].i : k;
                st = reflectors(s, t, nq, i, r1, A, lda, tau, C, m, n, ldc);
                r1 = i;
                if (!st) qrf_apply_record(&F->rec[r], left, 1, C, m, n, ldc);
            }
            if (!st) st = reflectors(s, t, nq, 0, r1, A, lda, tau, C, m, n, ldc);
        }
    }
    if (info) *info = st;
    return st;
}

/* ---- ft_dgels ------------------------------------------------------------------------------ */

int qrf_gels_arg(int gpu, char trans, ft_int m, ft_int n, ft_int nrhs, ft_int lda, ft_int ldb,
                 ft_int lwork)
{
    const int64_t mx = m > n ? m : n;
    if (trans != 'T' && trans != 't' && trans != 'N' && trans != 'n') return 1;
    if (m < 0) return 2;
    if (n < 0) return 3;
    if (nrhs < 0) return 4;
    if (lda < (m > 1 ? m : 1)) return 6;
    if (ldb < (mx > 1 ? mx : 1)) return 8;
    if (!gpu && lwork < 1 && lwork != -1) return 10;
    return 0;
}

/* LAPACK dgels' scaling of X (rows x cols) into [smlnum, bignum]: *how = 0 (none), 1 (scaled
 * up from *nrm to smlnum) or 2 (down from *nrm to bignum). */
static int scale_in(int64_t rows, int64_t cols, double *X, int64_t ldx, double *nrm, int *how)
{
    *how = 0;
    FT_CHECK(ft_lapack_dlange_max(rows, cols, X, ldx, nrm));
    if (*nrm > 0.0 && *nrm < QRF_SMLNUM) *how = 1;
    else if (*nrm > QRF_BIGNUM) *how = 2;
    if (*how) FT_CHECK(ft_lapack_dlascl(*nrm, *how == 1 ? QRF_SMLNUM : QRF_BIGNUM, rows, cols, X,
                                        ldx));
    return FT_SUCCESS;
}

int ft_dgels(char trans, ft_int m, ft_int n, ft_int nrhs, double *A, ft_int lda, double *B,
             ft_int ldb, double *work, ft_int lwork, ft_int *info)
{
    const int tr = trans == 'T' || trans == 't';
    const int64_t mn = m < n ? m : n, mx = m > n ? m : n;
    const int64_t wopt = mn + (mn > nrhs ? mn : nrhs) > 1 ? mn + (mn > nrhs ? mn : nrhs) : 1;
    const int arg = qrf_gels_arg(0, trans, m, n, nrhs, lda, ldb, lwork);
    if (arg) {
        ft_xerbla("FT_DGELS", arg);
        if (info) *info = -arg;
        return -arg;
    }
    if (work) work[0] = (double)wopt;
    if (lwork == -1) {
        if (info) *info = 0;
        return 0;
    }
    /* LAPACK dgels: A and B whose largest element lies outside [smlnum, bignum] are scaled into
     * it (the solve would under/overflow otherwise) and the solution is scaled back at the end;
     * A = 0 gives X = 0. A keeps the factorization of the scaled A, as in LAPACK. */
    double anrm = 0.0, bnrm = 0.0;
    int iascl = 0, ibscl = 0, st = FT_SUCCESS;
    if (mn > 0 && nrhs > 0) st = scale_in(m, n, A, lda, &anrm, &iascl);
    if (mn == 0 || nrhs == 0 || (!st && anrm == 0.0)) { /* LAPACK: B(1:max(m,n), :) = 0 */
        for (int64_t j = 0; j < nrhs; j++) memset(B + j * ldb, 0, (size_t)mx * sizeof(double));
        if (info) *info = 0;
        return 0;
    }
    if (!st) st = scale_in(tr ? n : m, nrhs, B, ldb, &bnrm, &ibscl);
    /* factor X = A (m >= n) or A^T (m < n): p x q, p >= q */
    const int64_t p = mx, q = mn;
    double *X = A, *tau = st ? NULL : malloc((size_t)q * sizeof(double));
    int64_t ldx = lda;
    ft_qrf_t *F = NULL;
    if (!st) st = tau ? ft_qrf_create(&F) : FT_ERR_ALLOC;
    if (!st && m < n) {
        X = malloc((size_t)(p * q) * sizeof(double));
        ldx = p;
        if (!X) st = FT_ERR_ALLOC;
        else
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) X[j + i * p] = A[i + j * lda];
    }
    if (!st) st = qr_geqrf_factor(NULL, 0, F, (ft_int)p, (ft_int)q, X, (ft_int)ldx, tau, NULL);
    int64_t sing = 0;
    if (!st)
        for (int64_t j = 0; j < q && !sing; j++)
            if (X[j + j * ldx] == 0.0) sing = j + 1;
    /* overdetermined (A x ~ b with m >= n, or A^T x ~ b with m < n): x = R^-1 (Q^T b)(0:q);
     * underdetermined (the other two): x = Q [R^-T b; 0] */
    const int over = (m >= n) != tr;
    if (!st && !sing) {
        if (over) {
            st = ft_dormqr('L', 'T', (ft_int)p, nrhs, (ft_int)q, X, (ft_int)ldx, tau, F, B, ldb,
                           NULL);
            if (!st)
                cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit,
                            (int)q, nrhs, 1.0, X, (int)ldx, B, ldb);
        } else {
            cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, (int)q,
                        nrhs, 1.0, X, (int)ldx, B, ldb);
            for (int64_t j = 0; j < nrhs; j++)
                memset(B + q + j * ldb, 0, (size_t)(p - q) * sizeof(double));
            st = ft_dormqr('L', 'N', (ft_int)p, nrhs, (ft_int)q, X, (ft_int)ldx, tau, F, B, ldb,
                           NULL);
        }
    }
    /* undo the scaling on the solution's rows (LAPACK's SCLLEN: the columns of op(A)) */
    const int64_t scllen = tr ? m : n;
    if (!st && !sing && iascl)
        st = ft_lapack_dlascl(anrm, iascl == 1 ? QRF_SMLNUM : QRF_BIGNUM, scllen, nrhs, B, ldb);
    if (!st && !sing && ibscl)
        st = ft_lapack_dlascl(ibscl == 1 ? QRF_SMLNUM : QRF_BIGNUM, bnrm, scllen, nrhs, B, ldb);
    if (X != A && X) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) A[i + j * lda] = X[j + i * p];
        free(X);
    }
    ft_qrf_destroy(F);
    free(tau);
    if (!st && sing) st = (int)sing;
    if (info) *info = st;
    return st;
}
