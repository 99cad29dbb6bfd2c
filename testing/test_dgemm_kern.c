/*
 * test_dgemm_kern.c — ft_dgemm's own kernel table (src/blas3/dgemm_kernels.h) against plain
 * references, on the backend named on the command line:
 *
 *   - c0_pass (the input C's block row sums, block column sums and backup in one read): integer
 *     data, power-of-two scales (down to subnormal results) and the dyadic ABFT weights make
 *     every sum exact, so the results must equal the reference bit for bit whatever the order of
 *     the additions; a NaN and infinities propagate as in the reference; column sums written
 *     into a wider array (ldcs > n) leave its other columns alone; row sums with and without
 *     the column sums and the backup; sizes not multiples of the warp, the tile or the kernel's
 *     chunk of columns. The cuda kernel declines tiles that are not multiples of 32 (returns 1,
 *     the driver's separate passes); the host handles every tile.
 *   - sums_digest (cuda; the host has none and the driver reads twice): the block sums and the
 *     digests of the stored columns in one read, against block_sums and digest on the same
 *     backend, bit for bit (integer data), 'N' and 'T', with and without the plain and weighted
 *     sums, blocks split into items or whole, a NaN and a -0.
 *
 *   test_dgemm_kern cpu|cuda [--small]   (--small: sizes up to 300, for compute-sanitizer)
 *   test_dgemm_kern cuda --bench         c0_pass on 16384 x 4096 (T = 2048, a chunk of the
 *                                        rank-k call) against block_sums 'N' on the same data:
 *                                        ms (median, min-max of 9) and GB/s of what each reads
 */
#include "blas3/dgemm_kernels.h"
#include "core/call.h"
#include "core/trace.h"
#include "testing_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ft_call_t c;
    const ft_backend_t *be;
    const dgemm_kernels_t *k;
    ft_queue_t *q;
    double *w; /* work memory */
    int64_t nw;
} env_t;

static int same_nan(double a, double b)
{
    return (a != a && b != b) || memcmp(&a, &b, sizeof a) == 0;
}

/* The reference: block sums of sc * C0 by definition (rows: block J of columns; columns: block
 * I of rows), each with the plain, weighted (abft_weight of the local index) and absolute sum. */
static void c0_ref(int64_t m, int64_t n, const double *C, int64_t ldc, int64_t T, double sc,
                   double *rs, double *ra, double *cs, double *ca, int64_t ldcs)
{
    const int64_t nb = (n + T - 1) / T, mb = (m + T - 1) / T, W = abft_wden(T);
    for (int64_t J = 0; J < nb; J++)
        for (int64_t i = 0; i < m; i++) {
            double s = 0.0, sw = 0.0, sa = 0.0;
            for (int64_t j = J * T; j < n && j < (J + 1) * T; j++) {
                const double x = sc * C[i + j * ldc];
                s += x, sw += abft_weight(j - J * T, W) * x, sa += fabs(x);
            }
            rs[i + 2 * J * m] = s, rs[i + (2 * J + 1) * m] = sw, ra[i + J * m] = sa;
        }
    if (!cs) return;
    for (int64_t I = 0; I < mb; I++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0, sw = 0.0, sa = 0.0;
            for (int64_t i = I * T; i < m && i < (I + 1) * T; i++) {
                const double x = sc * C[i + j * ldc];
                s += x, sw += abft_weight(i - I * T, W) * x, sa += fabs(x);
            }
            cs[j + 2 * I * ldcs] = s, cs[j + (2 * I + 1) * ldcs] = sw, ca[j + I * ldcs] = sa;
        }
}

/* One c0_pass case: cols = column sums asked, bk = backup asked, ldcs = ld of the column sums
 * (>= n), special = a NaN and two infinities in C0. */
static void c0_case(env_t *e, tu_rng_t *rng, int64_t m, int64_t n, int64_t T, int cols, int bk,
                    int64_t ldcs, double sc, int special)
{
    const int64_t ldc = m + 3, nb = (n + T - 1) / T, mb = (m + T - 1) / T;
    const int64_t nrs = 2 * m * nb, nra = m * nb, ncs = cols ? 2 * mb * ldcs : 0,
                  nca = cols ? mb * ldcs : 0, nbk = bk ? m * n : 0;
    const int64_t need = ldc * n + nrs + nra + ncs + nca + nbk;
    TU_CHECK(need <= e->nw, "c0_case %lld x %lld needs %lld doubles of work memory", (long long)m,
             (long long)n, (long long)need);
    if (need > e->nw) return;
    double *C = tu_malloc(ldc * n), *R = tu_malloc(nrs + nra + ncs + nca + nbk);
    double *X = tu_malloc(nrs + nra + ncs + nca + nbk);
    for (int64_t x = 0; x < ldc * n; x++)
        C[x] = (double)((int64_t)(tu_uniform(rng) * 2097152.0) - 1048576);
    if (special && m > 2 && n > 2) {
        C[(m - 1) + 1 * ldc] = NAN;
        C[0 + (n - 1) * ldc] = INFINITY;
        C[1 + (n - 1) * ldc] = -INFINITY; /* Inf - Inf in row block 0 and column n-1: NaN */
        C[(m / 2) + 0 * ldc] = -INFINITY;
    }
    double *rs = R, *ra = rs + nrs, *cs = ra + nra, *ca = cs + ncs;
    /* poison: the kernel zeroes what it writes; the columns >= n of a wider cs stay poisoned */
    for (int64_t x = 0; x < nrs + nra + ncs + nca + nbk; x++) R[x] = X[x] = -7.25;
    c0_ref(m, n, C, ldc, T, sc, rs, ra, cols ? cs : NULL, cols ? ca : NULL, ldcs);
    double *dC = e->w, *drs = dC + ldc * n, *dra = drs + nrs, *dcs = dra + nra, *dca = dcs + ncs,
           *dbk = dca + nca;
    const ft_backend_t *be = e->be;
    int st = be->set_matrix(e->q, ldc, n, C, ldc, dC, ldc);
    if (!st) st = be->set_matrix(e->q, nrs + nra + ncs + nca + nbk, 1, X, 1, drs, 1);
    if (!st)
        st = e->k->c0_pass(e->q, m, n, dC, ldc, T, sc, drs, dra, cols ? dcs : NULL,
                           cols ? dca : NULL, ldcs, bk ? dbk : NULL);
    const int declined = st == 1;
    if (declined) {
        /* only the cuda kernel declines, and only a tile that is not a multiple of 32 */
        TU_CHECK(be->kind == FT_DEVICE_CUDA && T % 32 != 0,
                 "c0_pass %lld x %lld T %lld declined", (long long)m, (long long)n, (long long)T);
        free(C), free(R), free(X);
        return;
    }
    if (!st) st = be->get_matrix(e->q, nrs + nra + ncs + nca + nbk, 1, drs, 1, X, 1);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "c0_pass %lld x %lld: %s", (long long)m, (long long)n, ft_strerror(st));
    if (!st) {
        const char *what[] = {"row sums", "row abs sums", "column sums", "column abs sums",
                              "backup"};
        const int64_t off[] = {0, nrs, nrs + nra, nrs + nra + ncs, nrs + nra + ncs + nca,
                               nrs + nra + ncs + nca + nbk};
        if (bk) /* the backup is C0 unscaled, ld m */
            for (int64_t j = 0; j < n; j++)
                memcpy(R + off[4] + j * m, C + j * ldc, (size_t)m * sizeof(double));
        for (int p = 0; p < 5; p++) {
            int64_t bad = -1;
            for (int64_t x = off[p]; x < off[p + 1] && bad < 0; x++)
                if (!same_nan(X[x], R[x])) bad = x;
            TU_CHECK(bad < 0,
                     "c0_pass %lld x %lld T %lld ldcs %lld sc %g special %d: %s[%lld] = %.17g, "
                     "reference %.17g",
                     (long long)m, (long long)n, (long long)T, (long long)ldcs, sc, special,
                     what[p], (long long)(bad - off[p]), bad < 0 ? 0.0 : X[bad],
                     bad < 0 ? 0.0 : R[bad]);
        }
    }
    free(C), free(R), free(X);
}

/* sums_digest against block_sums and digest on the same backend (integer data: the sums are
 * exact, so bit for bit whatever the order); with = the plain and weighted sums asked too. */
static void sd_case(env_t *e, tu_rng_t *rng, char trans, int64_t rows, int64_t cols, int64_t T,
                    int with)
{
    const int nt = trans == 'N';
    const int64_t sr = nt ? rows : cols, sc = nt ? cols : rows; /* X stored sr x sc */
    const int64_t ldx = sr + 2, nb = (cols + T - 1) / T, lds = rows + 1, ldabs = rows + 3;
    const int64_t ns = 2 * nb * lds, na = nb * ldabs, nd = sc; /* nd digests (uint64 as double) */
    const int64_t need = ldx * sc + 2 * (ns + na + nd);
    TU_CHECK(need <= e->nw, "sd_case %lld x %lld needs %lld doubles", (long long)rows,
             (long long)cols, (long long)need);
    if (need > e->nw) return;
    double *X = tu_malloc(ldx * sc), *R = tu_malloc(ns + na + nd), *G = tu_malloc(ns + na + nd);
    for (int64_t x = 0; x < ldx * sc; x++)
        X[x] = (double)((int64_t)(tu_uniform(rng) * 2097152.0) - 1048576) * 0x1p-7;
    if (sr > 3 && sc > 3) X[3 + 2 * ldx] = NAN, X[1 + 3 * ldx] = -0.0;
    for (int64_t x = 0; x < ns + na + nd; x++) R[x] = G[x] = -3.5;
    double *dX = e->w, *dR = dX + ldx * sc, *dG = dR + ns + na + nd;
    const ft_backend_t *be = e->be;
    int st = be->set_matrix(e->q, ldx, sc, X, ldx, dX, ldx);
    if (!st) st = be->set_matrix(e->q, ns + na + nd, 1, R, 1, dR, 1);
    if (!st) st = be->set_matrix(e->q, ns + na + nd, 1, G, 1, dG, 1);
    /* the reference: block_sums and digest */
    if (!st)
        st = be->block_sums(e->q, trans, rows, cols, dX, ldx, T, 0.25, with ? dR : NULL, lds,
                            dR + ns, ldabs);
    if (!st) st = be->digest(e->q, sr, sc, dX, ldx, (uint64_t *)(dR + ns + na));
    int fs = 0;
    if (!st) {
        fs = e->k->sums_digest(e->q, trans, rows, cols, dX, ldx, T, 0.25, with ? dG : NULL, lds,
                               dG + ns, ldabs, (uint64_t *)(dG + ns + na));
        st = fs < 0 ? fs : 0;
    }
    TU_CHECK(fs == 0, "sums_digest %c %lld x %lld T %lld declined (%d)", trans, (long long)rows,
             (long long)cols, (long long)T, fs);
    if (!st) st = be->get_matrix(e->q, ns + na + nd, 1, dR, 1, R, 1);
    if (!st) st = be->get_matrix(e->q, ns + na + nd, 1, dG, 1, G, 1);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "sums_digest %c %lld x %lld: %s", trans, (long long)rows, (long long)cols,
             ft_strerror(st));
    if (!st && fs == 0) {
        int64_t bad = -1;
        for (int64_t J = 0; J < nb && bad < 0; J++)
            for (int64_t i = 0; i < rows && bad < 0; i++) {
                const int64_t xs[3] = {i + 2 * J * lds, i + (2 * J + 1) * lds, ns + i + J * ldabs};
                for (int c = with ? 0 : 2; c < 3 && bad < 0; c++)
                    if (!same_nan(G[xs[c]], R[xs[c]])) bad = xs[c];
            }
        TU_CHECK(bad < 0, "sums_digest %c %lld x %lld T %lld with %d: sums[%lld] = %.17g, "
                 "block_sums %.17g", trans, (long long)rows, (long long)cols, (long long)T, with,
                 (long long)bad, bad < 0 ? 0.0 : G[bad], bad < 0 ? 0.0 : R[bad]);
        bad = -1;
        for (int64_t c = 0; c < nd && bad < 0; c++)
            if (memcmp(&G[ns + na + c], &R[ns + na + c], sizeof(double))) bad = c;
        TU_CHECK(bad < 0, "sums_digest %c %lld x %lld T %lld: digest of column %lld differs",
                 trans, (long long)rows, (long long)cols, (long long)T, (long long)bad);
    }
    free(X), free(R), free(G);
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(env_t *e, tu_rng_t *rng)
{
    const int64_t m = 16384, n = 4096, T = 2048, nb = n / T, mb = m / T;
    double *C = e->w, *rs = C + m * n, *ra = rs + 2 * m * nb, *cs = ra + m * nb,
           *ca = cs + 2 * mb * n, *bk = ca + mb * n;
    double *col = tu_malloc(m);
    for (int64_t j = 0; j < n; j++) { /* every page written; the values do not matter */
        if (j % 256 == 0) tu_fill(rng, m, 1, col, m);
        e->be->set_matrix(e->q, m, 1, col, m, C + j * m, m);
    }
    free(col);
    printf("%% c0_pass and block_sums 'N' on %lld x %lld, T %lld, %s\n", (long long)m,
           (long long)n, (long long)T, e->be->kind == FT_DEVICE_CUDA ? "cuda" : "host");
    printf("%%  what                       ms(med)   min     max     GB/s read\n");
    const char *nm[] = {"c0_pass rows+cols", "c0_pass rows", "c0_pass rows+cols+backup",
                        "block_sums N", "sums_digest N", "block_sums N + digest",
                        "sums_digest N abs (T = n)", "block_sums N abs + digest"};
    uint64_t *dig = (uint64_t *)bk; /* n digests */
    for (int op = 0; op < 8; op++) {
        if (op >= 4 && !e->k->sums_digest) break;
        double t[9];
        for (int r = -2; r < 9; r++) {
            e->be->sync(e->q);
            const double t0 = ft_wtime();
            int st;
            if (op == 3)
                st = e->be->block_sums(e->q, 'N', m, n, C, m, T, 1.0, rs, m, ra, m);
            else if (op == 4 || op == 6)
                st = e->k->sums_digest(e->q, 'N', m, n, C, m, op == 4 ? T : n, 1.0,
                                       op == 4 ? rs : NULL, m, ra, m, dig);
            else if (op == 5 || op == 7) {
                st = e->be->block_sums(e->q, 'N', m, n, C, m, op == 5 ? T : n, 1.0,
                                       op == 5 ? rs : NULL, m, ra, m);
                if (!st) st = e->be->digest(e->q, m, n, C, m, dig);
            } else
                st = e->k->c0_pass(e->q, m, n, C, m, T, 1.0, rs, ra, op != 1 ? cs : NULL,
                                   op != 1 ? ca : NULL, n, op == 2 ? bk : NULL);
            e->be->sync(e->q);
            TU_CHECK(st == 0, "bench %s: %d", nm[op], st);
            if (st) return;
            if (r >= 0) t[r] = ft_wtime() - t0;
        }
        qsort(t, 9, sizeof t[0], cmpd);
        printf("   %-26s %7.3f %7.3f %7.3f %7.0f\n", nm[op], 1e3 * t[4], 1e3 * t[0], 1e3 * t[8],
               8.0 * (double)(m * n) / t[4] * 1e-9);
    }
}

int main(int argc, char **argv)
{
    ft_device_t dev;
    if (argc < 2 || tu_parse_device(argv[1], &dev) || dev == FT_DEVICE_AUTO) {
        printf("usage: test_dgemm_kern cpu|cuda [--small|--bench]\n");
        return 2;
    }
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    const int do_bench = argc > 2 && strcmp(argv[2], "--bench") == 0;
    const int small = argc > 2 && strcmp(argv[2], "--small") == 0;
    env_t e;
    e.nw = do_bench ? (int64_t)16384 * 4096 * 2 + 16384 * 64 : (int64_t)16 << 20;
    int st = ft_call_begin(&e.c, NULL, "DGEMM_KERN", NULL, 0);
    if (!st) st = ft_call_select(&e.c, 0.0, dev == FT_DEVICE_CUDA, 0);
    if (!st) e.be = e.c.be, e.q = e.c.main, e.k = dgemm_kernels(e.be);
    if (!st) st = ft_call_work_doubles(&e.c, e.nw, &e.w);
    TU_CHECK(st == 0, "setup: %s", ft_strerror(st));
    if (st) return tu_finish();
    TU_CHECK(e.k && e.k->c0_pass, "the %s backend has no c0_pass", argv[1]);
    tu_rng_t rng;
    tu_seed(&rng, 11);
    if (do_bench && e.k && e.k->c0_pass) {
        bench(&e, &rng);
    } else if (e.k && e.k->c0_pass) {
        /* m, n, T */
        const int64_t sh[][3] = {{1, 1, 32},      {3, 2, 32},       {31, 5, 32},
                                 {33, 70, 32},    {128, 256, 32},   {129, 257, 64},
                                 {300, 600, 256}, {250, 300, 48},   {1000, 700, 128},
                                 {700, 1000, 96}, {2100, 2300, 2048}, {4099, 513, 1024}};
        const double scales[] = {1.0, 0.125, 0x1p-1060};
        for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
            const int64_t m = sh[s][0], n = sh[s][1], T = sh[s][2];
            if (small && (m > 300 || n > 300)) continue;
            for (int v = 0; v < 6; v++) {
                /* v: 0 rows+cols, 1 rows, 2 rows+backup, 3 rows+cols+backup, 4 wider cs,
                 * 5 rows+cols with a NaN and infinities */
                const int cols = v == 0 || v == 3 || v == 4 || v == 5, bk = v == 2 || v == 3;
                const int64_t ldcs = v == 4 ? n + 5 : n;
                c0_case(&e, &rng, m, n, T, cols, bk, ldcs, scales[(s + v) % 3], v == 5);
            }
        }
    }
    if (!do_bench && e.k && dev == FT_DEVICE_CUDA) {
        TU_CHECK(e.k->sums_digest != NULL, "the cuda backend has no sums_digest");
        /* rows, cols, T: one and several column blocks, items split (atomic sums) or whole,
         * rows not a multiple of the block's 256, the norms' T = cols */
        const int64_t sh[][3] = {{1, 1, 1},       {5, 3, 2},        {300, 7, 7},
                                 {257, 300, 64},  {1000, 700, 128}, {2049, 2048, 2048},
                                 {33, 4100, 1024}, {4100, 33, 33},  {700, 3000, 3000}};
        for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
            if (small && (sh[s][0] > 300 || sh[s][1] > 300)) continue;
            for (int t = 0; t < 2; t++)
                for (int with = 0; with < 2; with++)
                    sd_case(&e, &rng, t ? 'T' : 'N', sh[s][0], sh[s][1], sh[s][2], with);
        }
    } else if (!do_bench && e.k) {
        TU_CHECK(e.k->sums_digest == NULL, "the host backend's sums_digest is untested here");
        printf("# sums_digest: none on this backend (the driver's separate passes)\n");
    }
    ft_call_end(&e.c, st);
    return tu_finish();
}
