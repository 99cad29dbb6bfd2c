/*
 * test_reflect.c — the one-launch block-reflector kernel of the cuda qr_solve table
 * (qr_solve_kernels.h `reflect`: X := op(H_p0 ... H_(p1-1)) X for a thin X), which the
 * recovery's z = Q~^T a_j and the checksum blocks' catch-up run on (qr_recover.c).
 * Against LAPACK dormqr with the same Householder vectors (LAPACK dgeqrf's, T of each panel by
 * dlarft): both directions, 1 .. 9 columns (the kernel takes four at a time), panel ranges that
 * start and end inside the factor, m not a multiple of the kernel's 32-row chunks, k < m and
 * k not a multiple of nb, nb = 1 .. 256. Then op(Q)^T op(Q) X = X.
 * cuda only (label gpu): the host table has no such kernel (the BLAS path runs there, tested
 * by every recovery test). Argument 2 (optional): the largest m (compute-sanitizer runs).
 */
#include "qr/qr_solve_kernels.h"

#include "testing_util.h"

#include <ftla.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double U = 1.1102230246251565e-16;

static double maxabs(int64_t m, int64_t n, const double *x, int64_t ld)
{
    double r = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            if (!(fabs(x[i + j * ld]) <= r)) r = fabs(x[i + j * ld]);
    return r;
}

static void one(ft_context_t *ctx, tu_rng_t *rng, int64_t m, int64_t k, int64_t nb)
{
    const ft_backend_t *be = ft_backend_cuda();
    const qr_solve_kernels_t *K = qr_solve_kernels_cuda();
    ft_queue_t *q = NULL;
    TU_CHECK(be->queue_create(ctx, NULL, &q) == 0, "queue");
    const int64_t lda = m + 1, np = (k + nb - 1) / nb, nxmax = 9, ldx = m + 3;
    double *A = tu_malloc(lda * k), *tau = tu_malloc(k), *T = tu_malloc(nb * nb * np);
    double *X = tu_malloc(ldx * nxmax), *R = tu_malloc(ldx * nxmax), *D = tu_malloc(ldx * nxmax);
    tu_fill(rng, m, k, A, lda);
    TU_CHECK(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, (int)k, A, (int)lda, tau) == 0, "dgeqrf");
    memset(T, 0, sizeof(double) * (size_t)(nb * nb * np));
    for (int64_t p = 0; p < np; p++) {
        const int64_t i = p * nb, ib = k - i < nb ? k - i : nb;
        TU_CHECK(LAPACKE_dlarft(LAPACK_COL_MAJOR, 'F', 'C', (int)(m - i), (int)ib,
                                A + i + i * lda, (int)lda, tau + i, T + p * nb * nb,
                                (int)nb) == 0,
                 "dlarft");
    }
    double *dA, *dT, *dX;
    TU_CHECK(be->alloc((void **)&dA, sizeof(double) * lda * k) == 0 &&
                 be->alloc((void **)&dT, sizeof(double) * nb * nb * np) == 0 &&
                 be->alloc((void **)&dX, sizeof(double) * ldx * nxmax) == 0,
             "alloc");
    be->set_matrix(q, lda, k, A, lda, dA, lda);
    be->set_matrix(q, nb * nb * np, 1, T, nb * nb * np, dT, nb * nb * np);
    const int64_t ranges[][2] = {{0, np}, {1, np - 1}, {np - 1, np}, {0, 1}, {np / 2, np}};
    const int nxs[] = {1, 3, 4, 5, 9};
    for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++) {
        const int64_t p0 = ranges[ri][0], p1 = ranges[ri][1];
        if (p0 < 0 || p1 <= p0 || p1 > np) continue;
        const int64_t i0 = p0 * nb, i1 = p1 * nb < k ? p1 * nb : k;
        for (size_t xi = 0; xi < sizeof nxs / sizeof nxs[0]; xi++)
            for (int trans = 0; trans < 2; trans++) {
                const int64_t nx = nxs[xi];
                tu_fill(rng, ldx, nx, X, ldx);
                memcpy(R, X, sizeof(double) * (size_t)(ldx * nx));
                be->set_matrix(q, ldx, nx, X, ldx, dX, ldx);
                int done = 0;
                int st = K->reflect(q, trans, m, k, nb, p0, p1, dA, lda, dT, dX, ldx, nx, &done);
                TU_CHECK(st == 0 && done, "reflect status %d done %d", st, done);
                be->get_matrix(q, ldx, nx, dX, ldx, D, ldx);
                TU_CHECK(be->sync(q) == 0, "sync");
                /* the reference: the same reflectors (columns i0 .. i1-1) on rows i0 .. m-1 */
                TU_CHECK(LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', trans ? 'T' : 'N', (int)(m - i0),
                                        (int)nx, (int)(i1 - i0), A + i0 + i0 * lda, (int)lda,
                                        tau + i0, R + i0, (int)ldx) == 0,
                         "dormqr");
                double e = 0;
                int kept = 1;
                for (int64_t j = 0; j < nx; j++)
                    for (int64_t i = 0; i < ldx; i++) {
                        if (i < i0 || i >= m) kept &= D[i + j * ldx] == X[i + j * ldx];
                        else e = fmax(e, fabs(D[i + j * ldx] - R[i + j * ldx]));
                    }
                const double mx = maxabs(m, nx, R, ldx), tol = 4.0 * sqrt((double)m) * (double)(i1 - i0) * U;
                TU_CHECK(e <= tol * mx && kept,
                         "m %lld k %lld nb %lld panels %lld..%lld nx %lld %s: |kernel - dormqr| "
                         "%.3g of %.3g (tol %.3g), other rows kept %d",
                         (long long)m, (long long)k, (long long)nb, (long long)p0, (long long)p1,
                         (long long)nx, trans ? "Q^T" : "Q", e, mx, tol * mx, kept);
                /* and back: op(Q)^T op(Q) X = X */
                done = 0;
                st = K->reflect(q, !trans, m, k, nb, p0, p1, dA, lda, dT, dX, ldx, nx, &done);
                TU_CHECK(st == 0 && done, "reflect back status %d done %d", st, done);
                be->get_matrix(q, ldx, nx, dX, ldx, D, ldx);
                TU_CHECK(be->sync(q) == 0, "sync");
                e = 0;
                for (int64_t j = 0; j < nx; j++)
                    for (int64_t i = 0; i < ldx; i++)
                        e = fmax(e, fabs(D[i + j * ldx] - X[i + j * ldx]));
                TU_CHECK(e <= 2 * tol * maxabs(ldx, nx, X, ldx),
                         "m %lld k %lld nb %lld nx %lld: there and back %.3g", (long long)m,
                         (long long)k, (long long)nb, (long long)nx, e);
            }
    }
    /* nothing to do: X untouched, done */
    {
        int done = 0;
        TU_CHECK(K->reflect(q, 1, m, k, nb, 1, 1, dA, lda, dT, dX, ldx, 1, &done) == 0 && done,
                 "empty range");
    }
    /* nb beyond the kernel: declined, X untouched */
    if (nb == 1) {
        int done = 1;
        TU_CHECK(K->reflect(q, 1, m, k, 257, 0, 1, dA, lda, dT, dX, ldx, 1, &done) == 0 && !done,
                 "nb 257 is declined");
    }
    be->free(dA), be->free(dT), be->free(dX);
    be->queue_destroy(q);
    free(A), free(tau), free(T), free(X), free(R), free(D);
}

/* --bench M: X := Q^T X over all panels of an M x M factor (nb 256; random V and T: the
 * values do not matter to the time) for one and three vectors, median and min-max of 7 after
 * a warm-up; GB/s counts V read twice (the least without keeping a panel on chip). */
static int bench(ft_context_t *ctx, int64_t m)
{
    const ft_backend_t *be = ft_backend_cuda();
    const qr_solve_kernels_t *K = qr_solve_kernels_cuda();
    ft_queue_t *q = NULL;
    if (be->queue_create(ctx, NULL, &q)) return 1;
    const int64_t nb = 256, k = m, np = (k + nb - 1) / nb, runs = 7;
    double *h = tu_malloc(m * 4), *dA, *dT, *dX;
    if (be->alloc((void **)&dA, sizeof(double) * m * k) || be->alloc((void **)&dT, sizeof(double) * nb * nb * np) ||
        be->alloc((void **)&dX, sizeof(double) * m * 4))
        return 1;
    tu_rng_t rng;
    tu_seed(&rng, 1);
    double *col = tu_malloc(m);
    for (int64_t j = 0; j < k; j++) {
        for (int64_t i = 0; i < m; i++) col[i] = tu_uniform(&rng) / (double)m;
        be->set_matrix(q, m, 1, col, m, dA + j * m, m);
    }
    for (int64_t t = 0; t < nb * nb * np; t += m) {
        const int64_t c = nb * nb * np - t < m ? nb * nb * np - t : m;
        for (int64_t i = 0; i < c; i++) col[i] = tu_uniform(&rng) / (double)nb;
        be->set_matrix(q, c, 1, col, c, dT + t, c);
    }
    double bytes = 0;
    for (int64_t p = 0; p < np; p++) {
        const int64_t i = p * nb, ib = k - i < nb ? k - i : nb;
        bytes += 2.0 * 8.0 * (double)(m - i) * (double)ib;
    }
    const int nxs[2] = {1, 3};
    for (int a = 0; a < 2; a++) {
        double t[16];
        for (int r = -1; r < runs; r++) {
            tu_fill(&rng, m, 4, h, m);
            be->set_matrix(q, m, 4, h, m, dX, m);
            be->sync(q);
            const double t0 = ft_wtime();
            int done = 0;
            if (K->reflect(q, 1, m, k, nb, 0, np, dA, m, dT, dX, m, nxs[a], &done) || !done ||
                be->sync(q))
                return 1;
            if (r >= 0) t[r] = ft_wtime() - t0;
        }
        for (int x = 1; x < runs; x++)
            for (int y = x; y > 0 && t[y - 1] > t[y]; y--) {
                const double z = t[y];
                t[y] = t[y - 1];
                t[y - 1] = z;
            }
        printf("reflect m %lld nb %lld panels %lld nx %d: median %.3f ms [%.3f - %.3f], %.0f GB/s "
               "(V twice), %.1f us a panel\n",
               (long long)m, (long long)nb, (long long)np, nxs[a], 1e3 * t[runs / 2], 1e3 * t[0],
               1e3 * t[runs - 1], bytes / t[runs / 2] / 1e9, 1e6 * t[runs / 2] / (double)np);
    }
    be->free(dA), be->free(dT), be->free(dX);
    be->queue_destroy(q);
    free(h), free(col);
    return 0;
}

int main(int argc, char **argv)
{
    const ft_device_t dev = tu_device_from_args(argc, argv);
    if (dev != FT_DEVICE_CUDA || !qr_solve_kernels_cuda()) {
        printf("SKIP: the reflector kernel is cuda only\n");
        return TU_SKIP;
    }
    if (argc > 3 && !strcmp(argv[2], "--bench")) {
        ft_context_t *bctx = NULL;
        if (ft_context_create(&bctx, FT_DEVICE_CUDA)) return 1;
        const int rc = bench(bctx, atoll(argv[3]));
        ft_context_destroy(bctx);
        return rc;
    }
    const int64_t cap = argc > 2 ? atoll(argv[2]) : 1 << 30;
    tu_rng_t rng;
    tu_seed(&rng, 4242);
    ft_context_t *ctx = NULL;
    TU_CHECK(ft_context_create(&ctx, FT_DEVICE_CUDA) == 0, "context");
    const int64_t shapes[][3] = {{1, 1, 1},      {2, 1, 1},       {33, 20, 8},
                                 {100, 60, 16},  {300, 300, 64},  {1000, 700, 64},
                                 {513, 300, 256}, {2049, 2049, 128}, {4097, 1500, 256},
                                 {20000, 600, 256}, {8192, 8192, 256}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        if (shapes[t][0] <= cap) one(ctx, &rng, shapes[t][0], shapes[t][1], shapes[t][2]);
    ft_context_destroy(ctx);
    return tu_finish();
}
