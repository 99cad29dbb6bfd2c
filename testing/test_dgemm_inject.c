/*
 * test_dgemm_inject.c — ft_dgemm detects and corrects the soft errors injected into it.
 *
 * Faults are planned with ft_inject_add on an explicit context and applied by ft_dgemm "during
 * the computation" (FT_REGION_C: the result after the product; FT_REGION_CHECKSUM: the
 * predicted row checksums P, an m x 2nb matrix). Every corrected result must match the
 * fault-free result of a separate ft_dgemm call to error ratio < 30, and the report must count
 * and list what happened:
 *   - single bit flips at bits 63 (sign), 62, 60, 55, 52 (exponent), 51, 50, 48 (high
 *     mantissa), at chosen elements (inside, and in the partial last tile) and random ones,
 *     square and rectangular sizes with several tiles (tile 64) and with the automatic tile;
 *   - 2 and 3 errors in one row of a tile, 2 and 3 in one column (corrected in place);
 *   - a non-collinear pattern in one tile (recomputed), for beta = 0 and beta != 0 (backup of
 *     C on host data by default); without the backup (policy.backup_c = 0), beta != 0: on the
 *     CPU a pattern in two columns is located by the weighted checks and corrected in place and
 *     a 3 x 3 pattern is reported (FT_ERR_UNCORRECTABLE, its tile named, the other tiles
 *     right); host data on CUDA keeps the caller's C as the backup, so both are recomputed;
 *   - errors in different tiles, each corrected;
 *   - a corrupted checksum (a bit flip, or a prediction made Inf): recognised as exactly one
 *     checksum error, nothing corrected or recomputed, C bit-identical to the fault-free result;
 *   - additive faults (bit = -1, value).
 * Each case has one outcome, decided by the fault (docs/dgemm.md, docs/fault-model.md): the
 * backend is the one asked for, and no case accepts "corrected or reported".
 *
 * Usage: test_dgemm_inject [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include "testing_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0

static ft_device_t g_dev;

/* One problem: operands, the input C0 and the fault-free result Cff. */
typedef struct {
    const char *name;
    ft_context_t *ctx;
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
    double *A, *B, *C0, *Cff, *C;
    double den; /* the error-ratio denominator: element tolerance = TOL * den */
} prob_t;

static ft_context_t *make_ctx(int tile, int backup_c)
{
    ft_context_t *ctx = tu_make_context(g_dev, tile, backup_c);
    ft_inject_seed(ctx, 7);
    return ctx;
}

static void prob_init(prob_t *p, const char *name, ft_context_t *ctx, tu_rng_t *rng, char ta,
                      char tb, int64_t m, int64_t n, int64_t k, double alpha, double beta)
{
    memset(p, 0, sizeof *p);
    p->name = name, p->ctx = ctx, p->ta = ta, p->tb = tb, p->m = m, p->n = n, p->k = k;
    p->alpha = alpha, p->beta = beta;
    const int64_t nrowa = tu_nrows(ta, m, k), ncola = tu_nrows(ta, k, m);
    const int64_t nrowb = tu_nrows(tb, k, n), ncolb = tu_nrows(tb, n, k);
    p->lda = nrowa + 1, p->ldb = nrowb, p->ldc = m + 3;
    p->A = tu_malloc(p->lda * ncola);
    p->B = tu_malloc(p->ldb * ncolb);
    p->C0 = tu_malloc(p->ldc * n);
    p->Cff = tu_malloc(p->ldc * n);
    p->C = tu_malloc(p->ldc * n);
    tu_set_all(p->lda, ncola, p->A, 0.5);
    tu_fill(rng, nrowa, ncola, p->A, p->lda);
    tu_fill(rng, nrowb, ncolb, p->B, p->ldb);
    tu_set_all(p->ldc, n, p->C0, -3.0);
    tu_fill(rng, m, n, p->C0, p->ldc);

    /* the fault-free result: a separate ft_dgemm call without faults */
    memcpy(p->Cff, p->C0, (size_t)(p->ldc * n) * sizeof(double));
    ft_report_t rep;
    tu_poison_report(&rep);
    int st = ft_dgemm_ex(ctx, ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, p->A, (ft_int)p->lda,
                         p->B, (ft_int)p->ldb, beta, p->Cff, (ft_int)p->ldc, &rep);
    TU_CHECK(st == 0 && rep.status == 0 && rep.detected == 0 && rep.injected == 0 &&
                 rep.checksum_errors == 0 && rep.unchecked == 0,
             "%s: fault-free call: status %d detected %lld", name, st, (long long)rep.detected);
    TU_CHECK(rep.backend == tu_expected_backend(g_dev), "%s: ran on backend %d, asked %s", name,
             (int)rep.backend, tu_device_name(g_dev));
    /* ... which is itself right */
    double *R = tu_malloc(p->ldc * n);
    memcpy(R, p->C0, (size_t)(p->ldc * n) * sizeof(double));
    tu_ref_dgemm(ta, tb, m, n, k, alpha, p->A, p->lda, p->B, p->ldb, beta, R, p->ldc);
    double ratio = tu_gemm_ratio(ta, tb, m, n, k, alpha, p->A, p->lda, p->B, p->ldb, beta, p->C0,
                                 p->ldc, p->Cff, p->ldc, R, p->ldc);
    TU_CHECK(ratio < TOL, "%s: fault-free result error ratio %.3e", name, ratio);
    free(R);
    p->den = (sqrt((double)k + 2.0) * fabs(alpha) * tu_opnorm1(ta, m, k, p->A, p->lda) *
                  tu_opnorm1(tb, k, n, p->B, p->ldb) +
              2.0 * fabs(beta) * tu_dlange('1', m, n, p->C0, p->ldc)) *
             tu_eps();
}

static void prob_free(prob_t *p)
{
    free(p->A);
    free(p->B);
    free(p->C0);
    free(p->Cff);
    free(p->C);
}

/* Plan the faults, run ft_dgemm on a fresh copy of C0 into p->C. Returns the status. */
static int run(prob_t *p, const ft_fault_t *f, int nf, ft_report_t *rep)
{
    memcpy(p->C, p->C0, (size_t)(p->ldc * p->n) * sizeof(double));
    for (int i = 0; i < nf; i++) {
        int st = ft_inject_add(p->ctx, &f[i]);
        TU_CHECK(st == 0, "%s: ft_inject_add: %s", p->name, ft_strerror(st));
    }
    tu_poison_report(rep);
    int st =
        ft_dgemm_ex(p->ctx, p->ta, p->tb, (ft_int)p->m, (ft_int)p->n, (ft_int)p->k, p->alpha, p->A,
                    (ft_int)p->lda, p->B, (ft_int)p->ldb, p->beta, p->C, (ft_int)p->ldc, rep);
    ft_inject_clear(p->ctx);
    return st;
}

static double ratio_vs_faultfree(const prob_t *p)
{
    return tu_gemm_ratio(p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->A, p->lda, p->B, p->ldb,
                         p->beta, p->C0, p->ldc, p->C, p->ldc, p->Cff, p->ldc);
}

static ft_fault_t flip_at(int64_t row, int64_t col, int bit)
{
    return (ft_fault_t){.region = FT_REGION_C,
                        .row = row,
                        .col = col,
                        .bit = bit,
                        .value = 0.0,
                        .call = -1,
                        .step = -1};
}

static ft_fault_t add_at(int64_t row, int64_t col, double value)
{
    return (ft_fault_t){.region = FT_REGION_C,
                        .row = row,
                        .col = col,
                        .bit = -1,
                        .value = value,
                        .call = -1,
                        .step = -1};
}

static double flip_bit(double x, int bit)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    u ^= (uint64_t)1 << bit;
    memcpy(&x, &u, sizeof x);
    return x;
}

enum { FIX_INPLACE = 0, FIX_RECOMPUTE = 1 };

/*
 * Every fault of f[] into C must be detected and corrected (in place or by recomputing its
 * tile, as `how` says), C must match the fault-free result, and the report's events must list
 * each injected position (and, in place, its correction back to the fault-free value).
 */
static void expect_corrected(prob_t *p, const char *what, const ft_fault_t *f, int nf, int how)
{
    ft_report_t rep;
    int st = run(p, f, nf, &rep);
    int bad0 = (int)tu_failed;
    char where[256];
    snprintf(where, sizeof where, "%s, %s", p->name, what);
    TU_CHECK(st == 0 && rep.status == 0, "status %d report %d (%s): %s", st, rep.status,
             ft_strerror(st), where);
    TU_CHECK(rep.injected == nf, "injected %lld != %d: %s", (long long)rep.injected, nf, where);
    TU_CHECK(rep.detected == nf, "detected %lld != %d: %s", (long long)rep.detected, nf, where);
    TU_CHECK(rep.corrected == nf, "corrected %lld != %d: %s", (long long)rep.corrected, nf, where);
    TU_CHECK(rep.uncorrectable == 0, "uncorrectable %lld: %s", (long long)rep.uncorrectable, where);
    TU_CHECK(rep.checksum_errors == 0, "checksum_errors %lld: %s", (long long)rep.checksum_errors,
             where);
    TU_CHECK(rep.backend == tu_expected_backend(g_dev), "ran on backend %d: %s", (int)rep.backend,
             where);
    if (how == FIX_INPLACE)
        TU_CHECK(rep.recomputed == 0 && rep.located == nf,
                 "recomputed %lld located %lld (expected in-place correction): %s",
                 (long long)rep.recomputed, (long long)rep.located, where);
    else /* every FIX_RECOMPUTE case puts its faults into one tile */
        TU_CHECK(rep.recomputed == 1 && rep.located == 0,
                 "recomputed %lld located %lld (expected one tile recomputed): %s",
                 (long long)rep.recomputed, (long long)rep.located, where);
    double ratio = ratio_vs_faultfree(p);
    TU_CHECK(ratio < TOL, "error ratio vs fault-free %.3e: %s", ratio, where);

    /* events: the injected positions, the flipped values, the corrections */
    int ninj = 0;
    for (int e = 0; e < rep.nevents; e++) {
        const ft_event_t *ev = &rep.events[e];
        if (ev->kind != FT_EVENT_INJECTED) continue;
        ninj++;
        TU_CHECK(ev->region == FT_REGION_C && ev->row >= 0 && ev->row < p->m && ev->col >= 0 &&
                     ev->col < p->n,
                 "injected event region %d at (%lld,%lld): %s", (int)ev->region, (long long)ev->row,
                 (long long)ev->col, where);
        if (ev->row < 0 || ev->row >= p->m || ev->col < 0 || ev->col >= p->n) continue;
        double ff = p->Cff[TU_IX(ev->row, ev->col, p->ldc)];
        TU_CHECK(fabs(ev->before - ff) <= TOL * p->den,
                 "injected event before %.17g, fault-free %.17g: %s", ev->before, ff, where);
        if (how == FIX_INPLACE) {
            int c = tu_find_event(&rep, FT_EVENT_CORRECTED, ev->row, ev->col);
            TU_CHECK(c >= 0, "no corrected event at (%lld,%lld): %s", (long long)ev->row,
                     (long long)ev->col, where);
            if (c >= 0)
                TU_CHECK(fabs(rep.events[c].after - ff) <= TOL * p->den,
                         "corrected (%lld,%lld) to %.17g, fault-free %.17g: %s", (long long)ev->row,
                         (long long)ev->col, rep.events[c].after, ff, where);
        }
    }
    TU_CHECK(ninj == nf, "%d injected events != %d: %s", ninj, nf, where);
    for (int i = 0; i < nf; i++) {
        if (f[i].row < 0 || f[i].col < 0) continue;
        int e = tu_find_event(&rep, FT_EVENT_INJECTED, f[i].row, f[i].col);
        TU_CHECK(e >= 0, "no injected event at (%lld,%lld): %s", (long long)f[i].row,
                 (long long)f[i].col, where);
        if (e >= 0 && f[i].bit >= 0) {
            double want = flip_bit(rep.events[e].before, f[i].bit);
            TU_CHECK(memcmp(&rep.events[e].after, &want, sizeof want) == 0,
                     "event after %.17g is not bit %d of %.17g flipped: %s", rep.events[e].after,
                     f[i].bit, rep.events[e].before, where);
        }
    }
    if (how == FIX_RECOMPUTE) {
        int nrec = 0;
        for (int e = 0; e < rep.nevents; e++) nrec += rep.events[e].kind == FT_EVENT_RECOMPUTED;
        TU_CHECK(nrec >= 1, "no recomputed event: %s", where);
    }
    if ((int)tu_failed != bad0) tu_print_report(what, &rep);
}

static void single_flips(prob_t *p, tu_rng_t *rng)
{
    static const int bits[] = {63, 62, 60, 55, 52, 51, 50, 48};
    const int64_t pos[][2] = {
        {p->m / 3, p->n / 2}, {p->m - 1, p->n - 1}, {0, p->n - 1}, {-1, -1}, {-1, -1}};
    char what[128];
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
        for (size_t q = 0; q < sizeof pos / sizeof pos[0]; q++) {
            ft_fault_t f = flip_at(pos[q][0], pos[q][1], bits[b]);
            snprintf(what, sizeof what, "single flip bit %d at (%lld,%lld)", bits[b],
                     (long long)pos[q][0], (long long)pos[q][1]);
            expect_corrected(p, what, &f, 1, FIX_INPLACE);
        }
    /* additive faults, large and small (still far above the rounding threshold) */
    ft_fault_t f = add_at(p->m / 2, p->n / 3, 0.75);
    expect_corrected(p, "additive +0.75", &f, 1, FIX_INPLACE);
    f = add_at(-1, -1, -1e6);
    expect_corrected(p, "additive -1e6 at a random element", &f, 1, FIX_INPLACE);
    f = add_at(tu_int(rng, 0, (int)p->m - 1), tu_int(rng, 0, (int)p->n - 1), 1e-3);
    expect_corrected(p, "additive 1e-3", &f, 1, FIX_INPLACE);
}

/* Multi-error patterns for tile 64 (m, n >= 200). */
static void patterns(prob_t *p)
{
    ft_fault_t f[4];
    /* 2 and 3 errors in one row of tile (1,1), different columns */
    f[0] = flip_at(70, 66, 60), f[1] = flip_at(70, 100, 55), f[2] = flip_at(70, 127, 50);
    expect_corrected(p, "2 errors in one tile row", f, 2, FIX_INPLACE);
    expect_corrected(p, "3 errors in one tile row", f, 3, FIX_INPLACE);
    /* 2 and 3 errors in one column of tile (1,2) */
    f[0] = flip_at(66, 140, 62), f[1] = flip_at(101, 140, 52), f[2] = flip_at(127, 140, 48);
    expect_corrected(p, "2 errors in one tile column", f, 2, FIX_INPLACE);
    expect_corrected(p, "3 errors in one tile column", f, 3, FIX_INPLACE);
    /* not on one line: the tile is recomputed */
    f[0] = flip_at(70, 66, 58), f[1] = flip_at(100, 101, 51);
    expect_corrected(p, "non-collinear pair in one tile", f, 2, FIX_RECOMPUTE);
    /* errors in different tiles, each corrected on its own */
    f[0] = flip_at(10, 10, 61), f[1] = flip_at(100, 140, 49), f[2] = flip_at(p->m - 1, 70, 63),
    f[3] = flip_at(130, p->n - 1, 53);
    expect_corrected(p, "4 errors in 4 tiles", f, 4, FIX_INPLACE);
}

/*
 * A corrupted predicted checksum P(row, col) (column 2J: the plain check of column block J,
 * 2J+1: its weighted check): a bit flip (bit >= 0) or an additive value (bit = -1; Inf and NaN
 * included). Exactly one of that row's two checks fails and no column check does: one checksum
 * error (with its event at that row), nothing detected, corrected or recomputed, no check
 * skipped (a prediction that is not finite under a finite threshold is a corrupted checksum,
 * not an unverifiable check: docs/dgemm.md), and C bit-identical to the fault-free result.
 */
static void checksum_fault(prob_t *p, int64_t row, int64_t col, int bit, double value)
{
    ft_fault_t f = {.region = FT_REGION_CHECKSUM,
                    .row = row,
                    .col = col,
                    .bit = bit,
                    .value = value,
                    .call = -1,
                    .step = -1};
    ft_report_t rep;
    int st = run(p, &f, 1, &rep);
    int bad0 = (int)tu_failed;
    char where[256];
    if (bit >= 0)
        snprintf(where, sizeof where, "%s, checksum P(%lld,%lld) bit %d", p->name, (long long)row,
                 (long long)col, bit);
    else
        snprintf(where, sizeof where, "%s, checksum P(%lld,%lld) + %g", p->name, (long long)row,
                 (long long)col, value);
    TU_CHECK(st == 0 && rep.status == 0, "status %d: %s", st, where);
    TU_CHECK(rep.injected == 1, "injected %lld: %s", (long long)rep.injected, where);
    TU_CHECK(rep.checksum_errors == 1, "checksum_errors %lld (expected 1): %s",
             (long long)rep.checksum_errors, where);
    TU_CHECK(rep.detected == 0 && rep.located == 0 && rep.corrected == 0 && rep.recomputed == 0 &&
                 rep.uncorrectable == 0,
             "detected %lld corrected %lld recomputed %lld uncorrectable %lld: %s",
             (long long)rep.detected, (long long)rep.corrected, (long long)rep.recomputed,
             (long long)rep.uncorrectable, where);
    TU_CHECK(rep.unchecked == 0, "unchecked %lld (a corrupted checksum is not unverifiable): %s",
             (long long)rep.unchecked, where);
    TU_CHECK(memcmp(p->C, p->Cff, (size_t)(p->ldc * p->n) * sizeof(double)) == 0,
             "C differs from the fault-free result (error ratio %.3e): %s", ratio_vs_faultfree(p),
             where);
    int e = tu_find_event(&rep, FT_EVENT_INJECTED, row, col);
    TU_CHECK(e >= 0 && rep.events[e].region == FT_REGION_CHECKSUM,
             "no injected checksum event: %s", where);
    e = tu_find_event(&rep, FT_EVENT_CHECKSUM, row, -1);
    TU_CHECK(e >= 0, "no checksum event at row %lld: %s", (long long)row, where);
    if ((int)tu_failed != bad0) tu_print_report("checksum fault", &rep);
}

int main(int argc, char **argv)
{
    g_dev = tu_device_from_args(argc, argv);
    ft_context_t *c64 = make_ctx(64, -1), *cauto = make_ctx(0, -1), *cnobackup = make_ctx(64, 0);
    tu_rng_t rng;
    tu_seed(&rng, 31337);
    prob_t p;

    /* square, tile 64 (4 x 4 tiles, the last ones partial), beta != 0 */
    prob_init(&p, "NN 200x200x200 beta 0.3 tile 64", c64, &rng, 'N', 'N', 200, 200, 200, 1.0, 0.3);
    single_flips(&p, &rng);
    patterns(&p);
    checksum_fault(&p, 70, 2 * 1, 60, 0.0);      /* plain check of block 1 */
    checksum_fault(&p, 150, 2 * 2 + 1, 57, 0.0); /* weighted check of block 2 */
    checksum_fault(&p, 199, 2 * 3, 61, 0.0);     /* the partial last block */
    checksum_fault(&p, 100, 2 * 1 + 1, -1, INFINITY);
    checksum_fault(&p, 30, 2 * 0, -1, NAN);
    prob_free(&p);

    /* rectangular, transposed A, beta = 0 (non-collinear errors recomputed without backup) */
    prob_init(&p, "TN 150x300x170 beta 0 tile 64", c64, &rng, 'T', 'N', 150, 300, 170, -0.7, 0.0);
    single_flips(&p, &rng);
    patterns(&p);
    checksum_fault(&p, 33, 2 * 4 + 1, 61, 0.0);
    prob_free(&p);

    /* rectangular the other way, transposed B */
    prob_init(&p, "NT 300x150x250 beta -0.5 tile 64", c64, &rng, 'N', 'T', 300, 150, 250, 1.3,
              -0.5);
    single_flips(&p, &rng);
    patterns(&p);
    checksum_fault(&p, 299, 0, 59, 0.0);
    prob_free(&p);

    /* the automatic tile (T = 256 here: 2 x 2 tiles, the last ones partial), both transposed */
    prob_init(&p, "CT 300x280x200 beta 0.3 auto tile", cauto, &rng, 'C', 'T', 300, 280, 200, 1.0,
              0.3);
    single_flips(&p, &rng);
    {
        ft_fault_t f[3] = {flip_at(20, 30, 60), flip_at(20, 200, 55), flip_at(290, 270, 62)};
        expect_corrected(&p, "2 in one row + 1 in another tile", f, 3, FIX_INPLACE);
        f[0] = flip_at(20, 30, 60), f[1] = flip_at(100, 31, 55);
        expect_corrected(&p, "non-collinear pair (auto tile)", f, 2, FIX_RECOMPUTE);
    }
    checksum_fault(&p, 120, 1, 60, 0.0);
    prob_free(&p);

    /* beta != 0 without a backup of C (policy.backup_c = 0). On the CPU there is nothing to
     * recompute from: a non-collinear pair in two failing columns is located by the plain and
     * weighted row checks (two unknowns per row) and corrected in place; three rows by three
     * columns cannot be, and is reported: FT_ERR_UNCORRECTABLE, its tile named, never silent.
     * Host data on CUDA keeps the caller's C untouched until the end, and that is the backup
     * (docs/dgemm.md, rare path 6.): both patterns are recomputed there. */
    prob_init(&p, "NN 130x130x90 beta 0.3 no backup", cnobackup, &rng, 'N', 'N', 130, 130, 90, 1.0,
              0.3);
    {
        const int on_cuda = tu_expected_backend(g_dev) == FT_DEVICE_CUDA;
        ft_fault_t f[3] = {flip_at(70, 66, 58), flip_at(100, 101, 51), flip_at(90, 80, 55)};
        expect_corrected(&p, "single error without backup", f, 1, FIX_INPLACE);
        expect_corrected(&p, "non-collinear pair in two columns without backup", f, 2,
                         on_cuda ? FIX_RECOMPUTE : FIX_INPLACE);
        if (on_cuda) {
            expect_corrected(&p, "3x3 pattern, host C as the backup", f, 3, FIX_RECOMPUTE);
        } else {
            ft_report_t rep;
            int st = run(&p, f, 3, &rep);
            const char *where = "no backup, beta != 0, 3x3 pattern in tile (1,1)";
            int bad0 = (int)tu_failed;
            TU_CHECK(st == FT_ERR_UNCORRECTABLE && rep.status == st, "status %d report %d: %s", st,
                     rep.status, where);
            TU_CHECK(rep.backend == FT_DEVICE_CPU, "ran on backend %d: %s", (int)rep.backend,
                     where);
            /* one tile, three failing rows and columns: detected = uncorrectable = 3 */
            TU_CHECK(rep.injected == 3 && rep.detected == 3 && rep.uncorrectable == 3 &&
                         rep.corrected == 0 && rep.recomputed == 0 && rep.checksum_errors == 0,
                     "injected %lld detected %lld uncorrectable %lld corrected %lld recomputed "
                     "%lld: %s",
                     (long long)rep.injected, (long long)rep.detected,
                     (long long)rep.uncorrectable, (long long)rep.corrected,
                     (long long)rep.recomputed, where);
            TU_CHECK(tu_find_event(&rep, FT_EVENT_UNCORRECTABLE, 64, 64) >= 0,
                     "no uncorrectable event for tile (1,1): %s", where);
            /* the rest of C is the product: only the reported tile is wrong */
            int64_t wrong = 0;
            for (int64_t j = 0; j < p.n; j++)
                for (int64_t i = 0; i < p.m; i++) {
                    if (i >= 64 && i < 128 && j >= 64 && j < 128) continue;
                    double d = fabs(p.C[TU_IX(i, j, p.ldc)] - p.Cff[TU_IX(i, j, p.ldc)]);
                    wrong += !(d <= TOL * p.den);
                }
            TU_CHECK(wrong == 0, "%lld elements outside the reported tile wrong: %s",
                     (long long)wrong, where);
            if ((int)tu_failed != bad0) tu_print_report(where, &rep);
        }
    }
    prob_free(&p);

    ft_context_destroy(c64);
    ft_context_destroy(cauto);
    ft_context_destroy(cnobackup);
    return tu_finish();
}
