/*
 * preload_ormqr.c — the checksum arithmetic of the interposed dormqr_ (preload_ormqr.h,
 * docs/interposer.md "dormqr_").
 */
#include "interface/preload_ormqr.h"

#include "abft/abft.h"
#include "core/simd.h"

#include <math.h>
#include <string.h>

double ormqr_weight(int64_t d)
{
    double w = 1.0;
    for (int64_t p = 1; p < d; p <<= 1) w *= 0.5;
    return w;
}

/* (scale, ssq) := the pair whose scale^2 ssq is the sum of both (LAPACK dlassq's update). */
static void lassq_add(double *scale, double *ssq, double cs, double cq)
{
    if (!(cq > 0.0)) return;
    if (cs > *scale) {
        const double r = *scale / cs;
        *ssq = cq + *ssq * r * r;
        *scale = cs;
    } else {
        const double r = cs / *scale;
        *ssq += cq * r * r;
    }
}

/* Column j of C copied into x (m entries), with its largest magnitude; z collects v * 0 (NaN
 * exactly when an entry is NaN or Inf). */
static inline double copy_col(int64_t m, const double *restrict c, double *restrict x, double *z)
{
    double mx = 0.0, zz = 0.0;
    for (int64_t i = 0; i < m; i++) {
        const double v = c[i], a = fabs(v);
        x[i] = v;
        mx = a > mx ? a : mx;
        zz += v * 0.0;
    }
    *z += zz;
    return mx;
}

/* sum_i w x_i in four partial sums (the order the check's rounding bound allows) */
static inline double wsum(int64_t m, const double *x, double w)
{
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    int64_t i = 0;
    for (; i + 3 < m; i += 4) {
        a0 = a0 + w * x[i];
        a1 = a1 + w * x[i + 1];
        a2 = a2 + w * x[i + 2];
        a3 = a3 + w * x[i + 3];
    }
    for (; i < m; i++) a0 = a0 + w * x[i];
    return (a0 + a1) + (a2 + a3);
}

/* sum of (x_i / 2^e)^2 for the column whose largest magnitude is below 2^e: each term <= 1 */
static inline double col_ssq(int64_t m, const double *x, double r)
{
    double q0 = 0.0, q1 = 0.0;
    int64_t i = 0;
    for (; i + 1 < m; i += 2) {
        const double t0 = x[i] * r, t1 = x[i + 1] * r;
        q0 += t0 * t0;
        q1 += t1 * t1;
    }
    if (i < m) q0 += (x[i] * r) * (x[i] * r);
    return q0 + q1;
}

FT_SIMD_CLONES double ormqr_fill(int left, int64_t m, int64_t n, const double *C, int64_t ldc, double *W,
                  double w)
{
    const int64_t ldw = left ? m : m + 1;
    double *s = left ? W + n * ldw : NULL;
    if (left)
        for (int64_t i = 0; i < m; i++) s[i] = 0.0;
    double scale = 0.0, ssq = 0.0, z = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double *x = W + j * ldw;
        const double mx = copy_col(m, C + j * ldc, x, &z);
        if (left) {
            for (int64_t i = 0; i < m; i++) s[i] = s[i] + w * x[i];
        } else {
            x[m] = wsum(m, x, w);
        }
        if (mx > 0.0 && mx <= DBL_MAX) {
            int e;
            frexp(mx, &e); /* mx < 2^e */
            if (e < -1000) e = -1000;
            lassq_add(&scale, &ssq, ldexp(1.0, e), col_ssq(m, x, ldexp(1.0, -e)));
        }
    }
    if (z != 0.0) return NAN; /* an Inf or a NaN in C */
    return scale * sqrt(ssq);
}

double ormqr_tau(int left, int64_t m, int64_t n, int64_t k, double fro, double w)
{
    const int64_t d = left ? n : m, nq = left ? m : n;
    const double rel = (8.0 * (double)(k + nq + 2) + 2.0 * (double)(d + 2)) * ABFT_U;
    const double under = 16.0 * (double)(k + 2) * (double)(nq + d + 2) * ABFT_ETA;
    return rel * ((w * sqrt((double)d)) * fro) + under;
}

FT_SIMD_CLONES int64_t ormqr_check(int left, int64_t m, int64_t n, const double *W, double w, double tau,
                    double *acc, int64_t *first, int *nonfinite)
{
    int64_t bad = 0;
    *first = -1;
    *nonfinite = 0;
    if (left) {
        for (int64_t i = 0; i < m; i++) acc[i] = 0.0;
        for (int64_t j = 0; j < n; j++) {
            const double *x = W + j * m;
            for (int64_t i = 0; i < m; i++) acc[i] = acc[i] + w * x[i];
        }
        const double *s = W + n * m;
        for (int64_t i = 0; i < m; i++) {
            const double d = fabs(acc[i] - s[i]);
            if (!(d <= tau)) {
                if (*first < 0) *first = i;
                bad++;
                if (!isfinite(d)) *nonfinite = 1;
            }
        }
        return bad;
    }
    for (int64_t j = 0; j < n; j++) {
        const double *x = W + j * (m + 1);
        const double d = fabs(wsum(m, x, w) - x[m]);
        if (!(d <= tau)) {
            if (*first < 0) *first = j;
            bad++;
            if (!isfinite(d)) *nonfinite = 1;
        }
    }
    return bad;
}

void ormqr_copy_back(int left, int64_t m, int64_t n, const double *W, double *C, int64_t ldc)
{
    const int64_t ldw = left ? m : m + 1;
    for (int64_t j = 0; j < n; j++) memcpy(C + j * ldc, W + j * ldw, (size_t)m * sizeof(double));
}
