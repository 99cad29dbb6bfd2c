/* dgemm_kernels_host.c — ft_dgemm's kernel table on the host backend (dgemm_kernels.h), and the
 * choice of table by backend. Plain loops the compiler vectorises; they run as tasks of a host
 * queue (backend/host/host_queue.h); the TMR vote on the shared team (core/team.h). */
#include "backend/host/host_queue.h"
#include "blas3/dgemm_kernels.h"
#include "core/context.h"
#include "core/team.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int h_verify_rows(ft_queue_t *q, const dgemm_rowcheck_args_t *a, void *dwork, void *hwork,
                         int64_t cap, dgemm_flag_t **flags_out, int64_t *nflags,
                         int64_t *nunchecked)
{
    /* the sums were computed by work queued on q: run it first */
    FT_CHECK(ft_backend_host()->sync(q));
    dgemm_flag_t *flags = (dgemm_flag_t *)((char *)hwork + DGEMM_VERIFY_HEAD);
    int64_t nf = 0, nu = 0;
    for (int64_t J = 0; J < a->nb; J++)
        for (int64_t i = 0; i < a->m; i++) {
            double de, dw, tau;
            int r = dgemm_row_check(a, i, J, &de, &dw, &tau);
            if (r == 1) {
                if (nf < cap) flags[nf] = (dgemm_flag_t){i, J, de, dw, tau};
                nf++;
            } else if (r == 2) {
                nu++;
            }
        }
    *flags_out = flags;
    *nflags = nf;
    *nunchecked = nu;
    return FT_SUCCESS;
}

typedef struct {
    int64_t m, n, ldc, T;
    double scale;
    const double *C0;
    double *rs, *ra, *cs, *ca, *backup;
} c0_args;

static int run_c0_pass(void *p)
{
    const c0_args *a = p;
    const int64_t m = a->m, n = a->n, ldc = a->ldc, T = a->T;
    const double sc = a->scale;
    const double *C0 = a->C0;
    double *rs = a->rs, *ra = a->ra, *cs = a->cs, *ca = a->ca, *backup = a->backup;
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    if (!cs) {
        /* row sums only (the driver keeps a backup and sums columns from it when needed) */
        if (backup)
            for (int64_t j = 0; j < n; j++)
                memcpy(backup + j * m, C0 + j * ldc, (size_t)m * sizeof(double));
        return ft_host_block_sums_now('N', m, n, C0, ldc, T, sc, rs, m, ra, m);
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

static int h_c0_pass(ft_queue_t *q, int64_t m, int64_t n, const double *C0, int64_t ldc, int64_t T,
                     double scale, double *rs, double *ra, double *cs, double *ca, double *backup)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    if (T <= 0) return FT_ERR_INTERNAL;
    c0_args a = {m, n, ldc, T, scale, C0, rs, ra, cs, ca, backup};
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

static const dgemm_kernels_t g_host = {.verify_rows = h_verify_rows, .c0_pass = h_c0_pass,
                                       .tmr_vote = h_tmr_vote};

const dgemm_kernels_t *dgemm_kernels_host(void) { return &g_host; }

#ifndef FTLA_HAVE_CUDA
const dgemm_kernels_t *dgemm_kernels_cuda(void) { return NULL; }
#endif

const dgemm_kernels_t *dgemm_kernels(const ft_backend_t *be)
{
    return be->kind == FT_DEVICE_CUDA ? dgemm_kernels_cuda() : dgemm_kernels_host();
}
