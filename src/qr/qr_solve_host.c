/* qr_solve_host.c — the host reference of the FT factor's rotation sweeps (used directly by the
 * host ft_dormqr) and the host table of qr_solve_kernels.h: plain loops as host-queue tasks. */
#include "qr/qr_solve_kernels.h"

#include "backend/host/host_queue.h"

void qr_rotate_ref(int left, int transposed, int64_t t0, int64_t dt, int64_t cnt, const double *c,
                   const double *s, double *C, int64_t m, int64_t n, int64_t ldc)
{
    /* every case is x' = c x + e y, y' = -e x + c y on the pair, with e = +-s */
    const double sg = left ? (transposed ? -1.0 : 1.0) : (transposed ? 1.0 : -1.0);
    if (left) {
        for (int64_t j = 0; j < n; j++) {
            double *x = C + j * ldc;
            for (int64_t u = 0, t = t0; u < cnt; u++, t += dt) {
                const double e = sg * s[t], a = x[t], b = x[t + 1];
                x[t] = c[t] * a + e * b;
                x[t + 1] = c[t] * b - e * a;
            }
        }
    } else {
        for (int64_t u = 0, t = t0; u < cnt; u++, t += dt) {
            const double e = sg * s[t];
            double *x = C + t * ldc, *y = C + (t + 1) * ldc;
            for (int64_t r = 0; r < m; r++) {
                const double a = x[r], b = y[r];
                x[r] = c[t] * a + e * b;
                y[r] = c[t] * b - e * a;
            }
        }
    }
}

/* ---- the host kernel table --------------------------------------------------------------- */

typedef struct {
    int op; /* 0 rot, 1 transpose, 2 scale */
    int left, transposed;
    int64_t t0, dt, cnt, m, n, lda, ldb;
    double mul;
    const double *c, *s, *A;
    double *B;
} s_args;

static int run_task(void *p)
{
    const s_args *a = p;
    if (a->op == 0) {
        qr_rotate_ref(a->left, a->transposed, a->t0, a->dt, a->cnt, a->c, a->s, a->B, a->m, a->n,
                      a->lda);
    } else if (a->op == 1) {
        for (int64_t j = 0; j < a->n; j++)
            for (int64_t i = 0; i < a->m; i++) a->B[j + i * a->ldb] = a->A[i + j * a->lda];
    } else {
        for (int64_t j = 0; j < a->n; j++)
            for (int64_t i = 0; i < a->m; i++) a->B[i + j * a->lda] *= a->mul;
    }
    return FT_SUCCESS;
}

static int h_rot(ft_queue_t *q, int left, int transposed, int64_t t0, int64_t dt, int64_t cnt,
                 const double *c, const double *s, double *C, int64_t m, int64_t n, int64_t ldc)
{
    if (cnt <= 0 || m <= 0 || n <= 0) return FT_SUCCESS;
    s_args a = {.op = 0, .left = left, .transposed = transposed, .t0 = t0, .dt = dt, .cnt = cnt,
                .m = m, .n = n, .lda = ldc, .c = c, .s = s, .B = C};
    return ft_host_submit(q, run_task, &a, sizeof a);
}

static int h_transpose(ft_queue_t *q, int64_t m, int64_t n, const double *A, int64_t lda,
                       double *B, int64_t ldb)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    s_args a = {.op = 1, .m = m, .n = n, .lda = lda, .ldb = ldb, .A = A, .B = B};
    return ft_host_submit(q, run_task, &a, sizeof a);
}

static int h_scale(ft_queue_t *q, int64_t m, int64_t n, double mul, double *A, int64_t lda)
{
    if (m <= 0 || n <= 0) return FT_SUCCESS;
    s_args a = {.op = 2, .m = m, .n = n, .lda = lda, .mul = mul, .B = A};
    return ft_host_submit(q, run_task, &a, sizeof a);
}

static const qr_solve_kernels_t s_host = {"host", h_rot, h_transpose, h_scale, NULL};

#ifndef FTLA_HAVE_CUDA
const qr_solve_kernels_t *qr_solve_kernels_cuda(void) { return NULL; }
#endif

const qr_solve_kernels_t *qr_solve_kernels(const ft_backend_t *be)
{
    const qr_solve_kernels_t *k = NULL;
    if (be && be->kind == FT_DEVICE_CUDA) k = qr_solve_kernels_cuda();
    return k ? k : &s_host;
}
