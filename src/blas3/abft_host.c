/* abft_host.c — the ABFT kernels on the host: plain loops the compiler vectorises.
 * Single-threaded on purpose: OpenMP threads next to OpenBLAS's own threads oversubscribed the
 * two cores and slowed the whole call down (bench/NOTES.md). */
#include "blas3/abft_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int abft_host_block_sums(ft_context_t *ctx, int q, char trans, int64_t rows, int64_t cols,
                         const double *X, int64_t ldx, int64_t T, double *sums, int64_t lds,
                         double *abss, int64_t ldabs)
{
    if (rows <= 0 || cols <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    const int64_t nb = (cols + T - 1) / T, W = abft_wden(T);
    const int notrans = trans == 'N' || trans == 'n';
    if (notrans) {
        /* row r of X' is row r of X: each thread owns a range of rows and sweeps the block's
         * columns, so the inner loop is contiguous in r */
        const int64_t RB = 512;
        for (int64_t J = 0; J < nb; J++)
            for (int64_t r0 = 0; r0 < rows; r0 += RB) {
                int64_t r1 = r0 + RB < rows ? r0 + RB : rows;
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
                        const double w0 = abft_weight(j - j0, W), w1 = abft_weight(j + 1 - j0, W),
                                     w2 = abft_weight(j + 2 - j0, W),
                                     w3 = abft_weight(j + 3 - j0, W);
                        for (int64_t r = 0; r < nr; r++) {
                            se[r] += (x0[r] + x1[r]) + (x2[r] + x3[r]);
                            sw[r] += (w0 * x0[r] + w1 * x1[r]) + (w2 * x2[r] + w3 * x3[r]);
                        }
                    }
                    if (abss)
                        for (int64_t r = 0; r < nr; r++)
                            sa[r] += (fabs(x0[r]) + fabs(x1[r])) + (fabs(x2[r]) + fabs(x3[r]));
                }
                for (; j < j1; j++) {
                    const double *x = X + j * ldx + r0;
                    const double w = abft_weight(j - j0, W);
                    for (int64_t r = 0; r < nr; r++) {
                        se[r] += x[r];
                        sw[r] += w * x[r];
                        sa[r] += fabs(x[r]);
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
        for (int64_t r = 0; r < rows; r++) {
            const double *x = X + r * ldx;
            for (int64_t J = 0; J < nb; J++) {
                int64_t j0 = J * T, j1 = j0 + T < cols ? j0 + T : cols;
                /* four independent partial sums per quantity so the loop vectorises */
                double e4[4] = {0, 0, 0, 0}, w4[4] = {0, 0, 0, 0}, a4[4] = {0, 0, 0, 0};
                const double h = 0.5 / (double)W, base = (double)(W + 1) * h;
                int64_t j = j0;
                for (; j + 4 <= j1; j += 4)
                    for (int l = 0; l < 4; l++) {
                        double v = x[j + l];
                        e4[l] += v;
                        w4[l] += (base + (double)(j + l - j0) * h) * v;
                        a4[l] += fabs(v);
                    }
                for (; j < j1; j++) {
                    e4[0] += x[j];
                    w4[0] += abft_weight(j - j0, W) * x[j];
                    a4[0] += fabs(x[j]);
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
    return FT_SUCCESS;
}

int abft_host_col_absmax(ft_context_t *ctx, int q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *out)
{
    for (int64_t c = 0; c < cols; c++) {
        double m = 0.0;
        for (int64_t r = 0; r < rows; r++) {
            double v = fabs(X[r + c * ldx]);
            if (v > m || v != v) m = v; /* once NaN, stays NaN */
        }
        out[c] = m;
    }
    return FT_SUCCESS;
}

int abft_host_verify_rows(ft_context_t *ctx, int q, const abft_rowcheck_args_t *a,
                          abft_flag_t *flags, int64_t cap, int64_t *nflags, int64_t *nunchecked)
{
    int64_t nf = 0, nu = 0;
    for (int64_t J = 0; J < a->nb; J++)
        for (int64_t i = 0; i < a->m; i++) {
            double de, dw, tau;
            int r = abft_row_check(a, i, J, &de, &dw, &tau);
            if (r == 1) {
                if (nf < cap) flags[nf] = (abft_flag_t){i, J, de, dw, tau};
                nf++;
            } else if (r == 2) {
                nu++;
            }
        }
    *nflags = nf;
    *nunchecked = nu;
    return FT_SUCCESS;
}

int abft_host_c0_pass(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *C0,
                      int64_t ldc, int64_t T, double *rs, double *ra, double *cs, double *ca,
                      double *backup)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    if (!cs) {
        /* row sums only (the driver keeps a backup and sums columns from it when needed) */
        if (backup)
            for (int64_t j = 0; j < n; j++)
                memcpy(backup + j * m, C0 + j * ldc, (size_t)m * sizeof(double));
        return abft_host_block_sums(ctx, q, 'N', m, n, C0, ldc, T, rs, m, ra, m);
    }
    const int64_t nb = (n + T - 1) / T, mb = (m + T - 1) / T, W = abft_wden(T);
    const double h = 0.5 / (double)W, base = (double)(W + 1) * h;
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
            const double wj = base + (double)(j - j0) * h, wk = two ? wj + h : 0.0;
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
                        const double v = x[i + l], u = y[i + l];
                        const double av = fabs(v), au = fabs(u);
                        const double wi = base + (double)(i + l - i0) * h;
                        se[i + l] += v + u;
                        sw[i + l] += wj * v + wk * u;
                        sa[i + l] += av + au;
                        c[0][l] += v, c[1][l] += wi * v, c[2][l] += av;
                        c[3][l] += u, c[4][l] += wi * u, c[5][l] += au;
                    }
                for (; i < i1; i++) {
                    const double v = x[i], u = y[i], av = fabs(v), au = fabs(u);
                    const double wi = base + (double)(i - i0) * h;
                    se[i] += v + u;
                    sw[i] += wj * v + wk * u;
                    sa[i] += av + au;
                    c[0][0] += v, c[1][0] += wi * v, c[2][0] += av;
                    c[3][0] += u, c[4][0] += wi * u, c[5][0] += au;
                }
                double r[6];
                for (int q6 = 0; q6 < 6; q6++) r[q6] = (c[q6][0] + c[q6][1]) + (c[q6][2] + c[q6][3]);
                cs[j + 2 * I * n] = r[0];
                cs[j + (2 * I + 1) * n] = r[1];
                ca[j + I * n] = r[2];
                if (two) {
                    cs[j + 1 + 2 * I * n] = r[3];
                    cs[j + 1 + (2 * I + 1) * n] = r[4];
                    ca[j + 1 + I * n] = r[5];
                }
            }
        }
    }
    free(zeros);
    return FT_SUCCESS;
}
