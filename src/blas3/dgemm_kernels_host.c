/* dgemm_kernels_host.c — ft_dgemm's kernel table on the host backend (dgemm_kernels.h), and the
 * choice of table by backend. Plain loops the compiler vectorises; they run as tasks of a host
 * queue (backend/host/host_queue.h); the TMR vote on the shared team (core/team.h). */
#include "backend/host/host_queue.h"
#include "blas3/dgemm_kernels.h"
#include "core/context.h"
#include "core/simd.h"
#include "core/team.h"
#include "core/vec.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The rows [i0, i1) of block J that pass: every ingredient finite, the prediction's bounds in
 * range and both residuals within the threshold less its underflow part (below) —
 * dgemm_row_check's pass from the same formulas (abft_tau, abft_unscale), without its branches,
 * so that it runs as a vector loop (in the vector clones FMA contraction may move the threshold
 * by an ulp: immaterial next to its safety factor). Every other row goes to dgemm_row_check,
 * which decides it as before. */
FT_SIMD_CLONES static void verify_fast(const dgemm_rowcheck_args_t *a, int64_t J, int64_t i0,
                                       int64_t i1, unsigned char *pass)
{
    const int64_t m = a->m, tj = a->n - J * a->T < a->T ? a->n - J * a->T : a->T, n = i1 - i0;
    static const double zeros[256];
    const int c0 = a->csums != NULL; /* without the input C: its sums are 0, and beta too */
    const double *pe = a->pred + 2 * J * m + i0, *pw = pe + m, *se = a->sums + 2 * J * m + i0,
                 *sw = se + m, *sa = a->abss + J * m + i0, *an = a->anorm + i0;
    const double *ce = c0 ? a->csums + 2 * J * m + i0 : zeros, *cw = c0 ? ce + m : zeros,
                 *ca = c0 ? a->cabss + J * m + i0 : zeros;
    const double gmax = a->zmax[J], alpha = a->alpha, beta = c0 ? a->beta : 0.0;
    /* abft_tau + abft_tau_s without the gradual-underflow part: that part is formed from the
     * smallest subnormal, and subnormal operands take a microcode assist on each vector
     * operation (~20 ns a row, most of the check). Leaving out a nonnegative term only lowers
     * the threshold, so a row that passes here passes the full bound too; one that fails goes to
     * dgemm_row_check, which decides with all of it (data near the underflow threshold). The
     * other factors are formed once, the operations in abft_tau's order. */
    const double tol = a->tol, rsig = a->rsig, kk = (double)a->k, tt = (double)tj;
    const double aa = fabs(alpha), bb = fabs(beta);
    const int small = gmax < 1.0;
    const double f1 = small ? gmax * rsig : gmax, f2 = small ? 1.0 : rsig;
    const double cg = (tol * ABFT_U * (2.0 * kk + tt + 4.0)) * aa;
    const double ch = tol * ABFT_U * (tt + 4.0) * bb, cs = tol * ABFT_U * (tt + 1.0);
    for (int64_t r = 0; r < n; r++) {
        const double p1 = alpha * pe[r] + beta * ce[r], p2 = alpha * pw[r] + beta * cw[r];
        const double h = ca[r], de = se[r] - p1, dw = sw[r] - p2, g = an[r], s = sa[r];
        const double P = (g * f1) * f2; /* abft_unscale(g, gmax, rsig) */
        const double G = aa * P + bb * h;
        const double t = ((cg * g) * f1) * f2 + ch * h + cs * s;
        const int range = (P < DBL_MAX / 4) & (G < DBL_MAX / 4); /* false for NaN */
        pass[r] = (unsigned char)((fabs(t) <= DBL_MAX) & (fabs(s) <= DBL_MAX) & range &
                                  (fabs(de) <= t) & (fabs(dw) <= t));
    }
}

static int h_verify_rows(ft_queue_t *q, const dgemm_rowcheck_args_t *a, void *dwork, void *hwork,
                         int64_t cap, dgemm_flag_t **flags_out, int64_t *nflags,
                         int64_t *nunchecked)
{
    /* the sums were computed by work queued on q: run it first */
    FT_CHECK(ft_backend_host()->sync(q));
    dgemm_flag_t *flags = (dgemm_flag_t *)((char *)hwork + DGEMM_VERIFY_HEAD);
    int64_t nf = 0, nu = 0;
    for (int64_t J = 0; J < a->nb; J++)
        for (int64_t i0 = 0; i0 < a->m; i0 += 256) {
            const int64_t i1 = i0 + 256 < a->m ? i0 + 256 : a->m;
            unsigned char pass[256];
            verify_fast(a, J, i0, i1, pass);
            for (int64_t i = i0; i < i1; i++) {
                if (pass[i - i0]) continue;
                double de, dw, tau;
                int r = dgemm_row_check(a, i, J, &de, &dw, &tau);
                if (r == 1) {
                    if (nf < cap) flags[nf] = (dgemm_flag_t){i, J, de, dw, tau};
                    nf++;
                } else if (r == 2) {
                    nu++;
                }
            }
        }
    *flags_out = flags;
    *nflags = nf;
    *nunchecked = nu;
    return FT_SUCCESS;
}

static int backup_then_sums(int64_t m, int64_t n, const double *C0, int64_t ldc, int64_t T,
                            double sc, double *rs, double *ra, double *backup)
{
    if (backup)
        for (int64_t j = 0; j < n; j++)
            memcpy(backup + j * m, C0 + j * ldc, (size_t)m * sizeof(double));
    return ft_host_block_sums_now('N', m, n, C0, ldc, T, sc, rs, m, ra, m);
}

typedef struct {
    int64_t m, n, ldc, T;
    double scale;
    const double *C0;
    double *rs, *ra, *cs, *ca, *backup;
    int64_t ldcs;
} c0_args;

FT_SIMD_CLONES static int run_c0_pass(void *p)
{
    const c0_args *a = p;
    const int64_t m = a->m, n = a->n, ldc = a->ldc, T = a->T, ldcs = a->ldcs;
    const double sc = a->scale;
    const double *C0 = a->C0;
    double *rs = a->rs, *ra = a->ra, *cs = a->cs, *ca = a->ca, *backup = a->backup;
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    if (!cs) {
        /* row sums only (the driver keeps a backup and sums columns from it when needed) */
        if (!backup || (long long)m * n >= FT_TEAM_MIN_WORK)
            /* large: the team's sums, then the copy (both passes parallel) */
            return backup_then_sums(m, n, C0, ldc, T, sc, rs, ra, backup);
        /* small (the products inside dormqr: 4064 x 64, k = 32): one read of C0 that copies
         * and sums, row blocks of 512 so the accumulators stay in L1 */
        const int64_t nb = (n + T - 1) / T, W = abft_wden(T);
        for (int64_t J = 0; J < nb; J++)
            for (int64_t r0 = 0; r0 < m; r0 += 512) {
                const int64_t nr = r0 + 512 < m ? 512 : m - r0;
                const int64_t j0 = J * T, j1 = j0 + T < n ? j0 + T : n;
                double se[512], sw[512], sa[512];
                for (int64_t r = 0; r < nr; r++) se[r] = sw[r] = sa[r] = 0.0;
                /* four columns a sweep: the accumulators are loaded and stored once per four
                 * elements (the loop is bound by L1 stores) */
                int64_t j = j0;
                for (; j + 4 <= j1; j += 4) {
                    const double *x0 = C0 + j * ldc + r0, *x1 = x0 + ldc, *x2 = x1 + ldc,
                                 *x3 = x2 + ldc;
                    /* the copy first, the sums then read the four pieces from L1 */
                    for (int c = 0; c < 4; c++)
                        ft_stream_copy(backup + (j + c) * m + r0, x0 + c * ldc, nr);
                    const double w0 = abft_weight(j - j0, W) * sc,
                                 w1 = abft_weight(j + 1 - j0, W) * sc,
                                 w2 = abft_weight(j + 2 - j0, W) * sc,
                                 w3 = abft_weight(j + 3 - j0, W) * sc;
                    for (int64_t r = 0; r < nr; r++) {
                        const double v0 = x0[r], v1 = x1[r], v2 = x2[r], v3 = x3[r];
                        se[r] += (sc * v0 + sc * v1) + (sc * v2 + sc * v3);
                        sw[r] += (w0 * v0 + w1 * v1) + (w2 * v2 + w3 * v3);
                        sa[r] += (fabs(sc * v0) + fabs(sc * v1)) + (fabs(sc * v2) + fabs(sc * v3));
                    }
                }
                for (; j < j1; j++) {
                    const double *x = C0 + j * ldc + r0;
                    ft_stream_copy(backup + j * m + r0, x, nr);
                    const double w = abft_weight(j - j0, W) * sc;
                    for (int64_t r = 0; r < nr; r++) {
                        const double v = x[r];
                        se[r] += sc * v;
                        sw[r] += w * v;
                        sa[r] += fabs(sc * v);
                    }
                }
                for (int64_t r = 0; r < nr; r++) {
                    rs[r0 + r + 2 * J * m] = se[r];
                    rs[r0 + r + (2 * J + 1) * m] = sw[r];
                    ra[r0 + r + J * m] = sa[r];
                }
            }
        ft_stream_fence(); /* the streamed backup complete before anything reads it */
        return FT_SUCCESS;
    }
    const int64_t nb = (n + T - 1) / T, mb = (m + T - 1) / T, W = abft_wden(T);
    double *zeros = (n % 2 || T % 2) ? calloc((size_t)m, sizeof(double)) : NULL;
    if ((n % 2 || T % 2) && !zeros) return FT_ERR_ALLOC;
    for (int64_t J = 0; J < nb; J++) {
        const int64_t j0 = J * T, j1 = j0 + T < n ? j0 + T : n;
        double *se = rs + 2 * J * m, *sw = rs + (2 * J + 1) * m, *sa = ra + J * m;
        for (int64_t i = 0; i < m; i++) se[i] = sw[i] = sa[i] = 0.0;
        /* two columns per sweep (the row accumulators are loaded and stored once per two
         * elements); four interleaved partial sums per column reduction so the loop vectorises
         * under strict IEEE ordering */
        for (int64_t j = j0; j < j1; j += 2) {
            const int two = j + 1 < j1;
            /* an odd last column pairs with a column of zeros (never 0 * x: x may be Inf) */
            const double *x = C0 + j * ldc, *y = two ? x + ldc : zeros;
            const double wj = abft_weight(j - j0, W), wk = two ? abft_weight(j + 1 - j0, W) : 0.0;
            if (backup) {
                memcpy(backup + j * m, x, (size_t)m * sizeof(double));
                if (two) memcpy(backup + (j + 1) * m, y, (size_t)m * sizeof(double));
            }
            for (int64_t I = 0; I < mb; I++) {
                const int64_t i0 = I * T, i1 = i0 + T < m ? i0 + T : m;
                double c[6][4] = {{0}};
                int64_t i = i0;
                for (; i + 4 <= i1; i += 4)
                    for (int l = 0; l < 4; l++) {
                        const double v = sc * x[i + l], u = sc * y[i + l];
                        const double av = fabs(v), au = fabs(u);
                        const double wi = abft_weight(i + l - i0, W);
                        se[i + l] += v + u;
                        sw[i + l] += wj * v + wk * u;
                        sa[i + l] += av + au;
                        c[0][l] += v, c[1][l] += wi * v, c[2][l] += av;
                        c[3][l] += u, c[4][l] += wi * u, c[5][l] += au;
                    }
                for (; i < i1; i++) {
                    const double v = sc * x[i], u = sc * y[i], av = fabs(v), au = fabs(u);
                    const double wi = abft_weight(i - i0, W);
                    se[i] += v + u;
                    sw[i] += wj * v + wk * u;
                    sa[i] += av + au;
                    c[0][0] += v, c[1][0] += wi * v, c[2][0] += av;
                    c[3][0] += u, c[4][0] += wi * u, c[5][0] += au;
                }
                double r[6];
                for (int q6 = 0; q6 < 6; q6++) r[q6] = (c[q6][0] + c[q6][1]) + (c[q6][2] + c[q6][3]);
                cs[j + 2 * I * ldcs] = r[0];
                cs[j + (2 * I + 1) * ldcs] = r[1];
                ca[j + I * ldcs] = r[2];
                if (two) {
                    cs[j + 1 + 2 * I * ldcs] = r[3];
                    cs[j + 1 + (2 * I + 1) * ldcs] = r[4];
                    ca[j + 1 + I * ldcs] = r[5];
                }
            }
        }
    }
    free(zeros);
    return FT_SUCCESS;
}

static int h_c0_pass(ft_queue_t *q, int64_t m, int64_t n, const double *C0, int64_t ldc, int64_t T,
                     double scale, double *rs, double *ra, double *cs, double *ca, int64_t ldcs,
                     double *backup)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (T <= 0 || (cs && ldcs < n)) return FT_ERR_INTERNAL;
    c0_args a = {m, n, ldc, T, scale, C0, rs, ra, cs, ca, backup, ldcs};
    return ft_host_submit(q, run_c0_pass, &a, sizeof a);
}

typedef struct {
    int64_t m, n, ldx0, ldr;
    double *X0;
    const double *X1, *X2;
    uint64_t *cnt;
    uint64_t part[FT_TEAM_MAX][3]; /* each thread's counts */
} vote_args;

static void vote_part(void *p, int t, int nt)
{
    vote_args *a = p;
    uint64_t nd = 0, n3 = 0, first = UINT64_MAX;
    for (int64_t j = a->n * t / nt; j < a->n * (t + 1) / nt; j++) {
        double *x0 = a->X0 + j * a->ldx0;
        const double *x1 = a->X1 + j * a->ldr, *x2 = a->X2 + j * a->ldr;
        for (int64_t i = 0; i < a->m; i++) {
            const int r = dgemm_tmr_vote1(x0 + i, x1[i], x2[i]);
            if (r) {
                nd++;
                n3 += r == 2;
                if (first == UINT64_MAX) first = (uint64_t)(i + j * a->m);
            }
        }
    }
    a->part[t][0] = nd, a->part[t][1] = n3, a->part[t][2] = first;
}

static int run_vote(void *p)
{
    vote_args *a = p;
    for (int t = 0; t < FT_TEAM_MAX; t++) a->part[t][0] = a->part[t][1] = 0, a->part[t][2] = UINT64_MAX;
    ft_team_par(vote_part, a, a->n > 1 ? (long long)a->m * a->n : 0);
    uint64_t nd = 0, n3 = 0, first = UINT64_MAX;
    for (int t = 0; t < FT_TEAM_MAX; t++) {
        nd += a->part[t][0], n3 += a->part[t][1];
        if (a->part[t][2] < first) first = a->part[t][2];
    }
    a->cnt[0] = nd, a->cnt[1] = n3, a->cnt[2] = first;
    return FT_SUCCESS;
}

static int h_tmr_vote(ft_queue_t *q, int64_t m, int64_t n, double *X0, int64_t ldx0,
                      const double *X1, const double *X2, int64_t ldr, uint64_t *cnt)
{
    vote_args a = {.m = m, .n = n, .ldx0 = ldx0, .ldr = ldr, .X0 = X0, .X1 = X1, .X2 = X2,
                   .cnt = cnt};
    return ft_host_submit(q, run_vote, &a, sizeof a);
}

/* encode_at / encode_an (dgemm_kernels.h): the encoding's three reads of op(A) (its row norms,
 * the prediction P = op(A) Y, the digests of its stored columns) as one. Worth it where the
 * product is short (k small, or m small against k: the products inside dormqr, issue 11); on
 * large operands the separate passes run on the team and are a small part of the product. */
typedef struct {
    int64_t k, m, lda, ldy, ldp;
    int nw;
    double scale;
    const double *A, *Y;
    double *anorm, *P;
    uint64_t *dig;
} enc_args;

/* op(A) = A^T: stored column i (k elements) is row i of op(A); columns split over the team.
 * Eight independent lanes per sum (vector registers under strict IEEE order). With one column
 * block (two prediction columns, the short products) the four sums in one sweep of the column:
 * W := C2^T V2 in dormqr (64 x 32 x 4064) 0.98 -> 0.82 ms against three sweeps (the column
 * read again from L1 for each prediction column, the general case's). */
FT_SIMD_CLONES static void enc_at_part(void *p, int t, int nt)
{
    const enc_args *a = p;
    const int64_t k = a->k, i0 = a->m * t / nt, i1 = a->m * (t + 1) / nt, k8 = k / 8 * 8;
    const double sc = a->scale;
#if FT_HAVE_VEC
    if (a->nw == 2) { /* one column block (n <= T): one sweep of the column, four sums */
        const double *y0 = a->Y, *y1 = a->Y + a->ldy;
        for (int64_t i = i0; i < i1; i++) {
            const double *x = a->A + i * a->lda;
            ft_v8d an = {0}, p0 = {0}, p1 = {0};
            ft_v8u h = {0};
            for (int64_t l = 0; l < k8; l += 8) {
                const ft_v8d v = ft_v8d_load(x + l);
                h += ft_v8u_load(x + l);
                an += ft_v8d_abs(sc * v);
                p0 += v * ft_v8d_load(y0 + l);
                p1 += v * ft_v8d_load(y1 + l);
            }
            for (int64_t l = k8; l < k; l++) {
                uint64_t b;
                memcpy(&b, x + l, sizeof b);
                h[0] += b;
                an[0] += fabs(sc * x[l]);
                p0[0] += x[l] * y0[l];
                p1[0] += x[l] * y1[l];
            }
            a->anorm[i] = ((an[0] + an[1]) + (an[2] + an[3])) + ((an[4] + an[5]) + (an[6] + an[7]));
            if (a->dig) a->dig[i] = ft_digest_finish(ft_v8u_hsum(h), k);
            a->P[i] = ((p0[0] + p0[1]) + (p0[2] + p0[3])) + ((p0[4] + p0[5]) + (p0[6] + p0[7]));
            a->P[i + a->ldp] =
                ((p1[0] + p1[1]) + (p1[2] + p1[3])) + ((p1[4] + p1[5]) + (p1[6] + p1[7]));
        }
        return;
    }
#endif
    for (int64_t i = i0; i < i1; i++) {
        const double *x = a->A + i * a->lda;
        double an[8] = {0};
        uint64_t h[8] = {0};
        for (int64_t l = 0; l < k8; l += 8)
            for (int q = 0; q < 8; q++) {
                uint64_t b;
                memcpy(&b, x + l + q, sizeof b);
                h[q] += b;
                an[q] += fabs(sc * x[l + q]);
            }
        for (int64_t l = k8; l < k; l++) {
            uint64_t b;
            memcpy(&b, x + l, sizeof b);
            h[0] += b;
            an[0] += fabs(sc * x[l]);
        }
        a->anorm[i] = ((an[0] + an[1]) + (an[2] + an[3])) + ((an[4] + an[5]) + (an[6] + an[7]));
        if (a->dig)
            a->dig[i] = ft_digest_finish(
                ((h[0] + h[1]) + (h[2] + h[3])) + ((h[4] + h[5]) + (h[6] + h[7])), k);
        for (int j = 0; j < a->nw; j++) {
            const double *y = a->Y + j * a->ldy;
            double pr[8] = {0};
            for (int64_t l = 0; l < k8; l += 8)
                for (int q = 0; q < 8; q++) pr[q] += x[l + q] * y[l + q];
            for (int64_t l = k8; l < k; l++) pr[0] += x[l] * y[l];
            a->P[i + j * a->ldp] =
                ((pr[0] + pr[1]) + (pr[2] + pr[3])) + ((pr[4] + pr[5]) + (pr[6] + pr[7]));
        }
    }
}

static int run_enc_at(void *p)
{
    const enc_args *a = p;
    ft_team_par(enc_at_part, (void *)p, a->m > 1 ? (long long)a->k * a->m : 0);
    return FT_SUCCESS;
}

static int h_encode_at(ft_queue_t *q, int64_t k, int64_t m, const double *A, int64_t lda,
                       const double *Y, int64_t ldy, int nw, double scale, double *anorm, double *P,
                       int64_t ldp, uint64_t *dig)
{
    if (nw < 1 || nw > 8 || k < 1 || m < 1) return 1;
    enc_args a = {k, m, lda, ldy, ldp, nw, scale, A, Y, anorm, P, dig};
    return ft_host_submit(q, run_enc_at, &a, sizeof a);
}

/* op(A) = A (m x k): row blocks of RB rows keep the accumulators (|.|, P) in L1 while the
 * stored columns stream through; a column's digest is the sum of its blocks' bit sums. One
 * thread (the driver falls back to the team's separate passes above FT_TEAM_MIN_WORK). */
FT_SIMD_CLONES static int run_enc_an(void *p)
{
    const enc_args *a = p;
    enum { RB = 256 };
    const int64_t m = a->m, k = a->k;
    const int nw = a->nw;
    const double sc = a->scale;
    uint64_t *h = a->dig;
    if (h)
        for (int64_t l = 0; l < k; l++) h[l] = 0;
    for (int64_t r0 = 0; r0 < m; r0 += RB) {
        const int64_t nr = r0 + RB < m ? RB : m - r0;
        double an[RB], pr[8][RB];
        for (int64_t r = 0; r < nr; r++) {
            an[r] = 0.0;
            for (int j = 0; j < nw; j++) pr[j][r] = 0.0;
        }
        /* four stored columns a sweep (accumulators loaded and stored once per four) */
        int64_t l = 0;
        for (; l + 4 <= k; l += 4) {
            const double *x0 = a->A + l * a->lda + r0, *x1 = x0 + a->lda, *x2 = x1 + a->lda,
                         *x3 = x2 + a->lda;
            uint64_t h0 = 0, h1 = 0, h2 = 0, h3 = 0;
            for (int64_t r = 0; r < nr; r++) {
                uint64_t b0, b1, b2, b3;
                memcpy(&b0, x0 + r, 8), memcpy(&b1, x1 + r, 8);
                memcpy(&b2, x2 + r, 8), memcpy(&b3, x3 + r, 8);
                h0 += b0, h1 += b1, h2 += b2, h3 += b3;
                an[r] +=
                    (fabs(sc * x0[r]) + fabs(sc * x1[r])) + (fabs(sc * x2[r]) + fabs(sc * x3[r]));
            }
            for (int j = 0; j < nw; j++) {
                const double *yj = a->Y + l + j * a->ldy;
                const double y0 = yj[0], y1 = yj[1], y2 = yj[2], y3 = yj[3];
                double *pj = pr[j];
                for (int64_t r = 0; r < nr; r++)
                    pj[r] += (x0[r] * y0 + x1[r] * y1) + (x2[r] * y2 + x3[r] * y3);
            }
            if (h) h[l] += h0, h[l + 1] += h1, h[l + 2] += h2, h[l + 3] += h3;
        }
        for (; l < k; l++) {
            const double *x = a->A + l * a->lda + r0;
            uint64_t hb = 0;
            for (int64_t r = 0; r < nr; r++) {
                uint64_t b;
                memcpy(&b, x + r, sizeof b);
                hb += b;
                an[r] += fabs(sc * x[r]);
            }
            for (int j = 0; j < nw; j++) {
                const double y = a->Y[l + j * a->ldy];
                for (int64_t r = 0; r < nr; r++) pr[j][r] += x[r] * y;
            }
            if (h) h[l] += hb;
        }
        for (int64_t r = 0; r < nr; r++) {
            a->anorm[r0 + r] = an[r];
            for (int j = 0; j < nw; j++) a->P[r0 + r + j * a->ldp] = pr[j][r];
        }
    }
    if (h)
        for (int64_t l = 0; l < k; l++) h[l] = ft_digest_finish(h[l], m);
    return FT_SUCCESS;
}

static int h_encode_an(ft_queue_t *q, int64_t m, int64_t k, const double *A, int64_t lda,
                       const double *Y, int64_t ldy, int nw, double scale, double *anorm, double *P,
                       int64_t ldp, uint64_t *dig)
{
    if (nw < 1 || nw > 8 || k < 1 || m < 1 || (long long)m * k >= FT_TEAM_MIN_WORK) return 1;
    enc_args a = {k, m, lda, ldy, ldp, nw, scale, A, Y, anorm, P, dig};
    return ft_host_submit(q, run_enc_an, &a, sizeof a);
}

static const dgemm_kernels_t g_host = {.verify_rows = h_verify_rows,
                                       .c0_pass = h_c0_pass,
                                       .tmr_vote = h_tmr_vote,
                                       .encode_at = h_encode_at,
                                       .encode_an = h_encode_an};

const dgemm_kernels_t *dgemm_kernels_host(void) { return &g_host; }

#ifndef FTLA_HAVE_CUDA
const dgemm_kernels_t *dgemm_kernels_cuda(void) { return NULL; }
#endif

const dgemm_kernels_t *dgemm_kernels(const ft_backend_t *be)
{
    return be->kind == FT_DEVICE_CUDA ? dgemm_kernels_cuda() : dgemm_kernels_host();
}
