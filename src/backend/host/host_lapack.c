/* host_lapack.c — host LAPACK (LAPACKE) calls of the factorizations (backend.h, "host LAPACK"). */
#include "backend/backend.h"
#include "core/team.h"

#include <lapacke.h>
#include <limits.h>
#include <stdlib.h>

static int fits(int64_t v) { return v >= 0 && v <= INT_MAX; }

int ft_lapack_panel_qr(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *work,
                       int64_t lwork)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits(m) || !fits(n) || !fits(ldp) || ldp < (m > 1 ? m : 1) || lwork < n)
        return FT_ERR_LAPACK;
    if (lwork > INT_MAX) lwork = INT_MAX;
    lapack_int info;
    if (n <= 16)
        info = LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, P,
                                   (lapack_int)ldp, tau, work);
    else
        info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, P,
                                   (lapack_int)ldp, tau, work, (lapack_int)lwork);
    return info == 0 ? FT_SUCCESS : FT_ERR_LAPACK;
}

int ft_lapack_panel_qrt(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *T,
                        int64_t ldt)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits(m) || !fits(n) || !fits(ldp) || !fits(ldt) || m < n || ldp < (m > 1 ? m : 1) ||
        ldt < n)
        return FT_ERR_LAPACK;
    /* the _work interface: no NaN check of the input (LAPACK's semantics) */
    lapack_int info = LAPACKE_dgeqrt3_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, P,
                                           (lapack_int)ldp, T, (lapack_int)ldt);
    if (info != 0) return FT_ERR_LAPACK;
    for (int64_t c = 0; c < n; c++) tau[c] = T[c + c * ldt];
    return FT_SUCCESS;
}

int ft_lapack_panel_factor(int64_t m, int64_t n, double *P, int64_t ldp, double *tau, double *T,
                           int64_t ldt, double *work, int64_t lwork)
{
    if (ft_host_threads() <= 4 && m >= n) return ft_lapack_panel_qrt(m, n, P, ldp, tau, T, ldt);
    const int st = ft_lapack_panel_qr(m, n, P, ldp, tau, work, lwork);
    return st ? st : ft_lapack_larft(m, n, P, ldp, tau, T, ldt);
}

int ft_lapack_larft(int64_t m, int64_t k, const double *V, int64_t ldv, const double *tau,
                    double *T, int64_t ldt)
{
    if (k == 0) return FT_SUCCESS;
    if (!fits(m) || !fits(k) || !fits(ldv) || !fits(ldt) || ldt < k || m < k) return FT_ERR_LAPACK;
    lapack_int info = LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', (lapack_int)m,
                                          (lapack_int)k, V, (lapack_int)ldv, tau, T,
                                          (lapack_int)ldt);
    return info == 0 ? FT_SUCCESS : FT_ERR_LAPACK;
}

int ft_lapack_dgeqrf(int64_t m, int64_t n, double *A, int64_t lda, double *tau)
{
    if (m == 0 || n == 0) return FT_SUCCESS;
    if (!fits(m) || !fits(n) || !fits(lda) || lda < (m > 1 ? m : 1)) return FT_ERR_LAPACK;
    /* the _work interface: LAPACK's semantics exactly (the high-level LAPACKE_dgeqrf refuses
     * NaN input, where LAPACK's dgeqrf factors it and returns 0) */
    double q = 0.0;
    lapack_int info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, A,
                                          (lapack_int)lda, tau, &q, -1);
    if (info != 0) return FT_ERR_LAPACK;
    lapack_int lwork = q > (double)n ? (lapack_int)q : (lapack_int)(n > 1 ? n : 1);
    double *work = malloc((size_t)lwork * sizeof(double));
    if (!work) return FT_ERR_ALLOC;
    info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, A,
                               (lapack_int)lda, tau, work, lwork);
    free(work);
    return info == 0 ? FT_SUCCESS : FT_ERR_LAPACK;
}

int ft_lapack_dormqr(char side, char trans, int64_t m, int64_t n, int64_t k, const double *A,
                     int64_t lda, const double *tau, double *C, int64_t ldc)
{
    if (m <= 0 || n <= 0 || k <= 0) return FT_SUCCESS;
    /* the _work interface (the high-level one refuses NaN in C, which LAPACK propagates) */
    double q;
    lapack_int info = LAPACKE_dormqr_work(LAPACK_COL_MAJOR, side, trans, (lapack_int)m,
                                          (lapack_int)n, (lapack_int)k, A, (lapack_int)lda, tau,
                                          C, (lapack_int)ldc, &q, -1);
    if (info) return FT_ERR_LAPACK;
    lapack_int lw = (lapack_int)q > 1 ? (lapack_int)q : 1;
    double *w = malloc((size_t)lw * sizeof(double));
    if (!w) return FT_ERR_ALLOC;
    info = LAPACKE_dormqr_work(LAPACK_COL_MAJOR, side, trans, (lapack_int)m, (lapack_int)n,
                               (lapack_int)k, A, (lapack_int)lda, tau, C, (lapack_int)ldc, w, lw);
    free(w);
    return info == 0 ? FT_SUCCESS : FT_ERR_LAPACK;
}

int ft_lapack_dlange_max(int64_t m, int64_t n, const double *A, int64_t lda, double *amax)
{
    *amax = 0.0;
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (!fits(m) || !fits(n) || !fits(lda) || lda < m) return FT_ERR_LAPACK;
    /* the _work interface: LAPACK's NaN propagation (the high-level one checks the input);
     * norm 'M' uses no workspace */
    *amax = LAPACKE_dlange_work(LAPACK_COL_MAJOR, 'M', (lapack_int)m, (lapack_int)n, A,
                                (lapack_int)lda, NULL);
    return FT_SUCCESS;
}

int ft_lapack_dlascl(double cfrom, double cto, int64_t m, int64_t n, double *A, int64_t lda)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (!fits(m) || !fits(n) || !fits(lda) || lda < m) return FT_ERR_LAPACK;
    lapack_int info = LAPACKE_dlascl_work(LAPACK_COL_MAJOR, 'G', 0, 0, cfrom, cto, (lapack_int)m,
                                          (lapack_int)n, A, (lapack_int)lda);
    return info == 0 ? FT_SUCCESS : FT_ERR_LAPACK;
}
