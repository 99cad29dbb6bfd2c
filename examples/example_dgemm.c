/*
 * example_dgemm.c — how to call ftla from C.
 *
 *   1. ft_dgemm: a drop-in for BLAS dgemm (LAPACK argument order, column-major), on the default
 *      context, which is configured from the FTLA_* environment variables.
 *   2. ft_dgemm_ex: an explicit context, a policy change, and the report of what the protection
 *      did (here with one planned fault, to have something to report).
 *
 * Build: cc example_dgemm.c -lftla -llapacke -lopenblas -lm -lpthread (or pkg-config ftla).
 * Every result is compared with a plain triple loop; the program exits 1 on any mismatch.
 */
#include "ftla.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Column-major element (i, j) of a matrix with leading dimension ld. */
#define IX(i, j, ld) ((size_t)(i) + (size_t)(j) * (size_t)(ld))

/* max |C - (alpha*op(A)*op(B) + beta*C0)| / (componentwise bound), by a triple loop.
 * A result is right when this is <= 1: both sides then differ by less than 2*gamma_{k+2} of
 * |alpha||op(A)||op(B)| + |beta||C0|. */
static double check(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda,
                    const double *B, int ldb, double beta, const double *C0, const double *C,
                    int ldc)
{
    double worst = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0.0, a = 0.0;
            for (int l = 0; l < k; l++) {
                double x = ta == 'N' ? A[IX(i, l, lda)] : A[IX(l, i, lda)];
                double y = tb == 'N' ? B[IX(l, j, ldb)] : B[IX(j, l, ldb)];
                s += x * y;
                a += fabs(x * y);
            }
            double ref = alpha * s + beta * C0[IX(i, j, ldc)];
            double bound = 2.0 * (k + 2) * DBL_EPSILON *
                               (fabs(alpha) * a + fabs(beta) * fabs(C0[IX(i, j, ldc)])) +
                           DBL_MIN;
            double r = fabs(C[IX(i, j, ldc)] - ref) / bound;
            if (!(r <= worst)) worst = r; /* NaN counts as worst */
        }
    return worst;
}

static void fill(double *X, size_t len, unsigned *state)
{
    for (size_t i = 0; i < len; i++) {
        *state = *state * 1664525u + 1013904223u; /* small LCG: reproducible, portable */
        X[i] = (double)(*state >> 8) / 8388608.0 - 1.0;
    }
}

int main(void)
{
    const int m = 300, n = 200, k = 150;
    const int lda = m + 3, ldb = k, ldc = m; /* lda > m is allowed, as in BLAS */
    unsigned seed = 2024;
    double *A = malloc(IX(0, k, lda) * sizeof *A), *B = malloc(IX(0, n, ldb) * sizeof *B);
    double *C = malloc(IX(0, n, ldc) * sizeof *C), *C0 = malloc(IX(0, n, ldc) * sizeof *C0);
    if (!A || !B || !C || !C0) return 1;
    fill(A, IX(0, k, lda), &seed);
    fill(B, IX(0, n, ldb), &seed);
    int fails = 0;

    // 1. Plain call: C := A*B. Same arguments as dgemm; returns 0, -i (argument i illegal) or an
    //    ft_status_t (< -1000). beta = 0: C is output only.
    int info = ft_dgemm('N', 'N', m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc);
    if (info != 0) {
        fprintf(stderr, "ft_dgemm: %s\n", ft_strerror(info));
        return 1;
    }
    double r = check('N', 'N', m, n, k, 1.0, A, lda, B, ldb, 0.0, C, C, ldc);
    printf("ft_dgemm     NN: error / bound = %.2e  %s\n", r, r <= 1.0 ? "ok" : "failed");
    fails += !(r <= 1.0);

    // 2. Explicit context: AUTO = the GPU when there is one and the product is large enough.
    ft_context_t *ctx = NULL;
    if ((info = ft_context_create(&ctx, FT_DEVICE_AUTO)) != 0) {
        fprintf(stderr, "ft_context_create: %s\n", ft_strerror(info));
        return 1;
    }
    //    Policy change: read the defaults, modify, write back (unset fields keep their defaults).
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.tile = 64; /* verification tiles of 64 x 64 (default: automatic) */
    pol.tol = 4.0; /* threshold safety factor (default 2, see docs/thresholds.md) */
    ft_context_set_policy(ctx, &pol);
    //    One planned fault, to see the report at work: add 1e-3 to C(7, 11) during the next call.
    ft_fault_t f = {.region = FT_REGION_C,
                    .row = 7,
                    .col = 11,
                    .bit = -1,
                    .value = 1e-3,
                    .call = -1,
                    .step = -1};
    ft_inject_add(ctx, &f);

    //    C := 0.5 * A * Bt^T + 2 * C, with Bt stored n x k (transb = 'T'); beta != 0 makes C an
    //    input too, so keep a copy C0 for the check.
    const int ldbt = n;
    double *Bt = malloc(IX(0, k, ldbt) * sizeof *Bt);
    if (!Bt) return 1;
    fill(Bt, IX(0, k, ldbt), &seed);
    for (size_t i = 0; i < IX(0, n, ldc); i++) C0[i] = C[i];
    ft_report_t rep;
    info = ft_dgemm_ex(ctx, 'N', 'T', m, n, k, 0.5, A, lda, Bt, ldbt, 2.0, C, ldc, &rep);
    char line[512];
    printf("report: %s\n", ft_report_string(&rep, line, sizeof line));
    if (info == FT_ERR_UNCORRECTABLE) {
        // Never silent: the affected tiles are in rep.events (FT_EVENT_UNCORRECTABLE).
        fprintf(stderr, "ft_dgemm_ex: %s\n", ft_strerror(info));
        fails++;
    } else if (info != 0) {
        fprintf(stderr, "ft_dgemm_ex: %s\n", ft_strerror(info));
        return 1;
    }
    for (int e = 0; e < rep.nevents; e++)
        if (rep.events[e].kind == FT_EVENT_CORRECTED)
            printf("  corrected C(%lld,%lld): %.17g -> %.17g\n", (long long)rep.events[e].row,
                   (long long)rep.events[e].col, rep.events[e].before, rep.events[e].after);
    r = check('N', 'T', m, n, k, 0.5, A, lda, Bt, ldbt, 2.0, C0, C, ldc);
    printf("ft_dgemm_ex  NT: error / bound = %.2e  %s (backend %s, %lld corrected)\n", r,
           r <= 1.0 ? "ok" : "failed", rep.backend == FT_DEVICE_CUDA ? "cuda" : "cpu",
           (long long)rep.corrected);
    fails += !(r <= 1.0) || rep.corrected != 1;

    ft_context_destroy(ctx);
    free(A);
    free(B);
    free(Bt);
    free(C);
    free(C0);
    printf("%s\n", fails ? "example_dgemm: FAILED" : "example_dgemm: OK");
    return fails ? 1 : 0;
}
