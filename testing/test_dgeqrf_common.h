/*
 * test_dgeqrf_common.h — helpers of the ft_dgeqrf tests and tester (header-only, static):
 * the LAPACK dqrt01 ratios of a factorization in LAPACK layout, and the test matrix types.
 */
#ifndef FTLA_TEST_DGEQRF_COMMON_H
#define FTLA_TEST_DGEQRF_COMMON_H

#include "testing_util.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The dqrt01 ratios from an explicit m x m Q: ||R - Q^T A||_1 / (max(m,n) ||A||_1 eps) and
 * ||I - Q^T Q||_1 / (m eps), R the upper triangle of AF. */
static inline void qr_ratios_q(int64_t m, int64_t n, const double *A, int64_t lda,
                               const double *AF, int64_t ldaf, const double *Q, double res[2])
{
    const double eps = tu_eps();
    double *R = tu_malloc(m * n), *Id = tu_malloc(m * m);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) R[TU_IX(i, j, m)] = i <= j ? AF[TU_IX(i, j, ldaf)] : 0.0;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)m, (int)n, (int)m, -1.0, Q, (int)m,
                A, (int)lda, 1.0, R, (int)m);
    double anorm = tu_dlange('1', m, n, A, lda);
    double rn = tu_dlange('1', m, n, R, m);
    res[0] = anorm > 0 ? rn / ((double)(m > n ? m : n) * anorm * eps) : (rn > 0 ? INFINITY : 0.0);
    if (isnan(rn)) res[0] = NAN;
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) Id[TU_IX(i, j, m)] = i == j ? 1.0 : 0.0;
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, (int)m, (int)m, -1.0, Q, (int)m, 1.0, Id,
                (int)m);
    for (int64_t j = 0; j < m; j++) /* symmetric: mirror for the 1-norm */
        for (int64_t i = j + 1; i < m; i++) Id[TU_IX(i, j, m)] = Id[TU_IX(j, i, m)];
    res[1] = tu_dlange('1', m, m, Id, m) / ((double)m * eps);
    free(R);
    free(Id);
}

/* LAPACK dqrt01's ratios of the LAPACK-layout factor (Q from LAPACKE_dorgqr). */
static inline void qr_ratios(int64_t m, int64_t n, const double *A, int64_t lda, const double *AF,
                             int64_t ldaf, const double *tau, double res[2])
{
    const int64_t k = m < n ? m : n;
    res[0] = res[1] = 0.0;
    if (m == 0 || n == 0) return;
    double *Q = tu_malloc(m * m);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++)
            Q[TU_IX(i, j, m)] = j < k && i > j ? AF[TU_IX(i, j, ldaf)] : 0.0;
    if (k > 0 && LAPACKE_dorgqr(LAPACK_COL_MAJOR, (int)m, (int)m, (int)k, Q, (int)m, tau) != 0)
        res[0] = res[1] = NAN;
    else qr_ratios_q(m, n, A, lda, AF, ldaf, Q, res);
    free(Q);
}

/* The same for an FT factor: Q formed by ft_dormqr (Q I) with the factor's rotations. */
static inline void qr_ratios_ft(int64_t m, int64_t n, const double *A, int64_t lda,
                                const double *AF, int64_t ldaf, const double *tau,
                                const ft_qrf_t *F, double res[2])
{
    const int64_t k = m < n ? m : n;
    res[0] = res[1] = 0.0;
    if (m == 0 || n == 0) return;
    double *Q = tu_malloc(m * m);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) Q[TU_IX(i, j, m)] = i == j ? 1.0 : 0.0;
    ft_int info;
    if (ft_dormqr('L', 'N', (ft_int)m, (ft_int)m, (ft_int)k, AF, (ft_int)ldaf, tau, F, Q,
                  (ft_int)m, &info) != 0)
        res[0] = res[1] = NAN;
    else qr_ratios_q(m, n, A, lda, AF, ldaf, Q, res);
    free(Q);
}

/* Test matrix types. */
enum {
    MT_UNIFORM = 0, MT_NORMAL, MT_TINY, MT_HUGE, MT_GRADED, MT_RANKDEF, MT_COND15, MT_INTEGER,
    MT_COUNT
};
static inline const char *mt_name(int t)
{
    static const char *names[MT_COUNT] = {"uniform", "normal", "scaled 1e-290", "scaled 1e+290",
                                        "graded 1e-10..1e10", "rank n/2", "cond 1e15",
                                        "integer"};
    return t >= 0 && t < MT_COUNT ? names[t] : "?";
}

static inline double mt_normal(tu_rng_t *r)
{
    double u1 = 0.5 * (tu_uniform(r) + 1.0), u2 = 0.5 * (tu_uniform(r) + 1.0);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Random p x p orthogonal matrix (QR of a normal random matrix), ld p. */
static inline void mt_orthogonal(tu_rng_t *r, int64_t p, double *U)
{
    double *tau = tu_malloc(p);
    for (int64_t i = 0; i < p * p; i++) U[i] = mt_normal(r);
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)p, (int)p, U, (int)p, tau);
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, (int)p, (int)p, (int)p, U, (int)p, tau);
    free(tau);
}

/* Fill the m x n A (lda) with matrix type t. */
static inline void mt_fill(tu_rng_t *r, int t, int64_t m, int64_t n, double *A, int64_t lda)
{
    const int64_t k = m < n ? m : n;
    switch (t) {
    case MT_NORMAL:
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) A[TU_IX(i, j, lda)] = mt_normal(r);
        break;
    case MT_TINY:
    case MT_HUGE: {
        double s = t == MT_TINY ? 1e-290 : 1e+290;
        tu_fill(r, m, n, A, lda);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) A[TU_IX(i, j, lda)] *= s;
        break;
    }
    case MT_GRADED:
        tu_fill(r, m, n, A, lda);
        for (int64_t j = 0; j < n; j++) {
            double s = pow(10.0, n > 1 ? -10.0 + 20.0 * (double)j / (double)(n - 1) : 0.0);
            for (int64_t i = 0; i < m; i++) A[TU_IX(i, j, lda)] *= s;
        }
        break;
    case MT_RANKDEF: { /* A = X Y^T, X m x r, Y n x r, r = n/2 (at least 1) */
        int64_t rk = n / 2 > 0 ? n / 2 : 1;
        double *X = tu_malloc(m * rk), *Y = tu_malloc(n * rk);
        tu_fill(r, m, rk, X, m);
        tu_fill(r, n, rk, Y, n);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)rk, 1.0, X,
                    (int)m, Y, (int)n, 0.0, A, (int)lda);
        free(X);
        free(Y);
        break;
    }
    case MT_COND15: { /* U diag(sigma) V^T, sigma geometric 1 .. 1e-15 */
        double *U = tu_malloc(m * m), *V = tu_malloc(n * n), *US = tu_malloc(m * k);
        mt_orthogonal(r, m, U);
        mt_orthogonal(r, n, V);
        for (int64_t j = 0; j < k; j++) {
            double s = k > 1 ? pow(10.0, -15.0 * (double)j / (double)(k - 1)) : 1.0;
            for (int64_t i = 0; i < m; i++) US[TU_IX(i, j, m)] = U[TU_IX(i, j, m)] * s;
        }
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0, US,
                    (int)m, V, (int)n, 0.0, A, (int)lda);
        free(U);
        free(V);
        free(US);
        break;
    }
    case MT_INTEGER:
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) A[TU_IX(i, j, lda)] = (double)tu_int(r, -9, 9);
        break;
    default:
        tu_fill(r, m, n, A, lda);
        break;
    }
}

#endif
