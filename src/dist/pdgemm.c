/*
 * pdgemm.c — ft_pdgemm: PDGEMM verified by checksum blocks that PDGEMM computes (docs/dist.md).
 *
 * With the weights of ft_dgemm (abft.h: tiles of T columns, each with a plain and a weighted
 * checksum, every element scaled by sigma = 1/abft_gemm_rscale(T, k)) as an n x 2nt distributed
 * matrix E:
 *     Y = op(B) E,  P = op(A) Y,  C0S = C E (before, beta != 0),  CS = C E (after),
 * all by PDGEMM; a row i of tile J is right when CS(i, 2J..2J+1) = alpha P + beta C0S within
 * abft_check's threshold (the same decision rule as ft_dgemm, with |op(A)| row norms, the
 * block sums of |op(B)| and of |C| reduced over the grid). The m x 2nt checks are replicated on
 * every process (one all-reduce), so every process takes the same decisions; each corrects the
 * elements it owns. A failing row is located by the ratio of its residuals (abft_locate); the
 * located elements are set to 0, the row sums formed again, and each is rebuilt from its check:
 * C(i, j) = (alpha P + beta C0S - CS_without)(i, J) / sigma — so Inf or NaN are corrected too.
 * A final verification must pass; otherwise FT_ERR_UNCORRECTABLE.
 */
#include "abft/abft.h"
#include "core/context.h"
#include "core/inject.h"
#include "dist/dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    dist_grid_t g;
    ft_context_t *ctx;
    ft_report_t *rep;
    char ta, tb;
    int m, n, k, ia, ja, ib, jb, ic, jc;
    double alpha, beta;
    const double *A, *B;
    double *C;
    const int *dA, *dB, *dC;
    int64_t T, W, nt;
    double sig, rsig, tol;
    dist_mat_t E, Y, P, S;  /* S: C E (before, then after) */
    double *hP, *hC0, *hCS; /* m x 2nt replicated */
    double *anorm, *zmax;   /* m, nt */
    double *h, *s;          /* m x nt: block sums of |C0|, |C| */
    int root;               /* this process counts the replicated decisions */
} pg_t;

static int notrans(char t) { return t == 'N' || t == 'n'; }

/* |op(X)| block row sums over tiles of width T (T = the whole width: one tile), scaled by sig:
 * out (rows x nt) replicated. op(X) = sub(X) (rows x cols) or its transpose. */
static void abs_block_sums(const pg_t *p, const double *X, int i0, int j0, const int *d, char t,
                           int64_t rows, int64_t cols, int64_t T, double *out)
{
    const int64_t nt = (cols + T - 1) / T;
    memset(out, 0, sizeof(double) * (size_t)(rows * nt));
    const dist_grid_t *g = &p->g;
    const int lr = dist_numroc(d[M_], d[MB_], g->myrow, d[RSRC_], g->nprow);
    const int lc = dist_numroc(d[N_], d[NB_], g->mycol, d[CSRC_], g->npcol);
    const int nt_ = notrans(t);
    for (int64_t lj = 0; lj < lc; lj++) {
        const int64_t gj = dist_global(lj, d[NB_], g->mycol, d[CSRC_], g->npcol) - j0;
        if (gj < 0 || gj >= (nt_ ? cols : rows)) continue;
        for (int64_t li = 0; li < lr; li++) {
            const int64_t gi = dist_global(li, d[MB_], g->myrow, d[RSRC_], g->nprow) - i0;
            if (gi < 0 || gi >= (nt_ ? rows : cols)) continue;
            const double v = fabs(p->sig * X[li + lj * d[LLD_]]);
            const int64_t r = nt_ ? gi : gj, c = nt_ ? gj : gi; /* element (r, c) of op(X) */
            out[r + (c / T) * rows] += v;
        }
    }
    dist_allsum(g, out, rows, nt);
}

/* S := sub(C) E (m x 2nt) by PDGEMM, then replicated into hX; s: block sums of |C| */
static void c_sums(pg_t *p, double *hX, double *abss)
{
    const int one = 1, c2 = (int)(2 * p->nt);
    const double d1 = 1.0, d0 = 0.0;
    pdgemm_("N", "N", &p->m, &c2, &p->n, &d1, p->C, &p->ic, &p->jc, p->dC, p->E.a, &one, &one,
            p->E.desc, &d0, p->S.a, &one, &one, p->S.desc, 1, 1);
    dist_gather_all(&p->g, p->S.a, p->S.desc, 0, 0, p->m, c2, hX);
    abs_block_sums(p, p->C, p->ic - 1, p->jc - 1, p->dC, 'N', p->m, p->n, p->T, abss);
}

/* Evaluate every (row, tile) check. Returns the number of failing checks; fills fail[i + J m]
 * with the abft outcome. nu: unverifiable checks. */
static int64_t verify(const pg_t *p, int *fail, int64_t *nu)
{
    const int64_t m = p->m, nt = p->nt;
    int64_t nf = 0;
    *nu = 0;
    for (int64_t J = 0; J < nt; J++) {
        const int64_t tj = p->n - J * p->T < p->T ? p->n - J * p->T : p->T;
        for (int64_t i = 0; i < m; i++) {
            const int64_t e = i + 2 * J * m, w = e + m;
            double pe = p->alpha * p->hP[e], pw = p->alpha * p->hP[w], h = 0.0;
            if (p->beta != 0.0) {
                pe += p->beta * p->hC0[e], pw += p->beta * p->hC0[w];
                h = p->h[i + J * m];
            }
            double tau;
            const int r =
                abft_check(p->tol, p->k, tj, p->alpha, p->beta, p->anorm[i], p->zmax[J], h,
                           p->s[i + J * m], p->hCS[e] - pe, p->hCS[w] - pw, p->rsig, &tau);
            fail[i + J * m] = r;
            if (r == ABFT_UNVERIFIABLE) (*nu)++;
            else if (r != ABFT_PASS) nf++;
        }
    }
    return nf;
}

static int inject_c(pg_t *p, int64_t call)
{
    ft_fault_t f[FT_MAX_FAULTS];
    int nf = ft_inject_take(p->ctx, call, FT_REGION_C, -1, f, FT_MAX_FAULTS);
    for (int q = 0; q < nf; q++) {
        int64_t r = f[q].row, c = f[q].col;
        if (r < 0) r = (int64_t)(ft_rng_next(&p->ctx->rng) % (uint64_t)p->m);
        if (c < 0) c = (int64_t)(ft_rng_next(&p->ctx->rng) % (uint64_t)p->n);
        if (r >= p->m || c >= p->n) continue;
        double *x = dist_elem(&p->g, p->C, p->dC, p->ic - 1 + r, p->jc - 1 + c);
        if (!x) {
            ft_log(p->ctx, 1, "pdgemm: fault at C(%lld, %lld) not applied: not on this process",
                   (long long)r, (long long)c);
            continue;
        }
        const double before = *x;
        *x = f[q].bit >= 0 ? ft_flip_bit(before, f[q].bit) : before + f[q].value;
        p->rep->injected++;
        ft_report_event(p->rep, FT_EVENT_INJECTED, FT_REGION_C, r, c, -1, before, *x);
    }
    return FT_SUCCESS;
}

static int check_args(const dist_grid_t *g, char ta, char tb, int m, int n, int k, int ia, int ja,
                      const int *dA, int ib, int jb, const int *dB, int ic, int jc, const int *dC)
{
    const int tra = !notrans(ta), trb = !notrans(tb);
    if (!strchr("NnTtCc", ta) || !ta) return -1;
    if (!strchr("NnTtCc", tb) || !tb) return -2;
    if (m < 0) return -3;
    if (n < 0) return -4;
    if (k < 0) return -5;
    int st = dist_check_desc(g, dA, 10, ia, 8, ja, 9, tra ? k : m, tra ? m : k);
    if (!st) st = dist_check_desc(g, dB, 14, ib, 12, jb, 13, trb ? n : k, trb ? k : n);
    if (!st) st = dist_check_desc(g, dC, 19, ic, 17, jc, 18, m, n);
    return st;
}

static int run(pg_t *p)
{
    const dist_grid_t *g = &p->g;
    const int one = 1, c2 = (int)(2 * p->nt), m = p->m, n = p->n, k = p->k;
    const double d1 = 1.0, d0 = 0.0;
    const int64_t call = p->ctx->ncalls++;
    int st;
    /* E: n x 2nt; Y: k x 2nt; P, S: m x 2nt (the row blocks of C's descriptor) */
    if ((st = dist_mat_alloc(g, n, c2, p->dC[NB_], 2, &p->E)) ||
        (st = dist_mat_alloc(g, k, c2, p->dC[NB_], 2, &p->Y)) ||
        (st = dist_mat_alloc(g, m, c2, p->dC[MB_], 2, &p->P)) ||
        (st = dist_mat_alloc(g, m, c2, p->dC[MB_], 2, &p->S)))
        return st;
    for (int64_t lj = 0; lj < p->E.lc; lj++) {
        const int64_t c = dist_global(lj, 2, g->mycol, 0, g->npcol), J = c / 2;
        for (int64_t li = 0; li < p->E.lr; li++) {
            const int64_t j = dist_global(li, p->dC[NB_], g->myrow, 0, g->nprow);
            if (j / p->T != J) continue;
            p->E.a[li + lj * p->E.desc[LLD_]] =
                c % 2 ? p->sig * abft_weight(j - J * p->T, p->W) : p->sig;
        }
    }
    const size_t mc = (size_t)m * (size_t)c2;
    p->hP = malloc(sizeof(double) * mc * 3);
    p->anorm = malloc(sizeof(double) * (size_t)(m + p->nt + 2 * (int64_t)m * p->nt + k * p->nt));
    if (!p->hP || !p->anorm) return FT_ERR_ALLOC;
    p->hC0 = p->hP + mc, p->hCS = p->hC0 + mc;
    p->zmax = p->anorm + m, p->h = p->zmax + p->nt, p->s = p->h + (int64_t)m * p->nt;
    double *z = p->s + (int64_t)m * p->nt; /* k x nt */
    const double t0 = ft_wtime();

    /* the encoding: Y = op(B) E, P = op(A) Y, the norms; C's sums before */
    pdgemm_(&p->tb, "N", &k, &c2, &n, &d1, p->B, &p->ib, &p->jb, p->dB, p->E.a, &one, &one,
            p->E.desc, &d0, p->Y.a, &one, &one, p->Y.desc, 1, 1);
    pdgemm_(&p->ta, "N", &m, &c2, &k, &d1, p->A, &p->ia, &p->ja, p->dA, p->Y.a, &one, &one,
            p->Y.desc, &d0, p->P.a, &one, &one, p->P.desc, 1, 1);
    dist_gather_all(g, p->P.a, p->P.desc, 0, 0, m, c2, p->hP);
    abs_block_sums(p, p->A, p->ia - 1, p->ja - 1, p->dA, p->ta, m, k, k > 0 ? k : 1, p->anorm);
    abs_block_sums(p, p->B, p->ib - 1, p->jb - 1, p->dB, p->tb, k, n, p->T, z);
    for (int64_t J = 0; J < p->nt; J++) {
        double mx = 0.0;
        for (int64_t l = 0; l < k; l++) {
            const double v = z[l + J * k];
            if (v > mx || v != v) mx = v; /* NaN propagates: the check is then unverifiable */
        }
        p->zmax[J] = mx;
    }
    if (p->beta != 0.0) c_sums(p, p->hC0, p->h);
    double tp = ft_wtime() - t0;

    /* the product */
    pdgemm_(&p->ta, &p->tb, &m, &n, &k, &p->alpha, p->A, &p->ia, &p->ja, p->dA, p->B, &p->ib,
            &p->jb, p->dB, &p->beta, p->C, &p->ic, &p->jc, p->dC, 1, 1);
    if (p->ctx->nfaults) inject_c(p, call);

    const double t1 = ft_wtime();
    c_sums(p, p->hCS, p->s);
    int *fail = malloc(sizeof(int) * (size_t)m * (size_t)p->nt);
    if (!fail) return FT_ERR_ALLOC;
    int64_t nu = 0, nf = verify(p, fail, &nu);
    if (p->root) p->rep->checks += (int64_t)m * p->nt, p->rep->unchecked += nu;
    int status = FT_SUCCESS;
    if (nf > 0) {
        /* locate: a data error shows in both checks; one check alone is the checksum's */
        int64_t nloc = 0, bad = 0;
        for (int64_t J = 0; J < p->nt; J++)
            for (int64_t i = 0; i < m; i++) {
                const int r = fail[i + J * m];
                if (r == ABFT_PASS || r == ABFT_UNVERIFIABLE) continue;
                const int64_t e = i + 2 * J * m, w = e + m;
                const double pe =
                    p->alpha * p->hP[e] + (p->beta != 0.0 ? p->beta * p->hC0[e] : 0.0);
                const double pw =
                    p->alpha * p->hP[w] + (p->beta != 0.0 ? p->beta * p->hC0[w] : 0.0);
                const double de = p->hCS[e] - pe, dw = p->hCS[w] - pw;
                const int64_t tj = n - J * p->T < p->T ? n - J * p->T : p->T;
                const int64_t jj =
                    isfinite(de) && isfinite(dw) && de != 0.0 ? abft_locate(dw / de, p->W) : -1;
                if (abft_is_checksum_only(r)) {
                    /* the plain check alone: a data error delta in (tau, tau / w_j] shows in
                     * the weighted one as w_j delta <= tau — data when the ratio locates a
                     * column consistently; else (and the weighted check alone, which data
                     * cannot cause: w <= 1) the prediction was hit, the data are untouched */
                    double tau = 0.0;
                    abft_check(p->tol, p->k, tj, p->alpha, p->beta, p->anorm[i], p->zmax[J],
                               p->beta != 0.0 ? p->h[i + J * m] : 0.0, p->s[i + J * m], de, dw,
                               p->rsig, &tau);
                    if (r != ABFT_FAIL_PLAIN || jj < 0 || jj >= tj ||
                        !abft_consistent(de, dw, jj, p->W, tau)) {
                        if (p->root) p->rep->checksum_errors++;
                        fail[i + J * m] = ABFT_PASS; /* not data: nothing to re-check */
                        continue;
                    }
                }
                if (jj < 0 || jj >= tj) { /* a NaN / Inf element: the row's non-finite one */
                    int64_t found = -1;
                    for (int64_t c = J * p->T; c < J * p->T + tj && found < 0; c++) {
                        double v = 0.0,
                               *x = dist_elem(g, p->C, p->dC, p->ic - 1 + i, p->jc - 1 + c);
                        if (x && !isfinite(*x)) v = 1.0;
                        dist_allsum(g, &v, 1, 1); /* collective: every process loops alike */
                        if (v > 0.0) found = c - J * p->T;
                    }
                    if (found < 0) {
                        bad++;
                        fail[i + J * m] = -2;
                        continue;
                    }
                    fail[i + J * m] = (int)(1000 + found);
                } else {
                    fail[i + J * m] = (int)(1000 + jj);
                }
                nloc++;
            }
        if (p->root) p->rep->detected += nloc + bad, p->rep->located += nloc;
        /* rebuild the located elements from their checks */
        for (int64_t J = 0; J < p->nt; J++)
            for (int64_t i = 0; i < m; i++)
                if (fail[i + J * m] >= 1000) {
                    double *x = dist_elem(g, p->C, p->dC, p->ic - 1 + i,
                                          p->jc - 1 + J * p->T + (fail[i + J * m] - 1000));
                    if (x) *x = 0.0;
                }
        if (nloc) c_sums(p, p->hCS, p->s);
        for (int64_t J = 0; J < p->nt; J++)
            for (int64_t i = 0; i < m; i++)
                if (fail[i + J * m] >= 1000) {
                    const int64_t e = i + 2 * J * m, c = J * p->T + (fail[i + J * m] - 1000);
                    const double pe =
                        p->alpha * p->hP[e] + (p->beta != 0.0 ? p->beta * p->hC0[e] : 0.0);
                    double *x = dist_elem(g, p->C, p->dC, p->ic - 1 + i, p->jc - 1 + c);
                    if (x) {
                        const double before = *x;
                        *x = (pe - p->hCS[e]) * p->rsig;
                        ft_report_event(p->rep, FT_EVENT_CORRECTED, FT_REGION_C, i, c, J, before,
                                        *x);
                    }
                }
        /* verify again: a check of a corrected row that fails now, even one check alone (a
         * wrong location leaves the weighted residual), or a data error anywhere, is left */
        int64_t left = 0;
        if (nloc) {
            int *was = malloc(sizeof(int) * (size_t)m * (size_t)p->nt);
            if (!was) return FT_ERR_ALLOC;
            memcpy(was, fail, sizeof(int) * (size_t)m * (size_t)p->nt);
            c_sums(p, p->hCS, p->s);
            int64_t nu2 = 0;
            verify(p, fail, &nu2);
            for (int64_t x = 0; x < (int64_t)m * p->nt; x++)
                if (fail[x] != ABFT_PASS && fail[x] != ABFT_UNVERIFIABLE &&
                    (was[x] >= 1000 || !abft_is_checksum_only(fail[x])))
                    left++;
            free(was);
        }
        if (left || bad) {
            status = FT_ERR_UNCORRECTABLE;
            if (p->root) p->rep->uncorrectable += left + bad;
            ft_log(p->ctx, 1, "pdgemm: %lld check(s) still failing after correction",
                   (long long)(left + bad));
        } else if (p->root) {
            p->rep->corrected += nloc;
        }
    }
    if (status == FT_SUCCESS && nu > 0) status = FT_ERR_UNCHECKED;
    free(fail);
    tp += ft_wtime() - t1;
    p->rep->time_protect += tp;
    return status;
}

int ft_pdgemm_ex(ft_context_t *ctx, char transa, char transb, int m, int n, int k, double alpha,
                 const double *A, int ia, int ja, const int *descA, const double *B, int ib, int jb,
                 const int *descB, double beta, double *C, int ic, int jc, const int *descC,
                 ft_report_t *report)
{
    ft_report_t local;
    ft_report_t *rep = report ? report : &local;
    ft_report_init(rep, FT_DEVICE_CPU);
    if (!ctx) ctx = ft_default_context();
    if (!ctx) return FT_ERR_ALLOC;
    const double t0 = ft_wtime();
    pg_t p;
    memset(&p, 0, sizeof p);
    if (!descC) return -19;
    if (dist_grid(descC[CTXT_], &p.g)) return -1902;
    int st = check_args(&p.g, transa, transb, m, n, k, ia, ja, descA, ib, jb, descB, ic, jc, descC);
    if (st) {
        const int info = -st;
        pxerbla_(&p.g.ctxt, "FT_PDGEMM", &info, 9);
        return rep->status = st;
    }
    if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return rep->status = 0;
    if (alpha == 0.0 || k == 0 || ctx->policy.protect == FT_PROTECT_OFF) {
        /* no product to protect (C := beta C), or protection off: the engine alone */
        pdgemm_(&transa, &transb, &m, &n, &k, &alpha, A, &ia, &ja, descA, B, &ib, &jb, descB, &beta,
                C, &ic, &jc, descC, 1, 1);
        if (p.g.myrow == 0 && p.g.mycol == 0) rep->unchecked++;
        dist_report_reduce(&p.g, rep);
        rep->time_total = ft_wtime() - t0;
        return rep->status = 0;
    }
    p.ctx = ctx, p.rep = rep, p.ta = transa, p.tb = transb, p.m = m, p.n = n, p.k = k;
    p.ia = ia, p.ja = ja, p.ib = ib, p.jb = jb, p.ic = ic, p.jc = jc;
    p.alpha = alpha, p.beta = beta, p.A = A, p.B = B, p.C = C;
    p.dA = descA, p.dB = descB, p.dC = descC;
    p.root = p.g.myrow == 0 && p.g.mycol == 0;
    if (ctx->policy.tile > 0) {
        p.T = ctx->policy.tile;
    } else { /* as ft_dgemm (dgemm_auto_tile) */
        int64_t d = m > n ? m : n, T = (d + 7) / 8;
        T = T < 256 ? 256 : T > 4096 ? 4096 : T;
        p.T = (T + 63) / 64 * 64;
    }
    p.nt = (n + p.T - 1) / p.T;
    p.W = abft_wden(p.T);
    p.rsig = abft_gemm_rscale(p.T, k);
    p.sig = 1.0 / p.rsig;
    p.tol = ctx->policy.tol > 0.0 ? ctx->policy.tol : 2.0;
    st = run(&p);
    free(p.E.a), free(p.Y.a), free(p.P.a), free(p.S.a), free(p.hP), free(p.anorm);
    /* a failure of one process (allocation) is every process's */
    double v = st < 0 && st != FT_ERR_UNCORRECTABLE && st != FT_ERR_UNCHECKED ? 1.0 : 0.0;
    dist_allsum(&p.g, &v, 1, 1);
    if (v > 0.0 && st == 0) st = FT_ERR_ALLOC;
    dist_report_reduce(&p.g, rep);
    rep->time_total = ft_wtime() - t0;
    if (ctx->policy.verbose >= 1 && p.root)
        ft_log(ctx, 1,
               "ft_pdgemm m=%d n=%d k=%d: status=%d detected=%lld corrected=%lld "
               "uncorrectable=%lld",
               m, n, k, st, (long long)rep->detected, (long long)rep->corrected,
               (long long)rep->uncorrectable);
    return rep->status = st;
}

int ft_pdgemm(char transa, char transb, int m, int n, int k, double alpha, const double *A, int ia,
              int ja, const int *descA, const double *B, int ib, int jb, const int *descB,
              double beta, double *C, int ic, int jc, const int *descC)
{
    return ft_pdgemm_ex(NULL, transa, transb, m, n, k, alpha, A, ia, ja, descA, B, ib, jb, descB,
                        beta, C, ic, jc, descC, NULL);
}
