/* abft_host.h — host implementations of the ABFT kernels of the backend table. */
#ifndef FTLA_ABFT_HOST_H
#define FTLA_ABFT_HOST_H
#include "blas3/abft.h"
#include "core/backend.h"

int abft_host_block_sums(ft_context_t *ctx, int q, char trans, int64_t rows, int64_t cols,
                         const double *X, int64_t ldx, int64_t T, double *sums, int64_t lds,
                         double *abss, int64_t ldabs);
int abft_host_col_absmax(ft_context_t *ctx, int q, int64_t rows, int64_t cols, const double *X,
                         int64_t ldx, double *out);
int abft_host_verify_rows(ft_context_t *ctx, int q, const abft_rowcheck_args_t *args,
                          abft_flag_t *flags, int64_t cap, int64_t *nflags, int64_t *nunchecked);
int abft_host_c0_pass(ft_context_t *ctx, int q, int64_t m, int64_t n, const double *C0,
                      int64_t ldc, int64_t T, double *rs, double *ra, double *cs, double *ca,
                      double *backup);
#endif
