/* abft_host.c — the ABFT kernels on the host (plain loops the compiler vectorises). */
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
    for (int64_t J = 0; J < nb; J++) {
        int64_t j0 = J * T, j1 = j0 + T < cols ? j0 + T : cols;
        double *se = sums ? sums + 2 * J * lds : NULL, *sw = sums ? sums + (2 * J + 1) * lds : NULL;
        double *sa = abss ? abss + J * ldabs : NULL;
        if (notrans) {
            /* row r of X' is row r of X: sweep the block's columns, contiguous in r */
            if (se) memset(se, 0, (size_t)rows * sizeof(double));
            if (sw) memset(sw, 0, (size_t)rows * sizeof(double));
            if (sa) memset(sa, 0, (size_t)rows * sizeof(double));
            for (int64_t j = j0; j < j1; j++) {
                const double *x = X + j * ldx;
                const double w = abft_weight(j - j0, W);
                if (se)
                    for (int64_t r = 0; r < rows; r++) {
                        se[r] += x[r];
                        sw[r] += w * x[r];
                    }
                if (sa)
                    for (int64_t r = 0; r < rows; r++) sa[r] += fabs(x[r]);
            }
        } else {
            /* row r of X' is column r of X: contiguous dot products */
            for (int64_t r = 0; r < rows; r++) {
                const double *x = X + r * ldx;
                double e = 0, wsum = 0, a = 0;
                for (int64_t j = j0; j < j1; j++) {
                    e += x[j];
                    wsum += abft_weight(j - j0, W) * x[j];
                    a += fabs(x[j]);
                }
                if (se) {
                    se[r] = e;
                    sw[r] = wsum;
                }
                if (sa) sa[r] = a;
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
            if (!(v <= m)) m = v; /* keeps NaN */
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
