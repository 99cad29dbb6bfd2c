/*
 * test_givens.c — plane rotations (src/givens, givens.h; docs/givens.md).
 *   cpu:  dlartg semantics at every scale; the host reference of dlasr against LAPACK's dlasr;
 *         both tasks of Algorithm 1 against dense dlasr with the same rotations (and nothing
 *         below the diagonal touched); the whole QR update of paper 004 Algorithm 1 on a
 *         factorization of a perturbed matrix: Q^T A = R and R = LAPACK's R up to row signs.
 *   cuda: the plain and the fused kernels against the host reference, sizes 1 .. 20000,
 *         square, tall and wide, multiples of the block size and not.
 */
#include "givens/givens.h"

#include "testing_util.h"

#include <ftla.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENT 7777.0 /* below-diagonal storage must come back untouched */

extern void dlasr_(const char *side, const char *pivot, const char *direct, const int *m,
                   const int *n, const double *c, const double *s, double *A, const int *lda,
                   size_t, size_t, size_t);

static const double U = 1.1102230246251565e-16;

static double maxabs(int64_t n, const double *x)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(x[i]) <= m)) m = fabs(x[i]);
    return m;
}

/* m x n upper trapezoid, uniform, SENT strictly below the diagonal */
static void fill_upper(tu_rng_t *r, int64_t m, int64_t n, double *R, int64_t ld)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) R[i + j * ld] = i <= j ? tu_uniform(r) : SENT;
}

/* max |X - Y| over the upper trapezoid of m x n; *kept = every element of X strictly below
 * the diagonal is still SENT */
static double upper_diff(int64_t m, int64_t n, const double *X, int64_t ldx, const double *Y,
                         int64_t ldy, int *kept)
{
    double e = 0;
    *kept = 1;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            if (i <= j) e = fmax(e, fabs(X[i + j * ldx] - Y[i + j * ldy]));
            else *kept &= X[i + j * ldx] == SENT;
        }
    return e;
}

static void test_lartg(void)
{
    const double v[] = {0.0, 4e-320, 1e-310, 1e-200, 1.5e-154, 1e-150, 1e-8, 1.0, 3.0,
                        1e8, 1e150, 4.8e153, 1e200, 1e300, 1.7e308};
    const int nv = (int)(sizeof v / sizeof v[0]);
    int bad = 0;
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++)
            for (int sg = 0; sg < 4; sg++) {
                const double f = (sg & 1) ? -v[a] : v[a], g = (sg & 2) ? -v[b] : v[b];
                const double h = hypot(f, g);
                if (!isfinite(h)) continue;
                double c, s, r;
                givens_lartg(f, g, &c, &s, &r);
                const double M = fabs(f) > fabs(g) ? fabs(f) : fabs(g);
                int ok = isfinite(c) && isfinite(s) && isfinite(r) && c >= 0 &&
                         fabs(c * c + s * s - 1) <= 4 * U;
                if (M > 0) {
                    /* a subnormal r carries an absolute rounding of up to its spacing 2^-1074 */
                    const double fm = f / M, gm = g / M, ar = 2 * 0x1p-1074;
                    ok = ok && fabs(c * fm + s * gm - r / M) <= 4 * U + ar / M &&
                         fabs(-s * fm + c * gm) <= 4 * U && fabs(fabs(r) - h) <= 4 * U * h + ar;
                    if (f != 0) ok = ok && (r > 0) == (f > 0);
                } else {
                    ok = ok && c == 1 && s == 0 && r == 0;
                }
                if (!ok && bad++ < 5)
                    printf("lartg(%g, %g) = c %.17g s %.17g r %.17g\n", f, g, c, s, r);
            }
    TU_CHECK(bad == 0, "%d lartg cases off (c^2+s^2=1, [c s;-s c][f;g]=[r;0], r = sign(f) hypot)",
             bad);
    double c, s, r;
    givens_lartg(0.0, -2.0, &c, &s, &r);
    TU_CHECK(c == 0 && s == -1 && r == 2, "f = 0: c %g s %g r %g", c, s, r);
    givens_lartg(-3.0, 0.0, &c, &s, &r);
    TU_CHECK(c == 1 && s == 0 && r == -3, "g = 0: c %g s %g r %g", c, s, r);
}

static void test_lasr(tu_rng_t *rng)
{
    const int m = 37, n = 23;
    double *A = tu_malloc(m * n), *B = tu_malloc(m * n), c[36], s[36];
    for (int p = 0; p < m - 1; p++) {
        double r;
        givens_lartg(tu_uniform(rng), tu_uniform(rng), &c[p], &s[p], &r);
    }
    for (int d = 0; d < 2; d++) {
        const char dir = d ? 'B' : 'F';
        tu_fill(rng, m, n, A, m);
        memcpy(B, A, sizeof(double) * m * n);
        givens_ref_lasr(dir, m, n, c, s, A, m);
        dlasr_("L", "V", &dir, &m, &n, c, s, B, &m, 1, 1, 1);
        double e = 0;
        for (int i = 0; i < m * n; i++) e = fmax(e, fabs(A[i] - B[i]));
        TU_CHECK(e <= 4 * U * maxabs(m * n, B), "lasr %c against LAPACK dlasr: %g", dir, e);
    }
    free(A), free(B);
}

/* Both tasks against dense dlasr with the rotations they produced. */
static void test_tasks(tu_rng_t *rng, int m, int n)
{
    const int ld = m + 3, ns = m - 1 < n ? m - 1 : n;
    double *R = tu_malloc(ld * n), *D = tu_malloc(m * n), *x = tu_malloc(m), *x0 = tu_malloc(m);
    double *sub = tu_malloc(n + 1), *c = tu_malloc(m), *s = tu_malloc(m);
    fill_upper(rng, m, n, R, ld);
    for (int i = 0; i < m; i++) x0[i] = x[i] = tu_uniform(rng);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) D[i + j * m] = i <= j ? R[i + j * ld] : 0.0;
    for (int j = 0; j <= n; j++) sub[j] = -1.0;
    givens_ref_zero_to_hess(m, n, x, R, ld, sub, c, s);
    double nx = 0;
    for (int i = 0; i < m; i++) nx = hypot(nx, x0[i]);
    int zero = 1;
    for (int i = 1; i < m; i++) zero &= x[i] == 0.0;
    TU_CHECK(zero && fabs(fabs(x[0]) - nx) <= 8 * m * U * nx, "%dx%d: x -> +-||x|| e1 (%g vs %g)",
             m, n, x[0], nx);
    if (m > 1) dlasr_("L", "V", "B", &m, &n, c, s, D, &m, 1, 1, 1);
    double e = 0, mx = maxabs(m * n, D), below = 0;
    int sent = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            if (i <= j) e = fmax(e, fabs(R[i + j * ld] - D[i + j * m]));
            else if (i == j + 1) e = fmax(e, fabs(sub[j] - D[i + j * m]));
            else {
                below = fmax(below, fabs(D[i + j * m]));
                sent &= R[i + j * ld] == SENT;
            }
        }
    TU_CHECK(e <= 4 * U * mx && below == 0 && sent,
             "%dx%d zero_to_hess against dense dlasr: %g (below %g, storage kept %d)", m, n, e,
             below, sent);
    TU_CHECK(ns >= n || sub[n] == -1.0, "%dx%d: sub written past min(m-1, n)", m, n);
    /* hess_to_tri */
    if (n > 0) R[0 + (n / 2) * ld] += 0.75; /* the rank-one term of Algorithm 1 */
    if (n > 0) D[0 + (n / 2) * m] += 0.75;
    givens_ref_hess_to_tri(m, n, R, ld, sub, c, s);
    if (m > 1) {
        for (int p = ns; p < m - 1; p++) c[p] = 1.0, s[p] = 0.0;
        dlasr_("L", "V", "F", &m, &n, c, s, D, &m, 1, 1, 1);
    }
    mx = maxabs(m * n, D);
    e = upper_diff(m, n, R, ld, D, m, &sent);
    below = 0;
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < m; i++) below = fmax(below, fabs(D[i + j * m]));
    int subz = 1;
    for (int j = 0; j < ns; j++) subz &= sub[j] == 0.0;
    TU_CHECK(e <= 8 * m * U * mx && below <= 8 * m * U * mx && sent && subz,
             "%dx%d hess_to_tri against dense dlasr: %g (below %g, storage kept %d, sub 0 %d)", m,
             n, e, below, sent, subz);
    free(R), free(D), free(x), free(x0), free(sub), free(c), free(s);
}

/* Paper 004, Algorithm 1, on the host: the factorization of A~ = A - d e_j^T updated to A's. */
static void test_update(tu_rng_t *rng, int m, int n)
{
    const int k = m < n ? m : n, ns = m - 1 < n ? m - 1 : n;
    double *A = tu_malloc(m * n), *F = tu_malloc(m * n), *tau = tu_malloc(k), *w = tu_malloc(m);
    double *sub = tu_malloc(n), *cJ = tu_malloc(m), *sJ = tu_malloc(m), *cG = tu_malloc(m),
           *sG = tu_malloc(m), *B = tu_malloc(m * n), *L = tu_malloc(m * n), *tl = tu_malloc(k);
    tu_fill(rng, m, n, A, m);
    const int j = tu_int(rng, 0, n - 1);
    memcpy(F, A, sizeof(double) * m * n);
    for (int i = 0; i < m; i++) F[i + j * m] -= 1e-2 * tu_uniform(rng); /* A~ */
    TU_CHECK(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, F, m, tau) == 0, "dgeqrf");
    /* w = Q~^T a_j - R~(:, j) */
    memcpy(w, A + j * m, sizeof(double) * m);
    TU_CHECK(LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', m, 1, k, F, m, tau, w, m) == 0, "dormqr");
    for (int i = 0; i <= j && i < m; i++) w[i] -= F[i + j * m];
    givens_ref_zero_to_hess(m, n, w, F, m, sub, cJ, sJ);
    F[0 + j * m] += w[0];
    givens_ref_hess_to_tri(m, n, F, m, sub, cG, sG);
    for (int p = ns; p < m - 1; p++) cG[p] = 1.0, sG[p] = 0.0;
    /* Q^T A = G^T J^T Q~^T A must be R */
    memcpy(B, A, sizeof(double) * m * n);
    TU_CHECK(LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', m, n, k, F, m, tau, B, m) == 0, "dormqr");
    givens_ref_lasr('B', m, n, cJ, sJ, B, m);
    givens_ref_lasr('F', m, n, cG, sG, B, m);
    double e = 0, an = maxabs(m * n, A);
    for (int jj = 0; jj < n; jj++)
        for (int i = 0; i < m; i++)
            e = fmax(e, fabs(B[i + jj * m] - (i <= jj ? F[i + jj * m] : 0.0)));
    const double ratio = e / (an * (m > n ? m : n) * U);
    /* R is LAPACK's R of A up to the signs of its rows */
    memcpy(L, A, sizeof(double) * m * n);
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, L, m, tl);
    double d = 0;
    for (int jj = 0; jj < n; jj++)
        for (int i = 0; i <= jj && i < m; i++)
            d = fmax(d, fabs(fabs(F[i + jj * m]) - fabs(L[i + jj * m])));
    const double dr = d / (an * (m > n ? m : n) * U);
    TU_CHECK(ratio < 30 && dr < 300, "%dx%d col %d: ||Q^T A - R|| ratio %.3g, |R| vs LAPACK %.3g",
             m, n, j, ratio, dr);
    free(A), free(F), free(tau), free(w), free(sub), free(cJ), free(sJ), free(cG), free(sG);
    free(B), free(L), free(tl);
}

/* ---- cuda: plain and fused against the reference ---------------------------------------- */

static void test_device(ft_context_t *ctx, const givens_kernels_t *gk, tu_rng_t *rng, int64_t m,
                        int64_t n)
{
    const ft_backend_t *be = ft_backend_cuda();
    ft_queue_t *q = NULL;
    TU_CHECK(be->queue_create(ctx, NULL, &q) == 0, "queue");
    const int64_t ld = m + 1, ns = m - 1 < n ? m - 1 : n, nc = m > 1 ? m - 1 : 1;
    double *R = tu_malloc(ld * n), *H = tu_malloc(ld * n), *x = tu_malloc(m), *x1 = tu_malloc(m);
    double *sub = tu_malloc(n + 1), *c = tu_malloc(nc), *s = tu_malloc(nc), *T = tu_malloc(ld * n);
    double *hsub = tu_malloc(n + 1), *hc = tu_malloc(nc), *hs = tu_malloc(nc), *hx = tu_malloc(m);
    /* a well-conditioned R (random triangular matrices have condition numbers growing like
     * 2^n, and the forward error of a reduction follows it): diagonal 2 + sqrt(n) */
    fill_upper(rng, m, n, R, ld);
    for (int64_t j = 0; j < n && j < m; j++) R[j + j * ld] = 2.0 + sqrt((double)n);
    for (int64_t i = 0; i < m; i++) x[i] = tu_uniform(rng);
    double *dR, *dx, *dsub, *dc, *ds;
    TU_CHECK(be->alloc((void **)&dR, sizeof(double) * ld * n) == 0 &&
                 be->alloc((void **)&dx, sizeof(double) * m) == 0 &&
                 be->alloc((void **)&dsub, sizeof(double) * (n + 1)) == 0 &&
                 be->alloc((void **)&dc, sizeof(double) * nc) == 0 &&
                 be->alloc((void **)&ds, sizeof(double) * nc) == 0,
             "alloc");
    be->set_matrix(q, ld, n, R, ld, dR, ld);
    be->set_matrix(q, m, 1, x, m, dx, m);
    /* reference */
    memcpy(H, R, sizeof(double) * ld * n);
    memcpy(x1, x, sizeof(double) * m);
    givens_ref_zero_to_hess(m, n, x1, H, ld, sub, c, s);
    /* device */
    int st = gk->zero_to_hess(q, m, n, dx, dR, ld, dsub, dc, ds);
    TU_CHECK(st == 0, "%s zero_to_hess status %d", gk->name, st);
    be->get_matrix(q, ld, n, dR, ld, T, ld);
    if (ns > 0) be->get_matrix(q, ns, 1, dsub, ns, hsub, ns);
    if (m > 1) be->get_matrix(q, m - 1, 1, dc, m - 1, hc, m - 1);
    if (m > 1) be->get_matrix(q, m - 1, 1, ds, m - 1, hs, m - 1);
    be->get_matrix(q, m, 1, dx, m, hx, m);
    TU_CHECK(be->sync(q) == 0, "sync");
    double mx = maxabs(ld * n, H), ec = 0;
    int sent;
    double e = upper_diff(m, n, T, ld, H, ld, &sent);
    for (int64_t j = 0; j < ns; j++) e = fmax(e, fabs(hsub[j] - sub[j]));
    for (int64_t p = 0; p < m - 1; p++) ec = fmax(ec, fmax(fabs(hc[p] - c[p]), fabs(hs[p] - s[p])));
    ec = fmax(ec, fabs(hx[0] - x1[0]) / fmax(fabs(x1[0]), 1e-300));
    const double tol = 8.0 * (double)m * U;
    TU_CHECK(e <= tol * mx && ec <= tol && sent,
             "%s %lldx%lld zero_to_hess vs reference: %.3g (rotations %.3g, storage kept %d)",
             gk->name, (long long)m, (long long)n, e / mx, ec, sent);
    /* hess_to_tri on the reference's Hessenberg matrix, on both sides */
    be->set_matrix(q, ld, n, H, ld, dR, ld);
    if (ns > 0) be->set_matrix(q, ns, 1, sub, ns, dsub, ns);
    givens_ref_hess_to_tri(m, n, H, ld, sub, c, s);
    st = gk->hess_to_tri(q, m, n, dR, ld, dsub, dc, ds);
    TU_CHECK(st == 0, "%s hess_to_tri status %d", gk->name, st);
    be->get_matrix(q, ld, n, dR, ld, T, ld);
    if (ns > 0) be->get_matrix(q, ns, 1, dsub, ns, hsub, ns);
    TU_CHECK(be->sync(q) == 0, "sync");
    mx = maxabs(ld * n, H);
    e = upper_diff(m, n, T, ld, H, ld, &sent);
    int subz = 1;
    for (int64_t j = 0; j < ns; j++) subz &= hsub[j] == 0.0;
    TU_CHECK(e <= 2 * tol * mx && sent && subz,
             "%s %lldx%lld hess_to_tri vs reference: %.3g (storage kept %d, sub zero %d)",
             gk->name, (long long)m, (long long)n, e / mx, sent, subz);
    /* lasr, both directions, on a full matrix */
    for (int d = 0; d < 2 && m > 1; d++) {
        const char dir = d ? 'B' : 'F';
        tu_fill(rng, m, n, R, ld);
        memcpy(H, R, sizeof(double) * ld * n);
        be->set_matrix(q, ld, n, R, ld, dR, ld);
        be->set_matrix(q, m - 1, 1, c, m - 1, dc, m - 1);
        be->set_matrix(q, m - 1, 1, s, m - 1, ds, m - 1);
        givens_ref_lasr(dir, m, n, c, s, H, ld);
        TU_CHECK(gk->lasr(q, dir, m, n, dc, ds, dR, ld) == 0, "lasr");
        be->get_matrix(q, ld, n, dR, ld, T, ld);
        be->sync(q);
        e = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < ld; i++) e = fmax(e, fabs(T[i + j * ld] - H[i + j * ld]));
        TU_CHECK(e <= tol * maxabs(ld * n, H), "%s %lldx%lld lasr %c vs reference: %.3g",
                 gk->name, (long long)m, (long long)n, dir, e);
    }
    be->free(dR), be->free(dx), be->free(dsub), be->free(dc), be->free(ds);
    be->queue_destroy(q);
    free(R), free(H), free(x), free(x1), free(sub), free(c), free(s), free(T), free(hsub);
    free(hc), free(hs), free(hx);
}

/* hess_to_tri at the extremes of the range, on the device: the persistent kernel's generation
 * runs unnormalized and must hand batches it cannot run safely to dlartg itself (docs/givens.md,
 * session 6). kind 0: the whole matrix times scale; 1: columns graded over 2^-300 .. 2^300
 * times scale; 2: exact zeros (zero subdiagonals, zero diagonal entries, a zero column), so
 * that f = 0 and g = 0 both occur; 3: diagonal and subdiagonal 10^-6 times the entries above
 * them, so that the slab kernel's generation as a matrix, scaled by estimates of |R(p, p)| from
 * the diagonal, leaves its range in every block and the chain runs instead. */
static void test_h2t_extreme(ft_context_t *ctx, const givens_kernels_t *gk, tu_rng_t *rng, int64_t n, double scale,
                             int kind)
{
    const ft_backend_t *be = ft_backend_cuda();
    ft_queue_t *q = NULL;
    TU_CHECK(be->queue_create(ctx, NULL, &q) == 0, "queue");
    const int64_t ld = n + 1, ns = n - 1;
    double *H = tu_malloc(ld * n), *T = tu_malloc(ld * n), *sub = tu_malloc(n);
    double *hsub = tu_malloc(n), *c = tu_malloc(n), *s = tu_malloc(n);
    fill_upper(rng, n, n, H, ld);
    for (int64_t j = 0; j < n; j++) H[j + j * ld] = 2.0 + sqrt((double)n);
    for (int64_t j = 0; j < ns; j++) sub[j] = tu_uniform(rng);
    for (int64_t j = 0; j < n; j++) {
        const double f = kind == 1 ? ldexp(scale, (int)(j % 601) - 300) : scale;
        for (int64_t i = 0; i <= j; i++) H[i + j * ld] *= f;
        if (j < ns) sub[j] *= f;
    }
    if (kind == 3)
        for (int64_t j = 0; j < n; j++) {
            H[j + j * ld] *= 1e-6 / (2.0 + sqrt((double)n));
            if (j < ns) sub[j] *= 1e-6;
        }
    if (kind == 2)
        for (int64_t j = 0; j < n; j++) {
            if (j % 97 == 5 || (j >= 300 && j < 340)) sub[j < ns ? j : 0] = 0.0;
            if (j % 131 == 7) H[j + j * ld] = 0.0;
            if (j == 450)
                for (int64_t i = 0; i <= j; i++) H[i + j * ld] = 0.0;
            if (j == 450 && j < ns) sub[j] = 0.0;
        }
    double *dR, *dsub, *dc, *ds;
    TU_CHECK(be->alloc((void **)&dR, sizeof(double) * ld * n) == 0 &&
                 be->alloc((void **)&dsub, sizeof(double) * n) == 0 &&
                 be->alloc((void **)&dc, sizeof(double) * n) == 0 &&
                 be->alloc((void **)&ds, sizeof(double) * n) == 0,
             "alloc");
    be->set_matrix(q, ld, n, H, ld, dR, ld);
    be->set_matrix(q, ns, 1, sub, ns, dsub, ns);
    TU_CHECK(gk->hess_to_tri(q, n, n, dR, ld, dsub, dc, ds) == 0, "%s hess_to_tri status",
             gk->name);
    be->get_matrix(q, ld, n, dR, ld, T, ld);
    be->get_matrix(q, ns, 1, dsub, ns, hsub, ns);
    TU_CHECK(be->sync(q) == 0, "sync");
    givens_ref_hess_to_tri(n, n, H, ld, sub, c, s);
    /* column by column against the column's own size: the graded matrices' columns differ by
     * 2^600, and a rotation mixes rows, not columns, so each column keeps its scale */
    double e = 0.0;
    int sent, subz = 1, fin = 1;
    (void)upper_diff(n, n, T, ld, H, ld, &sent);
    for (int64_t j = 0; j < n; j++) {
        double cm = 0.0, cd = 0.0;
        for (int64_t i = 0; i <= j; i++) {
            cm = fmax(cm, fabs(H[i + j * ld]));
            cd = fmax(cd, fabs(T[i + j * ld] - H[i + j * ld]));
            fin &= isfinite(T[i + j * ld]);
        }
        if (cm > 0.0) e = fmax(e, cd / cm);
        else e = fmax(e, cd > 0.0 ? 1.0 : 0.0);
    }
    for (int64_t j = 0; j < ns; j++) subz &= hsub[j] == 0.0;
    TU_CHECK(e <= 16.0 * (double)n * U && sent && subz && fin,
             "%s %lld hess_to_tri at scale %g kind %d: %.3g (finite %d, storage kept %d, sub "
             "zero %d)",
             gk->name, (long long)n, scale, kind, e, fin, sent, subz);
    be->free(dR), be->free(dsub), be->free(dc), be->free(ds);
    be->queue_destroy(q);
    free(H), free(T), free(sub), free(hsub), free(c), free(s);
}

int main(int argc, char **argv)
{
    const ft_device_t dev = tu_device_from_args(argc, argv);
    tu_rng_t rng;
    tu_seed(&rng, 2026);
    if (dev != FT_DEVICE_CUDA) {
        test_lartg();
        test_lasr(&rng);
        const int shapes[][2] = {{1, 1}, {2, 1}, {1, 3}, {2, 2}, {5, 5}, {9, 4}, {4, 9},
                                 {70, 70}, {130, 65}, {65, 130}, {200, 200},
                                 /* remainders of the four-column groups of the host sweeps */
                                 {3, 7}, {6, 7}, {7, 6}, {10, 13}, {13, 10}, {11, 11}};
        for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
            test_tasks(&rng, shapes[t][0], shapes[t][1]);
        const int ushapes[][2] = {{1, 1}, {3, 3}, {8, 5}, {5, 8}, {64, 64}, {150, 100},
                                  {100, 150}, {300, 300}};
        for (size_t t = 0; t < sizeof ushapes / sizeof ushapes[0]; t++)
            for (int rep = 0; rep < 3; rep++) test_update(&rng, ushapes[t][0], ushapes[t][1]);
        return tu_finish();
    }
    ft_context_t *ctx = NULL;
    TU_CHECK(ft_context_create(&ctx, FT_DEVICE_CUDA) == 0, "context");
    /* cuda-fused-persistent runs hess_to_tri as one launch from min(m-1, n) >= 256 on (leader,
     * look-ahead and worker panels: the sizes below cover 4, 5 and many panels, partial last
     * blocks, square (n-1 rotations), tall (n) and wide (m-1, with panels right of the
     * diagonal part that only the workers touch)); cuda-fused (the default) is the two-launch
     * steps, also tested by name */
    const givens_kernels_t *tabs[5] = {givens_kernels_cuda_plain(), givens_kernels_cuda_fused(),
                                       givens_kernels_cuda_steps(),
                                       givens_kernels_cuda_persistent(),
                                       givens_kernels_cuda_slab()};
    TU_CHECK(tabs[0] && tabs[1] && tabs[2] && tabs[3] && tabs[4], "cuda tables present");
    const int64_t sq[] = {1, 2, 3, 63, 64, 65, 127, 128, 129, 256, 257, 320, 1000, 4097, 20000};
    const int64_t rect[][2] = {{300, 129}, {129, 300}, {64, 1000}, {5000, 4097}, {2, 700},
                               {257, 2000}, {300, 1000}, {2000, 257}, {1000, 700}};
    /* argv[2]: the largest size to run (compute-sanitizer runs use a few hundred) */
    const int64_t cap = argc > 2 ? atoll(argv[2]) : 20000;
    for (int t = 0; t < 5 && tabs[t]; t++) {
        for (size_t i = 0; i < sizeof sq / sizeof sq[0]; i++)
            if (sq[i] <= cap) test_device(ctx, tabs[t], &rng, sq[i], sq[i]);
        for (size_t i = 0; i < sizeof rect / sizeof rect[0]; i++)
            if (rect[i][0] <= cap && rect[i][1] <= cap)
                test_device(ctx, tabs[t], &rng, rect[i][0], rect[i][1]);
    }
    /* the extremes: scales 2^+-700 and 1e+-150, graded columns, exact zeros */
    const double scales[] = {1.0, 0x1p700, 0x1p-700, 1e150, 1e-150};
    for (int t = 1; t < 5 && tabs[t]; t++) {
        if (cap < 1000) break;
        for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
            test_h2t_extreme(ctx, tabs[t], &rng, 1000, scales[i], 0);
        test_h2t_extreme(ctx, tabs[t], &rng, 1000, 1.0, 1);
        test_h2t_extreme(ctx, tabs[t], &rng, 1000, 1e-20, 1);
        test_h2t_extreme(ctx, tabs[t], &rng, 1000, 1.0, 2);
        test_h2t_extreme(ctx, tabs[t], &rng, 700, 1.0, 2);
        test_h2t_extreme(ctx, tabs[t], &rng, 1000, 1.0, 3);
    }
    /* the slab kernel with every block generated by the chain (FTLA_H2T_GEN=chain; the default
     * above is the checked matrix, with blocks out of its range — kind 3: all of them — handed
     * to the chain) */
    if (tabs[4]) {
        setenv("FTLA_H2T_GEN", "chain", 1);
        const int64_t cs[] = {64, 129, 320, 1000, 4097, 20000};
        for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
            if (cs[i] <= cap) test_device(ctx, tabs[4], &rng, cs[i], cs[i]);
        if (cap >= 1000) {
            test_h2t_extreme(ctx, tabs[4], &rng, 1000, 0x1p700, 0);
            test_h2t_extreme(ctx, tabs[4], &rng, 1000, 1.0, 1);
            test_h2t_extreme(ctx, tabs[4], &rng, 1000, 1.0, 2);
            test_h2t_extreme(ctx, tabs[4], &rng, 1000, 1.0, 3);
        }
        /* a zero tolerance for the check: every block whose residual is not exactly zero is
         * handed to the chain though its tau' is in range */
        setenv("FTLA_H2T_GEN", "matrix-strict", 1);
        const int64_t cz[] = {129, 1000, 4097};
        for (size_t i = 0; i < sizeof cz / sizeof cz[0]; i++)
            if (cz[i] <= cap) test_device(ctx, tabs[4], &rng, cz[i], cz[i]);
        unsetenv("FTLA_H2T_GEN");
        /* the serial path without speculation (FTLA_H2T_SPEC=0: every block published after its
         * check; the default above speculates, and matrix-strict redoes every block, its urgent
         * tiles and its consumers) */
        setenv("FTLA_H2T_SPEC", "0", 1);
        for (size_t i = 0; i < sizeof cz / sizeof cz[0]; i++)
            if (cz[i] <= cap) test_device(ctx, tabs[4], &rng, cz[i], cz[i]);
        if (cap >= 1000) test_h2t_extreme(ctx, tabs[4], &rng, 1000, 0x1p700, 0);
        unsetenv("FTLA_H2T_SPEC");
    }
    /* both sweeps by name (FTLA_LASR; the default: the scan for zero_to_hess, and for dlasr up to 8192 columns): thin
     * shapes (the checksums, one vector: several scan segments of 4096 steps, partial last
     * segments and threads), a wide one, and the zero_to_hess fills */
    const int64_t sw[][2] = {{2, 1},     {3, 2},     {17, 3},     {4097, 1},  {4098, 3},
                             {8193, 5},  {20000, 192}, {20001, 7}, {70000, 2}, {300, 2049},
                             {2049, 300}, {5000, 33}};
    const char *modes[] = {"scan", "stream"};
    for (int md = 0; md < 2; md++) {
        setenv("FTLA_LASR", modes[md], 1);
        for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++)
            if (sw[i][0] <= cap && sw[i][1] <= cap) test_device(ctx, tabs[1], &rng, sw[i][0], sw[i][1]);
    }
    unsetenv("FTLA_LASR");
    ft_context_destroy(ctx);
    return tu_finish();
}
