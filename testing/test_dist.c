/*
 * test_dist.c — ft_pdgemm and ft_pdgeqrf on ScaLAPACK + MPI (docs/dist.md). Run under mpirun
 * with 1, 2 or 4 processes: every process grid P x Q with P Q = the number of processes (1 x 1;
 * 1 x 2 and 2 x 1; 2 x 2 and 1 x 4), block sizes 1, 7 and 32, submatrices at offsets. Checks:
 *   - ft_pdgemm equals PDGEMM on the same data (it calls PDGEMM), all transposes;
 *   - a fault in C on each process in turn is corrected (the result within 1e-13 relative of
 *     PDGEMM's, which is the accuracy of an element rebuilt from its check);
 *   - ft_pdgeqrf's factor passes LAPACK's dqrt01 ratios (Q formed by dorgqr from the gathered
 *     factor) below 30 without faults, with a fault in the trailing matrix consumed by a panel
 *     (re-factored), one in a later column and one in R (corrected), one in the checksums, each
 *     on each process in turn; the R factor agrees with PDGEQRF's;
 *   - argument errors: ScaLAPACK's -i / -(100 i + j), nothing written, no abort.
 * Prints one line per case and "N passed, N failed"; every process exits non-zero on a failure.
 */
#include "abft/abft.h" /* the library's own thresholds: the campaign's limit oracle */
#include "dist/dist.h" /* the ScaLAPACK / BLACS prototypes (ftla_dist.h with them) */
#include "dist_campaign.h"
#include "dist_util.h"

#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_me, g_np, g_pass, g_fail;

static void result(const grid_t *g, int ok, const char *what)
{
    double v = ok ? 0.0 : 1.0;
    Cdgsum2d(g->ctxt, "All", " ", 1, 1, &v, 1, -1, -1);
    ok = v == 0.0;
    if (ok) g_pass++;
    else g_fail++;
    if (g_me == 0 && (!ok || getenv("TEST_DIST_VERBOSE")))
        printf("  %-90s %s\n", what, ok ? "ok" : "FAILED");
}

/* ---- ft_pdgemm ------------------------------------------------------------------------------ */
/* the first element of sub(C) (m x n at (i1, j1)) that rank r owns, from a row that depends on r
 * (*fi = -1: none) */
static void c_owned(const grid_t *g, const dmat_t *C, int r, int m, int n, int i1, int j1, long *fi,
                    long *fj)
{
    *fi = *fj = -1;
    for (long j = 0; j < n && *fi < 0; j++)
        for (long i = (r * 5 + j) % (m > 0 ? m : 1); i < m; i++)
            if (owner(g, C, i1 - 1 + i, j1 - 1 + j) == r) {
                *fi = i, *fj = j;
                break;
            }
}

/* the largest difference of the gathered C from the reference R, and R's largest element */
static void c_err(const grid_t *g, const dmat_t *C, const double *R, double *err, double *nrm)
{
    double *G = gather(g, C);
    *err = 0.0, *nrm = 0.0;
    for (long x = 0; x < (long)C->desc[2] * C->desc[3]; x++) {
        *err = fmax(*err, fabs(G[x] - R[x]));
        *nrm = fmax(*nrm, fabs(R[x]));
    }
    free(G);
}

/* faults at sub(C)(fi[x], fj[x]) (bit b[x]), each added to ctx by the process owning it */
static void add_c_faults(const grid_t *g, const dmat_t *C, ft_context_t *ctx, int i1, int j1,
                         int nf, const long *fi, const long *fj, const int *b)
{
    for (int x = 0; x < nf; x++) {
        if (owner(g, C, i1 - 1 + fi[x], j1 - 1 + fj[x]) != me_in(g)) continue;
        ft_fault_t f = {.region = FT_REGION_C, .row = fi[x], .col = fj[x], .bit = b[x],
                        .call = -1, .step = -1};
        ft_inject_add(ctx, &f);
    }
}

static void gemm_case(const grid_t *g, int nb, char ta, char tb, int m, int n, int k)
{
    const int off = 2; /* submatrices at (3, 2) */
    const int ar = (ta == 'N' ? m : k) + off + 1, ac = (ta == 'N' ? k : m) + off;
    const int br = (tb == 'N' ? k : n) + off + 1, bc = (tb == 'N' ? n : k) + off;
    dmat_t A, B, C, C0, Cr;
    dmat(g, ar, ac, nb, nb, 0, 0, &A);
    dmat(g, br, bc, nb + 1, nb, g->nprow - 1, 0, &B); /* other blocking and source: PDGEMM aligns */
    dmat(g, m + off + 1, n + off, nb, nb, 0, g->npcol - 1, &C);
    dmat(g, m + off + 1, n + off, nb, nb, 0, g->npcol - 1, &C0);
    dmat(g, m + off + 1, n + off, nb, nb, 0, g->npcol - 1, &Cr);
    fill(g, &A, 1), fill(g, &B, 2), fill(g, &C0, 3);
    const int i1 = off + 2, j1 = off + 1;
    const double alpha = 0.7, beta = -0.45;
    const size_t bytes = sizeof(double) * (size_t)C.desc[8] * (size_t)(C.lc > 1 ? C.lc : 1);
    memcpy(Cr.a, C0.a, bytes);
    pdgemm_(&ta, &tb, &m, &n, &k, &alpha, A.a, &i1, &j1, A.desc, B.a, &i1, &j1, B.desc, &beta, Cr.a,
            &i1, &j1, Cr.desc, 1, 1);
    double *R = gather(g, &Cr);
    char what[160];
    /* no fault: PDGEMM's result exactly */
    memcpy(C.a, C0.a, bytes);
    ft_report_t rep;
    int st = ft_pdgemm_ex(NULL, ta, tb, m, n, k, alpha, A.a, i1, j1, A.desc, B.a, i1, j1, B.desc,
                          beta, C.a, i1, j1, C.desc, &rep);
    double err, nrm;
    c_err(g, &C, R, &err, &nrm);
    /* PDGEMM's result (bit for bit on one process; across processes the engine's reductions
     * need not add in the same order from one call to the next) */
    int ok = st == 0 && err <= 1e-14 * nrm && rep.detected == 0 && rep.checks > 0;
    snprintf(what, sizeof what,
             "pdgemm %dx%d nb %d %c%c m %d n %d k %d: no fault (st %d, err %.1e, detected %lld)",
             g->nprow, g->npcol, nb, ta, tb, m, n, k, st, err / (nrm > 0 ? nrm : 1),
             (long long)rep.detected);
    result(g, ok, what);
    /* a fault on each process in turn (an element it owns), two bits: exponent and mantissa */
    const int bits[2] = {61, 47};
    for (int r = 0; r < g->nprow * g->npcol; r++)
        for (int b = 0; b < 2; b++) {
            long fi, fj;
            c_owned(g, &C, r, m, n, i1, j1, &fi, &fj);
            if (fi < 0) continue; /* this process owns nothing of sub(C) */
            memcpy(C.a, C0.a, bytes);
            ft_context_t *ctx = NULL;
            ft_context_create(&ctx, FT_DEVICE_CPU);
            if (me_in(g) == r) {
                ft_fault_t f = {.region = FT_REGION_C,
                                .row = fi,
                                .col = fj,
                                .bit = bits[b],
                                .call = -1,
                                .step = -1};
                ft_inject_add(ctx, &f);
            }
            st = ft_pdgemm_ex(ctx, ta, tb, m, n, k, alpha, A.a, i1, j1, A.desc, B.a, i1, j1, B.desc,
                              beta, C.a, i1, j1, C.desc, &rep);
            ft_context_destroy(ctx);
            c_err(g, &C, R, &err, &nrm);
            ok = st == 0 && rep.injected == 1 && rep.corrected == 1 && err <= 1e-13 * nrm;
            snprintf(what, sizeof what,
                     "pdgemm %dx%d nb %d %c%c: bit %d of C(%ld,%ld) on rank %d corrected "
                     "(st %d, corrected %lld, err %.1e)",
                     g->nprow, g->npcol, nb, ta, tb, bits[b], fi, fj, r, st,
                     (long long)rep.corrected, err / (nrm > 0 ? nrm : 1));
            result(g, ok, what);
        }
    /* an operand changed after the encoding (FT_REGION_A / _B: on its owner, before PDGEMM
     * reads it; undone when the call returns), an exponent bit and a low mantissa bit (bit 8:
     * below every row check's threshold, the operand digests alone see it): reported, never
     * silent, and the caller's operand as it was */
    for (int x = 0; x < 2; x++)
        for (int r = 0; r < g->nprow * g->npcol; r++)
            for (int b = 0; b < 2; b++) {
                const dmat_t *X = x ? &B : &A;
                const char t = x ? tb : ta;
                const int xr = x ? (t == 'N' ? k : n) : (t == 'N' ? m : k);
                const int xc = x ? (t == 'N' ? n : k) : (t == 'N' ? k : m);
                long fi, fj;
                c_owned(g, X, r, xr, xc, i1, j1, &fi, &fj);
                if (fi < 0) continue;
                const size_t xb =
                    sizeof(double) * (size_t)X->desc[8] * (size_t)(X->lc > 1 ? X->lc : 1);
                double *keep = malloc(xb);
                memcpy(keep, X->a, xb);
                memcpy(C.a, C0.a, bytes);
                ft_context_t *ctx = NULL;
                ft_context_create(&ctx, FT_DEVICE_CPU);
                if (me_in(g) == r) {
                    ft_fault_t f = {.region = x ? FT_REGION_B : FT_REGION_A,
                                    .row = fi,
                                    .col = fj,
                                    .bit = b ? 8 : 61,
                                    .call = -1,
                                    .step = -1};
                    ft_inject_add(ctx, &f);
                }
                st = ft_pdgemm_ex(ctx, ta, tb, m, n, k, alpha, A.a, i1, j1, A.desc, B.a, i1, j1,
                                  B.desc, beta, C.a, i1, j1, C.desc, &rep);
                ft_context_destroy(ctx);
                const int same = !memcmp(keep, X->a, xb);
                free(keep);
                ok = st == FT_ERR_UNCORRECTABLE && rep.injected == 1 && rep.uncorrectable >= 1 &&
                     same;
                snprintf(what, sizeof what,
                         "pdgemm %dx%d nb %d %c%c: bit %d of %c(%ld,%ld) on rank %d during the "
                         "call: reported (st %d, uncorrectable %lld, operand kept %d)",
                         g->nprow, g->npcol, nb, ta, tb, b ? 8 : 61, x ? 'B' : 'A', fi, fj, r, st,
                         (long long)rep.uncorrectable, same);
                result(g, ok, what);
            }
    /* two faults in one row of C, a large and a small one (on the processes owning them), with
     * the input C kept (policy.backup_c = 1): the row computed again — located from its two
     * checks, the small one would be absorbed by the large one's rebuild (docs/dist.md) */
    for (int r = 0; r < g->nprow * g->npcol && n >= 4; r++) {
        long fi, fj;
        c_owned(g, &C, r, m, n, i1, j1, &fi, &fj);
        if (fi < 0) continue;
        const long fj2 = (fj + 3) % n;
        memcpy(C.a, C0.a, bytes);
        ft_context_t *ctx = NULL;
        ft_context_create(&ctx, FT_DEVICE_CPU);
        ft_policy_t pol;
        ft_context_get_policy(ctx, &pol);
        pol.backup_c = 1;
        ft_context_set_policy(ctx, &pol);
        const long ri[2] = {fi, fi}, rj[2] = {fj, fj2};
        const int rb[2] = {61, 30};
        add_c_faults(g, &C, ctx, i1, j1, 2, ri, rj, rb);
        st = ft_pdgemm_ex(ctx, ta, tb, m, n, k, alpha, A.a, i1, j1, A.desc, B.a, i1, j1, B.desc,
                          beta, C.a, i1, j1, C.desc, &rep);
        ft_context_destroy(ctx);
        c_err(g, &C, R, &err, &nrm);
        ok = st == 0 && rep.injected == 2 && rep.corrected >= 1 && rep.recomputed >= 1 &&
             err <= 1e-13 * nrm;
        snprintf(what, sizeof what,
                 "pdgemm %dx%d nb %d %c%c: bits 61, 30 of C(%ld,%ld), C(%ld,%ld), C kept: row "
                 "computed again (st %d, recomputed %lld, err %.1e)",
                 g->nprow, g->npcol, nb, ta, tb, fi, fj, fi, fj2, st, (long long)rep.recomputed,
                 err / (nrm > 0 ? nrm : 1));
        result(g, ok, what);
    }
    /* several faults with the default policy (beta != 0, C not kept): located with the column
     * checks formed on the rare path and rebuilt — two in one row (the row's two checks alone
     * would place both in the large one's column), two in one column, an L of three; and a
     * rectangle of four, which must be corrected or reported, never passed */
    for (int pat = 0; pat < 4 && n >= 4 && m >= 4; pat++) {
        long fi, fj;
        c_owned(g, &C, pat % (g->nprow * g->npcol), m, n, i1, j1, &fi, &fj);
        if (fi < 0) continue;
        const long fi2 = (fi + 3) % m, fj2 = (fj + 3) % n;
        const long pi[4] = {fi, pat == 1 ? fi2 : fi, fi2, fi2};
        const long pj[4] = {fj, pat == 1 ? fj : fj2, fj, fj2};
        const int pb[4] = {61, 30, 40, 50}, nfx = pat == 0 || pat == 1 ? 2 : pat == 2 ? 3 : 4;
        memcpy(C.a, C0.a, bytes);
        ft_context_t *ctx = NULL;
        ft_context_create(&ctx, FT_DEVICE_CPU);
        add_c_faults(g, &C, ctx, i1, j1, nfx, pi, pj, pb);
        st = ft_pdgemm_ex(ctx, ta, tb, m, n, k, alpha, A.a, i1, j1, A.desc, B.a, i1, j1, B.desc,
                          beta, C.a, i1, j1, C.desc, &rep);
        ft_context_destroy(ctx);
        c_err(g, &C, R, &err, &nrm);
        const int fixed = st == 0 && rep.injected == nfx && rep.corrected == nfx &&
                          err <= 1e-13 * nrm;
        ok = pat < 3 ? fixed : fixed || (st == FT_ERR_UNCORRECTABLE && rep.uncorrectable > 0);
        static const char *pname[4] = {"two in one row", "two in one column", "an L of three",
                                       "a rectangle of four"};
        snprintf(what, sizeof what,
                 "pdgemm %dx%d nb %d %c%c: %s at C(%ld,%ld), default policy: %s (st %d, "
                 "corrected %lld, err %.1e)",
                 g->nprow, g->npcol, nb, ta, tb, pname[pat], fi, fj,
                 pat < 3 ? "corrected" : "corrected or reported", st, (long long)rep.corrected,
                 err / (nrm > 0 ? nrm : 1));
        result(g, ok, what);
    }
    /* two equal and opposite errors in one row, in neighbouring columns a, b (+delta, -delta,
     * delta from 2^-20 to 2^-36 of C's largest element): the plain check cancels and the
     * weighted one sees (w_a - w_b) delta = delta / (2W), below its threshold for a range of
     * delta where the errors are far above it; the third check sees (v_a - v_b) delta (the pair
     * of neighbours whose permuted weights differ most). Never silent: corrected to PDGEMM's
     * result, or reported — with both policies. (The small shapes only: the 1e-13 yardstick
     * is below the checks' threshold, which grows with k and n, for the large ones.) */
    for (int keep = 0; keep < 2 && n >= 4 && k <= 64; keep++) {
        long fi, fj;
        c_owned(g, &C, 0, m, n, i1, j1, &fi, &fj);
        if (fi < 0) continue;
        const int64_t tw = n < 256 ? n : 256, W = abft_wden(256); /* (the auto tile: 256) */
        long a = 0;
        for (long c = 0; c + 1 < tw; c++)
            if (fabs(abft_weight_perm(c, W) - abft_weight_perm(c + 1, W)) >
                fabs(abft_weight_perm(a, W) - abft_weight_perm(a + 1, W)))
                a = c;
        int silent = 0, worst = 0;
        double werr = 0.0;
        for (int e = 20; e <= 36; e++) {
            memcpy(C.a, C0.a, bytes);
            ft_context_t *ctx = NULL;
            ft_context_create(&ctx, FT_DEVICE_CPU);
            ft_policy_t pol;
            ft_context_get_policy(ctx, &pol);
            pol.backup_c = keep;
            ft_context_set_policy(ctx, &pol);
            for (int x = 0; x < 2; x++)
                if (owner(g, &C, i1 - 1 + fi, j1 - 1 + a + x) == me_in(g)) {
                    ft_fault_t f = {.region = FT_REGION_C, .row = fi, .col = a + x, .bit = -1,
                                    .value = (x ? -1.0 : 1.0) * ldexp(nrm, -e), .call = -1,
                                    .step = -1};
                    ft_inject_add(ctx, &f);
                }
            st = ft_pdgemm_ex(ctx, ta, tb, m, n, k, alpha, A.a, i1, j1, A.desc, B.a, i1, j1,
                              B.desc, beta, C.a, i1, j1, C.desc, &rep);
            ft_context_destroy(ctx);
            c_err(g, &C, R, &err, &nrm);
            if (st == 0 && !(err <= 1e-13 * nrm)) silent = 1, worst = e, werr = err / nrm;
        }
        snprintf(what, sizeof what,
                 "pdgemm %dx%d nb %d %c%c: +-delta at C(%ld,%ld..%ld), %s: never silent "
                 "(2^-%d: err %.1e)",
                 g->nprow, g->npcol, nb, ta, tb, fi, a, a + 1, keep ? "C kept" : "default",
                 silent ? worst : 0, werr);
        result(g, !silent, what);
    }
    free(R), free(A.a), free(B.a), free(C.a), free(C0.a), free(Cr.a);
}

/* ---- ft_pdgeqrf ----------------------------------------------------------------------------- */
/* qr_case's fault of case c owned by rank r: (*fi, *fj) in sub(A) (-1: none), its region and
 * step */
static void pick(const grid_t *g, const dmat_t *A, int c, int r, int m, int n, int nb, int ia,
                 int ja, long *fi, long *fj, ft_region_t *reg, int *step)
{
    const int k = m < n ? m : n;
    const int p1 = nb - (ja - 1) % nb; /* columns of panel 0 */
    const int jb1 = nb < k - p1 ? nb : k - p1; /* columns of the panel of step 1 */
    *fi = *fj = -1, *step = 1, *reg = FT_REGION_TRAILING;
    for (long t = 0; t < (long)m * n && *fi < 0; t++) {
        long i = (t * 7 + r * 3) % m, j = (t / m + r) % n;
        if (c == 1) { /* in the panel of step 1: columns [p1, p1 + nb), rows >= p1 */
            if (p1 >= k) break;
            j = p1 + (t % jb1);
            i = p1 + (t / nb) % (m - p1);
        } else if (c == 2) { /* after that panel */
            if (p1 + nb >= n || p1 >= m) break;
            j = p1 + nb + t % (n - p1 - nb);
            i = p1 + (t / (n - p1 - nb)) % (m - p1);
        } else if (c == 3) { /* R: rows < the boundary of step 1 */
            if (p1 >= k) break;
            *reg = FT_REGION_R, *step = 1;
            i = t % p1;
            j = i + (t / p1) % (n - i);
        } else if (c == 11) { /* R as 3, in a row with another column of checksum block 0 */
            const int w0 = n < 32 ? n : 32; /* abft_qr_check_width(n) = 32 for n <= 256 */
            if (p1 >= k || w0 - 1 <= 0) break;
            *reg = FT_REGION_R, *step = 1;
            i = t % p1;
            if (w0 - i < 2) continue;
            j = i + (t / p1) % (w0 - i);
        } else if (c == 4) { /* a checksum column, before the first panel */
            *reg = FT_REGION_CHECKSUM, *step = 0;
            i = t % m, j = (t / m) % 3; /* sigma [A e, A w, A v] */
        } else if (c == 5 || c == 6) { /* panel 0's vectors (5) or tau (6: the diagonal's owner) */
            if (p1 + 1 >= m) break;
            *reg = c == 5 ? FT_REGION_Q : FT_REGION_TAU, *step = 1;
            j = t % (p1 < k ? p1 : k);
            i = c == 5 ? j + 1 + (t / p1) % (m - j - 1) : j;
            if (c == 5 && i >= m) continue;
        } else if (c == 13) { /* a vector of the last panel in use (its update: the checksums) */
            const int ls = k - 1 < p1 ? 0 : 1 + (k - 1 - p1) / nb,
                      pl = ls ? p1 + (ls - 1) * nb : 0;
            if (pl + 1 >= m) break;
            *reg = FT_REGION_REFLECTORS, *step = ls;
            j = pl + t % (k - pl);
            if (j + 1 >= m) continue;
            i = j + 1 + (t / (k - pl)) % (m - j - 1);
        } else { /* the panel of step 1: inside it (7), its vectors (8) or tau (9) in use */
            if (p1 + 1 >= k || jb1 < 2) break;
            *reg = c == 7 ? FT_REGION_PANEL : FT_REGION_REFLECTORS, *step = 1;
            j = p1 + t % jb1;
            i = c == 7 ? p1 + (t / jb1) % (m - p1) : c == 9 ? j : j + 1 + (t / jb1) % (m - j - 1);
            if (i >= m) continue;
        }
        if (c == 12) { /* T(i, j) of the panel of step 1, between PDLARFT and PDLARFB */
            if (p1 + 1 >= k || jb1 < 2) break;
            *reg = FT_REGION_REFLECTORS, *step = 1;
            j = jb1 - 1 - t % jb1, i = (t / jb1) % (j + 1); /* (0, jb1 - 1) first */
            /* on T's owner (the panel's first diagonal element's); col n on names T */
            if (owner(g, A, ia - 1 + p1, ja - 1 + p1) == r) *fi = i, *fj = n + j;
            continue;
        }
        if (c == 4) {
            /* the checksum blocks are the global columns ja - 1 + n on of ftla's work array,
             * which has A's layout (docs/dist.md) */
            if (owner(g, A, ia - 1 + i, ja - 1 + n + j) == r) *fi = i, *fj = j;
        } else if (owner(g, A, ia - 1 + i, ja - 1 + j) == r) {
            *fi = i, *fj = j;
        }
    }
}

static void qr_case(const grid_t *g, int nb, int m, int n)
{
    const int ia = 3, ja = 2, M = m + ia + 1, N = n + ja;
    dmat_t A, A0;
    dmat(g, M, N, nb, nb, 0, 0, &A);
    dmat(g, M, N, nb, nb, 0, 0, &A0);
    fill(g, &A0, 7);
    const size_t bytes = sizeof(double) * (size_t)A.desc[8] * (size_t)(A.lc > 1 ? A.lc : 1);
    double *G0 = gather(g, &A0);
    double *tau = calloc((size_t)A.lc + 1, sizeof(double));
    int lwork = -1, info = 0;
    double wq = 0.0;
    ft_pdgeqrf(m, n, A.a, ia, ja, A.desc, tau, &wq, -1, &info);
    lwork = (int)wq;
    double *work = malloc(sizeof(double) * (size_t)(lwork > 1 ? lwork : 1));
    /* the reference R: PDGEQRF */
    memcpy(A.a, A0.a, bytes);
    pdgeqrf_(&m, &n, A.a, &ia, &ja, A.desc, tau, work, &lwork, &info);
    double *Rref = gather(g, &A);
    char what[200];
    /* cases: 0 no fault; 1 trailing, a column of the panel at step 1 (consumed); 2 trailing, a
     * later column; 3 R at step 2; 4 a checksum; 5 a Householder vector of panel 0 below its
     * diagonal, and 6 its tau, at step 1 (the checkpoint of Q); 7 inside the panel of step 1,
     * between its halves; 8 a vector of the panel of step 1, and 9 its tau, between the panel
     * and its update (in use); 10 two processes at once: case 2 on rank r and case 5 on the next;
     * 11 two errors in one row of R, in one checksum block (an exponent bit, and a low mantissa
     * bit of another column of the row, on its owner): the first two checks locate the large one
     * and its rebuild absorbs the small one, which the third check's residual after it shows —
     * re-factored; 12 T of the panel of step 1 between PDLARFT and PDLARFB, a low mantissa bit
     * (PDLARFB applies the wrong T to the trailing matrix and the checksums alike, but not to the
     * panel's own columns, whose share of their block's checksums it transforms — a large change
     * fails that block's rows; this one only T's seal, taken right after PDLARFT, finds); 13 a
     * vector of the last panel between the panel and its update (which updates the checksum
     * columns alone), mantissa bit 8: below every checksum's threshold, the in-use comparison
     * alone finds it; the checkpoint, taken after the update, holds the changed vector, so the
     * panel itself is re-factored (before the checkpoint moved, its re-factorization started
     * after the last panel, at n: nothing, and the call was reported uncorrectable) */
    const int ncase = 14;
    for (int c = 0; c < ncase; c++) {
        const int np = g->nprow * g->npcol, nr = c == 0 ? 1 : np;
        for (int r = 0; r < nr; r++) {
            long fi = -1, fj = -1, gi = -1, gj = -1;
            int step = 1, step2 = 1;
            ft_region_t reg = FT_REGION_TRAILING, reg2 = FT_REGION_Q;
            if (c >= 1) {
                pick(g, &A, c == 10 ? 2 : c, r, m, n, nb, ia, ja, &fi, &fj, &reg, &step);
                if (fi < 0) continue;
                if (c == 11) { /* the second: row fi, another column of block 0 on or after fi */
                    const int w0 = n < 32 ? n : 32;
                    gi = fi, gj = fi + (fj - fi + 1 + r) % (w0 - fi), reg2 = FT_REGION_R;
                    if (gj == fj) gj = fi + (fj - fi + 1) % (w0 - fi);
                }
                if (c == 10) {
                    if (np < 2) continue;
                    pick(g, &A, 5, (r + 1) % np, m, n, nb, ia, ja, &gi, &gj, &reg2, &step2);
                    if (gi < 0) continue;
                }
            }
            memcpy(A.a, A0.a, bytes);
            memset(tau, 0, sizeof(double) * (size_t)A.lc);
            ft_context_t *ctx = NULL;
            ft_context_create(&ctx, FT_DEVICE_CPU);
            if (c >= 1 && me_in(g) == r) {
                /* (cases 8, 9, 12, 13: a low mantissa bit, a change too small for the checksums
                 * to see: the in-use comparison, or T's seal, alone finds it) */
                ft_fault_t f = {.region = reg,
                                .row = fi,
                                .col = fj,
                                .bit = c == 13 ? 8 : c == 8 || c == 9 || c == 12 ? 20 : 61,
                                .call = -1,
                                .step = step};
                ft_inject_add(ctx, &f);
            }
            if (c == 10 && me_in(g) == (r + 1) % np) {
                ft_fault_t f = {
                    .region = reg2, .row = gi, .col = gj, .bit = 61, .call = -1, .step = step2};
                ft_inject_add(ctx, &f);
            }
            if (c == 11 && owner(g, &A, ia - 1 + gi, ja - 1 + gj) == me_in(g)) {
                ft_fault_t f = {
                    .region = reg2, .row = gi, .col = gj, .bit = 40, .call = -1, .step = step};
                ft_inject_add(ctx, &f);
            }
            ft_report_t rep;
            const int st =
                ft_pdgeqrf_ex(ctx, m, n, A.a, ia, ja, A.desc, tau, work, lwork, &info, &rep);
            ft_context_destroy(ctx);
            double *F = gather(g, &A), *T = gather_tau(g, &A, tau), r1 = 0, r2 = 0;
            dist_qr_ratios(G0, F, T, M, ia - 1, ja - 1, m, n, &r1, &r2);
            double rdiff = 0.0, rn = 0.0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i <= j && i < m; i++) {
                    const size_t x = (size_t)(ia - 1 + i) + (size_t)(ja - 1 + j) * M;
                    rdiff = fmax(rdiff, fabs(F[x] - Rref[x]));
                    rn = fmax(rn, fabs(Rref[x]));
                }
            free(F), free(T);
            int ok = st == 0 && info == 0 && r1 < 30 && r2 < 30 && rdiff <= 1e-10 * rn;
            if (c >= 1)
                ok = ok && rep.injected == (c == 10 || c == 11 ? 2 : 1) &&
                     (c == 4 ? rep.checksum_errors >= 1 : rep.corrected >= (c == 10 ? 2 : 1));
            if (c == 1 || c == 8 || c == 9 || c == 11 || c == 12 || c == 13)
                ok = ok && rep.recovered >= 1 && rep.refactor_col >= 0;
            static const char *names[] = {"no fault",
                                          "consumed by a panel (re-factor)",
                                          "trailing, later column",
                                          "in R",
                                          "in the checksums",
                                          "in Q (checkpoint)",
                                          "in tau (copies)",
                                          "inside the panel",
                                          "in the panel's vectors in use (re-factor)",
                                          "in the panel's tau in use (re-factor)",
                                          "two processes: trailing and Q",
                                          "two in one row of R (re-factor)",
                                          "in T while PDLARFB applies it (re-factor)",
                                          "in the last panel's vectors in use (re-factor)"};
            snprintf(what, sizeof what,
                     "pdgeqrf %dx%d nb %d m %d n %d: %s (%ld,%ld) rank %d: st %d ratios %.2g %.2g "
                     "R diff %.1e corrected %lld",
                     g->nprow, g->npcol, nb, m, n, names[c], fi, fj, r, st, r1, r2,
                     rdiff / (rn > 0 ? rn : 1), (long long)rep.corrected);
            result(g, ok, what);
        }
    }
    free(G0), free(Rref), free(tau), free(work), free(A.a), free(A0.a);
}

/* ---- argument errors ------------------------------------------------------------------------ */
static void args_case(const grid_t *g)
{
    dmat_t A;
    dmat(g, 20, 20, 4, 4, 0, 0, &A);
    fill(g, &A, 9);
    const size_t bytes = sizeof(double) * (size_t)A.desc[8] * (size_t)(A.lc > 1 ? A.lc : 1);
    double *keep = malloc(bytes);
    memcpy(keep, A.a, bytes);
    int st = ft_pdgemm('N', 'N', -1, 4, 4, 1.0, A.a, 1, 1, A.desc, A.a, 1, 1, A.desc, 0.0, A.a, 1,
                       1, A.desc);
    result(g, st == -3 && !memcmp(keep, A.a, bytes), "pdgemm m = -1: -3, nothing written");
    int bad[9];
    memcpy(bad, A.desc, sizeof bad);
    bad[4] = 0; /* MB_ of descA */
    st = ft_pdgemm('N', 'N', 4, 4, 4, 1.0, A.a, 1, 1, bad, A.a, 1, 1, A.desc, 0.0, A.a, 1, 1,
                   A.desc);
    result(g, st == -1005 && !memcmp(keep, A.a, bytes), "pdgemm descA MB_ = 0: -1005");
    st = ft_pdgemm('X', 'N', 4, 4, 4, 1.0, A.a, 1, 1, A.desc, A.a, 1, 1, A.desc, 0.0, A.a, 1, 1,
                   A.desc);
    result(g, st == -1, "pdgemm transa 'X': -1");
    st = ft_pdgemm('N', 'N', 4, 4, 4, 1.0, A.a, 1, 1, A.desc, A.a, 1, 1, A.desc, 0.0, A.a, 18, 1,
                   A.desc);
    result(g, st == -17 && !memcmp(keep, A.a, bytes), "pdgemm ic out of range: -17");
    double tau[32], w[4];
    int info = 0;
    st = ft_pdgeqrf(20, 20, A.a, 1, 1, A.desc, tau, w, 1, &info);
    result(g, st == -9 && info == -9 && !memcmp(keep, A.a, bytes), "pdgeqrf lwork 1: -9");
    st = ft_pdgeqrf(21, 20, A.a, 1, 1, A.desc, tau, w, -1, &info);
    result(g, st == -4 && info == -4, "pdgeqrf m beyond the matrix: -4 (ia)");
    free(keep), free(A.a);
}

/* --bench N NB RUNS [Q [qr|gemm]]: ft_pdgemm / ft_pdgeqrf against PDGEMM / PDGEQRF on N x N,
 * alternated, on the squarest grid (qr or gemm: that pair alone); prints the median and range of
 * each (seconds, MPI_Wtime-like wall clock after a barrier), the ratio of the medians and the
 * median and range of the ratios paired by round (the two calls of a round run back to back, so
 * the paired ratio is less exposed to the machine's drift between rounds). */
static int bench_runs(const char *only, int w) /* w: 0 PDGEMM, 1 ft_pdgemm, 2, 3: the QRs */
{
    return !only || (!strcmp(only, "qr") && w >= 2) || (!strcmp(only, "gemm") && w < 2);
}

static void bench(int N, int nb, int runs, int q, const char *only)
{
    if (q > 0) { /* policy.verify_every of this thread's default context */
        ft_policy_t pol;
        ft_context_get_policy(ft_default_context(), &pol);
        pol.verify_every = q;
        ft_context_set_policy(ft_default_context(), &pol);
    }
    grid_t g;
    squarest_grid(&g, g_np);
    dmat_t A, B, C, A0;
    dmat(&g, N, N, nb, nb, 0, 0, &A), dmat(&g, N, N, nb, nb, 0, 0, &B);
    dmat(&g, N, N, nb, nb, 0, 0, &C), dmat(&g, N, N, nb, nb, 0, 0, &A0);
    fill(&g, &A0, 1), fill(&g, &B, 2);
    const size_t bytes = sizeof(double) * (size_t)A.desc[8] * (size_t)(A.lc > 1 ? A.lc : 1);
    double *tau = calloc((size_t)A.lc + 1, sizeof(double)), wq = 0.0;
    int one = 1, info = 0, lw = -1;
    pdgeqrf_(&N, &N, A.a, &one, &one, A.desc, tau, &wq, &lw, &info);
    lw = (int)wq;
    double *work = malloc(sizeof(double) * (size_t)lw);
    /* ft_pdgeqrf's own optimal work (W in it: docs/dist.md), unless FTLA_BENCH_MINWORK=1 (then
     * PDGEQRF's, and W from the context's arena) */
    int lwf = -1;
    ft_pdgeqrf(N, N, A.a, 1, 1, A.desc, tau, &wq, -1, &info);
    lwf = getenv("FTLA_BENCH_MINWORK") && atoi(getenv("FTLA_BENCH_MINWORK")) ? lw : (int)wq;
    double *workf = malloc(sizeof(double) * (size_t)(lwf > lw ? lwf : lw));
    double *t = calloc((size_t)(4 * runs), sizeof(double));
    double *tp = calloc((size_t)(2 * runs), sizeof(double)); /* gemm's, then geqrf's */
    const double al = 1.0, be = 0.5;
    for (int r = 0; r <= runs; r++)
        for (int v = 0; v < 4; v++) {
            const int w = r % 2 ? 3 - v : v; /* alternate the order */
            if (!bench_runs(only, w)) continue;
            memcpy(A.a, A0.a, bytes);
            Cblacs_barrier(g.ctxt, "All");
            const double t0 = wall();
            if (w == 0)
                pdgemm_("N", "N", &N, &N, &N, &al, A.a, &one, &one, A.desc, B.a, &one, &one, B.desc,
                        &be, C.a, &one, &one, C.desc, 1, 1);
            else if (w == 1) {
                ft_report_t rep;
                ft_pdgemm_ex(NULL, 'N', 'N', N, N, N, al, A.a, 1, 1, A.desc, B.a, 1, 1, B.desc, be,
                             C.a, 1, 1, C.desc, &rep);
                if (r > 0) tp[r - 1] = rep.time_protect; /* the root's own clock */
            }
            else if (w == 2) pdgeqrf_(&N, &N, A.a, &one, &one, A.desc, tau, work, &lw, &info);
            else {
                ft_report_t rep;
                ft_pdgeqrf_ex(NULL, N, N, A.a, 1, 1, A.desc, tau, workf, lwf, &info, &rep);
                if (r > 0) tp[runs + r - 1] = rep.time_protect; /* the mean over the ranks */
            }
            Cblacs_barrier(g.ctxt, "All");
            if (r > 0) t[w * runs + r - 1] = wall() - t0; /* run 0: warm-up */
        }
    static const char *nm[4] = {"PDGEMM", "ft_pdgemm", "PDGEQRF", "ft_pdgeqrf"};
    double med[4], *pr = calloc((size_t)(2 * runs), sizeof(double));
    for (int k = 0; k < 2; k++) /* paired ratios: ft / engine of each round */
        for (int r = 0; r < runs; r++)
            pr[k * runs + r] = t[(2 * k + 1) * runs + r] / t[2 * k * runs + r];
    for (int k = 0; k < 2; k++) qsort(pr + k * runs, (size_t)runs, sizeof(double), cmpd);
    for (int w = 0; w < 4; w++) {
        qsort(t + w * runs, (size_t)runs, sizeof(double), cmpd);
        med[w] = t[w * runs + runs / 2];
        if (g_me == 0 && bench_runs(only, w))
            printf("%% %dx%d N %d nb %d %-10s median %.4f s (%.4f - %.4f)\n", g.nprow, g.npcol, N,
                   nb, nm[w], med[w], t[w * runs], t[w * runs + runs - 1]);
    }
    qsort(tp, (size_t)runs, sizeof(double), cmpd);
    qsort(tp + runs, (size_t)runs, sizeof(double), cmpd);
    for (int k = 0; k < 2 && g_me == 0; k++) {
        if (!bench_runs(only, 2 * k)) continue;
        const double *q = tp + k * runs;
        if (k == 0)
            printf("%% ft_pdgemm's protection (encoding, sums, checks; the root's clock) median "
                   "%.4f s (%.4f - %.4f)\n",
                   q[runs / 2], q[0], q[runs - 1]);
        else
            printf("%% ft_pdgeqrf's protection (setup, checkpoint, checks, copy back; the mean "
                   "of the ranks' clocks) median %.4f s (%.4f - %.4f)\n",
                   q[runs / 2], q[0], q[runs - 1]);
        printf("%% ratio ft/engine: %s %.3f; paired by round: median %.3f (%.3f - %.3f)\n",
               k ? "geqrf" : "gemm", med[2 * k + 1] / med[2 * k], pr[k * runs + runs / 2],
               pr[k * runs], pr[k * runs + runs - 1]);
    }
    free(tp), free(pr);
    free(t), free(work), free(workf), free(tau), free(A.a), free(B.a), free(C.a), free(A0.a);
    Cblacs_gridexit(g.ctxt);
}

int main(int argc, char **argv)
{
    Cblacs_pinfo(&g_me, &g_np);
    if (argc > 3 && !strcmp(argv[1], "--campaign")) {
        const int nf = argc > 5 ? atoi(argv[5]) : 1;
        if (nf < 1 || nf > DIST_CAMPAIGN_MAXF) {
            if (g_me == 0)
                fprintf(stderr, "test_dist: faults per trial must be 1..%d\n", DIST_CAMPAIGN_MAXF);
            Cblacs_exit(0);
            return 2;
        }
        const int f = dist_campaign(atoi(argv[2]), (uint64_t)strtoull(argv[3], NULL, 10),
                                    argc > 4 ? atoi(argv[4]) : 0, nf, 0u);
        Cblacs_exit(0);
        return f ? 1 : 0;
    }
    if (argc > 4 && !strcmp(argv[1], "--bench")) {
        bench(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 0,
              argc > 6 ? argv[6] : NULL);
        Cblacs_exit(0);
        return 0;
    }
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int shapes[][2] = {{1, 0}, {0, 0}};
    int ng = 0;
    for (int p = 1; p <= g_np; p++)
        if (g_np % p == 0 && ng < 2) shapes[ng][0] = p, shapes[ng][1] = g_np / p, ng++;
    if (g_np == 4) shapes[0][0] = 2, shapes[0][1] = 2, shapes[1][0] = 1, shapes[1][1] = 4;
    if (g_np == 2) shapes[0][0] = 1, shapes[0][1] = 2, shapes[1][0] = 2, shapes[1][1] = 1;
    if (g_np == 1) ng = 1;
    if (g_me == 0) printf("%% test_dist: %d process(es)\n", g_np);
    for (int s = 0; s < ng; s++) {
        grid_t g;
        Cblacs_get(-1, 0, &g.ctxt);
        Cblacs_gridinit(&g.ctxt, "Row", shapes[s][0], shapes[s][1]);
        Cblacs_gridinfo(g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
        const int nbs[3] = {1, 7, 32};
        for (int b = 0; b < 3; b++) {
            if (quick && b == 0) continue;
            gemm_case(&g, nbs[b], 'N', 'N', 37, 29, 23);
            gemm_case(&g, nbs[b], 'T', 'N', 26, 33, 19);
            gemm_case(&g, nbs[b], 'N', 'T', 31, 17, 40);
            qr_case(&g, nbs[b], 45, 33);
            qr_case(&g, nbs[b], 30, 41);
        }
        /* one process: local arrays over the host team's threshold (FT_TEAM_MIN_WORK, 2^20
         * elements), so ft_pdgemm's passes run split over threads (CTest sets
         * FTLA_HOST_THREADS=2 here): rows (C's sums with its column sums by tiles, B's, A's
         * absolute sums and digests) and columns (op(A) = A^T, op(B) = B^T); and ft_pdgeqrf's
         * (the setup and the final check by rows, the checkpoint of Q and the copies by
         * columns), every fault case of qr_case */
        if (g_np == 1 && !quick) {
            gemm_case(&g, 32, 'N', 'N', 1030, 1030, 1030);
            gemm_case(&g, 32, 'T', 'N', 1030, 1030, 1030);
            gemm_case(&g, 32, 'N', 'T', 1030, 1030, 1030);
            qr_case(&g, 32, 1030, 1030);
        }
        args_case(&g);
        Cblacs_gridexit(g.ctxt);
    }
    if (g_me == 0) printf("%d passed, %d failed\n", g_pass, g_fail);
    const int rc = g_fail ? 1 : 0;
    Cblacs_exit(0);
    return rc;
}
