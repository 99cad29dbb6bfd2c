/*
 * testing_ft_pdgeqrf.c — MAGMA-style tester of ft_pdgeqrf (docs/dist.md), run under mpirun:
 * speed against ScaLAPACK's PDGEQRF in the same run (protection on and off), LAPACK's dqrt01
 * accuracy ratios of the distributed factor, and fault injection on any process.
 *
 *   mpirun -np P testing_ft_pdgeqrf [-M m] [-N n] [--nb nb] [--grid PxQ] [--niter n] [--check]
 *                                   [--verify-every q] [--inject SPEC]... [--expect E]
 *                                   [--seed s] [--tol t] [--verbose v]
 *
 * -M / -N take a value or a range start:end:step; -N alone means square. --grid: the process
 * grid (default: the squarest of all the processes, P <= Q); --nb: the block size of the
 * block-cyclic distribution (default 64), which is also PDGEQRF's and ftla's panel width.
 * Timing: --niter rounds (default 3) after one warm-up round; a round runs PDGEQRF, ft_pdgeqrf
 * with protection on and with protection off (policy.protect = FT_PROTECT_OFF: PDGEQRF through
 * ftla's entry, reported unchecked), in an order that alternates from round to round; each call
 * starts from the same matrix, between barriers; the time of a call is the wall clock of process
 * 0 from the barrier before it to the barrier after it. Reported: the medians as GFLOP/s (LAPACK's
 * flop count, LAWN 41) and ft-on / PDGEQRF.
 * --check: one more protected call whose factor is gathered: ||A - Q R||_1 / (max(m,n) ||A||_1
 * eps) and ||I - Q^T Q||_1 / (m eps) with Q formed by LAPACK's dorgqr (both < --tol, default 30),
 * and max_i | |R_ii| - |R_ii|_PDGEQRF | / max_i |R_ii| < 1e-10. Gathering puts the whole matrix
 * on every process: for sizes a process can hold.
 * --inject SPEC (repeatable): region[:key=value]..., region trailing | R | checksum | Q | tau |
 * panel (inside the panel of that step, between its halves) | reflectors (the panel's vectors,
 * row > col, or its tau, row = col, between the panel and its update),
 * keys step (the panel step before which the fault is applied; absent: the first), row, col
 * (0-based in sub(A); for checksum col is the checksum column; for tau col is its index), bit
 * (default 55) or value (added; testing_util's tu_parse_fault); a position
 * left out is drawn from the region at that step (trailing: rows and columns >= the step's first
 * column; R: finished rows; Q: below the diagonal of finished columns; tau: a finished one) by
 * ftla's injector. The process owning the element applies it.
 * With faults the checked call carries them, and --expect says what must come of them:
 * `corrected` (status 0, every fault detected, the ratios below --tol), `reported` (a non-zero
 * status), `any` (default: either, but never a silent wrong result: status 0 with ratios above
 * --tol fails). Faults imply --check.
 * Output: `%` header lines, one row per size, `N passed, N failed` (process 0); every process
 * exits 1 on a failure, 2 on bad arguments.
 */
#include "dist_util.h"
#include "testing_util.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_INJECT 32

enum { EXPECT_ANY = 0, EXPECT_CORRECTED = 1, EXPECT_REPORTED = 2 };

typedef struct {
    tu_sizes_t M, N;
    int haveM, haveN, nb, p, q, niter, check, verify_every, verbose, expect, nfaults;
    unsigned seed;
    double tol;
    ft_fault_t faults[MAX_INJECT];
} opts_t;

static int g_me, g_np;

static void usage(void)
{
    if (g_me) return;
    printf("usage: mpirun -np P testing_ft_pdgeqrf [options]\n"
           "  -M m, -N n             sizes: a value or start:end:step (-N alone: square)\n"
           "  --nb nb                block size of the distribution and the panels (default 64)\n"
           "  --grid PxQ             process grid (default the squarest, P <= Q)\n"
           "  --niter n              timed rounds after one warm-up (default 3)\n"
           "  --check                dqrt01 ratios of the gathered factor, R against PDGEQRF's\n"
           "  --verify-every q       policy.verify_every (the panels between verifications)\n"
           "  --inject SPEC          region[:step=p][:row=i][:col=j][:bit=b|:value=x], region\n"
           "                         trailing|R|checksum|Q|tau|panel|reflectors (repeatable;\n"
           "                         implies --check)\n"
           "  --expect any|corrected|reported   what must come of the faults (default any)\n"
           "  --seed s               seed of the matrix (default 1)\n"
           "  --tol t                ratio threshold (default 30)\n"
           "  --verbose v            policy.verbose of ftla's calls\n");
}

/* tu_parse_fault, for the regions ft_pdgeqrf injects into */
static int parse_fault(const char *s, ft_fault_t *f)
{
    if (tu_parse_fault(s, f)) return -1;
    const ft_region_t r = f->region;
    return r == FT_REGION_TRAILING || r == FT_REGION_R || r == FT_REGION_CHECKSUM ||
                   r == FT_REGION_Q || r == FT_REGION_TAU || r == FT_REGION_PANEL ||
                   r == FT_REGION_REFLECTORS
               ? 0
               : -1;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->nb = 64, o->niter = 3, o->seed = 1, o->tol = 30.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, takes = 1;
        if (!strcmp(a, "-M")) bad = !v || tu_parse_sizes(v, &o->M), o->haveM = 1;
        else if (!strcmp(a, "-N")) bad = !v || tu_parse_sizes(v, &o->N), o->haveN = 1;
        else if (!strcmp(a, "--nb")) bad = !v || tu_parse_int(v, 1, 4096, &o->nb);
        else if (!strcmp(a, "--grid"))
            bad = !v || sscanf(v, "%dx%d", &o->p, &o->q) != 2 || o->p < 1 || o->q < 1;
        else if (!strcmp(a, "--niter")) bad = !v || tu_parse_int(v, 1, 100000, &o->niter);
        else if (!strcmp(a, "--verify-every"))
            bad = !v || tu_parse_int(v, 0, 1 << 30, &o->verify_every);
        else if (!strcmp(a, "--verbose")) bad = !v || tu_parse_int(v, 0, 2, &o->verbose);
        else if (!strcmp(a, "--seed")) {
            int s;
            bad = !v || tu_parse_int(v, 0, 1 << 30, &s);
            o->seed = (unsigned)s;
        } else if (!strcmp(a, "--tol")) bad = !v || tu_parse_double(v, &o->tol) || !(o->tol > 0);
        else if (!strcmp(a, "--inject")) {
            bad = !v || o->nfaults >= MAX_INJECT || parse_fault(v, &o->faults[o->nfaults]);
            if (!bad) o->nfaults++;
        } else if (!strcmp(a, "--expect")) {
            if (!v) bad = 1;
            else if (!strcasecmp(v, "any")) o->expect = EXPECT_ANY;
            else if (!strcasecmp(v, "corrected")) o->expect = EXPECT_CORRECTED;
            else if (!strcasecmp(v, "reported")) o->expect = EXPECT_REPORTED;
            else bad = 1;
        } else if (!strcmp(a, "--check")) o->check = 1, takes = 0;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 1;
        } else {
            if (!g_me) fprintf(stderr, "testing_ft_pdgeqrf: unknown option '%s'\n", a);
            return 2;
        }
        if (bad) {
            if (!g_me) fprintf(stderr, "testing_ft_pdgeqrf: bad value for %s\n", a);
            return 2;
        }
        i += takes;
    }
    if (!o->haveN && !o->haveM) o->N.v[0] = 1024, o->N.n = 1;
    if (!o->haveN) o->N = o->M;
    if (!o->haveM) o->M = o->N;
    if (o->M.n != o->N.n && o->M.n != 1 && o->N.n != 1) {
        if (!g_me) fprintf(stderr, "testing_ft_pdgeqrf: -M and -N lists differ in length\n");
        return 2;
    }
    if (o->p && o->p * o->q != g_np) {
        if (!g_me)
            fprintf(stderr, "testing_ft_pdgeqrf: --grid %dx%d needs %d processes, not %d\n", o->p,
                    o->q, o->p * o->q, g_np);
        return 2;
    }
    if (o->nfaults) o->check = 1;
    return 0;
}

static double qr_flops(double m, double n)
{
    if (m >= n) return 2.0 * m * n * n - 2.0 * n * n * n / 3.0;
    return 2.0 * n * m * m - 2.0 * m * m * m / 3.0;
}

/* dqrt01's ratios of the gathered factor F (m x n, tau) against A0, by BLAS */
static void ratios(const double *A0, const double *F, const double *tau, int m, int n, double *r1,
                   double *r2)
{
    const int k = m < n ? m : n;
    double *Q = calloc((size_t)m * m, sizeof(double)), *R = calloc((size_t)m * n, sizeof(double));
    double *X = malloc(sizeof(double) * (size_t)m * (m > n ? m : n));
    LAPACKE_dlacpy(LAPACK_COL_MAJOR, 'L', m, k, F, m, Q, m);
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, m, k, Q, m, tau);
    LAPACKE_dlacpy(LAPACK_COL_MAJOR, 'U', m, n, F, m, R, m);
    memcpy(X, A0, sizeof(double) * (size_t)m * n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, m, -1.0, Q, m, R, m, 1.0, X, m);
    const double eps = LAPACKE_dlamch('P');
    const double an = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', m, n, A0, m);
    const double rn = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', m, n, X, m);
    *r1 = an > 0 ? rn / ((double)(m > n ? m : n) * an * eps) : rn;
    LAPACKE_dlaset(LAPACK_COL_MAJOR, 'A', m, m, 0.0, 1.0, X, m);
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, m, m, -1.0, Q, m, 1.0, X, m);
    *r2 = LAPACKE_dlansy(LAPACK_COL_MAJOR, '1', 'U', m, X, m) / ((double)m * eps);
    free(Q), free(R), free(X);
}

static ft_context_t *make_ctx(const opts_t *o, int protect)
{
    ft_context_t *ctx = NULL;
    if (ft_context_create(&ctx, FT_DEVICE_CPU)) return NULL;
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.protect = protect ? FT_PROTECT_ABFT : FT_PROTECT_OFF;
    pol.verify_every = o->verify_every;
    pol.verbose = o->verbose;
    ft_context_set_policy(ctx, &pol);
    return ctx;
}

/* one size; returns 1 when its row passed */
static int run_size(const opts_t *o, const grid_t *g, int m, int n)
{
    const int nb = o->nb, k = m < n ? m : n, one = 1;
    dmat_t A, A0;
    dmat(g, m, n, nb, nb, 0, 0, &A), dmat(g, m, n, nb, nb, 0, 0, &A0);
    fill(g, &A0, o->seed);
    const size_t bytes = sizeof(double) * (size_t)A.desc[8] * (size_t)(A.lc > 1 ? A.lc : 1);
    double *tau = calloc((size_t)A.lc + 1, sizeof(double)), wq = 0.0;
    int info = 0, lw = -1;
    pdgeqrf_(&m, &n, A.a, &one, &one, A.desc, tau, &wq, &lw, &info);
    lw = (int)wq > 1 ? (int)wq : 1;
    double *work = malloc(sizeof(double) * (size_t)lw);
    ft_context_t *con = make_ctx(o, 1), *coff = make_ctx(o, 0);
    double *t = calloc((size_t)(3 * o->niter), sizeof(double));
    char why[200] = "";
    int bad = !tau || !work || !t || !con || !coff;
    if (bad) snprintf(why, sizeof why, "allocation or context failed");
    for (int r = 0; r <= o->niter && !bad; r++)
        for (int v = 0; v < 3; v++) {
            const int w = (r % 3 + v) % 3; /* each method first in turn */
            memcpy(A.a, A0.a, bytes);
            Cblacs_barrier(g->ctxt, "All");
            const double t0 = wall();
            int st = 0;
            if (w == 0) pdgeqrf_(&m, &n, A.a, &one, &one, A.desc, tau, work, &lw, &info);
            else
                st = ft_pdgeqrf_ex(w == 1 ? con : coff, m, n, A.a, 1, 1, A.desc, tau, work, lw,
                                   &info, NULL);
            Cblacs_barrier(g->ctxt, "All");
            if (r > 0) t[w * o->niter + r - 1] = wall() - t0; /* round 0: warm-up */
            if ((st || info) && !why[0])
                snprintf(why, sizeof why, "%s: status %d info %d",
                         w == 0   ? "PDGEQRF"
                         : w == 1 ? "ft on"
                                  : "ft off",
                         st, info);
        }
    double med[3] = {0, 0, 0};
    for (int w = 0; w < 3 && !bad; w++) {
        qsort(t + w * o->niter, (size_t)o->niter, sizeof(double), cmpd);
        med[w] = t[w * o->niter + o->niter / 2];
    }
    /* the checked call: protected, with the faults of this process */
    double r1 = -1, r2 = -1, rd = -1;
    long long det = 0, cor = 0;
    int st = 0;
    if (o->check && !bad) {
        ft_context_t *cc = make_ctx(o, 1);
        for (int f = 0; f < o->nfaults; f++) ft_inject_add(cc, &o->faults[f]);
        ft_report_t rep;
        memcpy(A.a, A0.a, bytes);
        st = ft_pdgeqrf_ex(cc, m, n, A.a, 1, 1, A.desc, tau, work, lw, &info, &rep);
        ft_context_destroy(cc);
        det = rep.detected + rep.checksum_errors, cor = rep.corrected + rep.checksum_errors;
        double *F = gather(g, &A), *T = gather_tau(g, &A, tau), *G0 = gather(g, &A0);
        /* PDGEQRF's R */
        memcpy(A.a, A0.a, bytes);
        pdgeqrf_(&m, &n, A.a, &one, &one, A.desc, tau, work, &lw, &info);
        double *P = gather(g, &A);
        double v[3] = {0, 0, 0};
        if (g_me == 0) {
            ratios(G0, F, T, m, n, &r1, &r2);
            double dm = 0.0, rm = 0.0;
            for (int i = 0; i < k; i++) {
                const double a = fabs(F[i + (size_t)i * m]), b = fabs(P[i + (size_t)i * m]);
                dm = fmax(dm, fabs(a - b)), rm = fmax(rm, b);
            }
            rd = rm > 0 ? dm / rm : dm;
            v[0] = r1, v[1] = r2, v[2] = rd;
        }
        Cdgsum2d(g->ctxt, "All", " ", 3, 1, v, 3, -1, -1);
        r1 = v[0], r2 = v[1], rd = v[2];
        free(F), free(T), free(G0), free(P);
        const int good = r1 < o->tol && r2 < o->tol && (st || rd < 1e-10);
        if (!o->nfaults && (st || det || !good))
            snprintf(why, sizeof why,
                     "fault-free: status %d, detected %lld, ratios %.3g %.3g, R "
                     "%.2g",
                     st, det, r1, r2, rd);
        else if (o->nfaults) {
            if (st == 0 && !good)
                snprintf(why, sizeof why, "SILENT: status 0 with ratios %.3g %.3g", r1, r2);
            else if (o->expect == EXPECT_CORRECTED && (st || det < o->nfaults))
                snprintf(why, sizeof why, "expected corrected: status %d, detected %lld of %d", st,
                         det, o->nfaults);
            else if (o->expect == EXPECT_REPORTED && st == 0)
                snprintf(why, sizeof why, "expected reported: status 0");
        }
    }
    const int ok = !bad && !why[0];
    if (g_me == 0) {
        const double fl = qr_flops(m, n) * 1e-9;
        printf("%6d %6d %3dx%-3d %4d %10.2f %10.2f %10.2f %7.3f", m, n, g->nprow, g->npcol, nb,
               med[0] > 0 ? fl / med[0] : 0.0, med[1] > 0 ? fl / med[1] : 0.0,
               med[2] > 0 ? fl / med[2] : 0.0, med[0] > 0 ? med[1] / med[0] : 0.0);
        if (o->check) printf("  %9.3g %9.3g %8.2g", r1, r2, rd);
        else printf("  %9s %9s %8s", "-", "-", "-");
        printf("  %3d %3lld %3lld %6d  %s\n", o->nfaults, det, cor, st, ok ? "ok" : "FAILED");
        if (!ok) printf("%%   %s\n", why);
    }
    ft_context_destroy(con), ft_context_destroy(coff);
    free(t), free(work), free(tau), free(A.a), free(A0.a);
    return ok;
}

int main(int argc, char **argv)
{
    Cblacs_pinfo(&g_me, &g_np);
    opts_t o;
    const int pa = parse_args(argc, argv, &o);
    if (pa) {
        if (pa == 2) usage();
        Cblacs_exit(0);
        return pa == 1 ? 0 : 2;
    }
    grid_t g;
    if (o.p) grid_init(&g, o.p, o.q);
    else squarest_grid(&g, g_np);
    char vq[64] = "at the end only (the default)";
    if (o.verify_every) snprintf(vq, sizeof vq, "every %d panel(s)", o.verify_every);
    if (g_me == 0) {
        printf(
            "%% testing_ft_pdgeqrf: %d process(es), grid %dx%d, nb %d, %d timed round(s) after a "
            "warm-up, verification %s\n",
            g_np, g.nprow, g.npcol, o.nb, o.niter, vq);
        printf("%% peer: ScaLAPACK PDGEQRF in the same rounds; GFLOP/s = LAPACK flop count / "
               "median; on/peer = ft_pdgeqrf median / PDGEQRF median\n");
        printf("%%     M      N  grid   nb  PDGEQRF    ft-on      ft-off    on/peer"
               "  ||A-QR||  ||I-QQ'||   R diff  inj det cor status  result\n");
    }
    int pass = 0, fail = 0;
    const int ns = o.M.n > o.N.n ? o.M.n : o.N.n;
    for (int s = 0; s < ns; s++) {
        const int m = (int)o.M.v[o.M.n == 1 ? 0 : s], n = (int)o.N.v[o.N.n == 1 ? 0 : s];
        if (run_size(&o, &g, m, n)) pass++;
        else fail++;
    }
    if (g_me == 0) printf("%d passed, %d failed\n", pass, fail);
    Cblacs_gridexit(g.ctxt);
    Cblacs_exit(0);
    return fail ? 1 : 0;
}
