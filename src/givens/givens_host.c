/* givens_host.c — the host reference of the plane rotations (givens.h) and the host kernel
 * table: column sweeps (each column's chain of rotations is independent of the others', so a
 * column-wise sweep gives the same numbers as the row-pair sweeps of dlasr and walks memory
 * contiguously), four columns interleaved; the Hessenberg-to-triangular reduction too, which
 * generates rotation p when the left-to-right sweep reaches column p. */
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

/* Sweeps of rotations p0 .. p1-1 over columns, one chain (the carry) per column. Four columns
 * go together so that four independent chains hide the latency of each step's FMAs; the
 * arithmetic of every element is that of dlasr, in the same order. */
static void sweep_f1(int64_t p0, int64_t p1, const double *c, const double *s, double *a)
{
    if (p1 <= p0) return;
    double x = a[p0];
    for (int64_t p = p0; p < p1; p++) {
        const double y = a[p + 1];
        a[p] = s[p] * y + c[p] * x;
        x = c[p] * y - s[p] * x;
    }
    a[p1] = x;
}

static void sweep_f4(int64_t p0, int64_t p1, const double *c, const double *s, double *a0,
                     double *a1, double *a2, double *a3)
{
    if (p1 <= p0) return;
    double x0 = a0[p0], x1 = a1[p0], x2 = a2[p0], x3 = a3[p0];
    for (int64_t p = p0; p < p1; p++) {
        const double cp = c[p], sp = s[p];
        const double y0 = a0[p + 1], y1 = a1[p + 1], y2 = a2[p + 1], y3 = a3[p + 1];
        a0[p] = sp * y0 + cp * x0;
        a1[p] = sp * y1 + cp * x1;
        a2[p] = sp * y2 + cp * x2;
        a3[p] = sp * y3 + cp * x3;
        x0 = cp * y0 - sp * x0;
        x1 = cp * y1 - sp * x1;
        x2 = cp * y2 - sp * x2;
        x3 = cp * y3 - sp * x3;
    }
    a0[p1] = x0;
    a1[p1] = x1;
    a2[p1] = x2;
    a3[p1] = x3;
}

/* backward: p = p1-1 down to p0, the carry entering at row p1 */
static void sweep_b1(int64_t p0, int64_t p1, const double *c, const double *s, double *a)
{
    if (p1 <= p0) return;
    double x = a[p1];
    for (int64_t p = p1 - 1; p >= p0; p--) {
        const double y = a[p];
        a[p + 1] = c[p] * x - s[p] * y;
        x = s[p] * x + c[p] * y;
    }
    a[p0] = x;
}

static void sweep_b4(int64_t p0, int64_t p1, const double *c, const double *s, double *a0,
                     double *a1, double *a2, double *a3)
{
    if (p1 <= p0) return;
    double x0 = a0[p1], x1 = a1[p1], x2 = a2[p1], x3 = a3[p1];
    for (int64_t p = p1 - 1; p >= p0; p--) {
        const double cp = c[p], sp = s[p];
        const double y0 = a0[p], y1 = a1[p], y2 = a2[p], y3 = a3[p];
        a0[p + 1] = cp * x0 - sp * y0;
        a1[p + 1] = cp * x1 - sp * y1;
        a2[p + 1] = cp * x2 - sp * y2;
        a3[p + 1] = cp * x3 - sp * y3;
        x0 = sp * x0 + cp * y0;
        x1 = sp * x1 + cp * y1;
        x2 = sp * x2 + cp * y2;
        x3 = sp * x3 + cp * y3;
    }
    a0[p0] = x0;
    a1[p0] = x1;
    a2[p0] = x2;
    a3[p0] = x3;
}

void givens_ref_lasr(char direct, int64_t m, int64_t n, const double *c, const double *s,
                     double *A, int64_t lda)
{
    if (m < 2 || n < 1) return;
    const int fwd = direct == 'F' || direct == 'f';
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        double *a = A + j * lda;
        if (fwd) sweep_f4(0, m - 1, c, s, a, a + lda, a + 2 * lda, a + 3 * lda);
        else sweep_b4(0, m - 1, c, s, a, a + lda, a + 2 * lda, a + 3 * lda);
    }
    for (; j < n; j++) {
        if (fwd) sweep_f1(0, m - 1, c, s, A + j * lda);
        else sweep_b1(0, m - 1, c, s, A + j * lda);
    }
}

void givens_ref_zero_to_hess(int64_t m, int64_t n, double *x, double *R, int64_t ldr,
                             double *sub, double *c, double *s)
{
    if (m < 1) return;
    givens_ref_zero_vector(m, x, c, s);
    if (m < 2) return;
    /* column j meets rotations p = min(j, m - 2) .. 0; the first, p = j (rows j, j+1), brings
     * the zero below the diagonal in as the subdiagonal fill H(j+1, j): sub[j] = -s_j a_j,
     * a_j = c_j a_j; then rows min(j, m-1) .. 0 take the backward sweep. Four columns at a
     * time: each runs alone down to the first one's top row, then the four together. */
    for (int64_t j0 = 0; j0 < n; j0 += 4) {
        const int64_t jb = n - j0 < 4 ? n - j0 : 4, P = j0 < m - 1 ? j0 : m - 1;
        for (int64_t k = 0; k < jb; k++) {
            const int64_t j = j0 + k;
            double *a = R + j * ldr;
            if (j <= m - 2) {
                sub[j] = -s[j] * a[j];
                a[j] = c[j] * a[j];
            }
            sweep_b1(P, j < m - 1 ? j : m - 1, c, s, a);
        }
        double *a = R + j0 * ldr;
        if (jb == 4) sweep_b4(0, P, c, s, a, a + ldr, a + 2 * ldr, a + 3 * ldr);
        else
            for (int64_t k = 0; k < jb; k++) sweep_b1(0, P, c, s, a + k * ldr);
    }
}

void givens_ref_hess_to_tri(int64_t m, int64_t n, double *R, int64_t ldr, double *sub,
                            double *c, double *s)
{
    const int64_t ns = m - 1 < n ? m - 1 : n;
    if (ns <= 0) return;
    /* column by column: rotation p needs column p after rotations 0 .. p-1, so a left-to-right
     * sweep of columns generates each rotation as soon as its column is reached. Four columns
     * at a time: the rotations generated before the group in four interleaved chains, then
     * each column in turn takes the group's own rotations and generates its one. */
    for (int64_t j0 = 0; j0 < n; j0 += 4) {
        const int64_t jb = n - j0 < 4 ? n - j0 : 4, P = j0 < ns ? j0 : ns;
        double *a = R + j0 * ldr;
        if (jb == 4) sweep_f4(0, P, c, s, a, a + ldr, a + 2 * ldr, a + 3 * ldr);
        else
            for (int64_t k = 0; k < jb; k++) sweep_f1(0, P, c, s, a + k * ldr);
        for (int64_t k = 0; k < jb; k++) {
            const int64_t j = j0 + k;
            double *aj = R + j * ldr;
            sweep_f1(P, j < ns ? j : ns, c, s, aj);
            if (j < ns) {
                double r;
                givens_lartg(aj[j], sub[j], &c[j], &s[j], &r);
                aj[j] = r;
                sub[j] = 0.0;
            }
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
const givens_kernels_t *givens_kernels_cuda_slab(void) { return NULL; }
#endif

const givens_kernels_t *givens_kernels(const ft_backend_t *be)
{
    const givens_kernels_t *k = NULL;
    if (be && be->kind == FT_DEVICE_CUDA) k = givens_kernels_cuda_fused();
    return k ? k : &g_host;
}
