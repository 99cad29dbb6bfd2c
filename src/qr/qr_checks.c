/*
 * qr_checks.c — ft_dgeqrf's protection (paper 004, docs/qr.md): two checksum columns c = A e,
 * v = A w (w_j = abft_weight(j, W), W = the smallest power of two >= n) are kept in dCS (m x 2)
 * and every trailing update applies the same block reflector to them, so at any panel step i
 * (rows/columns 0:i finished)
 *     c(0:i) = R11 e1 + R12 e2,    c(i:m) = A22 e2        (and the same with w),
 * and after the factorization c = R e. The checks
 *     r = c - [R11 R12; 0 A22] e,   s = v - [R11 R12; 0 A22] w
 * are computed by check_sums() in O(mn), one read of the trapezoid (the backend's qr_wsums).
 *   - no failing row: clean;
 *   - r fails, s clean (or the converse): a checksum column was hit; data untouched;
 *   - one failing row l, s_l / r_l = w_j (paper 004, eq. (6): s = w_j r locates the column):
 *     a single element (l, j) hit after the last transformation touching row l (finished R, or
 *     the trailing matrix at an online check): corrected in place (zero it, recompute the row
 *     sum, set it to c_l - sum of the others);
 *   - several failing rows with a common ratio w_j: an error consumed by later panels
 *     (equivalent to an error in column j of the input): located, and recovered from the
 *     original column (QR update or re-factorization, qr_recover.c); without one, reported
 *     (FT_ERR_NOT_RECOVERED).
 * Threshold: abft_qr_tau (src/abft/abft.h) from the column norms of the original A.
 */
#include "backend/host/host_queue.h"
#include "qr/qr_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MAX_SINGLE 64 /* failing rows examined one by one for single-element errors */
#define QR_VERIFY_BLOCKS 128 /* checksum blocks whose analyses a check keeps (n <= 128 K) */

/* The weights of the checksum columns for the current sigma (qr_wsums' EW) into hEW and dEW:
 * block-diagonal, columns 3b, 3b+1, 3b+2 carry [sigma e, sigma w, sigma v] on block b's columns
 * (local weights w_jj = abft_weight(jj, W), v_jj = abft_weight_perm(jj, W), W = abft_wden(nbc))
 * and zeros elsewhere. Two checksums identify one error; the third, in an order unrelated to w,
 * confirms it: a second error in the same row that a correction absorbed, or two errors
 * cancelling in one checksum, show in it (issue 7). */
static int set_weights(qr_t *g)
{
    const int64_t n = g->n, nbc = g->nbc;
    for (int64_t j = 0; j < n; j++) { /* column j's three weights in its block (qr_wsums) */
        const int64_t b = j / nbc;
        g->hEW[j] = g->sigma;
        g->hEW[j + n] = g->sigma * abft_weight(j - b * nbc, g->W);
        g->hEW[j + 2 * n] = g->sigma * abft_weight_perm(j - b * nbc, g->W);
    }
    return g->be->set_matrix(g->qm, n, QR_NCS, g->hEW, n, g->dEW, n);
}

/* Checksums and the norms of the original A. The norms come first (one wait for the device):
 * they choose the power-of-two scale sigma of the checksum columns, c = A (sigma e),
 * v = A (sigma w), so that the row sums of data near the overflow threshold stay finite
 * (issue 7: A ~ 1e306 left every check unverifiable). Scaling by a power of two is exact; the
 * checks, the residuals and the threshold are all in the same scaled units. */
int qr_encode(qr_t *g)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n, B = g->ncb, nbc = g->nbc;
    const double t0 = ft_wtime();
    /* the host backend: one read of A for everything below — the checksums with sigma = 1
     * (again with the sigma found, when it is not 1: data near overflow), the columns' norms and
     * the copy of A for recovery (qr_source_begin). Three reads and a memcpy had cost 20-25 ms of
     * a 4096 x 2048 factorization's 0.4 s on two cores (bench/NOTES.md, issue 11 session 7). */
    int fused = 0;
    if (g->host && m > 0 && n > 0 && nbc <= 1024) {
        double *scr;
        FT_CHECK(ft_call_pinned_doubles(g->call, ft_host_qr_encode_scratch(m, n), &scr));
        g->sigma = 1.0;
        FT_CHECK(set_weights(g));
        FT_CHECK(ft_host_qr_encode(g->qm, m, n, g->dA, g->ldda, g->dEW, n, nbc, QR_NCS, g->dCS,
                                   m, g->dN1, g->dMx, scr, g->src_enc, g->ldsrc));
        g->src_enc = NULL; /* taken once, of the input */
        fused = 1;
    } else {
        /* ||a_j||_1 and max_i |a_ij|, in one read of A */
        FT_CHECK(be->col_asum_max(g->qm, m, n, g->dA, g->ldda, g->dN1, g->dMx));
    }
    FT_CHECK(be->get_matrix(g->qm, n, 1, g->dN1, n, g->hN, n));
    FT_CHECK(be->get_matrix(g->qm, n, 1, g->dMx, n, g->hN + n, n));
    FT_CHECK(be->sync(g->qm));
    double amax = 0.0;
    for (int64_t j = 0; j < n; j++)
        if (!(g->hN[n + j] <= amax)) amax = g->hN[n + j]; /* NaN propagates */
    g->sigma = 1.0;
    if (isfinite(amax) && amax * (double)n > 0x1p1000) {
        int e;
        frexp(amax * (double)n, &e); /* amax n < 2^e */
        g->sigma = ldexp(1.0, 1000 - e);
    }
    if (!fused || g->sigma != 1.0) {
        FT_CHECK(set_weights(g));
        FT_CHECK(be->qr_wsums(g->qm, m, n, 0, g->dA, g->ldda, g->dEW, n, nbc, QR_NCS, g->dCS, m));
    }
    /* the plain checksum of every block (columns 0, 3, 6, ...) for the thresholds */
    FT_CHECK(be->get_matrix(g->qm, m, B, g->dCS, QR_NCS * m, g->hN + 2 * n, m));
    g->tc_enc += ft_wtime() - t0;
    return FT_SUCCESS;
}

/* Needs hN = [||a_j||_1 (n), max_i |a_ij| (n), c = A (sigma e) (m)] on the host (queue MAIN
 * synced). ||a_j||_2 <= sqrt(||a_j||_1 max_i |a_ij|) (Hoelder), or sqrt(m) max_i |a_ij| when the
 * 1-norm itself overflowed; each multiplied by sigma and by u before summing, so the bound is
 * finite whenever the data are. */
double qr_col_norm(const qr_t *g, int64_t j)
{
    const double n1 = g->hN[j], mx = g->hN[g->n + j];
    return isfinite(n1) || !isfinite(mx) ? sqrt(n1) * sqrt(mx) : sqrt((double)g->m) * mx;
}

void qr_threshold(qr_t *g)
{
    const int64_t m = g->m, n = g->n;
    int ok = 1;
    g->thr = g->bound = 0.0;
    for (int64_t b = 0; b < g->ncb; b++) {
        const int64_t j0 = b * g->nbc, j1 = j0 + g->nbc < n ? j0 + g->nbc : n;
        double sa = 0.0;
        for (int64_t j = j0; j < j1; j++) sa += (g->sigma * ABFT_U) * qr_col_norm(g, j);
        const double ce = abft_nrm2(m, g->hN + 2 * n + b * m);
        /* = abft_qr_bound(sigma sum_{j in b} ||a_j||, sigma ||A_b e||) */
        g->boundb[b] = sa + ABFT_U * ce;
        g->thrb[b] = abft_qr_tau(g->pol.tol, m, n, g->boundb[b]);
        if (!isfinite(g->thrb[b]) || !isfinite(sa) || !isfinite(ce)) ok = 0;
        if (g->thrb[b] > g->thr) g->thr = g->thrb[b];
        if (g->boundb[b] > g->bound) g->bound = g->boundb[b];
    }
    g->checkable = ok;
    g->norms_ready = 1;
    if (!g->checkable) {
        g->rep->unchecked++;
        int finite = 1; /* the column maxima (NaN-propagating) are finite iff A is */
        for (int64_t j = 0; j < n; j++)
            if (!isfinite(g->hN[n + j])) finite = 0;
        g->unchecked_finite = finite;
        ft_log(g->ctx, 1, "dgeqrf: checks skipped: %s",
               finite ? "the threshold overflows on finite input" : "input not finite");
    }
}

/* What check_sums does: CS_X forms X = [R11 R12; 0 A22] EW (m x 3B) at panel boundary i into
 * dX (the backend's qr_wsums: EW is block diagonal, so a product with the dense EW would spend
 * B times the flops on its zeros; at n = 16384 its dtrmm and dgemm took most of the final
 * check; without it dX is the last one formed, valid while A has not changed since); CS_SIZES
 * brings back the sizes of the residuals dCS - dX (hRes, 2 numbers a checksum column: what a
 * clean check needs, and which blocks fail); CS_FULL the residuals of the current block g->cb
 * (its columns of hX, hC: what locating and correcting read; other blocks' come back when
 * they are analysed, res_fetch); CS_STALE only marks the host residuals out of date (dCS
 * changed). Syncs MAIN. */
enum { CS_X = 1, CS_SIZES = 2, CS_FULL = 4, CS_STALE = 8 };

/* Block b's residual columns (hX, hC) from work memory, unless they are current. */
static int res_fetch(qr_t *g, int64_t b)
{
    if (g->hrg[b] == g->res_gen) return FT_SUCCESS;
    const int64_t m = g->m, o = QR_NCS * b * m;
    FT_CHECK(g->be->get_matrix(g->qm, m, QR_NCS, g->dX + o, m, g->hX + o, m));
    FT_CHECK(g->be->get_matrix(g->qm, m, QR_NCS, g->dCS + o, m, g->hC + o, m));
    FT_CHECK(g->be->sync(g->qm));
    g->hrg[b] = g->res_gen;
    return FT_SUCCESS;
}

static int check_sums(qr_t *g, int64_t i, int what)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n;
    FT_CHECK(be->sync(g->qs));
    const double t0 = ft_wtime();
    const int64_t c2 = QR_NCS * g->ncb;
    if (what & CS_X)
        FT_CHECK(be->qr_wsums(g->qm, m, n, i, g->dA, g->ldda, g->dEW, n, g->nbc, QR_NCS, g->dX,
                              m));
    if (what & (CS_X | CS_FULL | CS_STALE))
        g->res_gen++; /* hX, hC out of date; location_unique's sums too */
    if (what & CS_SIZES) {
        FT_CHECK(be->qr_res_sizes(g->qm, m, c2, g->dCS, g->dX, m, g->dRes));
        FT_CHECK(be->get_matrix(g->qm, 2 * c2, 1, g->dRes, 2 * c2, g->hRes, 2 * c2));
    }
    FT_CHECK(be->sync(g->qm));
    if (what & CS_FULL) FT_CHECK(res_fetch(g, g->cb));
    g->tc_sums += ft_wtime() - t0;
    return FT_SUCCESS;
}

/* Does block b fail by the sizes of the last check_sums(CS_SIZES): a row or a norm above its
 * threshold, or not finite? */
int qr_block_fails_sizes(const qr_t *g, int64_t b)
{
    const double thr = g->thrb[b], *z = g->hRes + 2 * QR_NCS * b; /* max, norm of r, s, t */
    for (int c = 0; c < 2 * QR_NCS; c++)
        if (!(z[c] <= thr)) return 1;
    return 0;
}

/* The residuals of the last check_sums(CS_SIZES) all clean (no row above its block's threshold,
 * no norm above it: what analyse() would find, from the sizes alone); the rounding measured on
 * them into noise_ref and max_ratio. 0: something fails (or is not finite): the full analysis. */
static int sizes_clean(qr_t *g)
{
    double noise = -1.0, ratio = g->max_ratio;
    for (int64_t b = 0; b < g->ncb; b++) {
        const double bd = g->boundb[b];
        const double *z = g->hRes + 2 * QR_NCS * b; /* max, norm of r, s, t */
        if (qr_block_fails_sizes(g, b)) return 0;
        if (!(bd > 0)) continue;
        double x = z[0] > z[2] ? z[0] : z[2];
        if (z[4] > x) x = z[4];
        if (x / bd > noise) noise = x / bd;
        if (z[0] / bd > ratio) ratio = z[0] / bd;
        if (z[2] / bd > ratio) ratio = z[2] / bd;
    }
    g->noise_ref = noise;
    g->max_ratio = ratio;
    return 1;
}

static int row_fails(double d, double thr) { return !(fabs(d) <= thr); }

/* Is the ratio s_l / r_l of a row precise enough to name a column? |r_l| >= 8 W tau: the ratio
 * noise 2 tau / |r_l| is then below a quarter of the weight spacing 1/(2W). */
static int ratio_precise(const qr_t *g, double r)
{
    return fabs(r) >= 8.0 * (double)g->W * g->thrb[g->cb];
}

/* The residuals of the current checksum block g->cb at row l: r = c - X e_b, s = . - X w_b,
 * t = . - X v_b (the third checksum). */
static inline double res_k(const qr_t *g, int64_t l, int c)
{
    const int64_t o = (QR_NCS * g->cb + c) * g->m;
    return g->hC[o + l] - g->hX[o + l];
}
static inline double res_r(const qr_t *g, int64_t l) { return res_k(g, l, 0); }
static inline double res_s(const qr_t *g, int64_t l) { return res_k(g, l, 1); }
static inline double res_t(const qr_t *g, int64_t l) { return res_k(g, l, 2); }
/* Does any of row l's three checks fail? */
static int row_any_fails(const qr_t *g, int64_t l)
{
    const double thr = g->thrb[g->cb];
    return row_fails(res_r(g, l), thr) || row_fails(res_s(g, l), thr) ||
           row_fails(res_t(g, l), thr);
}
/* Is the third residual of row l consistent with one error in local column jj (or with no
 * error when r is clean)? */
static int third_consistent(const qr_t *g, double r, double t, int64_t jj)
{
    return abft_consistent(r, t, abft_perm(jj, g->W), abft_perm_den(g->W), g->thrb[g->cb]);
}

typedef struct {
    int64_t nr, ns, nt;       /* failing rows of r, of s, of t */
    int64_t lmax;             /* row of the largest |r| (non-finite first) */
    double rmax, smax, tmax;  /* max |r|, |s|, |t| (NaN counts as Inf) */
    double rn, sn, tn;        /* ||r||_2, ||s||_2, ||t||_2 (scaled; Inf when not finite) */
    int fr, fs, ft;           /* r fails (a row, or the aggregate), s fails, t fails */
    int64_t lonly;            /* the only failing row (r, s or t), or -1 */
} analysis_t;

/* Does anything fail? Rows, or the aggregate test: the threshold bounds the 2-norm of the
 * rounding residual (columnwise backward stability, docs/qr.md), so an error spread by later
 * panels over many rows, each below tau, is caught by ||r||_2 > tau (issue 7, hole 5). */
static int fails(const analysis_t *a) { return a->fr || a->fs || a->ft; }

/*
 * The clean level of the current block: what every residual (in norm) must be at after a
 * correction. tau / 2, and no more than 16 times the rounding actually measured on the blocks
 * that pass at this check (noise_ref, relative to each block's bound; at least 4 u (sum ||a_j|| +
 * ||A_b e||)): tau
 * bounds the worst case, (m + n) roundings, while clean residuals measure orders of magnitude
 * less on most data (docs/qr.md), and a second error of a few tau in the corrected row, absorbed
 * by the correction, leaves only (w_a - w_j) delta and (v_a - v_j) delta behind (issue 7,
 * campaign seed 22, 2 faults, trial 1668). A correction that misses this level is undone and the
 * error reported: it can cost a correction, never a false alarm.
 */
static double clean_thr(const qr_t *g)
{
    const double half = g->thrb[g->cb] / 2, bd = g->boundb[g->cb];
    if (!(g->noise_ref >= 0)) return half;
    double lv = 16.0 * g->noise_ref * bd;
    const double fl = 4.0 * bd; /* bd = u (sum ||a_j|| + ||A_b e||) already */
    if (!(lv >= fl)) lv = fl;
    return lv < half ? lv : half;
}

/* Every residual at the clean level: what a correction must leave. */
static int clean_level(const qr_t *g, const analysis_t *a)
{
    const double lv = clean_thr(g);
    return !fails(a) && a->rn <= lv && a->sn <= lv && a->tn <= lv;
}

/* 2-norm of residual c of the block (abft_diff_nrm2: scaled, no overflow or underflow). */
static double res_norm(const qr_t *g, int c, double mx)
{
    const int64_t o = (QR_NCS * g->cb + c) * g->m;
    return abft_diff_nrm2(g->m, g->hC + o, g->hX + o, mx);
}

/* The block's residuals in one branch-free pass (counts and maxima by selects, NaN counted as
 * Inf), then a short second pass for the rows it must name (the first row of the largest |r|,
 * the only failing row). Only where a check fails: a clean one is decided from the residuals'
 * sizes alone (sizes_clean). */
static int analyse(qr_t *g, analysis_t *a)
{
    FT_CHECK(res_fetch(g, g->cb));
    const int64_t m = g->m;
    const double thr = g->thrb[g->cb];
    const int64_t o = QR_NCS * g->cb * m;
    const double *c0 = g->hC + o, *c1 = c0 + m, *c2 = c1 + m;
    const double *x0 = g->hX + o, *x1 = x0 + m, *x2 = x1 + m;
    memset(a, 0, sizeof *a);
    a->lmax = -1;
    a->lonly = -1;
    int64_t nr = 0, ns = 0, nt = 0, nany = 0;
    double rmax = 0.0, smax = 0.0, tmax = 0.0;
    for (int64_t l = 0; l < m; l++) {
        double ar = fabs(c0[l] - x0[l]), as = fabs(c1[l] - x1[l]), at = fabs(c2[l] - x2[l]);
        ar = ar == ar ? ar : INFINITY; /* NaN counts as Inf */
        as = as == as ? as : INFINITY;
        at = at == at ? at : INFINITY;
        const int fr = !(ar <= thr), fs = !(as <= thr), ft = !(at <= thr);
        nr += fr, ns += fs, nt += ft, nany += fr | fs | ft;
        rmax = ar > rmax ? ar : rmax;
        smax = as > smax ? as : smax;
        tmax = at > tmax ? at : tmax;
    }
    a->nr = nr, a->ns = ns, a->nt = nt;
    a->rmax = rmax, a->smax = smax, a->tmax = tmax;
    for (int64_t l = 0; l < m && a->lmax < 0; l++) { /* the first row of the largest |r| */
        double ar = fabs(c0[l] - x0[l]);
        if ((ar == ar ? ar : INFINITY) == rmax) a->lmax = l;
    }
    if (nany == 1)
        for (int64_t l = 0; l < m; l++)
            if (row_any_fails(g, l)) {
                a->lonly = l;
                break;
            }
    a->rn = res_norm(g, 0, a->rmax);
    a->sn = res_norm(g, 1, a->smax);
    a->tn = res_norm(g, 2, a->tmax);
    a->fr = a->nr > 0 || row_fails(a->rn, thr);
    a->fs = a->ns > 0 || row_fails(a->sn, thr);
    a->ft = a->nt > 0 || row_fails(a->tn, thr);
    return FT_SUCCESS;
}

/* What analyse() finds for block b when it passes by the sizes of the last check_sums
 * (CS_SIZES): nothing fails, and the maxima and norms are the sizes' (the same subtractions on
 * the device). The host pass over the m rows of a block is then not needed: at a failing check
 * only the failing blocks are read row by row (64 blocks of 16384 rows took 5 ms). */
static void analysis_from_sizes(const qr_t *g, int64_t b, analysis_t *a)
{
    const double *z = g->hRes + 2 * QR_NCS * b; /* max, norm of r, s, t */
    memset(a, 0, sizeof *a);
    a->lmax = -1;
    a->lonly = -1;
    a->rmax = z[0], a->rn = z[1];
    a->smax = z[2], a->sn = z[3];
    a->tmax = z[4], a->tn = z[5];
}

/* The current block's analysis at a failing check: from its sizes where it passes by them, else
 * read row by row. */
static int analyse_block(qr_t *g, analysis_t *a)
{
    if (qr_block_fails_sizes(g, g->cb)) return analyse(g, a);
    analysis_from_sizes(g, g->cb, a);
    return FT_SUCCESS;
}

/*
 * Is the location jj (local column of the current block) the only one a correction by r could
 * take? A correction by r in local column c changes s by w_c r and t by v_c r, so each candidate's
 * residuals after the correction can be predicted without touching A. Row l >= 0: one element
 * (row l; the other rows keep their residuals); l < 0: the whole column (every row). A candidate
 * c >= lo (local) other than jj whose predicted residuals also reach the clean level (clean_thr,
 * in norm) makes the location ambiguous: an error of a few tau, whose ratio is imprecise, fits
 * several columns, and the correction could move it into a neighbouring one (issue 7, campaign
 * seed 21, 2 faults, trial 1397). Such an error is reported, not corrected.
 */
static int location_unique(qr_t *g, int64_t l, int64_t lo, int64_t jj)
{
    const int64_t m = g->m, j0 = g->cb * g->nbc;
    const int64_t nj = j0 + g->nbc < g->n ? g->nbc : g->n - j0;
    const double half = clean_thr(g);
    /* residual scale for the sums of squares (no overflow or underflow), and the sums over all
     * rows: formed once per block and residuals (verify_block asks for every failing row, and
     * an error spread by later panels fails thousands: O(m) a row made that O(m^2)) */
    if (g->lu_gen != g->res_gen || g->lu_cb != g->cb || g->res_gen == 0) {
        double mx = 0.0;
        for (int64_t t = 0; t < m; t++) {
            const double a = fabs(res_r(g, t)), b = fabs(res_s(g, t)), c = fabs(res_t(g, t));
            if (!(a <= mx)) mx = a;
            if (!(b <= mx)) mx = b;
            if (!(c <= mx)) mx = c;
        }
        double S = 0.0, T = 0.0;
        if (isfinite(mx) && mx > 0.0)
            for (int64_t t = 0; t < m; t++) {
                const double a = res_s(g, t) / mx, b = res_t(g, t) / mx;
                S += a * a;
                T += b * b;
            }
        g->lu_mx = mx, g->lu_s2 = S, g->lu_t2 = T;
        g->lu_gen = g->res_gen, g->lu_cb = g->cb;
    }
    const double mx = g->lu_mx;
    if (!isfinite(mx)) return 0;
    if (mx == 0.0) return 1;
    const double h = half / mx, h2 = h * h;
    double s2 = 0.0, t2 = 0.0; /* the untouched rows (single-element candidates) */
    if (l >= 0) {
        /* every candidate's ss starts from s2 (the other rows) and only grows: when the other
         * rows alone are above the clean level, none can reach it. Decided from the sums over
         * all rows less row l, with a margin for their rounding (16 u of the total: the sums
         * of m squares and the subtraction); otherwise s2, t2 are summed exactly as before. */
        const double a = res_s(g, l) / mx, b = res_t(g, l) / mx;
        const double es = g->lu_s2 - a * a, et = g->lu_t2 - b * b;
        const double ms = 16.0 * ABFT_U * ((double)m + 4.0) * g->lu_s2;
        const double mt = 16.0 * ABFT_U * ((double)m + 4.0) * g->lu_t2;
        if (es - ms > h2 || et - mt > h2) return 1;
        for (int64_t t = 0; t < m; t++)
            if (t != l) {
                const double u = res_s(g, t) / mx, v = res_t(g, t) / mx;
                s2 += u * u;
                t2 += v * v;
            }
    }
    for (int64_t c = lo > 0 ? lo : 0; c < nj; c++) {
        if (c == jj) continue;
        const double w = abft_weight(c, g->W), v = abft_weight_perm(c, g->W);
        double ss = s2, tt = t2;
        for (int64_t t = l >= 0 ? l : 0; t < (l >= 0 ? l + 1 : m); t++) {
            const double r = res_r(g, t) / mx;
            const double a = res_s(g, t) / mx - w * r, b = res_t(g, t) / mx - v * r;
            ss += a * a;
            tt += b * b;
        }
        if (ss <= h2 && tt <= h2) return 0;
    }
    return 1;
}

/* Column of a single error in row l (cols [lo, n) of the current block) from s_l / r_l, or by
 * scanning the block's part of the row for
 * the only non-finite element when the check is not finite. -1 when not located. */
static int locate_row(qr_t *g, int64_t l, int64_t lo, int64_t *j)
{
    const int64_t n = g->n;
    double r = res_r(g, l), s = res_s(g, l);
    *j = -1;
    const int64_t j0 = g->cb * g->nbc, j1 = j0 + g->nbc < n ? j0 + g->nbc : n;
    if (isfinite(r) && isfinite(s) && r != 0.0) {
        int64_t jj = abft_locate(s / r, g->W), c = j0 + jj;
        if (jj >= 0 && c >= lo && c < j1 && abft_consistent(r, s, jj, g->W, g->thrb[g->cb]) &&
            third_consistent(g, r, res_t(g, l), jj) && location_unique(g, l, lo - j0, jj))
            *j = c;
        return FT_SUCCESS;
    }
    /* not finite: the corrupted element itself is Inf/NaN (an exponent flip) */
    if (lo < j0) lo = j0;
    int64_t cnt = j1 - lo, found = -1, nbad = 0;
    if (cnt <= 0) return FT_SUCCESS;
    FT_CHECK(g->be->get_matrix(g->qm, 1, cnt, g->dA + l + lo * g->ldda, g->ldda,
                               g->hrow, 1));
    FT_CHECK(g->be->sync(g->qm));
    for (int64_t c = 0; c < cnt; c++)
        if (!isfinite(g->hrow[c])) {
            nbad++;
            found = lo + c;
        }
    if (nbad == 1) *j = found;
    return FT_SUCCESS;
}

/* Column of an error spread over many rows (propagated: s = w_j r on every row, paper 004
 * eq. (2)), or -1. The ratio is fitted over all rows, w = (s . r) / (r . r), so rows whose
 * residuals are each below tau still contribute, and the fit must hold in norm:
 * ||s - w_j r||_2 <= 2 tau + ||r||_2 / (4W) (abft_consistent's rule for the vectors). */
static int64_t locate_common(const qr_t *g, const analysis_t *a)
{
    const int64_t m = g->m;
    if (!isfinite(a->rmax) || !isfinite(a->smax) || a->rmax == 0.0) return -1;
    double sr = 0.0, rr = 0.0;
    for (int64_t l = 0; l < m; l++) {
        double rl = (res_r(g, l)) / a->rmax, sl = (res_s(g, l)) / a->rmax;
        sr += sl * rl;
        rr += rl * rl;
    }
    if (!(rr > 0.0)) return -1;
    const int64_t j0 = g->cb * g->nbc, nj = j0 + g->nbc < g->n ? g->nbc : g->n - j0;
    int64_t jj = abft_locate(sr / rr, g->W);
    if (jj < 0 || jj >= nj) return -1;
    /* the fit must hold for the second and the third checksum */
    const double w = abft_weight(jj, g->W), v = abft_weight_perm(jj, g->W);
    double e2 = 0.0, f2 = 0.0;
    for (int64_t l = 0; l < m; l++) {
        double rl = res_r(g, l), sl = res_s(g, l), tl = res_t(g, l);
        double d = (sl - w * rl) / a->rmax, e = (tl - v * rl) / a->rmax;
        e2 += d * d;
        f2 += e * e;
    }
    const double lim = 2.0 * g->thrb[g->cb] + a->rn / (4.0 * (double)g->W);
    return a->rmax * sqrt(e2) <= lim && a->rmax * sqrt(f2) <= lim ? j0 + jj : -1;
}

/*
 * Data errors in a trailing column at an online check (column j >= i, not yet in a panel). The
 * updates apply Q^T to every trailing column on its own, and to the checksum columns with it,
 * so an error delta in column j stays in column j, spread over its rows as Q^T delta, and the
 * residual vector is exactly that spread: r = -sigma Q^T delta, s = w_j r. Correcting the whole
 * column by r removes all of it; correcting only the row above the threshold left the rest
 * below tau but outside the accuracy contract (issue 7, campaign seed 11 dgeqrf trial 1583).
 * Tried only when every failing row points to j on its own, precisely, or is the only one (a
 * second error of a few tau in another row and column cannot be told apart from the spread of
 * the first by the fitted ratio, and would be moved into column j: seed 22, 2 faults, trial
 * 1292); kept only if every check then passes at the clean level (tau / 2), else undone.
 * *done = 1 when corrected; otherwise A is as it was and *a describes the current residuals.
 */
static int correct_column(qr_t *g, int64_t i, int64_t step, analysis_t *a, int *done)
{
    const int64_t m = g->m;
    const double thr = g->thrb[g->cb];
    *done = 0;
    if (i >= g->k || !isfinite(a->rn) || !isfinite(a->sn)) return FT_SUCCESS;
    const int64_t j = locate_common(g, a);
    if (j < i) return FT_SUCCESS;
    int64_t nfail = 0, bad = 0;
    for (int64_t l = 0; l < m; l++) {
        const double r = res_r(g, l), s = res_s(g, l);
        if (!row_any_fails(g, l)) continue;
        nfail++;
        const int64_t jj = j - g->cb * g->nbc;
        if (!ratio_precise(g, r) || !abft_consistent(r, s, jj, g->W, thr) ||
            !third_consistent(g, r, res_t(g, l), jj))
            bad++;
    }
    if (nfail > 1 && bad > 0) return FT_SUCCESS;
    if (!location_unique(g, -1, i - g->cb * g->nbc, j - g->cb * g->nbc)) return FT_SUCCESS;

    double *col = g->dA + j * g->ldda;
    FT_CHECK(g->be->get_matrix(g->qm, m, 1, col, g->ldda, g->hcol, m));
    FT_CHECK(g->be->sync(g->qm));
    memcpy(g->hcol0, g->hcol, (size_t)m * sizeof(double));
    for (int64_t t = 0; t < m; t++) g->hcol[t] += res_r(g, t) / g->sigma;
    const int64_t l = a->lmax;
    const double before = g->hcol0[l], after = g->hcol[l];
    FT_CHECK(g->be->set_matrix(g->qm, m, 1, g->hcol, m, col, g->ldda));
    analysis_t b;
    FT_CHECK(check_sums(g, i, CS_X | CS_FULL));
    FT_CHECK(analyse(g, &b));
    if (clean_level(g, &b)) {
        g->rep->detected++;
        g->rep->located++;
        g->rep->corrected++;
        ft_report_event(g->rep, FT_EVENT_CORRECTED, l < i ? FT_REGION_R : FT_REGION_TRAILING, l,
                        j, step, before, after);
        ft_log(g->ctx, 2, "dgeqrf: corrected column %lld (largest change at row %lld: %.17g -> "
               "%.17g, step %lld, ||r|| %.3g, tau %.3g)", (long long)j, (long long)l, before,
               after, (long long)step, a->rn, thr);
        *done = 1;
        return FT_SUCCESS;
    }
    /* not (only) an error in a trailing column: put the column back */
    FT_CHECK(g->be->set_matrix(g->qm, m, 1, g->hcol0, m, col, g->ldda));
    FT_CHECK(check_sums(g, i, CS_X | CS_FULL));
    FT_CHECK(analyse(g, a));
    return FT_SUCCESS;
}

/*
 * An error located in column j that the single-element and whole-column corrections could not
 * take (qr_recover.c, docs/recovery.md): consumed by a panel (j < i), or a trailing column whose
 * spread was ambiguous. Needs the original column. Re-factorization path: ask the loop to start
 * again from the panel the error reached. QR-update path: w = Q~^T a_j - S(:, j) must agree with
 * the residual r / sigma of the plain checksum (else the original column itself is wrong, or
 * a second error shares the block: reported), then Algorithm 1 (j < i) or the column is
 * replaced (j >= i), and every check must be left at the clean level.
 */
static int recover_located(qr_t *g, int64_t i, int64_t step, int64_t j, analysis_t *a,
                           int *done)
{
    ft_report_t *rep = g->rep;
    *done = 0;
    if (g->src == QR_SRC_NONE) return FT_SUCCESS;
    if (g->path == QR_PATH_REFACTOR) {
        if (g->nrefactor >= QR_MAX_REFACTOR) {
            ft_log(g->ctx, 1, "dgeqrf: %d re-factorizations already: not recovered",
                   g->nrefactor);
            return FT_SUCCESS;
        }
        const int64_t P = (j < i ? j : i) / g->nb;
        if (g->refactor_from < 0 || P < g->refactor_from) g->refactor_from = P;
        rep->recovered++;
        rep->corrected++;
        ft_report_event(rep, FT_EVENT_RECOVERED, FT_REGION_TRAILING, -1, j, step, 2.0, 0.0);
        ft_log(g->ctx, 2, "dgeqrf: error in column %lld (step %lld): re-factorization from panel "
               "%lld", (long long)j, (long long)step, (long long)P);
        *done = 1;
        return FT_SUCCESS;
    }
    const double t0 = ft_wtime();
    int ok;
    FT_CHECK(qr_recovery_w(g, i, j, &ok));
    if (g->prof) g->ph_rec[QR_RPH_W] += ft_wtime() - t0;
    if (!ok) return FT_SUCCESS;
    /* the original column against the checksums: r = sigma w up to the rounding of both */
    const double thr = g->thrb[g->cb];
    double dmax = 0.0, wmax = 0.0;
    for (int64_t l = 0; l < g->m; l++) {
        const double d = fabs(g->sigma * g->hcol[l] - res_r(g, l));
        if (!(d <= dmax)) dmax = d;
        if (fabs(g->hcol[l]) > wmax) wmax = fabs(g->hcol[l]);
    }
    const double lim = thr + 8.0 * ABFT_U * sqrt((double)g->m) * g->sigma * wmax;
    if (!(dmax <= lim)) {
        ft_log(g->ctx, 1, "dgeqrf: column %lld: the original column disagrees with the "
               "checksums (%.3g > %.3g): its copy is wrong, or a second error shares the block; "
               "not recovered", (long long)j, dmax, lim);
        return FT_SUCCESS;
    }
    if (j >= i) FT_CHECK(qr_recovery_replace(g, j));
    else FT_CHECK(qr_recovery_update(g, i, j));
    const double tc = ft_wtime();
    FT_CHECK(check_sums(g, i, CS_X | CS_FULL));
    FT_CHECK(analyse(g, a));
    if (g->prof) g->ph_rec[QR_RPH_CHECK] += ft_wtime() - tc;
    g->trec += ft_wtime() - t0;
    if (!clean_level(g, a)) {
        ft_log(g->ctx, 1, "dgeqrf: column %lld: the checks do not pass after the QR update "
               "(||r|| %.3g, tau %.3g): not recovered", (long long)j, a->rn, thr);
        return FT_SUCCESS;
    }
    rep->recovered++;
    rep->corrected++;
    rep->recovery |= 1;
    ft_report_event(rep, FT_EVENT_RECOVERED, FT_REGION_TRAILING, -1, j, step, 1.0, 0.0);
    ft_log(g->ctx, 2, "dgeqrf: error in column %lld recovered by QR update at step %lld",
           (long long)j, (long long)step);
    *done = 1;
    return FT_SUCCESS;
}

/*
 * Act on the checks of checksum block g->cb (columns cb*nbc ...) at panel boundary i; the
 * residuals of all blocks are in hC - hX (check_sums), a0 their analysis. step = the panel step
 * about to be factored (or np at the end).
 */
static int verify_block(qr_t *g, int64_t i, int64_t step, const analysis_t *a0)
{
    const int64_t m = g->m;
    ft_report_t *rep = g->rep;
    analysis_t a = *a0;
    if (!fails(&a)) {
        const double bd = g->boundb[g->cb];
        if (bd > 0 && a.rmax / bd > g->max_ratio) g->max_ratio = a.rmax / bd;
        if (bd > 0 && a.smax / bd > g->max_ratio) g->max_ratio = a.smax / bd;
        goto out;
    }
    /* a checksum column: only one of the three checks fails and the other two stay at the
     * clean level (a data error delta shows in r as delta and in s and t as w_j delta and
     * v_j delta, both > delta/2). Two data errors cancelling in r show in s and in t, with
     * unrelated weights: not taken for a checksum error (issue 7, hole 5). */
    int csum_col = -1;
    const double q4 = g->thrb[g->cb] / 4;
    if (a.fr && !a.fs && !a.ft && a.sn <= q4 && a.tn <= q4) csum_col = 0;
    else if (a.fs && !a.fr && !a.ft && a.tn <= q4) csum_col = 1;
    else if (a.ft && !a.fr && !a.fs && a.rn <= q4 && a.sn <= q4) csum_col = 2;
    if (csum_col >= 0) {
        rep->checksum_errors++;
        ft_report_event(rep, FT_EVENT_CHECKSUM, FT_REGION_CHECKSUM, -1, QR_NCS * g->cb + csum_col,
                        step, 0.0, 0.0);
        ft_log(g->ctx, 2, "dgeqrf: checksum column %d corrupted (step %lld); data intact",
               csum_col, (long long)step);
        if (i < g->k) /* online: restore it from the data for the checks still to come */
            FT_CHECK(g->be->copy_matrix(g->qm, m, 1, g->dX + (QR_NCS * g->cb + csum_col) * m, m,
                                        g->dCS + (QR_NCS * g->cb + csum_col) * m, m));
        goto out;
    }
    {
        int done = 0;
        FT_CHECK(correct_column(g, i, step, &a, &done));
        if (done) goto out;
    }
    /* data errors. Each failing row l points to its own column j_l (s_l / r_l = w_j). An
     * element hit after the last transformation of its row shows in that row alone ("single":
     * finished R, or the trailing matrix at an online check) and is corrected in place; an
     * error consumed by later panels shows in many rows with one common ratio. Singles are
     * only trusted where the ratio is precise (|r_l| >= 8 W tau: the ratio noise 2 tau / |r_l|
     * is below a quarter of the weight spacing 1/(2W)) or when the row is the only one. */
    {
        int64_t F[MAX_SINGLE], J[MAX_SINGLE], nF = 0, nfail = 0;
        double before[MAX_SINGLE], after[MAX_SINGLE];
        int nsingle = 0;
        int64_t *Jall = g->hJ;
        int *cnt = g->hcnt;
        memset(cnt, 0, (size_t)g->n * sizeof(int));
        int64_t nonfinite = 0; /* non-finite checks: located by scanning the row (a few) */
        for (int64_t l = 0; l < m; l++)
            if (!isfinite(res_r(g, l)) || !isfinite(res_s(g, l)))
                nonfinite++;
        for (int64_t l = 0; l < m; l++) {
            Jall[l] = -1;
            if (!row_any_fails(g, l)) continue;
            nfail++;
            if (!(l < i || i < g->k)) continue; /* final check: rows >= k hold no data */
            double r = res_r(g, l);
            double sl = res_s(g, l);
            int finite = isfinite(r) && isfinite(sl);
            if ((finite && ratio_precise(g, r)) ||
                (!finite && nonfinite <= 8))
                FT_CHECK(locate_row(g, l, l < i ? l : i, &Jall[l]));
            if (Jall[l] >= 0) cnt[Jall[l]]++;
        }
        if (nfail == 1) { /* the only failing row: also imprecise or non-finite checks */
            for (int64_t l = 0; l < m; l++)
                if (row_any_fails(g, l)) {
                    if ((l < i || i < g->k) && Jall[l] < 0) {
                        FT_CHECK(locate_row(g, l, l < i ? l : i, &Jall[l]));
                        if (Jall[l] >= 0) cnt[Jall[l]]++;
                    }
                    break;
                }
        }
        for (int64_t l = 0; l < m && nF < MAX_SINGLE; l++)
            if (Jall[l] >= 0 && cnt[Jall[l]] == 1) {
                F[nF] = l;
                J[nF++] = Jall[l];
                nsingle++;
            }
        if (nsingle) {
            for (int64_t t = 0; t < nF; t++) {
                double *p = g->dA + F[t] + J[t] * g->ldda;
                FT_CHECK(g->be->get_elem(g->qm, p, &before[t]));
                FT_CHECK(g->be->set_elem(g->qm, p, 0.0));
            }
            FT_CHECK(check_sums(g, i, CS_X | CS_FULL));
            for (int64_t t = 0; t < nF; t++) {
                after[t] = (res_r(g, F[t])) / g->sigma; /* scaled units */
                FT_CHECK(g->be->set_elem(g->qm, g->dA + F[t] + J[t] * g->ldda, after[t]));
            }
            FT_CHECK(check_sums(g, i, CS_X | CS_FULL));
            FT_CHECK(analyse(g, &a));
            /* Every check, rows and aggregate, must be left at the clean level (clean residuals
             * measure below tau/4, docs/qr.md), not merely pass: an error already spread by an
             * update shows its largest row alone above tau, and "correcting" that row leaves
             * the rest of the spread; a second error in the row, absorbed by the correction,
             * leaves (v_a - v_j) delta in the third checksum (issue 7). Such a correction is
             * undone and the error reported. */
            const int verified = clean_level(g, &a);
            if (verified) {
                for (int64_t t = 0; t < nF; t++) {
                    ft_region_t reg = F[t] < i ? FT_REGION_R : FT_REGION_TRAILING;
                    rep->detected++;
                    rep->located++;
                    rep->corrected++;
                    ft_report_event(rep, FT_EVENT_CORRECTED, reg, F[t], J[t], step, before[t],
                                    after[t]);
                    ft_log(g->ctx, 2, "dgeqrf: corrected A(%lld,%lld) %.17g -> %.17g (step %lld)",
                           (long long)F[t], (long long)J[t], before[t], after[t], (long long)step);
                }
                goto out;
            }
            /* something still fails: these rows were not (only) single elements — e.g. the
             * largest rows of an error already spread by a panel. Put every value back and
             * treat the whole as one error below, never as corrected. */
            for (int64_t t = 0; t < nF; t++)
                FT_CHECK(g->be->set_elem(g->qm, g->dA + F[t] + J[t] * g->ldda, before[t]));
            FT_CHECK(check_sums(g, i, CS_X | CS_FULL));
            FT_CHECK(analyse(g, &a));
        }
    }
    rep->detected++;
    /* several rows (or a row that could not be resolved): an error consumed by later panels */
    int64_t j = locate_common(g, &a);
    if (j >= 0) {
        rep->located++;
        int done = 0;
        FT_CHECK(recover_located(g, i, step, j, &a, &done));
        if (done) goto out;
        g->not_recovered = 1;
        g->located_col = j;
        ft_report_event(rep, FT_EVENT_LOCATED, FT_REGION_TRAILING, -1, j, step, 0.0, 0.0);
        ft_log(g->ctx, 1, "dgeqrf: error located in column %lld (%lld failing rows, ||r|| = "
               "%.3g, tau %.3g), not recovered", (long long)j,
               (long long)(a.nr > a.ns ? a.nr : a.ns), a.rn, g->thrb[g->cb]);
    } else {
        rep->uncorrectable++;
        g->uncorrectable = 1;
        ft_report_event(rep, FT_EVENT_UNCORRECTABLE, FT_REGION_TRAILING, a.lmax, -1, step, 0.0,
                        0.0);
        ft_log(g->ctx, 1, "dgeqrf: error detected (%lld failing rows), not located",
               (long long)(a.nr > a.ns ? a.nr : a.ns));
    }
out:
    return FT_SUCCESS;
}

/*
 * Verify at panel boundary i (i = k: the final check) and act on the outcome, block by block
 * (an error in one block of columns does not disturb the checks of the others). step = the panel
 * step about to be factored (or np at the end).
 */
int qr_verify(qr_t *g, int64_t i, int64_t step)
{
    if (!g->norms_ready) {
        FT_CHECK(g->be->sync(g->qm));
        qr_threshold(g);
    }
    g->qv_final = -1; /* set below only by a recovery at the final check */
    if (!g->checkable || g->not_recovered || g->uncorrectable) return FT_SUCCESS;
    double t0 = ft_wtime();
    g->rep->checks += g->m * g->ncb;
    FT_CHECK(check_sums(g, i, CS_X | CS_SIZES));
    const double ta = ft_wtime();
    if (sizes_clean(g)) { /* the common case: no residual comes back */
        const double t1 = ft_wtime();
        g->tprot += t1 - t0;
        g->tc_an += t1 - ta;
        if (g->prof) g->ph_csum += t1 - t0;
        return FT_SUCCESS;
    }
    /* something fails: the failing checksum blocks the loop left behind are brought up to date
     * first, so that their residuals are what the analysis expects (the error's image under all
     * the reflectors, not part of them) */
    g->qv_c1 = 0; /* Q is verified once per check (qr_q_verify): on */
    FT_CHECK(qr_cs_catch_up(g, i));
    g->tc_catch += ft_wtime() - ta;
    /* dX is current (the catch-up changed dCS alone): the sizes again */
    FT_CHECK(check_sums(g, i, CS_STALE | CS_SIZES));
    /* the rounding actually seen at this check: the blocks that pass (each block analysed
     * once: a block acted on below is analysed again only after a change); a block that passes
     * by its sizes is not read row by row */
    analysis_t an[QR_VERIFY_BLOCKS];
    const int cache = g->ncb <= QR_VERIFY_BLOCKS;
    g->noise_ref = -1.0;
    for (g->cb = 0; g->cb < g->ncb; g->cb++) {
        analysis_t a;
        FT_CHECK(analyse_block(g, &a));
        if (cache) an[g->cb] = a;
        const double bd = g->boundb[g->cb];
        if (fails(&a) || !(bd > 0)) continue;
        double x = a.rmax > a.smax ? a.rmax : a.smax;
        if (a.tmax > x) x = a.tmax;
        if (x / bd > g->noise_ref) g->noise_ref = x / bd;
    }
    /* An element that became Inf/NaN makes its row of X non-finite in every block (0 * Inf in
     * the product with the block-diagonal weights): its own block is handled first, and its
     * correction clears the others. (A non-finite residual fails its block's sizes.) */
    int64_t first = 0;
    for (int64_t b = 0; b < g->ncb; b++)
        if (qr_block_fails_sizes(g, b)) FT_CHECK(res_fetch(g, b));
    for (int64_t l = 0, found = 0; l < g->m && !found; l++)
        for (g->cb = 0; g->cb < g->ncb; g->cb++)
            if (qr_block_fails_sizes(g, g->cb) &&
                (!isfinite(res_r(g, l)) || !isfinite(res_s(g, l)))) {
                const int64_t lo = l < i ? l : i, cnt = g->n - lo;
                if (cnt > 0) {
                    FT_CHECK(g->be->get_matrix(g->qm, 1, cnt, g->dA + l + lo * g->ldda, g->ldda,
                                               g->hrow, 1));
                    FT_CHECK(g->be->sync(g->qm));
                    for (int64_t c = 0; c < cnt; c++)
                        if (!isfinite(g->hrow[c])) {
                            first = (lo + c) / g->nbc;
                            break;
                        }
                }
                found = 1;
                break;
            }
    int changed = 0; /* a block acted on: the residuals of the others may have moved */
    const double tb = ft_wtime();
    for (int64_t t = 0; t < g->ncb; t++) {
        g->cb = t == 0 ? first : (t <= first ? t - 1 : t);
        analysis_t a;
        if (cache && !changed) a = an[g->cb];
        else FT_CHECK(analyse_block(g, &a));
        const int acted = fails(&a);
        FT_CHECK(verify_block(g, i, step, &a));
        if (g->not_recovered || g->uncorrectable) break;
        if (acted) { /* the sizes of every block now (dX is the current one: each action that
                      * changes A forms it again) */
            changed = 1;
            FT_CHECK(check_sums(g, i, CS_SIZES));
        }
    }
    /* the final check verified all of Q (a recovery's sums, nothing has written the vectors
     * since): the end of the call need not form them again */
    g->qv_final = i >= g->k ? g->qv_c1 : -1;
    g->qv_c1 = -1;
    const double t1 = ft_wtime();
    g->tc_blocks += t1 - tb;
    g->tprot += t1 - t0;
    g->tc_an += t1 - ta;
    if (g->prof) g->ph_csum += t1 - t0;
    return FT_SUCCESS;
}

