/* host_reduce.c — the generic reductions of the host backend (backend.h): plain loops the
 * compiler vectorises, with independent chains (no loop-carried compare or sum), split over
 * the process's shared team (core/team.h) by rows or columns so that no result depends on
 * the split. Not OpenMP: its threads next to OpenBLAS's own oversubscribed the two cores and
 * slowed the whole call down (bench/NOTES.md); the team's helpers sleep between passes. */
#include "abft/abft.h"
#include "backend/host/host_queue.h"
#include "core/simd.h"
#include "core/vec.h"
#include "core/team.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char trans;
    int64_t rows, cols, ldx, T, lds, ldabs;
    double scale;
    const double *X;
    double *sums, *abss;
} bs_args;

/* The rows [rlo, rhi) of ft_host_block_sums_now (each row's sums alone: the same results
 * whatever the split). */
FT_SIMD_CLONES static void block_sums_rows(char trans, int64_t rlo, int64_t rhi, int64_t cols,
                                           const double *X, int64_t ldx, int64_t T, double scale,
                                           double *sums, int64_t lds, double *abss, int64_t ldabs)
{
    /* scale (a power of two) multiplies every element before it is added: the weights carry it
     * (w_j scale is exact), the plain and absolute sums multiply once per element */
    const double sc = scale;
    const int64_t nb = (cols + T - 1) / T, W = abft_wden(T);
    const int notrans = trans == 'N' || trans == 'n';
    if (notrans) {
        /* row r of X' is row r of X: each thread owns a range of rows and sweeps the block's
         * columns, so the inner loop is contiguous in r */
        const int64_t RB = 512;
        for (int64_t J = 0; J < nb; J++)
            for (int64_t r0 = rlo; r0 < rhi; r0 += RB) {
                int64_t r1 = r0 + RB < rhi ? r0 + RB : rhi;
                int64_t j0 = J * T, j1 = j0 + T < cols ? j0 + T : cols;
                double se[512], sw[512], sa[512];
                const int64_t nr = r1 - r0;
                for (int64_t r = 0; r < nr; r++) se[r] = sw[r] = sa[r] = 0.0;
                /* four columns per sweep: the accumulators are loaded and stored once per four
                 * elements (the loop is bound by L1 stores, not by memory) */
                int64_t j = j0;
                for (; j + 4 <= j1; j += 4) {
                    const double *x0 = X + j * ldx + r0, *x1 = x0 + ldx, *x2 = x1 + ldx,
                                 *x3 = x2 + ldx;
                    if (sums) {
                        const double w0 = abft_weight(j - j0, W) * sc,
                                     w1 = abft_weight(j + 1 - j0, W) * sc,
                                     w2 = abft_weight(j + 2 - j0, W) * sc,
                                     w3 = abft_weight(j + 3 - j0, W) * sc;
                        for (int64_t r = 0; r < nr; r++) {
                            se[r] += (sc * x0[r] + sc * x1[r]) + (sc * x2[r] + sc * x3[r]);
                            sw[r] += (w0 * x0[r] + w1 * x1[r]) + (w2 * x2[r] + w3 * x3[r]);
                        }
                    }
                    if (abss)
                        for (int64_t r = 0; r < nr; r++)
                            sa[r] += (fabs(sc * x0[r]) + fabs(sc * x1[r])) +
                                     (fabs(sc * x2[r]) + fabs(sc * x3[r]));
                }
                for (; j < j1; j++) {
                    const double *x = X + j * ldx + r0;
                    const double w = abft_weight(j - j0, W) * sc;
                    for (int64_t r = 0; r < nr; r++) {
                        se[r] += sc * x[r];
                        sw[r] += w * x[r];
                        sa[r] += fabs(sc * x[r]);
                    }
                }
                for (int64_t r = 0; r < r1 - r0; r++) {
                    if (sums) {
                        sums[r0 + r + 2 * J * lds] = se[r];
                        sums[r0 + r + (2 * J + 1) * lds] = sw[r];
                    }
                    if (abss) abss[r0 + r + J * ldabs] = sa[r];
                }
            }
    } else {
        /* row r of X' is column r of X: contiguous dot products, one row per iteration */
        for (int64_t r = rlo; r < rhi; r++) {
            const double *x = X + r * ldx;
            for (int64_t J = 0; J < nb; J++) {
                int64_t j0 = J * T, j1 = j0 + T < cols ? j0 + T : cols;
                /* four independent partial sums per quantity so the loop vectorises */
                double e4[4] = {0, 0, 0, 0}, w4[4] = {0, 0, 0, 0}, a4[4] = {0, 0, 0, 0};
                int64_t j = j0;
                for (; j + 4 <= j1; j += 4)
                    for (int l = 0; l < 4; l++) {
                        double v = sc * x[j + l];
                        e4[l] += v;
                        w4[l] += abft_weight(j + l - j0, W) * v;
                        a4[l] += fabs(v);
                    }
                for (; j < j1; j++) {
                    const double v = sc * x[j];
                    e4[0] += v;
                    w4[0] += abft_weight(j - j0, W) * v;
                    a4[0] += fabs(v);
                }
                double e = (e4[0] + e4[1]) + (e4[2] + e4[3]);
                double wsum = (w4[0] + w4[1]) + (w4[2] + w4[3]);
                double a = (a4[0] + a4[1]) + (a4[2] + a4[3]);
                if (sums) {
                    sums[r + 2 * J * lds] = e;
                    sums[r + (2 * J + 1) * lds] = wsum;
                }
                if (abss) abss[r + J * ldabs] = a;
            }
        }
    }
}

static void block_sums_part(void *p, int t, int nt)
{
    const bs_args *a = p;
    const int64_t nrb = (a->rows + 511) / 512; /* parts of whole 512-row ranges */
    const int64_t lo = nrb * t / nt * 512, hi = nrb * (t + 1) / nt * 512;
    block_sums_rows(a->trans, lo, hi < a->rows ? hi : a->rows, a->cols, a->X, a->ldx, a->T,
                    a->scale, a->sums, a->lds, a->abss, a->ldabs);
}

int ft_host_block_sums_now(char trans, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                           int64_t T, double scale, double *sums, int64_t lds, double *abss,
                           int64_t ldabs)
{
    if (rows <= 0 || cols <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    bs_args a = {trans, rows, cols, ldx, T, lds, ldabs, scale, X, sums, abss};
    ft_team_par_dyn(block_sums_part, &a, rows > 512 ? (long long)rows * cols : 0);
    return FT_SUCCESS;
}

static int run_block_sums(void *p)
{
    const bs_args *a = p;
    return ft_host_block_sums_now(a->trans, a->rows, a->cols, a->X, a->ldx, a->T, a->scale,
                                  a->sums, a->lds, a->abss, a->ldabs);
}

int ft_host_block_sums(ft_queue_t *q, char trans, int64_t rows, int64_t cols, const double *X,
                       int64_t ldx, int64_t T, double scale, double *sums, int64_t lds,
                       double *abss, int64_t ldabs)
{
    if (rows <= 0 || cols <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    bs_args a = {trans, rows, cols, ldx, T, lds, ldabs, scale, X, sums, abss};
    return ft_host_submit(q, run_block_sums, &a, sizeof a);
}

typedef struct {
    int64_t m, n, i, lda, ldew, nbc, ldx;
    int nw;
    const double *A, *EW;
    double *X;
    /* the encoding's fused pass (i = 0, ft_host_qr_encode), else NULL: per row block rb and
     * column j, the partial sum of |a_rj| and max |a_rj| (NaN if any is) at [rb + j nrb]; and
     * A copied to copy (ld ldc) */
    double *psum, *pmax, *copy;
    int64_t ldc;
    double *asum, *amax; /* the columns' norms from the parts (n each) */
} ws_args;

/* rows [r0, r1) of column x: eight-lane sum and NaN-propagating maximum of |x| into *ps, *pm */
FT_SIMD_CLONES static void seg_asum_max(const double *x, int64_t r0, int64_t r1, double *ps,
                                        double *pm)
{
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, m = 0.0;
    int nan = 0;
    int64_t r = r0;
#ifdef FT_HAVE_VEC
    ft_v8d vs = {0, 0, 0, 0, 0, 0, 0, 0}, vm = vs;
    ft_v8l vn = {0, 0, 0, 0, 0, 0, 0, 0};
    for (; r + 8 <= r1; r += 8) {
        const ft_v8d v = ft_v8d_abs(ft_v8d_load(x + r));
        vs += v;
        vn |= ft_v8d_isnan(v);
        vm = ft_v8d_max(vm, v);
    }
    for (int u = 0; u < 8; u++) s[u] = vs[u];
    m = ft_v8d_hmax(vm);
    nan = ft_v8l_any(vn);
#endif
    for (; r < r1; r++) {
        const double v = fabs(x[r]);
        s[0] += v;
        nan |= v != v;
        m = v > m ? v : m;
    }
    *ps = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    *pm = nan ? NAN : m;
}

/* backend.h qr_wsums: a range of RB rows at a time, the block's columns swept left to right
 * (column j < i adds to rows [0, j], a column j >= i to every row), the nw sums of a row kept
 * in a small buffer so that the inner loop is contiguous in the rows. */
enum { RB = 256 };

/* the encoding's fused work on columns [ja, jb), rows [r0, r1) (in L1 after the sums' sweep) */
static void fused_cols(const ws_args *a, int64_t ja, int64_t jb, int64_t r0, int64_t r1)
{
    const int64_t nrb = (a->m + RB - 1) / RB, rb = r0 / RB;
    for (int64_t j = ja; j < jb; j++) {
        const double *x = a->A + j * a->lda;
        seg_asum_max(x, r0, r1, a->psum + rb + j * nrb, a->pmax + rb + j * nrb);
        if (a->copy) ft_stream_copy(a->copy + r0 + j * a->ldc, x + r0, r1 - r0);
    }
}

FT_SIMD_CLONES static void wsums_part(void *p, int t, int nt)
{
    const ws_args *a = p;
    const int64_t m = a->m, n = a->n, i = a->i, nbc = a->nbc, nw = a->nw;
    const int64_t B = (n + nbc - 1) / nbc, nrb = (m + RB - 1) / RB;
    /* thread t: the row blocks [nrb t / nt, nrb (t + 1) / nt) */
    const int64_t rlo = nrb * t / nt * RB, rhi = nrb * (t + 1) / nt * RB;
    for (int64_t b = 0; b < B; b++) {
        const int64_t j0 = b * nbc, j1 = j0 + nbc < n ? j0 + nbc : n;
        for (int64_t r0 = rlo; r0 < rhi && r0 < m; r0 += RB) {
            const int64_t r1 = r0 + RB < m ? r0 + RB : m;
            double s[3][RB];
            for (int64_t c = 0; c < nw; c++)
                for (int64_t r = 0; r < r1 - r0; r++) s[c][r] = 0.0;
            /* row l takes column j when j >= min(l, i): rows <= j for j < i, all for j >= i */
            const int64_t lo = r0 < i ? r0 : i; /* the first column any of these rows takes */
            for (int64_t j = j0 > lo ? j0 : lo; j < j1;) {
                if (j >= i && j + 4 <= j1) {
                    /* four whole columns a sweep: the sums loaded and stored once per four */
                    const double *x0 = a->A + j * a->lda, *x1 = x0 + a->lda, *x2 = x1 + a->lda,
                                 *x3 = x2 + a->lda;
                    for (int64_t c = 0; c < nw; c++) {
                        const double *ew = a->EW + j + c * a->ldew;
                        const double w0 = ew[0], w1 = ew[1], w2 = ew[2], w3 = ew[3];
                        double *sc = s[c] - r0;
                        for (int64_t r = r0; r < r1; r++)
                            sc[r] += (x0[r] * w0 + x1[r] * w1) + (x2[r] * w2 + x3[r] * w3);
                    }
                    if (a->psum) fused_cols(a, j, j + 4, r0, r1);
                    j += 4;
                    continue;
                }
                const int64_t e = j < i ? (j + 1 < r1 ? j + 1 : r1) : r1;
                if (e > r0) {
                    const double *x = a->A + j * a->lda;
                    for (int64_t c = 0; c < nw; c++) {
                        const double w = a->EW[j + c * a->ldew];
                        double *sc = s[c] - r0;
                        for (int64_t r = r0; r < e; r++) sc[r] += x[r] * w;
                    }
                    if (a->psum) fused_cols(a, j, j + 1, r0, r1); /* i = 0 there: e = r1 */
                }
                j++;
            }
            for (int64_t c = 0; c < nw; c++)
                memcpy(a->X + r0 + (nw * b + c) * a->ldx, s[c],
                       (size_t)(r1 - r0) * sizeof(double));
        }
    }
    if (a->copy) ft_stream_fence(); /* this thread's streamed copy complete before the join */
}

static int run_wsums(void *p)
{
    const ws_args *a = p;
    /* the trapezoid's elements: all rows of the columns >= i, the triangle before */
    const int64_t i = a->i < a->n ? a->i : a->n;
    ft_team_par_dyn(wsums_part, p, (long long)a->m * (a->n - i) + (long long)i * (i + 1) / 2);
    return FT_SUCCESS;
}

int ft_host_qr_wsums(ft_queue_t *q, int64_t m, int64_t n, int64_t i, const double *A,
                     int64_t lda, const double *EW, int64_t ldew, int64_t nbc, int nw, double *X,
                     int64_t ldx)
{
    if (m < 0 || n < 0 || i < 0 || nbc < 1 || nbc > 1024 || nw < 1 || nw > 3)
        return FT_ERR_INTERNAL;
    if (m == 0 || n == 0) return FT_SUCCESS;
    ws_args a = {.m = m, .n = n, .i = i, .lda = lda, .ldew = ldew, .nbc = nbc, .ldx = ldx,
                 .nw = nw, .A = A, .EW = EW, .X = X};
    return ft_host_submit(q, run_wsums, &a, sizeof a);
}

static int run_encode(void *p)
{
    const ws_args *a = p;
    run_wsums(p);
    /* the columns' norms from the row blocks' parts, in their order (whatever the threads) */
    const int64_t nrb = (a->m + RB - 1) / RB;
    for (int64_t j = 0; j < a->n; j++) {
        const double *ps = a->psum + j * nrb, *pm = a->pmax + j * nrb;
        double s = 0.0, mx = 0.0;
        int nan = 0;
        for (int64_t rb = 0; rb < nrb; rb++) {
            s += ps[rb];
            nan |= pm[rb] != pm[rb];
            mx = pm[rb] > mx ? pm[rb] : mx;
        }
        a->asum[j] = s;
        a->amax[j] = nan ? NAN : mx;
    }
    return FT_SUCCESS;
}

int64_t ft_host_qr_encode_scratch(int64_t m, int64_t n) { return 2 * ((m + RB - 1) / RB) * n; }

int ft_host_qr_encode(ft_queue_t *q, int64_t m, int64_t n, const double *A, int64_t lda,
                      const double *EW, int64_t ldew, int64_t nbc, int nw, double *X, int64_t ldx,
                      double *asum, double *amax, double *scratch, double *copy, int64_t ldc)
{
    if (m < 1 || n < 1 || nbc < 1 || nbc > 1024 || nw < 1 || nw > 3 || !scratch ||
        (copy && ldc < m))
        return FT_ERR_INTERNAL;
    const int64_t nrb = (m + RB - 1) / RB;
    ws_args a = {.m = m, .n = n, .i = 0, .lda = lda, .ldew = ldew, .nbc = nbc, .ldx = ldx,
                 .nw = nw, .A = A, .EW = EW, .X = X, .psum = scratch,
                 .pmax = scratch + nrb * n, .copy = copy, .ldc = ldc, .asum = asum, .amax = amax};
    return ft_host_submit(q, run_encode, &a, sizeof a);
}

typedef struct {
    int64_t m, nc, ld;
    const double *C, *X;
    double *out;
} rs_args;

static void res_sizes_part(void *p, int t, int nt)
{
    const rs_args *a = p;
    for (int64_t c = a->nc * t / nt; c < a->nc * (t + 1) / nt; c++) {
        const double *x = a->X + c * a->ld, *y = a->C + c * a->ld;
        double m8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int64_t r = 0;
        for (; r + 8 <= a->m; r += 8)
            for (int u = 0; u < 8; u++) {
                double d = fabs(y[r + u] - x[r + u]);
                d = d == d ? d : INFINITY;
                m8[u] = d > m8[u] ? d : m8[u];
            }
        for (; r < a->m; r++) {
            double d = fabs(y[r] - x[r]);
            d = d == d ? d : INFINITY;
            m8[0] = d > m8[0] ? d : m8[0];
        }
        double mx = m8[0];
        for (int u = 1; u < 8; u++) mx = m8[u] > mx ? m8[u] : mx;
        a->out[2 * c] = mx, a->out[2 * c + 1] = abft_diff_nrm2(a->m, y, x, mx);
    }
}

static int run_res_sizes(void *p)
{
    const rs_args *a = p;
    ft_team_par_dyn(res_sizes_part, p, a->nc > 1 ? (long long)a->m * a->nc : 0);
    return FT_SUCCESS;
}

int ft_host_qr_res_sizes(ft_queue_t *q, int64_t m, int64_t nc, const double *C, const double *X,
                         int64_t ld, double *out)
{
    if (m < 0 || nc < 0 || (nc > 1 && ld < m)) return FT_ERR_INTERNAL;
    rs_args a = {m, nc, ld, C, X, out};
    return ft_host_submit(q, run_res_sizes, &a, sizeof a);
}

typedef struct {
    int64_t rows, cols, ldx;
    const double *X;
    double *out;
} absmax_args;

/* max |x_r| (NaN if any is NaN) over n contiguous elements, with eight independent chains
 * (one chain is bound by the latency of its compare and select) */
FT_SIMD_CLONES static double absmax_run(int64_t n, const double *x)
{
    double m[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int nan = 0;
    int64_t r = 0;
    for (; r + 8 <= n; r += 8)
        for (int u = 0; u < 8; u++) {
            const double v = fabs(x[r + u]);
            nan |= v != v;
            m[u] = v > m[u] ? v : m[u];
        }
    for (; r < n; r++) {
        const double v = fabs(x[r]);
        nan |= v != v;
        m[0] = v > m[0] ? v : m[0];
    }
    for (int u = 1; u < 8; u++) m[0] = m[u] > m[0] ? m[u] : m[0];
    return nan ? NAN : m[0];
}

FT_SIMD_CLONES static void col_absmax_part(void *p, int t, int nt)
{
    const absmax_args *a = p;
    for (int64_t c = a->cols * t / nt; c < a->cols * (t + 1) / nt; c++)
        a->out[c] = absmax_run(a->rows, a->X + c * a->ldx);
}

static int run_col_absmax(void *p)
{
    const absmax_args *a = p;
    ft_team_par_dyn(col_absmax_part, p, a->cols > 1 ? (long long)a->rows * a->cols : 0);
    return FT_SUCCESS;
}

int ft_host_col_absmax(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                       double *out)
{
    absmax_args a = {rows, cols, ldx, X, out};
    return ft_host_submit(q, run_col_absmax, &a, sizeof a);
}

typedef struct {
    int64_t rows, cols, ldx;
    const double *X;
    double *asum, *amax;
} asummax_args;


static void col_asum_max_part(void *p, int t, int nt)
{
    const asummax_args *a = p;
    for (int64_t c = a->cols * t / nt; c < a->cols * (t + 1) / nt; c++)
        seg_asum_max(a->X + c * a->ldx, 0, a->rows, a->asum + c, a->amax + c);
}

static int run_col_asum_max(void *p)
{
    const asummax_args *a = p;
    ft_team_par_dyn(col_asum_max_part, p, a->cols > 1 ? (long long)a->rows * a->cols : 0);
    return FT_SUCCESS;
}

int ft_host_col_asum_max(ft_queue_t *q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *asum, double *amax)
{
    asummax_args a = {rows, cols, ldx, X, asum, amax};
    return ft_host_submit(q, run_col_asum_max, &a, sizeof a);
}


typedef struct {
    int64_t rows, cols, ldx;
    const double *X;
    uint64_t *out;
} digest_args;

FT_SIMD_CLONES void ft_digest_ref(int64_t rows, int64_t cols, const double *X, int64_t ldx,
                                  uint64_t *out)
{
    for (int64_t c = 0; c < cols; c++) {
        const double *x = X + c * ldx;
        uint64_t h = 0; /* the bits summed, the mix applied once (ft_digest_finish) */
        for (int64_t r = 0; r < rows; r++) {
            uint64_t b;
            memcpy(&b, x + r, sizeof b);
            h += b;
        }
        out[c] = ft_digest_finish(h, rows);
    }
}

static void digest_part(void *p, int t, int nt)
{
    const digest_args *a = p;
    const int64_t c0 = a->cols * t / nt, c1 = a->cols * (t + 1) / nt;
    ft_digest_ref(a->rows, c1 - c0, a->X + c0 * a->ldx, a->ldx, a->out + c0);
}

static int run_digest(void *p)
{
    const digest_args *a = p;
    ft_team_par_dyn(digest_part, p, a->cols > 1 ? (long long)a->rows * a->cols : 0);
    return FT_SUCCESS;
}

int ft_host_digest(ft_queue_t *q, int64_t rows, int64_t cols, const double *X, int64_t ldx,
                   uint64_t *out)
{
    if (rows < 0 || cols < 0 || (cols > 0 && !out) || (rows > 0 && cols > 0 && !X))
        return FT_ERR_INTERNAL;
    digest_args a = {rows, cols, ldx, X, out};
    return ft_host_submit(q, run_digest, &a, sizeof a);
}
