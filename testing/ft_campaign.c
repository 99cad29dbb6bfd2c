/*
 * ft_campaign.c — the fault campaign of ftla (issue 7, "The instrument"): many randomised trials
 * of ft_dgemm_ex and ft_dgeqrf_ex with faults planned through the library's injection plan,
 * each trial classified against a fault-free reference and the documented detection limits
 * (docs/reliability.md), plus a stress set of valid nasty inputs without faults.
 *
 *   ft_campaign [--trials K] [--seed S] [--routine dgemm|dgeqrf|all|dist] [--device cpu|cuda]
 *               [--faults-per-trial F] [--regions LIST] [--json FILE] [--stress]
 *               [--trial t] [--quiet]
 *
 * --routine dist (built with MPI and ScaLAPACK; run under mpirun): the distributed routines'
 * campaign (dist_campaign.c: ft_pdgemm and ft_pdgeqrf in turn on the squarest grid of all
 * processes, faults on any process and region, --faults-per-trial of them, --verify-every q;
 * --regions picks ft_pdgemm's from C, A, B: a fault in A or B must be reported).
 * Every random choice of trial t comes from a generator seeded by hash(S, routine, t), so
 * `--routine R --trial t` (with the same --seed, --faults-per-trial, --regions) replays it.
 * Output: a `%` header, class tables, the list of gate failures with replay commands, the last
 * line `N passed, N failed`; exit 1 when a trial failed (false alarm, silent corruption above the
 * documented limit, library error), 77 when cuda is asked and unavailable, 2 on usage errors.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_dgeqrf_common.h"
#include "testing_util.h"

#include "blas3/dgemm_internal.h" /* dgemm_ooc_plan: --ooc places faults in sub-products */
#include "abft/abft.h" /* the library's own threshold formulas: the documented-limit oracle */
#ifdef FTLA_CAMPAIGN_DIST
#include "dist_campaign.h" /* --routine dist: ft_pdgemm and ft_pdgeqrf under mpirun */
#include "dist_util.h"     /* Cblacs_pinfo, Cblacs_exit */
#endif

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define MAXF 8         /* faults per trial */
#define TOL_RATIO 30.0 /* accuracy ratios of the testers */
#define TOL_ABFT 2.0   /* policy.tol default (docs/thresholds.md) */
/* A check's residual is the fault's change plus the clean rounding, which tau bounds as
 * tol x the worst case: up to tau / tol of it may cancel part of the change. So what a check is
 * sure to see is a change above tau (1 + 1/tol), the documented limit (docs/reliability.md; the
 * two-error limit below uses the same tau / 2). */
#define LIM_ROUND (1.0 + 1.0 / TOL_ABFT)

enum { R_DGEMM = 0, R_DGEQRF = 1 };
static const char *routine_name[2] = {"dgemm", "dgeqrf"};

/* corruption kinds / bit classes */
enum { BC_SIGN = 0, BC_EXP, BC_MHI, BC_MLO, BC_ADDE, BC_ADDT, BC_NONE, BC_COUNT };
static const char *bc_name[BC_COUNT] = {"sign",     "exponent", "mant32-51", "mant0-31",
                                        "add-elem", "add-thr",  "none"};

/* outcome classes */
enum {
    CL_CLEAN = 0, /* no fault, nothing reported, within the contract */
    CL_MASKED,
    CL_CORRECTED,
    CL_REPORTED,
    CL_FALSE_ALARM,
    CL_SILENT_BELOW,
    CL_SILENT_ABOVE,
    CL_UNPROTECTED,
    CL_NOT_APPLIED,
    CL_ERROR, /* a status other than 0 / UNCORRECTABLE / NOT_RECOVERED */
    CL_COUNT
};
static const char *cl_name[CL_COUNT] = {"clean",       "masked",     "corrected",  "reported",
                                        "FALSE-ALARM", "silent<lim", "SILENT>LIM", "unprotect",
                                        "not-appl",    "ERROR"};
static int cl_fails(int c) { return c == CL_FALSE_ALARM || c == CL_SILENT_ABOVE || c == CL_ERROR; }

enum { SH_SQUARE = 0, SH_TALL, SH_WIDE, SH_TINY, SH_NEAR, SH_COUNT };
static const char *sh_name[SH_COUNT] = {"square", "tall", "wide", "tiny", "near-tile"};
enum { SZ_TINY = 0, SZ_SMALL, SZ_MED, SZ_LARGE, SZ_COUNT };
static const char *sz_name[SZ_COUNT] = {"<=8", "9..64", "65..192", ">192"};

enum { MT_U = 0, MT_SC, MT_GR, MT_GC, MT_INT, MTY_COUNT };
static const char *mty_name[MTY_COUNT] = {"uniform", "scaled", "graded-rows", "graded-cols",
                                          "integer"};

static const char *region_name(int r)
{
    static const char *n[] = {"C", "A",        "B",   "CHECKSUM", "R",
                              "TRAILING", "Q", "TAU", "REFLECT", "PANEL"};
    return r >= 0 && r <= 9 ? n[r] : "?";
}

typedef struct {
    int region, bc, bit;
    double value, factor; /* additive value; its factor (of |x| or of the limit) */
    int64_t row, col, step;
    int local;          /* out of core: planned at (prow, pcol) of sub-product step's block */
    int64_t prow, pcol; /* (row, col: the element of the whole C, for the limit) */
    int applied;
    double before, after, effect, limit;
    int below; /* effect <= documented limit (finite) */
    int pair;  /* the limit is the two-error limit (qr_pair_limits) */
} fault_rec_t;

typedef struct {
    int routine;
    int64_t t;
    int shape, mtype, e[3];
    int64_t m, n, k;
    char ta, tb;
    double alpha, beta;
    int tile, nb, ve;
    int nofault, nf;
    fault_rec_t f[MAXF];
    int status;
    int64_t injected, detected, located, corrected, uncorrectable, checksum_errors, recomputed,
        unchecked, checks, recovered;
    int recovery;
    double ratio[2];
    int ok, cls;
    const char *note;
} trial_t;

typedef struct {
    int64_t trials;
    uint64_t seed;
    int routines; /* bit 0 dgemm, bit 1 dgeqrf; 4: dist alone */
    ft_device_t device;
    int F;
    int vevery; /* --verify-every: --routine dist's policy.verify_every */
    int regmask_gemm, regmask_qr, regions_given;
    char regions_arg[128];
    const char *json;
    int stress;
    int64_t trial;
    int expect; /* --expect: the class a replayed trial must get, or -1 */
    int quiet;
    int devptr; /* --pointers device: the caller's data in GPU memory (the _gpu entry points) */
    int panel;  /* --panel: policy.panel (ft_panel_t) */
    int64_t ooc_trials, ooc_subs; /* counted by the dgemm trials */
    int ooc;    /* --ooc: dgemm out of core, a work-memory limit of half what the call needs */
    int tmr;    /* --protect tmr: policy.protect = FT_PROTECT_TMR (dgemm by three products and a
                 * vote; CHECKSUM faults go to the replicas, every limit is 0) */
    int qrupd;  /* --qr-update: dgeqrf with an FT factor attached (QR-update recovery; ratios
                 * through ft_dormqr with its rotations) instead of re-factorization */
    const char *skip[16];
    int nskip;
} opts_t;

static opts_t O;

/* ---- the calls: host pointers (ft_*_ex), or with --pointers device the caller's arrays in GPU
 * memory (ft_*_gpu_ex: the library works on them in place, faults land in the caller's device
 * memory). Copies in and out are the campaign's, outside the call. ------------------------------ */

#ifdef FTLA_HAVE_CUDA
static int dev_fail(cudaError_t e, const char *what)
{
    printf("%% cuda error in the campaign's own %s: %s\n", what, cudaGetErrorString(e));
    return FT_ERR_CUDA;
}
#endif

static int call_dgemm(ft_context_t *ctx, char ta, char tb, int64_t m, int64_t n, int64_t k,
                      double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                      double beta, double *C, int64_t ldc, ft_report_t *rep)
{
#ifdef FTLA_HAVE_CUDA
    if (O.devptr) {
        const size_t na = (size_t)lda * (size_t)(ta == 'N' ? k : m),
                     nb = (size_t)ldb * (size_t)(tb == 'N' ? n : k), nc = (size_t)ldc * (size_t)n;
        double *dA = NULL, *dB = NULL, *dC = NULL;
        int st = 0;
        cudaError_t e;
        if ((e = cudaMalloc((void **)&dA, (na + 1) * sizeof(double))) ||
            (e = cudaMalloc((void **)&dB, (nb + 1) * sizeof(double))) ||
            (e = cudaMalloc((void **)&dC, (nc + 1) * sizeof(double))) ||
            (e = cudaMemcpy(dA, A, na * sizeof(double), cudaMemcpyHostToDevice)) ||
            (e = cudaMemcpy(dB, B, nb * sizeof(double), cudaMemcpyHostToDevice)) ||
            (e = cudaMemcpy(dC, C, nc * sizeof(double), cudaMemcpyHostToDevice)))
            st = dev_fail(e, "copy in");
        if (!st) {
            st = ft_dgemm_gpu_ex(ctx, ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, dA,
                                 (ft_int)lda, dB, (ft_int)ldb, beta, dC, (ft_int)ldc, rep);
            if ((e = cudaMemcpy(C, dC, nc * sizeof(double), cudaMemcpyDeviceToHost)))
                st = dev_fail(e, "copy out");
        }
        cudaFree(dA);
        cudaFree(dB);
        cudaFree(dC);
        return st;
    }
#endif
    return ft_dgemm_ex(ctx, ta, tb, (ft_int)m, (ft_int)n, (ft_int)k, alpha, A, (ft_int)lda, B,
                       (ft_int)ldb, beta, C, (ft_int)ldc, rep);
}

static int call_dgeqrf(ft_context_t *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                       double *tau, double *work, int64_t lwork, ft_int *info, ft_report_t *rep)
{
#ifdef FTLA_HAVE_CUDA
    if (O.devptr) {
        const size_t na = (size_t)lda * (size_t)n;
        double *dA = NULL;
        int st = 0;
        cudaError_t e;
        if ((e = cudaMalloc((void **)&dA, (na + 1) * sizeof(double))) ||
            (e = cudaMemcpy(dA, A, na * sizeof(double), cudaMemcpyHostToDevice)))
            st = dev_fail(e, "copy in");
        if (!st) {
            st = ft_dgeqrf_gpu_ex(ctx, (ft_int)m, (ft_int)n, dA, (ft_int)lda, tau, info, rep);
            if ((e = cudaMemcpy(A, dA, na * sizeof(double), cudaMemcpyDeviceToHost)))
                st = dev_fail(e, "copy out");
        }
        cudaFree(dA);
        return st;
    }
#endif
    return ft_dgeqrf_ex(ctx, (ft_int)m, (ft_int)n, A, (ft_int)lda, tau, work, (ft_int)lwork, info,
                        rep);
}

/* ---- random helpers ------------------------------------------------------------------------ */

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t trial_hash(uint64_t S, int routine, int64_t t)
{
    return mix(mix(mix(S) ^ (uint64_t)(routine + 1) * 0xD1B54A32D192ED03ull) ^ (uint64_t)t);
}
static double urand(tu_rng_t *r) { return (double)(tu_next(r) >> 11) * 0x1.0p-53; } /* [0,1) */
static int64_t irand(tu_rng_t *r, int64_t lo, int64_t hi)                           /* [lo, hi] */
{
    if (hi <= lo) return lo;
    return lo + (int64_t)(tu_next(r) % (uint64_t)(hi - lo + 1));
}
static double sgn(tu_rng_t *r) { return (tu_next(r) & 1) ? -1.0 : 1.0; }

static int bit_class(int bit)
{
    return bit == 63 ? BC_SIGN : bit >= 52 ? BC_EXP : bit >= 32 ? BC_MHI : BC_MLO;
}

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s ? s : 1);
    if (!p) {
        printf("FAILED: out of host memory\n");
        exit(2);
    }
    return p;
}

/* ---- matrix generation ---------------------------------------------------------------------- */

/* Fill a logical rows x cols matrix X (ld rows) with matrix type mt; exponent e for scaled. */
static void gen_matrix(tu_rng_t *r, int mt, int e, int64_t rows, int64_t cols, double *X)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double v;
            switch (mt) {
            case MT_SC: v = ldexp(tu_uniform(r), e); break;
            case MT_GR:
                v = tu_uniform(r) * pow(10.0, rows > 1 ? -6.0 + 12.0 * (double)i / (rows - 1) : 0);
                break;
            case MT_GC:
                v = tu_uniform(r) * pow(10.0, cols > 1 ? -6.0 + 12.0 * (double)j / (cols - 1) : 0);
                break;
            case MT_INT: v = (double)tu_int(r, -1000, 1000); break;
            default: v = tu_uniform(r); break;
            }
            X[i + j * rows] = v;
        }
}

/* Store the logical op matrix L (rows x cols, ld rows) as X with trans: X = L or L^T (ld ldx). */
static void store_op(char trans, int64_t rows, int64_t cols, const double *L, double *X,
                     int64_t ldx)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            if (trans == 'N') X[i + j * ldx] = L[i + j * rows];
            else X[j + i * ldx] = L[i + j * rows];
        }
}

/* ---- the documented-limit oracles ----------------------------------------------------------- */

/* dgemm row check (i, J) threshold (docs/thresholds.md) from the logical op(A) (m x k) and op(B)
 * (k x n), C0 (ld m, beta != 0) and the result sum s = sum_J |C(i,j)|. With s < 0 only the
 * input part (no s term). */
static double gemm_tau(int64_t m, int64_t n, int64_t k, int64_t T, double alpha, double beta,
                       const double *LA, const double *LB, const double *C0, int64_t i, int64_t J,
                       double s)
{
    const int64_t j0 = J * T, j1 = j0 + T < n ? j0 + T : n;
    /* in the library's scaled units (abft_gemm_rscale), back to plain units at the end */
    const double rsig = abft_gemm_rscale(T, k), sig = 1.0 / rsig;
    double an = 0.0, zmax = 0.0, h = 0.0;
    for (int64_t l = 0; l < k; l++) an += fabs(sig * LA[i + l * m]);
    for (int64_t l = 0; l < k; l++) {
        double z = 0.0;
        for (int64_t j = j0; j < j1; j++) z += fabs(sig * LB[l + j * k]);
        if (!(z <= zmax)) zmax = z;
    }
    if (beta != 0.0)
        for (int64_t j = j0; j < j1; j++) h += fabs(sig * C0[i + j * m]);
    double t = abft_tau(TOL_ABFT, k, j1 - j0, alpha, beta, an, zmax, h, 0.0, rsig);
    if (s > 0.0 && isfinite(s)) t += abft_tau_s(TOL_ABFT, j1 - j0, sig * s);
    return t * rsig;
}
static double gemm_rowabs(int64_t m, int64_t n, int64_t T, const double *C, int64_t ldc, int64_t i,
                          int64_t J)
{
    const int64_t j0 = J * T, j1 = j0 + T < n ? j0 + T : n;
    double s = 0.0;
    for (int64_t j = j0; j < j1; j++) s += fabs(C[i + j * ldc]);
    (void)m;
    return s;
}

/* Documented limit of an operand fault (FT_REGION_A / _B): the smallest change delta of the
 * logical element op(A)(i,l) (a = 1) or op(B)(l,j) (a = 0) that some row check can see. A wrong
 * op(A)(i,l) changes row i of C by alpha delta op(B)(l,:), so the check of block J moves by
 * |alpha delta| max(|sum_J b_lj|, |sum_J w_j b_lj|); a wrong op(B)(l,j) changes column j by
 * alpha delta op(A)(:,l), each row check of j's block by |alpha delta a_il|. The limit is the
 * smallest tau / sensitivity over the checks (tau as gemm_tau, the fault-free sums of |C|). */
static double gemm_limit_operand(int a, int64_t m, int64_t n, int64_t k, int64_t T, double alpha,
                                 double beta, const double *LA, const double *LB,
                                 const double *C0, const double *Cref, int64_t ldc, int64_t i,
                                 int64_t l, int64_t j)
{
    const int64_t W = abft_wden(T);
    double best = INFINITY;
    if (a) {
        for (int64_t J = 0; J * T < n; J++) {
            const int64_t j0 = J * T, j1 = j0 + T < n ? j0 + T : n;
            double se = 0.0, sw = 0.0;
            for (int64_t jj = j0; jj < j1; jj++) {
                se += LB[l + jj * k];
                sw += abft_weight(jj - j0, W) * LB[l + jj * k];
            }
            double sens = fabs(alpha) * fmax(fabs(se), fabs(sw));
            if (!(sens > 0.0)) continue;
            double tau = gemm_tau(m, n, k, T, alpha, beta, LA, LB, C0, i, J,
                                  gemm_rowabs(m, n, T, Cref, ldc, i, J));
            if (tau / sens < best) best = tau / sens;
        }
        return best;
    }
    const int64_t J = j / T, j0 = J * T, j1 = j0 + T < n ? j0 + T : n;
    const double rsig = abft_gemm_rscale(T, k), sig = 1.0 / rsig; /* as gemm_tau */
    double zmax = 0.0; /* as gemm_tau, once for the block */
    for (int64_t ll = 0; ll < k; ll++) {
        double z = 0.0;
        for (int64_t jj = j0; jj < j1; jj++) z += fabs(sig * LB[ll + jj * k]);
        if (!(z <= zmax)) zmax = z;
    }
    for (int64_t r = 0; r < m; r++) {
        double sens = fabs(alpha) * fabs(LA[r + l * m]);
        if (!(sens > 0.0)) continue;
        double an = 0.0, h = 0.0;
        for (int64_t ll = 0; ll < k; ll++) an += fabs(sig * LA[r + ll * m]);
        if (beta != 0.0)
            for (int64_t jj = j0; jj < j1; jj++) h += fabs(sig * C0[r + jj * m]);
        double tau = abft_tau(TOL_ABFT, k, j1 - j0, alpha, beta, an, zmax, h, 0.0, rsig);
        double sabs = gemm_rowabs(m, n, T, Cref, ldc, r, J);
        if (sabs > 0.0 && isfinite(sabs)) tau += abft_tau_s(TOL_ABFT, j1 - j0, sig * sabs);
        tau *= rsig;
        if (tau / sens < best) best = tau / sens;
    }
    (void)i;
    return best;
}

/* QR threshold (docs/qr.md) from the original A, as qr_threshold computes it. */
/* The threshold of checksum block b (columns b*nbc .. , nbc = abft_qr_check_width(n)): every
 * block of columns carries its own checksum pair and threshold (docs/qr.md). */
static double qr_tau(int64_t m, int64_t n, const double *A, int64_t lda, int64_t b)
{
    const int64_t nbc = abft_qr_check_width(n), j0 = b * nbc, j1 = j0 + nbc < n ? j0 + nbc : n;
    double sa = 0.0;
    double *ce = xcalloc((size_t)(m > 0 ? m : 1), sizeof(double));
    for (int64_t j = j0; j < j1; j++) {
        double n1 = 0.0, mx = 0.0;
        for (int64_t i = 0; i < m; i++) {
            double a = fabs(A[i + j * lda]);
            n1 += a;
            if (!(a <= mx)) mx = a;
            ce[i] += A[i + j * lda];
        }
        sa += sqrt(n1) * sqrt(mx);
    }
    double c = abft_nrm2(m, ce);
    free(ce);
    return abft_qr_tau(TOL_ABFT, m, n, abft_qr_bound(sa, c));
}

/* ---- running one call ----------------------------------------------------------------------- */

typedef struct {
    int tile, nb, ve, verbose;
    double gpu_memory; /* policy.gpu_memory (--ooc) */
} cfg_t;

static int make_ctx(ft_context_t **ctx, const cfg_t *c, uint64_t seed)
{
    int st = ft_context_create(ctx, O.device);
    if (st) return st;
    ft_policy_t p;
    st = ft_context_get_policy(*ctx, &p);
    if (st) return st;
    p.protect = O.tmr ? FT_PROTECT_TMR : FT_PROTECT_ABFT;
    p.gpu_memory = c->gpu_memory;
    p.tile = c->tile;
    p.nb = c->nb;
    p.panel = O.panel;
    p.verify_every = c->ve;
    p.crossover = -1;
    p.verbose = c->verbose;
    st = ft_context_set_policy(*ctx, &p);
    if (st) return st;
    return ft_inject_seed(*ctx, seed);
}

static int plan(ft_context_t *ctx, const fault_rec_t *f, int nf, int zero)
{
    for (int i = 0; i < nf; i++) {
        ft_fault_t g = {.region = (ft_region_t)f[i].region,
                        .row = f[i].local ? f[i].prow : f[i].row,
                        .col = f[i].local ? f[i].pcol : f[i].col,
                        .bit = zero ? -1 : (f[i].bc <= BC_MLO ? f[i].bit : -1),
                        .value = zero ? 0.0 : f[i].value,
                        .call = -1,
                        .step = f[i].step};
        int st = ft_inject_add(ctx, &g);
        if (st) return st;
    }
    return 0;
}

/* Fill before/after/applied of the faults from the report's INJECTED events. */
static void match_events(const ft_report_t *rep, fault_rec_t *f, int nf)
{
    int used[FT_REPORT_MAX_EVENTS] = {0};
    for (int i = 0; i < nf; i++) {
        f[i].applied = 0;
        for (int e = 0; e < rep->nevents; e++) {
            const ft_event_t *ev = &rep->events[e];
            const int64_t r = f[i].local ? f[i].prow : f[i].row;
            const int64_t c = f[i].local ? f[i].pcol : f[i].col;
            if (used[e] || ev->kind != FT_EVENT_INJECTED || (int)ev->region != f[i].region ||
                ((r >= 0 || c >= 0) && (ev->row != r || ev->col != c)))
                continue;
            used[e] = 1;
            f[i].applied = 1;
            f[i].before = ev->before;
            f[i].after = ev->after;
            break;
        }
    }
}

static void copy_counters(trial_t *T, const ft_report_t *r)
{
    T->injected = r->injected;
    T->detected = r->detected;
    T->located = r->located;
    T->corrected = r->corrected;
    T->uncorrectable = r->uncorrectable;
    T->checksum_errors = r->checksum_errors;
    T->recomputed = r->recomputed;
    T->unchecked = r->unchecked;
    T->checks = r->checks;
    T->recovered = r->recovered;
    T->recovery = r->recovery;
}

static int any_report(const trial_t *T)
{
    return T->detected || T->located || T->corrected || T->uncorrectable || T->checksum_errors ||
           T->recomputed;
}

/* The classification rules of docs/reliability.md. */
static void classify(trial_t *T)
{
    const int st = T->status;
    T->note = "";
    if (st != 0 && st != FT_ERR_UNCORRECTABLE && st != FT_ERR_NOT_RECOVERED) {
        T->cls = CL_ERROR;
        return;
    }
    int napplied = 0, allbelow = 1, anybelow = 0, ndata = 0;
    for (int i = 0; i < T->nf; i++) {
        napplied += T->f[i].applied;
        /* only faults in the data can leave the result outside the contract: a corrupted
         * checksum changes no result by itself */
        if (!T->f[i].applied || T->f[i].region == FT_REGION_CHECKSUM) continue;
        ndata++;
        if (!T->f[i].below) allbelow = 0;
        else anybelow = 1;
    }
    if (T->nofault || napplied == 0) {
        if (st != 0 || any_report(T)) {
            T->cls = CL_FALSE_ALARM;
            T->note = T->nofault ? "report without a fault" : "report, fault not applied";
        } else if (!T->ok) {
            T->cls = CL_SILENT_ABOVE;
            T->note = "inaccurate without a fault";
        } else {
            T->cls = T->nofault ? CL_CLEAN : CL_NOT_APPLIED;
            /* documented drops: dgemm without a product; a QR panel without vector elements */
            if (!T->nofault)
                T->note = (T->routine == R_DGEMM && (T->alpha == 0.0 || T->k == 0)) ||
                                  (T->routine == R_DGEQRF && T->f[0].region == FT_REGION_Q)
                              ? "documented drop"
                              : "UNEXPECTED drop";
        }
        return;
    }
    int reported = st != 0 || T->uncorrectable > 0 ||
                   (T->located > 0 && T->corrected == 0 && T->checksum_errors == 0);
    if (reported) {
        T->cls = CL_REPORTED;
        return;
    }
    if (T->ok) {
        T->cls = (T->corrected || T->recomputed || T->checksum_errors || T->detected) ? CL_CORRECTED
                                                                                      : CL_MASKED;
        return;
    }
    if ((T->corrected || T->recomputed) && napplied > 1 && anybelow) {
        /* several faults: one below its limit stays in the result beside the corrected ones */
        T->cls = CL_SILENT_BELOW;
        T->note = "below-limit fault left beside corrected ones";
        return;
    }
    if (T->corrected || T->recomputed) {
        T->cls = CL_FALSE_ALARM;
        T->note = "correction left the result outside the contract";
        return;
    }
    T->cls = ndata > 0 && allbelow ? CL_SILENT_BELOW : CL_SILENT_ABOVE;
    if (T->cls == CL_SILENT_BELOW) return;
    if (ndata == 0) T->note = "result changed by a checksum fault";
    else if (T->checksum_errors) T->note = "data error taken for a checksum error";
    else {
        T->note = "nothing detected";
        for (int i = 0; i < T->nf; i++)
            if (T->f[i].applied && !isfinite(T->f[i].limit))
                T->note = "limit not finite (checks off)";
    }
}

static void finish_fault(fault_rec_t *f, double alpha_scale)
{
    if (!f->applied) return;
    double d = f->after - f->before;
    f->effect = isfinite(d) ? fabs(d) * alpha_scale : INFINITY;
    f->below = isfinite(f->limit) && isfinite(f->effect) && f->effect <= f->limit * LIM_ROUND;
}

/* ft_dgeqrf's schedule (src/qr/qr_loop.c): at the start of panel step p it applies the R and Q
 * faults of step p - 1 and the TRAILING and CHECKSUM faults of step p, then checks when
 * verify_every q > 0 and p % q == 0; after the last step (np) it applies the R/Q faults of step
 * np - 1 and checks once more. */
static int64_t qr_first_check(const fault_rec_t *f, int64_t np, int64_t q)
{
    int64_t p = f->region == FT_REGION_R || f->region == FT_REGION_Q ? f->step + 1 : f->step;
    if (q > 0)
        for (; p < np; p++)
            if (p % q == 0) return p;
    return np;
}

/* Is a data fault still confined to its row when its first check sees it? R rows are final; a
 * trailing element is spread over its column by the update of its step, unless the check
 * comes first or no reflector below it is left (a single remaining row). */
static int qr_in_row_at_check(const fault_rec_t *f, int64_t m, int64_t np, int64_t q, int64_t NB)
{
    if (f->region == FT_REGION_R) return 1;
    if (f->region != FT_REGION_TRAILING) return 0;
    return qr_first_check(f, np, q) == f->step || m - f->step * NB <= 1;
}

/*
 * The documented two-error limit of ft_dgeqrf (docs/fault-model.md): two data errors in one row
 * of one checksum block, both first seen by the same check, look to the three checks like the
 * larger one alone plus (w_a - w_b) d and (v_a - v_b) d for the smaller one d; after the larger
 * is corrected, d shows only when those exceed the clean level, and the residual noise itself
 * can reach tau / 2, so d is detectable when |d| > tau / max(|w_a - w_b|, |v_a - v_b|). Below
 * that, the smaller error's limit is this, not tau.
 */
static void qr_pair_limits(trial_t *T, int64_t m, int64_t n, int64_t nbc, int64_t NB)
{
    const int64_t W = abft_wden(nbc < n ? nbc : n), np = (T->k + NB - 1) / NB;
    double tau[MAXF];
    for (int a = 0; a < T->nf; a++) tau[a] = T->f[a].limit;
    for (int a = 0; a < T->nf; a++)
        for (int b = 0; b < T->nf; b++) {
            fault_rec_t *x = &T->f[a], *y = &T->f[b];
            if (a == b || !x->applied || !y->applied || x->row != y->row ||
                x->col / nbc != y->col / nbc || x->col == y->col || !(x->effect <= y->effect))
                continue;
            if (x->effect == y->effect && a > b) continue;
            if (!qr_in_row_at_check(x, m, np, T->ve, NB) ||
                !qr_in_row_at_check(y, m, np, T->ve, NB) ||
                qr_first_check(x, np, T->ve) != qr_first_check(y, np, T->ve))
                continue;
            const int64_t ja = x->col % nbc, jb = y->col % nbc;
            double dw = fabs(abft_weight(ja, W) - abft_weight(jb, W));
            const double dv = fabs(abft_weight_perm(ja, W) - abft_weight_perm(jb, W));
            if (dv > dw) dw = dv;
            const double lim = tau[a] / dw;
            if (isfinite(tau[a]) && lim > x->limit) {
                x->limit = lim;
                x->pair = 1;
                x->below = isfinite(x->effect) && x->effect <= x->limit * LIM_ROUND;
            }
        }
}

/* Draw a corruption kind: 60 % bit flips (bit uniform 0..63), 20 % additive at the element's
 * scale, 20 % additive at the threshold's scale (grey zone). */
static void draw_kind(tu_rng_t *r, fault_rec_t *f)
{
    double u = urand(r);
    if (u < 0.6) {
        f->bit = (int)irand(r, 0, 63);
        f->bc = bit_class(f->bit);
    } else if (u < 0.8) {
        f->bit = -1;
        f->bc = BC_ADDE;
        f->factor = sgn(r) * pow(10.0, -16.0 + 18.0 * urand(r));
    } else {
        f->bit = -1;
        f->bc = BC_ADDT;
        f->factor = sgn(r) * pow(10.0, log10(0.3) + 2.0 * urand(r)); /* 0.3 .. 30 */
    }
}

static int pick_region(tu_rng_t *r, int mask)
{
    int regs[16], n = 0;
    for (int i = 0; i < 16; i++)
        if (mask & (1 << i)) regs[n++] = i;
    return regs[irand(r, 0, n - 1)];
}

/* Shape generator. dims of a T-block problem: returns the shape class. */
static int64_t near(tu_rng_t *r, int64_t T)
{
    int64_t v = T + irand(r, -2, 2);
    return v < 1 ? 1 : v;
}

/* ---- dgemm trial ------------------------------------------------------------------------------ */

static int gemm_trial(int64_t t, trial_t *T, int verbose)
{
    tu_rng_t r;
    tu_seed(&r, trial_hash(O.seed, R_DGEMM, t));
    memset(T, 0, sizeof *T);
    T->routine = R_DGEMM;
    T->t = t;
    static const int tiles[4] = {32, 64, 128, 256};
    T->tile = tiles[irand(&r, 0, 3)];
    const int64_t TT = T->tile;
    T->shape = (int)irand(&r, 0, SH_COUNT - 1);
    int64_t m, n, k;
    switch (T->shape) {
    case SH_SQUARE: m = n = k = irand(&r, 9, 400); break;
    case SH_TALL:
        m = irand(&r, 100, 400);
        n = irand(&r, 1, 64);
        k = irand(&r, 1, 300);
        break;
    case SH_WIDE:
        m = irand(&r, 1, 64);
        n = irand(&r, 100, 400);
        k = irand(&r, 1, 300);
        break;
    case SH_TINY:
        m = irand(&r, 1, 8);
        n = irand(&r, 1, 8);
        k = irand(&r, 1, 8);
        break;
    default: { /* around the tile: T-2..T+2, or 2T-2..2T+2 */
        int64_t mul = TT <= 128 ? irand(&r, 1, 2) : 1;
        m = urand(&r) < 0.7 ? near(&r, mul * TT) : irand(&r, 1, 300);
        n = urand(&r) < 0.8 ? near(&r, mul * TT) : irand(&r, 1, 300);
        k = urand(&r) < 0.5 ? near(&r, TT) : irand(&r, 1, 300);
        break;
    }
    }
    T->m = m, T->n = n, T->k = k;
    static const char tr[3] = {'N', 'T', 'C'};
    T->ta = tr[irand(&r, 0, 2)];
    T->tb = tr[irand(&r, 0, 2)];
    double u = urand(&r);
    T->alpha = u < 0.03 ? 0.0 : u < 0.35 ? 1.0 : u < 0.5 ? -1.0 : sgn(&r) * (0.1 + 3 * urand(&r));
    u = urand(&r);
    T->beta = u < 0.4 ? 0.0 : u < 0.6 ? 1.0 : u < 0.7 ? -1.0 : sgn(&r) * (0.1 + 3 * urand(&r));
    T->mtype = (int)irand(&r, 0, MTY_COUNT - 1);
    for (int i = 0; i < 3; i++) T->e[i] = T->mtype == MT_SC ? (int)irand(&r, -60, 60) : 0;

    /* data: logical op(A) m x k, op(B) k x n, C0 m x n; stored with random padding */
    double *LA = tu_malloc(m * k), *LB = tu_malloc(k * n), *C0 = tu_malloc(m * n);
    gen_matrix(&r, T->mtype == MT_GC ? MT_U : T->mtype, T->e[0], m, k, LA);
    gen_matrix(&r, T->mtype == MT_GR ? MT_U : T->mtype, T->e[1], k, n, LB);
    gen_matrix(&r, T->mtype == MT_GR || T->mtype == MT_GC ? MT_U : T->mtype, T->e[2], m, n, C0);
    if (T->mtype == MT_GR) /* graded rows of C0 too, so beta*C0 does not swamp small rows */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                C0[i + j * m] *= pow(10.0, m > 1 ? -6.0 + 12.0 * (double)i / (m - 1) : 0);
    const int64_t ra = T->ta == 'N' ? m : k, ca = T->ta == 'N' ? k : m;
    const int64_t rb = T->tb == 'N' ? k : n, cb = T->tb == 'N' ? n : k;
    const int64_t lda = ra + irand(&r, 0, 3), ldb = rb + irand(&r, 0, 3), ldc = m + irand(&r, 0, 3);
    double *A = tu_malloc(lda * ca), *B = tu_malloc(ldb * cb), *Cin = tu_malloc(ldc * n);
    double *C = tu_malloc(ldc * n), *Cref = tu_malloc(ldc * n);
    tu_set_all(lda, ca, A, 0.0);
    tu_set_all(ldb, cb, B, 0.0);
    store_op(T->ta == 'N' ? 'N' : 'T', m, k, LA, A, lda);
    store_op(T->tb == 'N' ? 'N' : 'T', k, n, LB, B, ldb);
    tu_set_all(ldc, n, Cin, T->beta == 0.0 ? NAN : 0.0); /* beta = 0: C need not be set */
    if (T->beta != 0.0) tu_copy(m, n, C0, m, Cin, ldc);
    tu_copy(m, n, Cin, ldc, Cref, ldc);
    tu_ref_dgemm(T->ta, T->tb, m, n, k, T->alpha, A, lda, B, ldb, T->beta, Cref, ldc);

    /* out of core: half the work memory the call needs in core, and its plan (when one fits;
     * else the trial runs in core) */
    double ooc_lim = 0.0;
    dgemm_ooc_plan_t opl;
    memset(&opl, 0, sizeof opl);
    if (O.ooc && T->alpha != 0.0 && k > 0) {
        ft_policy_t pp;
        memset(&pp, 0, sizeof pp);
        pp.protect = O.tmr ? FT_PROTECT_TMR : FT_PROTECT_ABFT;
        pp.tile = T->tile;
        const int64_t want = dgemm_stage_elems(T->ta == 'N' ? m : k, T->ta == 'N' ? k : m,
                                               T->tb == 'N' ? k : n, T->tb == 'N' ? n : k, m,
                                               n) +
                             dgemm_sub_work(&pp, m, n, k, T->ta, T->tb);
        if (dgemm_ooc_choose(&pp, O.device, T->ta, T->tb, m, n, k, want / 2, &opl) == 0)
            ooc_lim = 8.0 * (double)(want / 2);
    }
    const int64_t nsub = ooc_lim > 0 ? opl.nbm * opl.nbn * opl.nbk : 0;
    if (nsub > 0) O.ooc_trials++, O.ooc_subs += nsub;

    /* faults */
    const int64_t nbk = (n + TT - 1) / TT;
    T->nofault = O.F == 0 || urand(&r) < 0.1;
    T->nf = T->nofault ? 0 : O.F;
    for (int i = 0; i < T->nf; i++) {
        fault_rec_t *f = &T->f[i];
        f->region = pick_region(&r, O.regmask_gemm);
        f->step = -1;
        f->local = 0;
        if (nsub > 0) { /* out of core: a sub-product, and the element of its block */
            const int64_t t = irand(&r, 0, nsub - 1), b = t / opl.nbk;
            const int64_t i0 = b / opl.nbn * opl.mc, j0 = b % opl.nbn * opl.nc;
            const int64_t mi = m - i0 < opl.mc ? m - i0 : opl.mc;
            const int64_t nj = n - j0 < opl.nc ? n - j0 : opl.nc;
            f->step = t;
            f->local = 1;
            draw_kind(&r, f);
            if (f->region == FT_REGION_C) {
                f->prow = irand(&r, 0, mi - 1), f->pcol = irand(&r, 0, nj - 1);
                f->row = i0 + f->prow, f->col = j0 + f->pcol;
                const int64_t J = f->col / TT;
                f->limit = gemm_tau(m, n, k, TT, T->alpha, T->beta, LA, LB, C0, f->row, J,
                                    gemm_rowabs(m, n, TT, Cref, ldc, f->row, J));
            } else {
                /* operands (the chunk's stored buffers) and the sub-product's checksums: at a
                 * position the library draws; reported or corrected, nothing may stay */
                f->prow = f->pcol = -1;
                f->row = f->col = -1;
                if (f->region == FT_REGION_CHECKSUM && !O.tmr)
                    f->prow = irand(&r, 0, mi - 1), f->pcol = irand(&r, 0, 1);
                f->limit = 0.0;
            }
            continue;
        }
        if (f->region == FT_REGION_A || f->region == FT_REGION_B) {
            /* stored coordinates (what the plan names); the limit on the logical element */
            const int a = f->region == FT_REGION_A;
            f->row = irand(&r, 0, (a ? ra : rb) - 1);
            f->col = irand(&r, 0, (a ? ca : cb) - 1);
            draw_kind(&r, f);
            const int tr = a ? T->ta != 'N' : T->tb != 'N';
            const int64_t p0 = tr ? f->col : f->row, p1 = tr ? f->row : f->col;
            f->limit = gemm_limit_operand(a, m, n, k, TT, T->alpha, T->beta, LA, LB, C0, Cref,
                                          ldc, a ? p0 : -1, a ? p1 : p0, a ? -1 : p1);
            continue;
        }
        f->row = irand(&r, 0, m - 1);
        f->col = f->region == FT_REGION_C || O.tmr ? irand(&r, 0, n - 1)
                                                   : irand(&r, 0, 2 * nbk - 1);
        draw_kind(&r, f);
        if (O.tmr) { /* TMR: a replica (1 or 2) for CHECKSUM; nothing may stay in the result */
            if (f->region == FT_REGION_CHECKSUM) f->step = irand(&r, 1, 2);
            f->limit = 0.0;
            continue;
        }
        int64_t J = f->region == FT_REGION_C ? f->col / TT : f->col / 2;
        f->limit = gemm_tau(m, n, k, TT, T->alpha, T->beta, LA, LB, C0, f->row, J,
                            gemm_rowabs(m, n, TT, Cref, ldc, f->row, J));
    }
    uint64_t iseed = tu_next(&r);
    cfg_t cfg = {.tile = T->tile, .verbose = verbose ? 2 : 0, .gpu_memory = ooc_lim};
    int need_pre = 0;
    for (int i = 0; i < T->nf; i++) need_pre |= T->f[i].bc == BC_ADDE;
    int rc = 0;
    ft_context_t *ctx = NULL;
    ft_report_t rep;
    if (need_pre) { /* pre-pass with additive 0 faults: the elements' values at injection time */
        tu_copy(m, n, Cin, ldc, C, ldc);
        int st = make_ctx(&ctx, &cfg, iseed);
        if (!st) st = plan(ctx, T->f, T->nf, 1);
        if (!st) {
            call_dgemm(ctx, T->ta, T->tb, m, n, k, T->alpha, A, lda, B, ldb, T->beta, C, ldc,
                       &rep);
            match_events(&rep, T->f, T->nf);
        }
        ft_context_destroy(ctx);
        ctx = NULL;
        if (st) {
            printf("%% trial %lld: context/plan failed: %s\n", (long long)t, ft_strerror(st));
            rc = st;
        }
    }
    for (int i = 0; i < T->nf; i++) {
        fault_rec_t *f = &T->f[i];
        double as = f->region == FT_REGION_CHECKSUM ? fabs(T->alpha) : 1.0;
        if (f->bc == BC_ADDE) {
            double x = f->applied ? fabs(f->before) : 0.0;
            if (!(x > 0.0) || !isfinite(x))
                x = isfinite(f->limit) && f->limit > 0 ? 10 * f->limit : 1.0;
            f->value = f->factor * x;
        } else if (f->bc == BC_ADDT) {
            double lim = isfinite(f->limit) && f->limit > 0 ? f->limit : 1.0;
            f->value = f->factor * lim / (as > 0 ? as : 1.0);
        }
    }
    tu_copy(m, n, Cin, ldc, C, ldc);
    int st = rc ? rc : make_ctx(&ctx, &cfg, iseed);
    if (!st) st = plan(ctx, T->f, T->nf, 0);
    if (st) {
        T->status = st;
        memset(&rep, 0, sizeof rep);
    } else {
        T->status = call_dgemm(ctx, T->ta, T->tb, m, n, k, T->alpha, A, lda, B, ldb, T->beta, C,
                               ldc, &rep);
    }
    copy_counters(T, &rep);
    match_events(&rep, T->f, T->nf);
    for (int i = 0; i < T->nf; i++) {
        fault_rec_t *f = &T->f[i];
        if (!f->applied) continue;
        if (f->region == FT_REGION_C && !O.tmr && !f->local) { /* the s seen after the fault */
            int64_t J = f->col / TT;
            double s = gemm_rowabs(m, n, TT, Cref, ldc, f->row, J) -
                       fabs(Cref[f->row + f->col * ldc]) + fabs(f->after);
            f->limit = gemm_tau(m, n, k, TT, T->alpha, T->beta, LA, LB, C0, f->row, J,
                                isfinite(f->after) ? s : -1.0);
        }
        finish_fault(f, f->region == FT_REGION_CHECKSUM ? fabs(T->alpha) : 1.0);
    }
    T->ratio[0] = tu_gemm_ratio(T->ta, T->tb, m, n, k, T->alpha, A, lda, B, ldb, T->beta, Cin, ldc,
                                C, ldc, Cref, ldc);
    T->ratio[1] = 0.0;
    T->ok = T->ratio[0] < TOL_RATIO;
    classify(T);
    if (verbose) {
        char buf[512];
        printf("%% report: %s\n", ft_report_string(&rep, buf, sizeof buf));
        for (int e = 0; e < rep.nevents; e++)
            printf("%%   event kind %d region %s (%lld,%lld) step %lld: %.17g -> %.17g\n",
                   (int)rep.events[e].kind, region_name((int)rep.events[e].region),
                   (long long)rep.events[e].row, (long long)rep.events[e].col,
                   (long long)rep.events[e].step, rep.events[e].before, rep.events[e].after);
    }
    ft_context_destroy(ctx);
    free(LA), free(LB), free(C0), free(A), free(B), free(Cin), free(C), free(Cref);
    return 0;
}

/* ---- dgeqrf trial ----------------------------------------------------------------------------- */

static int qr_trial(int64_t t, trial_t *T, int verbose)
{
    tu_rng_t r;
    tu_seed(&r, trial_hash(O.seed, R_DGEQRF, t));
    memset(T, 0, sizeof *T);
    T->routine = R_DGEQRF;
    T->t = t;
    static const int nbs[4] = {8, 16, 32, 64};
    T->nb = nbs[irand(&r, 0, 3)];
    T->ve = (int)irand(&r, 0, 2);
    const int64_t NB = T->nb;
    T->shape = (int)irand(&r, 0, SH_COUNT - 1);
    int64_t m, n;
    switch (T->shape) {
    case SH_SQUARE: m = n = irand(&r, 9, 300); break;
    case SH_TALL:
        m = irand(&r, 100, 400);
        n = irand(&r, 1, 100);
        break;
    case SH_WIDE:
        m = irand(&r, 1, 100);
        n = irand(&r, 100, 400);
        break;
    case SH_TINY:
        m = irand(&r, 1, 8);
        n = irand(&r, 1, 8);
        break;
    default: {
        int64_t mul = irand(&r, 1, 3);
        m = urand(&r) < 0.7 ? near(&r, mul * NB) : irand(&r, 1, 300);
        n = urand(&r) < 0.8 ? near(&r, mul * NB) : irand(&r, 1, 300);
        break;
    }
    }
    T->m = m, T->n = n, T->k = m < n ? m : n;
    T->mtype = (int)irand(&r, 0, MTY_COUNT - 1);
    T->e[0] = T->mtype == MT_SC ? (int)irand(&r, -60, 60) : 0;
    const int64_t lda = m + irand(&r, 0, 3);
    double *L = tu_malloc(m * n), *A = tu_malloc(lda * n), *AF = tu_malloc(lda * n);
    double *tau = tu_malloc(T->k), *work = tu_malloc(n * 64 + 1);
    gen_matrix(&r, T->mtype, T->e[0], m, n, L);
    tu_set_all(lda, n, A, 0.0);
    tu_copy(m, n, L, m, A, lda);
    const int64_t np = (T->k + NB - 1) / NB, nbc = abft_qr_check_width(n);
    const int64_t ncb = (n + nbc - 1) / nbc;

    T->nofault = O.F == 0 || urand(&r) < 0.1;
    T->nf = T->nofault ? 0 : O.F;
    for (int i = 0; i < T->nf; i++) {
        fault_rec_t *f = &T->f[i];
        f->region = pick_region(&r, O.regmask_qr);
        int64_t p = irand(&r, 0, np - 1), i0 = p * NB, ib = NB < T->k - i0 ? NB : T->k - i0;
        f->step = p;
        switch (f->region) {
        case FT_REGION_R:
            f->row = irand(&r, 0, i0 + ib - 1);
            f->col = irand(&r, f->row > i0 ? f->row : i0, n - 1);
            break;
        case FT_REGION_TRAILING:
            f->row = irand(&r, i0, m - 1);
            f->col = irand(&r, i0, n - 1);
            break;
        case FT_REGION_Q: {
            int64_t cmax = i0 + ib < m - 1 ? i0 + ib : m - 1;
            if (cmax <= i0) { /* no vector elements below the diagonal: the library drops it */
                f->col = i0;
                f->row = i0 + 1;
            } else {
                f->col = irand(&r, i0, cmax - 1);
                f->row = irand(&r, f->col + 1, m - 1);
            }
            break;
        }
        case FT_REGION_TAU:
            f->row = -1;
            f->col = irand(&r, i0, i0 + ib - 1);
            break;
        case FT_REGION_REFLECTORS: /* V (m - i0 rows, ib columns) or T (columns ib .. 2 ib) */
            f->col = irand(&r, 0, 2 * ib - 1);
            f->row = f->col < ib ? irand(&r, 0, m - i0 - 1) : irand(&r, 0, f->col - ib);
            break;
        case FT_REGION_PANEL:
            f->row = irand(&r, i0, m - 1);
            f->col = irand(&r, i0, i0 + ib - 1);
            break;
        default: /* a checksum column: QR_NCS = 3 per block of columns (src/qr/qr_internal.h) */
            f->row = irand(&r, 0, m - 1);
            f->col = irand(&r, 0, 3 * ncb - 1);
            break;
        }
        draw_kind(&r, f);
        /* the limit of the block that sees the fault: its column's block (a checksum column:
         * the block it belongs to) */
        const int64_t blk = f->region == FT_REGION_CHECKSUM ? f->col / 3
                            : f->region == FT_REGION_REFLECTORS ? i0 / nbc
                                                                 : f->col / nbc;
        f->limit = qr_tau(m, n, A, lda, blk);
        /* the Householder vectors, tau and the reflectors in use are checked exactly (against
         * their checkpoint, their copies, their digests; issue 9): every change is above the
         * limit. A change inside the panel: the panel's check has the threshold of the
         * trailing checks (the block's tau, as above). */
        if (f->region == FT_REGION_Q || f->region == FT_REGION_TAU ||
            f->region == FT_REGION_REFLECTORS)
            f->limit = 0.0;
    }
    uint64_t iseed = tu_next(&r);
    cfg_t cfg = {.nb = T->nb, .ve = T->ve, .verbose = verbose ? 2 : 0};
    int need_pre = 0;
    for (int i = 0; i < T->nf; i++) need_pre |= T->f[i].bc == BC_ADDE;
    ft_context_t *ctx = NULL;
    ft_qrf_t *qrf = NULL;
    ft_report_t rep;
    ft_int info = 0;
    int st = 0;
    if (need_pre) {
        tu_copy(m, n, A, lda, AF, lda);
        st = make_ctx(&ctx, &cfg, iseed);
        if (!st) st = plan(ctx, T->f, T->nf, 1);
        if (!st) {
            call_dgeqrf(ctx, m, n, AF, lda, tau, work, n * 64 + 1, &info, &rep);
            match_events(&rep, T->f, T->nf);
        }
        ft_context_destroy(ctx);
        ctx = NULL;
    }
    for (int i = 0; i < T->nf; i++) {
        fault_rec_t *f = &T->f[i];
        const double thr = f->limit;
        if (f->bc == BC_ADDE) {
            double x = f->applied ? fabs(f->before) : 0.0;
            if (!(x > 0.0) || !isfinite(x)) x = isfinite(thr) && thr > 0 ? 10 * thr : 1.0;
            f->value = f->factor * x;
        } else if (f->bc == BC_ADDT) {
            f->value = f->factor * (isfinite(thr) && thr > 0 ? thr : 1.0);
        }
    }
    tu_copy(m, n, A, lda, AF, lda);
    if (!st) st = make_ctx(&ctx, &cfg, iseed);
    if (!st) st = plan(ctx, T->f, T->nf, 0);
    if (st) {
        T->status = st;
        memset(&rep, 0, sizeof rep);
    } else {
        if (O.qrupd && ft_qrf_create(&qrf) == 0) ft_context_set_qrf(ctx, qrf);
        T->status = call_dgeqrf(ctx, m, n, AF, lda, tau, work, n * 64 + 1, &info, &rep);
    }
    copy_counters(T, &rep);
    match_events(&rep, T->f, T->nf);
    for (int i = 0; i < T->nf; i++) finish_fault(&T->f[i], 1.0);
    qr_pair_limits(T, m, n, nbc, NB);
    if (qrf) qr_ratios_ft(m, n, A, lda, AF, lda, tau, qrf, T->ratio);
    else qr_ratios(m, n, A, lda, AF, lda, tau, T->ratio);
    if (qrf) {
        ft_context_set_qrf(ctx, NULL);
        ft_qrf_destroy(qrf);
    }
    T->ok = T->ratio[0] < TOL_RATIO && T->ratio[1] < TOL_RATIO;
    classify(T);
    if (verbose) {
        char buf[512];
        for (int i = 0; i < T->nf; i++)
            printf("%% fault %d: documented limit (tau of its checksum block%s) = %.6g\n", i,
                   T->f[i].pair ? ", two-error limit" : "", T->f[i].limit);
        printf("%% report: %s\n", ft_report_string(&rep, buf, sizeof buf));
        for (int e = 0; e < rep.nevents; e++)
            printf("%%   event kind %d region %s (%lld,%lld) step %lld: %.17g -> %.17g\n",
                   (int)rep.events[e].kind, region_name((int)rep.events[e].region),
                   (long long)rep.events[e].row, (long long)rep.events[e].col,
                   (long long)rep.events[e].step, rep.events[e].before, rep.events[e].after);
    }
    ft_context_destroy(ctx);
    free(L), free(A), free(AF), free(tau), free(work);
    return 0;
}

/* ---- output ----------------------------------------------------------------------------------- */

static int size_class(const trial_t *T)
{
    int64_t d = T->m > T->n ? T->m : T->n;
    if (T->routine == R_DGEMM && T->k > d) d = T->k;
    return d <= 8 ? SZ_TINY : d <= 64 ? SZ_SMALL : d <= 192 ? SZ_MED : SZ_LARGE;
}
static int trial_bc(const trial_t *T) { return T->nf ? T->f[0].bc : BC_NONE; }

static void replay_cmd(const trial_t *T, char *buf, size_t len)
{
    int w = snprintf(buf, len, "ft_campaign --seed %llu --routine %s --trial %lld",
                     (unsigned long long)O.seed, routine_name[T->routine], (long long)T->t);
    if (O.F != 1) w += snprintf(buf + w, len - (size_t)w, " --faults-per-trial %d", O.F);
    if (O.regions_given) w += snprintf(buf + w, len - (size_t)w, " --regions %s", O.regions_arg);
    if (O.device == FT_DEVICE_CUDA)
        w += snprintf(buf + w, len - (size_t)w, " --device cuda");
    if (O.devptr) w += snprintf(buf + w, len - (size_t)w, " --pointers device");
    if (O.tmr) w += snprintf(buf + w, len - (size_t)w, " --protect tmr");
    if (O.ooc) w += snprintf(buf + w, len - (size_t)w, " --ooc");
    if (O.qrupd) snprintf(buf + w, len - (size_t)w, " --qr-update");
}

static void print_trial(const trial_t *T)
{
    if (T->routine == R_DGEMM)
        printf("dgemm  t=%-5lld %4lldx%-4lldx%-4lld %c%c a=%-8.3g b=%-8.3g tile%-3d %-11s",
               (long long)T->t, (long long)T->m, (long long)T->n, (long long)T->k, T->ta, T->tb,
               T->alpha, T->beta, T->tile, mty_name[T->mtype]);
    else
        printf("dgeqrf t=%-5lld %4lldx%-4lld nb%-2d verify_every %d %-11s", (long long)T->t,
               (long long)T->m, (long long)T->n, T->nb, T->ve, mty_name[T->mtype]);
    printf(" st %d inj %lld det %lld loc %lld cor %lld unc %lld cks %lld rec %lld unchk %lld"
           " ratio %.3g %.3g -> %s%s%s\n",
           T->status, (long long)T->injected, (long long)T->detected, (long long)T->located,
           (long long)T->corrected, (long long)T->uncorrectable, (long long)T->checksum_errors,
           (long long)T->recomputed, (long long)T->unchecked, T->ratio[0], T->ratio[1],
           cl_name[T->cls], *T->note ? ": " : "", T->note);
    for (int i = 0; i < T->nf; i++) {
        const fault_rec_t *f = &T->f[i];
        printf("%%     fault %d: %s (%lld,%lld) step %lld %s", i, region_name(f->region),
               (long long)f->row, (long long)f->col, (long long)f->step, bc_name[f->bc]);
        if (f->bc <= BC_MLO) printf(" bit %d", f->bit);
        else printf(" value %.6g (factor %.3g)", f->value, f->factor);
        if (f->applied)
            printf(": %.17g -> %.17g, |change| %.3g, limit %.3g%s (%s)\n", f->before, f->after,
                   f->effect, f->limit * LIM_ROUND, f->pair ? " (two-error limit)" : "",
                   f->below ? "below" : "above");
        else printf(": not applied\n");
    }
}

static void jnum(FILE *fp, double x)
{
    if (isfinite(x)) fprintf(fp, "%.17g", x);
    else fprintf(fp, "\"%s\"", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
}

static void json_trial(FILE *fp, const trial_t *T, int first)
{
    fprintf(fp, "%s\n{\"routine\":\"%s\",\"trial\":%lld,\"m\":%lld,\"n\":%lld,\"k\":%lld,",
            first ? "" : ",", routine_name[T->routine], (long long)T->t, (long long)T->m,
            (long long)T->n, (long long)T->k);
    fprintf(fp, "\"shape\":\"%s\",\"size_class\":\"%s\",\"mtype\":\"%s\",\"exp\":[%d,%d,%d],",
            sh_name[T->shape], sz_name[size_class(T)], mty_name[T->mtype], T->e[0], T->e[1],
            T->e[2]);
    if (T->routine == R_DGEMM)
        fprintf(fp, "\"transa\":\"%c\",\"transb\":\"%c\",\"tile\":%d,", T->ta, T->tb, T->tile);
    else fprintf(fp, "\"nb\":%d,\"verify_every\":%d,", T->nb, T->ve);
    fprintf(fp, "\"alpha\":");
    jnum(fp, T->alpha);
    fprintf(fp, ",\"beta\":");
    jnum(fp, T->beta);
    fprintf(fp, ",\"nofault\":%s,\"faults\":[", T->nofault ? "true" : "false");
    for (int i = 0; i < T->nf; i++) {
        const fault_rec_t *f = &T->f[i];
        fprintf(fp,
                "%s{\"region\":\"%s\",\"row\":%lld,\"col\":%lld,\"step\":%lld,"
                "\"class\":\"%s\",\"bit\":%d,\"value\":",
                i ? "," : "", region_name(f->region), (long long)f->row, (long long)f->col,
                (long long)f->step, bc_name[f->bc], f->bit);
        jnum(fp, f->value);
        fprintf(fp, ",\"applied\":%s,\"before\":", f->applied ? "true" : "false");
        jnum(fp, f->before);
        fprintf(fp, ",\"after\":");
        jnum(fp, f->after);
        fprintf(fp, ",\"change\":");
        jnum(fp, f->effect);
        fprintf(fp, ",\"limit\":");
        jnum(fp, f->limit * LIM_ROUND);
        fprintf(fp, ",\"below_limit\":%s,\"two_error_limit\":%s}", f->below ? "true" : "false",
                f->pair ? "true" : "false");
    }
    fprintf(fp,
            "],\"status\":%d,\"injected\":%lld,\"detected\":%lld,\"located\":%lld,"
            "\"corrected\":%lld,\"uncorrectable\":%lld,\"checksum_errors\":%lld,"
            "\"recomputed\":%lld,\"unchecked\":%lld,\"checks\":%lld,\"ratios\":[",
            T->status, (long long)T->injected, (long long)T->detected, (long long)T->located,
            (long long)T->corrected, (long long)T->uncorrectable, (long long)T->checksum_errors,
            (long long)T->recomputed, (long long)T->unchecked, (long long)T->checks);
    jnum(fp, T->ratio[0]);
    fprintf(fp, ",");
    jnum(fp, T->ratio[1]);
    fprintf(fp, "],\"ok\":%s,\"class\":\"%s\",\"note\":\"%s\"}", T->ok ? "true" : "false",
            cl_name[T->cls], T->note);
}

static void table_header(const char *first, int w)
{
    printf("%% %-*s", w, first);
    for (int c = 0; c < CL_COUNT; c++) printf(" %10s", cl_name[c]);
    printf(" %7s\n", "total");
}
static void table_row(const char *label, int w, const long *cnt)
{
    long tot = 0;
    for (int c = 0; c < CL_COUNT; c++) tot += cnt[c];
    if (!tot) return;
    printf("%% %-*s", w, label);
    for (int c = 0; c < CL_COUNT; c++) printf(" %10ld", cnt[c]);
    printf(" %7ld\n", tot);
}

static void print_tables(const trial_t *tr, int64_t nt)
{
    char lab[96];
    printf("%%\n%% classes by routine x region x corruption class (region of the first fault)\n");
    table_header("routine  region    corruption", 32);
    for (int ro = 0; ro < 2; ro++)
        for (int rg = -1; rg <= 9; rg++)
            for (int bc = 0; bc < BC_COUNT; bc++) {
                long cnt[CL_COUNT] = {0};
                for (int64_t i = 0; i < nt; i++) {
                    const trial_t *T = &tr[i];
                    int reg = T->nf ? T->f[0].region : -1;
                    if (T->routine == ro && reg == rg && trial_bc(T) == bc) cnt[T->cls]++;
                }
                snprintf(lab, sizeof lab, "%-8s %-9s %s", routine_name[ro],
                         rg < 0 ? "-" : region_name(rg), bc_name[bc]);
                table_row(lab, 32, cnt);
            }
    printf("%%\n%% classes by routine x size class (largest dimension)\n");
    table_header("routine  size", 32);
    for (int ro = 0; ro < 2; ro++)
        for (int sz = 0; sz < SZ_COUNT; sz++) {
            long cnt[CL_COUNT] = {0};
            for (int64_t i = 0; i < nt; i++)
                if (tr[i].routine == ro && size_class(&tr[i]) == sz) cnt[tr[i].cls]++;
            snprintf(lab, sizeof lab, "%-8s %s", routine_name[ro], sz_name[sz]);
            table_row(lab, 32, cnt);
        }
    printf("%%\n%% classes by routine x shape class\n");
    table_header("routine  shape", 32);
    for (int ro = 0; ro < 2; ro++)
        for (int sh = 0; sh < SH_COUNT; sh++) {
            long cnt[CL_COUNT] = {0};
            for (int64_t i = 0; i < nt; i++)
                if (tr[i].routine == ro && tr[i].shape == sh) cnt[tr[i].cls]++;
            snprintf(lab, sizeof lab, "%-8s %s", routine_name[ro], sh_name[sh]);
            table_row(lab, 32, cnt);
        }
    printf("%%\n%% totals\n");
    table_header("routine", 32);
    for (int ro = 0; ro < 2; ro++) {
        long cnt[CL_COUNT] = {0};
        for (int64_t i = 0; i < nt; i++)
            if (tr[i].routine == ro) cnt[tr[i].cls]++;
        table_row(routine_name[ro], 32, cnt);
    }
}

/* ---- the stress set --------------------------------------------------------------------------- */

enum {
    K_UNIF = 0,
    K_SCALE,
    K_GROWS,
    K_GCOLS,
    K_SUBN,
    K_KAHAN,
    K_HILB,
    K_VAND,
    K_ZROWS,
    K_ZCOLS,
    K_RANK1,
    K_RANKH,
    K_INT,
    K_HUGETINY,
    K_NAN,
    K_INF,
    K_ZERO,
    K_CANCEL
};

/* Fill rows x cols X (ld rows) with kind; p = a parameter (scale, grading range exponent). */
static void fill_kind(tu_rng_t *r, int kind, double p, int64_t rows, int64_t cols, double *X)
{
    tu_fill(r, rows, cols, X, rows);
    switch (kind) {
    case K_SCALE:
        for (int64_t i = 0; i < rows * cols; i++) X[i] *= p;
        break;
    case K_GROWS:
    case K_GCOLS:
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) {
                int64_t q = kind == K_GROWS ? i : j, nq = kind == K_GROWS ? rows : cols;
                X[i + j * rows] *= pow(10.0, nq > 1 ? -p + 2 * p * (double)q / (nq - 1) : 0.0);
            }
        break;
    case K_SUBN: /* every other entry subnormal, the rest O(p) */
        for (int64_t i = 0; i < rows * cols; i++) X[i] *= (i % 2) ? 1e-310 : p;
        break;
    case K_KAHAN: { /* LAPACK's Kahan matrix: diag s^i, above -c s^i; theta = 1.2 */
        double s = sin(1.2), c = cos(1.2);
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) {
                double si = pow(s, (double)i);
                X[i + j * rows] = i == j ? si : i < j ? -c * si : 0.0;
            }
        break;
    }
    case K_HILB:
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) X[i + j * rows] = 1.0 / (double)(i + j + 1);
        break;
    case K_VAND: /* x_i in [-1, 1] (rows), powers 0..cols-1 */
        for (int64_t i = 0; i < rows; i++) {
            double x = rows > 1 ? -1.0 + 2.0 * (double)i / (rows - 1) : 0.5, v = 1.0;
            for (int64_t j = 0; j < cols; j++, v *= x) X[i + j * rows] = v;
        }
        break;
    case K_ZROWS:
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i += 3) X[i + j * rows] = 0.0;
        break;
    case K_ZCOLS:
        for (int64_t j = 0; j < cols; j += 3)
            for (int64_t i = 0; i < rows; i++) X[i + j * rows] = 0.0;
        break;
    case K_RANK1:
    case K_RANKH: {
        int64_t rk = kind == K_RANK1 ? 1 : (cols / 2 > 0 ? cols / 2 : 1);
        double *U = tu_malloc(rows * rk), *V = tu_malloc(cols * rk);
        tu_fill(r, rows, rk, U, rows);
        tu_fill(r, cols, rk, V, cols);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, (int)rk, 1.0, U,
                    (int)rows, V, (int)cols, 0.0, X, (int)rows);
        free(U);
        free(V);
        break;
    }
    case K_INT:
        for (int64_t i = 0; i < rows * cols; i++) X[i] = (double)tu_int(r, -(1 << 20), 1 << 20);
        break;
    case K_HUGETINY: /* column 0 alternates 1e+200 and 1e-200 */
        for (int64_t i = 0; i < rows; i++) X[i] = (i % 2) ? 1e-200 : 1e+200;
        break;
    case K_NAN: X[(rows / 2) + (cols / 2) * rows] = NAN; break;
    case K_INF: X[(rows / 3) + (cols / 3) * rows] = -INFINITY; break;
    case K_ZERO:
        for (int64_t i = 0; i < rows * cols; i++) X[i] = 0.0;
        break;
    case K_CANCEL: /* columns in pairs x, -x */
        for (int64_t j = 1; j < cols; j += 2)
            for (int64_t i = 0; i < rows; i++) X[i + j * rows] = -X[i + (j - 1) * rows];
        break;
    default: break;
    }
}

typedef struct {
    const char *name;
    int64_t m, n, k;
    char ta, tb;
    double alpha, beta;
    int ka;
    double pa; /* op(A) kind */
    int kb;
    double pb; /* op(B) kind */
    int kc;
    double pc;   /* C0 kind */
    int special; /* 1: A = [X X], B = [Y; -Y]; 2: C0 = A B, beta = -1 */
    int tile;
} gemm_case_t;

static long st_pass, st_fail;

typedef struct {
    const char *routine, *name;
    int status;
    int64_t det, cor, unc, cks, rec, loc, unchecked;
    double ratio, peer;
    const char *outcome;
    int fail;
} stress_rec_t;

static void stress_print(const stress_rec_t *s)
{
    printf("%-6s %-38s st %-5d det %lld loc %lld cor %lld unc %lld cks %lld rec %lld unchk %-4lld"
           " ratio %-9.3g peer %-9.3g %s\n",
           s->routine, s->name, s->status, (long long)s->det, (long long)s->loc, (long long)s->cor,
           (long long)s->unc, (long long)s->cks, (long long)s->rec, (long long)s->unchecked,
           s->ratio, s->peer, s->outcome);
}

/* Elementwise IEEE agreement: NaN where the peer has NaN, the same Inf, finite entries close. */
static int ieee_same(int64_t m, int64_t n, const double *X, int64_t ldx, const double *Y,
                     int64_t ldy, double reltol)
{
    double mx = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double y = Y[i + j * ldy];
            if (isfinite(y) && fabs(y) > mx) mx = fabs(y);
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double x = X[i + j * ldx], y = Y[i + j * ldy];
            if (isnan(x) != isnan(y)) return 0;
            if (isinf(y) || isinf(x)) {
                if (x != y) return 0;
            } else if (!isnan(y) && fabs(x - y) > reltol * (fabs(y) + mx)) {
                return 0;
            }
        }
    return 1;
}

static int has_nonfinite(int64_t n, const double *x)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 1;
    return 0;
}

static void stress_report(stress_rec_t *s, const ft_report_t *rep, int st)
{
    s->status = st;
    s->det = rep->detected, s->cor = rep->corrected, s->unc = rep->uncorrectable;
    s->cks = rep->checksum_errors, s->rec = rep->recomputed, s->loc = rep->located;
    s->unchecked = rep->unchecked;
}
static int stress_any(const stress_rec_t *s)
{
    return s->status != 0 || s->det || s->cor || s->unc || s->cks || s->rec || s->loc;
}

static void stress_gemm(const gemm_case_t *c, stress_rec_t *s)
{
    tu_rng_t r;
    tu_seed(&r, mix(O.seed ^ 0x5157));
    const int64_t m = c->m, n = c->n, k = c->k;
    double *LA = tu_malloc(m * k), *LB = tu_malloc(k * n), *C0 = tu_malloc(m * n);
    fill_kind(&r, c->ka, c->pa, m, k, LA);
    fill_kind(&r, c->kb, c->pb, k, n, LB);
    fill_kind(&r, c->kc, c->pc, m, n, C0);
    if (c->special == 1) { /* A = [X X], B = [Y; -Y]: C = XY - XY ~ 0 */
        for (int64_t l = k / 2; l < 2 * (k / 2); l++) {
            for (int64_t i = 0; i < m; i++) LA[i + l * m] = LA[i + (l - k / 2) * m];
            for (int64_t j = 0; j < n; j++) LB[l + j * k] = -LB[(l - k / 2) + j * k];
        }
    }
    const int64_t ra = c->ta == 'N' ? m : k, ca = c->ta == 'N' ? k : m;
    const int64_t rb = c->tb == 'N' ? k : n, cb = c->tb == 'N' ? n : k;
    double *A = tu_malloc(ra * ca), *B = tu_malloc(rb * cb), *Cin = tu_malloc(m * n);
    double *C = tu_malloc(m * n), *Cref = tu_malloc(m * n);
    store_op(c->ta, m, k, LA, A, ra);
    store_op(c->tb, k, n, LB, B, rb);
    double beta = c->beta;
    if (c->special == 2) { /* C0 = A B exactly as the peer computes it, beta = -1 */
        tu_ref_dgemm(c->ta, c->tb, m, n, k, 1.0, A, ra, B, rb, 0.0, C0, m);
        beta = -1.0;
    }
    tu_copy(m, n, C0, m, Cin, m);
    tu_copy(m, n, Cin, m, Cref, m);
    tu_ref_dgemm(c->ta, c->tb, m, n, k, c->alpha, A, ra, B, rb, beta, Cref, m);
    tu_copy(m, n, Cin, m, C, m);
    ft_context_t *ctx = NULL;
    cfg_t cfg = {.tile = c->tile};
    ft_report_t rep;
    memset(&rep, 0, sizeof rep);
    int st = make_ctx(&ctx, &cfg, 1);
    if (!st)
        st = call_dgemm(ctx, c->ta, c->tb, m, n, k, c->alpha, A, ra, B, rb, beta, C, m, &rep);
    ft_context_destroy(ctx);
    s->routine = "dgemm";
    s->name = c->name;
    stress_report(s, &rep, st);
    const int naninf = has_nonfinite(m * k, LA) || has_nonfinite(k * n, LB) ||
                       (beta != 0.0 && has_nonfinite(m * n, C0));
    s->peer = 0.0;
    s->ratio = naninf ? NAN
                      : tu_gemm_ratio(c->ta, c->tb, m, n, k, c->alpha, A, ra, B, rb, beta, Cin, m,
                                      C, m, Cref, m);
    if (stress_any(s)) {
        s->outcome = "FALSE ALARM", s->fail = 1;
    } else if (naninf || has_nonfinite(m * n, Cref)) {
        int same = ieee_same(m, n, C, m, Cref, m, 1e-10);
        s->outcome = same ? "ok (IEEE result of the peer)" : "IEEE MISMATCH", s->fail = !same;
    } else if (!(s->ratio < TOL_RATIO)) {
        int absurd = !(s->ratio < 1e6);
        s->outcome = absurd ? "ABSURD (inaccurate on valid data)" : "inaccurate on valid data";
        s->fail = absurd;
    } else {
        s->outcome = s->unchecked ? "CHECKS OFF on finite data (unchecked > 0)" : "ok";
        s->fail = s->unchecked > 0;
    }
    free(LA), free(LB), free(C0), free(A), free(B), free(Cin), free(C), free(Cref);
}

typedef struct {
    const char *name;
    int64_t m, n;
    int kind;
    double p;
    int nb, ve;
} qr_case_t;

static void stress_qr(const qr_case_t *c, stress_rec_t *s)
{
    tu_rng_t r;
    tu_seed(&r, mix(O.seed ^ 0x9e77));
    const int64_t m = c->m, n = c->n, k = m < n ? m : n;
    double *A = tu_malloc(m * n), *AF = tu_malloc(m * n), *AP = tu_malloc(m * n);
    double *tau = tu_malloc(k), *taup = tu_malloc(k), *work = tu_malloc(64 * n + 1);
    fill_kind(&r, c->kind, c->p, m, n, A);
    tu_copy(m, n, A, m, AF, m);
    tu_copy(m, n, A, m, AP, m);
    ft_context_t *ctx = NULL;
    cfg_t cfg = {.nb = c->nb, .ve = c->ve};
    ft_report_t rep;
    memset(&rep, 0, sizeof rep);
    ft_int info = 0;
    int st = make_ctx(&ctx, &cfg, 1);
    if (!st)
        st = call_dgeqrf(ctx, m, n, AF, m, tau, work, 64 * n + 1, &info, &rep);
    ft_context_destroy(ctx);
    int pst = (int)LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, (int)n, AP, (int)m, taup);
    s->routine = "dgeqrf";
    s->name = c->name;
    stress_report(s, &rep, st);
    const int naninf = has_nonfinite(m * n, A);
    double res[2] = {NAN, NAN}, resp[2] = {NAN, NAN};
    if (!naninf) {
        qr_ratios(m, n, A, m, AF, m, tau, res);
        if (pst == 0) qr_ratios(m, n, A, m, AP, m, taup, resp);
    }
    s->ratio = res[0] > res[1] ? res[0] : res[1];
    s->peer = resp[0] > resp[1] ? resp[0] : resp[1];
    if (isnan(res[0]) || isnan(res[1])) s->ratio = NAN;
    if (stress_any(s)) {
        s->outcome = "FALSE ALARM", s->fail = 1;
    } else if (naninf) {
        /* NaN/Inf inputs: the factorization must be non-finite wherever the peer's is */
        int same = 1;
        for (int64_t i = 0; i < m * n; i++)
            if (!isfinite(AP[i]) && isfinite(AF[i])) same = 0;
        for (int64_t i = 0; i < k; i++)
            if (!isfinite(taup[i]) && isfinite(tau[i])) same = 0;
        s->outcome = same ? "ok (non-finite where the peer is)" : "IEEE MISMATCH";
        s->fail = !same;
    } else if (!(s->ratio < TOL_RATIO)) {
        double ref = s->peer > TOL_RATIO ? s->peer : TOL_RATIO;
        int absurd = !(s->ratio < 1e3 * ref);
        s->outcome = absurd ? "ABSURD (inaccurate on valid data)" : "inaccurate on valid data";
        s->fail = absurd;
    } else {
        s->outcome = s->unchecked ? "CHECKS OFF on finite data (unchecked > 0)" : "ok";
        s->fail = s->unchecked > 0;
    }
    free(A), free(AF), free(AP), free(tau), free(taup), free(work);
}

static int skipped(const char *routine, const char *name)
{
    for (int i = 0; i < O.nskip; i++)
        if (strstr(name, O.skip[i])) {
            printf("%-6s %-38s skipped (--skip \"%s\")\n", routine, name, O.skip[i]);
            return 1;
        }
    return 0;
}

static int run_stress(void)
{
    static const gemm_case_t gc[] = {
        {"scaled A 1e-300", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e-300, K_UNIF, 0, K_UNIF, 0, 0,
         64},
        {"scaled A 1e+300", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e+300, K_UNIF, 0, K_UNIF, 0, 0,
         64},
        {"scaled A 1e+300 B 1e-300", 200, 200, 200, 'T', 'N', 1, 0, K_SCALE, 1e+300, K_SCALE,
         1e-300, K_UNIF, 0, 0, 64},
        {"scaled A,B 1e-150 (C ~ 1e-300)", 200, 200, 200, 'N', 'T', 1, 0, K_SCALE, 1e-150, K_SCALE,
         1e-150, K_UNIF, 0, 0, 64},
        {"scaled A,B 1e+150 (C ~ 1e+300)", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e+150, K_SCALE,
         1e+150, K_UNIF, 0, 0, 64},
        {"scaled A,B 1e+152", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e+152, K_SCALE, 1e+152,
         K_UNIF, 0, 0, 64},
        {"scaled A 1e+300, beta 1, C0 1e+300", 200, 200, 200, 'N', 'N', 1, 1, K_SCALE, 1e+300,
         K_UNIF, 0, K_SCALE, 1e+300, 0, 64},
        /* every element finite, but the sums of |C| over a check (or op(A)'s row norms) beyond
         * the range: the checksums are formed from scaled elements (issue 7, hole 1) */
        {"scaled A,B 3e+153, k 4 (C ~ 1e+307)", 200, 200, 4, 'N', 'N', 1, 0, K_SCALE, 3e+153,
         K_SCALE, 3e+153, K_UNIF, 0, 0, 64},
        {"beta 1, C0 3e+307 (sums of C0 beyond range)", 200, 200, 50, 'N', 'T', 1, 1, K_UNIF, 0,
         K_UNIF, 0, K_SCALE, 3e+307, 0, 64},
        {"A 1e+306, B 1e-299, k 500 (row norms of A beyond range)", 100, 80, 500, 'N', 'N', 1, 0,
         K_SCALE, 1e+306, K_SCALE, 1e-299, K_UNIF, 0, 0, 64},
        {"scaled A 1e-300, beta -1, C0 1e-300", 200, 200, 200, 'N', 'N', 1, -1, K_SCALE, 1e-300,
         K_UNIF, 0, K_SCALE, 1e-300, 0, 64},
        {"graded rows A 1e-15..1e15", 256, 256, 256, 'N', 'N', 1, 0, K_GROWS, 15, K_UNIF, 0, K_UNIF,
         0, 0, 64},
        {"graded cols B 1e-15..1e15", 256, 256, 256, 'N', 'N', 1, 0, K_UNIF, 0, K_GCOLS, 15, K_UNIF,
         0, 0, 64},
        {"graded rows A, cols B 1e-15..1e15", 256, 256, 256, 'T', 'T', 1, 0, K_GROWS, 15, K_GCOLS,
         15, K_UNIF, 0, 0, 64},
        {"graded along k: cols A, rows B", 256, 256, 256, 'N', 'N', 1, 0, K_GCOLS, 15, K_GROWS, 15,
         K_UNIF, 0, 0, 64},
        {"subnormal entries in A", 200, 200, 200, 'N', 'N', 1, 0, K_SUBN, 1.0, K_UNIF, 0, K_UNIF, 0,
         0, 64},
        {"subnormal entries in A, B", 200, 200, 200, 'N', 'N', 1, 0, K_SUBN, 1e-300, K_SUBN, 1e-10,
         K_UNIF, 0, 0, 64},
        {"A 1e+300, B subnormal 1e-310", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e+300, K_SCALE,
         1e-310, K_UNIF, 0, 0, 64},
        {"A 1e+300, B subnormal entries", 200, 200, 200, 'N', 'T', 1, 0, K_SCALE, 1e+300, K_SUBN,
         1e-300, K_UNIF, 0, 0, 64},
        {"alpha 1e+300, A 1, B subnormal 1e-310", 200, 200, 200, 'N', 'N', 1e300, 0, K_UNIF, 0,
         K_SCALE, 1e-310, K_UNIF, 0, 0, 64},
        {"A subnormal 1e-310, B 1e+300", 200, 200, 200, 'T', 'N', 1, 0, K_SCALE, 1e-310, K_SCALE,
         1e+300, K_UNIF, 0, 0, 64},
        {"A 1e+300, B 1e-320 (deep subnormal)", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e+300,
         K_SCALE, 1e-320, K_UNIF, 0, 0, 64},
        {"alpha 1e+300, B 1e-320 (deep subnormal)", 200, 200, 200, 'N', 'T', 1e300, 0, K_UNIF, 0,
         K_SCALE, 1e-320, K_UNIF, 0, 0, 64},
        {"A 1e-320 (deep subnormal), B 1e+300", 200, 200, 200, 'T', 'N', 1, 0, K_SCALE, 1e-320,
         K_SCALE, 1e+300, K_UNIF, 0, 0, 64},
        {"A,B 1e-160 (products subnormal)", 200, 200, 200, 'N', 'N', 1, 0, K_SCALE, 1e-160, K_SCALE,
         1e-160, K_UNIF, 0, 0, 64},
        {"Kahan A", 256, 256, 256, 'N', 'N', 1, 0, K_KAHAN, 0, K_UNIF, 0, K_UNIF, 0, 0, 64},
        {"Hilbert A, B", 200, 200, 200, 'N', 'N', 1, 0, K_HILB, 0, K_HILB, 0, K_UNIF, 0, 0, 64},
        {"Vandermonde A", 200, 200, 200, 'N', 'T', 1, 0, K_VAND, 0, K_UNIF, 0, K_UNIF, 0, 0, 64},
        {"zero rows A, zero cols B", 200, 200, 200, 'N', 'N', 1, 0.5, K_ZROWS, 0, K_ZCOLS, 0,
         K_UNIF, 0, 0, 64},
        {"rank 1 A, B", 200, 200, 200, 'N', 'N', 1, 0, K_RANK1, 0, K_RANK1, 0, K_UNIF, 0, 0, 64},
        {"rank n/2 A", 200, 200, 200, 'N', 'N', 1, 0, K_RANKH, 0, K_UNIF, 0, K_UNIF, 0, 0, 64},
        {"integers |x| <= 2^20", 200, 200, 200, 'N', 'N', 1, 1, K_INT, 0, K_INT, 0, K_INT, 0, 0,
         64},
        {"huge and tiny in one column of A", 200, 200, 200, 'N', 'N', 1, 0, K_HUGETINY, 0, K_UNIF,
         0, K_UNIF, 0, 0, 64},
        {"cancelling: A=[X X], B=[Y; -Y]", 200, 200, 200, 'N', 'N', 1, 0, K_UNIF, 0, K_UNIF, 0,
         K_UNIF, 0, 1, 64},
        {"cancelling: C0 = AB, beta -1", 200, 200, 200, 'N', 'N', 1, -1, K_UNIF, 0, K_UNIF, 0,
         K_UNIF, 0, 2, 64},
        {"zero A", 100, 100, 100, 'N', 'N', 1, 0, K_ZERO, 0, K_UNIF, 0, K_UNIF, 0, 0, 64},
        {"k = 8192, 128 x 128", 128, 128, 8192, 'T', 'N', 1, 0, K_UNIF, 0, K_UNIF, 0, K_UNIF, 0, 0,
         64},
        {"k = 8192, tile 256, beta 1", 256, 256, 8192, 'N', 'N', -1, 1, K_UNIF, 0, K_UNIF, 0,
         K_UNIF, 0, 0, 256},
        {"k = 8192 cancelling", 64, 64, 8192, 'N', 'N', 1, 0, K_UNIF, 0, K_UNIF, 0, K_UNIF, 0, 1,
         32},
        {"NaN in A", 100, 100, 100, 'N', 'N', 1, 0, K_NAN, 0, K_UNIF, 0, K_UNIF, 0, 0, 64},
        {"-Inf in B", 100, 100, 100, 'N', 'N', 1, 0, K_UNIF, 0, K_INF, 0, K_UNIF, 0, 0, 64},
        {"Inf in A, zero B (Inf*0)", 100, 100, 100, 'N', 'N', 1, 0, K_INF, 0, K_ZERO, 0, K_UNIF, 0,
         0, 64},
        {"NaN in C0, beta 0 (overwritten)", 100, 100, 100, 'N', 'N', 1, 0, K_UNIF, 0, K_UNIF, 0,
         K_NAN, 0, 0, 64},
        {"NaN in C0, beta 1", 100, 100, 100, 'N', 'N', 1, 1, K_UNIF, 0, K_UNIF, 0, K_NAN, 0, 0, 64},
    };
    static const qr_case_t qc[] = {
        {"scaled 1e-300", 256, 256, K_SCALE, 1e-300, 32, 1},
        {"scaled 1e+300", 256, 256, K_SCALE, 1e+300, 32, 1},
        {"scaled 1e-310 (subnormal)", 200, 150, K_SCALE, 1e-310, 32, 1},
        {"subnormal entries", 200, 200, K_SUBN, 1.0, 32, 1},
        {"graded rows 1e-15..1e15", 256, 256, K_GROWS, 15, 32, 1},
        {"graded cols 1e-15..1e15", 256, 256, K_GCOLS, 15, 32, 1},
        {"graded cols 1e-15..1e15, tall", 400, 120, K_GCOLS, 15, 16, 1},
        {"Kahan", 200, 200, K_KAHAN, 0, 32, 1},
        {"Hilbert", 200, 200, K_HILB, 0, 32, 1},
        {"Vandermonde", 300, 100, K_VAND, 0, 32, 1},
        {"zero rows", 200, 200, K_ZROWS, 0, 32, 1},
        {"zero cols", 200, 200, K_ZCOLS, 0, 32, 1},
        {"zero matrix", 100, 100, K_ZERO, 0, 32, 1},
        {"rank 1", 200, 200, K_RANK1, 0, 32, 1},
        {"rank n/2", 256, 256, K_RANKH, 0, 32, 1},
        {"integers |x| <= 2^20", 200, 200, K_INT, 0, 32, 1},
        {"huge and tiny in one column", 200, 200, K_HUGETINY, 0, 32, 1},
        {"cancelling columns [x, -x]", 200, 200, K_CANCEL, 0, 32, 1},
        {"wide, scaled 1e+300", 100, 300, K_SCALE, 1e+300, 16, 2},
        {"NaN entry", 100, 100, K_NAN, 0, 32, 1},
        {"-Inf entry", 100, 100, K_INF, 0, 32, 1},
    };
    printf("%%\n%% stress set: no faults, valid nasty inputs (each must give no report)\n");
    long fa = 0, inacc = 0;
    stress_rec_t recs[sizeof gc / sizeof gc[0] + sizeof qc / sizeof qc[0]];
    int nrec = 0;
    if (O.routines & 1)
        for (size_t i = 0; i < sizeof gc / sizeof gc[0]; i++) {
            if (skipped("dgemm", gc[i].name)) continue;
            stress_rec_t *s = &recs[nrec++];
            memset(s, 0, sizeof *s);
            stress_gemm(&gc[i], s);
            stress_print(s);
        }
    if (O.routines & 2)
        for (size_t i = 0; i < sizeof qc / sizeof qc[0]; i++) {
            if (skipped("dgeqrf", qc[i].name)) continue;
            stress_rec_t *s = &recs[nrec++];
            memset(s, 0, sizeof *s);
            stress_qr(&qc[i], s);
            stress_print(s);
        }
    for (int i = 0; i < nrec; i++) {
        if (recs[i].fail) st_fail++;
        else st_pass++;
        if (!strcmp(recs[i].outcome, "FALSE ALARM")) fa++;
        if (strstr(recs[i].outcome, "inaccurate")) inacc++;
    }
    printf("%% stress: %d cases, %ld false alarms, %ld inaccurate on valid data\n", nrec, fa,
           inacc);
    for (int i = 0; i < nrec; i++)
        if (recs[i].fail)
            printf("%% STRESS FAILURE: %s \"%s\": %s\n", recs[i].routine, recs[i].name,
                   recs[i].outcome);
    return 0;
}

/* ---- main ------------------------------------------------------------------------------------- */

static void usage(void)
{
    printf("usage: ft_campaign [options]\n"
           "  --trials K              trials per routine (default 1000)\n"
           "  --seed S                campaign seed (default 1)\n"
           "  --routine dgemm|dgeqrf|all (default all), or dist: ft_pdgemm and ft_pdgeqrf\n"
           "                          under mpirun (built with MPI; 1..4 faults a trial)\n"
           "  --verify-every q        dist: ft_pdgeqrf's policy.verify_every (default 0)\n"
           "  --device cpu|cuda       backend (default cpu; cuda: exit 77 if unavailable)\n"
           "  --panel auto|cpu|gpu    dgeqrf panel placement (policy.panel; default auto)\n"
           "  --qr-update             dgeqrf with an FT factor attached: errors consumed by\n"
           "                          later panels recovered by QR update, ratios through\n"
           "                          ft_dormqr (default: re-factorization, LAPACK layout)\n"
           "  --ooc                   dgemm out of core: a work-memory limit (policy.gpu_memory)\n"
           "                          of half what each call needs; faults in random blocks\n"
           "                          and chunks (fault.step)\n"
           "  --protect abft|tmr      dgemm protection (policy.protect; default abft; tmr: the\n"
           "                          replicas take the CHECKSUM faults, every limit is 0)\n"
           "  --pointers host|device  where the caller's arrays live (default host; device:\n"
           "                          the _gpu entry points, needs --device cuda)\n"
           "  --faults-per-trial F    faults per trial, 0..%d (default 1; 0 = no-fault trials)\n"
           "  --regions LIST          comma list of C,A,B,CHECKSUM (dgemm), R,TRAILING,CHECKSUM,Q,\n"
           "                          TAU,REFLECTORS,PANEL (dgeqrf); default all the routine\n"
           "                          supports (dist: ft_pdgemm's faults from those of C,A,B\n"
           "                          listed, default C; ft_pdgeqrf's regions unchanged)\n"
           "  --json FILE             every trial as JSON\n"
           "  --stress                the stress set (no faults) instead of the trials\n"
           "  --skip TEXT             --stress: leave out the cases whose name contains TEXT\n"
           "                          (repeatable; they are listed as skipped)\n"
           "  --trial t               replay trial t verbosely\n"
           "  --expect CLASS          --trial: fail unless the trial is classified CLASS\n"
           "                          (clean, masked, corrected, reported, silent<lim, ...)\n"
           "  --quiet                 no tables, only failures and the last line\n",
           MAXF);
}

static int parse_regions(const char *s)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    O.regmask_gemm = O.regmask_qr = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcasecmp(tok, "C")) O.regmask_gemm |= 1 << FT_REGION_C;
        else if (!strcasecmp(tok, "A")) O.regmask_gemm |= 1 << FT_REGION_A;
        else if (!strcasecmp(tok, "B")) O.regmask_gemm |= 1 << FT_REGION_B;
        else if (!strcasecmp(tok, "CHECKSUM")) {
            O.regmask_gemm |= 1 << FT_REGION_CHECKSUM;
            O.regmask_qr |= 1 << FT_REGION_CHECKSUM;
        } else if (!strcasecmp(tok, "R")) O.regmask_qr |= 1 << FT_REGION_R;
        else if (!strcasecmp(tok, "TRAILING")) O.regmask_qr |= 1 << FT_REGION_TRAILING;
        else if (!strcasecmp(tok, "Q")) O.regmask_qr |= 1 << FT_REGION_Q;
        else if (!strcasecmp(tok, "TAU")) O.regmask_qr |= 1 << FT_REGION_TAU;
        else if (!strcasecmp(tok, "REFLECTORS")) O.regmask_qr |= 1 << FT_REGION_REFLECTORS;
        else if (!strcasecmp(tok, "PANEL")) O.regmask_qr |= 1 << FT_REGION_PANEL;
        else return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    O.trials = 1000;
    O.seed = 1;
    O.routines = 3;
    O.device = FT_DEVICE_CPU;
    O.F = 1;
    O.regmask_gemm = (1 << FT_REGION_C) | (1 << FT_REGION_CHECKSUM) | (1 << FT_REGION_A) |
                     (1 << FT_REGION_B);
    O.regmask_qr = (1 << FT_REGION_R) | (1 << FT_REGION_TRAILING) | (1 << FT_REGION_CHECKSUM) |
                   (1 << FT_REGION_Q) | (1 << FT_REGION_TAU) | (1 << FT_REGION_REFLECTORS) |
                   (1 << FT_REGION_PANEL);
    O.trial = -1;
    O.expect = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, val = 1;
        if (!strcmp(a, "--trials"))
            bad = !v || sscanf(v, "%lld", (long long *)&O.trials) != 1 || O.trials < 0;
        else if (!strcmp(a, "--seed"))
            bad = !v || sscanf(v, "%llu", (unsigned long long *)&O.seed) != 1;
        else if (!strcmp(a, "--routine")) {
            bad = !v;
            if (v && !strcmp(v, "dgemm")) O.routines = 1;
            else if (v && !strcmp(v, "dgeqrf")) O.routines = 2;
            else if (v && !strcmp(v, "all")) O.routines = 3;
            else if (v && !strcmp(v, "dist")) O.routines = 4;
            else bad = 1;
        } else if (!strcmp(a, "--verify-every")) {
            bad = !v || tu_parse_int(v, 0, 1 << 20, &O.vevery);
        } else if (!strcmp(a, "--device")) {
            bad = !v || tu_parse_device(v, &O.device) || O.device == FT_DEVICE_AUTO;
        } else if (!strcmp(a, "--qr-update")) {
            O.qrupd = 1;
            val = 0;
        } else if (!strcmp(a, "--panel")) {
            bad = !v;
            if (v && !strcmp(v, "auto")) O.panel = FT_PANEL_AUTO;
            else if (v && !strcmp(v, "cpu")) O.panel = FT_PANEL_CPU;
            else if (v && !strcmp(v, "gpu")) O.panel = FT_PANEL_GPU;
            else bad = 1;
        } else if (!strcmp(a, "--ooc")) {
            O.ooc = 1;
            val = 0;
        } else if (!strcmp(a, "--protect")) {
            bad = !v || (strcmp(v, "abft") && strcmp(v, "tmr"));
            if (!bad) O.tmr = !strcmp(v, "tmr");
        } else if (!strcmp(a, "--pointers")) {
            bad = !v || (strcmp(v, "host") && strcmp(v, "device"));
            if (!bad) O.devptr = !strcmp(v, "device");
        } else if (!strcmp(a, "--faults-per-trial")) bad = !v || tu_parse_int(v, 0, MAXF, &O.F);
        else if (!strcmp(a, "--regions")) {
            bad = !v || parse_regions(v);
            if (!bad) {
                O.regions_given = 1;
                snprintf(O.regions_arg, sizeof O.regions_arg, "%s", v);
            }
        } else if (!strcmp(a, "--json")) {
            bad = !v;
            O.json = v;
        } else if (!strcmp(a, "--skip")) {
            bad = !v || O.nskip >= 16;
            if (!bad) O.skip[O.nskip++] = v;
        } else if (!strcmp(a, "--expect")) {
            bad = !v;
            O.expect = -1;
            for (int c = 0; v && c < CL_COUNT; c++)
                if (!strcmp(v, cl_name[c])) O.expect = c;
            if (O.expect < 0) bad = 1;
        } else if (!strcmp(a, "--trial"))
            bad = !v || sscanf(v, "%lld", (long long *)&O.trial) != 1 || O.trial < 0;
        else {
            val = 0;
            if (!strcmp(a, "--stress")) O.stress = 1;
            else if (!strcmp(a, "--quiet")) O.quiet = 1;
            else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                usage();
                return 0;
            } else bad = 1;
        }
        if (bad) {
            printf("ft_campaign: bad or missing value for %s\n", a);
            usage();
            return 2;
        }
        i += val;
    }
    if (O.routines == 4) { /* the distributed routines: their own campaign, under mpirun */
#ifdef FTLA_CAMPAIGN_DIST
        if (O.F < 1 || O.F > DIST_CAMPAIGN_MAXF || O.trials > 1000000000) {
            printf("ft_campaign: --routine dist takes 1..%d faults a trial\n", DIST_CAMPAIGN_MAXF);
            return 2;
        }
        int me = 0, np = 1;
        Cblacs_pinfo(&me, &np);
        if (me == 0) printf("%% ft_campaign --routine dist: %d process(es), seed %llu\n", np,
                            (unsigned long long)O.seed);
        /* --regions: ft_pdgemm's faults from C, A and B as listed (default C alone) */
        const unsigned gr = O.regions_given
                                ? (unsigned)O.regmask_gemm & ((1u << FT_REGION_C) |
                                                              (1u << FT_REGION_A) |
                                                              (1u << FT_REGION_B))
                                : 0u;
        if (O.regions_given && !gr) {
            if (me == 0)
                printf("ft_campaign: --routine dist draws ft_pdgemm's faults from C, A, B\n");
            Cblacs_exit(0);
            return 2;
        }
        const int f = dist_campaign((int)O.trials, O.seed, O.vevery, O.F, gr);
        Cblacs_exit(0);
        return f ? 1 : 0;
#else
        printf("SKIP: --routine dist needs ftla built with MPI and ScaLAPACK (FTLA_WITH_MPI)\n");
        return TU_SKIP;
#endif
    }
    if (O.regions_given) { /* a routine none of whose regions was listed is not run */
        if (!O.regmask_gemm) O.routines &= ~1;
        if (!O.regmask_qr) O.routines &= ~2;
        if (!O.routines) {
            printf("ft_campaign: no region of the chosen routine(s) in --regions\n");
            return 2;
        }
    }
    if (O.devptr && O.device != FT_DEVICE_CUDA) {
        printf("ft_campaign: --pointers device needs --device cuda\n");
        return 2;
    }
    if (O.device == FT_DEVICE_CUDA && !ft_cuda_available()) {
        printf("SKIP: --device cuda and no usable CUDA device (or ftla built without CUDA)\n");
        return TU_SKIP;
    }
    printf("%% ft_campaign:");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    int maj, min, pat;
    ft_version(&maj, &min, &pat);
    printf("\n%% seed %llu, device %s, %s pointers, ftla %d.%d.%d, faults per trial %d, tol %g "
           "(policy default), accuracy ratios < %g\n",
           (unsigned long long)O.seed, tu_device_name(O.device), O.devptr ? "device" : "host", maj,
           min, pat, O.F, TOL_ABFT, TOL_RATIO);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (O.stress) {
        run_stress();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%% time %.1f s\n",
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
        printf("%ld passed, %ld failed\n", st_pass, st_fail);
        return st_fail ? 1 : 0;
    }
    if (O.trial >= 0) {
        long pass = 0, fail = 0;
        for (int ro = 0; ro < 2; ro++) {
            if (!(O.routines & (1 << ro))) continue;
            trial_t T;
            printf("%% replay of %s trial %lld (library log on stderr)\n", routine_name[ro],
                   (long long)O.trial);
            fflush(stdout);
            if (ro == R_DGEMM) gemm_trial(O.trial, &T, 1);
            else qr_trial(O.trial, &T, 1);
            print_trial(&T);
            if (O.json) {
                FILE *fp = fopen(O.json, "w");
                if (!fp) {
                    printf("cannot write %s\n", O.json);
                    return 2;
                }
                fprintf(fp, "[");
                json_trial(fp, &T, 1);
                fprintf(fp, "\n]\n");
                fclose(fp);
            }
            if (O.expect >= 0 && T.cls != O.expect) {
                printf("%% expected class %s, got %s\n", cl_name[O.expect], cl_name[T.cls]);
                fail++;
            } else if (cl_fails(T.cls)) fail++;
            else pass++;
        }
        printf("%ld passed, %ld failed\n", pass, fail);
        return fail ? 1 : 0;
    }
    const int64_t nt = O.trials * ((O.routines & 1) + ((O.routines >> 1) & 1));
    trial_t *tr = xcalloc((size_t)(nt > 0 ? nt : 1), sizeof(trial_t));
    int64_t c = 0;
    for (int ro = 0; ro < 2; ro++) {
        if (!(O.routines & (1 << ro))) continue;
        for (int64_t t = 0; t < O.trials; t++, c++) {
            if (ro == R_DGEMM) gemm_trial(t, &tr[c], 0);
            else qr_trial(t, &tr[c], 0);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!O.quiet) print_tables(tr, nt);
    {
        int64_t nrec = 0, nupd = 0, nref = 0;
        for (int64_t i = 0; i < nt; i++)
            if (tr[i].recovered > 0) {
                nrec++;
                if (tr[i].recovery & 1) nupd++;
                if (tr[i].recovery & 2) nref++;
            }
        printf("%% dgeqrf: errors consumed by later panels recovered in %lld trials (QR update "
               "%lld, re-factorization %lld)\n", (long long)nrec, (long long)nupd,
               (long long)nref);
    }
    if (O.ooc)
        printf("%% dgemm: out of core in %lld trials (%lld sub-products)\n",
               (long long)O.ooc_trials, (long long)O.ooc_subs);
    long pass = 0, fail = 0;
    char cmd[256];
    printf("%%\n%% gate failures (false alarms, silent corruption above the limit, errors):\n");
    for (int64_t i = 0; i < nt; i++) {
        if (!cl_fails(tr[i].cls)) {
            pass++;
            continue;
        }
        fail++;
        replay_cmd(&tr[i], cmd, sizeof cmd);
        printf("%% replay: %s\n", cmd);
        print_trial(&tr[i]);
    }
    if (!fail) printf("%%   none\n");
    if (O.json) {
        FILE *fp = fopen(O.json, "w");
        if (!fp) {
            printf("cannot write %s\n", O.json);
            free(tr);
            return 2;
        }
        fprintf(fp, "[");
        for (int64_t i = 0; i < nt; i++) json_trial(fp, &tr[i], i == 0);
        fprintf(fp, "\n]\n");
        if (fclose(fp)) printf("error writing %s\n", O.json);
    }
    printf("%% %lld trials in %.1f s\n", (long long)nt,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    free(tr);
    printf("%ld passed, %ld failed\n", pass, fail);
    return fail ? 1 : 0;
}
