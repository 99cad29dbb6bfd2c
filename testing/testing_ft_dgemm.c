/*
 * testing_ft_dgemm.c — MAGMA-style tester of ft_dgemm: speed against the unprotected peer
 * (OpenBLAS cblas_dgemm on the CPU, cuBLAS cublasDgemm on CUDA) measured in the same run, the
 * error of the result against a reference product, and fault injection.
 *
 *   testing_ft_dgemm [-M m] [-N n] [-K k] [--transa N|T|C] [--transb N|T|C] [--alpha x]
 *                    [--beta x] [--niter n] [--check] [--device cpu|cuda|auto] [--inject n]
 *                    [--bits lo:hi] [--seed s] [--tol t] [--tile T] [--protect on|off|tmr]
 *                    [--gpu-pointers]
 *
 * -M/-N/-K take a value or a range start:end:step; with only -N, M = N = K. A list of one
 * value is used for every case; lists of several values must have the same length.
 * Output: a `%` header, one row per case, then `N passed, N failed`; exit status 1 on any
 * failure, 77 (skip) when CUDA is asked for and no device can be used.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include "testing_util.h"

#include <cblas.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#ifdef FTLA_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#define MAX_INJECT 64 /* the context's fault plan holds at most 64 pending faults */


typedef struct {
    tu_sizes_t M, N, K;
    int haveM, haveN, haveK;
    char ta, tb;
    double alpha, beta;
    int niter;
    int check;
    ft_device_t device;
    int inject;
    int bitlo, bithi;
    uint64_t seed;
    double tol;
    int tile;
    int protect;
    int gpu_pointers;
} opts_t;

static void usage(const char *prog)
{
    printf("usage: %s [options]\n"
           "  -M m, -N n, -K k       sizes: a value or start:end:step (only -N: M = N = K)\n"
           "  --transa N|T|C         op(A) (default N); --transb likewise for op(B)\n"
           "  --alpha x, --beta x    scalars (default 0.29, -0.48)\n"
           "  --niter n              runs per case, median time; n > 1: the first is a warm-up\n"
           "  --check                compare with a reference product (cblas_dgemm)\n"
           "  --device cpu|cuda|auto backend (default cpu)\n"
           "  --inject n             n random single-bit flips into C during each call\n"
           "  --bits lo:hi           bits the flips are drawn from (default 45:63)\n"
           "  --seed s               seed of data, fault positions and bits (default 1)\n"
           "  --tol t                error ratio threshold, times eps (default 30)\n"
           "  --tile T               ft_dgemm verification tile (policy.tile, 0 = automatic)\n"
           "  --protect on|off|tmr   ABFT on (default), off, or TMR (three products and a vote)\n"
           "  --gpu-pointers         data in device memory: ft_dgemm_gpu_ex (CUDA builds)\n",
           prog);
}


static int parse_trans(const char *s, char *t)
{
    if (strlen(s) != 1 || !strchr("NTCntc", s[0])) return -1;
    *t = s[0];
    return 0;
}



static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->ta = o->tb = 'N';
    o->alpha = 0.29;
    o->beta = -0.48;
    o->niter = 1;
    o->device = FT_DEVICE_CPU;
    o->bitlo = 45;
    o->bithi = 63;
    o->seed = 1;
    o->tol = 30.0;
    o->protect = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, takes = 1;
        if (!strcmp(a, "-M")) bad = !v || tu_parse_sizes(v, &o->M), o->haveM = 1;
        else if (!strcmp(a, "-N")) bad = !v || tu_parse_sizes(v, &o->N), o->haveN = 1;
        else if (!strcmp(a, "-K")) bad = !v || tu_parse_sizes(v, &o->K), o->haveK = 1;
        else if (!strcmp(a, "--transa")) bad = !v || parse_trans(v, &o->ta);
        else if (!strcmp(a, "--transb")) bad = !v || parse_trans(v, &o->tb);
        else if (!strcmp(a, "--alpha")) bad = !v || tu_parse_double(v, &o->alpha);
        else if (!strcmp(a, "--beta")) bad = !v || tu_parse_double(v, &o->beta);
        else if (!strcmp(a, "--niter")) bad = !v || tu_parse_int(v, 1, 1000000, &o->niter);
        else if (!strcmp(a, "--device")) bad = !v || tu_parse_device(v, &o->device);
        else if (!strcmp(a, "--inject")) bad = !v || tu_parse_int(v, 0, MAX_INJECT, &o->inject);
        else if (!strcmp(a, "--bits")) {
            bad = !v || sscanf(v, "%d:%d", &o->bitlo, &o->bithi) != 2 || o->bitlo < 0 ||
                  o->bithi > 63 || o->bitlo > o->bithi;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            bad = !v || (o->seed = strtoull(v, &end, 10), end == v || *end);
        } else if (!strcmp(a, "--tol")) bad = !v || tu_parse_double(v, &o->tol) || !(o->tol > 0);
        else if (!strcmp(a, "--tile")) bad = !v || tu_parse_int(v, 0, 1 << 20, &o->tile);
        else if (!strcmp(a, "--protect")) {
            bad = !v || (strcasecmp(v, "on") && strcasecmp(v, "off") && strcasecmp(v, "tmr"));
            if (!bad)
                o->protect = !strcasecmp(v, "tmr") ? FT_PROTECT_TMR : strcasecmp(v, "on") == 0;
        } else {
            takes = 0;
            if (!strcmp(a, "--check")) o->check = 1;
            else if (!strcmp(a, "--gpu-pointers")) o->gpu_pointers = 1;
            else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                usage(argv[0]);
                exit(0);
            } else {
                printf("%s: unknown option %s\n", argv[0], a);
                return -1;
            }
        }
        if (bad) {
            printf("%s: bad or missing value for %s\n", argv[0], a);
            return -1;
        }
        i += takes;
    }
    /* sizes: only -N gives M = N = K; a missing dimension follows -N (or M, whichever given) */
    if (!o->haveM && !o->haveN && !o->haveK) tu_parse_sizes("256:1024:256", &o->N), o->haveN = 1;
    const tu_sizes_t *base = o->haveN ? &o->N : o->haveM ? &o->M : &o->K;
    if (!o->haveM) o->M = *base;
    if (!o->haveN) o->N = *base;
    if (!o->haveK) o->K = *base;
    int len = o->M.n > o->N.n ? o->M.n : o->N.n;
    if (o->K.n > len) len = o->K.n;
    if ((o->M.n != 1 && o->M.n != len) || (o->N.n != 1 && o->N.n != len) ||
        (o->K.n != 1 && o->K.n != len)) {
        printf("%s: -M, -N, -K lists must have one value or the same length\n", argv[0]);
        return -1;
    }
    if (o->gpu_pointers && o->device == FT_DEVICE_CPU) {
        printf("%s: --gpu-pointers needs --device cuda or auto\n", argv[0]);
        return -1;
    }
    return 0;
}

static int64_t size_at(const tu_sizes_t *s, int i) { return s->n == 1 ? s->v[0] : s->v[i]; }

static double wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of the counted runs: with niter > 1 the first run (a warm-up) is not counted. */
static double median_time(double *t, int niter)
{
    double *u = niter > 1 ? t + 1 : t;
    int n = niter > 1 ? niter - 1 : 1;
    qsort(u, (size_t)n, sizeof *u, cmp_double);
    return n % 2 ? u[n / 2] : 0.5 * (u[n / 2 - 1] + u[n / 2]);
}

static enum CBLAS_TRANSPOSE cbt(char t)
{
    return (t == 'N' || t == 'n') ? CblasNoTrans : CblasTrans;
}

#ifdef FTLA_HAVE_CUDA
static int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    printf("%% CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}
static cublasOperation_t cuop(char t) { return (t == 'N' || t == 'n') ? CUBLAS_OP_N : CUBLAS_OP_T; }
#endif

/* One case's data: host copies (A, B, the input C0, ft's result C, the peer's result Cp) and,
 * on CUDA, device copies (dC: ft with --gpu-pointers, dCp: the cuBLAS peer). */
typedef struct {
    int64_t m, n, k, lda, ldb, ldc, nrowa, ncola, nrowb, ncolb;
    double *A, *B, *C0, *C, *Cp;
    double *dA, *dB, *dC, *dCp; /* device memory, else NULL */
} case_t;

/* Time the unprotected peer on its own copy of C; the median seconds, or < 0 on error. */
static double time_peer(const opts_t *o, case_t *c, ft_device_t backend, void *cublas)
{
    double *t = tu_malloc(o->niter);
    double ret = -1.0;
    if (backend == FT_DEVICE_CPU) {
        for (int r = 0; r < o->niter; r++) {
            tu_copy(c->m, c->n, c->C0, c->ldc, c->Cp, c->ldc);
            double t0 = wtime();
            cblas_dgemm(CblasColMajor, cbt(o->ta), cbt(o->tb), (int)c->m, (int)c->n, (int)c->k,
                        o->alpha, c->A, (int)c->lda, c->B, (int)c->ldb, o->beta, c->Cp,
                        (int)c->ldc);
            t[r] = wtime() - t0;
        }
        ret = median_time(t, o->niter);
        free(t);
        return ret;
    }
#ifdef FTLA_HAVE_CUDA
    /* cuBLAS on device pointers, timed with events on its (default) stream, after a warm-up */
    cublasHandle_t h = (cublasHandle_t)cublas;
    size_t csz = (size_t)(c->ldc * c->n) * sizeof(double);
    cudaEvent_t e0 = NULL, e1 = NULL;
    if (!cuda_ok(cudaEventCreate(&e0), "cudaEventCreate") ||
        !cuda_ok(cudaEventCreate(&e1), "cudaEventCreate"))
        goto out;
    for (int r = -1; r < o->niter; r++) {
        if (!cuda_ok(cudaMemcpy(c->dCp, c->C0, csz, cudaMemcpyHostToDevice), "cudaMemcpy"))
            goto out;
        float ms = 0.0f;
        cudaEventRecord(e0, 0);
        cublasStatus_t s =
            cublasDgemm(h, cuop(o->ta), cuop(o->tb), (int)c->m, (int)c->n, (int)c->k, &o->alpha,
                        c->dA, (int)c->lda, c->dB, (int)c->ldb, &o->beta, c->dCp, (int)c->ldc);
        cudaEventRecord(e1, 0);
        if (s != CUBLAS_STATUS_SUCCESS) {
            printf("%% cublasDgemm failed (status %d)\n", (int)s);
            goto out;
        }
        if (!cuda_ok(cudaEventSynchronize(e1), "cudaEventSynchronize") ||
            !cuda_ok(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime"))
            goto out;
        if (r >= 0) t[r] = 1e-3 * (double)ms;
    }
    ret = median_time(t, o->niter);
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
#else
    (void)cublas;
#endif
    free(t);
    return ret;
}

/*
 * How many elements of C the injected faults left wrong: the distinct positions of the
 * FT_EVENT_INJECTED events whose last value differs from the first (two random flips can hit
 * one element, and a second flip of the same bit undoes the first). With at most 64 faults
 * every injection is in the event list: injections come before any other event.
 */
static int64_t corrupted_elements(const ft_report_t *rep)
{
    int64_t n = 0;
    const int ne = rep->nevents < FT_REPORT_MAX_EVENTS ? rep->nevents : FT_REPORT_MAX_EVENTS;
    for (int e = 0; e < ne; e++) {
        const ft_event_t *ev = &rep->events[e];
        if (ev->kind != FT_EVENT_INJECTED || ev->region != FT_REGION_C) continue;
        int first = 1;
        for (int d = 0; d < e && first; d++)
            first = !(rep->events[d].kind == FT_EVENT_INJECTED &&
                      rep->events[d].region == FT_REGION_C && rep->events[d].row == ev->row &&
                      rep->events[d].col == ev->col);
        if (!first) continue;
        double after = ev->after;
        for (int d = e + 1; d < ne; d++)
            if (rep->events[d].kind == FT_EVENT_INJECTED && rep->events[d].region == FT_REGION_C &&
                rep->events[d].row == ev->row && rep->events[d].col == ev->col)
                after = rep->events[d].after;
        n += memcmp(&after, &ev->before, sizeof after) != 0;
    }
    return n;
}

/* One protected call on freshly copied C (host C, or dC with --gpu-pointers), with the planned
 * faults. Returns the routine's status. */
static int run_ft(const opts_t *o, ft_context_t *ctx, case_t *c, tu_rng_t *rng, ft_report_t *rep,
                  double *seconds)
{
    if (o->gpu_pointers) {
#ifdef FTLA_HAVE_CUDA
        size_t csz = (size_t)(c->ldc * c->n) * sizeof(double);
        if (!cuda_ok(cudaMemcpy(c->dC, c->C0, csz, cudaMemcpyHostToDevice), "cudaMemcpy"))
            return FT_ERR_CUDA;
#endif
    } else {
        tu_copy(c->m, c->n, c->C0, c->ldc, c->C, c->ldc);
    }
    /*
     * Faults: single-bit flips into the result C, at random elements, with bits drawn from
     * [bitlo, bithi] (default 45..63: high mantissa, exponent and sign). A flip of mantissa bit
     * b changes an element by |c| 2^(b-52). ft_dgemm's checks must tolerate the product's own
     * rounding error, about u (k + T) |A||B| summed over a tile row, so a flip in a low mantissa
     * bit (a change of one ulp up to a few thousand ulps) can stay below the threshold and is
     * then not detectable -- it is also no larger than rounding error, so harmless. From bit
     * 45 up the change is at least 2^-7 |c|, far above the threshold for any practical k and
     * tile, so every such flip must be detected and corrected.
     */
    for (int f = 0; f < o->inject; f++) {
        ft_fault_t fault = {.region = FT_REGION_C,
                            .row = -1,
                            .col = -1,
                            .bit = tu_int(rng, o->bitlo, o->bithi),
                            .value = 0.0,
                            .call = -1,
                            .step = -1};
        int st = ft_inject_add(ctx, &fault);
        if (st) return st;
    }
    int st;
    double t0 = wtime();
    if (o->gpu_pointers) {
        st = ft_dgemm_gpu_ex(ctx, o->ta, o->tb, (ft_int)c->m, (ft_int)c->n, (ft_int)c->k, o->alpha,
                             c->dA, (ft_int)c->lda, c->dB, (ft_int)c->ldb, o->beta, c->dC,
                             (ft_int)c->ldc, rep);
#ifdef FTLA_HAVE_CUDA
        cudaDeviceSynchronize();
#endif
    } else {
        st =
            ft_dgemm_ex(ctx, o->ta, o->tb, (ft_int)c->m, (ft_int)c->n, (ft_int)c->k, o->alpha, c->A,
                        (ft_int)c->lda, c->B, (ft_int)c->ldb, o->beta, c->C, (ft_int)c->ldc, rep);
    }
    *seconds = wtime() - t0;
    /* faults a quick return (m, n or k = 0, alpha = 0) did not consume must not leak into the
     * next case */
    ft_inject_clear(ctx);
    return st;
}

int main(int argc, char **argv)
{
    opts_t o;
    if (parse_args(argc, argv, &o)) {
        usage(argv[0]);
        return 2;
    }
#ifndef FTLA_HAVE_CUDA
    if (o.device == FT_DEVICE_CUDA || o.gpu_pointers) {
        printf("SKIP: no CUDA device (or built without CUDA)\n");
        return TU_SKIP;
    }
#endif
    if ((o.device == FT_DEVICE_CUDA || o.gpu_pointers) && !ft_cuda_available()) {
        printf("SKIP: no CUDA device (or built without CUDA)\n");
        return TU_SKIP;
    }

    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, o.device);
    if (st) {
        printf("ft_context_create(%s): %s\n", tu_device_name(o.device), ft_strerror(st));
        printf("0 passed, 1 failed\n");
        return 1;
    }
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.tile = o.tile;
    pol.protect = o.protect;
    if ((st = ft_context_set_policy(ctx, &pol))) {
        printf("ft_context_set_policy: %s\n0 passed, 1 failed\n", ft_strerror(st));
        ft_context_destroy(ctx);
        return 1;
    }
    ft_inject_seed(ctx, o.seed);

    void *cublas = NULL;
#ifdef FTLA_HAVE_CUDA
    cublasHandle_t handle = NULL;
    if (o.device != FT_DEVICE_CPU && ft_cuda_available()) {
        if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
            printf("cublasCreate failed\n0 passed, 1 failed\n");
            ft_context_destroy(ctx);
            return 1;
        }
        cublas = handle;
    }
#endif

    char tilestr[32];
    if (o.tile) snprintf(tilestr, sizeof tilestr, "%d", o.tile);
    else snprintf(tilestr, sizeof tilestr, "auto");
    printf("%% ftla ft_dgemm tester: device %s%s, transa %c, transb %c, alpha %g, beta %g, "
           "niter %d, tile %s, protect %s\n",
           tu_device_name(o.device), o.gpu_pointers ? " (device pointers)" : "", o.ta, o.tb,
           o.alpha, o.beta, o.niter, tilestr,
           o.protect == FT_PROTECT_TMR ? "tmr" : o.protect ? "on" : "off");
    printf("%% inject %d (bits %d:%d), seed %llu, tol %g eps (eps = %.3e)%s\n", o.inject, o.bitlo,
           o.bithi, (unsigned long long)o.seed, o.tol, tu_eps(), o.check ? "" : ", no --check");
    printf("%% peer: cblas_dgemm (OpenBLAS) on cpu, cublasDgemm on cuda; GFLOP/s = 2mnk / median "
           "time; overhead = ft time / peer time - 1\n");
    printf("%%      M      N      K tA tB  peer  peer GF/s (    ms)    ft GF/s (    ms) "
           "overhead    error  inj det cor  result\n");
    printf("%%=============================================================================="
           "==================================\n");

    int ncases = o.M.n > o.N.n ? o.M.n : o.N.n;
    if (o.K.n > ncases) ncases = o.K.n;
    long passed = 0, failed = 0;
    tu_rng_t rng;
    tu_seed(&rng, o.seed);

    for (int ci = 0; ci < ncases; ci++) {
        case_t c = {0};
        c.m = size_at(&o.M, ci), c.n = size_at(&o.N, ci), c.k = size_at(&o.K, ci);
        int nota = o.ta == 'N' || o.ta == 'n', notb = o.tb == 'N' || o.tb == 'n';
        c.nrowa = nota ? c.m : c.k, c.ncola = nota ? c.k : c.m;
        c.nrowb = notb ? c.k : c.n, c.ncolb = notb ? c.n : c.k;
        c.lda = c.nrowa > 1 ? c.nrowa : 1;
        c.ldb = c.nrowb > 1 ? c.nrowb : 1;
        c.ldc = c.m > 1 ? c.m : 1;
        c.A = tu_malloc(c.lda * c.ncola);
        c.B = tu_malloc(c.ldb * c.ncolb);
        c.C0 = tu_malloc(c.ldc * c.n);
        c.C = tu_malloc(c.ldc * c.n);
        c.Cp = tu_malloc(c.ldc * c.n);
        /* never test or time on zeros: uniform random in [-1, 1] */
        tu_fill(&rng, c.nrowa, c.ncola, c.A, c.lda);
        tu_fill(&rng, c.nrowb, c.ncolb, c.B, c.ldb);
        tu_fill(&rng, c.m, c.n, c.C0, c.ldc);
        const double flops = 2.0 * (double)c.m * (double)c.n * (double)c.k;
        const int empty = c.m == 0 || c.n == 0;
        /* BLAS quick return: nothing runs, so no backend is chosen */
        const int quick = empty || ((c.k == 0 || o.alpha == 0.0) && o.beta == 1.0);
        int ok = 1;     /* the row passes */
        int usable = 1; /* the data could be set up (device memory) */
        char note[256] = "";

#ifdef FTLA_HAVE_CUDA
        /* device copies for the cuBLAS peer and --gpu-pointers */
        if (cublas) {
            size_t sa = (size_t)(c.lda * c.ncola) * sizeof(double);
            size_t sb = (size_t)(c.ldb * c.ncolb) * sizeof(double);
            size_t sc = (size_t)(c.ldc * c.n) * sizeof(double);
            if (!cuda_ok(cudaMalloc((void **)&c.dA, sa ? sa : 8), "cudaMalloc") ||
                !cuda_ok(cudaMalloc((void **)&c.dB, sb ? sb : 8), "cudaMalloc") ||
                !cuda_ok(cudaMalloc((void **)&c.dC, sc ? sc : 8), "cudaMalloc") ||
                !cuda_ok(cudaMalloc((void **)&c.dCp, sc ? sc : 8), "cudaMalloc") ||
                !cuda_ok(cudaMemcpy(c.dA, c.A, sa, cudaMemcpyHostToDevice), "cudaMemcpy") ||
                !cuda_ok(cudaMemcpy(c.dB, c.B, sb, cudaMemcpyHostToDevice), "cudaMemcpy")) {
                ok = usable = 0;
                snprintf(note, sizeof note, "device allocation or copy failed");
            }
        }
#endif

        /* ft_dgemm: niter runs, each on fresh C; every run's report is checked */
        double *tft = tu_malloc(o.niter);
        ft_report_t rep, last;
        memset(&last, 0, sizeof last);
        int ran = 0; /* every run returned 0: C holds a result and the times mean something */
        for (int r = 0; usable && r < o.niter; r++) {
            memset(&rep, 0, sizeof rep);
            st = run_ft(&o, ctx, &c, &rng, &rep, &tft[r]);
            last = rep;
            const int expect_inj = empty || c.k == 0 || o.alpha == 0.0 ? 0 : o.inject;
            ran += st == 0;
            if (!ok) continue; /* keep the first note */
            if (st) {
                ok = 0;
                snprintf(note, sizeof note, "run %d: status %d (%s)", r, st, ft_strerror(st));
            } else if (rep.status != 0) {
                ok = 0;
                snprintf(note, sizeof note, "run %d: report status %d", r, rep.status);
            } else if (!quick && o.device != FT_DEVICE_AUTO && rep.backend != o.device) {
                /* --device cpu|cuda: the call runs there (auto decides per problem) */
                ok = 0;
                snprintf(note, sizeof note, "run %d: ran on backend %d, asked for %s", r,
                         (int)rep.backend, tu_device_name(o.device));
            } else if (rep.injected != expect_inj || rep.detected != corrupted_elements(&rep) ||
                       rep.corrected != rep.detected) {
                /* every flip detected and corrected (flips that hit one element count once) */
                ok = 0;
                snprintf(note, sizeof note,
                         "run %d: injected %lld (%lld elements) detected %lld corrected %lld", r,
                         (long long)rep.injected, (long long)corrupted_elements(&rep),
                         (long long)rep.detected, (long long)rep.corrected);
            }
        }
        double t_ft = usable && ran == o.niter ? median_time(tft, o.niter) : NAN;

        /* the peer on the backend ft_dgemm ran on (--device auto decides per problem) */
        ft_device_t backend = o.device == FT_DEVICE_CUDA ? FT_DEVICE_CUDA : FT_DEVICE_CPU;
        if (!empty && ran > 0 && last.backend != FT_DEVICE_AUTO) backend = last.backend;
        double t_peer = NAN;
        if (usable && !empty) {
            if (backend == FT_DEVICE_CUDA && !cublas) {
                ok = 0;
                snprintf(note, sizeof note, "ran on cuda but the tester has no cuBLAS peer");
            } else if ((t_peer = time_peer(&o, &c, backend, cublas)) < 0) {
                ok = 0;
                t_peer = NAN;
                if (!note[0]) snprintf(note, sizeof note, "peer failed");
            }
        }

        /* --check: the last ft result against cblas_dgemm on the host copies */
        double ratio = NAN;
        if (o.check && usable && ran > 0) {
#ifdef FTLA_HAVE_CUDA
            if (o.gpu_pointers &&
                !cuda_ok(cudaMemcpy(c.C, c.dC, (size_t)(c.ldc * c.n) * sizeof(double),
                                    cudaMemcpyDeviceToHost),
                         "cudaMemcpy"))
                ok = 0;
#endif
            /* a result left by a failed run is still compared: the error shows what went wrong */
            double *Cref = tu_malloc(c.ldc * c.n);
            tu_copy(c.m, c.n, c.C0, c.ldc, Cref, c.ldc);
            tu_ref_dgemm(o.ta, o.tb, c.m, c.n, c.k, o.alpha, c.A, c.lda, c.B, c.ldb, o.beta, Cref,
                         c.ldc);
            ratio = tu_gemm_ratio(o.ta, o.tb, c.m, c.n, c.k, o.alpha, c.A, c.lda, c.B, c.ldb,
                                  o.beta, c.C0, c.ldc, c.C, c.ldc, Cref, c.ldc);
            free(Cref);
            if (!(ratio < o.tol)) {
                ok = 0;
                if (!note[0])
                    snprintf(note, sizeof note, "error ratio %.3e >= tol %g", ratio, o.tol);
            }
        }

        double gp = flops / t_peer * 1e-9, gf = flops / t_ft * 1e-9;
        char err[32];
        if (!o.check) snprintf(err, sizeof err, "%8s", "---");
        else snprintf(err, sizeof err, "%8.2e", ratio);
        printf(" %7lld %6lld %6lld  %c  %c %6s %10.2f (%6.2f) %10.2f (%6.2f) %7.1f%% %s %4lld "
               "%3lld %3lld  %s\n",
               (long long)c.m, (long long)c.n, (long long)c.k, o.ta, o.tb,
               backend == FT_DEVICE_CUDA ? "cublas" : "cblas", gp, t_peer * 1e3, gf, t_ft * 1e3,
               (t_ft / t_peer - 1.0) * 100.0, err, (long long)last.injected,
               (long long)last.detected, (long long)last.corrected, ok ? "ok" : "failed");
        if (note[0]) printf("%%   %s\n", note);
        fflush(stdout);
        if (ok) passed++;
        else failed++;

#ifdef FTLA_HAVE_CUDA
        if (c.dA) cudaFree(c.dA);
        if (c.dB) cudaFree(c.dB);
        if (c.dC) cudaFree(c.dC);
        if (c.dCp) cudaFree(c.dCp);
#endif
        free(c.A);
        free(c.B);
        free(c.C0);
        free(c.C);
        free(c.Cp);
        free(tft);
    }

#ifdef FTLA_HAVE_CUDA
    if (handle) cublasDestroy(handle);
#endif
    ft_context_destroy(ctx);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
