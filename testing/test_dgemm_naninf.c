/*
 * test_dgemm_naninf.c — NaN and Inf in the inputs give the IEEE result, not a soft-error alarm.
 *
 * A NaN, +Inf or -Inf in op(A), op(B) (or in C with beta != 0): the NaN/Inf pattern of C must
 * be exactly the one cblas_dgemm gives (isnan, isinf and the sign of each infinity), the
 * finite elements must be right (elementwise bound 30 eps (sqrt(k+2)|alpha| |A||B| +
 * 2|beta||C0|)), and the report must say: status 0, detected 0, no correction, and
 * unchecked > 0 (the checks that saw the non-finite inputs were skipped, not failed).
 * Also a huge finite value (1.5e308) whose unscaled checksums would overflow: no alarm, correct
 * result, every check evaluated (unchecked == 0: the sums are formed from scaled elements,
 * issue 7); and an Inf in C with beta = 0, which is overwritten: an all-finite result with every
 * check evaluated (unchecked == 0); and the same value times alpha = 10, whose product overflows:
 * the IEEE result, unchecked > 0 and status FT_ERR_UNCHECKED (the call says it is unverified).
 *
 * Usage: test_dgemm_naninf [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include "testing_util.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0

static ft_device_t g_dev;

enum { IN_A = 0, IN_B = 1, IN_C = 2 };

/* What the report's `unchecked` must say, and whether the reference holds non-finite values. */
enum {
    UNCHK_NONFINITE = 0, /* unchecked > 0; the reference has NaN/Inf (else the test is wrong) */
    UNCHK_OVERFLOW = 1,  /* finite inputs, the product overflows: unchecked > 0, status
                          * FT_ERR_UNCHECKED; the reference has Inf */
    UNCHK_NONE = 2       /* unchecked == 0; the reference is all finite */
};
static const char *in_name[] = {"op(A)", "op(B)", "C"};

typedef struct {
    int where;    /* IN_A, IN_B, IN_C */
    int64_t r, c; /* logical position in op(A) (m x k), op(B) (k x n) or C (m x n) */
    double value;
} special_t;

static void place(char ta, char tb, double *A, int64_t lda, double *B, int64_t ldb, double *C,
                  int64_t ldc, const special_t *s)
{
    if (s->where == IN_A)
        A[(ta == 'N' || ta == 'n') ? TU_IX(s->r, s->c, lda) : TU_IX(s->c, s->r, lda)] = s->value;
    else if (s->where == IN_B)
        B[(tb == 'N' || tb == 'n') ? TU_IX(s->r, s->c, ldb) : TU_IX(s->c, s->r, ldb)] = s->value;
    else C[TU_IX(s->r, s->c, ldc)] = s->value;
}

static void one(ft_context_t *ctx, const char *what, tu_rng_t *rng, char ta, char tb, int64_t m,
                int64_t n, int64_t k, double alpha, double beta, const special_t *sp, int nsp,
                int unchk)
{
    const int64_t nrowa = tu_nrows(ta, m, k), ncola = tu_nrows(ta, k, m);
    const int64_t nrowb = tu_nrows(tb, k, n), ncolb = tu_nrows(tb, n, k);
    const int64_t lda = nrowa, ldb = nrowb, ldc = m;
    double *A = tu_malloc(lda * ncola), *B = tu_malloc(ldb * ncolb), *C0 = tu_malloc(ldc * n);
    double *C = tu_malloc(ldc * n), *R = tu_malloc(ldc * n), *G = tu_malloc(ldc * n);
    double *Aa = tu_malloc(lda * ncola), *Ba = tu_malloc(ldb * ncolb);
    tu_fill(rng, nrowa, ncola, A, lda);
    tu_fill(rng, nrowb, ncolb, B, ldb);
    tu_fill(rng, m, n, C0, ldc);
    for (int s = 0; s < nsp; s++) place(ta, tb, A, lda, B, ldb, C0, ldc, &sp[s]);
    memcpy(C, C0, (size_t)(ldc * n) * sizeof(double));
    memcpy(R, C0, (size_t)(ldc * n) * sizeof(double));
    tu_ref_dgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);
    /* G = |op(A)| |op(B)|: the scale of each element's rounding error */
    for (int64_t p = 0; p < lda * ncola; p++) Aa[p] = fabs(A[p]);
    for (int64_t p = 0; p < ldb * ncolb; p++) Ba[p] = fabs(B[p]);
    tu_ref_dgemm(ta, tb, m, n, k, 1.0, Aa, lda, Ba, ldb, 0.0, G, ldc);

    ft_report_t rep;
    tu_poison_report(&rep); /* every field checked below must come from the call */
    int st = ft_dgemm_ex(ctx, ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, A, (ft_int)lda, B,
                         (ft_int)ldb, beta, C, (ft_int)ldc, &rep);
    int bad0 = (int)tu_failed;
    char where[256];
    snprintf(where, sizeof where, "%s %c%c %lldx%lldx%lld alpha %g beta %g", what, ta, tb,
             (long long)m, (long long)n, (long long)k, alpha, beta);
    /* non-finite inputs: IEEE semantics, status 0; finite inputs whose product overflows: the
     * call says the result is unverified (FT_ERR_UNCHECKED, issue 7) */
    const int want = unchk == UNCHK_OVERFLOW ? FT_ERR_UNCHECKED : 0;
    TU_CHECK(st == want && rep.status == want, "status %d (%s), expected %d: %s", st,
             ft_strerror(st), want, where);
    TU_CHECK(rep.detected == 0 && rep.checksum_errors == 0 && rep.corrected == 0 &&
                 rep.recomputed == 0 && rep.uncorrectable == 0,
             "alarm on non-finite input: detected %lld checksum_errors %lld: %s",
             (long long)rep.detected, (long long)rep.checksum_errors, where);
    TU_CHECK(rep.backend == tu_expected_backend(g_dev), "ran on backend %d: %s", (int)rep.backend,
             where);
    if (unchk == UNCHK_NONE)
        TU_CHECK(rep.unchecked == 0, "unchecked %lld (expected 0): %s", (long long)rep.unchecked,
                 where);
    else
        TU_CHECK(rep.unchecked > 0, "unchecked %lld (expected > 0): %s", (long long)rep.unchecked,
                 where);
    int64_t nan_bad = 0, inf_bad = 0, val_bad = 0, nnonfinite = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double c = C[TU_IX(i, j, ldc)], r = R[TU_IX(i, j, ldc)];
            nnonfinite += !isfinite(r);
            if (isnan(c) != isnan(r)) nan_bad++;
            else if (isinf(c) != isinf(r) || (isinf(r) && signbit(c) != signbit(r))) inf_bad++;
            else if (isfinite(r)) {
                double bound = sqrt((double)k + 2.0) * fabs(alpha) * G[TU_IX(i, j, ldc)];
                if (beta != 0.0) bound += 2.0 * fabs(beta) * fabs(C0[TU_IX(i, j, ldc)]);
                bound *= TOL * tu_eps();
                if (!(fabs(c - r) <= bound)) val_bad++;
            }
        }
    TU_CHECK(nan_bad == 0, "%lld elements differ in NaN-ness from the reference: %s",
             (long long)nan_bad, where);
    TU_CHECK(inf_bad == 0, "%lld elements differ in Inf-ness or sign from the reference: %s",
             (long long)inf_bad, where);
    TU_CHECK(val_bad == 0, "%lld finite elements wrong: %s", (long long)val_bad, where);
    if (unchk != UNCHK_NONE)
        TU_CHECK(nnonfinite > 0, "the reference has no non-finite element (bad test): %s", where);
    else
        TU_CHECK(nnonfinite == 0, "%lld non-finite elements in the reference (bad test): %s",
                 (long long)nnonfinite, where);
    if ((int)tu_failed != bad0) tu_print_report("report", &rep);
    free(A);
    free(B);
    free(C0);
    free(C);
    free(R);
    free(G);
    free(Aa);
    free(Ba);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    ft_context_t *ctx[2] = {NULL, NULL};
    const char *ctxname[2] = {"tile 64", "auto tile"};
    for (int c = 0; c < 2; c++) ctx[c] = tu_make_context(g_dev, c == 0 ? 64 : 0, -1);
    tu_rng_t rng;
    tu_seed(&rng, 4242);
    const int64_t m = 150, n = 140, k = 130;
    static const char pairs[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'C', 'c'}};
    const double vals[] = {NAN, INFINITY, -INFINITY};
    const char *valname[] = {"NaN", "+Inf", "-Inf"};
    char what[160];
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 4; p++)
            for (int b = 0; b < 2; b++) {
                const char ta = pairs[p][0], tb = pairs[p][1];
                const double beta = b ? 0.5 : 0.0, alpha = p % 2 ? -0.7 : 1.0;
                /* one special value in op(A), op(B), or C (beta != 0 only) */
                for (int w = IN_A; w <= IN_C; w++) {
                    if (w == IN_C && beta == 0.0) continue;
                    for (int v = 0; v < 3; v++) {
                        special_t s = {w, 0, 0, vals[v]};
                        s.r = w == IN_B ? 77 : 70; /* op(A): row 70, op(B): row 77 of k */
                        s.c = w == IN_A ? 100 : 66;
                        snprintf(what, sizeof what, "%s, %s in %s at (%lld,%lld)", ctxname[c],
                                 valname[v], in_name[w], (long long)s.r, (long long)s.c);
                        one(ctx[c], what, &rng, ta, tb, m, n, k, alpha, beta, &s, 1,
                            UNCHK_NONFINITE);
                    }
                }
                /* several: +Inf and -Inf in one row of op(A) (NaN or Inf by column), a NaN in
                 * op(B), an Inf in another row of op(A) meeting an Inf of op(B) */
                special_t s[5] = {{IN_A, 3, 5, INFINITY},
                                  {IN_A, 3, 120, -INFINITY},
                                  {IN_B, 40, 139, NAN},
                                  {IN_A, 149, 40, INFINITY},
                                  {IN_B, 40, 0, -INFINITY}};
                snprintf(what, sizeof what, "%s, mixed NaN/+-Inf in A and B", ctxname[c]);
                one(ctx[c], what, &rng, ta, tb, m, n, k, alpha, beta, s, 5, UNCHK_NONFINITE);
                /* a huge finite value: plain sums would overflow, the product does not */
                special_t h = {IN_A, 20, 30, 1.5e308};
                snprintf(what, sizeof what, "%s, 1.5e308 in op(A)", ctxname[c]);
                one(ctx[c], what, &rng, ta, tb, m, n, k, 1.0, beta, &h, 1, UNCHK_NONE);
                /* the same times alpha = 10: the product overflows (the result cannot be
                 * represented), so its checks cannot be evaluated and the call says so */
                snprintf(what, sizeof what, "%s, 1.5e308 in op(A), alpha 10", ctxname[c]);
                one(ctx[c], what, &rng, ta, tb, m, n, k, 10.0, beta, &h, 1, UNCHK_OVERFLOW);
                /* an Inf in C with beta = 0 is ignored: all finite, nothing skipped */
                if (beta == 0.0) {
                    special_t ci = {IN_C, 10, 10, INFINITY};
                    snprintf(what, sizeof what, "%s, Inf in C with beta = 0", ctxname[c]);
                    one(ctx[c], what, &rng, ta, tb, m, n, k, alpha, 0.0, &ci, 1, UNCHK_NONE);
                }
            }
    ft_context_destroy(ctx[0]);
    ft_context_destroy(ctx[1]);
    return tu_finish();
}
