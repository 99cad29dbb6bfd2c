/*
 * panel_cpu.c — the host panel of ft_dgeqrf in isolation: ways to factor an m x nb panel and
 * form its T with the host's LAPACK/BLAS (OpenBLAS), timed per panel (median of R runs after
 * a warm-up). Standalone (not part of the build):
 *
 *   gcc -O2 -o panel_cpu bench/micro/panel_cpu.c -llapacke -llapack -lcblas|-lopenblas -lm
 *   ./panel_cpu [m nb R]
 *
 * Variants:
 *   old    dgeqrf on the panel (dgeqr2 below LAPACK's crossover of 128 columns), dlarft
 *   halfr  dgeqr2 on each half, the first half's reflectors applied to the second by dlarf,
 *          dlarft on the whole                       (ftla's sealed panel, dlarf cross update)
 *   halfb  as halfr with the cross update as dlarft + dlarfb (level 3)
 *   halfs  as halfb with both T formed from one dsyrk of V^T V and a small host recurrence
 *   olds   old with T from dsyrk (the dlarft calls are many small level-2 operations)
 * Each variant's R is checked against old's (max |R - R_old| / max |R_old|).
 */
#include <cblas.h>
#include <lapack.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* V (m x k, ld m) with explicit unit diagonal and zeros from the factored P */
static void tov(int m, int c0, int c1, const double *P, int ldp, double *V)
{
    for (int c = c0; c < c1; c++) {
        double *v = V + (size_t)c * m;
        for (int r = 0; r < c; r++) v[r] = 0.0;
        v[c] = 1.0;
        memcpy(v + c + 1, P + (size_t)c * ldp + c + 1, sizeof(double) * (m - c - 1));
    }
}

/* T (k x k, ld ldt) from S = V^T V (k x k) and tau: T(0:c, c) = -tau_c T(0:c, 0:c) S(0:c, c) */
static void t_from_s(int k, const double *S, int lds, const double *tau, double *T, int ldt)
{
    for (int c = 0; c < k; c++) {
        for (int r = 0; r < c; r++) {
            double s = 0.0;
            for (int q = r; q < c; q++) s += T[r + q * ldt] * S[q + c * lds];
            T[r + c * ldt] = -tau[c] * s;
        }
        T[c + c * ldt] = tau[c];
    }
}

static void geqr2(int m, int n, double *P, int ldp, double *tau, double *work)
{
    LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, m, n, P, ldp, tau, work);
}

int main(int argc, char **argv)
{
    const int m = argc > 1 ? atoi(argv[1]) : 16384, nb = argc > 2 ? atoi(argv[2]) : 64;
    const int R = argc > 3 ? atoi(argv[3]) : 15, h = nb / 2;
    double *A = malloc(sizeof(double) * m * nb), *P = malloc(sizeof(double) * m * nb);
    double *V = malloc(sizeof(double) * m * nb), *Rold = malloc(sizeof(double) * nb * nb);
    double *tau = malloc(sizeof(double) * nb), *T = malloc(sizeof(double) * nb * nb);
    double *S = malloc(sizeof(double) * nb * nb), *W = malloc(sizeof(double) * nb * nb);
    double *work = malloc(sizeof(double) * 64 * nb), *t = malloc(sizeof(double) * R);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)m * nb; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        A[i] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
    }
    const char *names[] = {"old", "halfr", "halfb", "halfs", "olds"};
    printf("# panel %d x %d, %d runs, OPENBLAS_NUM_THREADS=%s OPENBLAS_CORETYPE=%s\n", m, nb, R,
           getenv("OPENBLAS_NUM_THREADS") ? getenv("OPENBLAS_NUM_THREADS") : "(unset)",
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "(unset)");
    for (int v = 0; v < 5; v++) {
        for (int it = -1; it < R; it++) {
            memcpy(P, A, sizeof(double) * m * nb);
            const double t0 = now();
            if (v == 0 || v == 4) {
                LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, nb, P, m, tau, work, 64 * nb);
                tov(m, 0, nb, P, m, V);
            } else {
                geqr2(m, h, P, m, tau, work);
                tov(m, 0, h, P, m, V);
                if (v == 1) {
                    const int one = 1, nc = nb - h;
                    for (int c = 0; c < h; c++) {
                        const int mc = m - c;
                        LAPACK_dlarf("L", &mc, &nc, V + (size_t)c * m + c, &one, tau + c,
                                     P + (size_t)h * m + c, &m, work);
                    }
                } else {
                    if (v == 2) {
                        LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', m, h, V, m, tau, T, nb);
                    } else {
                        cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, h, m, 1.0, V, m, 0.0,
                                    S, nb);
                        t_from_s(h, S, nb, tau, T, nb);
                    }
                    /* C2 := (I - V T^T V^T)... dlarfb('L','T','F','C') */
                    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, h, nb - h, m, 1.0, V, m,
                                P + (size_t)h * m, m, 0.0, W, nb);
                    cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, h,
                                nb - h, 1.0, T, nb, W, nb);
                    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nb - h, h, -1.0, V,
                                m, W, nb, 1.0, P + (size_t)h * m, m);
                }
                geqr2(m - h, nb - h, P + (size_t)h * m + h, m, tau + h, work);
                tov(m, h, nb, P, m, V);
            }
            if (v <= 2) {
                LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', m, nb, V, m, tau, T, nb);
            } else {
                cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, nb, m, 1.0, V, m, 0.0, S, nb);
                t_from_s(nb, S, nb, tau, T, nb);
            }
            if (it >= 0) t[it] = now() - t0;
        }
        double e = 0.0, mx = 0.0;
        for (int c = 0; c < nb; c++)
            for (int r = 0; r <= c; r++) {
                if (v == 0) Rold[r + c * nb] = P[r + (size_t)c * m];
                e = fmax(e, fabs(P[r + (size_t)c * m] - Rold[r + c * nb]));
                mx = fmax(mx, fabs(Rold[r + c * nb]));
            }
        qsort(t, R, sizeof *t, cmpd);
        printf("%-6s median %8.3f ms  min %8.3f  max %8.3f   |R - R_old| / max|R| %.2e\n",
               names[v], 1e3 * t[R / 2], 1e3 * t[0], 1e3 * t[R - 1], e / mx);
    }
    return 0;
}
