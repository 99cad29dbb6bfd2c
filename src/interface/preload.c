/*
 * preload.c — libftla_preload.so, the LD_PRELOAD interposer (docs/interposer.md).
 *
 * It defines dgemm_, dgeqrf_ (Fortran ABI, gfortran conventions), cblas_dgemm, LAPACKE_dgeqrf and
 * LAPACKE_dgeqrf_work, so that a dynamically linked program run with
 * LD_PRELOAD=libftla_preload.so gets ft_dgemm / ft_dgeqrf without being rebuilt. Each entry
 * behaves as the reference routine: arguments checked in the reference order and reported
 * through the program's own xerbla_ (found with dlsym(RTLD_DEFAULT), so the program's wins),
 * quick returns, workspace queries answered by the real routine; a valid call with work to
 * protect runs through ftla on the calling thread's default context.
 *
 * Linking. The library is linked statically into this one and only the interposed symbols and
 * the two diagnostics below are exported (preload.map): ftla's own references to cblas_dgemm,
 * LAPACKE_dgeqrf_work, ... bind to the exported definitions here, and OpenBLAS's LAPACK calls
 * dgemm_ / dgeqrf_ through its PLT, so both come back into this file. The real routines are
 * reached with dlsym(RTLD_NEXT) — the next definition after this library in the process's
 * search order, i.e. the BLAS/LAPACK the program itself links (reference libblas.so.3 /
 * liblapack.so.3, or OpenBLAS behind those names), else the OpenBLAS/LAPACKE this library
 * depends on. A thread-local depth (t_inside) is set while ftla runs a call: every interposed
 * entry reached with it set forwards straight to the real routine, so ftla's own BLAS/LAPACK
 * calls never recurse into ftla.
 *
 * Threads. No lock around a call: ftla's default context is one per thread (core/default.c),
 * the guard is thread-local, the counters are atomics. The counters and the forwarding targets
 * are readable through ftla_preload_stats / ftla_preload_real (preload.h).
 */
#define _GNU_SOURCE
#include "interface/preload.h"
#include "interface/preload_ormqr.h"
#include "backend/backend.h"
#include "core/team.h"
#include "ftla.h"

#include <dlfcn.h>
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXPORT __attribute__((visibility("default")))

typedef int f_int; /* Fortran INTEGER and lapack_int, LP64 (= ft_int) */

enum { CBLAS_ROW = 101, CBLAS_COL = 102, CBLAS_N = 111, CBLAS_T = 112, CBLAS_C = 113 };
enum { R_DGEMM = 0, R_DGEQRF = 1, R_DORMQR = 2, NROUTINES = 3 };
static const char *const routine_name[NROUTINES] = {"dgemm", "dgeqrf", "dormqr"};

/* ---- the real routines ------------------------------------------------------------------- */

typedef void (*dgemm_fn)(const char *, const char *, const f_int *, const f_int *, const f_int *,
                         const double *, const double *, const f_int *, const double *,
                         const f_int *, const double *, double *, const f_int *, size_t, size_t);
typedef void (*dgeqrf_fn)(const f_int *, const f_int *, double *, const f_int *, double *, double *,
                          const f_int *, f_int *);
typedef void (*dormqr_fn)(const char *, const char *, const f_int *, const f_int *, const f_int *,
                          double *, const f_int *, const double *, double *, const f_int *,
                          double *, const f_int *, f_int *, size_t, size_t);
typedef void (*cblas_dgemm_fn)(int, int, int, f_int, f_int, f_int, double, const double *, f_int,
                               const double *, f_int, double, double *, f_int);
typedef f_int (*lapacke_dgeqrf_fn)(int, f_int, f_int, double *, f_int, double *);
typedef f_int (*lapacke_dgeqrf_work_fn)(int, f_int, f_int, double *, f_int, double *, double *,
                                        f_int);
typedef void (*xerbla_fn)(const char *, const f_int *, size_t);
typedef f_int (*ilaenv_fn)(const f_int *, const char *, const char *, const f_int *, const f_int *,
                           const f_int *, const f_int *, size_t, size_t);
typedef int (*nancheck_fn)(void);

static struct {
    dgemm_fn dgemm;
    dgeqrf_fn dgeqrf;
    dormqr_fn dormqr;
    cblas_dgemm_fn cblas_dgemm;
    lapacke_dgeqrf_fn lapacke_dgeqrf;
    lapacke_dgeqrf_work_fn lapacke_dgeqrf_work;
    xerbla_fn xerbla;     /* the program's own first (RTLD_DEFAULT), as the real routines' */
    ilaenv_fn ilaenv;     /* likewise: the block size the real dgeqrf would use */
    nancheck_fn nancheck; /* LAPACKE_get_nancheck */
} R;
static pthread_once_t g_real_once = PTHREAD_ONCE_INIT;

/* dlsym's void * as a function pointer (POSIX guarantees the conversion works) */
#define SYM(handle, name) dlsym((handle), (name))

static void real_init(void)
{
    *(void **)&R.dgemm = SYM(RTLD_NEXT, "dgemm_");
    *(void **)&R.dgeqrf = SYM(RTLD_NEXT, "dgeqrf_");
    *(void **)&R.dormqr = SYM(RTLD_NEXT, "dormqr_");
    *(void **)&R.cblas_dgemm = SYM(RTLD_NEXT, "cblas_dgemm");
    *(void **)&R.lapacke_dgeqrf = SYM(RTLD_NEXT, "LAPACKE_dgeqrf");
    *(void **)&R.lapacke_dgeqrf_work = SYM(RTLD_NEXT, "LAPACKE_dgeqrf_work");
    *(void **)&R.xerbla = SYM(RTLD_DEFAULT, "xerbla_");
    *(void **)&R.ilaenv = SYM(RTLD_DEFAULT, "ilaenv_");
    *(void **)&R.nancheck = SYM(RTLD_NEXT, "LAPACKE_get_nancheck");
}

static inline void real_load(void) { pthread_once(&g_real_once, real_init); }

/* A real routine that cannot be found: said once per name; nothing is computed (the library
 * never stops the program). Cannot happen while this library's own dependencies are loaded. */
static void missing(const char *name)
{
    static atomic_int said;
    if (!atomic_exchange(&said, 1))
        fprintf(stderr,
                "ftla: preload: the real %s was not found (dlsym RTLD_NEXT): call "
                "ignored\n",
                name);
}

/* ---- configuration (read once) ------------------------------------------------------------ */

#define MAX_PLAN 32
typedef struct {
    int routine;
    int64_t call; /* index among the process's protected calls of the routine; -1 = every call */
    ft_fault_t f;
} plan_t;

static struct {
    int off;      /* FTLA_PRELOAD=off|0: every call straight to the real routine */
    double small; /* FTLA_PRELOAD_SMALL=t: calls with less work than a t^3 product run the real
                     routine, unprotected (t^3; 0 = every call protected, the default) */
    int verbose;  /* FTLA_VERBOSE */
    int dormqr_off; /* FTLA_PRELOAD_DORMQR=off|0: dormqr_ to the real routine, whose dgemm_
                       calls then come back here protected one by one (before dormqr_ was
                       interposed) */
    uint64_t seed;
    plan_t plan[MAX_PLAN];
    int nplan;
} C;
static pthread_once_t g_cfg_once = PTHREAD_ONCE_INIT;
/* ftla_preload_pause (preload.h): every call to the real routine while set, as FTLA_PRELOAD=off */
static atomic_int g_paused;
#define OFF (C.off || atomic_load_explicit(&g_paused, memory_order_relaxed))
static atomic_int g_cfg_done;

static int parse_region(int routine, const char *s, ft_region_t *reg)
{
    static const struct {
        const char *name;
        ft_region_t reg;
        int routines; /* bit r: allowed for routine r */
    } T[] = {{"C", FT_REGION_C, 1 | 4},
             {"A", FT_REGION_A, 1},
             {"B", FT_REGION_B, 1},
             {"checksum", FT_REGION_CHECKSUM, 7},
             {"R", FT_REGION_R, 2},
             {"trailing", FT_REGION_TRAILING, 2},
             {"Q", FT_REGION_Q, 2},
             {"tau", FT_REGION_TAU, 2 | 4},
             {"reflectors", FT_REGION_REFLECTORS, 2 | 4},
             {"panel", FT_REGION_PANEL, 2}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (!strcasecmp(s, T[i].name) && (T[i].routines >> routine & 1)) {
            *reg = T[i].reg;
            return 0;
        }
    return -1;
}

/* routine:region[:call=N|all][:step=p][:row=i][:col=j][:bit=b|:value=x] (the tester's --inject
 * syntax with the routine in front and call=). Returns 0, or -1 with a reason in err. */
static int parse_fault(char *spec, plan_t *p, const char **err)
{
    memset(p, 0, sizeof *p);
    p->f.row = p->f.col = p->f.step = p->f.call = -1;
    p->f.bit = -2; /* unset */
    char *save = NULL, *tok = strtok_r(spec, ":", &save);
    if (!tok) return *err = "empty", -1;
    if (!strcasecmp(tok, "dgemm")) p->routine = R_DGEMM;
    else if (!strcasecmp(tok, "dgeqrf")) p->routine = R_DGEQRF;
    else if (!strcasecmp(tok, "dormqr")) p->routine = R_DORMQR;
    else return *err = "routine must be dgemm, dgeqrf or dormqr", -1;
    if (!(tok = strtok_r(NULL, ":", &save)) || parse_region(p->routine, tok, &p->f.region))
        return *err = "unknown region (dgemm: C A B checksum; dgeqrf: R trailing Q tau "
                      "checksum reflectors panel; dormqr: C checksum reflectors tau)",
               -1;
    int have_value = 0;
    while ((tok = strtok_r(NULL, ":", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) return *err = "expected key=value", -1;
        *eq = '\0';
        const char *k = tok, *v = eq + 1;
        char *end;
        if (!strcmp(k, "value")) {
            p->f.value = strtod(v, &end);
            have_value = 1;
        } else if (!strcmp(k, "call") && !strcasecmp(v, "all")) {
            p->call = -1;
            continue;
        } else {
            long long x = strtoll(v, &end, 10);
            if (x < 0) return *err = "negative value", -1;
            if (!strcmp(k, "call")) p->call = x;
            else if (!strcmp(k, "step")) p->f.step = x;
            else if (!strcmp(k, "row")) p->f.row = x;
            else if (!strcmp(k, "col")) p->f.col = x;
            else if (!strcmp(k, "bit")) {
                if (x > 63) return *err = "bit must be 0..63", -1;
                p->f.bit = (int)x;
            } else return *err = "unknown key (call step row col bit value)", -1;
        }
        if (end == v || *end) return *err = "bad number", -1;
    }
    if (p->f.bit == -2) p->f.bit = have_value ? -1 : 55;
    else if (have_value) return *err = "bit and value are exclusive", -1;
    return 0;
}

static void parse_inject(const char *env)
{
    char *copy = strdup(env);
    if (!copy) return;
    char *save = NULL;
    for (char *s = strtok_r(copy, ";,", &save); s; s = strtok_r(NULL, ";,", &save)) {
        char item[256];
        snprintf(item, sizeof item, "%s", s);
        const char *err = "";
        plan_t p;
        if (C.nplan >= MAX_PLAN) {
            fprintf(stderr, "ftla: FTLA_INJECT: more than %d faults; '%s' ignored\n", MAX_PLAN, s);
            continue;
        }
        /* call defaults to 0 (parse_fault): the first protected call of the routine */
        if (parse_fault(item, &p, &err)) {
            fprintf(stderr,
                    "ftla: FTLA_INJECT: cannot use '%s': %s (syntax: "
                    "routine:region[:call=N|all][:step=p][:row=i][:col=j][:bit=b|:value=x]"
                    "); ignored\n",
                    s, err);
            continue;
        }
        C.plan[C.nplan++] = p;
    }
    free(copy);
}

static void cfg_init(void)
{
    const char *s = getenv("FTLA_PRELOAD");
    C.off = s && (!strcasecmp(s, "off") || !strcmp(s, "0"));
    s = getenv("FTLA_PRELOAD_SMALL");
    if (s && *s) {
        const double t = strtod(s, NULL);
        C.small = t > 0 ? t * t * t : 0.0;
    }
    s = getenv("FTLA_PRELOAD_DORMQR");
    C.dormqr_off = s && (!strcasecmp(s, "off") || !strcmp(s, "0"));
    s = getenv("FTLA_VERBOSE");
    C.verbose = s && *s ? atoi(s) : 0;
    if (C.verbose < 0) C.verbose = 0;
    s = getenv("FTLA_INJECT_SEED");
    C.seed = s && *s ? strtoull(s, NULL, 10) : 1;
    s = getenv("FTLA_INJECT");
    if (s && *s) parse_inject(s);
    atomic_store(&g_cfg_done, 1);
}

static inline void cfg_load(void) { pthread_once(&g_cfg_once, cfg_init); }

/* ---- guard, counters ---------------------------------------------------------------------- */

/* > 0 while this thread runs a call inside ftla (or hands a call to the real routine whole):
 * interposed entries reached then forward to the real routine. */
static _Thread_local int t_inside;

static atomic_llong S[FTLA_PRELOAD_NSTATS];
static atomic_int g_inflight, g_inner;
static atomic_llong g_ncall[NROUTINES]; /* protected calls so far, per routine (FTLA_INJECT) */

static inline void stat_add(int i, long long v)
{
    atomic_fetch_add_explicit(&S[i], v, memory_order_relaxed);
}

static void stat_max(int i, long long v)
{
    long long cur = atomic_load_explicit(&S[i], memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(&S[i], &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

/* ftla's own call forwarded to the real routine (re-entrance). g_inner counts threads, not
 * calls: a real routine that calls another interposed one (LAPACKE -> dgeqrf_ -> dgemm_) is
 * one thread inside. */
static _Thread_local int t_inner;

static inline void inner_begin(void)
{
    stat_add(FTLA_PRELOAD_INNER, 1);
    if (t_inner++ == 0)
        stat_max(FTLA_PRELOAD_INNER_MAX,
                 atomic_fetch_add_explicit(&g_inner, 1, memory_order_relaxed) + 1);
}

static inline void inner_end(void)
{
    if (--t_inner == 0) atomic_fetch_sub_explicit(&g_inner, 1, memory_order_relaxed);
}

/* ---- calls to the real routines ----------------------------------------------------------- */

static void real_dgemm(const char *ta, const char *tb, const f_int *m, const f_int *n,
                       const f_int *k, const double *alpha, const double *A, const f_int *lda,
                       const double *B, const f_int *ldb, const double *beta, double *C_,
                       const f_int *ldc, size_t la, size_t lb)
{
    real_load();
    if (R.dgemm) R.dgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C_, ldc, la, lb);
    else missing("dgemm_");
}

static void real_dgeqrf(const f_int *m, const f_int *n, double *A, const f_int *lda, double *tau,
                        double *work, const f_int *lwork, f_int *info)
{
    real_load();
    if (R.dgeqrf) {
        R.dgeqrf(m, n, A, lda, tau, work, lwork, info);
    } else {
        *info = FT_ERR_LAPACK;
        missing("dgeqrf_");
    }
}

/* The program's xerbla_ with the reference routine name (6 characters, blank padded) and the
 * argument position; the reference message when the process has none. */
static void call_xerbla(const char *name6, f_int info)
{
    real_load();
    if (R.xerbla) R.xerbla(name6, &info, strlen(name6));
    else
        fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", name6,
                info);
}

/* ---- the calling thread's context --------------------------------------------------------- */

/* ftla's default context of this thread (FTLA_DEVICE, FTLA_PROTECT, FTLA_TILE, FTLA_NB, ...),
 * with the library's own logging replaced by this file's (FTLA_VERBOSE >= 2 turns it back on
 * one level lower) and the injection seed. Configured when first seen on the thread (a
 * context destroyed at thread exit and made again is configured again). */
static ft_context_t *thread_ctx(void)
{
    static _Thread_local ft_context_t *t_configured;
    ft_context_t *c = ft_default_context();
    if (c && c != t_configured) {
        ft_policy_t p;
        if (ft_context_get_policy(c, &p) == FT_SUCCESS) {
            p.verbose = C.verbose >= 2 ? C.verbose - 1 : 0;
            ft_context_set_policy(c, &p);
        }
        ft_inject_seed(c, C.seed);
        t_configured = c;
    }
    return c;
}

/* FTLA_INJECT: the faults planned for call `idx` of `routine`, added to the context's plan for
 * its next call. Returns how many. */
static int plan_faults(ft_context_t *ctx, int routine, int64_t idx)
{
    int added = 0;
    for (int i = 0; i < C.nplan; i++) {
        const plan_t *p = &C.plan[i];
        if (p->routine != routine || (p->call >= 0 && p->call != idx)) continue;
        ft_fault_t f = p->f;
        f.call = -1; /* the context's next call */
        if (ft_inject_add(ctx, &f) == FT_SUCCESS) added++;
    }
    return added;
}

/* ---- reporting ---------------------------------------------------------------------------- */

static const char *region_name(int r)
{
    static const char *const n[] = {"C",        "A", "B",   "checksum",   "R",
                                    "trailing", "Q", "tau", "reflectors", "panel"};
    return r >= 0 && r < (int)(sizeof n / sizeof n[0]) ? n[r] : "?";
}

static const char *event_name(int k)
{
    static const char *const n[] = {"injected",      "corrected", "recomputed", "checksum error",
                                    "uncorrectable", "located",   "recovered"};
    return k >= 0 && k < (int)(sizeof n / sizeof n[0]) ? n[k] : "?";
}

static int found_fault(const ft_report_t *r, int st)
{
    return r->injected || r->detected || r->corrected || r->checksum_errors || r->uncorrectable ||
           r->recovered || (st != FT_SUCCESS && st != FT_ERR_UNCHECKED);
}

/* One line per call: always for a call whose fault was not corrected or that failed;
 * FTLA_VERBOSE=1 also for every call that found (or had injected) a fault, >= 2 for every
 * protected call. */
static int wants_log(int st, const ft_report_t *r)
{
    const int bad = st != FT_SUCCESS && st != FT_ERR_UNCHECKED;
    return bad || C.verbose >= 2 || (C.verbose == 1 && found_fault(r, st));
}

static void log_call(const char *who, int64_t idx, const char *shape, int st, const ft_report_t *r,
                     const char *note)
{
    const int bad = st != FT_SUCCESS && st != FT_ERR_UNCHECKED;
    if (!wants_log(st, r)) return;
    char line[1536], rs[512];
    int l = snprintf(line, sizeof line, "ftla: %s #%lld %s: %s", who, (long long)idx, shape,
                     ft_report_string(r, rs, sizeof rs));
    for (int e = 0; e < r->nevents && e < 6 && l > 0 && l < (int)sizeof line; e++) {
        const ft_event_t *ev = &r->events[e];
        l += snprintf(line + l, sizeof line - l, "; %s %s(%lld,%lld)", event_name(ev->kind),
                      region_name(ev->region), (long long)ev->row, (long long)ev->col);
        if (l < (int)sizeof line &&
            (ev->kind == FT_EVENT_INJECTED || ev->kind == FT_EVENT_CORRECTED))
            l += snprintf(line + l, sizeof line - l, " %.17g -> %.17g", ev->before, ev->after);
    }
    if (bad && l > 0 && l < (int)sizeof line)
        l += snprintf(line + l, sizeof line - l, "; %s", ft_strerror(st));
    if (note && l > 0 && l < (int)sizeof line) snprintf(line + l, sizeof line - l, "; %s", note);
    fprintf(stderr, "%s\n", line);
}

static void account(int st, const ft_report_t *r)
{
    stat_add(FTLA_PRELOAD_INJECTED, r->injected);
    stat_add(FTLA_PRELOAD_DETECTED, r->detected);
    stat_add(FTLA_PRELOAD_CORRECTED, r->corrected);
    if (st == FT_ERR_UNCORRECTABLE || st == FT_ERR_NOT_RECOVERED) stat_add(FTLA_PRELOAD_FAILED, 1);
    if (st == FT_ERR_UNCHECKED || r->unchecked) stat_add(FTLA_PRELOAD_UNCHECKED, 1);
    if (r->backend == FT_DEVICE_CUDA) stat_add(FTLA_PRELOAD_GPU, 1);
}

/* A status from which the caller's output is known to be untouched: ftla could not run the call
 * (memory, device, sizes), so the real routine runs it, unprotected. */
static int not_run(int st)
{
    return st == FT_ERR_ALLOC || st == FT_ERR_DEVICE_ALLOC || st == FT_ERR_NO_DEVICE ||
           st == FT_ERR_NOT_BUILT || st == FT_ERR_TOO_LARGE;
}

static void inflight_begin(void)
{
    stat_max(FTLA_PRELOAD_INFLIGHT_MAX,
             atomic_fetch_add_explicit(&g_inflight, 1, memory_order_relaxed) + 1);
}

static void inflight_end(void) { atomic_fetch_sub_explicit(&g_inflight, 1, memory_order_relaxed); }

/* Floating-point exception flags. ftla's checks scale by tiny factors and raise the underflow
 * (and x86 denormal-operand) flags where the plain routine raises none (a gfortran program prints
 * them at STOP): a protected call clears those two when the caller did not have them set before,
 * and leaves every other flag the call raised (invalid, division by zero, overflow, inexact:
 * what the result itself shows). On x86-64 the SSE control register holds them (ftla's double
 * arithmetic is SSE), read and written directly: fegetenv / fesetenv cost ~0.3 us a call. */
#if defined(__x86_64__)
#include <immintrin.h>
typedef unsigned fp_state_t;
static inline fp_state_t fp_save(void) { return _mm_getcsr(); }
static inline void fp_restore(fp_state_t before)
{
    const unsigned drop = (0x02u | 0x10u) & ~before; /* DE, UE not set before the call */
    const unsigned csr = _mm_getcsr();
    if (csr & drop) _mm_setcsr(csr & ~drop);
}
#else
typedef int fp_state_t;
static inline fp_state_t fp_save(void) { return fetestexcept(FE_UNDERFLOW); }
static inline void fp_restore(fp_state_t before)
{
    if (!before && fetestexcept(FE_UNDERFLOW)) feclearexcept(FE_UNDERFLOW);
}
#endif

/* ---- the protected calls ------------------------------------------------------------------ */

/* C := alpha op(A) op(B) + beta C through ft_dgemm; arguments valid, m, n, k > 0, alpha != 0. */
static void run_dgemm(const char *who, char ta, char tb, f_int m, f_int n, f_int k, double alpha,
                      const double *A, f_int lda, const double *B, f_int ldb, double beta,
                      double *Cm, f_int ldc)
{
    const fp_state_t fp = fp_save();
    t_inside++;
    ft_context_t *ctx = thread_ctx();
    const int64_t idx = atomic_fetch_add(&g_ncall[R_DGEMM], 1);
    int st = FT_ERR_ALLOC;
    ft_report_t rep;
    memset(&rep, 0, sizeof rep);
    if (ctx) {
        const int planned = C.nplan ? plan_faults(ctx, R_DGEMM, idx) : 0;
        inflight_begin();
        st = ft_dgemm_ex(ctx, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc, &rep);
        inflight_end();
        if (planned) ft_inject_clear(ctx);
    }
    stat_add(FTLA_PRELOAD_DGEMM, 1);
    account(st, &rep);
    const char *note = NULL;
    if (not_run(st) || !ctx) { /* C untouched (ftla.h): the real routine computes it */
        real_dgemm(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, Cm, &ldc, 1, 1);
        stat_add(FTLA_PRELOAD_FALLBACK, 1);
        note = "computed by the real dgemm, UNPROTECTED";
    }
    t_inside--;
    fp_restore(fp);
    if (st != FT_ERR_UNCHECKED && !wants_log(st, &rep)) return;
    char shape[96];
    snprintf(shape, sizeof shape, "%c%c m=%d n=%d k=%d", ta, tb, m, n, k);
    if (st == FT_ERR_UNCHECKED) {
        static atomic_int said;
        if (!atomic_exchange(&said, 1))
            fprintf(stderr,
                    "ftla: %s #%lld %s: part of the product overflows: not verified "
                    "(said once; FTLA_VERBOSE=1 counts them in the exit summary)\n",
                    who, (long long)idx, shape);
    }
    log_call(who, idx, shape, st, &rep, note);
}

/* LAPACK dgeqrf's work(1) on exit (IWS): n * nb when the blocked code runs, else n, with the nb
 * and crossover of the program's ilaenv — what the real routine leaves there. */
static double geqrf_iws(f_int m, f_int n)
{
    real_load();
    if (!R.ilaenv) return n;
    const f_int one = 1, three = 3, none = -1, k = m < n ? m : n;
    const f_int nb = R.ilaenv(&one, "DGEQRF", " ", &m, &n, &none, &none, 6, 1);
    if (nb > 1 && nb < k) {
        f_int nx = R.ilaenv(&three, "DGEQRF", " ", &m, &n, &none, &none, 6, 1);
        if (nx < 0) nx = 0;
        if (nx < k) return (double)n * nb;
    }
    return n;
}

/* A = QR through ft_dgeqrf; arguments valid, min(m, n) > 0. Returns 0 or an ftla status. */
static f_int run_dgeqrf(const char *who, f_int m, f_int n, double *A, f_int lda, double *tau)
{
    const fp_state_t fp = fp_save();
    t_inside++;
    ft_context_t *ctx = thread_ctx();
    const int64_t idx = atomic_fetch_add(&g_ncall[R_DGEQRF], 1);
    int st = FT_ERR_ALLOC;
    ft_report_t rep;
    memset(&rep, 0, sizeof rep);
    const char *note = NULL;
    double *save = NULL;
    /* ftla writes only work[0] (docs/api.md): one element, lwork = max(1, n) for the check */
    double w0 = 0.0;
    const f_int lw = n > 1 ? n : 1;
    f_int info = 0;
    if (ctx) {
        const int planned = C.nplan ? plan_faults(ctx, R_DGEQRF, idx) : 0;
        /* a demonstration with faults keeps the input, so that a fault ftla refuses to place
         * (a position outside its region at that step) leaves the call intact */
        if (planned && (save = malloc((size_t)m * n * sizeof(double))))
            for (f_int j = 0; j < n; j++)
                memcpy(save + (size_t)j * m, A + (size_t)j * lda, (size_t)m * sizeof(double));
        inflight_begin();
        st = ft_dgeqrf_ex(ctx, m, n, A, lda, tau, &w0, lw, &info, &rep);
        if (planned) ft_inject_clear(ctx);
        if (save && st == FT_ERR_INVALID_VALUE) {
            for (f_int j = 0; j < n; j++)
                memcpy(A + (size_t)j * lda, save + (size_t)j * m, (size_t)m * sizeof(double));
            log_call(who, idx, "(faults)", st, &rep,
                     "a planned fault could not be placed: "
                     "call run again without it");
            st = ft_dgeqrf_ex(ctx, m, n, A, lda, tau, &w0, lw, &info, &rep);
        }
        inflight_end();
    }
    stat_add(FTLA_PRELOAD_DGEQRF, 1);
    account(st, &rep);
    if (!ctx || (save && not_run(st))) { /* the input is intact: the real routine runs it */
        if (save)
            for (f_int j = 0; j < n; j++)
                memcpy(A + (size_t)j * lda, save + (size_t)j * m, (size_t)m * sizeof(double));
        double q = 0.0;
        const f_int query = -1;
        real_dgeqrf(&m, &n, A, &lda, tau, &q, &query, &info);
        f_int lq = q > lw ? (f_int)q : lw;
        double *w = malloc((size_t)lq * sizeof(double));
        if (w) {
            real_dgeqrf(&m, &n, A, &lda, tau, w, &lq, &info);
            free(w);
            st = info;
            stat_add(FTLA_PRELOAD_FALLBACK, 1);
            note = "computed by the real dgeqrf, UNPROTECTED";
        }
    }
    free(save);
    t_inside--;
    fp_restore(fp);
    if (st != FT_ERR_UNCHECKED && !wants_log(st, &rep)) return st;
    char shape[64];
    snprintf(shape, sizeof shape, "m=%d n=%d", m, n);
    if (st == FT_ERR_UNCHECKED) {
        static atomic_int said;
        if (!atomic_exchange(&said, 1))
            fprintf(stderr,
                    "ftla: %s #%lld %s: part of the factorization could not be verified "
                    "(its checksums overflow; said once)\n",
                    who, (long long)idx, shape);
        st = FT_SUCCESS; /* the computed factorization, as LAPACK's */
    }
    log_call(who, idx, shape, st, &rep, note);
    return st;
}

static inline int upc(char c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; }
static inline f_int imax1(f_int a) { return a > 1 ? a : 1; }

/* ---- dormqr_: op(Q) C or C op(Q) with a checksum column / row (preload_ormqr.h) ----------- */

static void real_dormqr(const char *side, const char *trans, const f_int *m, const f_int *n,
                        const f_int *k, double *A, const f_int *lda, const double *tau,
                        double *Cm, const f_int *ldc, double *work, const f_int *lwork,
                        f_int *info)
{
    real_load();
    if (R.dormqr) {
        R.dormqr(side, trans, m, n, k, A, lda, tau, Cm, ldc, work, lwork, info, 1, 1);
    } else {
        *info = FT_ERR_LAPACK;
        missing("dormqr_");
    }
}

/* The real routine's workspace answer (its work(1) for a query: nw nb + the T block). */
static f_int ormqr_lwkopt(char side, char trans, f_int m, f_int n, f_int k, double *A, f_int lda,
                          const double *tau, double *Cm, f_int ldc)
{
    double q = 0.0;
    const f_int query = -1;
    f_int info = 0;
    real_dormqr(&side, &trans, &m, &n, &k, A, &lda, tau, Cm, &ldc, &q, &query, &info);
    return info == 0 && q >= 1.0 && q < 2e9 ? (f_int)q : 0;
}

/* FTLA_INJECT for dormqr: a fault in the working copy (region C: the data; checksum: the
 * checksum column / row) or in the caller's reflectors (region reflectors: A below the
 * diagonal; tau), applied after the real routine's (step+1)-th inner dgemm_ (default: the
 * first), or when it returns if it made fewer. The position is drawn from the seed when not
 * given. */
typedef struct {
    ft_fault_t f;
    int64_t inner;    /* inner dgemm_ calls seen so far */
    double *X;        /* where: W, A or tau */
    int64_t ld, row, col;
    int applied;
    ft_event_t ev;
} ormqr_fault_t;
static _Thread_local ormqr_fault_t *t_ofault;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int64_t pick(int64_t given, int64_t lo, int64_t hi, uint64_t *rng)
{
    if (given >= 0) return given;
    return hi > lo ? lo + (int64_t)(splitmix(rng) % (uint64_t)(hi - lo)) : lo;
}

/* Place planned fault p for call idx: 0, or -1 when its position lies outside its region. */
static int ormqr_place(ormqr_fault_t *o, const ft_fault_t *p, int64_t idx, int left, f_int m,
                       f_int n, f_int k, double *A, f_int lda, double *tau, double *W)
{
    memset(o, 0, sizeof *o);
    o->f = *p;
    uint64_t rng = C.seed * 0x2545F4914F6CDD1Dull + (uint64_t)idx;
    const int64_t ldw = left ? m : m + 1, nq = left ? m : n;
    switch (p->region) {
    case FT_REGION_C:
        o->X = W, o->ld = ldw;
        o->row = pick(p->row, 0, m, &rng), o->col = pick(p->col, 0, n, &rng);
        return o->row < m && o->col < n ? 0 : -1;
    case FT_REGION_CHECKSUM:
        o->X = W, o->ld = ldw;
        o->row = left ? pick(p->row, 0, m, &rng) : m;
        o->col = left ? n : pick(p->col, 0, n, &rng);
        return o->row <= m && o->col <= n ? 0 : -1;
    case FT_REGION_REFLECTORS: /* strictly below the diagonal of the first k columns */
        o->X = A, o->ld = lda;
        o->col = pick(p->col, 0, k < nq ? k : nq - 1, &rng);
        o->row = pick(p->row, o->col + 1, nq, &rng);
        return o->col < k && o->row > o->col && o->row < nq ? 0 : -1;
    case FT_REGION_TAU:
        o->X = tau, o->ld = 1, o->row = pick(p->row, 0, k, &rng), o->col = 0;
        return o->row < k ? 0 : -1;
    default:
        return -1;
    }
}

static void ormqr_apply(ormqr_fault_t *o)
{
    double *x = o->X + o->row + o->col * o->ld;
    const double before = *x;
    double after;
    if (o->f.bit >= 0) {
        uint64_t b;
        memcpy(&b, x, sizeof b);
        b ^= 1ull << o->f.bit;
        memcpy(&after, &b, sizeof b);
    } else {
        after = before + o->f.value;
    }
    *x = after;
    o->applied = 1;
    o->ev = (ft_event_t){FT_EVENT_INJECTED, o->f.region, o->row, o->col, o->inner, before, after};
}

/* Called after every inner dgemm_ of this thread while a dormqr fault is pending. */
static void ormqr_fault_tick(void)
{
    ormqr_fault_t *o = t_ofault;
    const int64_t step = o->f.step >= 0 ? o->f.step : 0;
    if (!o->applied && o->inner++ == step) ormqr_apply(o);
}

/* Digests of the reflectors the call reads: column j of A below the diagonal (nq - j - 1
 * entries), j < k, on the shared host team (core/team.h). */
typedef struct {
    const double *A;
    int64_t lda, nq, k;
    uint64_t *out;
} refl_digest_t;

static void refl_digest_part(void *p, int t, int nt)
{
    const refl_digest_t *a = p;
    for (int64_t j = a->k * t / nt; j < a->k * (t + 1) / nt; j++)
        ft_digest_ref(a->nq - j - 1, 1, a->A + j + 1 + j * a->lda, a->lda, a->out + j);
}

static void refl_digest(const double *A, f_int lda, f_int nq, f_int k, uint64_t *out)
{
    refl_digest_t a = {A, lda, nq, k, out};
    ft_team_par_dyn(refl_digest_part, &a, (long long)nq * k);
}

static void report_event(ft_report_t *r, ft_event_t ev)
{
    if (r->nevents < FT_REPORT_MAX_EVENTS) r->events[r->nevents++] = ev;
}

/* op(Q) C (side L) or C op(Q) (side R) through the real dormqr on a working copy with a checksum
 * column / row; arguments valid, m, n, k > 0. Returns 0 or an ftla status; the result is in C.
 * work / lwork: the caller's, used only when the call cannot be protected (no memory). */
static f_int run_dormqr(char side, char trans, f_int m, f_int n, f_int k, double *A, f_int lda,
                        const double *tau, double *Cm, f_int ldc, double *work, const f_int *lwork)
{
    const fp_state_t fp = fp_save();
    const double t0 = ft_wtime();
    t_inside++;
    ft_context_t *ctx = thread_ctx();
    const int64_t idx = atomic_fetch_add(&g_ncall[R_DORMQR], 1);
    const int left = upc(side) == 'L';
    const f_int nq = left ? m : n, mw = left ? m : m + 1, nw = left ? n + 1 : n, ldw = mw;
    ft_policy_t pol;
    const int have_pol = ctx && ft_context_get_policy(ctx, &pol) == FT_SUCCESS;
    if (have_pol && pol.protect == FT_PROTECT_OFF) { /* FTLA_PROTECT=0: the plain routine */
        f_int info = 0;
        real_dormqr(&side, &trans, &m, &n, &k, A, &lda, tau, Cm, &ldc, work, lwork, &info);
        stat_add(FTLA_PRELOAD_PASSED, 1);
        t_inside--;
        fp_restore(fp);
        return info;
    }
    const int digests = !(have_pol && pol.operand_check < 0);
    ft_report_t rep;
    memset(&rep, 0, sizeof rep);
    rep.backend = FT_DEVICE_CPU;
    int st = FT_SUCCESS;
    const char *note = NULL;
    f_int lw = ormqr_lwkopt(side, trans, mw, nw, k, A, lda, tau, Cm, ldw);
    if (lw < (left ? nw : mw)) lw = left ? nw : mw;
    const size_t nW = (size_t)ldw * nw, nacc = (size_t)m;
    double *W = malloc((nW + nacc + (size_t)lw + 2 * (size_t)k) * sizeof(double));
    uint64_t *dig = W ? malloc(2 * (size_t)k * sizeof(uint64_t)) : NULL;
    if (!dig) { /* no memory: the real routine, unprotected, on the caller's arguments */
        free(W);
        f_int info = 0;
        real_dormqr(&side, &trans, &m, &n, &k, A, &lda, tau, Cm, &ldc, work, lwork, &info);
        stat_add(FTLA_PRELOAD_DORMQR, 1);
        stat_add(FTLA_PRELOAD_FALLBACK, 1);
        t_inside--;
        fp_restore(fp);
        log_call("dormqr_", idx, "(no memory)", FT_ERR_ALLOC, &rep,
                 "computed by the real dormqr, UNPROTECTED");
        return info;
    }
    double *acc = W + nW, *wk = acc + nacc, *tau0 = wk + lw;
    /* the reflectors the call reads (A below the diagonal, first k columns; tau): their digests
     * now and after the call, as ft_dgemm's operand check */
    if (digests) {
        refl_digest(A, lda, nq, k, dig);
        memcpy(tau0, tau, (size_t)k * sizeof(double));
    }
    /* FTLA_INJECT: the first fault planned for this call */
    ormqr_fault_t of;
    int planned = 0;
    for (int i = 0; i < C.nplan && !planned; i++) {
        const plan_t *p = &C.plan[i];
        if (p->routine != R_DORMQR || (p->call >= 0 && p->call != idx)) continue;
        if (ormqr_place(&of, &p->f, idx, left, m, n, k, A, lda, (double *)tau, W)) {
            if (C.verbose >= 1)
                fprintf(stderr,
                        "ftla: dormqr_ #%lld: a planned fault lies outside its region "
                        "(%s(%lld,%lld)): not injected\n",
                        (long long)idx, region_name(p->f.region), (long long)p->f.row,
                        (long long)p->f.col);
            continue;
        }
        planned = 1;
    }
    const double w = ormqr_weight(left ? n : m);
    double t_real = 0.0, thr = 0.0;
    int64_t first = -1, first0 = -1;
    for (int attempt = 0; attempt < 2; attempt++) {
        const double fro = ormqr_fill(left, m, n, Cm, ldc, W, w);
        thr = ormqr_tau(left, m, n, k, fro, w);
        if (planned && attempt == 0) t_ofault = &of;
        f_int info = 0;
        const double tr = ft_wtime();
        inner_begin();
        real_dormqr(&side, &trans, &mw, &nw, &k, A, &lda, tau, W, &ldw, wk, &lw, &info);
        inner_end();
        t_real = ft_wtime() - tr;
        if (t_ofault) {
            if (!of.applied) ormqr_apply(&of);
            t_ofault = NULL;
            rep.injected++;
            report_event(&rep, of.ev);
        }
        if (info != 0) {
            st = FT_ERR_LAPACK;
            break;
        }
        if (!isfinite(thr)) { /* Inf or NaN in C, or its norm overflows: not checkable */
            rep.unchecked++;
            st = FT_ERR_UNCHECKED;
            break;
        }
        int nonfinite = 0;
        const int64_t bad = ormqr_check(left, m, n, W, w, thr, acc, &first, &nonfinite);
        rep.checks += left ? m : n;
        if (!bad) {
            if (attempt) { /* the first result was wrong, the recomputed one passes */
                rep.corrected++;
                rep.recomputed++;
                report_event(&rep, (ft_event_t){FT_EVENT_RECOMPUTED, FT_REGION_C,
                                                left ? first0 : -1, left ? -1 : first0, 0, 0, 0});
            }
            break;
        }
        if (attempt == 0) {
            rep.detected++; /* one error (it spreads to many rows as Q goes on) */
            first0 = first; /* for the event of the recomputation */
            continue;
        }
        if (nonfinite) { /* twice the same overflow: the data's, as the plain routine's */
            rep.unchecked++;
            st = FT_ERR_UNCHECKED;
        } else {
            rep.uncorrectable++;
            st = FT_ERR_UNCORRECTABLE;
            report_event(&rep, (ft_event_t){FT_EVENT_UNCORRECTABLE, FT_REGION_C,
                                            left ? first : -1, left ? -1 : first, 0, 0, 0});
        }
    }
    if (digests && st != FT_ERR_LAPACK) {
        refl_digest(A, lda, nq, k, dig + k);
        for (f_int j = 0; j < k; j++) {
            const int dv = dig[j] != dig[k + j];
            const int dt = memcmp(&tau0[j], &tau[j], sizeof(double)) != 0;
            if (!dv && !dt) continue;
            rep.detected++;
            rep.uncorrectable++;
            st = FT_ERR_UNCORRECTABLE;
            report_event(&rep, (ft_event_t){FT_EVENT_UNCORRECTABLE,
                                            dv ? FT_REGION_REFLECTORS : FT_REGION_TAU, -1, j, 0,
                                            0, 0});
        }
    }
    if (st != FT_ERR_LAPACK) ormqr_copy_back(left, m, n, W, Cm, ldc);
    free(dig);
    free(W);
    stat_add(FTLA_PRELOAD_DORMQR, 1);
    rep.status = st;
    rep.time_total = ft_wtime() - t0;
    rep.time_protect = rep.time_total - t_real;
    account(st, &rep);
    t_inside--;
    fp_restore(fp);
    if (st == FT_ERR_UNCHECKED) {
        static atomic_int said;
        if (!atomic_exchange(&said, 1))
            fprintf(stderr,
                    "ftla: dormqr_ #%lld %c%c m=%d n=%d k=%d: C holds Inf or NaN or its norm "
                    "overflows: not verified (said once)\n",
                    (long long)idx, side, trans, m, n, k);
        st = FT_SUCCESS; /* the computed result, as LAPACK's */
    }
    if (st == FT_ERR_LAPACK) note = "the real dormqr failed on the working copy; C untouched";
    if (!wants_log(st, &rep)) return st;
    char shape[96];
    snprintf(shape, sizeof shape, "%c%c m=%d n=%d k=%d", side, trans, m, n, k);
    log_call("dormqr_", idx, shape, st, &rep, note);
    return st;
}

/* ---- argument checks, in the reference routines' order ------------------------------------ */


/* Reference DGEMM: TRANSA(1) TRANSB(2) M(3) N(4) K(5) LDA(8) LDB(10) LDC(13). */
static f_int dgemm_info(char ta, char tb, f_int m, f_int n, f_int k, f_int lda, f_int ldb,
                        f_int ldc)
{
    const int nota = upc(ta) == 'N', notb = upc(tb) == 'N';
    if (!nota && upc(ta) != 'C' && upc(ta) != 'T') return 1;
    if (!notb && upc(tb) != 'C' && upc(tb) != 'T') return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < imax1(nota ? m : k)) return 8;
    if (ldb < imax1(notb ? k : n)) return 10;
    if (ldc < imax1(m)) return 13;
    return 0;
}

/* Reference DGEQRF: M(1) N(2) LDA(4) LWORK(7); LWORK = -1 is a query. */
static f_int dgeqrf_info(f_int m, f_int n, f_int lda, f_int lwork)
{
    if (m < 0) return 1;
    if (n < 0) return 2;
    if (lda < imax1(m)) return 4;
    if (lwork != -1 && (lwork <= 0 || (m > 0 && lwork < imax1(n)))) return 7;
    return 0;
}

/* Reference DORMQR: SIDE(1) TRANS(2) M(3) N(4) K(5: 0 <= k <= nq) LDA(7) LDC(10) LWORK(12:
 * lwork < max(1, nw) unless -1; nw = n for side L, m for R). */
static f_int dormqr_info(char side, char trans, f_int m, f_int n, f_int k, f_int lda, f_int ldc,
                         f_int lwork)
{
    const int left = upc(side) == 'L';
    const f_int nq = left ? m : n, nw = imax1(left ? n : m);
    if (!left && upc(side) != 'R') return 1;
    if (upc(trans) != 'N' && upc(trans) != 'T') return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0 || k > nq) return 5;
    if (lda < imax1(nq)) return 7;
    if (ldc < imax1(m)) return 10;
    if (lwork < nw && lwork != -1) return 12;
    return 0;
}

/* ---- the interposed symbols --------------------------------------------------------------- */

/* FTLA_PRELOAD_SMALL: a call with work to protect but less than a t^3 product (flops / 2:
 * m n k for dgemm, m n min(m, n) for dgeqrf) runs the real routine, unprotected, counted. */
static int small_call(double work)
{
    if (!(C.small > 0 && work < C.small)) return 0;
    stat_add(FTLA_PRELOAD_UNPROTECTED, 1);
    return 1;
}

EXPORT void dgemm_(const char *transa, const char *transb, const f_int *m, const f_int *n,
                   const f_int *k, const double *alpha, const double *A, const f_int *lda,
                   const double *B, const f_int *ldb, const double *beta, double *Cm,
                   const f_int *ldc, size_t la, size_t lb)
{
    if (t_inside) {
        inner_begin();
        real_dgemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc, la, lb);
        if (t_ofault) ormqr_fault_tick();
        inner_end();
        return;
    }
    cfg_load();
    const f_int info = OFF ? 0 : dgemm_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info) {
        call_xerbla("DGEMM ", info);
        return;
    }
    if (!OFF && (*m == 0 || *n == 0 || ((*alpha == 0.0 || *k == 0) && *beta == 1.0))) return;
    /* C := beta C (no product to protect), or a small product (FTLA_PRELOAD_SMALL) */
    if (OFF || *alpha == 0.0 || *k == 0 || small_call((double)*m * *n * *k)) {
        stat_add(FTLA_PRELOAD_PASSED, 1);
        t_inside++;
        real_dgemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc, la, lb);
        t_inside--;
        return;
    }
    run_dgemm("dgemm_", *transa, *transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, Cm, *ldc);
}

static int cblas_trans_ok(int t) { return t == CBLAS_N || t == CBLAS_T || t == CBLAS_C; }

EXPORT void cblas_dgemm(int order, int ta, int tb, f_int m, f_int n, f_int k, double alpha,
                        const double *A, f_int lda, const double *B, f_int ldb, double beta,
                        double *Cm, f_int ldc)
{
    real_load();
    if (t_inside) {
        inner_begin();
        if (R.cblas_dgemm)
            R.cblas_dgemm(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc);
        else missing("cblas_dgemm");
        inner_end();
        return;
    }
    cfg_load();
    /* the column-major view: row-major C = op(A) op(B) is C^T = op(B)^T op(A)^T */
    const int col = order == CBLAS_COL;
    const f_int rows_a = (ta == CBLAS_N) == col ? m : k, rows_b = (tb == CBLAS_N) == col ? k : n;
    const int valid = (col || order == CBLAS_ROW) && cblas_trans_ok(ta) && cblas_trans_ok(tb) &&
                      m >= 0 && n >= 0 && k >= 0 && lda >= imax1(rows_a) && ldb >= imax1(rows_b) &&
                      ldc >= imax1(col ? m : n);
    if (valid && !OFF && (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0))) return;
    if (!valid || OFF || alpha == 0.0 || k == 0 || small_call((double)m * n * k)) {
        /* errors are the CBLAS implementation's own (cblas_xerbla or xerbla_, its numbering):
         * the real routine, whole */
        stat_add(FTLA_PRELOAD_PASSED, 1);
        t_inside++;
        if (R.cblas_dgemm)
            R.cblas_dgemm(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc);
        else missing("cblas_dgemm");
        t_inside--;
        return;
    }
    const char cta = ta == CBLAS_N ? 'N' : 'T', ctb = tb == CBLAS_N ? 'N' : 'T';
    if (col) run_dgemm("cblas_dgemm", cta, ctb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc);
    else run_dgemm("cblas_dgemm", ctb, cta, n, m, k, alpha, B, ldb, A, lda, beta, Cm, ldc);
}

EXPORT void dgeqrf_(const f_int *m, const f_int *n, double *A, const f_int *lda, double *tau,
                    double *work, const f_int *lwork, f_int *info)
{
    if (t_inside) {
        inner_begin();
        real_dgeqrf(m, n, A, lda, tau, work, lwork, info);
        inner_end();
        return;
    }
    cfg_load();
    const f_int i = OFF ? 0 : dgeqrf_info(*m, *n, *lda, *lwork);
    if (i) {
        *info = -i;
        call_xerbla("DGEQRF", i);
        return;
    }
    if (*lwork == -1 || OFF) { /* the query: the real routine's answer (its ilaenv) */
        stat_add(FTLA_PRELOAD_PASSED, 1);
        t_inside++;
        real_dgeqrf(m, n, A, lda, tau, work, lwork, info);
        t_inside--;
        return;
    }
    *info = 0;
    if (*m == 0 || *n == 0) { /* quick return, as LAPACK */
        work[0] = 1.0;
        return;
    }
    if (small_call((double)*m * *n * (*m < *n ? *m : *n))) {
        stat_add(FTLA_PRELOAD_PASSED, 1);
        t_inside++;
        real_dgeqrf(m, n, A, lda, tau, work, lwork, info);
        t_inside--;
        return;
    }
    *info = run_dgeqrf("dgeqrf_", *m, *n, A, *lda, tau);
    if (*info == 0) work[0] = geqrf_iws(*m, *n);
}

EXPORT void dormqr_(const char *side, const char *trans, const f_int *m, const f_int *n,
                    const f_int *k, double *A, const f_int *lda, const double *tau, double *Cm,
                    const f_int *ldc, double *work, const f_int *lwork, f_int *info, size_t ls,
                    size_t lt)
{
    (void)ls, (void)lt;
    if (t_inside) {
        inner_begin();
        real_dormqr(side, trans, m, n, k, A, lda, tau, Cm, ldc, work, lwork, info);
        inner_end();
        return;
    }
    cfg_load();
    if (OFF || C.dormqr_off) {
        /* whole to the real routine; with FTLA_PRELOAD_DORMQR=off its dgemm_ calls come back
         * here and are protected one by one */
        stat_add(FTLA_PRELOAD_PASSED, 1);
        real_dormqr(side, trans, m, n, k, A, lda, tau, Cm, ldc, work, lwork, info);
        return;
    }
    const f_int i = dormqr_info(*side, *trans, *m, *n, *k, *lda, *ldc, *lwork);
    if (i) {
        *info = -i;
        call_xerbla("DORMQR", i);
        return;
    }
    if (*lwork == -1 || small_call((double)*m * *n * *k)) { /* the query; small calls */
        stat_add(FTLA_PRELOAD_PASSED, 1);
        t_inside++;
        real_dormqr(side, trans, m, n, k, A, lda, tau, Cm, ldc, work, lwork, info);
        t_inside--;
        return;
    }
    *info = 0;
    if (*m == 0 || *n == 0 || *k == 0) { /* quick return, as LAPACK */
        work[0] = 1.0;
        return;
    }
    *info = run_dormqr(*side, *trans, *m, *n, *k, A, *lda, tau, Cm, *ldc, work, lwork);
    if (*info == 0) {
        t_inside++;
        const f_int q = ormqr_lwkopt(*side, *trans, *m, *n, *k, A, *lda, tau, Cm, *ldc);
        t_inside--;
        if (q > 0) work[0] = q;
    }
}

EXPORT f_int LAPACKE_dgeqrf_work(int layout, f_int m, f_int n, double *a, f_int lda, double *tau,
                                 double *work, f_int lwork)
{
    real_load();
    if (t_inside) {
        inner_begin();
        f_int r = R.lapacke_dgeqrf_work
                      ? R.lapacke_dgeqrf_work(layout, m, n, a, lda, tau, work, lwork)
                      : (missing("LAPACKE_dgeqrf_work"), FT_ERR_LAPACK);
        inner_end();
        return r;
    }
    cfg_load();
    if (layout != CBLAS_COL || OFF) {
        /* row-major (the real LAPACKE transposes and calls dgeqrf_, which comes back here
         * protected) or an invalid layout (its own error) */
        stat_add(FTLA_PRELOAD_PASSED, 1);
        return R.lapacke_dgeqrf_work ? R.lapacke_dgeqrf_work(layout, m, n, a, lda, tau, work, lwork)
                                     : (missing("LAPACKE_dgeqrf_work"), FT_ERR_LAPACK);
    }
    /* column-major: LAPACK's dgeqrf with the argument numbers shifted by the layout */
    f_int info = 0;
    dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
    if (info < 0 && info > -1000) info -= 1;
    return info;
}

EXPORT f_int LAPACKE_dgeqrf(int layout, f_int m, f_int n, double *a, f_int lda, double *tau)
{
    real_load();
    if (t_inside) {
        inner_begin();
        f_int r = R.lapacke_dgeqrf ? R.lapacke_dgeqrf(layout, m, n, a, lda, tau)
                                   : (missing("LAPACKE_dgeqrf"), FT_ERR_LAPACK);
        inner_end();
        return r;
    }
    cfg_load();
    int pass = layout != CBLAS_COL || OFF || m < 0 || n < 0 || lda < imax1(m) ||
               (m > 0 && n > 0 && C.small > 0 && (double)m * n * (m < n ? m : n) < C.small);
    if (!pass && (!R.nancheck || R.nancheck())) /* LAPACKE's NaN check of A: its -4 */
        for (f_int j = 0; j < n && !pass; j++)
            for (f_int i = 0; i < m; i++)
                if (isnan(a[i + (size_t)j * lda])) {
                    pass = 1;
                    break;
                }
    if (pass) {
        /* the real LAPACKE, whole: its checks, its messages; a row-major call reaches dgeqrf_
         * here again, protected */
        stat_add(FTLA_PRELOAD_PASSED, 1);
        return R.lapacke_dgeqrf ? R.lapacke_dgeqrf(layout, m, n, a, lda, tau)
                                : (missing("LAPACKE_dgeqrf"), FT_ERR_LAPACK);
    }
    if (m == 0 || n == 0) return 0;
    return run_dgeqrf("LAPACKE_dgeqrf", m, n, a, lda, tau);
}

/* ---- diagnostics (preload.h) -------------------------------------------------------------- */

EXPORT int ftla_preload_stats(int64_t *out, int n)
{
    for (int i = 0; out && i < n && i < FTLA_PRELOAD_NSTATS; i++)
        out[i] = atomic_load_explicit(&S[i], memory_order_relaxed);
    return FTLA_PRELOAD_NSTATS;
}

EXPORT int ftla_preload_pause(int paused)
{
    return atomic_exchange(&g_paused, paused != 0);
}

EXPORT void *ftla_preload_real(const char *name)
{
    real_load();
    if (!name) return NULL;
    if (!strcmp(name, "dgemm_")) return *(void **)&R.dgemm;
    if (!strcmp(name, "dgeqrf_")) return *(void **)&R.dgeqrf;
    if (!strcmp(name, "dormqr_")) return *(void **)&R.dormqr;
    if (!strcmp(name, "cblas_dgemm")) return *(void **)&R.cblas_dgemm;
    if (!strcmp(name, "LAPACKE_dgeqrf")) return *(void **)&R.lapacke_dgeqrf;
    if (!strcmp(name, "LAPACKE_dgeqrf_work")) return *(void **)&R.lapacke_dgeqrf_work;
    if (!strcmp(name, "xerbla_")) return *(void **)&R.xerbla;
    if (!strcmp(name, "ilaenv_")) return *(void **)&R.ilaenv;
    return NULL;
}

static const char *object_of(void *p)
{
    Dl_info d;
    return p && dladdr(p, &d) && d.dli_fname ? d.dli_fname : "not found";
}

/* FTLA_VERBOSE >= 1: what the process's calls did, at exit, and where the real routines are. */
__attribute__((destructor)) static void preload_summary(void)
{
    if (!atomic_load(&g_cfg_done) || C.verbose < 1) return;
    long long s[FTLA_PRELOAD_NSTATS];
    for (int i = 0; i < FTLA_PRELOAD_NSTATS; i++) s[i] = atomic_load(&S[i]);
    real_load();
    fprintf(stderr,
            "ftla: preload summary: protected %s %lld, %s %lld (on the GPU %lld), %s %lld; passed to the "
            "real library %lld; faults injected %lld, detected %lld, corrected %lld; calls "
            "failed %lld, unchecked %lld, unprotected fallbacks %lld, unprotected small calls %lld "
            "(FTLA_PRELOAD_SMALL=%.0f); real dgemm_ from %s, dgeqrf_ from %s, dormqr_ from %s\n",
            routine_name[R_DGEMM], s[FTLA_PRELOAD_DGEMM], routine_name[R_DGEQRF],
            s[FTLA_PRELOAD_DGEQRF], s[FTLA_PRELOAD_GPU], routine_name[R_DORMQR],
            s[FTLA_PRELOAD_DORMQR], s[FTLA_PRELOAD_PASSED],
            s[FTLA_PRELOAD_INJECTED], s[FTLA_PRELOAD_DETECTED], s[FTLA_PRELOAD_CORRECTED],
            s[FTLA_PRELOAD_FAILED], s[FTLA_PRELOAD_UNCHECKED], s[FTLA_PRELOAD_FALLBACK],
            s[FTLA_PRELOAD_UNPROTECTED], cbrt(C.small), object_of(*(void **)&R.dgemm),
            object_of(*(void **)&R.dgeqrf), object_of(*(void **)&R.dormqr));
}
