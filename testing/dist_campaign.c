/*
 * dist_campaign.c — the fault campaign of ft_pdgemm and ft_pdgeqrf (issue 13; docs/dist.md):
 * random faults on any process and region, several a trial, each trial classified against the
 * fault-free result and the documented detection limit. Run by test_dist --campaign and by
 * ft_campaign --routine dist (under mpirun).
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

#define MAXF DIST_CAMPAIGN_MAXF

/* dqrt01's ratios of the gathered factor F (sub-matrix at (ia, ja) of the global M x N) */
void dist_qr_ratios(const double *A0, const double *F, const double *tau, int M, int ia, int ja,
                    int m, int n, double *r1, double *r2)
{
    const int k = m < n ? m : n;
    double *Q = calloc((size_t)m * m, sizeof(double)), *R = calloc((size_t)m * n, sizeof(double));
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) Q[i + (size_t)j * m] = F[(ia + i) + (size_t)(ja + j) * M];
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, m, k, Q, m, tau + ja);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j && i < m; i++)
            R[i + (size_t)j * m] = F[(ia + i) + (size_t)(ja + j) * M];
    double anrm = 0.0, res = 0.0, orth = 0.0;
    for (int j = 0; j < n; j++) {
        double cs = 0.0, rs = 0.0;
        for (int i = 0; i < m; i++) {
            double qr = 0.0;
            for (int l = 0; l < m; l++) qr += Q[i + (size_t)l * m] * R[l + (size_t)j * m];
            rs += fabs(A0[(ia + i) + (size_t)(ja + j) * M] - qr);
            cs += fabs(A0[(ia + i) + (size_t)(ja + j) * M]);
        }
        anrm = fmax(anrm, cs), res = fmax(res, rs);
    }
    for (int j = 0; j < m; j++) {
        double cs = 0.0;
        for (int i = 0; i < m; i++) {
            double d = (i == j) ? 1.0 : 0.0;
            for (int l = 0; l < m; l++) d -= Q[l + (size_t)i * m] * Q[l + (size_t)j * m];
            cs += fabs(d);
        }
        orth = fmax(orth, cs);
    }
    const double eps = 0x1p-52 / 2 * 2; /* dlamch('P') */
    *r1 = res / ((double)(m > n ? m : n) * anrm * eps);
    *r2 = orth / ((double)m * eps);
    free(Q), free(R);
}

/* ---- --campaign TRIALS SEED [Q [F]]: random faults (Q: policy.verify_every; F faults a trial,
 * 1 .. MAXF, each on the process owning its element, so several processes at once), each classified
 * against the fault-free result and the documented detection limit (the library's own threshold
 * formulas, abft.h), as ft_campaign does on one process: masked / corrected / reported / silent
 * below the limit are fine; a false alarm (a detection in a fault-free trial), a silent change
 * above the limit, or a correction that leaves the result outside its accuracy fail. Every
 * fifth trial is fault-free. */
static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static double flip(double x, int bit)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    b ^= (uint64_t)1 << bit;
    memcpy(&x, &b, 8);
    return x;
}

enum {
    C_MASKED,
    C_CORRECTED,
    C_REPORTED,
    C_SILENT_BELOW,
    C_FALSE,
    C_SILENT_ABOVE,
    C_BADFIX,
    C_NCLASS
};
static const char *cname[C_NCLASS] = {"masked",      "corrected",  "reported",    "silent<lim",
                                      "FALSE-ALARM", "SILENT>LIM", "MISCORRECTED"};

/* a CPU context with policy.verify_every = q (q > 0) and, keep, policy.backup_c = 1 */
/* DIST_CAMPAIGN_TRIAL=t: run trial t only (the others drawn, not run), its log printed */
static int only_trial(void)
{
    const char *e = getenv("DIST_CAMPAIGN_TRIAL");
    return e && *e ? atoi(e) : -1;
}

/* DIST_CAMPAIGN_DROP=mask (with DIST_CAMPAIGN_TRIAL): the QR trial's faults x with bit x set
 * are drawn, not injected — which of a trial's faults makes its result */
static int drop_mask(void)
{
    const char *e = getenv("DIST_CAMPAIGN_DROP");
    return e && *e && only_trial() >= 0 ? atoi(e) : 0;
}

static ft_context_t *trial_context(int q, int keep)
{
    ft_context_t *ctx = NULL;
    ft_context_create(&ctx, FT_DEVICE_CPU);
    if (ctx && (q > 0 || keep || only_trial() >= 0)) {
        ft_policy_t pol;
        ft_context_get_policy(ctx, &pol);
        if (q > 0) pol.verify_every = q;
        if (keep) pol.backup_c = 1;
        if (only_trial() >= 0) pol.verbose = 2;
        ft_context_set_policy(ctx, &pol);
    }
    return ctx;
}

/* the campaign's C(m x n) = alpha A(m x k) B(k x n) + beta C0, gathered, and its reference */
typedef struct {
    int m, n, k, T;
    double alpha, beta;
    const double *A, *B, *C0, *Cref;
} gemm_rows_t;

/* The documented limit of row i: ft_pdgemm's row-check threshold (abft_tau, one tile of n
 * columns) with the sums of |C| of the reference with the nf faults (fi, fj, bit fb) in */
static double row_limit(const gemm_rows_t *r, int i, int nf, const long *fi, const long *fj,
                        const int *fb)
{
    const int m = r->m, n = r->n, k = r->k;
    const double rsig = abft_gemm_rscale(r->T, k), sig = 1.0 / rsig;
    double an = 0.0, zmax = 0.0, h = 0.0, s = 0.0;
    for (int l = 0; l < k; l++) an += fabs(sig * r->A[i + l * m]);
    for (int l = 0; l < k; l++) {
        double z = 0.0;
        for (int c = 0; c < n; c++) z += fabs(sig * r->B[l + c * k]);
        zmax = fmax(zmax, z);
    }
    for (int c = 0; c < n; c++) {
        double v = r->Cref[i + c * m];
        for (int y = 0; y < nf; y++)
            if (fi[y] == i && fj[y] == c) v = flip(v, fb[y]);
        h += fabs(sig * r->C0[i + c * m]);
        s += fabs(sig * v);
    }
    double tt = abft_tau(2.0, k, n, r->alpha, r->beta, an, zmax, h, 0.0, rsig);
    if (isfinite(s)) tt += abft_tau_s(2.0, n, s);
    return tt * rsig;
}

int dist_campaign(int trials, uint64_t seed, int q, int nf, unsigned gemm_regions)
{
    int g_me = 0, g_np = 1;
    Cblacs_pinfo(&g_me, &g_np);
    grid_t g;
    squarest_grid(&g, g_np);
    const int nb = 7, one = 1;
    /* dgemm: C(48 x 40) := 0.8 A(48 x 36) B(36 x 40) - 0.3 C; dgeqrf: 61 x 43 */
    const int m = 48, n = 40, k = 36, qm = 61, qn = 43;
    const double alpha = 0.8, beta = -0.3;
    dmat_t A, B, C, C0, Q, Q0;
    dmat(&g, m, k, nb, nb, 0, 0, &A), dmat(&g, k, n, nb, nb, 0, 0, &B);
    dmat(&g, m, n, nb, nb, 0, 0, &C), dmat(&g, m, n, nb, nb, 0, 0, &C0);
    dmat(&g, qm, qn, nb, nb, 0, 0, &Q), dmat(&g, qm, qn, nb, nb, 0, 0, &Q0);
    fill(&g, &A, 11), fill(&g, &B, 12), fill(&g, &C0, 13), fill(&g, &Q0, 14);
    const size_t cb = sizeof(double) * (size_t)C.desc[8] * (size_t)(C.lc > 1 ? C.lc : 1);
    const size_t qb = sizeof(double) * (size_t)Q.desc[8] * (size_t)(Q.lc > 1 ? Q.lc : 1);
    memcpy(C.a, C0.a, cb);
    pdgemm_("N", "N", &m, &n, &k, &alpha, A.a, &one, &one, A.desc, B.a, &one, &one, B.desc, &beta,
            C.a, &one, &one, C.desc, 1, 1);
    double *Cref = gather(&g, &C), *GA = gather(&g, &A), *GB = gather(&g, &B);
    double *GC0 = gather(&g, &C0), *GQ0 = gather(&g, &Q0);
    double wq = 0.0;
    int info = 0, lw = -1;
    double *tau = calloc((size_t)Q.lc + 1, sizeof(double));
    ft_pdgeqrf(qm, qn, Q.a, 1, 1, Q.desc, tau, &wq, -1, &info);
    lw = (int)wq;
    double *work = malloc(sizeof(double) * (size_t)lw);
    /* the QR's limit: ft_pdgeqrf's block threshold (one block here: n <= 8 * 32) */
    double qlim;
    {
        double sa = 0.0, ce2[61] = {0};
        for (int j = 0; j < qn; j++) {
            double n1 = 0.0, mx = 0.0;
            for (int i = 0; i < qm; i++) {
                const double v = GQ0[i + (size_t)j * qm];
                n1 += fabs(v), mx = fmax(mx, fabs(v)), ce2[i] += v;
            }
            sa += ABFT_U * sqrt(n1) * sqrt(mx);
        }
        qlim = abft_qr_tau(2.0, qm, qn, sa + ABFT_U * abft_nrm2(qm, ce2));
    }
    const int T = 256, nsteps = (qn + nb - 1) / nb;
    int64_t cnt[C_NCLASS] = {0};
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    int fails = 0, nrelaxed = 0;
    for (int t = 0; t < trials; t++) {
        const int qr = t % 2, clean = t % 5 == 4;
        const int bit = (int)(rng_next(&rng) % 64);
        /* policy.verify_every; and every other ft_pdgemm trial with the input C kept
         * (policy.backup_c = 1: failing rows computed again instead of located) */
        const int keep = !qr && t % 4 == 2;
        ft_context_t *ctx = trial_context(q, keep);
        ft_report_t rep;
        int st, cls;
        double effect = 0.0, limit = 0.0;
        char tregs[256] = "C";
        if (!qr && t % 4 == 2) snprintf(tregs, sizeof tregs, "C kept");
        double terr = 0.0; /* dgemm: the largest error; dgeqrf: the larger dqrt01 ratio */
        if (!qr) {
            /* nf faults in C (every fifth trial none), each added by the process owning it; with
             * gemm_regions naming A or B, each fault's region drawn first (one more draw) — a
             * fault in A or B goes to the stored operand's element on its owner */
            long fi[MAXF], fj[MAXF];
            int fb[MAXF], nfx = 0, nop = 0;
            for (int x = 0; x < (clean ? 0 : nf); x++) {
                ft_region_t reg = FT_REGION_C;
                if (gemm_regions & ~(1u << FT_REGION_C)) {
                    ft_region_t avail[3];
                    int na = 0;
                    if (!gemm_regions || (gemm_regions & (1u << FT_REGION_C)))
                        avail[na++] = FT_REGION_C;
                    if (gemm_regions & (1u << FT_REGION_A)) avail[na++] = FT_REGION_A;
                    if (gemm_regions & (1u << FT_REGION_B)) avail[na++] = FT_REGION_B;
                    reg = avail[rng_next(&rng) % (uint64_t)na];
                }
                if (reg != FT_REGION_C) { /* A (m x k) or B (k x n), the call's 'N', 'N' */
                    const int a = reg == FT_REGION_A;
                    const long i = (long)(rng_next(&rng) % (a ? m : k)),
                               j = (long)(rng_next(&rng) % (a ? k : n));
                    const int b = x == 0 ? bit : (int)(rng_next(&rng) % 64);
                    if (owner(&g, a ? &A : &B, i, j) == me_in(&g)) {
                        ft_fault_t f = {.region = reg, .row = i, .col = j, .bit = b, .call = -1,
                                        .step = -1};
                        ft_inject_add(ctx, &f);
                    }
                    snprintf(tregs + strlen(tregs), sizeof tregs - strlen(tregs),
                             "%s%c(%ld,%ld)b%d", nop ? "," : " operands:", a ? 'A' : 'B', i, j,
                             b);
                    nop++;
                    continue;
                }
                const long i = (long)(rng_next(&rng) % m), j = (long)(rng_next(&rng) % n);
                const int b = x == 0 ? bit : (int)(rng_next(&rng) % 64);
                int dup = 0;
                for (int y = 0; y < nfx; y++) dup |= fi[y] == i && fj[y] == j;
                if (dup) continue;
                fi[nfx] = i, fj[nfx] = j, fb[nfx++] = b;
                if (owner(&g, &C, i, j) == me_in(&g)) {
                    ft_fault_t f = {
                        .region = FT_REGION_C, .row = i, .col = j, .bit = b, .call = -1,
                        .step = -1};
                    ft_inject_add(ctx, &f);
                }
            }
            if (only_trial() >= 0 && t != only_trial()) {
                ft_context_destroy(ctx);
                continue;
            }
            memcpy(C.a, C0.a, cb);
            st = ft_pdgemm_ex(ctx, 'N', 'N', m, n, k, alpha, A.a, 1, 1, A.desc, B.a, 1, 1, B.desc,
                              beta, C.a, 1, 1, C.desc, &rep);
            double *G = gather(&g, &C), err = 0.0;
            long worst = 0;
            for (long x = 0; x < (long)m * n; x++)
                if (G[x] != Cref[x] && !(fabs(G[x] - Cref[x]) <= err))
                    err = fabs(G[x] - Cref[x]), worst = x;
            /* row i's check threshold, the sums of |C| with the row's faults in */
            const gemm_rows_t gr = {m, n, k, T, alpha, beta, GA, GB, GC0, Cref};
            double rowlim[48]; /* m rows */
            for (int i = 0; i < m; i++) rowlim[i] = row_limit(&gr, i, nfx, fi, fj, fb);
            int below = 1;
            limit = INFINITY;
            for (int x = 0; x < nfx; x++) {
                const long i = fi[x], j = fj[x];
                const double ex = fabs(flip(Cref[i + j * m], fb[x]) - Cref[i + j * m]);
                below = below && ex <= rowlim[i];
                effect = fmax(effect, ex), limit = fmin(limit, rowlim[i]);
            }
            /* after a correction, every element within its own row's threshold (the check's
             * rounding bound that row is held to), with the sums of the reference or, where
             * all of the row's faults were below it, of its faults */
            int within = 1, relaxed = 0;
            if (!clean && !st && rep.detected) {
                for (int i = 0; i < m; i++) {
                    double e = 0.0, lim = rowlim[i];
                    int rb = 1;
                    for (int y = 0; y < nfx; y++)
                        if (fi[y] == i)
                            rb = rb && fabs(flip(Cref[i + fj[y] * m], fb[y]) -
                                            Cref[i + fj[y] * m]) <= rowlim[i];
                    if (!rb) lim = row_limit(&gr, i, 0, fi, fj, fb); /* the reference's sums */
                    for (int c = 0; c < n; c++) e = fmax(e, fabs(G[i + c * m] - Cref[i + c * m]));
                    if (!(e <= lim)) within = 0;
                    if (!(e <= limit) && e <= lim) relaxed = 1;
                }
            }
            nrelaxed += within && relaxed; /* corrected, not within the smallest limit */
            if (clean) cls = rep.detected || st ? C_FALSE : C_MASKED;
            else if (st) cls = C_REPORTED;
            else if (nop) cls = C_SILENT_ABOVE; /* an operand changed: the call must say so */
            else if (rep.detected == 0)
                cls = err == 0.0 ? C_MASKED : below ? C_SILENT_BELOW : C_SILENT_ABOVE;
            else cls = within ? C_CORRECTED : C_BADFIX;
            terr = err;
            if (cls >= C_FALSE) {
                for (int x = 0; x < nfx; x++)
                    snprintf(tregs + strlen(tregs), sizeof tregs - strlen(tregs), "%s(%ld,%ld)b%d",
                             x ? "," : ":", fi[x], fj[x], fb[x]);
                snprintf(tregs + strlen(tregs), sizeof tregs - strlen(tregs),
                         "; largest error at (%ld,%ld)", worst % m, worst / m);
            }
            free(G);
        } else {
            /* nf faults (every fifth trial none), each in a region drawn in turn, at its own step,
             * added by the process that owns its element: several processes at once */
            ft_region_t regs[MAXF];
            long frow[MAXF], fcol[MAXF];
            ft_fault_t fx[MAXF];
            int fown[MAXF];
            for (int x = 0; x < (clean ? 0 : nf); x++) {
                const int step = (int)(rng_next(&rng) % nsteps), i0 = step * nb;
                const int jb = qn - i0 < nb ? qn - i0 : nb;
                const int reg = (int)(rng_next(&rng) % 7);
                long i = -1, j = -1;
                ft_region_t r = FT_REGION_TRAILING;
                if (reg == 0) { /* trailing: rows and columns >= i0 */
                    i = i0 + (long)(rng_next(&rng) % (qm - i0)),
                    j = i0 + (long)(rng_next(&rng) % (qn - i0));
                } else if (reg == 1 && i0 > 0) { /* R: rows < i0, columns >= row */
                    r = FT_REGION_R;
                    i = (long)(rng_next(&rng) % i0), j = i + (long)(rng_next(&rng) % (qn - i));
                } else if (reg >= 3 && reg <= 4 && i0 > 0) { /* a finished vector or its tau */
                    r = reg == 3 ? FT_REGION_Q : FT_REGION_TAU;
                    j = (long)(rng_next(&rng) % (uint64_t)i0);
                    i = reg == 3 ? j + 1 + (long)(rng_next(&rng) % (uint64_t)(qm - j - 1)) : j;
                } else if (reg == 5) { /* inside the panel of this step, between its halves */
                    r = FT_REGION_PANEL;
                    i = i0 + (long)(rng_next(&rng) % (qm - i0));
                    j = i0 + (long)(rng_next(&rng) % (uint64_t)jb);
                } else if (reg == 6) { /* the panel's reflectors before its update: V, tau or T */
                    r = FT_REGION_REFLECTORS;
                    j = i0 + (long)(rng_next(&rng) % (uint64_t)jb);
                    const int sel = (int)(rng_next(&rng) % 8); /* (% 4 as before: same draws) */
                    if (sel == 4) { /* T(row, j - i0) between PDLARFT and PDLARFB: col qn on */
                        i = (long)(((uint64_t)j * 2654435761u) % (uint64_t)(j - i0 + 1));
                        j = qn + (j - i0);
                    } else {
                        i = sel % 4 == 0 ? j
                                         : j + 1 + (long)(rng_next(&rng) % (uint64_t)(qm - j - 1));
                    }
                } else { /* a checksum column */
                    r = FT_REGION_CHECKSUM;
                    i = (long)(rng_next(&rng) % qm), j = (long)(rng_next(&rng) % 2);
                }
                const int bit = (int)(rng_next(&rng) % 64);
                int own;
                if (r == FT_REGION_CHECKSUM) /* columns qn on of the work array, A's layout */
                    own = owner(&g, &Q, i, qn + j) == me_in(&g);
                else if (r == FT_REGION_REFLECTORS && j >= qn) /* T: on its panel's owner */
                    own = owner(&g, &Q, i0, i0) == me_in(&g);
                else own = owner(&g, &Q, i, j) == me_in(&g);
                ft_fault_t f = {
                    .region = r, .row = i, .col = j, .bit = bit, .call = -1, .step = step};
                if (own && !(drop_mask() >> x & 1)) ft_inject_add(ctx, &f);
                regs[x] = r, frow[x] = i, fcol[x] = j, fx[x] = f, fown[x] = own;
                static const char *rn[] = {"C", "A", "B", "checksum", "R", "trailing", "Q", "tau",
                                           "reflectors", "panel"};
                snprintf(tregs + (x ? strlen(tregs) : 0), sizeof tregs - (x ? strlen(tregs) : 0),
                         "%s%s:%d(%ld,%ld)b%d", x ? "," : "", rn[r], step, i, j, bit);
            }
            if (only_trial() >= 0 && t != only_trial()) {
                ft_context_destroy(ctx);
                continue;
            }
            memcpy(Q.a, Q0.a, qb);
            st = ft_pdgeqrf_ex(ctx, qm, qn, Q.a, 1, 1, Q.desc, tau, work, lw, &info, &rep);
            double *F = gather(&g, &Q), *Tt = gather_tau(&g, &Q, tau), r1 = 0.0, r2 = 0.0;
            dist_qr_ratios(GQ0, F, Tt, qm, 0, 0, qm, qn, &r1, &r2);
            free(F), free(Tt);
            /* the injected changes, from their owners' reports: the largest */
            double ev[1 + MAXF] = {0.0}; /* the largest, then each fault's (its owner's event) */
            for (int e = 0; e < rep.nevents; e++)
                if (rep.events[e].kind == FT_EVENT_INJECTED) {
                    const double d = fabs(rep.events[e].after - rep.events[e].before);
                    ev[0] = fmax(ev[0], d);
                    for (int x = 0; x < (clean ? 0 : nf); x++)
                        if (rep.events[e].region == regs[x] && rep.events[e].row == frow[x] &&
                            (rep.events[e].col == fcol[x] || regs[x] == FT_REGION_CHECKSUM))
                            ev[1 + x] = fmax(ev[1 + x], d);
                }
            Cdgamx2d(g.ctxt, "All", " ", 1 + MAXF, 1, ev, 1 + MAXF, NULL, NULL, -1, -1, -1);
            if (!clean)
                for (int x = 0; x < nf; x++)
                    snprintf(tregs + strlen(tregs), sizeof tregs - strlen(tregs), "%s%.2g",
                             x ? "/" : " effects ", ev[1 + x]);
            /* the checksums change no data; a changed vector or tau (finished, or in use by
             * its update) has no rounding to hide in: any harm it does unreported is silent;
             * the others' limit is the QR's (the smallest of the trial's faults') */
            effect = ev[0];
            limit = INFINITY;
            for (int x = 0; x < (clean ? 0 : nf); x++)
                limit = fmin(limit, regs[x] == FT_REGION_CHECKSUM ? INFINITY
                                    : regs[x] == FT_REGION_Q || regs[x] == FT_REGION_TAU ||
                                            regs[x] == FT_REGION_REFLECTORS
                                        ? 0.0
                                        : qlim);
            const int good = r1 < 30 && r2 < 30;
            terr = fmax(r1, r2);
            if (clean) cls = rep.detected || st ? C_FALSE : C_MASKED;
            else if (st) cls = C_REPORTED;
            else if (rep.detected == 0 && rep.checksum_errors == 0)
                cls = good ? C_MASKED : effect <= limit ? C_SILENT_BELOW : C_SILENT_ABOVE;
            else if (good) cls = C_CORRECTED;
            else {
                /* several faults, some detected and corrected, the result outside the ratios:
                 * the same call again with only the trial's faults in R, the trailing matrix or
                 * a panel whose change is within the limit (each alone would be silent below
                 * it): a result no worse than that one's (twice its ratio) is what they allow —
                 * the corrections were right; else miscorrected (DIST_CAMPAIGN_SHOW_SUB=1 lists
                 * the trials so classified) */
                int nsub = 0;
                ft_context_t *c2 = trial_context(q, 0);
                for (int x = 0; x < nf; x++)
                    if ((regs[x] == FT_REGION_TRAILING || regs[x] == FT_REGION_R ||
                         regs[x] == FT_REGION_PANEL) && ev[1 + x] <= qlim) {
                        nsub++;
                        if (fown[x]) ft_inject_add(c2, &fx[x]);
                    }
                double s1 = 0.0, s2 = 0.0;
                if (nsub && nsub < nf) {
                    ft_report_t rep2;
                    memcpy(Q.a, Q0.a, qb);
                    ft_pdgeqrf_ex(c2, qm, qn, Q.a, 1, 1, Q.desc, tau, work, lw, &info, &rep2);
                    double *F2 = gather(&g, &Q), *T2 = gather_tau(&g, &Q, tau);
                    dist_qr_ratios(GQ0, F2, T2, qm, 0, 0, qm, qn, &s1, &s2);
                    free(F2), free(T2);
                }
                ft_context_destroy(c2);
                const int sub = nsub && nsub < nf && fmax(r1, r2) <= 2.0 * fmax(s1, s2);
                cls = sub ? C_SILENT_BELOW : C_BADFIX;
                if (sub && g_me == 0 && getenv("DIST_CAMPAIGN_SHOW_SUB"))
                    printf("  trial %d: ratio %.3g, its below-limit faults alone %.3g (%s)\n", t,
                           fmax(r1, r2), fmax(s1, s2), tregs);
                if (!clean)
                    snprintf(tregs + strlen(tregs), sizeof tregs - strlen(tregs),
                             "; below-limit faults alone: ratio %.3g", fmax(s1, s2));
            }
        }
        ft_context_destroy(ctx);
        cnt[cls]++;
        if (cls == C_REPORTED && g_me == 0 && getenv("DIST_CAMPAIGN_SHOW_REPORTED"))
            printf("  trial %d %s bit %d: reported (status %d, detected %lld; regions %s)\n", t,
                   qr ? "pdgeqrf" : "pdgemm", bit, st, (long long)rep.detected, tregs);
        if (cls >= C_FALSE) {
            fails++;
            if (g_me == 0)
                printf("  trial %d %s bit %d: %s (status %d, detected %lld, effect %.3g, limit "
                       "%.3g, %s %.3g; regions %s)\n",
                       t, qr ? "pdgeqrf" : "pdgemm", bit, cname[cls], st, (long long)rep.detected,
                       effect, limit, qr ? "ratio" : "error", terr, tregs);
        }
    }
    if (g_me == 0) {
        printf("%% campaign %d trials, seed %llu, %d fault(s) a trial, grid %dx%d:", trials,
               (unsigned long long)seed, nf,
               g.nprow, g.npcol);
        for (int c = 0; c < C_NCLASS; c++) printf(" %s %lld", cname[c], (long long)cnt[c]);
        printf("\n%% pdgemm corrected with an element above the trial's smallest limit and within "
               "its own row's: %d\n",
               nrelaxed);
        printf("%d passed, %d failed\n", trials - fails, fails);
    }
    free(Cref), free(GA), free(GB), free(GC0), free(GQ0), free(tau), free(work);
    free(A.a), free(B.a), free(C.a), free(C0.a), free(Q.a), free(Q0.a);
    Cblacs_gridexit(g.ctxt);
    return fails;
}

