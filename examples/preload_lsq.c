/*
 * preload_lsq.c — a plain LAPACK program (no ftla in it) for docs/interposer.md: the least
 * squares problem min ||A x - b|| with a known solution, solved by LAPACK's dgels_. Build it
 * against plain LAPACK and run it as it is, or under the interposer:
 *
 *   cc preload_lsq.c -o preload_lsq -llapack -lblas -lm
 *   ./preload_lsq
 *   LD_PRELOAD=libftla_preload.so FTLA_VERBOSE=1 FTLA_INJECT=dgeqrf:trailing:step=2:bit=60 \
 *       ./preload_lsq
 *
 *   preload_lsq [M N [SEED]]   (default 600 x 400, seed 1)
 *
 * A is M x N random (uniform in [-1, 1)), x_true random, b = A x_true; the program prints the
 * relative error ||x - x_true||_inf / ||x_true||_inf and exits 0 when it is below 1e-10 (the
 * problem is consistent and well conditioned: LAPACK reaches ~1e-14), else prints WRONG and
 * exits 1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void dgels_(const char *trans, const int *m, const int *n, const int *nrhs, double *A,
            const int *lda, double *B, const int *ldb, double *work, const int *lwork, int *info,
            size_t ltrans);

static uint64_t rng;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-52 - 1.0;
}

int main(int argc, char **argv)
{
    int m = argc > 2 ? atoi(argv[1]) : 600, n = argc > 2 ? atoi(argv[2]) : 400, one = 1, info;
    rng = 0x9E3779B97F4A7C15ull * (uint64_t)(argc > 3 ? atoi(argv[3]) : 1);
    if (m < n || n < 1) {
        fprintf(stderr, "usage: preload_lsq [M N [SEED]] with M >= N >= 1\n");
        return 2;
    }
    double *A = malloc(sizeof(double) * m * n), *b = malloc(sizeof(double) * m);
    double *x = malloc(sizeof(double) * n), q;
    if (!A || !b || !x) return 2;
    for (int i = 0; i < m * n; i++) A[i] = urand();
    for (int j = 0; j < n; j++) x[j] = urand();
    for (int i = 0; i < m; i++) { /* b = A x_true */
        b[i] = 0.0;
        for (int j = 0; j < n; j++) b[i] += A[i + (size_t)j * m] * x[j];
    }
    int lwork = -1;
    dgels_("N", &m, &n, &one, A, &m, b, &m, &q, &lwork, &info, 1);
    lwork = (int)q;
    double *work = malloc(sizeof(double) * lwork);
    if (!work) return 2;
    dgels_("N", &m, &n, &one, A, &m, b, &m, work, &lwork, &info, 1);
    double err = 0.0, xn = 0.0;
    for (int j = 0; j < n; j++) {
        err = fmax(err, fabs(b[j] - x[j]));
        xn = fmax(xn, fabs(x[j]));
    }
    err /= xn;
    const int ok = info == 0 && err < 1e-10;
    printf("dgels %d x %d: info %d, ||x - x_true|| / ||x_true|| = %.3e %s\n", m, n, info, err,
           ok ? "ok" : "WRONG");
    free(A), free(b), free(x), free(work);
    return ok ? 0 : 1;
}
