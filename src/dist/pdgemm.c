/*
 * pdgemm.c — ft_pdgemm: PDGEMM verified by checksum blocks (docs/dist.md).
 *
 * With the weights of ft_dgemm (abft.h: tiles of T columns, each with a plain and a weighted
 * checksum, every element scaled by sigma = 1/abft_gemm_rscale(T, k)) as the columns of an
 * n x 2nt matrix E:
 *     Y = op(B) E,  P = op(A) Y,  C0S = C E (before, beta != 0),  CS = C E (after),
 * each by a pass over the local arrays and one all-reduce (tile_sums, predict); a row i of tile J is right when CS(i, 2J..2J+1) = alpha P + beta C0S within
 * abft_check's threshold (the same decision rule as ft_dgemm, with |op(A)| row norms, the
 * block sums of |op(B)| and of |C| reduced over the grid). The m x 2nt checks are replicated on
 * every process (one all-reduce), so every process takes the same decisions; each corrects the
 * elements it owns. Where beta = 0, or the input C was kept (policy.backup_c = 1: a copy of the
 * local C before the product), a failing row of a tile is computed again from the operands by
 * PDGEMM on that row (a tile with more than eight such rows whole) — whatever the errors in it,
 * Inf and NaN included. Otherwise (the default with beta != 0: the copy costs 4-7 % at 4096 on
 * 2 x 2) a failing row is located by the ratio of its residuals (abft_locate), the located
 * elements set to 0, the row sums formed again, and each rebuilt from its check:
 * C(i, j) = (alpha P + beta C0S - CS_without)(i, J) / sigma. Two errors in one row cannot be
 * located from its two checks: the large one's rebuild can absorb a small one (the distributed
 * campaign with several faults a trial; docs/dist.md). A final verification must pass;
 * otherwise FT_ERR_UNCORRECTABLE.
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
    double *hP, *hC0, *hCS; /* m x 2nt replicated */
    double *buf;            /* the packed sums of one all-reduce: max(m, k) x (3 nt + 1) */
    double *ysub;           /* max(local rows, local columns of A) x 2nt: rows of Y */
    double *anorm, *zmax;   /* m, nt */
    double *h, *s;          /* m x nt: block sums of |C0|, |C| */
    int root;               /* this process counts the replicated decisions */
    double *C0;             /* beta != 0: this process's local array of C before the product,
                             * for the rows recomputed on the rare path */
} pg_t;

static int notrans(char t) { return t == 'N' || t == 'n'; }

/* The local rows (cols = 0) or columns (cols = 1) of a descriptor's matrix as indices into its
 * submatrix at offset o (0-based) of extent len: map[l] = global - o, or -1 outside. */
static int64_t *index_map(const dist_grid_t *g, const int *d, int cols, int64_t o, int64_t len,
                          int *nl)
{
    const int n = cols ? dist_numroc(d[N_], d[NB_], g->mycol, d[CSRC_], g->npcol)
                       : dist_numroc(d[M_], d[MB_], g->myrow, d[RSRC_], g->nprow);
    int64_t *map = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!map) return NULL;
    for (int64_t l = 0; l < n; l++) {
        const int64_t x = (cols ? dist_global(l, d[NB_], g->mycol, d[CSRC_], g->npcol)
                                : dist_global(l, d[MB_], g->myrow, d[RSRC_], g->nprow)) -
                          o;
        map[l] = x >= 0 && x < len ? x : -1;
    }
    *nl = n;
    return map;
}

/* The sums of X = sub(C) (m x n) or op(B) (k x n) against E, in one pass over the local array:
 * out (rows x 3nt, replicated after one all-reduce) = [X E | block sums of |sig X|], X E the
 * plain and weighted checksum of every tile, every element scaled by sigma (E's weights). trans:
 * op(X) = X^T (X stored n x rows). This replaces a PDGEMM with E, a gather of its result and a
 * pass for the absolute sums (with the index arithmetic per element) — bench/NOTES.md. */
static int tile_sums(const pg_t *p, const double *X, int i0, int j0, const int *d, int trans,
                     int64_t rows, double *out)
{
    const dist_grid_t *g = &p->g;
    const int64_t n = p->n, nt = p->nt, T = p->T, ld = d[LLD_];
    int lr, lc;
    int64_t *rm = index_map(g, d, 0, i0, trans ? n : rows, &lr);
    int64_t *cm = index_map(g, d, 1, j0, trans ? rows : n, &lc);
    if (!rm || !cm) {
        free(rm), free(cm);
        return FT_ERR_ALLOC;
    }
    memset(out, 0, sizeof(double) * (size_t)(rows * 3 * nt));
    double *oa = out + 2 * nt * rows; /* the absolute sums */
    for (int64_t lj = 0; lj < lc; lj++) {
        const int64_t c = cm[lj];
        if (c < 0) continue;
        const double *x = X + lj * ld;
        if (!trans) { /* column c of X: tile J, its weight */
            const int64_t J = c / T;
            const double se = p->sig, sw = p->sig * abft_weight(c - J * T, p->W);
            double *xe = out + 2 * J * rows, *xw = xe + rows, *xa = oa + J * rows;
            for (int64_t li = 0; li < lr; li++) {
                const int64_t r = rm[li];
                if (r < 0) continue;
                const double v = x[li];
                xe[r] += se * v, xw[r] += sw * v, xa[r] += fabs(se * v);
            }
        } else { /* row c of op(X): its elements are this column's, one tile per row of X */
            for (int64_t li = 0; li < lr; li++) {
                const int64_t r = rm[li];
                if (r < 0) continue;
                const int64_t J = r / T;
                const double v = p->sig * x[li];
                out[c + 2 * J * rows] += v;
                out[c + (2 * J + 1) * rows] += abft_weight(r - J * T, p->W) * v;
                oa[c + J * rows] += fabs(v);
            }
        }
    }
    free(rm), free(cm);
    dist_allsum(g, out, rows, 3 * nt);
    return FT_SUCCESS;
}

/* S := sub(C) E (m x 2nt) into hX, and the block sums of |C| into abss (m x nt), replicated */
static int c_sums(pg_t *p, double *hX, double *abss)
{
    const int64_t m = p->m, nt = p->nt;
    FT_CHECK(tile_sums(p, p->C, p->ic - 1, p->jc - 1, p->dC, 0, m, p->buf));
    memcpy(hX, p->buf, sizeof(double) * (size_t)(m * 2 * nt));
    memcpy(abss, p->buf + m * 2 * nt, sizeof(double) * (size_t)(m * nt));
    return FT_SUCCESS;
}

/* The prediction P = op(A) Y (m x 2nt) with Y = op(B) E (k x 2nt, replicated), and the row sums
 * of |sig op(A)| (anorm): each process multiplies its local block by the rows of Y it needs
 * (the local DGEMM), then one all-reduce of [P | anorm]. */
static int predict(pg_t *p, const double *Y)
{
    const dist_grid_t *g = &p->g;
    const int *d = p->dA;
    const int64_t m = p->m, k = p->k, c2 = 2 * p->nt, ld = d[LLD_];
    const int tr = !notrans(p->ta);
    int lr, lc;
    int64_t *rm = index_map(g, d, 0, p->ia - 1, tr ? k : m, &lr);
    int64_t *cm = index_map(g, d, 1, p->ja - 1, tr ? m : k, &lc);
    if (!rm || !cm) {
        free(rm), free(cm);
        return FT_ERR_ALLOC;
    }
    double *out = p->buf, *an = out + m * c2;
    memset(out, 0, sizeof(double) * (size_t)(m * (c2 + 1)));
    /* the local rows and columns inside sub(A): contiguous ranges (the local order is the
     * global one), so the local product reads nothing outside it */
    int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
    while (r0 < lr && rm[r0] < 0) r0++;
    for (r1 = r0; r1 < lr && rm[r1] >= 0;) r1++;
    while (c0 < lc && cm[c0] < 0) c0++;
    for (c1 = c0; c1 < lc && cm[c1] >= 0;) c1++;
    /* the rows of Y for the local k-indices (A's columns, or its rows when transposed) */
    const int64_t nk = tr ? r1 - r0 : c1 - c0, nmi = tr ? c1 - c0 : r1 - r0;
    const int64_t *km = tr ? rm + r0 : cm + c0, *mm = tr ? cm + c0 : rm + r0;
    for (int64_t x = 0; x < c2; x++)
        for (int64_t l = 0; l < nk; l++) p->ysub[l + x * nk] = Y[km[l] + x * k];
    /* the local product: op(A_local) (nmi x nk) times ysub (nk x c2), into a local block */
    double *loc = p->ysub + nk * c2;
    if (nmi > 0 && nk > 0) {
        const int M = (int)nmi, N = (int)c2, K = (int)nk, LDA = (int)(ld > 1 ? ld : 1);
        const double one = 1.0, zero = 0.0;
        dgemm_(tr ? "T" : "N", "N", &M, &N, &K, &one, p->A + r0 + c0 * ld, &LDA, p->ysub, &K,
               &zero, loc, &M, 1, 1);
    }
    for (int64_t x = 0; x < c2 && nk > 0; x++) /* (no local product without k-indices) */
        for (int64_t l = 0; l < nmi; l++) out[mm[l] + x * m] += loc[l + x * nmi];
    /* |sig op(A)| row sums: over the local rows of A (rows of op(A) unless transposed) */
    for (int64_t lj = 0; lj < lc; lj++) {
        const double *a = p->A + lj * ld;
        if (cm[lj] < 0) continue;
        if (!tr) {
            for (int64_t li = 0; li < lr; li++)
                if (rm[li] >= 0) an[rm[li]] += fabs(p->sig * a[li]);
        } else {
            double s = 0.0;
            for (int64_t li = 0; li < lr; li++)
                if (rm[li] >= 0) s += fabs(p->sig * a[li]);
            an[cm[lj]] += s;
        }
    }
    free(rm), free(cm);
    dist_allsum(g, out, m, c2 + 1);
    memcpy(p->hP, out, sizeof(double) * (size_t)(m * c2));
    memcpy(p->anorm, an, sizeof(double) * (size_t)m);
    return FT_SUCCESS;
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
    const int c2 = (int)(2 * p->nt), m = p->m, n = p->n, k = p->k;
    const int64_t call = p->ctx->ncalls++;
    const size_t mc = (size_t)m * (size_t)c2, mk = (size_t)(m > k ? m : k);
    const int alr = dist_numroc(p->dA[M_], p->dA[MB_], g->myrow, p->dA[RSRC_], g->nprow);
    const int alc = dist_numroc(p->dA[N_], p->dA[NB_], g->mycol, p->dA[CSRC_], g->npcol);
    p->hP = malloc(sizeof(double) * mc * 3);
    p->anorm = malloc(sizeof(double) * (size_t)(m + p->nt + 2 * (int64_t)m * p->nt + k * p->nt));
    p->buf = malloc(sizeof(double) * (mk * (size_t)(3 * p->nt + 1) + (size_t)k * (size_t)c2));
    p->ysub = malloc(sizeof(double) * ((size_t)alr + (size_t)alc + 1) * (size_t)c2);
    if (!p->hP || !p->anorm || !p->buf || !p->ysub) return FT_ERR_ALLOC;
    p->hC0 = p->hP + mc, p->hCS = p->hC0 + mc;
    p->zmax = p->anorm + m, p->h = p->zmax + p->nt, p->s = p->h + (int64_t)m * p->nt;
    double *z = p->s + (int64_t)m * p->nt; /* k x nt */
    double *Y = p->buf + mk * (size_t)(3 * p->nt + 1); /* k x 2nt, replicated */
    const double t0 = ft_wtime();

    /* the encoding: Y = op(B) E and the block sums of |op(B)|, then P = op(A) Y and the row
     * sums of |op(A)|, then C's sums before the product — each one pass over a local array and
     * one all-reduce */
    FT_CHECK(tile_sums(p, p->B, p->ib - 1, p->jb - 1, p->dB, !notrans(p->tb), k, p->buf));
    memcpy(Y, p->buf, sizeof(double) * (size_t)k * (size_t)c2);
    memcpy(z, p->buf + (size_t)k * (size_t)c2, sizeof(double) * (size_t)k * (size_t)p->nt);
    FT_CHECK(predict(p, Y));
    for (int64_t J = 0; J < p->nt; J++) {
        double mx = 0.0;
        for (int64_t l = 0; l < k; l++) {
            const double v = z[l + J * k];
            if (v > mx || v != v) mx = v; /* NaN propagates: the check is then unverifiable */
        }
        p->zmax[J] = mx;
    }
    if (p->beta != 0.0) FT_CHECK(c_sums(p, p->hC0, p->h));
    if (p->beta != 0.0 && p->ctx->policy.backup_c == 1) {
        const int clc = dist_numroc(p->dC[N_], p->dC[NB_], g->mycol, p->dC[CSRC_], g->npcol);
        const size_t nl = (size_t)p->dC[LLD_] * (size_t)(clc > 0 ? clc : 0);
        p->C0 = malloc(sizeof(double) * (nl > 0 ? nl : 1));
        if (!p->C0) return FT_ERR_ALLOC;
        memcpy(p->C0, p->C, sizeof(double) * nl);
    }
    double tp = ft_wtime() - t0;

    /* the product */
    pdgemm_(&p->ta, &p->tb, &m, &n, &k, &p->alpha, p->A, &p->ia, &p->ja, p->dA, p->B, &p->ib,
            &p->jb, p->dB, &p->beta, p->C, &p->ic, &p->jc, p->dC, 1, 1);
    if (p->ctx->nfaults) inject_c(p, call);

    const double t1 = ft_wtime();
    FT_CHECK(c_sums(p, p->hCS, p->s));
    int *fail = malloc(sizeof(int) * (size_t)m * (size_t)p->nt);
    if (!fail) return FT_ERR_ALLOC;
    int64_t nu = 0, nf = verify(p, fail, &nu);
    if (p->root) p->rep->checks += (int64_t)m * p->nt, p->rep->unchecked += nu;
    int status = FT_SUCCESS;
    if (nf > 0) {
        int64_t nloc = 0, bad = 0;
        /* the rows computed again where that needs no input C (beta = 0) or it was kept
         * (policy.backup_c = 1); else located and rebuilt from their checks, one error a row */
        const int recomp = p->beta == 0.0 || p->C0 != NULL;
        if (recomp) {
            /* every failing row of a tile is computed again (below), even where one check alone
             * fails — with one error that is the checksum's (the prediction hit: data cannot fail
             * the weighted check alone, w <= 1, and fail the plain one alone only with a
             * consistent location), but two errors in one row can cancel in either check; what
             * still fails one check alone after the row is computed again is the checksum's */
            for (int64_t J = 0; J < p->nt; J++)
                for (int64_t i = 0; i < m; i++) {
                    const int r = fail[i + J * m];
                    if (r == ABFT_PASS || r == ABFT_UNVERIFIABLE) continue;
                    fail[i + J * m] = 1000;
                    nloc++;
                }
            /* Each flagged row of a tile is computed again from the operands (and, beta != 0, the
             * input C kept): whatever the errors in it. The row's two checks locate one error by
             * their ratio, but two in one row (a large and a small one) are located as one, whose
             * rebuild absorbs the other, and the re-check cannot see it where the two columns'
             * weights are close (the distributed campaign with several faults a trial,
             * docs/dist.md); recomputing a row leaves nothing to locate. A tile with more than
             * eight flagged rows is computed again whole. Every process takes part (the flags are
             * replicated). */
            for (int64_t J = 0; J < p->nt && nloc; J++) {
                const int tj = (int)(n - J * p->T < p->T ? n - J * p->T : p->T);
                int64_t cnt = 0;
                for (int64_t i = 0; i < m; i++) cnt += fail[i + J * m] >= 1000;
                if (!cnt) continue;
                const int whole = cnt > 8;
                for (int64_t i = 0; i < m; i++) {
                    if (!whole && fail[i + J * m] < 1000) continue;
                    const int rows = whole ? m : 1;
                    const int i0 = whole ? 0 : (int)i;
                    /* the rows' input C back (beta != 0), then the product for them */
                    for (int x = 0; x < rows && p->C0; x++)
                        for (int c = 0; c < tj; c++) {
                            double *e = dist_elem(g, p->C, p->dC, p->ic - 1 + i0 + x,
                                                  p->jc - 1 + J * p->T + c);
                            if (e) *e = p->C0[e - p->C];
                        }
                    const int ai = notrans(p->ta) ? p->ia + i0 : p->ia;
                    const int aj = notrans(p->ta) ? p->ja : p->ja + i0;
                    const int bi = notrans(p->tb) ? p->ib : p->ib + (int)(J * p->T);
                    const int bj = notrans(p->tb) ? p->jb + (int)(J * p->T) : p->jb;
                    const int ci = p->ic + i0, cj = p->jc + (int)(J * p->T);
                    pdgemm_(&p->ta, &p->tb, &rows, &tj, &k, &p->alpha, p->A, &ai, &aj, p->dA, p->B,
                            &bi, &bj, p->dB, &p->beta, p->C, &ci, &cj, p->dC, 1, 1);
                    if (p->root) {
                        p->rep->recomputed++;
                        ft_report_event(p->rep, FT_EVENT_RECOMPUTED, FT_REGION_C, whole ? -1 : i,
                                        J * p->T, J, 0.0, 0.0);
                    }
                    if (whole) break;
                }
            }
        } else {
            /* locate: a data error shows in both checks; one check alone is the checksum's */
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
            if (nloc && (status = c_sums(p, p->hCS, p->s))) {
                free(fail);
                return status;
            }
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
                            ft_report_event(p->rep, FT_EVENT_CORRECTED, FT_REGION_C, i, c, J,
                                            before, *x);
                        }
                    }
        }
        /* verify again: a check of a recomputed row that fails now, even one check alone, or a
         * data error anywhere, is left (an error in the operands themselves recurs) */
        int64_t left = 0;
        if (nloc) {
            int *was = malloc(sizeof(int) * (size_t)m * (size_t)p->nt);
            if (!was) return FT_ERR_ALLOC;
            memcpy(was, fail, sizeof(int) * (size_t)m * (size_t)p->nt);
            if ((status = c_sums(p, p->hCS, p->s))) {
                free(was), free(fail);
                return status;
            }
            int64_t nu2 = 0;
            verify(p, fail, &nu2);
            int64_t ck = 0;
            for (int64_t x = 0; x < (int64_t)m * p->nt; x++) {
                if (fail[x] == ABFT_PASS || fail[x] == ABFT_UNVERIFIABLE) continue;
                if (recomp && was[x] >= 1000 && abft_is_checksum_only(fail[x]))
                    ck++; /* computed again, one check alone still failing: the checksum */
                else if (recomp || was[x] >= 1000 || !abft_is_checksum_only(fail[x]))
                    left++; /* (rebuilt: a wrong location leaves the weighted residual) */
            }
            free(was);
            if (recomp && p->root) p->rep->checksum_errors += ck, p->rep->detected += nloc - ck;
            nloc -= ck;
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
    free(p.hP), free(p.anorm), free(p.buf), free(p.ysub), free(p.C0);
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
