/* abft_host.c — the ABFT kernels on the host: plain loops the compiler vectorises.
 * Single-threaded on purpose: OpenMP threads next to OpenBLAS's own threads oversubscribed the
 * two cores and slowed the whole call down (bench/NOTES.md). */
#include "blas3/abft_host.h"

#include <math.h>
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
                for (int64_t r = 0; r < r1 - r0; r++) se[r] = sw[r] = sa[r] = 0.0;
                for (int64_t j = j0; j < j1; j++) {
                    const double *x = X + j * ldx + r0;
                    const double w = abft_weight(j - j0, W);
                    for (int64_t r = 0; r < r1 - r0; r++) {
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
