/* givens_host.c — the host reference of the plane rotations (givens.h) and the host kernel
 * table: plain loops, column by column (each column's chain of rotations is independent of the
 * others', so a column-wise sweep gives the same numbers as the row-pair sweeps of dlasr and
 * walks memory contiguously). */
#include "givens/givens.h"

#include "backend/host/host_queue.h"

void givens_ref_zero_vector(int64_t n, double *x, double *c, double *s)
{
    for (int64_t p = n - 2; p >= 0; p--) {
        double r;
        givens_lartg(x[p], x[p + 1], &c[p], &s[p], &r);
        x[p] = r;
        x[p + 1] = 0.0;
    }
}

void givens_ref_lasr(char direct, int64_t m, int64_t n, const double *c, const double *s,
                     double *A, int64_t lda)
{
    if (m < 2 || n < 1) return;
    for (int64_t j = 0; j < n; j++) {
        double *a = A + j * lda;
        if (direct == 'F' || direct == 'f') {
            double x = a[0];
            for (int64_t p = 0; p < m - 1; p++) {
                const double y = a[p + 1];
                a[p] = s[p] * y + c[p] * x;
                x = c[p] * y - s[p] * x;
            }
            a[m - 1] = x;
        } else {
            double x = a[m - 1];
            for (int64_t p = m - 2; p >= 0; p--) {
                const double y = a[p];
                a[p + 1] = c[p] * x - s[p] * y;
                x = s[p] * x + c[p] * y;
            }
            a[0] = x;
        }
    }
}

void givens_ref_zero_to_hess(int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                             double *sub, double *c, double *s)
{
    if (m < 1) return;
    givens_ref_zero_vector(m, x, c, s);
    /* column j meets rotations p = min(j, m - 2) .. 0; the first, p = j (rows j, j+1), brings
     * the zero below the diagonal in as the subdiagonal fill H(j+1, j) */
    for (int64_t j = 0; j < n; j++) {
        double *a = R + j * ldr;
        int64_t p = j < m - 2 ? j : m - 2;
        if (p < 0) continue;
        double xv;
        if (p == j) { /* row j+1 of column j is below the diagonal: zero */
            sub[j] = -s[p] * a[p];
            xv = c[p] * a[p];
            p--;
        } else {
            xv = a[p + 1];
        }
        for (; p >= 0; p--) {
            const double y = a[p];
            a[p + 1] = c[p] * xv - s[p] * y;
            xv = s[p] * xv + c[p] * y;
        }
        a[0] = xv;
    }
}

void givens_ref_hess_to_tri(int64_t m, int64_t n, double *R, int64_t ldr, double *sub,
                            double *c, double *s)
{
    const int64_t ns = m - 1 < n ? m - 1 : n;
    for (int64_t p = 0; p < ns; p++) {
        double r;
        givens_lartg(R[p + p * ldr], sub[p], &c[p], &s[p], &r);
        R[p + p * ldr] = r;
        sub[p] = 0.0;
        const double cp = c[p], sp = s[p];
        for (int64_t j = p + 1; j < n; j++) {
            double *a = R + j * ldr;
            const double y = a[p + 1], x = a[p];
            a[p] = sp * y + cp * x;
            a[p + 1] = cp * y - sp * x;
        }
    }
}

/* ---- the host kernel table: the reference as host-queue tasks ---------------------------- */

typedef struct {
    int op; /* 0 zero_to_hess, 1 hess_to_tri, 2 lasr */
    char direct;
    int64_t m, n, ld;
    double *x, *R, *sub, *c, *s;
    const double *cc, *cs;
} g_args;

static int run_task(void *p)
{
    const g_args *a = p;
    if (a->op == 0) givens_ref_zero_to_hess(a->m, a->n, a->x, a->R, a->ld, a->sub, a->c, a->s);
    else if (a->op == 1) givens_ref_hess_to_tri(a->m, a->n, a->R, a->ld, a->sub, a->c, a->s);
    else givens_ref_lasr(a->direct, a->m, a->n, a->cc, a->cs, a->R, a->ld);
    return FT_SUCCESS;
}

static int h_zero_to_hess(ft_queue_t *q, int64_t m, int64_t n, double *x, double *R,
                          int64_t ldr, double *sub, double *c, double *s)
{
    g_args a = {.op = 0, .m = m, .n = n, .ld = ldr, .x = x, .R = R, .sub = sub, .c = c, .s = s};
    return ft_host_submit(q, run_task, &a, sizeof a);
}

static int h_hess_to_tri(ft_queue_t *q, int64_t m, int64_t n, double *R, int64_t ldr,
                         double *sub, double *c, double *s)
{
    g_args a = {.op = 1, .m = m, .n = n, .ld = ldr, .R = R, .sub = sub, .c = c, .s = s};
    return ft_host_submit(q, run_task, &a, sizeof a);
}

static int h_lasr(ft_queue_t *q, char direct, int64_t m, int64_t n, const double *c,
                  const double *s, double *A, int64_t lda)
{
    g_args a = {.op = 2, .direct = direct, .m = m, .n = n, .ld = lda, .R = A, .cc = c, .cs = s};
    return ft_host_submit(q, run_task, &a, sizeof a);
}

static const givens_kernels_t g_host = {"host", h_zero_to_hess, h_hess_to_tri, h_lasr};

const givens_kernels_t *givens_kernels_host(void) { return &g_host; }

#ifndef FTLA_HAVE_CUDA
const givens_kernels_t *givens_kernels_cuda_plain(void) { return NULL; }
const givens_kernels_t *givens_kernels_cuda_fused(void) { return NULL; }
const givens_kernels_t *givens_kernels_cuda_steps(void) { return NULL; }
const givens_kernels_t *givens_kernels_cuda_persistent(void) { return NULL; }
#endif

const givens_kernels_t *givens_kernels(const ft_backend_t *be)
{
    const givens_kernels_t *k = NULL;
    if (be && be->kind == FT_DEVICE_CUDA) k = givens_kernels_cuda_fused();
    return k ? k : &g_host;
}
