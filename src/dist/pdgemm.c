/*
 * pdgemm.c — ft_pdgemm: PDGEMM verified by checksum blocks (docs/dist.md).
 *
 * With the weights of ft_dgemm (abft.h: tiles of T columns, each with a plain and a weighted
 * checksum, every element scaled by sigma = 1/abft_gemm_rscale(T, k)) and a third checksum with
 * the permuted weights v (abft_weight_perm, as ft_dgeqrf's third) as the columns of an n x 3nt
 * matrix E:
 *     Y = op(B) E,  P = op(A) Y,  C0S = C E (before, beta != 0),  CS = C E (after),
 * each by a pass over the local arrays and one all-reduce (tile_sums, predict); a row i of tile J
 * is right when CS(i, 3J..3J+2) = alpha P + beta C0S within abft_check's threshold (the same
 * decision rule as ft_dgemm for the first two; the third within the same threshold: two errors
 * +-delta in one row cancel in the plain check and leave (w_a - w_b) delta in the weighted one,
 * below it where the columns are close, but (v_a - v_b) delta in the third, whose order is
 * unrelated to the columns'), with |op(A)| row norms, the block sums of |op(B)| and of |C|
 * reduced over the grid). The m x 3nt checks are replicated on every process (one all-reduce),
 * so every process takes the same decisions; each corrects the elements it owns.
 *
 * Where beta = 0, or the input C was kept (policy.backup_c = 1: a copy of the local C before the
 * product), a failing row of a tile is computed again from the operands by PDGEMM on that row (a
 * tile with more than eight such rows whole) — whatever the errors in it, Inf and NaN included.
 * Otherwise (the default with beta != 0: the copy costs 4-7 % at 4096 on 2 x 2) the errors are
 * located as ft_dgemm's rare path does (dgemm_repair.c): the column checks of the same tiles —
 * the row checks of C^T = alpha op(B)^T op(A)^T + beta C0^T, tiles of T rows: E_r^T C — are
 * formed on demand from the operands (their input part, E_r^T C0, was summed in the pass that
 * formed C0S, and is reduced only now), failing rows and columns of a tile are intersected
 * (one failing row: each failing column holds one error; one failing column: each failing row
 * holds one), a lone failing row or column is located by the ratio of its residuals, and each
 * located element is rebuilt from the check it is alone in:
 *     C(i, j) = (alpha P + beta C0S - CS_without)(i, J) / sigma   (or the column's).
 * Several rows and columns of one tile failing at once are peeled: a row (column) whose ratio
 * locates a failing column (row) consistently is rebuilt, and the rest seen again. Four rounds
 * of that at most; every row and column check must then pass, otherwise FT_ERR_UNCORRECTABLE
 * (an error in the operands recurs; a pattern that does not peel is reported, not guessed).
 *
 * The operands (policy.operand_check, on by default, as ft_dgemm's): a change to A or B after
 * the encoding read them makes C inconsistent with checksums of the values the caller passed —
 * a whole row (A) or column (B) of C, and for a low mantissa bit below every threshold. Each
 * process digests its local columns of sub(A) and sub(B) (the sum mod 2^64 of the bit patterns:
 * one changed element always changes it; ft_dgemm's digest is this sum, mixed) with the
 * encoding and again after the last product; a change anywhere is reported
 * (FT_ERR_UNCORRECTABLE, an FT_EVENT_UNCORRECTABLE event with region A or B and the first
 * changed column on its process, the verdict shared by the call's last all-reduce). Nothing is
 * repaired: C was computed from the changed values, and the caller's input is no longer what it
 * passed.
 */
#include "abft/abft.h"
#include "backend/backend.h"
#include "core/context.h"
#include "core/inject.h"
#include "core/simd.h"
#include "core/team.h"
#include "core/vec.h"
#include "dist/dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* checksums a tile: plain, weighted, permuted weights */
#define NCK 3

/* One side of the checks, replicated on every process: the row checks of C's tiles of T
 * columns (lines = the m rows, tiled extent n), or the column checks of its tiles of T rows
 * (lines = the n columns, tiled extent m: the row checks of C^T). */
typedef struct {
    int64_t m, ext, nt;  /* lines checked, the tiled extent, tiles */
    double *P, *C0, *CS; /* m x 3nt: the prediction op(A) op(B) E, C0 E, C E */
    double *an, *zmax;   /* m: row sums of |sig op(A)|; nt: max block sum of |sig op(B)| */
    double *h, *s;       /* m x nt: block sums of |sig C0|, |sig C| */
    double *mem;
} side_t;

typedef struct {
    dist_grid_t g;
    ft_context_t *ctx;
    ft_report_t *rep;
    char ta, tb;
    int m, n, k, ia, ja, ib, jb, ic, jc;
    double alpha, beta;
    const double *A, *B;
    double *C;
    const int *dA, *dB, *dC;
    int64_t T, W, nt, mt;
    double sig, rsig, tol;
    side_t r;   /* the row checks (always) */
    side_t c;   /* the column checks (the rare path of the default, beta != 0 without a copy) */
    double *buf; /* scratch for the sums of one all-reduce */
    double *c0t; /* n x 4mt: this process's part of C0's column sums (reduced on the rare path) */
    int root;    /* this process counts the replicated decisions */
    double *C0;  /* policy.backup_c = 1, beta != 0: this process's local array of C before the
                  * product, for the rows recomputed on the rare path */
    /* the operands' digests (policy.operand_check): op[0] A, op[1] B, this process's local
     * rectangle of the stored sub(X) and one digest a local column of it, taken with the
     * encoding (dig) */
    struct {
        int64_t r0, r1, c0, c1;
        uint64_t *dig;
    } op[2];
    int digested;
    /* FT_REGION_A / _B faults applied on this process, undone when the call returns */
    double *fp[FT_MAX_FAULTS], fbefore[FT_MAX_FAULTS];
    int nfp;
    /* FTLA_DIST_PROFILE: seconds of each phase on this process (printed by the root); pcpu:
     * by this thread's CPU time (FTLA_DIST_PROFILE=cpu) */
    double *pf;
    int pcpu;
} pg_t;

enum { PG_BSUMS, PG_PGEMM, PG_ANPASS, PG_C0SUMS, PG_PRODUCT, PG_CSUMS, PG_VERIFY, PG_DIGEST,
       PG_ALLRED, PG_N };
static const char *const pg_name[PG_N] = {"B_sums", "pred_gemm", "A_pass", "C0_sums", "product",
                                          "C_sums", "verify", "digests", "(allreduce)"};
/* the profile's clock: the wall clock, or with FTLA_DIST_PROFILE=cpu this thread's CPU time (a
 * rank sharing its core counts only its own work) */
static double pg_now(const pg_t *p)
{
    if (!p->pcpu) return ft_wtime();
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#define PG_TIC(p) const double pg_t0_ = pg_now(p)
#define PG_TOC(p, ph) ((p)->pf[ph] += pg_now(p) - pg_t0_)

/* Per-call scratch of the protected path (the sides' sums, the all-reduce buffer, Y, C0's column
 * sums, the local prediction's operand, the check flags, the kept C) from the context's host
 * arena: the blocks are kept between calls (up to FT_ARENA_KEEP), so that a call does not
 * fault in ~8 MB of fresh pages at 4096 on 2 x 2 (~1900 page faults a rank, a few ms:
 * bench/NOTES.md). Released together when the call ends (ft_pdgemm_ex). NULL when it cannot be
 * had. */
static void *pg_scratch(const pg_t *p, size_t bytes)
{
    const ft_backend_t *hb = ft_backend_host();
    void *x = NULL;
    if (ft_arena_alloc(&p->ctx->work[ft_backend_index(hb)], hb, 0, bytes ? bytes : 1, &x))
        return NULL;
    return x;
}

static int notrans(char t) { return t == 'N' || t == 'n'; }

static int side_alloc(const pg_t *p, side_t *s, int64_t m, int64_t ext, int64_t T)
{
    s->m = m, s->ext = ext, s->nt = (ext + T - 1) / T;
    const size_t mc = (size_t)m * (size_t)(NCK * s->nt), mn = (size_t)m * (size_t)s->nt;
    s->mem = pg_scratch(p, sizeof(double) * (3 * mc + 2 * mn + (size_t)m + (size_t)s->nt + 1));
    if (!s->mem) return FT_ERR_ALLOC;
    s->P = s->mem, s->C0 = s->P + mc, s->CS = s->C0 + mc;
    s->h = s->CS + mc, s->s = s->h + mn, s->an = s->s + mn, s->zmax = s->an + m;
    memset(s->C0, 0, sizeof(double) * mc);
    memset(s->h, 0, sizeof(double) * mn);
    return FT_SUCCESS;
}

/* The local rows (cols = 0) or columns (cols = 1) of a descriptor's matrix as indices into its
 * submatrix at offset o (0-based) of extent len: map[l] = global - o, or -1 outside. */
static int64_t *index_map(const dist_grid_t *g, const int *d, int cols, int64_t o, int64_t len,
                          int *nl)
{
    const int n = cols ? dist_numroc(d[N_], d[NB_], g->mycol, d[CSRC_], g->npcol)
                       : dist_numroc(d[M_], d[MB_], g->myrow, d[RSRC_], g->nprow);
    int64_t *map = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!map) return NULL;
    for (int64_t l = 0; l < n; l++) {
        const int64_t x = (cols ? dist_global(l, d[NB_], g->mycol, d[CSRC_], g->npcol)
                                : dist_global(l, d[MB_], g->myrow, d[RSRC_], g->nprow)) -
                          o;
        map[l] = x >= 0 && x < len ? x : -1;
    }
    *nl = n;
    return map;
}

static inline uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* The passes run on ftla's host team (core/team.h; one thread where the rank is bound to one
 * core): a pass whose sums are indexed by X's rows splits the local rows — no two threads add
 * to one sum, each column's digest is summed from the threads' parts (mod 2^64, so in any
 * order) — and one indexed by its columns splits the columns. */
typedef struct {
    const pg_t *p;
    const double *X;
    int64_t ld, lr, lc, rows, ext, ntt, cfirst, ndig;
    const int64_t *rm, *cm, *ri;
    const double *rw, *rv;
    double *out, *xt;
    uint64_t *dig, *hd; /* hd: FT_TEAM_MAX x ndig parts of the digests (split rows) */
    int trans;
    const int64_t *run; /* not trans: runs of local rows [run[k], run[k + 1]) that are
                         * consecutive rows of sub(X) (with xt: in one tile), nrun of them;
                         * run[k] < 0 marks the start of a gap (rows outside sub(X)) */
    int64_t nrun;
} ts_t;

/* one run of len rows of a column: xe += se x, xw += sw x, xv += sv x, xa += |se x|; returns
 * the sum mod 2^64 of x's bit patterns (sums compared under a threshold: FMA clones) */
FT_SIMD_CLONES static uint64_t sums4(int64_t len, const double *restrict x, double se, double sw,
                                     double sv, double *restrict xe, double *restrict xw,
                                     double *restrict xv, double *restrict xa)
{
    uint64_t h = 0;
    for (int64_t k = 0; k < len; k++) {
        const double v = x[k];
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        xe[k] += se * v, xw[k] += sw * v, xv[k] += sv * v, xa[k] += fabs(se * v);
        h += b;
    }
    return h;
}

/* sums4 and the run's own sums against the tile-of-rows weights rw, rv: acc += [sum se x,
 * sum rw x, sum rv x, sum |se x|] (eight partial sums each, so that the loop vectorizes) */
FT_SIMD_CLONES static void sums4t(int64_t len, const double *restrict x, double se, double sw,
                                  double sv, const double *restrict rw, const double *restrict rv,
                                  double *restrict xe, double *restrict xw, double *restrict xv,
                                  double *restrict xa, double acc[4])
{
    double e8[8] = {0}, w8[8] = {0}, v8[8] = {0}, a8[8] = {0};
    int64_t k = 0;
    for (; k + 8 <= len; k += 8)
        for (int u = 0; u < 8; u++) {
            const double v = x[k + u], b = fabs(se * v);
            xe[k + u] += se * v, xw[k + u] += sw * v, xv[k + u] += sv * v, xa[k + u] += b;
            e8[u] += se * v, w8[u] += rw[k + u] * v, v8[u] += rv[k + u] * v, a8[u] += b;
        }
    for (; k < len; k++) {
        const double v = x[k], b = fabs(se * v);
        xe[k] += se * v, xw[k] += sw * v, xv[k] += sv * v, xa[k] += b;
        e8[0] += se * v, w8[0] += rw[k] * v, v8[0] += rv[k] * v, a8[0] += b;
    }
    for (int u = 0; u < 8; u++) acc[0] += e8[u], acc[1] += w8[u], acc[2] += v8[u], acc[3] += a8[u];
}

#ifdef FT_HAVE_VEC
/* The same sums PG_G = 4 columns at a time (consecutive local columns of one tile): each row's
 * four sums are read and written once a group, not once a column — the per-column loops above
 * are bound by those reads and writes, not by the memory (1.8x the time at 4096 on 2 x 2, the
 * operand cold; bench/NOTES.md) — while the four columns stream side by side. Each sum still
 * adds the columns in their order and the lanes as sums4 / sums4t do (the same bits, but for
 * FMA contraction, which may differ between the clones anyway); h[g]: column g's digest part. */
#define PG_G 4

static inline __attribute__((always_inline)) void g_body(const int xt, int64_t len,
                                                         const double *restrict x, int64_t ld,
                                                         const double *restrict cw,
                                                         const double *restrict rw,
                                                         const double *restrict rv,
                                                         double *restrict xe,
                                                         double *restrict xw,
                                                         double *restrict xv,
                                                         double *restrict xa, uint64_t h[PG_G],
                                                         double acc[PG_G][4])
{
    const ft_v8d z = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    ft_v8u H[PG_G];
    ft_v8d CE[PG_G], CW[PG_G], CV[PG_G], CA[PG_G];
    for (int g = 0; g < PG_G; g++) H[g] = (ft_v8u){0}, CE[g] = CW[g] = CV[g] = CA[g] = z;
    int64_t k = 0;
    for (; k + 8 <= len; k += 8) {
        ft_v8d E = ft_v8d_load(xe + k), W = ft_v8d_load(xw + k), V = ft_v8d_load(xv + k),
               A = ft_v8d_load(xa + k), r = z, q = z;
        if (xt) r = ft_v8d_load(rw + k), q = ft_v8d_load(rv + k);
        for (int g = 0; g < PG_G; g++) {
            const ft_v8d y = ft_v8d_load(x + g * ld + k), pe = cw[3 * g] * y,
                         b = ft_v8d_abs(pe);
            E += pe, W += cw[3 * g + 1] * y, V += cw[3 * g + 2] * y, A += b;
            H[g] += ft_v8u_load(x + g * ld + k);
            if (xt) CE[g] += pe, CW[g] += r * y, CV[g] += q * y, CA[g] += b;
        }
        ft_v8d_store(xe + k, E), ft_v8d_store(xw + k, W), ft_v8d_store(xv + k, V);
        ft_v8d_store(xa + k, A);
    }
    for (int g = 0; g < PG_G; g++) h[g] = ft_v8u_hsum(H[g]);
    for (; k < len; k++) {
        double e = xe[k], w = xw[k], v = xv[k], a = xa[k];
        for (int g = 0; g < PG_G; g++) {
            const double y = x[g * ld + k], pe = cw[3 * g] * y, b = fabs(pe);
            e += pe, w += cw[3 * g + 1] * y, v += cw[3 * g + 2] * y, a += b;
            h[g] += bits_of(y);
            if (xt) CE[g][0] += pe, CW[g][0] += rw[k] * y, CV[g][0] += rv[k] * y, CA[g][0] += b;
        }
        xe[k] = e, xw[k] = w, xv[k] = v, xa[k] = a;
    }
    if (xt)
        for (int g = 0; g < PG_G; g++)
            for (int u = 0; u < 8; u++)
                acc[g][0] += CE[g][u], acc[g][1] += CW[g][u], acc[g][2] += CV[g][u],
                    acc[g][3] += CA[g][u];
}

FT_SIMD_CLONES static void sums4g(int64_t len, const double *restrict x, int64_t ld,
                                  const double *restrict cw, double *restrict xe,
                                  double *restrict xw, double *restrict xv, double *restrict xa,
                                  uint64_t h[PG_G])
{
    g_body(0, len, x, ld, cw, NULL, NULL, xe, xw, xv, xa, h, NULL);
}

FT_SIMD_CLONES static void sums4tg(int64_t len, const double *restrict x, int64_t ld,
                                   const double *restrict cw, const double *restrict rw,
                                   const double *restrict rv, double *restrict xe,
                                   double *restrict xw, double *restrict xv, double *restrict xa,
                                   uint64_t h[PG_G], double acc[PG_G][4])
{
    g_body(1, len, x, ld, cw, rw, rv, xe, xw, xv, xa, h, acc);
}

/* abs_sums four columns at a time: xa += |sig x| of each column in turn, h[g] their digests */
FT_SIMD_CLONES static void abs_sums_g(int64_t len, const double *restrict x, int64_t ld,
                                      double sig, double *restrict xa, uint64_t h[PG_G])
{
    ft_v8u H[PG_G];
    for (int g = 0; g < PG_G; g++) H[g] = (ft_v8u){0};
    int64_t k = 0;
    for (; k + 8 <= len; k += 8) {
        ft_v8d A = ft_v8d_load(xa + k);
        for (int g = 0; g < PG_G; g++) {
            A += ft_v8d_abs(sig * ft_v8d_load(x + g * ld + k));
            H[g] += ft_v8u_load(x + g * ld + k);
        }
        ft_v8d_store(xa + k, A);
    }
    for (int g = 0; g < PG_G; g++) h[g] = ft_v8u_hsum(H[g]);
    for (; k < len; k++) {
        double a = xa[k];
        for (int g = 0; g < PG_G; g++)
            a += fabs(sig * x[g * ld + k]), h[g] += bits_of(x[g * ld + k]);
        xa[k] = a;
    }
}
#endif

/* the digests of nc columns: the sums (mod 2^64) of the threads' parts, hd[t * ndig + c] */
static void dig_parts(const uint64_t *hd, int64_t ndig, int64_t nc, uint64_t *dig)
{
    for (int64_t c = 0; c < nc; c++) {
        uint64_t h = 0;
        for (int t = 0; t < FT_TEAM_MAX; t++) h += hd[t * ndig + c];
        dig[c] = h;
    }
}

/* [lo, hi) of n for thread t of nt; with ri, the cuts moved to where ri changes (a tile of rows
 * is a contiguous run of local rows: one thread adds each tile's column sums) */
static void split(int64_t n, int t, int nt, const int64_t *ri, int64_t *lo, int64_t *hi)
{
    int64_t c[2] = {n * t / nt, n * (t + 1) / nt};
    for (int x = 0; x < 2 && ri; x++)
        while (c[x] > 0 && c[x] < n && ri[c[x]] == ri[c[x] - 1]) c[x]++;
    *lo = c[0], *hi = c[1];
}

/* a tile of rows ends: column c's sums over it (acc: se x, rw x, rv x, |se x|) into xt */
static void xt_add(const ts_t *a, int64_t c, int64_t cur, const double acc[4])
{
    double *xt = a->xt;
    const int64_t ext = a->ext;
    xt[c + NCK * cur * ext] += acc[0], xt[c + (NCK * cur + 1) * ext] += acc[1];
    xt[c + (NCK * cur + 2) * ext] += acc[2], xt[c + (NCK * a->ntt + cur) * ext] += acc[3];
}

#ifdef FT_HAVE_VEC
/* ts_work's loop (not trans) for the PG_G local columns lj.. of one tile (sums4g, sums4tg) */
static void ts_group(const ts_t *a, int64_t lj, int64_t l0, int64_t l1, int64_t k0, uint64_t *hd)
{
    const pg_t *p = a->p;
    const int64_t T = p->T, rows = a->rows, ext = a->ext;
    const int64_t *rm = a->rm, *cm = a->cm, *ri = a->ri, J = cm[lj] / T;
    double cw[3 * PG_G], acc[PG_G][4] = {{0.0}};
    for (int g = 0; g < PG_G; g++) {
        const int64_t c = cm[lj + g] - J * T;
        cw[3 * g] = p->sig, cw[3 * g + 1] = p->sig * abft_weight(c, p->W);
        cw[3 * g + 2] = p->sig * abft_weight_perm(c, p->W);
    }
    double *xe = a->out + NCK * J * rows, *xw = xe + rows, *xv = xw + rows;
    double *xa = a->out + NCK * ((ext + T - 1) / T) * rows + J * rows, *xt = a->xt;
    const double *x = a->X + lj * a->ld;
    uint64_t h[PG_G] = {0}, hr[PG_G];
    int64_t cur = -1;
    for (int64_t k = k0; k < a->nrun && a->run[k] < l1; k++) {
        const int64_t s0 = a->run[k] > l0 ? a->run[k] : l0;
        const int64_t e = a->run[k + 1] < l1 ? a->run[k + 1] : l1, r = rm[s0];
        if (r < 0 || e <= s0) continue; /* rows outside sub(X) */
        if (!xt) {
            sums4g(e - s0, x + s0, a->ld, cw, xe + r, xw + r, xv + r, xa + r, hr);
        } else {
            if (ri[s0] != cur) {
                for (int g = 0; g < PG_G && cur >= 0; g++) xt_add(a, cm[lj + g], cur, acc[g]);
                cur = ri[s0];
                memset(acc, 0, sizeof acc);
            }
            sums4tg(e - s0, x + s0, a->ld, cw, a->rw + s0, a->rv + s0, xe + r, xw + r, xv + r,
                    xa + r, hr, acc);
        }
        for (int g = 0; g < PG_G; g++) h[g] += hr[g];
    }
    for (int g = 0; g < PG_G && cur >= 0; g++) xt_add(a, cm[lj + g], cur, acc[g]);
    for (int g = 0; g < PG_G && hd; g++) hd[lj + g - a->cfirst] = h[g];
}
#endif

static void ts_work(void *arg, int t, int nth)
{
    const ts_t *a = arg;
    const pg_t *p = a->p;
    const int64_t T = p->T, rows = a->rows, ext = a->ext;
    const int64_t *rm = a->rm, *cm = a->cm, *ri = a->ri;
    double *out = a->out, *xt = a->xt, *oa = a->out + NCK * ((ext + T - 1) / T) * rows;
    int64_t l0, l1;
    if (a->trans) { /* row c of op(X) = local column lj: its elements, one tile per row of X */
        split(a->lc, t, nth, NULL, &l0, &l1);
        for (int64_t lj = l0; lj < l1; lj++) {
            const int64_t c = cm[lj];
            if (c < 0) continue;
            const double *x = a->X + lj * a->ld;
            uint64_t h = 0;
            for (int64_t li = 0; li < a->lr; li++) {
                const int64_t r = rm[li];
                if (r < 0) continue;
                const int64_t J = r / T;
                const double v = p->sig * x[li];
                out[c + NCK * J * rows] += v;
                out[c + (NCK * J + 1) * rows] += abft_weight(r - J * T, p->W) * v;
                out[c + (NCK * J + 2) * rows] += abft_weight_perm(r - J * T, p->W) * v;
                oa[c + J * rows] += fabs(v);
                h += bits_of(x[li]);
            }
            if (a->dig) a->dig[lj - a->cfirst] = h;
        }
        return;
    }
    split(a->lr, t, nth, xt ? ri : NULL, &l0, &l1);
    uint64_t *hd = a->hd ? a->hd + (int64_t)t * a->ndig : NULL;
    int64_t k0 = 0; /* the first run that ends after l0 */
    while (k0 < a->nrun && a->run[k0 + 1] <= l0) k0++;
    for (int64_t lj = 0; lj < a->lc; lj++) { /* column c of X: tile J, its weight */
        const int64_t c = cm[lj];
        if (c < 0) continue;
        const double *x = a->X + lj * a->ld;
        const int64_t J = c / T;
#ifdef FT_HAVE_VEC
        if (lj + PG_G <= a->lc && cm[lj + PG_G - 1] >= 0 && cm[lj + PG_G - 1] / T == J) {
            ts_group(a, lj, l0, l1, k0, hd);
            lj += PG_G - 1;
            continue;
        }
#endif
        const double se = p->sig, sw = p->sig * abft_weight(c - J * T, p->W),
                     sv = p->sig * abft_weight_perm(c - J * T, p->W);
        double *xe = out + NCK * J * rows, *xw = xe + rows, *xv = xw + rows, *xa = oa + J * rows;
        /* by runs of consecutive rows (with xt each in one tile of rows, whose column sums are
         * flushed when the tile changes: the thread's rows are whole tiles) */
        uint64_t h = 0;
        double acc[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t cur = -1;
        for (int64_t k = k0; k < a->nrun && a->run[k] < l1; k++) {
            const int64_t s0 = a->run[k] > l0 ? a->run[k] : l0;
            const int64_t e = a->run[k + 1] < l1 ? a->run[k + 1] : l1, r = rm[s0];
            if (r < 0 || e <= s0) continue; /* rows outside sub(X) */
            if (!xt) {
                h += sums4(e - s0, x + s0, se, sw, sv, xe + r, xw + r, xv + r, xa + r);
                continue;
            }
            if (ri[s0] != cur) {
                if (cur >= 0) xt_add(a, c, cur, acc);
                cur = ri[s0], acc[0] = acc[1] = acc[2] = acc[3] = 0.0;
            }
            sums4t(e - s0, x + s0, se, sw, sv, a->rw + s0, a->rv + s0, xe + r, xw + r, xv + r,
                   xa + r, acc);
        }
        if (cur >= 0) xt_add(a, c, cur, acc);
        if (hd) hd[lj - a->cfirst] = h;
    }
}

/* The sums of X = sub(C) (rows x ext) or op(X) = X^T (trans; X stored ext x rows) against the
 * tiles of T along ext, in one pass over the local array: out (rows x 4nt, replicated after one
 * all-reduce) = [X E | block sums of |sig X|], X E the plain, weighted and permuted-weight
 * checksums of every tile, every element scaled by sigma (E's weights). With xt (not trans
 * only): the same sums of X^T along tiles of T rows, ext x 4 ceil(rows / T), from this
 * process's elements and NOT
 * reduced — C0's column checks, which only the rare path reduces. This replaces a PDGEMM with
 * E, a gather of its result and a pass for the absolute sums (bench/NOTES.md). With dig (not
 * with xt): the operand digest of each local column of sub(X) from the same loads (op_setup). */
static int tile_sums(const pg_t *p, const double *X, int i0, int j0, const int *d, int trans,
                     int64_t rows, int64_t ext, double *out, double *xt, uint64_t *dig)
{
    const dist_grid_t *g = &p->g;
    const int64_t T = p->T, nt = (ext + T - 1) / T, ld = d[LLD_];
    const int64_t ntt = (rows + T - 1) / T;
    int lr, lc;
    int64_t *rm = index_map(g, d, 0, i0, trans ? ext : rows, &lr);
    int64_t *cm = index_map(g, d, 1, j0, trans ? rows : ext, &lc);
    double *rw = xt ? malloc(sizeof(double) * (size_t)(2 * (lr > 0 ? lr : 1))) : NULL;
    int64_t *ri = xt ? malloc(sizeof(int64_t) * (size_t)(lr > 0 ? lr : 1)) : NULL;
    int64_t cfirst = 0;
    while (cfirst < lc && cm && cm[cfirst] < 0) cfirst++;
    const int64_t ndig = lc - cfirst > 0 ? lc - cfirst : 1;
    uint64_t *hd = dig && !trans ? calloc((size_t)(FT_TEAM_MAX * ndig), sizeof(uint64_t)) : NULL;
    if (!rm || !cm || (xt && (!rw || !ri)) || (dig && !trans && !hd)) {
        free(rm), free(cm), free(rw), free(ri), free(hd);
        return FT_ERR_ALLOC;
    }
    memset(out, 0, sizeof(double) * (size_t)(rows * (NCK + 1) * nt));
    double *rv = rw ? rw + (lr > 0 ? lr : 1) : NULL;
    if (xt) {
        memset(xt, 0, sizeof(double) * (size_t)(ext * (NCK + 1) * ntt));
        for (int64_t li = 0; li < lr; li++) {
            rw[li] = rm[li] < 0 ? 0.0 : p->sig * abft_weight(rm[li] % T, p->W);
            rv[li] = rm[li] < 0 ? 0.0 : p->sig * abft_weight_perm(rm[li] % T, p->W);
            ri[li] = rm[li] < 0 ? -1 : rm[li] / T;
        }
    }
    int64_t *run = NULL, nrun = 0;
    if (!trans) { /* the runs of consecutive rows of sub(X) (with xt: in one tile), and gaps */
        run = malloc(sizeof(int64_t) * (size_t)(lr + 1));
        if (!run) {
            free(rm), free(cm), free(rw), free(ri), free(hd);
            return FT_ERR_ALLOC;
        }
        for (int64_t li = 0; li < lr; li++)
            if (li == 0 || (rm[li] < 0) != (rm[li - 1] < 0) ||
                (rm[li] >= 0 && (rm[li] != rm[li - 1] + 1 || (xt && ri[li] != ri[li - 1]))))
                run[nrun++] = li;
        run[nrun] = lr;
    }
    ts_t a = {.p = p, .X = X, .ld = ld, .lr = lr, .lc = lc, .rows = rows, .ext = ext,
              .ntt = ntt, .cfirst = cfirst, .ndig = ndig, .rm = rm, .cm = cm, .ri = ri,
              .rw = rw, .rv = rv, .out = out, .xt = xt, .dig = dig, .hd = hd, .trans = trans,
              .run = run, .nrun = nrun};
    dist_team_par(ts_work, &a, (long long)lr * lc);
    free(run);
    if (hd) dig_parts(hd, ndig, lc - cfirst, dig);
    free(rm), free(cm), free(rw), free(ri), free(hd);
    PG_TIC(p);
    dist_allsum(g, out, rows, (NCK + 1) * nt);
    PG_TOC(p, PG_ALLRED);
    return FT_SUCCESS;
}

/* A side's computed sums of C (CS and the block sums of |C|), replicated: for the row side
 * (xt: C0's column sums taken in the same pass, see tile_sums), or the column side (C^T) */
static int c_sums(pg_t *p, side_t *s, double *xt)
{
    const int col = s == &p->c;
    const int64_t m = s->m, nt = s->nt;
    FT_CHECK(tile_sums(p, p->C, p->ic - 1, p->jc - 1, p->dC, col, m, s->ext, p->buf, xt, NULL));
    memcpy(s->CS, p->buf, sizeof(double) * (size_t)(m * NCK * nt));
    memcpy(s->s, p->buf + m * NCK * nt, sizeof(double) * (size_t)(m * nt));
    return FT_SUCCESS;
}

/* one run of len rows of a column: xa += |sig x|; returns the sum mod 2^64 of x's bit
 * patterns */
FT_SIMD_CLONES static uint64_t abs_sums(int64_t len, const double *restrict x, double sig,
                                        double *restrict xa)
{
    uint64_t h = 0;
    for (int64_t k = 0; k < len; k++) {
        const double v = x[k];
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        xa[k] += fabs(sig * v);
        h += b;
    }
    return h;
}

/* predict's pass over the local op(X): the row sums of |sig op(X)| and the digests */
typedef struct {
    const pg_t *p;
    const double *X;
    int64_t ld, lr, lc, cfirst, ndig;
    const int64_t *rm, *cm;
    double *an;
    uint64_t *dig, *hd;
    int tr;
} an_t;

static void an_work(void *arg, int t, int nth)
{
    const an_t *a = arg;
    const int64_t *rm = a->rm, *cm = a->cm;
    const double sig = a->p->sig;
    int64_t l0, l1;
    if (a->tr) { /* a row of op(X) a local column: split the columns */
        split(a->lc, t, nth, NULL, &l0, &l1);
        for (int64_t lj = l0; lj < l1; lj++) {
            if (cm[lj] < 0) continue;
            const double *x = a->X + lj * a->ld;
            uint64_t h = 0;
            double sum = 0.0;
            for (int64_t li = 0; li < a->lr; li++)
                if (rm[li] >= 0) sum += fabs(sig * x[li]), h += bits_of(x[li]);
            a->an[cm[lj]] += sum;
            if (a->dig) a->dig[lj - a->cfirst] = h; /* (the local columns inside sub(X):
                                                     * consecutive) */
        }
        return;
    }
    split(a->lr, t, nth, NULL, &l0, &l1); /* split the rows */
    uint64_t *hd = a->hd ? a->hd + (int64_t)t * a->ndig : NULL;
    /* by runs of local rows that are consecutive rows of op(X) (a block of the cyclic layout),
     * so that the loop over a run vectorizes; each row's sum adds the columns in the same order
     * as element by element did (the same bits) */
    int64_t nrun = 0, *run = malloc(sizeof(int64_t) * (size_t)(2 * (l1 - l0) + 2));
    if (!run) { /* element by element */
        for (int64_t lj = 0; lj < a->lc; lj++) {
            if (cm[lj] < 0) continue;
            const double *x = a->X + lj * a->ld;
            uint64_t h = 0;
            for (int64_t li = l0; li < l1; li++)
                if (rm[li] >= 0) a->an[rm[li]] += fabs(sig * x[li]), h += bits_of(x[li]);
            if (hd) hd[lj - a->cfirst] = h;
        }
        return;
    }
    for (int64_t li = l0; li < l1;) {
        if (rm[li] < 0) {
            li++;
            continue;
        }
        int64_t e = li + 1;
        while (e < l1 && rm[e] == rm[e - 1] + 1) e++;
        run[2 * nrun] = li, run[2 * nrun + 1] = e, nrun++;
        li = e;
    }
    for (int64_t lj = 0; lj < a->lc; lj++) {
        if (cm[lj] < 0) continue;
        const double *x = a->X + lj * a->ld;
#ifdef FT_HAVE_VEC
        if (lj + PG_G <= a->lc && cm[lj + PG_G - 1] >= 0) { /* four columns at a time */
            uint64_t h[PG_G] = {0}, hr[PG_G];
            for (int64_t q = 0; q < nrun; q++) {
                const int64_t s0 = run[2 * q];
                abs_sums_g(run[2 * q + 1] - s0, x + s0, a->ld, sig, a->an + rm[s0], hr);
                for (int g = 0; g < PG_G; g++) h[g] += hr[g];
            }
            for (int g = 0; g < PG_G && hd; g++) hd[lj + g - a->cfirst] = h[g];
            lj += PG_G - 1;
            continue;
        }
#endif
        uint64_t h = 0;
        for (int64_t q = 0; q < nrun; q++) {
            const int64_t s0 = run[2 * q];
            h += abs_sums(run[2 * q + 1] - s0, x + s0, sig, a->an + rm[s0]);
        }
        if (hd) hd[lj - a->cfirst] = h;
    }
    free(run);
}

/* A side's prediction P = op(X) Y (rows x c2) with Y (k x c2, replicated) and the row sums of
 * |sig op(X)| (an): each process multiplies its local block by the rows of Y it needs (the local
 * DGEMM), then one all-reduce of [P | an]. The row side: X = A (op = transa); the column side:
 * X = B with op(X) = op(B)^T. */
static int predict(pg_t *p, side_t *s, const double *X, const int *d, int ix, int jx, int tr,
                   const double *Y, uint64_t *dig)
{
    const dist_grid_t *g = &p->g;
    const int64_t m = s->m, k = p->k, c2 = NCK * s->nt, ld = d[LLD_];
    int lr, lc;
    int64_t *rm = index_map(g, d, 0, ix - 1, tr ? k : m, &lr);
    int64_t *cm = index_map(g, d, 1, jx - 1, tr ? m : k, &lc);
    /* (the arena's, released with the call's scratch) */
    double *ysub = pg_scratch(p, sizeof(double) * ((size_t)lr + (size_t)lc + 1) * (size_t)c2);
    if (!rm || !cm || !ysub) {
        free(rm), free(cm);
        return FT_ERR_ALLOC;
    }
    double *out = p->buf, *an = out + m * c2;
    memset(out, 0, sizeof(double) * (size_t)(m * (c2 + 1)));
    /* the local rows and columns inside the submatrix: contiguous ranges (the local order is
     * the global one), so the local product reads nothing outside it */
    int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
    while (r0 < lr && rm[r0] < 0) r0++;
    for (r1 = r0; r1 < lr && rm[r1] >= 0;) r1++;
    while (c0 < lc && cm[c0] < 0) c0++;
    for (c1 = c0; c1 < lc && cm[c1] >= 0;) c1++;
    /* the rows of Y for the local k-indices (X's columns, or its rows when transposed) */
    const int64_t nk = tr ? r1 - r0 : c1 - c0, nmi = tr ? c1 - c0 : r1 - r0;
    const int64_t *km = tr ? rm + r0 : cm + c0, *mm = tr ? cm + c0 : rm + r0;
    for (int64_t x = 0; x < c2; x++)
        for (int64_t l = 0; l < nk; l++) ysub[l + x * nk] = Y[km[l] + x * k];
    /* the local product: op(X_local) (nmi x nk) times ysub (nk x c2), into a local block */
    double *loc = ysub + nk * c2;
    PG_TIC(p);
    if (nmi > 0 && nk > 0) {
        const int M = (int)nmi, N = (int)c2, K = (int)nk, LDA = (int)(ld > 1 ? ld : 1);
        const double one = 1.0, zero = 0.0;
        dgemm_(tr ? "T" : "N", "N", &M, &N, &K, &one, X + r0 + c0 * ld, &LDA, ysub, &K, &zero,
               loc, &M, 1, 1);
    }
    for (int64_t x = 0; x < c2 && nk > 0; x++) /* (no local product without k-indices) */
        for (int64_t l = 0; l < nmi; l++) out[mm[l] + x * m] += loc[l + x * nmi];
    PG_TOC(p, PG_PGEMM);
    /* |sig op(X)| row sums: over the local rows of X (rows of op(X) unless transposed); with
     * dig, the operand digest of each local column from the same loads (op_setup) */
    const int64_t ndig = c1 > c0 ? c1 - c0 : 1;
    uint64_t *hd = dig && !tr ? calloc((size_t)(FT_TEAM_MAX * ndig), sizeof(uint64_t)) : NULL;
    if (dig && !tr && !hd) {
        free(rm), free(cm);
        return FT_ERR_ALLOC;
    }
    an_t aa = {.p = p, .X = X, .ld = ld, .lr = lr, .lc = lc, .cfirst = c0, .ndig = ndig,
               .rm = rm, .cm = cm, .an = an, .dig = dig, .hd = hd, .tr = tr};
    {
        PG_TIC(p);
        dist_team_par(an_work, &aa, (long long)lr * lc);
        PG_TOC(p, PG_ANPASS);
    }
    if (hd) dig_parts(hd, ndig, c1 - c0, dig);
    free(rm), free(cm), free(hd);
    {
        PG_TIC(p);
        dist_allsum(g, out, m, c2 + 1);
        PG_TOC(p, PG_ALLRED);
    }
    memcpy(s->P, out, sizeof(double) * (size_t)(m * c2));
    memcpy(s->an, an, sizeof(double) * (size_t)m);
    return FT_SUCCESS;
}

/* zmax[J] = max_l z[l + J k] (NaN propagates: the check is then unverifiable) */
static void zmax_of(side_t *s, const double *z, int64_t k)
{
    for (int64_t J = 0; J < s->nt; J++) {
        double mx = 0.0;
        for (int64_t l = 0; l < k; l++) {
            const double v = z[l + J * k];
            if (v > mx || v != v) mx = v;
        }
        s->zmax[J] = mx;
    }
}

/* the residuals of line i of tile J: computed minus predicted, plain, weighted and the third
 * (dv may be NULL) */
static void residuals(const pg_t *p, const side_t *s, int64_t i, int64_t J, double *de,
                      double *dw, double *dv)
{
    const int64_t e = i + NCK * J * s->m, w = e + s->m, v = w + s->m;
    double pe = p->alpha * s->P[e], pw = p->alpha * s->P[w], pv = p->alpha * s->P[v];
    if (p->beta != 0.0)
        pe += p->beta * s->C0[e], pw += p->beta * s->C0[w], pv += p->beta * s->C0[v];
    *de = s->CS[e] - pe, *dw = s->CS[w] - pw;
    if (dv) *dv = s->CS[v] - pv;
}

static int64_t tile_w(const pg_t *p, int64_t ext, int64_t J)
{
    return ext - J * p->T < p->T ? ext - J * p->T : p->T;
}

/* One check of a side: abft_check's outcome for the plain and weighted residuals, its
 * threshold in *tau, with the third: failing alone, it reads as one check alone
 * (ABFT_FAIL_WEIGHTED: the checksum's, unless columns fail); with another, both (data) */
static int check_line(const pg_t *p, const side_t *s, int64_t i, int64_t J, double *tau)
{
    double de, dw, dv;
    residuals(p, s, i, J, &de, &dw, &dv);
    const int o = abft_check(p->tol, p->k, tile_w(p, s->ext, J), p->alpha, p->beta, s->an[i],
                             s->zmax[J], p->beta != 0.0 ? s->h[i + J * s->m] : 0.0,
                             s->s[i + J * s->m], de, dw, p->rsig, tau);
    if (o == ABFT_UNVERIFIABLE || fabs(dv) <= *tau) return o;
    return o == ABFT_PASS ? ABFT_FAIL_WEIGHTED : ABFT_FAIL_BOTH;
}

/* Evaluate every check of a side. Returns the number of failing checks; fills
 * fail[i + J m] with the abft outcome. nu: unverifiable checks. */
static int64_t verify(const pg_t *p, const side_t *s, int *fail, int64_t *nu)
{
    int64_t nf = 0;
    *nu = 0;
    for (int64_t J = 0; J < s->nt; J++)
        for (int64_t i = 0; i < s->m; i++) {
            /* the fast pass first (abft_pass_fast: the threshold without its nonnegative
             * gradual-underflow term, whose subnormal operands cost a microcode assist each —
             * most of this loop's ~10 ms a call at 4096 on 2 x 2): a check that passes it passes
             * check_line, the same decisions */
            double de, dw, dv;
            residuals(p, s, i, J, &de, &dw, &dv);
            const int64_t tw = tile_w(p, s->ext, J);
            const double hh = p->beta != 0.0 ? s->h[i + J * s->m] : 0.0, sa = s->s[i + J * s->m];
            if (abft_pass_fast(p->tol, p->k, tw, p->alpha, p->beta, s->an[i], s->zmax[J], hh, sa,
                               de, dw, p->rsig) &&
                fabs(dv) <= abft_tau_upper(p->tol, p->k, tw, p->alpha, p->beta, s->an[i],
                                           s->zmax[J], hh, sa, p->rsig)) {
                fail[i + J * s->m] = ABFT_PASS;
                continue;
            }
            double tau;
            const int r = check_line(p, s, i, J, &tau);
            fail[i + J * s->m] = r;
            if (r == ABFT_UNVERIFIABLE) (*nu)++;
            else if (r != ABFT_PASS) nf++;
        }
    return nf;
}


static int inject_c(pg_t *p, int64_t call)
{
    ft_fault_t f[FT_MAX_FAULTS];
    int nf = ft_inject_take(p->ctx, call, FT_REGION_C, -1, f, FT_MAX_FAULTS);
    for (int q = 0; q < nf; q++) {
        int64_t r = f[q].row, c = f[q].col;
        if (r < 0) r = (int64_t)(ft_rng_next(&p->ctx->rng) % (uint64_t)p->m);
        if (c < 0) c = (int64_t)(ft_rng_next(&p->ctx->rng) % (uint64_t)p->n);
        if (r >= p->m || c >= p->n) continue;
        double *x = dist_elem(&p->g, p->C, p->dC, p->ic - 1 + r, p->jc - 1 + c);
        if (!x) {
            ft_log(p->ctx, 1, "pdgemm: fault at C(%lld, %lld) not applied: not on this process",
                   (long long)r, (long long)c);
            continue;
        }
        const double before = *x;
        *x = f[q].bit >= 0 ? ft_flip_bit(before, f[q].bit) : before + f[q].value;
        p->rep->injected++;
        ft_report_event(p->rep, FT_EVENT_INJECTED, FT_REGION_C, r, c, -1, before, *x);
    }
    return FT_SUCCESS;
}


/* the stored sub(A) (x = 0) or sub(B) (x = 1): its global offset and extent */
static void op_shape(const pg_t *p, int x, int64_t *i0, int64_t *j0, int64_t *rows, int64_t *cols)
{
    const int nt = notrans(x ? p->tb : p->ta);
    const int64_t r = x ? (nt ? p->k : p->n) : (nt ? p->m : p->k);
    const int64_t c = x ? (nt ? p->n : p->k) : (nt ? p->k : p->m);
    *i0 = (x ? p->ib : p->ia) - 1, *j0 = (x ? p->jb : p->ja) - 1, *rows = r, *cols = c;
}

/* the sums mod 2^64 of the bit patterns of this process's local columns of the stored operand
 * x (its local rectangle op[x]) */
typedef struct {
    const pg_t *p;
    int x;
    uint64_t *out;
} dg_t;

/* the sum mod 2^64 of n bit patterns (eight lanes: the order does not matter) */
FT_SIMD_CLONES static uint64_t col_digest(int64_t n, const double *restrict x)
{
    int64_t i = 0;
    uint64_t h = 0;
#ifdef FT_HAVE_VEC
    ft_v8u v = {0};
    for (; i + 8 <= n; i += 8) v += ft_v8u_load(x + i);
    h = ft_v8u_hsum(v);
#endif
    for (; i < n; i++) h += bits_of(x[i]);
    return h;
}

static void dg_work(void *arg, int t, int nth)
{
    const dg_t *a = arg;
    const pg_t *p = a->p;
    const double *X = a->x ? p->B : p->A;
    const int64_t ld = (a->x ? p->dB : p->dA)[LLD_], c0 = p->op[a->x].c0;
    int64_t l0, l1;
    split(p->op[a->x].c1 - c0, t, nth, NULL, &l0, &l1);
    const int64_t r0 = p->op[a->x].r0, nr = p->op[a->x].r1 - r0;
    for (int64_t lj = c0 + l0; lj < c0 + l1; lj++)
        a->out[lj - c0] = col_digest(nr, X + r0 + lj * ld);
}

static void op_digest(const pg_t *p, int x, uint64_t *out)
{
    dg_t a = {.p = p, .x = x, .out = out};
    dist_team_par(dg_work, &a,
                  (long long)(p->op[x].r1 - p->op[x].r0) * (p->op[x].c1 - p->op[x].c0));
}

/* before the encoding: each operand's local rectangle (the local rows and columns inside the
 * submatrix are contiguous: the local order is the global one) and room for its digests, which
 * the encoding's passes over A (predict) and B (tile_sums) take from their own loads */
static int op_setup(pg_t *p)
{
    for (int x = 0; x < 2; x++) {
        int64_t i0, j0, rows, cols;
        int lr, lc;
        op_shape(p, x, &i0, &j0, &rows, &cols);
        const int *d = x ? p->dB : p->dA;
        int64_t *rm = index_map(&p->g, d, 0, i0, rows, &lr),
                *cm = index_map(&p->g, d, 1, j0, cols, &lc);
        if (!rm || !cm) {
            free(rm), free(cm);
            return FT_ERR_ALLOC;
        }
        int64_t r0 = 0, r1, c0 = 0, c1;
        while (r0 < lr && rm[r0] < 0) r0++;
        for (r1 = r0; r1 < lr && rm[r1] >= 0;) r1++;
        while (c0 < lc && cm[c0] < 0) c0++;
        for (c1 = c0; c1 < lc && cm[c1] >= 0;) c1++;
        free(rm), free(cm);
        p->op[x].r0 = r0, p->op[x].r1 = r1, p->op[x].c0 = c0, p->op[x].c1 = c1;
        p->op[x].dig = calloc((size_t)(c1 > c0 ? c1 - c0 : 1), sizeof(uint64_t));
        if (!p->op[x].dig) return FT_ERR_ALLOC;
    }
    return FT_SUCCESS;
}

/* after the last product: 1 when an operand's local part changed on this process (reported
 * with its first changed column), else 0 */
static int op_changed(pg_t *p)
{
    int changed = 0;
    for (int x = 0; x < 2; x++) {
        const int64_t nc = p->op[x].c1 - p->op[x].c0;
        uint64_t *now = malloc(sizeof(uint64_t) * (size_t)(nc > 0 ? nc : 1));
        if (!now) return 1; /* unverifiable: reported, never passed */
        op_digest(p, x, now);
        for (int64_t c = 0; c < nc; c++) {
            if (now[c] == p->op[x].dig[c]) continue;
            const int *d = x ? p->dB : p->dA;
            const int64_t gc = dist_global(p->op[x].c0 + c, d[NB_], p->g.mycol, d[CSRC_],
                                           p->g.npcol) - ((x ? p->jb : p->ja) - 1);
            p->rep->detected++, p->rep->uncorrectable++;
            ft_report_event(p->rep, FT_EVENT_UNCORRECTABLE, x ? FT_REGION_B : FT_REGION_A, -1,
                            gc, -1, 0.0, 0.0);
            ft_log(p->ctx, 1, "pdgemm: operand %c changed during the call (column %lld of its "
                   "stored submatrix): C cannot be trusted", x ? 'B' : 'A', (long long)gc);
            changed = 1;
            break;
        }
        free(now);
    }
    return changed;
}

/* FT_REGION_A / _B faults of this call on the element of the stored operand they name (a
 * random one for a negative index), on its owner, after the encoding; undone when the call
 * returns (ft_pdgemm_ex) */
static void inject_ops(pg_t *p, int64_t call)
{
    static const ft_region_t regs[2] = {FT_REGION_A, FT_REGION_B};
    for (int x = 0; x < 2; x++) {
        ft_fault_t f[FT_MAX_FAULTS];
        const int nf = ft_inject_take(p->ctx, call, regs[x], -1, f, FT_MAX_FAULTS);
        int64_t i0, j0, rows, cols;
        op_shape(p, x, &i0, &j0, &rows, &cols);
        for (int q = 0; q < nf && p->nfp < FT_MAX_FAULTS; q++) {
            int64_t r = f[q].row, c = f[q].col;
            if (r < 0) r = (int64_t)(ft_rng_next(&p->ctx->rng) % (uint64_t)rows);
            if (c < 0) c = (int64_t)(ft_rng_next(&p->ctx->rng) % (uint64_t)cols);
            if (r >= rows || c >= cols) continue;
            /* (the caller's array, restored when the call returns) */
            double *e = dist_elem(&p->g, (double *)(x ? p->B : p->A), x ? p->dB : p->dA, i0 + r,
                                  j0 + c);
            if (!e) {
                ft_log(p->ctx, 1, "pdgemm: fault at %c(%lld, %lld) not applied: not on this "
                       "process", x ? 'B' : 'A', (long long)r, (long long)c);
                continue;
            }
            p->fp[p->nfp] = e, p->fbefore[p->nfp++] = *e;
            *e = f[q].bit >= 0 ? ft_flip_bit(*e, f[q].bit) : *e + f[q].value;
            p->rep->injected++;
            ft_report_event(p->rep, FT_EVENT_INJECTED, regs[x], r, c, -1, p->fbefore[p->nfp - 1],
                            *e);
        }
    }
}

static int check_args(const dist_grid_t *g, char ta, char tb, int m, int n, int k, int ia, int ja,
                      const int *dA, int ib, int jb, const int *dB, int ic, int jc, const int *dC)
{
    const int tra = !notrans(ta), trb = !notrans(tb);
    if (!strchr("NnTtCc", ta) || !ta) return -1;
    if (!strchr("NnTtCc", tb) || !tb) return -2;
    if (m < 0) return -3;
    if (n < 0) return -4;
    if (k < 0) return -5;
    int st = dist_check_desc(g, dA, 10, ia, 8, ja, 9, tra ? k : m, tra ? m : k);
    if (!st) st = dist_check_desc(g, dB, 14, ib, 12, jb, 13, trb ? n : k, trb ? k : n);
    if (!st) st = dist_check_desc(g, dC, 19, ic, 17, jc, 18, m, n);
    return st;
}


/* The column checks on the rare path (collective): C0's column sums reduced, Y' = op(A)^T E_r
 * (k x 2mt) with the block sums of |op(A)| over the tiles of rows, the prediction op(B)^T Y'. */
static int columns_ready(pg_t *p)
{
    side_t *s = &p->c;
    const int64_t n = p->n, k = p->k, mt = p->mt;
    if (p->beta != 0.0) {
        dist_allsum(&p->g, p->c0t, n, (NCK + 1) * mt);
        memcpy(s->C0, p->c0t, sizeof(double) * (size_t)(n * NCK * mt));
        memcpy(s->h, p->c0t + n * NCK * mt, sizeof(double) * (size_t)(n * mt));
    }
    double *yz = malloc(sizeof(double) * (size_t)(k * (NCK + 1) * mt));
    if (!yz) return FT_ERR_ALLOC;
    int st = tile_sums(p, p->A, p->ia - 1, p->ja - 1, p->dA, notrans(p->ta), k, p->m, yz, NULL,
                       NULL);
    if (!st) {
        zmax_of(s, yz + k * NCK * mt, k);
        st = predict(p, s, p->B, p->dB, p->ib, p->jb, notrans(p->tb), yz, NULL);
    }
    free(yz);
    return st;
}

/* the local element at (row i, column j) of sub(C), or NULL on other processes */
static double *elem(const pg_t *p, int64_t i, int64_t j)
{
    return dist_elem(&p->g, p->C, p->dC, p->ic - 1 + i, p->jc - 1 + j);
}

/* The only non-finite element of row i of tile J (its column in the tile), or -1: collective */
static int64_t nonfinite_in_row(pg_t *p, int64_t i, int64_t J)
{
    const int64_t tj = tile_w(p, p->n, J);
    int64_t found = -1;
    for (int64_t c = J * p->T; c < J * p->T + tj && found < 0; c++) {
        double v = 0.0, *x = elem(p, i, c);
        if (x && !isfinite(*x)) v = 1.0;
        dist_allsum(&p->g, &v, 1, 1); /* every process loops alike */
        if (v > 0.0) found = c - J * p->T;
    }
    return found;
}

/* Where line l of tile J of a side points by the ratio of its residuals (0-based in the tile,
 * width w), or -1: not finite, out of the tile, or inconsistent with one error */
static int64_t point(const pg_t *p, const side_t *s, int64_t l, int64_t J, int64_t w)
{
    double de, dw, dv, tau = 0.0;
    residuals(p, s, l, J, &de, &dw, &dv);
    check_line(p, s, l, J, &tau);
    const int64_t q =
        isfinite(de) && isfinite(dw) && de != 0.0 ? abft_locate(dw / de, p->W) : -1;
    return q >= 0 && q < w && abft_consistent(de, dw, q, p->W, tau) &&
                   abft_consistent(de, dv, abft_perm(q, p->W), abft_perm_den(p->W), tau)
               ? q
               : -1;
}

typedef struct {
    int64_t i, j;  /* the element */
    int col;       /* rebuilt from its column check (else its row check) */
    double before; /* its value (on its owner) */
} fix_t;

/*
 * The default's rare path (beta != 0, no copy of C): locate the errors behind the failing row
 * checks with the column checks, ft_dgemm's way (dgemm_repair.c), and rebuild each from the
 * check it is alone in; up to four rounds, then every check must pass. fail: the row checks'
 * outcomes (m x nt). *nfix: elements rebuilt; *left: checks still failing (0: corrected).
 */
static int repair(pg_t *p, int *fail, int64_t *nfix, int64_t *left)
{
    const int64_t m = p->m, n = p->n, T = p->T, nt = p->nt, mt = p->mt;
    *nfix = *left = 0;
    FT_CHECK(columns_ready(p));
    int *cfail = malloc(sizeof(int) * (size_t)(n * mt));
    unsigned char *ck = calloc((size_t)(m * nt), 1); /* row checks judged their checksum's */
    fix_t *fx = malloc(sizeof(fix_t) * (size_t)(m * nt + n * mt + 1));
    int64_t *R = malloc(sizeof(int64_t) * (size_t)(5 * T));
    if (!cfail || !ck || !fx || !R) {
        free(cfail), free(ck), free(fx), free(R);
        return FT_ERR_ALLOC;
    }
    int64_t *R1 = R + T, *S = R1 + T, *pt = S + T, nu = 0; /* pt: 2T (rows, then columns) */
    int st = FT_SUCCESS;
    for (int round = 0;; round++) {
        /* the current sums and every check (round 0: the row checks are the caller's) */
        if (round > 0 && (st = c_sums(p, &p->r, NULL))) break;
        if ((st = c_sums(p, &p->c, NULL))) break;
        if (round > 0) verify(p, &p->r, fail, &nu);
        verify(p, &p->c, cfail, &nu);
        int64_t bad = 0;
        for (int64_t x = 0; x < m * nt; x++)
            if (ck[x] || fail[x] == ABFT_UNVERIFIABLE) fail[x] = ABFT_PASS;
            else bad += fail[x] != ABFT_PASS;
        for (int64_t x = 0; x < n * mt; x++)
            if (cfail[x] == ABFT_UNVERIFIABLE) cfail[x] = ABFT_PASS;
            else bad += cfail[x] != ABFT_PASS;
        if (!bad || round == 4) {
            *left = bad;
            break;
        }
        /* locate, tile by tile */
        int64_t nf = 0;
        for (int64_t I = 0; I < mt; I++)
            for (int64_t J = 0; J < nt; J++) {
                const int64_t i0 = I * T, j0 = J * T, ti = tile_w(p, m, I), tj = tile_w(p, n, J);
                int64_t nR = 0, nR1 = 0, nS = 0;
                for (int64_t i = i0; i < i0 + ti; i++) {
                    const int r = fail[i + J * m];
                    if (r == ABFT_FAIL_BOTH) R[nR++] = i;
                    else if (abft_is_checksum_only(r)) R1[nR1++] = i;
                }
                for (int64_t j = j0; j < j0 + tj; j++)
                    if (cfail[j + I * n] != ABFT_PASS) S[nS++] = j;
                if (nS > 0) /* with failing columns, a half-failing row is a small data error */
                    for (int64_t x = 0; x < nR1; x++) R[nR++] = R1[x];
                if (nR == 1 && nS >= 1) {
                    /* one row: each failing column holds one error — in that row, unless the
                     * column's ratio points elsewhere (errors that cancel in a row's checks) */
                    for (int64_t x = 0; x < nS; x++) {
                        const int64_t q = point(p, &p->c, S[x], I, ti);
                        fx[nf++] = (fix_t){q >= 0 ? i0 + q : R[0], S[x], 1, 0.0};
                    }
                } else if (nS == 1 && nR >= 1) { /* one column: likewise, each failing row */
                    for (int64_t x = 0; x < nR; x++) {
                        const int64_t q = point(p, &p->r, R[x], J, tj);
                        fx[nf++] = (fix_t){R[x], q >= 0 ? j0 + q : S[0], 0, 0.0};
                    }
                } else if (nS == 0 && nR + nR1 >= 1) {
                    /* rows alone: each located by the ratio of its residuals; where only one of
                     * a row's checks fails, that is data only when the plain one fails and the
                     * ratio locates a column consistently (a data error delta in (tau, tau/w_j]
                     * shows in the weighted check as w_j delta <= tau) — else the prediction was
                     * hit (the weighted check alone data cannot fail: w <= 1), the data are
                     * untouched */
                    for (int64_t x = 0; x < nR + nR1; x++) {
                        const int64_t i = x < nR ? R[x] : R1[x - nR];
                        double de, dw, tau = 0.0;
                        residuals(p, &p->r, i, J, &de, &dw, NULL);
                        const int64_t jj = isfinite(de) && isfinite(dw) && de != 0.0
                                               ? abft_locate(dw / de, p->W)
                                               : -1;
                        const int r = check_line(p, &p->r, i, J, &tau);
                        if (x >= nR && (r != ABFT_FAIL_PLAIN || jj < 0 || jj >= tj ||
                                        !abft_consistent(de, dw, jj, p->W, tau))) {
                            if (p->root) p->rep->checksum_errors++;
                            ck[i + J * m] = 1;
                            continue;
                        }
                        const int64_t c = jj >= 0 && jj < tj ? jj : nonfinite_in_row(p, i, J);
                        if (c >= 0) fx[nf++] = (fix_t){i, j0 + c, 0, 0.0};
                    }
                } else if (nR == 0 && nS >= 1) {
                    /* columns alone (a data error just above the column's threshold, below
                     * the rows'): each located by its ratio */
                    for (int64_t x = 0; x < nS; x++) {
                        double de, dw;
                        residuals(p, &p->c, S[x], I, &de, &dw, NULL);
                        const int64_t ii = isfinite(de) && isfinite(dw) && de != 0.0
                                               ? abft_locate(dw / de, p->W)
                                               : -1;
                        if (ii >= 0 && ii < ti) fx[nf++] = (fix_t){i0 + ii, S[x], 1, 0.0};
                    }
                }
                else if (nR >= 2 && nS >= 2) {
                    /* several rows and columns: peeled. A row whose ratio locates one of the
                     * failing columns consistently points to an element, and so does a column
                     * whose ratio locates one of the failing rows. The row's formula is exact
                     * when no other column points to that row (its other elements are right), the
                     * column's when no other row points to that column; an element with neither
                     * waits, and so does one whose formula would see another element of this
                     * round zeroed in its line. */
                    for (int64_t x = 0; x < nR + nS; x++) {
                        const int col = x >= nR;
                        const int64_t l = col ? S[x - nR] : R[x];
                        const int64_t q = point(p, col ? &p->c : &p->r, l, col ? I : J,
                                                col ? ti : tj);
                        int in = 0;
                        for (int64_t y = 0; y < (col ? nR : nS) && q >= 0; y++)
                            in |= (col ? R[y] : S[y]) == (col ? i0 : j0) + q;
                        pt[x] = in ? (col ? i0 : j0) + q : -1; /* the row / column pointed to */
                    }
                    const int64_t n0 = nf;
                    for (int pass = 0; pass < 2; pass++) /* the columns' formula first */
                        for (int64_t x = pass ? 0 : nR; x < (pass ? nR : nR + nS); x++) {
                            if (pt[x] < 0) continue;
                            const int col = !pass;
                            const int64_t i = col ? pt[x] : R[x], j = col ? S[x - nR] : pt[x];
                            int other = 0, clash = 0;
                            for (int64_t y = col ? 0 : nR; y < (col ? nR : nR + nS); y++)
                                other |= pt[y] == (col ? j : i) && (col ? R[y] : S[y - nR]) !=
                                                                       (col ? i : j);
                            for (int64_t y = n0; y < nf; y++)
                                clash |= (fx[y].i == i && fx[y].j == j) ||
                                         ((!col || !fx[y].col) && fx[y].i == i) ||
                                         ((col || fx[y].col) && fx[y].j == j);
                            if (!other && !clash) fx[nf++] = (fix_t){i, j, col, 0.0};
                        }
                }
            }
        if (!nf) {
            *left = bad;
            break;
        }
        /* rebuild: the located elements set to 0, the sums formed again, each element from
         * the check it is alone in */
        for (int64_t x = 0; x < nf; x++) {
            double *e = elem(p, fx[x].i, fx[x].j);
            if (e) fx[x].before = *e, *e = 0.0;
        }
        if ((st = c_sums(p, &p->r, NULL)) || (st = c_sums(p, &p->c, NULL))) break;
        for (int64_t x = 0; x < nf; x++) {
            double *e = elem(p, fx[x].i, fx[x].j);
            if (!e) continue;
            const int col = fx[x].col;
            double de, dw;
            if (col) residuals(p, &p->c, fx[x].j, fx[x].i / T, &de, &dw, NULL);
            else residuals(p, &p->r, fx[x].i, fx[x].j / T, &de, &dw, NULL);
            *e = -de * p->rsig;
            ft_report_event(p->rep, FT_EVENT_CORRECTED, FT_REGION_C, fx[x].i, fx[x].j,
                            col ? fx[x].i / T : fx[x].j / T, fx[x].before, *e);
        }
        *nfix += nf;
    }
    free(cfail), free(ck), free(fx), free(R);
    return st;
}

/* The outcome of a correction: `fixed` elements (or rows) corrected when no check is `left`
 * failing, else FT_ERR_UNCORRECTABLE (counted once, on the root) */
static int settle(pg_t *p, int64_t fixed, int64_t left)
{
    if (left) {
        if (p->root) p->rep->uncorrectable += left;
        ft_log(p->ctx, 1, "pdgemm: %lld check(s) still failing after correction", (long long)left);
        return FT_ERR_UNCORRECTABLE;
    }
    if (p->root) p->rep->corrected += fixed;
    return FT_SUCCESS;
}

static int run(pg_t *p)
{
    const dist_grid_t *g = &p->g;
    const int m = p->m, n = p->n, k = p->k;
    const int64_t call = p->ctx->ncalls++, nt = p->nt;
    const int64_t mk = m > k ? m : k, nk = n > k ? n : k;
    /* the column side only where it may be needed: the default's rare path */
    const int cols = p->beta != 0.0 && p->ctx->policy.backup_c != 1;
    FT_CHECK(side_alloc(p, &p->r, m, n, p->T));
    if (cols) FT_CHECK(side_alloc(p, &p->c, n, m, p->T));
    const int64_t rb = mk * ((NCK + 1) * nt + 1), cb = cols ? nk * ((NCK + 1) * p->mt + 1) : 0;
    const int64_t bsz = rb > cb ? rb : cb; /* the larger side's sums and prediction */
    p->buf = pg_scratch(p, sizeof(double) * (size_t)bsz);
    p->c0t = cols ? pg_scratch(p, sizeof(double) * (size_t)(n * (NCK + 1) * p->mt)) : NULL;
    double *yz = pg_scratch(p, sizeof(double) * (size_t)(k * (NCK + 1) * nt));
    if (!p->buf || (cols && !p->c0t) || !yz) return FT_ERR_ALLOC;
    const double t0 = ft_wtime();

    /* the encoding: Y = op(B) E and the block sums of |op(B)|, then P = op(A) Y and the row
     * sums of |op(A)|, then C's sums before the product — each one pass over a local array and
     * one all-reduce */
    const int dg = p->ctx->policy.operand_check >= 0;
    int st = dg ? op_setup(p) : FT_SUCCESS;
    if (!st) {
        PG_TIC(p);
        st = tile_sums(p, p->B, p->ib - 1, p->jb - 1, p->dB, !notrans(p->tb), k, n, yz, NULL,
                       dg ? p->op[1].dig : NULL);
        PG_TOC(p, PG_BSUMS);
    }
    if (!st) {
        zmax_of(&p->r, yz + k * NCK * nt, k);
        st = predict(p, &p->r, p->A, p->dA, p->ia, p->ja, !notrans(p->ta), yz,
                     dg ? p->op[0].dig : NULL);
    }
    if (st) return st; /* (yz: the arena's, released with the call's scratch) */
    p->digested = dg;
    if (p->beta != 0.0) {
        PG_TIC(p);
        FT_CHECK(c_sums(p, &p->r, p->c0t));
        PG_TOC(p, PG_C0SUMS);
        memcpy(p->r.C0, p->r.CS, sizeof(double) * (size_t)(m * NCK * nt));
        memcpy(p->r.h, p->r.s, sizeof(double) * (size_t)(m * nt));
    }
    if (p->beta != 0.0 && p->ctx->policy.backup_c == 1) {
        const int clc = dist_numroc(p->dC[N_], p->dC[NB_], g->mycol, p->dC[CSRC_], g->npcol);
        const size_t nl = (size_t)p->dC[LLD_] * (size_t)(clc > 0 ? clc : 0);
        p->C0 = pg_scratch(p, sizeof(double) * (nl > 0 ? nl : 1));
        if (!p->C0) return FT_ERR_ALLOC;
        memcpy(p->C0, p->C, sizeof(double) * nl);
    }
    double tp = ft_wtime() - t0;
    if (p->ctx->nfaults) inject_ops(p, call);

    /* the product */
    const double tq = pg_now(p);
    pdgemm_(&p->ta, &p->tb, &m, &n, &k, &p->alpha, p->A, &p->ia, &p->ja, p->dA, p->B, &p->ib,
            &p->jb, p->dB, &p->beta, p->C, &p->ic, &p->jc, p->dC, 1, 1);
    if (p->ctx->nfaults) inject_c(p, call);

    const double t1 = ft_wtime();
    p->pf[PG_PRODUCT] += pg_now(p) - tq;
    const double tc = pg_now(p);
    FT_CHECK(c_sums(p, &p->r, NULL));
    p->pf[PG_CSUMS] += pg_now(p) - tc;
    int *fail = pg_scratch(p, sizeof(int) * (size_t)m * (size_t)nt);
    if (!fail) return FT_ERR_ALLOC;
    const double tv = pg_now(p);
    int64_t nu = 0, nf = verify(p, &p->r, fail, &nu);
    p->pf[PG_VERIFY] += pg_now(p) - tv;
    if (p->root) p->rep->checks += (int64_t)m * nt, p->rep->unchecked += nu;
    int status = FT_SUCCESS;
    if (nf > 0 && !cols) {
        /* computed again where that needs no input C (beta = 0) or it was kept */
        int64_t nloc = 0;
        /* every failing row of a tile is computed again (below), even where one check alone
         * fails — with one error that is the checksum's (the prediction hit: data cannot fail
         * the weighted check alone, w <= 1, and fail the plain one alone only with a
         * consistent location), but two errors in one row can cancel in either check; what
         * still fails one check alone after the row is computed again is the checksum's */
        for (int64_t J = 0; J < p->nt; J++)
            for (int64_t i = 0; i < m; i++) {
                const int r = fail[i + J * m];
                if (r == ABFT_PASS || r == ABFT_UNVERIFIABLE) continue;
                fail[i + J * m] = 1000;
                nloc++;
            }
        /* Each flagged row of a tile is computed again from the operands (and, beta != 0, the
         * input C kept): whatever the errors in it. The row's two checks locate one error by
         * their ratio, but two in one row (a large and a small one) are located as one, whose
         * rebuild absorbs the other, and the re-check cannot see it where the two columns'
         * weights are close (the distributed campaign with several faults a trial,
         * docs/dist.md); recomputing a row leaves nothing to locate. A tile with more than
         * eight flagged rows is computed again whole. Every process takes part (the flags are
         * replicated). */
        for (int64_t J = 0; J < p->nt && nloc; J++) {
            const int tj = (int)(n - J * p->T < p->T ? n - J * p->T : p->T);
            int64_t cnt = 0;
            for (int64_t i = 0; i < m; i++) cnt += fail[i + J * m] >= 1000;
            if (!cnt) continue;
            const int whole = cnt > 8;
            for (int64_t i = 0; i < m; i++) {
                if (!whole && fail[i + J * m] < 1000) continue;
                const int rows = whole ? m : 1;
                const int i0 = whole ? 0 : (int)i;
                /* the rows' input C back (beta != 0), then the product for them */
                for (int x = 0; x < rows && p->C0; x++)
                    for (int c = 0; c < tj; c++) {
                        double *e = dist_elem(g, p->C, p->dC, p->ic - 1 + i0 + x,
                                              p->jc - 1 + J * p->T + c);
                        if (e) *e = p->C0[e - p->C];
                    }
                const int ai = notrans(p->ta) ? p->ia + i0 : p->ia;
                const int aj = notrans(p->ta) ? p->ja : p->ja + i0;
                const int bi = notrans(p->tb) ? p->ib : p->ib + (int)(J * p->T);
                const int bj = notrans(p->tb) ? p->jb + (int)(J * p->T) : p->jb;
                const int ci = p->ic + i0, cj = p->jc + (int)(J * p->T);
                pdgemm_(&p->ta, &p->tb, &rows, &tj, &k, &p->alpha, p->A, &ai, &aj, p->dA, p->B,
                        &bi, &bj, p->dB, &p->beta, p->C, &ci, &cj, p->dC, 1, 1);
                if (p->root) {
                    p->rep->recomputed++;
                    ft_report_event(p->rep, FT_EVENT_RECOMPUTED, FT_REGION_C, whole ? -1 : i,
                                    J * p->T, J, 0.0, 0.0);
                }
                if (whole) break;
            }
        }
        /* verify again: a check of a recomputed row that fails now, even one check alone, is
         * left (an error in the operands themselves recurs) */
        int64_t left = 0, ck = 0;
        if (nloc) {
            int *was = malloc(sizeof(int) * (size_t)m * (size_t)nt);
            if (!was) return FT_ERR_ALLOC;
            memcpy(was, fail, sizeof(int) * (size_t)m * (size_t)nt);
            if ((status = c_sums(p, &p->r, NULL))) {
                free(was);
                return status;
            }
            int64_t nu2 = 0;
            verify(p, &p->r, fail, &nu2);
            for (int64_t x = 0; x < (int64_t)m * nt; x++) {
                if (fail[x] == ABFT_PASS || fail[x] == ABFT_UNVERIFIABLE) continue;
                if (was[x] >= 1000 && abft_is_checksum_only(fail[x]))
                    ck++; /* computed again, one check alone still failing: the checksum */
                else
                    left++;
            }
            free(was);
            if (p->root) p->rep->checksum_errors += ck, p->rep->detected += nloc - ck;
            nloc -= ck;
        }
        status = settle(p, nloc, left);
    } else if (nf > 0) {
        /* located with the column checks and rebuilt (repair) */
        int64_t nfix = 0, left = 0;
        if ((status = repair(p, fail, &nfix, &left))) return status;
        if (p->root) p->rep->detected += nfix, p->rep->located += nfix;
        status = settle(p, nfix, left);
    }
    if (status == FT_SUCCESS && nu > 0) status = FT_ERR_UNCHECKED;
    tp += ft_wtime() - t1;
    p->rep->time_protect += tp;
    return status;
}

int ft_pdgemm_ex(ft_context_t *ctx, char transa, char transb, int m, int n, int k, double alpha,
                 const double *A, int ia, int ja, const int *descA, const double *B, int ib, int jb,
                 const int *descB, double beta, double *C, int ic, int jc, const int *descC,
                 ft_report_t *report)
{
    ft_report_t local;
    ft_report_t *rep = report ? report : &local;
    ft_report_init(rep, FT_DEVICE_CPU);
    if (!ctx) ctx = ft_default_context();
    if (!ctx) return FT_ERR_ALLOC;
    const double t0 = ft_wtime();
    pg_t p;
    memset(&p, 0, sizeof p);
    if (!descC) return -19;
    if (dist_grid(descC[CTXT_], &p.g)) return -1902;
    int st = check_args(&p.g, transa, transb, m, n, k, ia, ja, descA, ib, jb, descB, ic, jc, descC);
    if (st) {
        const int info = -st;
        pxerbla_(&p.g.ctxt, "FT_PDGEMM", &info, 9);
        return rep->status = st;
    }
    if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return rep->status = 0;
    if (alpha == 0.0 || k == 0 || ctx->policy.protect == FT_PROTECT_OFF) {
        /* no product to protect (C := beta C), or protection off: the engine alone */
        pdgemm_(&transa, &transb, &m, &n, &k, &alpha, A, &ia, &ja, descA, B, &ib, &jb, descB, &beta,
                C, &ic, &jc, descC, 1, 1);
        if (p.g.myrow == 0 && p.g.mycol == 0) rep->unchecked++;
        dist_report_reduce(&p.g, rep);
        rep->time_total = ft_wtime() - t0;
        return rep->status = 0;
    }
    double pf[PG_N] = {0};
    const char *prof = getenv("FTLA_DIST_PROFILE");
    if (prof && (!*prof || *prof == '0')) prof = NULL;
    p.pf = pf, p.pcpu = prof && !strcmp(prof, "cpu");
    p.ctx = ctx, p.rep = rep, p.ta = transa, p.tb = transb, p.m = m, p.n = n, p.k = k;
    p.ia = ia, p.ja = ja, p.ib = ib, p.jb = jb, p.ic = ic, p.jc = jc;
    p.alpha = alpha, p.beta = beta, p.A = A, p.B = B, p.C = C;
    p.dA = descA, p.dB = descB, p.dC = descC;
    p.root = p.g.myrow == 0 && p.g.mycol == 0;
    if (ctx->policy.tile > 0) {
        p.T = ctx->policy.tile;
    } else { /* as ft_dgemm (dgemm_auto_tile) */
        int64_t d = m > n ? m : n, T = (d + 7) / 8;
        T = T < 256 ? 256 : T > 4096 ? 4096 : T;
        p.T = (T + 63) / 64 * 64;
    }
    p.nt = (n + p.T - 1) / p.T;
    p.mt = (m + p.T - 1) / p.T;
    p.W = abft_wden(p.T);
    p.rsig = abft_gemm_rscale(p.T, k);
    p.sig = 1.0 / p.rsig;
    p.tol = ctx->policy.tol > 0.0 ? ctx->policy.tol : 2.0;
    const ft_backend_t *hb = ft_backend_host();
    const int mark = ft_arena_mark(&ctx->work[ft_backend_index(hb)]);
    st = run(&p);
    /* the operands against their digests, after the last product (every path's) */
    double x[2] = {0.0, 0.0};
    if (p.digested) {
        const double td = ft_wtime(), tdc = pg_now(&p);
        x[1] = op_changed(&p);
        rep->time_protect += ft_wtime() - td;
        pf[PG_DIGEST] += pg_now(&p) - tdc;
    }
    if (prof && p.root) {
        {
            char line[320];
            int o = snprintf(line, sizeof line, "ft_pdgemm %dx%dx%d phases (%s s):", m, n, k,
                             p.pcpu ? "CPU" : "wall");
            for (int x = 0; x < PG_N && o < (int)sizeof line; x++)
                o += snprintf(line + o, sizeof line - (size_t)o, " %s %.4f", pg_name[x], pf[x]);
            fprintf(stderr, "%s total %.4f\n", line, ft_wtime() - t0);
        }
    }
    for (int q = p.nfp - 1; q >= 0; q--) *p.fp[q] = p.fbefore[q]; /* injected operand faults */
    ft_arena_release(&ctx->work[ft_backend_index(hb)], hb, 0, mark); /* the scratch */
    free(p.op[0].dig), free(p.op[1].dig);
    /* one all-reduce: a failure of one process (allocation) is every process's, an operand
     * changed anywhere too, and the report's counters */
    x[0] = st < 0 && st != FT_ERR_UNCORRECTABLE && st != FT_ERR_UNCHECKED ? 1.0 : 0.0;
    dist_report_reduce_with(&p.g, rep, x, 2);
    if (x[0] > 0.0 && st == 0) st = FT_ERR_ALLOC;
    if (x[1] > 0.0 && (st == 0 || st == FT_ERR_UNCHECKED)) st = FT_ERR_UNCORRECTABLE;
    rep->time_total = ft_wtime() - t0;
    if (ctx->policy.verbose >= 1 && p.root)
        ft_log(ctx, 1,
               "ft_pdgemm m=%d n=%d k=%d: status=%d detected=%lld corrected=%lld "
               "uncorrectable=%lld",
               m, n, k, st, (long long)rep->detected, (long long)rep->corrected,
               (long long)rep->uncorrectable);
    return rep->status = st;
}

int ft_pdgemm(char transa, char transb, int m, int n, int k, double alpha, const double *A, int ia,
              int ja, const int *descA, const double *B, int ib, int jb, const int *descB,
              double beta, double *C, int ic, int jc, const int *descC)
{
    return ft_pdgemm_ex(NULL, transa, transb, m, n, k, alpha, A, ia, ja, descA, B, ib, jb, descB,
                        beta, C, ic, jc, descC, NULL);
}
