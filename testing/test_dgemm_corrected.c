/*
 * test_dgemm_corrected.c — a corrected element is as accurate as an uncorrupted one (issue 7,
 * hole 4): ft_dgemm recomputes it as its own dot product. Each case injects one fault into C
 * (exponent and mantissa flips, an additive value) and checks every element of C with the
 * reference BLAS test program's per-element measure (DMMCH in dblat3):
 *     |C(i,j) - Cref(i,j)| / (eps * (|alpha| sum_l |a_il b_lj| + |beta| |C0(i,j)|)) < 16,
 * with Cref accumulated in long double. A value rebuilt from the checksums carried an error of
 * about u times the whole check's sum (ratio ~ hundreds). Argument: cpu or cuda.
 */
#include "testing_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THRESH 16.0

static int fault_case(ft_device_t dev, tu_rng_t *rng, char ta, char tb, int m, int n, int k,
                      double alpha, double beta, int bit, double add, const char *what)
{
    const int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n;
    double *A = malloc(sizeof(double) * lda * (ta == 'N' ? k : m));
    double *B = malloc(sizeof(double) * ldb * (tb == 'N' ? n : k));
    double *C0 = malloc(sizeof(double) * m * n), *C = malloc(sizeof(double) * m * n);
    tu_fill(rng, lda, ta == 'N' ? k : m, A, lda);
    tu_fill(rng, ldb, tb == 'N' ? n : k, B, ldb);
    tu_fill(rng, m, n, C0, m);
    const int fi = tu_int(rng, 0, m - 1), fj = tu_int(rng, 0, n - 1);
    /* graded data: the faulted element's row of op(A) (and of C0) is 1e-8 times the others, so
     * a value rebuilt from its column check (whose sum is dominated by the other rows) is far
     * less accurate than the element's own dot product */
    for (int l = 0; l < k; l++) {
        if (ta == 'N') A[fi + (size_t)l * lda] *= 1e-8;
        else A[l + (size_t)fi * lda] *= 1e-8;
    }
    for (int j = 0; j < n; j++) C0[fi + (size_t)j * m] *= 1e-8;
    memcpy(C, C0, sizeof(double) * m * n);
    ft_context_t *ctx;
    if (ft_context_create(&ctx, dev) != 0) return 77;
    ft_policy_t p;
    ft_context_get_policy(ctx, &p);
    p.tile = 512;
    p.backup_c = 1;
    ft_context_set_policy(ctx, &p);
    ft_fault_t f = {.region = FT_REGION_C, .row = fi, .col = fj, .bit = bit, .value = add,
                    .call = -1, .step = -1};
    ft_inject_add(ctx, &f);
    ft_report_t rep;
    tu_poison_report(&rep);
    int st = ft_dgemm_ex(ctx, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, m, &rep);
    double worst = 0.0, at = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            long double s = 0.0L;
            double mag = 0.0;
            for (int l = 0; l < k; l++) {
                double a = ta == 'N' ? A[i + (size_t)l * lda] : A[l + (size_t)i * lda];
                double b = tb == 'N' ? B[l + (size_t)j * ldb] : B[j + (size_t)l * ldb];
                s += (long double)a * b;
                mag += fabs(a * b);
            }
            long double ref = (long double)alpha * s + (long double)beta * C0[i + (size_t)j * m];
            double g = fabs(alpha) * mag + fabs(beta) * fabs(C0[i + (size_t)j * m]);
            double r = g > 0 ? (double)fabsl(C[i + (size_t)j * m] - ref) / (2.220446049250313e-16 * g)
                             : 0.0;
            if (!(r <= worst)) {
                worst = r;
                at = i == fi && j == fj;
            }
        }
    TU_CHECK(st == 0 && rep.injected == 1 && rep.corrected == 1 && rep.uncorrectable == 0,
             "%s: status %d injected %lld corrected %lld uncorrectable %lld", what, st,
             (long long)rep.injected, (long long)rep.corrected, (long long)rep.uncorrectable);
    TU_CHECK(worst < THRESH, "%s: worst element ratio %.3g (%s) >= %g", what, worst,
             at ? "the corrected element" : "another element", THRESH);
    free(A), free(B), free(C0), free(C);
    ft_context_destroy(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    ft_device_t dev = tu_device_from_args(argc, argv);
    tu_rng_t rng;
    tu_seed(&rng, 4242);
    struct {
        char ta, tb;
        int m, n, k;
        double alpha, beta;
        int bit;
        double add;
        const char *what;
    } cs[] = {
        {'N', 'N', 300, 260, 1024, 1.0, 0.0, 62, 0.0, "NN beta 0, exponent bit 62"},
        {'N', 'N', 300, 260, 1024, 1.0, 0.0, -1, 1e-2, "NN beta 0, additive 1e-2"},
        {'T', 'N', 200, 300, 800, -0.7, 1.0, 61, 0.0, "TN beta 1, exponent bit 61"},
        {'N', 'T', 257, 129, 640, 2.5, -0.5, -1, 0.5, "NT beta -0.5, additive 0.5"},
        {'T', 'T', 130, 140, 999, 1.0, 0.3, 62, 0.0, "TT beta 0.3, exponent bit 62"},
        {'N', 'N', 128, 128, 2048, 1.0, 0.0, -1, 1e3, "NN beta 0, additive 1e3"},
        {'N', 'N', 300, 300, 700, 1.0, 0.5, -1, 0.3, "NN beta 0.5, additive 0.3"},
        {'T', 'N', 280, 200, 900, 1.0, 0.0, -1, -2.0, "TN beta 0, additive -2"},
        {'N', 'N', 128, 128, 2048, 1.0, 2.0, -1, -7.5, "NN beta 2, additive -7.5"},
    };
    for (unsigned c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        int r = fault_case(dev, &rng, cs[c].ta, cs[c].tb, cs[c].m, cs[c].n, cs[c].k, cs[c].alpha,
                           cs[c].beta, cs[c].bit, cs[c].add, cs[c].what);
        if (r == 77) return 77;
    }
    return tu_finish();
}
