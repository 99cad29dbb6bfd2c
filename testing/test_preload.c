/*
 * test_preload.c — libftla_preload.so (docs/interposer.md) against the real library, in a plain
 * program: it links only BLAS / LAPACK / LAPACKE (not ftla) and is run with
 * LD_PRELOAD=libftla_preload.so (CTest sets it). The reference results come from the routines
 * the interposer forwards to (ftla_preload_real), called on identical copies of the data.
 *
 *   test_preload [all|inject|dormqr_inject|off|small|gpu]
 *
 * all (FTLA_DEVICE=cpu):
 *   1. the interposer is loaded, and forwards each symbol to a real routine other than itself;
 *   2. dgemm_: every transpose letter (N n T t C c), alpha in {0, 1, -0.7}, beta in {0, 1, 0.5},
 *      m, n, k in {0, 1, 2, 7, 33}, ld > rows: C within (k+2) eps (|alpha||A||B| + |beta||C|)
 *      of the real result element by element, padding rows of C, A and B untouched, quick
 *      returns leave C bitwise untouched, and the calls with a product (and only those) went
 *      through ftla; NaN in C with beta = 0, NaN in A and B with alpha = 0, NaN in A; larger
 *      products (300 x 200 x 250, 513 x 257 x 129) in every transpose;
 *   3. dgemm_ argument errors: each position 1 2 3 4 5 8 10 13 and the order between several
 *      bad arguments, through the program's xerbla_ (this file's, which records name, length
 *      and position) exactly once, C untouched, nothing computed by ftla;
 *   4. cblas_dgemm in both layouts and every transpose against the real cblas_dgemm (row-major
 *      calls protected too); invalid calls handled by the real one: same xerbla_ record,
 *      C untouched;
 *   5. dgeqrf_: shapes 1 x 1 ... 200 x 150, wide and tall, lda > m: info 0, the LAPACK dqrt01
 *      ratios ||A - QR||_1 / (max(m,n) ||A||_1 eps) and ||I - Q^T Q||_1 / (m eps) below 30
 *      (Q from LAPACKE_dorgqr), R's diagonal against the real routine's, work(1) exactly the real
 *      routine's, padding untouched; the workspace query (lwork = -1) answered exactly as the
 *      real routine, A untouched; quick returns (m = 0, n = 0, with the reference's lwork rule);
 *      each argument error (1 2 4 7) and their order;
 *   6. LAPACKE_dgeqrf and LAPACKE_dgeqrf_work: column- and row-major against the real ones
 *      (both protected), the query, the -i of invalid arguments (LAPACKE's numbering), the NaN
 *      check (-4);
 *   7. threads: 4 threads at once, each dgemm_, dgeqrf_ and dormqr_ on its own data, bitwise equal to the
 *      same calls made alone; no global lock: the probe library between the interposer and
 *      OpenBLAS (preload_probe.c) holds the first thread inside ftla's product until a second
 *      one is inside too (30 s at most), and the interposer's counters saw 2 threads inside
 *      protected calls and inside the real routines called by ftla at once;
 *   8. re-entrance: ftla's own BLAS/LAPACK calls reached the real library (the inner-call
 *      counter grows, the protected-call counters grow by exactly one per call); a dgemm_ made
 *      from inside this program's xerbla_ (called by an interposed dgemm_) is protected and
 *      right; dgemm_ calls made by the real LAPACK (LAPACKE_dorgqr) are protected.
 *   9. dormqr_ (a checksum column / row around the real routine): both sides and transposes, 10
 *      shapes (k = 0 ... nq), ld > rows, the minimal lwork: C within eps (k + nq) ||C||_F of the
 *      real routine's, padding, A and tau unchanged, work(1) the real routine's, its dgemm_
 *      calls not protected apart; C scaled 2^-1060 ... 2^1000 and graded columns without a
 *      false alarm; NaN in C reported unchecked; the query; each argument error and their order.
 * dormqr_inject (FTLA_INJECT with four dormqr faults, FTLA_VERBOSE=1): C, the checksum row, an
 *   additive fault: detected, recomputed, results as the real routine's; a reflector changed
 *   during the call: info < -1000 and the line.
 * inject (FTLA_INJECT="dgemm:C:row=3:col=5:bit=60;dgeqrf:R:step=1:row=2:col=40:bit=62;
 *         dgeqrf:trailing:call=1:step=1:bit=60", FTLA_VERBOSE=1): the faults are injected
 *   into unmodified calls, detected and corrected (results as the real routine's), and the
 *   interposer's stderr line names the injected and corrected element.
 * off (FTLA_PRELOAD=off): every call goes to the real routine, bitwise the same results, nothing
 *   through ftla.
 * small (FTLA_PRELOAD_SMALL=16): a dgemm_ / cblas_dgemm of less work than a 16^3 product and
 *   a dgeqrf_ / LAPACKE_dgeqrf with m n min(m,n) < 16^3 and a dormqr_ with m n k < 16^3 run
 *   the real routine (bitwise its result, counted as unprotected), larger ones through ftla.
 * gpu (FTLA_DEVICE=auto, CUDA builds, label gpu; exit 77 without /dev/nvidiactl): a large
 *   dgemm_ and dgeqrf_ run on the GPU and match the real results, a small dgemm_ stays on the CPU,
 *   rank-64 updates (below FT_AUTO_GPU_INTENSITY) too, a rank-512 update goes to the GPU.
 *
 * Output: one line per failed assertion, then `N passed, N failed`; exit 1 on any failure.
 */
#define _GNU_SOURCE
#include "interface/preload.h"

#include <cblas.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Fortran BLAS symbol as a plain C program declares it (gfortran: hidden lengths last). */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t la, size_t lb);

void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
             const double *A, const int *lda, const double *tau, double *C, const int *ldc, double *work,
             const int *lwork, int *info, size_t ls, size_t lt);

/* testing/preload_probe.c, linked before OpenBLAS: the real cblas_dgemm as the interposer sees it */
void ftla_probe_arm(int want, double seconds);
int ftla_probe_result(int *max);

typedef void (*dgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                         const double *, const double *, const int *, const double *, const int *,
                         const double *, double *, const int *, size_t, size_t);
typedef void (*dgeqrf_fn)(const int *, const int *, double *, const int *, double *, double *,
                          const int *, int *);
typedef void (*dormqr_fn)(const char *, const char *, const int *, const int *, const int *,
                          const double *, const int *, const double *, double *, const int *, double *,
                          const int *, int *, size_t, size_t);
typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                               const double *, int, double, double *, int);
typedef int (*lapacke_dgeqrf_fn)(int, int, int, double *, int, double *);
typedef int (*lapacke_dgeqrf_work_fn)(int, int, int, double *, int, double *, double *, int);

static dgemm_fn real_dgemm;
static dgeqrf_fn real_dgeqrf;
static dormqr_fn real_dormqr;
static cblas_dgemm_fn real_cblas_dgemm;
static lapacke_dgeqrf_fn real_lapacke_dgeqrf;
static lapacke_dgeqrf_work_fn real_lapacke_dgeqrf_work;
static ftla_preload_stats_fn stats_fn;

/* ---- assertions ----------------------------------------------------------------------------- */

static long g_pass, g_fail;
static long g_gemm_products, g_gemm_bitwise; /* dgemm_ cases with a product, bitwise equal */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_pass++;                                                                              \
        } else {                                                                                   \
            g_fail++;                                                                              \
            printf("FAILED %s:%d: (%s) ", __FILE__, __LINE__, #cond);                              \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
        }                                                                                          \
    } while (0)

static int finish(void)
{
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}

/* ---- data ----------------------------------------------------------------------------------- */

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static double urand(void) /* uniform in [-1, 1) */
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * 0x1.0p-52 - 1.0;
}

static const double POISON = -7777.25; /* padding rows: must never change */

static double *mat(int ld, int cols)
{
    size_t n = (size_t)(ld > 0 ? ld : 1) * (size_t)(cols > 0 ? cols : 1);
    double *p = malloc(n * sizeof(double));
    if (!p) {
        printf("out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) p[i] = POISON;
    return p;
}

static void fill(int rows, int cols, double *A, int ld)
{
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) A[i + (size_t)j * ld] = urand();
}

static size_t nel(int ld, int cols)
{
    return (size_t)(ld > 0 ? ld : 1) * (size_t)(cols > 0 ? cols : 1);
}

static double *dupm(const double *A, size_t n)
{
    double *p = malloc(n * sizeof(double));
    if (!p) exit(2);
    memcpy(p, A, n * sizeof(double));
    return p;
}

static int same(const double *a, const double *b, size_t n)
{
    return !memcmp(a, b, n * sizeof(double));
}

static int64_t stat(int i)
{
    int64_t s[FTLA_PRELOAD_NSTATS] = {0};
    stats_fn(s, FTLA_PRELOAD_NSTATS);
    return s[i];
}

static const double EPS = 0x1.0p-53;

static int notr(char t) { return t == 'N' || t == 'n'; }

/* max_ij |C1 - C2| / ((k + 2) eps (|alpha| |op(A)| |op(B)| + |beta| |C0|)_ij), 0 where both are
 * equal (NaN patterns must agree: Inf otherwise). */
static double gemm_err(char ta, char tb, int m, int n, int k, double alpha, const double *A,
                       int lda, const double *B, int ldb, double beta, const double *C0,
                       const double *C1, const double *C2, int ldc)
{
    double worst = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            const double x = C1[i + (size_t)j * ldc], y = C2[i + (size_t)j * ldc];
            if (isnan(x) || isnan(y)) {
                if (isnan(x) != isnan(y)) return INFINITY;
                continue;
            }
            if (x == y) continue;
            double s = fabs(beta * C0[i + (size_t)j * ldc]);
            for (int l = 0; l < k; l++) {
                const double a = notr(ta) ? A[i + (size_t)l * lda] : A[l + (size_t)i * lda];
                const double b = notr(tb) ? B[l + (size_t)j * ldb] : B[j + (size_t)l * ldb];
                s += fabs(alpha * a * b);
            }
            const double r = fabs(x - y) / ((k + 2) * EPS * s + 0x1.0p-1000);
            if (!(r <= worst)) worst = r;
        }
    return worst;
}

/* Padding rows [rows, ld) of every column equal to those of the original. */
static int pad_same(int rows, int cols, int ld, const double *X, const double *X0)
{
    for (int j = 0; j < cols; j++)
        for (int i = rows; i < ld; i++)
            if (memcmp(&X[i + (size_t)j * ld], &X0[i + (size_t)j * ld], sizeof(double))) return 0;
    return 1;
}

/* ---- this program's xerbla_: records what the interposer (or the real library) reports ------- */

static char g_xname[32];
static size_t g_xlen;
static int g_xinfo, g_xcalls;
static int g_xerbla_nested; /* case 8: run a protected dgemm_ from inside xerbla_ */
static double g_nested_err = -1.0;

static void nested_dgemm(void);

void xerbla_(const char *name, const int *info, size_t len)
{
    g_xcalls++;
    g_xlen = len;
    size_t l = len < sizeof g_xname - 1 ? len : sizeof g_xname - 1;
    memcpy(g_xname, name, l);
    g_xname[l] = '\0';
    g_xinfo = *info;
    if (g_xerbla_nested) nested_dgemm();
}

static void xreset(void)
{
    g_xcalls = 0, g_xinfo = 0, g_xlen = 0;
    g_xname[0] = '\0';
}

/* ---- 1. loaded, forwarding targets ------------------------------------------------------------ */

static int setup(void)
{
    *(void **)&stats_fn = dlsym(RTLD_DEFAULT, "ftla_preload_stats");
    ftla_preload_real_fn real = NULL;
    *(void **)&real = dlsym(RTLD_DEFAULT, "ftla_preload_real");
    CHECK(stats_fn && real, "libftla_preload.so is not loaded: run with "
                            "LD_PRELOAD=.../libftla_preload.so");
    if (!stats_fn || !real) return -1;
    *(void **)&real_dgemm = real("dgemm_");
    *(void **)&real_dgeqrf = real("dgeqrf_");
    *(void **)&real_dormqr = real("dormqr_");
    *(void **)&real_cblas_dgemm = real("cblas_dgemm");
    *(void **)&real_lapacke_dgeqrf = real("LAPACKE_dgeqrf");
    *(void **)&real_lapacke_dgeqrf_work = real("LAPACKE_dgeqrf_work");
    const char *names[] = {"dgemm_", "dgeqrf_", "cblas_dgemm", "LAPACKE_dgeqrf",
                           "LAPACKE_dgeqrf_work", "dormqr_"};
    for (int i = 0; i < 6; i++) {
        void *r = real(names[i]), *seen = dlsym(RTLD_DEFAULT, names[i]);
        Dl_info di, ds;
        const int ok_r = r && dladdr(r, &di), ok_s = seen && dladdr(seen, &ds);
        CHECK(r != NULL && seen != NULL && r != seen, "%s: real %p, seen by the program %p",
              names[i], r, seen);
        CHECK(ok_s && strstr(ds.dli_fname, "libftla_preload"),
              "%s: the program's symbol comes from %s, not the interposer", names[i],
              ok_s ? ds.dli_fname : "?");
        CHECK(ok_r && !strstr(di.dli_fname, "libftla_preload"), "%s: forwarded to %s", names[i],
              ok_r ? di.dli_fname : "?");
        if (ok_r) printf("%% %s -> %s\n", names[i], di.dli_fname);
    }
    CHECK(real("xerbla_") == dlsym(RTLD_DEFAULT, "xerbla_") && real("xerbla_") == (void *)xerbla_,
          "the interposer does not report through this program's xerbla_");
    return real_dgemm && real_dgeqrf && real_dormqr && real_cblas_dgemm && real_lapacke_dgeqrf &&
                   real_lapacke_dgeqrf_work
               ? 0
               : -1;
}

/* ---- 2. dgemm_ semantics ---------------------------------------------------------------------- */

/* One dgemm_ case through the interposer and the real routine; asserts and returns the error. */
static void gemm_case(char ta, char tb, int m, int n, int k, double alpha, double beta, int pad,
                      int nan_mode)
{
    const int nra = notr(ta) ? m : k, nca = notr(ta) ? k : m;
    const int nrb = notr(tb) ? k : n, ncb = notr(tb) ? n : k;
    const int lda = (nra > 1 ? nra : 1) + pad, ldb = (nrb > 1 ? nrb : 1) + pad,
              ldc = (m > 1 ? m : 1) + pad;
    double *A = mat(lda, nca), *B = mat(ldb, ncb), *C0 = mat(ldc, n);
    fill(nra, nca, A, lda);
    fill(nrb, ncb, B, ldb);
    fill(m, n, C0, ldc);
    if (nan_mode == 1) /* beta = 0: NaN in C must be overwritten */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) C0[i + (size_t)j * ldc] = NAN;
    if (nan_mode == 2) { /* alpha = 0: A and B are not read */
        for (size_t i = 0; i < nel(lda, nca); i++) A[i] = NAN;
        for (size_t i = 0; i < nel(ldb, ncb); i++) B[i] = NAN;
    }
    if (nan_mode == 3 && nra > 0 && nca > 0) A[0] = NAN; /* propagates into row 0 or column 0 */
    if (nan_mode == 4 && m > 0 && n > 0) C0[0] = NAN;    /* alpha = 0, beta = 1: untouched */
    double *A0 = dupm(A, nel(lda, nca)), *B0 = dupm(B, nel(ldb, ncb));
    double *C1 = dupm(C0, nel(ldc, n)), *C2 = dupm(C0, nel(ldc, n));
    const int64_t prot0 = stat(FTLA_PRELOAD_DGEMM);
    xreset();
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C1, &ldc, 1, 1);
    const int64_t dprot = stat(FTLA_PRELOAD_DGEMM) - prot0;
    real_dgemm(&ta, &tb, &m, &n, &k, &alpha, A0, &lda, B0, &ldb, &beta, C2, &ldc, 1, 1);
    const double e = gemm_err(ta, tb, m, n, k, alpha, A0, lda, B0, ldb, beta, C0, C1, C2, ldc);
    char what[160];
    snprintf(what, sizeof what, "dgemm_ %c%c m=%d n=%d k=%d alpha=%g beta=%g pad=%d nan=%d", ta, tb,
             m, n, k, alpha, beta, pad, nan_mode);
    CHECK(e <= 1.0, "%s: error %.3g x the bound against the real dgemm_", what, e);
    CHECK(g_xcalls == 0, "%s: xerbla_ called", what);
    CHECK(pad_same(m, n, ldc, C1, C0), "%s: padding rows of C changed", what);
    CHECK(same(A, A0, nel(lda, nca)) && same(B, B0, nel(ldb, ncb)), "%s: A or B changed", what);
    const int quick = m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0);
    if (quick) CHECK(same(C1, C0, nel(ldc, n)), "%s: quick return touched C", what);
    const int64_t want = m > 0 && n > 0 && k > 0 && alpha != 0.0;
    CHECK(dprot == want, "%s: %lld calls through ftla, expected %lld", what, (long long)dprot,
          (long long)want);
    if (want) g_gemm_products++, g_gemm_bitwise += same(C1, C2, nel(ldc, n));
    free(A), free(B), free(C0), free(A0), free(B0), free(C1), free(C2);
}

static void test_dgemm(void)
{
    const int sz[] = {0, 1, 2, 7, 33};
    const char tas[] = {'N', 't', 'C'}, tbs[] = {'n', 'T', 'c'};
    const double alphas[] = {0.0, 1.0, -0.7}, betas[] = {0.0, 1.0, 0.5};
    for (int im = 0; im < 5; im++)
        for (int in = 0; in < 5; in++)
            for (int ik = 0; ik < 5; ik++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        for (int ia = 0; ia < 3; ia++)
                            for (int ib = 0; ib < 3; ib++)
                                gemm_case(tas[a], tbs[b], sz[im], sz[in], sz[ik], alphas[ia],
                                          betas[ib], (im + in + ik) % 3 + 1, 0);
    printf("%% dgemm_: %ld of %ld protected products bitwise equal to the real routine's\n",
           g_gemm_bitwise, g_gemm_products);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            const char ta = "NT"[a], tb = "NT"[b];
            gemm_case(ta, tb, 7, 5, 6, 1.5, 0.0, 2, 1);  /* NaN in C, beta 0 */
            gemm_case(ta, tb, 7, 5, 6, 0.0, 0.5, 2, 2);  /* NaN in A, B, alpha 0 */
            gemm_case(ta, tb, 7, 5, 6, 0.0, 0.0, 2, 2);  /* alpha 0, beta 0: C = 0 */
            gemm_case(ta, tb, 7, 5, 6, -1.0, 0.5, 2, 3); /* NaN in A */
            gemm_case(ta, tb, 7, 5, 6, 0.0, 1.0, 2, 4);  /* NaN in C, quick return */
            gemm_case(ta, tb, 300, 200, 250, 1.5, 0.5, 5, 0);
            gemm_case(ta, tb, 513, 257, 129, -0.25, 1.0, 3, 0);
        }
}

/* ---- 3. dgemm_ argument errors ------------------------------------------------------------------ */

static void gemm_error(const char *what, char ta, char tb, int m, int n, int k, int lda, int ldb,
                       int ldc, int expect)
{
    double A[64], B[64], C[64], C0[64];
    for (int i = 0; i < 64; i++) A[i] = urand(), B[i] = urand(), C0[i] = C[i] = urand();
    const double alpha = 1.0, beta = 0.0;
    const int64_t p0 = stat(FTLA_PRELOAD_DGEMM);
    xreset();
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
    CHECK(g_xcalls == 1 && g_xinfo == expect && !strcmp(g_xname, "DGEMM ") && g_xlen == 6,
          "dgemm_ %s: xerbla_ calls %d, name '%s' (length %zu), info %d; expected 1, 'DGEMM ' "
          "(6), %d",
          what, g_xcalls, g_xname, g_xlen, g_xinfo, expect);
    CHECK(same(C, C0, 64), "dgemm_ %s: C changed", what);
    CHECK(stat(FTLA_PRELOAD_DGEMM) == p0, "dgemm_ %s: ran through ftla", what);
}

static void test_dgemm_errors(void)
{
    gemm_error("transa X", 'X', 'N', 2, 2, 2, 2, 2, 2, 1);
    gemm_error("transa R", 'R', 'N', 2, 2, 2, 2, 2, 2, 1); /* not a real-BLAS letter */
    gemm_error("transb /", 'N', '/', 2, 2, 2, 2, 2, 2, 2);
    gemm_error("m < 0", 'N', 'N', -1, 2, 2, 2, 2, 2, 3);
    gemm_error("n < 0", 'N', 'N', 2, -1, 2, 2, 2, 2, 4);
    gemm_error("k < 0", 'N', 'N', 2, 2, -1, 2, 2, 2, 5);
    gemm_error("lda < m (N)", 'N', 'N', 2, 2, 2, 1, 2, 2, 8);
    gemm_error("lda < k (T)", 'T', 'N', 2, 2, 3, 2, 3, 2, 8);
    gemm_error("lda 0, m 0", 'N', 'N', 0, 2, 2, 0, 2, 1, 8);
    gemm_error("ldb < k (N)", 'N', 'N', 2, 2, 2, 2, 1, 2, 10);
    gemm_error("ldb < n (T)", 'N', 't', 2, 3, 2, 2, 2, 2, 10);
    gemm_error("ldc < m", 'N', 'N', 2, 2, 2, 2, 2, 1, 13);
    gemm_error("ldc 0, m 0", 'N', 'N', 0, 2, 2, 1, 2, 0, 13);
    /* the first bad argument in the reference order wins */
    gemm_error("transa and m", 'X', 'N', -1, 2, 2, 2, 2, 2, 1);
    gemm_error("transb and m", 'N', 'X', -1, 2, 2, 2, 2, 2, 2);
    gemm_error("m and n", 'N', 'N', -1, -1, 2, 2, 2, 2, 3);
    gemm_error("k and lda", 'N', 'N', 2, 2, -1, 1, 2, 2, 5);
    gemm_error("lda and ldc", 'N', 'N', 2, 2, 2, 1, 2, 1, 8);
    gemm_error("ldb and ldc", 'N', 'N', 2, 2, 2, 2, 1, 1, 10);
}

/* ---- 4. cblas_dgemm --------------------------------------------------------------------------- */

static void cblas_case(int order, int ta, int tb, int m, int n, int k, double alpha, double beta)
{
    const int row = order == CblasRowMajor;
    /* op(A) is m x k, op(B) k x n, C m x n, stored in `order` */
    const int ar = ta == CblasNoTrans ? m : k, ac = ta == CblasNoTrans ? k : m;
    const int br = tb == CblasNoTrans ? k : n, bc = tb == CblasNoTrans ? n : k;
    /* stored: column-major rows x cols with ld >= rows, row-major with ld >= cols */
    const int lda = (row ? ac : ar) + 2, ldb = (row ? bc : br) + 1, ldc = (row ? n : m) + 3;
    const int acols = row ? ar : ac, bcols = row ? br : bc, ccols = row ? m : n;
    double *A = mat(lda, acols), *B = mat(ldb, bcols), *C0 = mat(ldc, ccols);
    fill(row ? ac : ar, acols, A, lda);
    fill(row ? bc : br, bcols, B, ldb);
    fill(row ? n : m, ccols, C0, ldc);
    double *C1 = dupm(C0, nel(ldc, ccols)), *C2 = dupm(C0, nel(ldc, ccols));
    const int64_t p0 = stat(FTLA_PRELOAD_DGEMM);
    cblas_dgemm(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C1, ldc);
    const int64_t dp = stat(FTLA_PRELOAD_DGEMM) - p0;
    real_cblas_dgemm(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C2, ldc);
    /* the column-major view of the row-major product: C^T = op(B)^T op(A)^T */
    const char cta = ta == CblasNoTrans ? 'N' : 'T', ctb = tb == CblasNoTrans ? 'N' : 'T';
    const double e =
        row ? gemm_err(ctb, cta, n, m, k, alpha, B, ldb, A, lda, beta, C0, C1, C2, ldc)
            : gemm_err(cta, ctb, m, n, k, alpha, A, lda, B, ldb, beta, C0, C1, C2, ldc);
    CHECK(e <= 1.0, "cblas_dgemm %s %d %d m=%d n=%d k=%d: error %.3g x the bound",
          row ? "row" : "col", ta, tb, m, n, k, e);
    CHECK(pad_same(row ? n : m, ccols, ldc, C1, C0), "cblas_dgemm: padding changed");
    const int64_t want = m > 0 && n > 0 && k > 0 && alpha != 0.0;
    CHECK(dp == want, "cblas_dgemm %s m=%d n=%d k=%d alpha=%g: %lld through ftla, expected %lld",
          row ? "row" : "col", m, n, k, alpha, (long long)dp, (long long)want);
    free(A), free(B), free(C0), free(C1), free(C2);
}

static void cblas_error(const char *what, int order, int ta, int tb, int m, int n, int k, int lda,
                        int ldb, int ldc)
{
    double A[64], B[64], C[64], C0[64];
    for (int i = 0; i < 64; i++) A[i] = urand(), B[i] = urand(), C0[i] = C[i] = urand();
    const int64_t p0 = stat(FTLA_PRELOAD_DGEMM);
    xreset();
    cblas_dgemm(order, ta, tb, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc);
    const int calls = g_xcalls, info = g_xinfo;
    char name[32];
    snprintf(name, sizeof name, "%s", g_xname);
    CHECK(same(C, C0, 64), "cblas_dgemm %s: C changed", what);
    CHECK(stat(FTLA_PRELOAD_DGEMM) == p0, "cblas_dgemm %s: ran through ftla", what);
    xreset();
    real_cblas_dgemm(order, ta, tb, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc);
    CHECK(calls == g_xcalls && info == g_xinfo && !strcmp(name, g_xname),
          "cblas_dgemm %s: xerbla_ %d '%s' %d through the interposer, %d '%s' %d from the real "
          "routine",
          what, calls, name, info, g_xcalls, g_xname, g_xinfo);
}

static void test_cblas(void)
{
    const int orders[] = {CblasColMajor, CblasRowMajor};
    const int tr[] = {CblasNoTrans, CblasTrans, CblasConjTrans};
    const int sz[] = {0, 1, 3, 17};
    for (int o = 0; o < 2; o++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int im = 0; im < 4; im++)
                    for (int in = 0; in < 4; in++)
                        for (int ik = 0; ik < 4; ik++) {
                            const double alpha = (im + in + ik) % 3 == 0 ? 0.0 : -0.7;
                            const double beta = (im + ik) % 3 * 0.5; /* 0, 0.5, 1 */
                            cblas_case(orders[o], tr[a], tr[b], sz[im], sz[in], sz[ik], alpha,
                                       beta);
                        }
    cblas_case(CblasRowMajor, CblasTrans, CblasNoTrans, 201, 150, 99, 2.0, 0.5);
    cblas_case(CblasColMajor, CblasNoTrans, CblasTrans, 201, 150, 99, 2.0, 0.5);
    /* invalid calls: the real CBLAS's own checks and numbering */
    cblas_error("order 99", 99, CblasNoTrans, CblasNoTrans, 2, 2, 2, 2, 2, 2);
    cblas_error("transa 0", CblasColMajor, 0, CblasNoTrans, 2, 2, 2, 2, 2, 2);
    cblas_error("m < 0", CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 2, 2, 2);
    cblas_error("lda < m col", CblasColMajor, CblasNoTrans, CblasNoTrans, 3, 2, 2, 2, 2, 3);
    cblas_error("ldc < n row", CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 3, 2, 2, 3, 2);
}

/* ---- 5. dgeqrf_ --------------------------------------------------------------------------------- */

/* dqrt01 ratios of a factorization (A1, tau) of A0 (m x n, ld lda): Q from LAPACKE_dorgqr. */
static void qr_ratios(int m, int n, const double *A0, const double *A1, int lda, const double *tau,
                      double *resid, double *orth)
{
    const int k = m < n ? m : n;
    double *Q = mat(m, k), *Rm = mat(k, n);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) Q[i + (size_t)j * m] = A1[i + (size_t)j * lda];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < k; i++) Rm[i + (size_t)j * k] = i <= j ? A1[i + (size_t)j * lda] : 0.0;
    int info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau);
    CHECK(info == 0, "dorgqr info %d", info);
    double an = 0.0, rn = 0.0, on = 0.0; /* 1-norms: max column sums */
    for (int j = 0; j < n; j++) {
        double sa = 0.0, sr = 0.0;
        for (int i = 0; i < m; i++) {
            double qr = 0.0;
            for (int l = 0; l < k; l++) qr += Q[i + (size_t)l * m] * Rm[l + (size_t)j * k];
            sa += fabs(A0[i + (size_t)j * lda]);
            sr += fabs(A0[i + (size_t)j * lda] - qr);
        }
        if (sa > an) an = sa;
        if (sr > rn) rn = sr;
    }
    for (int j = 0; j < k; j++) {
        double so = 0.0;
        for (int i = 0; i < k; i++) {
            double d = i == j ? 1.0 : 0.0;
            for (int l = 0; l < m; l++) d -= Q[l + (size_t)i * m] * Q[l + (size_t)j * m];
            so += fabs(d);
        }
        if (so > on) on = so;
    }
    *resid = an > 0 ? rn / ((m > n ? m : n) * an * 2 * EPS) : 0.0;
    *orth = on / (m * 2 * EPS);
    free(Q), free(Rm);
}

static void qr_case(int m, int n, int pad)
{
    const int lda = (m > 1 ? m : 1) + pad, k = m < n ? m : n;
    double *A0 = mat(lda, n);
    fill(m, n, A0, lda);
    double *A1 = dupm(A0, nel(lda, n)), *A2 = dupm(A0, nel(lda, n));
    double tau1[512], tau2[512], w1[256 * 64], w2[256 * 64];
    for (int i = 0; i < 512; i++) tau1[i] = tau2[i] = POISON;
    const int lwork = 256 * 64;
    int info1 = -99, info2 = -99;
    const int64_t p0 = stat(FTLA_PRELOAD_DGEQRF), d0 = stat(FTLA_PRELOAD_DGEMM);
    xreset();
    dgeqrf_(&m, &n, A1, &lda, tau1, w1, &lwork, &info1);
    const int64_t dp = stat(FTLA_PRELOAD_DGEQRF) - p0, dd = stat(FTLA_PRELOAD_DGEMM) - d0;
    real_dgeqrf(&m, &n, A2, &lda, tau2, w2, &lwork, &info2);
    CHECK(info1 == 0 && info2 == 0 && g_xcalls == 0, "dgeqrf_ %d x %d: info %d (real %d)", m, n,
          info1, info2);
    CHECK(w1[0] == w2[0], "dgeqrf_ %d x %d: work(1) %g, the real routine's %g", m, n, w1[0], w2[0]);
    CHECK(dp == (k > 0) && dd == 0, "dgeqrf_ %d x %d: %lld dgeqrf and %lld dgemm through ftla", m,
          n, (long long)dp, (long long)dd);
    CHECK(pad_same(m, n, lda, A1, A0), "dgeqrf_ %d x %d: padding rows changed", m, n);
    CHECK(tau1[k] == POISON, "dgeqrf_ %d x %d: tau written beyond min(m,n)", m, n);
    if (k > 0) {
        double resid, orth, dr = 0.0, an = 0.0;
        qr_ratios(m, n, A0, A1, lda, tau1, &resid, &orth);
        CHECK(resid < 30.0 && orth < 30.0, "dgeqrf_ %d x %d: ratios %.3g %.3g", m, n, resid, orth);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) an += A0[i + (size_t)j * lda] * A0[i + (size_t)j * lda];
        an = sqrt(an);
        for (int i = 0; i < k; i++) { /* the same signs, the same values to rounding */
            const double r1 = A1[i + (size_t)i * lda], r2 = A2[i + (size_t)i * lda];
            if ((r1 < 0) != (r2 < 0)) dr = INFINITY;
            else if (fabs(r1 - r2) > dr) dr = fabs(r1 - r2);
        }
        dr /= (m > n ? m : n) * EPS * an;
        CHECK(dr < 30.0, "dgeqrf_ %d x %d: diag(R) differs from the real routine's by %.3g", m, n,
              dr);
    }
    free(A0), free(A1), free(A2);
}

static void qr_query(int m, int n)
{
    const int lda = (m > 1 ? m : 1) + 1, lw = -1;
    double *A0 = mat(lda, n);
    fill(m, n, A0, lda);
    double *A1 = dupm(A0, nel(lda, n)), w1 = -1.0, w2 = -2.0, tau[4] = {POISON, POISON};
    int i1 = -99, i2 = -99;
    const int64_t p0 = stat(FTLA_PRELOAD_DGEQRF);
    dgeqrf_(&m, &n, A1, &lda, tau, &w1, &lw, &i1);
    real_dgeqrf(&m, &n, A1, &lda, tau, &w2, &lw, &i2);
    CHECK(i1 == 0 && i2 == 0 && w1 == w2, "dgeqrf_ query %d x %d: info %d work %g, real %d %g", m,
          n, i1, w1, i2, w2);
    CHECK(same(A1, A0, nel(lda, n)) && tau[0] == POISON, "dgeqrf_ query: A or tau changed");
    CHECK(stat(FTLA_PRELOAD_DGEQRF) == p0, "dgeqrf_ query ran through ftla");
    free(A0), free(A1);
}

/* A quick return or an argument error (expect = -i); work(1) as the real routine leaves it */
static void qr_special(const char *what, int m, int n, int lda, int lwork, int expect)
{
    double A[64], A0[64], tau[8], w1[64], w2[64];
    for (int i = 0; i < 64; i++) A0[i] = A[i] = urand(), w1[i] = w2[i] = 3.5;
    int i1 = -99, i2 = -99;
    const int64_t p0 = stat(FTLA_PRELOAD_DGEQRF);
    xreset();
    dgeqrf_(&m, &n, A, &lda, tau, w1, &lwork, &i1);
    const int calls = g_xcalls, xi = g_xinfo;
    char name[32];
    snprintf(name, sizeof name, "%s", g_xname);
    const size_t len = g_xlen;
    CHECK(i1 == expect, "dgeqrf_ %s: info %d, expected %d", what, i1, expect);
    if (expect)
        CHECK(calls == 1 && xi == -expect && !strcmp(name, "DGEQRF") && len == 6,
              "dgeqrf_ %s: xerbla_ %d calls, '%s' (%zu) %d", what, calls, name, len, xi);
    else CHECK(calls == 0, "dgeqrf_ %s: xerbla_ called", what);
    CHECK(same(A, A0, 64), "dgeqrf_ %s: A changed", what);
    CHECK(stat(FTLA_PRELOAD_DGEQRF) == p0, "dgeqrf_ %s: ran through ftla", what);
    xreset();
    real_dgeqrf(&m, &n, A, &lda, tau, w2, &lwork, &i2);
    CHECK(i2 == i1 && w1[0] == w2[0] && g_xcalls == calls,
          "dgeqrf_ %s: info %d work(1) %g xerbla %d; the real routine %d %g %d", what, i1, w1[0],
          calls, i2, w2[0], g_xcalls);
}

static void test_dgeqrf(void)
{
    const int shapes[][2] = {{1, 1},   {1, 7},    {7, 1},    {2, 2},     {33, 17}, {17, 33},
                             {65, 65}, {130, 70}, {70, 130}, {200, 150}, {64, 64}, {97, 33}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        qr_case(shapes[s][0], shapes[s][1], (int)(s % 3) + 1);
    qr_query(0, 0), qr_query(0, 5), qr_query(5, 0), qr_query(40, 30), qr_query(130, 70),
        qr_query(30, 200);
    qr_special("m = 0", 0, 5, 1, 1, 0); /* the reference asks lwork >= n only when m > 0 */
    qr_special("n = 0", 5, 0, 5, 1, 0);
    qr_special("m < 0", -1, 2, 1, 8, -1);
    qr_special("n < 0", 2, -1, 2, 8, -2);
    qr_special("lda < m", 3, 2, 2, 8, -4);
    qr_special("lda 0, m 0", 0, 2, 0, 8, -4);
    qr_special("lwork 0", 3, 2, 3, 0, -7);
    qr_special("lwork < n", 3, 4, 3, 3, -7);
    qr_special("lwork 0, m 0", 0, 5, 1, 0, -7);
    qr_special("lwork -2", 3, 2, 3, -2, -7);
    qr_special("query, lda < m", 3, 2, 2, -1, -4); /* the query does not skip the checks */
    qr_special("m and n", -1, -1, 1, 8, -1);
    qr_special("n and lda", 3, -1, 1, 8, -2);
    qr_special("lda and lwork", 3, 2, 1, 0, -4);
}

/* ---- 6. LAPACKE ------------------------------------------------------------------------------- */

static void lapacke_case(int layout, int m, int n, int use_work)
{
    const int row = layout == LAPACK_ROW_MAJOR, rows = row ? n : m, cols = row ? m : n;
    const int lda = (rows > 1 ? rows : 1) + 2, k = m < n ? m : n;
    double *A0 = mat(lda, cols);
    fill(rows, cols, A0, lda);
    double *A1 = dupm(A0, nel(lda, cols)), *A2 = dupm(A0, nel(lda, cols));
    double tau1[256], tau2[256], work[256 * 64];
    const int64_t p0 = stat(FTLA_PRELOAD_DGEQRF);
    const int r1 = use_work ? LAPACKE_dgeqrf_work(layout, m, n, A1, lda, tau1, work, 256 * 64)
                            : LAPACKE_dgeqrf(layout, m, n, A1, lda, tau1);
    const int64_t dp = stat(FTLA_PRELOAD_DGEQRF) - p0;
    const int r2 = use_work ? real_lapacke_dgeqrf_work(layout, m, n, A2, lda, tau2, work, 256 * 64)
                            : real_lapacke_dgeqrf(layout, m, n, A2, lda, tau2);
    const char *what = use_work ? "LAPACKE_dgeqrf_work" : "LAPACKE_dgeqrf";
    CHECK(r1 == 0 && r2 == 0, "%s %s %d x %d: %d (real %d)", what, row ? "row" : "col", m, n, r1,
          r2);
    CHECK(dp == (k > 0), "%s %s %d x %d: %lld through ftla", what, row ? "row" : "col", m, n,
          (long long)dp);
    double dt = 0.0, dr = 0.0, an = 0.0;
    for (int i = 0; i < k; i++) {
        dt = fmax(dt, fabs(tau1[i] - tau2[i]));
        const double x = A1[i + (size_t)i * lda], y = A2[i + (size_t)i * lda];
        dr = (x < 0) != (y < 0) ? INFINITY : fmax(dr, fabs(x - y));
    }
    for (size_t i = 0; i < nel(lda, cols); i++)
        if (A0[i] != POISON) an += A0[i] * A0[i];
    const double s = (m > n ? m : n) * EPS;
    if (k > 0)
        CHECK(dr / (s * sqrt(an)) < 30.0 && dt / s < 1000.0,
              "%s %s %d x %d: diag(R) %.3g, tau %.3g from the real routine's", what,
              row ? "row" : "col", m, n, dr / (s * sqrt(an)), dt / s);
    CHECK(pad_same(rows, cols, lda, A1, A0), "%s: padding changed", what);
    free(A0), free(A1), free(A2);
}

/* Invalid LAPACKE calls: the same return value (and xerbla_ record) as the real routine. */
static void lapacke_error(const char *what, int layout, int m, int n, int lda, int lwork,
                          int use_work, int nan, int expect)
{
    double A[256], A2[256], tau[16], work[256];
    for (int i = 0; i < 256; i++) A[i] = urand();
    if (nan) A[1] = NAN;
    memcpy(A2, A, sizeof A);
    const int64_t p0 = stat(FTLA_PRELOAD_DGEQRF);
    xreset();
    const int r1 = use_work ? LAPACKE_dgeqrf_work(layout, m, n, A, lda, tau, work, lwork)
                            : LAPACKE_dgeqrf(layout, m, n, A, lda, tau);
    const int c1 = g_xcalls, x1 = g_xinfo;
    CHECK(stat(FTLA_PRELOAD_DGEQRF) == p0, "%s: ran through ftla", what);
    xreset();
    const int r2 = use_work ? real_lapacke_dgeqrf_work(layout, m, n, A2, lda, tau, work, lwork)
                            : real_lapacke_dgeqrf(layout, m, n, A2, lda, tau);
    CHECK(r1 == r2 && r1 == expect && c1 == g_xcalls && x1 == g_xinfo,
          "%s: returned %d (xerbla_ %d, %d), the real routine %d (%d, %d), expected %d", what, r1,
          c1, x1, r2, g_xcalls, g_xinfo, expect);
}

static void test_lapacke(void)
{
    const int shapes[][2] = {{1, 1}, {40, 25}, {25, 40}, {130, 70}, {0, 3}};
    for (int s = 0; s < 5; s++)
        for (int w = 0; w < 2; w++) {
            lapacke_case(LAPACK_COL_MAJOR, shapes[s][0], shapes[s][1], w);
            lapacke_case(LAPACK_ROW_MAJOR, shapes[s][0], shapes[s][1], w);
        }
    /* the workspace query of the _work routine */
    double A[64], tau[8], w1 = 0, w2 = 0;
    for (int i = 0; i < 64; i++) A[i] = urand();
    int r1 = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, 8, 6, A, 8, tau, &w1, -1);
    int r2 = real_lapacke_dgeqrf_work(LAPACK_COL_MAJOR, 8, 6, A, 8, tau, &w2, -1);
    CHECK(r1 == 0 && r2 == 0 && w1 == w2, "LAPACKE_dgeqrf_work query: %d %g, real %d %g", r1, w1,
          r2, w2);
    lapacke_error("LAPACKE_dgeqrf layout 0", 0, 3, 2, 3, 0, 0, 0, -1);
    lapacke_error("LAPACKE_dgeqrf NaN", LAPACK_COL_MAJOR, 4, 3, 4, 0, 0, 1, -4);
    lapacke_error("LAPACKE_dgeqrf row NaN", LAPACK_ROW_MAJOR, 4, 3, 3, 0, 0, 1, -4);
    lapacke_error("LAPACKE_dgeqrf lda < m", LAPACK_COL_MAJOR, 4, 3, 2, 0, 0, 0, -5);
    lapacke_error("LAPACKE_dgeqrf_work layout 0", 0, 3, 2, 3, 8, 1, 0, -1);
    lapacke_error("LAPACKE_dgeqrf_work m < 0", LAPACK_COL_MAJOR, -1, 2, 3, 8, 1, 0, -2);
    lapacke_error("LAPACKE_dgeqrf_work lda < m", LAPACK_COL_MAJOR, 4, 3, 2, 8, 1, 0, -5);
    lapacke_error("LAPACKE_dgeqrf_work lwork", LAPACK_COL_MAJOR, 4, 3, 4, 1, 1, 0, -8);
    lapacke_error("LAPACKE_dgeqrf_work row lda < n", LAPACK_ROW_MAJOR, 4, 3, 2, 8, 1, 0, -5);
}

/* ---- 7. threads ---------------------------------------------------------------------------- */

#define NTHREADS 4
#define NITER 6
enum { TM = 160, QM = 240, QN = 160 };

typedef struct {
    double *A, *B, *C0, *Cref; /* dgemm data, the result of the call made alone */
    double *Q0, *Qref, *tref;  /* dgeqrf data, results alone */
    double *X0, *Xref;         /* dormqr_: Q^T X0 with the factor Qref, tref; the result alone */
    int ok;
} tdata_t;

static tdata_t g_td[NTHREADS];
static pthread_barrier_t g_bar;

static void tgemm(tdata_t *d, double *C)
{
    const int m = TM;
    const double alpha = 1.0, beta = 0.5;
    memcpy(C, d->C0, sizeof(double) * TM * TM);
    dgemm_("N", "T", &m, &m, &m, &alpha, d->A, &m, d->B, &m, &beta, C, &m, 1, 1);
}

static void tqr(tdata_t *d, double *A, double *tau)
{
    const int m = QM, n = QN, lw = QN * 64;
    double w[QN * 64];
    int info;
    memcpy(A, d->Q0, sizeof(double) * QM * QN);
    dgeqrf_(&m, &n, A, &m, tau, w, &lw, &info);
    if (info) d->ok = 0;
}

enum { TX = 8 }; /* right-hand sides of the threads' dormqr_ */

static void tqt(tdata_t *d, double *X)
{
    const int m = QM, n = TX, k = QN, lw = TX * 64 + 65 * 64;
    double w[TX * 64 + 65 * 64];
    int info;
    memcpy(X, d->X0, sizeof(double) * QM * TX);
    dormqr_("L", "T", &m, &n, &k, d->Qref, &m, d->tref, X, &m, w, &lw, &info, 1, 1);
    if (info) d->ok = 0;
}

static void *worker(void *p)
{
    tdata_t *d = p;
    double *C = malloc(sizeof(double) * TM * TM), *Q = malloc(sizeof(double) * QM * QN), tau[QN];
    double *X = malloc(sizeof(double) * QM * TX);
    for (int it = 0; it < NITER; it++) {
        pthread_barrier_wait(&g_bar);
        tgemm(d, C);
        if (!same(C, d->Cref, (size_t)TM * TM)) d->ok = 0;
        tqr(d, Q, tau);
        if (!same(Q, d->Qref, (size_t)QM * QN) || !same(tau, d->tref, QN)) d->ok = 0;
        tqt(d, X);
        if (!same(X, d->Xref, (size_t)QM * TX)) d->ok = 0;
    }
    free(C), free(Q), free(X);
    return NULL;
}

static void test_threads(void)
{
    for (int t = 0; t < NTHREADS; t++) {
        tdata_t *d = &g_td[t];
        d->A = mat(TM, TM), d->B = mat(TM, TM), d->C0 = mat(TM, TM), d->Cref = mat(TM, TM);
        d->Q0 = mat(QM, QN), d->Qref = mat(QM, QN), d->tref = mat(QN, 1);
        fill(TM, TM, d->A, TM), fill(TM, TM, d->B, TM), fill(TM, TM, d->C0, TM);
        fill(QM, QN, d->Q0, QM);
        d->X0 = mat(QM, TX), d->Xref = mat(QM, TX);
        fill(QM, TX, d->X0, QM);
        d->ok = 1;
        tgemm(d, d->Cref); /* alone, through the interposer */
        tqr(d, d->Qref, d->tref);
        tqt(d, d->Xref);
    }
    const int64_t g0 = stat(FTLA_PRELOAD_DGEMM), q0 = stat(FTLA_PRELOAD_DGEQRF),
                  o0 = stat(FTLA_PRELOAD_DORMQR);
    pthread_barrier_init(&g_bar, NULL, NTHREADS);
    ftla_probe_arm(2, 30.0);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, &g_td[t]);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&g_bar);
    int inside = 0;
    CHECK(ftla_probe_result(&inside) == 1,
          "two threads were never inside ftla's real cblas_dgemm at once (at most %d in 30 s): "
          "the interposer serialises the calls",
          inside);
    for (int t = 0; t < NTHREADS; t++)
        CHECK(g_td[t].ok, "thread %d: a result differs from the same call made alone", t);
    CHECK(stat(FTLA_PRELOAD_DGEMM) - g0 == NTHREADS * NITER &&
              stat(FTLA_PRELOAD_DGEQRF) - q0 == NTHREADS * NITER &&
              stat(FTLA_PRELOAD_DORMQR) - o0 == NTHREADS * NITER,
          "threads: %lld dgemm, %lld dgeqrf and %lld dormqr through ftla, expected %d each",
          (long long)(stat(FTLA_PRELOAD_DGEMM) - g0), (long long)(stat(FTLA_PRELOAD_DGEQRF) - q0),
          (long long)(stat(FTLA_PRELOAD_DORMQR) - o0), NTHREADS * NITER);
    CHECK(stat(FTLA_PRELOAD_INFLIGHT_MAX) >= 2,
          "at most %lld thread inside protected calls at once",
          (long long)stat(FTLA_PRELOAD_INFLIGHT_MAX));
    CHECK(stat(FTLA_PRELOAD_INNER_MAX) >= 2,
          "at most %lld thread inside the real routines called by ftla at once",
          (long long)stat(FTLA_PRELOAD_INNER_MAX));
    printf("%% threads: at most %lld in protected calls, %lld in ftla's real BLAS calls at once\n",
           (long long)stat(FTLA_PRELOAD_INFLIGHT_MAX), (long long)stat(FTLA_PRELOAD_INNER_MAX));
    for (int t = 0; t < NTHREADS; t++) {
        tdata_t *d = &g_td[t];
        free(d->A), free(d->B), free(d->C0), free(d->Cref), free(d->Q0), free(d->Qref),
            free(d->tref), free(d->X0), free(d->Xref);
    }
}

/* ---- 8. re-entrance ------------------------------------------------------------------------- */

static void nested_dgemm(void)
{
    g_xerbla_nested = 0; /* once */
    char ta = 'T', tb = 'N';
    int m = 20, n = 15, k = 25;
    double alpha = 0.5, beta = 0.0, A[25 * 20], B[25 * 15], C[20 * 15], C0[20 * 15], R[20 * 15];
    fill(k, m, A, k), fill(k, n, B, k), fill(m, n, C0, m);
    memcpy(C, C0, sizeof C), memcpy(R, C0, sizeof R);
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &k, B, &k, &beta, C, &m, 1, 1);
    real_dgemm(&ta, &tb, &m, &n, &k, &alpha, A, &k, B, &k, &beta, R, &m, 1, 1);
    g_nested_err = gemm_err(ta, tb, m, n, k, alpha, A, k, B, k, beta, C0, C, R, m);
}

static void test_reentrance(void)
{
    /* ftla's own BLAS/LAPACK calls come back through the interposed symbols: forwarded */
    const int m = 200, n = 150, lw = 150 * 64;
    double *A = mat(m, n), tau[150], *w = mat(lw, 1);
    fill(m, n, A, m);
    const int64_t i0 = stat(FTLA_PRELOAD_INNER), g0 = stat(FTLA_PRELOAD_DGEMM),
                  q0 = stat(FTLA_PRELOAD_DGEQRF);
    int info;
    dgeqrf_(&m, &n, A, &m, tau, w, &lw, &info);
    CHECK(info == 0 && stat(FTLA_PRELOAD_DGEQRF) - q0 == 1 && stat(FTLA_PRELOAD_DGEMM) == g0,
          "dgeqrf_: info %d, %lld dgeqrf and %lld dgemm through ftla (expected 1 and 0)", info,
          (long long)(stat(FTLA_PRELOAD_DGEQRF) - q0), (long long)(stat(FTLA_PRELOAD_DGEMM) - g0));
    CHECK(stat(FTLA_PRELOAD_INNER) > i0,
          "ftla's own BLAS/LAPACK calls did not come back through "
          "the interposed symbols (inner calls %lld)",
          (long long)(stat(FTLA_PRELOAD_INNER) - i0));
    printf("%% re-entrance: dgeqrf_ 200 x 150 made %lld BLAS/LAPACK calls of its own, forwarded\n",
           (long long)(stat(FTLA_PRELOAD_INNER) - i0));
    /* the real LAPACK's own dgemm_ calls (dorgqr -> dlarfb) are protected */
    const int64_t g1 = stat(FTLA_PRELOAD_DGEMM);
    info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, n, A, m, tau);
    CHECK(info == 0 && stat(FTLA_PRELOAD_DGEMM) > g1,
          "LAPACKE_dorgqr: info %d, its dgemm_ calls through ftla: %lld", info,
          (long long)(stat(FTLA_PRELOAD_DGEMM) - g1));
    free(A), free(w);
    /* a protected dgemm_ from inside xerbla_, itself called by an interposed dgemm_ */
    const int64_t g2 = stat(FTLA_PRELOAD_DGEMM);
    g_xerbla_nested = 1;
    g_nested_err = -1.0;
    xreset();
    double a = 1, b = 1, c = 1, one = 1.0;
    int mm = -1, nn = 1;
    dgemm_("N", "N", &mm, &nn, &nn, &one, &a, &nn, &b, &nn, &one, &c, &nn, 1, 1);
    CHECK(g_xcalls == 1 && g_xinfo == 3, "outer dgemm_(m = -1): xerbla_ %d calls, info %d",
          g_xcalls, g_xinfo);
    CHECK(g_nested_err >= 0.0 && g_nested_err <= 1.0 && stat(FTLA_PRELOAD_DGEMM) - g2 == 1,
          "nested dgemm_ from xerbla_: error %.3g, %lld through ftla", g_nested_err,
          (long long)(stat(FTLA_PRELOAD_DGEMM) - g2));
}

/* ---- inject: FTLA_INJECT in an unmodified program ------------------------------------------- */

/* The interposer's stderr into a temporary file while the calls run, to find its lines. */
typedef struct {
    char path[32];
    int saved;
} capture_t;

static int capture_begin(capture_t *c)
{
    snprintf(c->path, sizeof c->path, "/tmp/ftla_preload_XXXXXX");
    const int fd = mkstemp(c->path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return -1;
    fflush(stderr);
    c->saved = dup(2);
    dup2(fd, 2);
    close(fd);
    return 0;
}

/* stderr back; what the calls printed into buf (len bytes at most), echoed as comments */
static void capture_end(capture_t *c, char *buf, size_t len)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    FILE *f = fopen(c->path, "r");
    const size_t got = f ? fread(buf, 1, len - 1, f) : 0;
    buf[got] = '\0';
    if (f) fclose(f);
    unlink(c->path);
    printf("%% stderr of the injected calls:\n%s", buf);
}

static void test_inject(void)
{
    capture_t cap;
    if (capture_begin(&cap)) return;
    /* dgemm call 0: C(3,5) bit 60 */
    const int m = 100, n = 90, k = 80;
    double *A = mat(m, k), *B = mat(k, n), *C0 = mat(m, n);
    fill(m, k, A, m), fill(k, n, B, k), fill(m, n, C0, m);
    double *C1 = dupm(C0, (size_t)m * n), *C2 = dupm(C0, (size_t)m * n), alpha = 1.0, beta = 0.5;
    dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C1, &m, 1, 1);
    real_dgemm("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C2, &m, 1, 1);
    const double eg = gemm_err('N', 'N', m, n, k, alpha, A, m, B, k, beta, C0, C1, C2, m);
    /* dgeqrf calls 0 (R, step 1) and 1 (trailing, step 1) */
    const int qm = 200, qn = 150, lw = 150 * 64;
    double *Q0 = mat(qm, qn), tau[150], tau2[150], *w = mat(lw, 1), r[2][2];
    fill(qm, qn, Q0, qm);
    int info[2];
    for (int c = 0; c < 2; c++) {
        double *Q = dupm(Q0, (size_t)qm * qn), *Q2 = dupm(Q0, (size_t)qm * qn);
        dgeqrf_(&qm, &qn, Q, &qm, tau, w, &lw, &info[c]);
        int i2;
        real_dgeqrf(&qm, &qn, Q2, &qm, tau2, w, &lw, &i2);
        qr_ratios(qm, qn, Q0, Q, qm, tau, &r[c][0], &r[c][1]);
        free(Q), free(Q2);
    }
    char buf[16384];
    capture_end(&cap, buf, sizeof buf);
    CHECK(eg <= 1.0, "dgemm_ with a fault: error %.3g x the bound against the real result", eg);
    for (int c = 0; c < 2; c++)
        CHECK(info[c] == 0 && r[c][0] < 30.0 && r[c][1] < 30.0,
              "dgeqrf_ call %d with a fault: info %d, ratios %.3g %.3g", c, info[c], r[c][0],
              r[c][1]);
    CHECK(stat(FTLA_PRELOAD_INJECTED) == 3 && stat(FTLA_PRELOAD_CORRECTED) >= 3 &&
              stat(FTLA_PRELOAD_DETECTED) >= 3 && stat(FTLA_PRELOAD_FAILED) == 0,
          "faults injected %lld, detected %lld, corrected %lld, failed calls %lld (expected 3, "
          ">= 3, >= 3, 0)",
          (long long)stat(FTLA_PRELOAD_INJECTED), (long long)stat(FTLA_PRELOAD_DETECTED),
          (long long)stat(FTLA_PRELOAD_CORRECTED), (long long)stat(FTLA_PRELOAD_FAILED));
    /* the lines FTLA_VERBOSE=1 printed */
    CHECK(strstr(buf, "ftla: dgemm_ #0 NN m=100 n=90 k=80:") && strstr(buf, "injected C(3,5)") &&
              strstr(buf, "corrected C(3,5)"),
          "no FTLA_VERBOSE line naming the injected and corrected element C(3,5) of dgemm_ #0");
    CHECK(strstr(buf, "ftla: dgeqrf_ #0 m=200 n=150:") && strstr(buf, "injected R(2,40)"),
          "no FTLA_VERBOSE line for the R fault of dgeqrf_ #0");
    CHECK(strstr(buf, "ftla: dgeqrf_ #1 m=200 n=150:") && strstr(buf, "injected trailing("),
          "no FTLA_VERBOSE line for the trailing fault of dgeqrf_ #1");
    /* later calls are clean */
    const int64_t inj = stat(FTLA_PRELOAD_INJECTED);
    memcpy(C1, C0, sizeof(double) * m * n);
    dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C1, &m, 1, 1);
    CHECK(stat(FTLA_PRELOAD_INJECTED) == inj, "a fault planned for call 0 hit a later call");
    free(A), free(B), free(C0), free(C1), free(C2), free(Q0), free(w);
}

/* ---- 9. dormqr_: a checksum column (side L) or row (side R) around the real routine ----------- */

/* Reflectors for dormqr_: an nq x k (k <= nq) random matrix factored by the real dgeqrf_. */
static void reflectors(int nq, int k, double *A, int lda, double *tau)
{
    fill(nq, k, A, lda);
    int lw = -1, info = 0;
    double q;
    real_dgeqrf(&nq, &k, A, &lda, tau, &q, &lw, &info);
    lw = (int)q + 1;
    double *w = mat(lw, 1);
    real_dgeqrf(&nq, &k, A, &lda, tau, w, &lw, &info);
    free(w);
}

/* max |C1 - C2| / (eps (k + nq) ||C0||_F): both results of the same product, rounded apart */
static double ormqr_err(int m, int n, int k, int nq, const double *C0, const double *C1,
                        const double *C2, int ldc)
{
    double fro = 0.0, worst = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) fro += C0[i + (size_t)j * ldc] * C0[i + (size_t)j * ldc];
    fro = sqrt(fro);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            const double d = fabs(C1[i + (size_t)j * ldc] - C2[i + (size_t)j * ldc]);
            if (!(d <= worst)) worst = d;
        }
    return worst / (EPS * (k + nq) * fro + 0x1.0p-1060);
}

/* One dormqr_ case through the interposer and the real routine. scale: C multiplied by it
 * (2^e: exact); lwork_min: the smallest lwork the reference accepts. */
static void ormqr_case(char side, char trans, int m, int n, int k, int pad, double scale,
                       int lwork_min)
{
    const int left = side == 'L' || side == 'l', nq = left ? m : n, nw = left ? n : m;
    const int lda = (nq > 1 ? nq : 1) + pad, ldc = (m > 1 ? m : 1) + pad;
    double *A = mat(lda, k), *tau = mat(k + 1, 1), *C0 = mat(ldc, n);
    if (k > 0) reflectors(nq, k, A, lda, tau);
    fill(m, n, C0, ldc);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) C0[i + (size_t)j * ldc] *= scale;
    double *A0 = dupm(A, nel(lda, k)), *tau0 = dupm(tau, k + 1);
    double *C1 = dupm(C0, nel(ldc, n)), *C2 = dupm(C0, nel(ldc, n));
    double q = 0.0;
    int lw = -1, info1 = -99, info2 = -99;
    real_dormqr(&side, &trans, &m, &n, &k, A0, &lda, tau0, C2, &ldc, &q, &lw, &info2, 1, 1);
    lw = lwork_min ? (nw > 1 ? nw : 1) : (int)q;
    double *w1 = mat(lw, 1), *w2 = mat(lw, 1);
    const int64_t p0 = stat(FTLA_PRELOAD_DORMQR), g0 = stat(FTLA_PRELOAD_DGEMM),
                  d0 = stat(FTLA_PRELOAD_DETECTED), u0 = stat(FTLA_PRELOAD_UNCHECKED);
    xreset();
    dormqr_(&side, &trans, &m, &n, &k, A, &lda, tau, C1, &ldc, w1, &lw, &info1, 1, 1);
    const int64_t dp = stat(FTLA_PRELOAD_DORMQR) - p0, dg = stat(FTLA_PRELOAD_DGEMM) - g0,
                  dd = stat(FTLA_PRELOAD_DETECTED) - d0, du = stat(FTLA_PRELOAD_UNCHECKED) - u0;
    real_dormqr(&side, &trans, &m, &n, &k, A0, &lda, tau0, C2, &ldc, w2, &lw, &info2, 1, 1);
    char what[160];
    snprintf(what, sizeof what, "dormqr_ %c%c m=%d n=%d k=%d pad=%d scale=%g lwork=%d", side,
             trans, m, n, k, pad, scale, lw);
    const double e = ormqr_err(m, n, k, nq, C0, C1, C2, ldc);
    CHECK(info1 == 0 && info2 == 0, "%s: info %d (real %d)", what, info1, info2);
    CHECK(e <= 1.0, "%s: error %.3g x eps (k + nq) ||C||_F against the real dormqr_", what, e);
    CHECK(g_xcalls == 0, "%s: xerbla_ called (%s, %d)", what, g_xname, g_xinfo);
    CHECK(pad_same(m, n, ldc, C1, C0), "%s: padding rows of C changed", what);
    CHECK(same(A, A0, nel(lda, k)) && same(tau, tau0, k + 1), "%s: A or tau changed", what);
    CHECK(!memcmp(&w1[0], &w2[0], sizeof(double)), "%s: work(1) %g, the real routine's %g",
          what, w1[0], w2[0]);
    const int64_t want = m > 0 && n > 0 && k > 0;
    if (!want) CHECK(same(C1, C0, nel(ldc, n)), "%s: quick return touched C", what);
    CHECK(dp == want && dg == 0, "%s: %lld dormqr_ and %lld dgemm_ through ftla, expected %lld, 0",
          what, (long long)dp, (long long)dg, (long long)want);
    CHECK(dd == 0 && du == 0, "%s: a false alarm (detected %lld, unchecked %lld)", what,
          (long long)dd, (long long)du);
    free(A), free(tau), free(C0), free(A0), free(tau0), free(C1), free(C2), free(w1), free(w2);
}

static void ormqr_error(const char *what, char side, char trans, int m, int n, int k, int lda,
                        int ldc, int lwork, int expect)
{
    double A[64], tau[8], C[64], C0[64], w[64];
    for (int i = 0; i < 64; i++) A[i] = C[i] = C0[i] = w[i] = 0.5;
    for (int i = 0; i < 8; i++) tau[i] = 0.0;
    const int64_t p0 = stat(FTLA_PRELOAD_DORMQR);
    int info = 0;
    xreset();
    dormqr_(&side, &trans, &m, &n, &k, A, &lda, tau, C, &ldc, w, &lwork, &info, 1, 1);
    CHECK(g_xcalls == 1 && !strcmp(g_xname, "DORMQR") && g_xlen == 6 && g_xinfo == expect &&
              info == -expect,
          "%s: xerbla_ calls %d name '%s' len %zu position %d info %d, expected DORMQR %d", what,
          g_xcalls, g_xname, g_xlen, g_xinfo, info, expect);
    CHECK(same(C, C0, 64) && stat(FTLA_PRELOAD_DORMQR) == p0, "%s: C changed or computed", what);
}

static void test_dormqr(void)
{
    const char sides[] = {'L', 'r'}, transs[] = {'t', 'N'};
    const int shapes[][3] = {{1, 1, 1}, {7, 3, 5}, {33, 17, 20}, {200, 150, 150}, {300, 5, 64},
                             {5, 300, 5}, {130, 70, 64}, {0, 4, 0}, {4, 0, 3}, {6, 5, 0}};
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 2; t++)
            for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
                const int left = sides[s] == 'L';
                int m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
                const int nq = left ? m : n;
                if (k > nq) k = nq;
                ormqr_case(sides[s], transs[t], m, n, k, (int)(i % 3), 1.0, 0);
                if (i == 2 || i == 6) ormqr_case(sides[s], transs[t], m, n, k, 1, 1.0, 1);
            }
    /* every scale of valid data: no false alarm, the result as the real routine's */
    const double scales[] = {0x1.0p-1060, 0x1.0p-1022, 0x1.0p-600, 0x1.0p+600, 0x1.0p+1000};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        ormqr_case('L', 'T', 150, 40, 100, 1, scales[i], 0);
        ormqr_case('R', 'N', 40, 150, 100, 0, scales[i], 0);
    }
    /* columns of very different sizes (2^(+-300 j)): the threshold is normwise */
    {
        const int m = 120, n = 6, k = 80, side_l = 'L';
        double *A = mat(m, k), *tau = mat(k, 1), *C0 = mat(m, n), lwq;
        reflectors(m, k, A, m, tau);
        fill(m, n, C0, m);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) C0[i + (size_t)j * m] *= ldexp(1.0, (j % 2 ? 300 : -300) * (j / 2));
        double *C1 = dupm(C0, (size_t)m * n), *C2 = dupm(C0, (size_t)m * n);
        char sd = (char)side_l, tr = 'T';
        int lw = -1, info = 0;
        real_dormqr(&sd, &tr, &m, &n, &k, A, &m, tau, C2, &m, &lwq, &lw, &info, 1, 1);
        lw = (int)lwq;
        double *w = mat(lw, 1);
        const int64_t d0 = stat(FTLA_PRELOAD_DETECTED);
        dormqr_(&sd, &tr, &m, &n, &k, A, &m, tau, C1, &m, w, &lw, &info, 1, 1);
        const int64_t dd = stat(FTLA_PRELOAD_DETECTED) - d0;
        real_dormqr(&sd, &tr, &m, &n, &k, A, &m, tau, C2, &m, w, &lw, &info, 1, 1);
        double worst = 0.0; /* per column, relative to that column */
        for (int j = 0; j < n; j++) {
            double nc = 0.0, d = 0.0;
            for (int i = 0; i < m; i++) {
                nc = fmax(nc, fabs(C2[i + (size_t)j * m]));
                d = fmax(d, fabs(C1[i + (size_t)j * m] - C2[i + (size_t)j * m]));
            }
            worst = fmax(worst, d / (nc * EPS * (k + m)));
        }
        CHECK(dd == 0 && worst <= 1.0, "dormqr_ graded columns: detected %lld, column error %.3g",
              (long long)dd, worst);
        /* NaN in C: computed as the real routine (NaN where it has NaN), reported unchecked */
        C1[5] = C2[5] = NAN;
        const int64_t u0 = stat(FTLA_PRELOAD_UNCHECKED), f0 = stat(FTLA_PRELOAD_FAILED);
        dormqr_(&sd, &tr, &m, &n, &k, A, &m, tau, C1, &m, w, &lw, &info, 1, 1);
        const int64_t du = stat(FTLA_PRELOAD_UNCHECKED) - u0, df = stat(FTLA_PRELOAD_FAILED) - f0;
        /* (the real routine's own dgemm_ calls come back to the interposer protected) */
        real_dormqr(&sd, &tr, &m, &n, &k, A, &m, tau, C2, &m, w, &lw, &info, 1, 1);
        int nan_same = 1;
        for (int i = 0; i < m * n; i++) nan_same &= isnan(C1[i]) == isnan(C2[i]);
        CHECK(info == 0 && nan_same && du == 1 && df == 0,
              "dormqr_ with NaN in C: info %d, NaN pattern %s, unchecked +%lld, failed +%lld",
              info, nan_same ? "same" : "differs", (long long)du, (long long)df);
        free(A), free(tau), free(C0), free(C1), free(C2), free(w);
    }
    /* the workspace query: the real routine's answer, C untouched */
    {
        double A[400], tau[20], C[400], C0[400], w[2] = {0, 0}, w2[2] = {0, 0};
        for (int i = 0; i < 400; i++) A[i] = C[i] = C0[i] = 0.25;
        for (int i = 0; i < 20; i++) tau[i] = 0.5;
        int m = 20, n = 20, k = 10, lw = -1, info = 1, info2 = 1;
        dormqr_("L", "T", &m, &n, &k, A, &m, tau, C, &m, w, &lw, &info, 1, 1);
        real_dormqr("L", "T", &m, &n, &k, A, &m, tau, C, &m, w2, &lw, &info2, 1, 1);
        CHECK(info == 0 && info2 == 0 && w[0] == w2[0] && same(C, C0, 400),
              "dormqr_ query: info %d, work(1) %g (real %g), C %s", info, w[0], w2[0],
              same(C, C0, 400) ? "untouched" : "changed");
    }
    /* argument errors, in the reference order */
    ormqr_error("side", 'X', 'N', 4, 4, 2, 4, 4, 64, 1);
    ormqr_error("trans C", 'L', 'C', 4, 4, 2, 4, 4, 64, 2);
    ormqr_error("m < 0", 'L', 'N', -1, 4, 2, 4, 4, 64, 3);
    ormqr_error("n < 0", 'R', 'T', 4, -1, 2, 4, 4, 64, 4);
    ormqr_error("k < 0", 'L', 'N', 4, 4, -1, 4, 4, 64, 5);
    ormqr_error("k > nq (L)", 'L', 'N', 4, 6, 5, 6, 4, 64, 5);
    ormqr_error("k > nq (R)", 'R', 'N', 6, 4, 5, 6, 6, 64, 5);
    ormqr_error("lda (L)", 'L', 'T', 5, 4, 2, 4, 5, 64, 7);
    ormqr_error("lda (R)", 'R', 'T', 4, 5, 2, 4, 4, 64, 7);
    ormqr_error("ldc", 'L', 'N', 4, 4, 2, 4, 3, 64, 10);
    ormqr_error("lwork (L)", 'L', 'N', 4, 5, 2, 4, 4, 4, 12);
    ormqr_error("lwork (R)", 'R', 'N', 5, 4, 2, 4, 5, 4, 12);
    ormqr_error("lwork 0, n 0", 'L', 'N', 4, 0, 2, 4, 4, 0, 12);
    ormqr_error("order: trans before m", 'L', 'X', -1, 4, 2, 4, 4, 64, 2);
    ormqr_error("order: k before lda", 'L', 'N', 4, 4, 9, 1, 4, 64, 5);
    ormqr_error("order: ldc before lwork", 'L', 'N', 4, 4, 2, 4, 1, 0, 10);
}

/* ---- dormqr_inject: FTLA_INJECT faults in dormqr_ calls --------------------------------------- */

/* FTLA_INJECT="dormqr:C:step=2:row=4:col=3:bit=60,dormqr:checksum:call=1:bit=62,
 * dormqr:C:call=2:row=9:col=1:value=1e-3,dormqr:reflectors:call=3:step=1:bit=40": calls 0-2
 * detected and recomputed (results as the real routine's), call 3 (a reflector changed during
 * the call) reported: info = FT_ERR_UNCORRECTABLE (< -1000) and a line naming it. */
static void test_dormqr_inject(void)
{
    capture_t cap;
    if (capture_begin(&cap)) return;
    const int m = 300, n = 40, k = 200, lw = 40 * 64 + 65 * 64;
    double *A = mat(m, k), *tau = mat(k, 1), *C0 = mat(m, n), *w = mat(lw, 1);
    reflectors(m, k, A, m, tau);
    fill(m, n, C0, m);
    double e[4];
    int info[4];
    for (int c = 0; c < 4; c++) {
        double *C1 = dupm(C0, (size_t)m * n), *C2 = dupm(C0, (size_t)m * n);
        double *A1 = dupm(A, (size_t)m * k);
        const char side = c == 1 ? 'R' : 'L', tr = c == 2 ? 'N' : 'T';
        const int mm = c == 1 ? n : m, nn = c == 1 ? m : n, lda = m, ldc = mm;
        dormqr_(&side, &tr, &mm, &nn, &k, A1, &lda, tau, C1, &ldc, w, &lw, &info[c], 1, 1);
        int i2;
        real_dormqr(&side, &tr, &mm, &nn, &k, A, &lda, tau, C2, &ldc, w, &lw, &i2, 1, 1);
        e[c] = ormqr_err(mm, nn, k, m, C0, C1, C2, ldc);
        free(C1), free(C2), free(A1);
    }
    char buf[16384];
    capture_end(&cap, buf, sizeof buf);
    for (int c = 0; c < 3; c++)
        CHECK(info[c] == 0 && e[c] <= 1.0, "dormqr_ call %d with a fault: info %d, error %.3g",
              c, info[c], e[c]);
    CHECK(info[3] < -1000, "dormqr_ call 3, a reflector changed: info %d, expected an ftla "
                           "status (< -1000)", info[3]);
    CHECK(stat(FTLA_PRELOAD_INJECTED) == 4 && stat(FTLA_PRELOAD_CORRECTED) == 3 &&
              stat(FTLA_PRELOAD_DETECTED) >= 4 && stat(FTLA_PRELOAD_FAILED) == 1,
          "faults injected %lld, detected %lld, corrected %lld, failed calls %lld (expected 4, "
          ">= 4, 3, 1)",
          (long long)stat(FTLA_PRELOAD_INJECTED), (long long)stat(FTLA_PRELOAD_DETECTED),
          (long long)stat(FTLA_PRELOAD_CORRECTED), (long long)stat(FTLA_PRELOAD_FAILED));
    CHECK(strstr(buf, "ftla: dormqr_ #0 LT m=300 n=40 k=200:") && strstr(buf, "injected C(4,3)") &&
              strstr(buf, "recomputed C(4,"),
          "no FTLA_VERBOSE line naming the injected C(4,3) of dormqr_ #0 and its recomputation");
    CHECK(strstr(buf, "ftla: dormqr_ #1 RT") && strstr(buf, "injected checksum("),
          "no line for the checksum fault of dormqr_ #1");
    CHECK(strstr(buf, "ftla: dormqr_ #2 LN") && strstr(buf, "injected C(9,1)"),
          "no line for the additive fault of dormqr_ #2");
    CHECK(strstr(buf, "ftla: dormqr_ #3 LT") && strstr(buf, "uncorrectable reflectors("),
          "no line reporting the changed reflector of dormqr_ #3");
    free(A), free(tau), free(C0), free(w);
}

/* ---- off: FTLA_PRELOAD=off ------------------------------------------------------------------ */

static void test_off(void)
{
    const int m = 64, n = 48, k = 32, lw = 48 * 64;
    double *A = mat(m, k), *B = mat(k, n), *C1 = mat(m, n), *C2, *Q1 = mat(m, n), *Q2, alpha = 1,
           beta = 0.5, t1[48], t2[48], w[48 * 64];
    fill(m, k, A, m), fill(k, n, B, k), fill(m, n, C1, m), fill(m, n, Q1, m);
    C2 = dupm(C1, (size_t)m * n), Q2 = dupm(Q1, (size_t)m * n);
    const int64_t p0 = stat(FTLA_PRELOAD_PASSED);
    dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C1, &m, 1, 1);
    real_dgemm("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C2, &m, 1, 1);
    int i1, i2;
    dgeqrf_(&m, &n, Q1, &m, t1, w, &lw, &i1);
    real_dgeqrf(&m, &n, Q2, &m, t2, w, &lw, &i2);
    CHECK(same(C1, C2, (size_t)m * n) && same(Q1, Q2, (size_t)m * n) && same(t1, t2, n) && i1 == 0,
          "FTLA_PRELOAD=off: results differ from the real routines'");
    CHECK(stat(FTLA_PRELOAD_DGEMM) == 0 && stat(FTLA_PRELOAD_DGEQRF) == 0 &&
              stat(FTLA_PRELOAD_PASSED) - p0 == 2,
          "FTLA_PRELOAD=off: %lld + %lld calls through ftla, %lld passed",
          (long long)stat(FTLA_PRELOAD_DGEMM), (long long)stat(FTLA_PRELOAD_DGEQRF),
          (long long)(stat(FTLA_PRELOAD_PASSED) - p0));
    free(A), free(B), free(C1), free(C2), free(Q1), free(Q2);
}

/* ---- pause: ftla_preload_pause, between calls (bench_preload's alternation) ------------------- */

static void test_pause(void)
{
    ftla_preload_pause_fn pause_fn = NULL;
    *(void **)&pause_fn = dlsym(RTLD_DEFAULT, "ftla_preload_pause");
    CHECK(pause_fn != NULL, "ftla_preload_pause not exported");
    if (!pause_fn) return;
    const int m = 64, n = 48, k = 32, lw = 48 * 64;
    double *A = mat(m, k), *B = mat(k, n), *C1 = mat(m, n), *C2, *Q1 = mat(m, n), *Q2, alpha = 1,
           beta = 0.5, t1[48], t2[48], w[48 * 64];
    fill(m, k, A, m), fill(k, n, B, k), fill(m, n, C1, m), fill(m, n, Q1, m);
    C2 = dupm(C1, (size_t)m * n), Q2 = dupm(Q1, (size_t)m * n);
    CHECK(pause_fn(1) == 0, "ftla_preload_pause: not unpaused at the start");
    const int64_t g0 = stat(FTLA_PRELOAD_DGEMM), q0 = stat(FTLA_PRELOAD_DGEQRF),
                  p0 = stat(FTLA_PRELOAD_PASSED);
    int i1, i2;
    dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C1, &m, 1, 1);
    dgeqrf_(&m, &n, Q1, &m, t1, w, &lw, &i1);
    CHECK(pause_fn(0) == 1, "ftla_preload_pause: the pause was not kept");
    real_dgemm("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C2, &m, 1, 1);
    real_dgeqrf(&m, &n, Q2, &m, t2, w, &lw, &i2);
    CHECK(same(C1, C2, (size_t)m * n) && same(Q1, Q2, (size_t)m * n) && same(t1, t2, n) && i1 == 0,
          "paused: results differ from the real routines'");
    CHECK(stat(FTLA_PRELOAD_DGEMM) == g0 && stat(FTLA_PRELOAD_DGEQRF) == q0 &&
              stat(FTLA_PRELOAD_PASSED) - p0 == 2,
          "paused: %lld + %lld calls through ftla, %lld passed",
          (long long)(stat(FTLA_PRELOAD_DGEMM) - g0), (long long)(stat(FTLA_PRELOAD_DGEQRF) - q0),
          (long long)(stat(FTLA_PRELOAD_PASSED) - p0));
    /* protected again */
    dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C1, &m, 1, 1);
    CHECK(stat(FTLA_PRELOAD_DGEMM) == g0 + 1, "unpaused: dgemm_ not protected");
    free(A), free(B), free(C1), free(C2), free(Q1), free(Q2);
}

/* ---- small: FTLA_PRELOAD_SMALL=16 ------------------------------------------------------------ */

static void small_gemm(int m, int n, int k, int protect)
{
    double *A = mat(m, k), *B = mat(k, n), *C1 = mat(m, n), *C2, alpha = 0.5, beta = 1.5;
    fill(m, k, A, m), fill(k, n, B, k), fill(m, n, C1, m);
    C2 = dupm(C1, (size_t)m * n);
    const int64_t p0 = stat(FTLA_PRELOAD_DGEMM), u0 = stat(FTLA_PRELOAD_UNPROTECTED);
    dgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C1, &m, 1, 1);
    const int64_t dp = stat(FTLA_PRELOAD_DGEMM) - p0, du = stat(FTLA_PRELOAD_UNPROTECTED) - u0;
    real_dgemm("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C2, &m, 1, 1);
    CHECK(dp == protect && du == !protect, "dgemm_ %d x %d x %d: %lld protected, %lld unprotected",
          m, n, k, (long long)dp, (long long)du);
    if (!protect)
        CHECK(same(C1, C2, (size_t)m * n), "small dgemm_: not bitwise the real routine's result");
    else
        CHECK(gemm_err('N', 'N', m, n, k, alpha, A, m, B, k, beta, C2, C1, C2, m) <= 1.0,
              "dgemm_ result");
    const int64_t p1 = stat(FTLA_PRELOAD_DGEMM);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, A, k, B, n, beta, C1, n);
    CHECK(stat(FTLA_PRELOAD_DGEMM) - p1 == protect, "cblas_dgemm %d x %d x %d", m, n, k);
    free(A), free(B), free(C1), free(C2);
}

static void small_qr(int m, int n, int protect)
{
    const int lw = 64 * 64;
    double *A1 = mat(m, n), *A2, t1[64], t2[64], w1[64 * 64], w2[64 * 64];
    fill(m, n, A1, m);
    A2 = dupm(A1, (size_t)m * n);
    int i1, i2;
    const int64_t p0 = stat(FTLA_PRELOAD_DGEQRF), u0 = stat(FTLA_PRELOAD_UNPROTECTED);
    dgeqrf_(&m, &n, A1, &m, t1, w1, &lw, &i1);
    const int64_t dp = stat(FTLA_PRELOAD_DGEQRF) - p0, du = stat(FTLA_PRELOAD_UNPROTECTED) - u0;
    real_dgeqrf(&m, &n, A2, &m, t2, w2, &lw, &i2);
    CHECK(i1 == 0 && dp == protect && du == !protect && w1[0] == w2[0],
          "dgeqrf_ %d x %d: info %d, %lld protected, %lld unprotected", m, n, i1, (long long)dp,
          (long long)du);
    if (!protect)
        CHECK(same(A1, A2, (size_t)m * n) && same(t1, t2, m < n ? m : n),
              "small dgeqrf_: not bitwise the real routine's result");
    memcpy(A1, A2, sizeof(double) * m * n);
    const int64_t p1 = stat(FTLA_PRELOAD_DGEQRF);
    CHECK(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, A1, m, t1) == 0 &&
              stat(FTLA_PRELOAD_DGEQRF) - p1 == protect,
          "LAPACKE_dgeqrf %d x %d", m, n);
    free(A1), free(A2);
}

static void small_ormqr(int m, int n, int k, int protect)
{
    double *A = mat(m, k), *tau = mat(k, 1), *C1 = mat(m, n), *C2, w1[64 * 65], w2[64 * 65];
    reflectors(m, k, A, m, tau);
    fill(m, n, C1, m);
    C2 = dupm(C1, (size_t)m * n);
    const int lw = 64 * 65;
    int i1, i2;
    const int64_t p0 = stat(FTLA_PRELOAD_DORMQR), u0 = stat(FTLA_PRELOAD_UNPROTECTED);
    dormqr_("L", "T", &m, &n, &k, A, &m, tau, C1, &m, w1, &lw, &i1, 1, 1);
    const int64_t dp = stat(FTLA_PRELOAD_DORMQR) - p0, du = stat(FTLA_PRELOAD_UNPROTECTED) - u0;
    real_dormqr("L", "T", &m, &n, &k, A, &m, tau, C2, &m, w2, &lw, &i2, 1, 1);
    CHECK(i1 == 0 && dp == protect && du == !protect && w1[0] == w2[0],
          "dormqr_ %d x %d, k %d: info %d, %lld protected, %lld unprotected", m, n, k, i1,
          (long long)dp, (long long)du);
    if (!protect)
        CHECK(same(C1, C2, (size_t)m * n), "small dormqr_: not bitwise the real routine's result");
    free(A), free(tau), free(C1), free(C2);
}

static void test_small(void)
{
    small_gemm(8, 8, 8, 0);
    small_gemm(15, 16, 16, 0); /* 3840 < 4096 */
    small_gemm(16, 16, 16, 1);
    small_gemm(40, 3, 40, 1);
    small_qr(10, 10, 0);
    small_qr(40, 2, 0); /* 40 * 2 * 2 = 160 */
    small_qr(16, 16, 1);
    small_qr(64, 40, 1);
    small_ormqr(8, 8, 8, 0);
    small_ormqr(16, 16, 15, 0); /* 3840 < 4096 */
    small_ormqr(16, 16, 16, 1);
    small_ormqr(40, 4, 30, 1);
}

/* ---- gpu: FTLA_DEVICE=auto on a CUDA build ---------------------------------------------------- */

static void test_gpu(void)
{
    const int n = 1024, s = 64, lw = 1024 * 64;
    double *A = mat(n, n), *B = mat(n, n), *C1 = mat(n, n), *C2, alpha = 1, beta = 0.5;
    fill(n, n, A, n), fill(n, n, B, n), fill(n, n, C1, n);
    C2 = dupm(C1, (size_t)n * n);
    int64_t g0 = stat(FTLA_PRELOAD_GPU);
    dgemm_("N", "T", &s, &s, &s, &alpha, A, &n, B, &n, &beta, C1, &n, 1, 1);
    CHECK(stat(FTLA_PRELOAD_GPU) == g0, "a 64^3 dgemm_ ran on the GPU under FTLA_DEVICE=auto");
    real_dgemm("N", "T", &s, &s, &s, &alpha, A, &n, B, &n, &beta, C2, &n, 1, 1);
    g0 = stat(FTLA_PRELOAD_GPU);
    dgemm_("N", "T", &n, &n, &n, &alpha, A, &n, B, &n, &beta, C1, &n, 1, 1);
    real_dgemm("N", "T", &n, &n, &n, &alpha, A, &n, B, &n, &beta, C2, &n, 1, 1);
    CHECK(stat(FTLA_PRELOAD_GPU) == g0 + 1, "a 1024^3 dgemm_ did not run on the GPU");
    CHECK(gemm_err('N', 'T', n, n, n, alpha, A, n, B, n, beta, C2, C1, C2, n) <= 2.0,
          "GPU dgemm_ result");
    /* a rank-64 update of 1024 x 1024 (1.3e8 flops, below FT_AUTO_GPU_FLOPS) and of 4096 x 1024
     * (5.4e8, above it, but 7.7 flops per byte copied: FT_AUTO_GPU_INTENSITY) stay on the CPU;
     * a rank-512 update of 1024 x 1024 (1.1e9 flops, 43 a byte) goes to the GPU */
    const int m4 = 4096, r512 = 512;
    double *A4 = mat(m4, s), *B4 = mat(n, s), *C4 = mat(m4, n), *C5;
    fill(m4, s, A4, m4), fill(n, s, B4, n), fill(m4, n, C4, m4);
    C5 = dupm(C4, (size_t)m4 * n);
    g0 = stat(FTLA_PRELOAD_GPU);
    dgemm_("N", "T", &n, &n, &s, &alpha, A, &n, B, &n, &beta, C1, &n, 1, 1);
    dgemm_("N", "T", &m4, &n, &s, &alpha, A4, &m4, B4, &n, &beta, C4, &m4, 1, 1);
    CHECK(stat(FTLA_PRELOAD_GPU) == g0, "a rank-64 update ran on the GPU under FTLA_DEVICE=auto");
    real_dgemm("N", "T", &n, &n, &s, &alpha, A, &n, B, &n, &beta, C2, &n, 1, 1);
    real_dgemm("N", "T", &m4, &n, &s, &alpha, A4, &m4, B4, &n, &beta, C5, &m4, 1, 1);
    CHECK(gemm_err('N', 'T', m4, n, s, alpha, A4, m4, B4, n, beta, C5, C4, C5, m4) <= 2.0,
          "rank-64 dgemm_ result");
    dgemm_("N", "T", &n, &n, &r512, &alpha, A, &n, B, &n, &beta, C1, &n, 1, 1);
    real_dgemm("N", "T", &n, &n, &r512, &alpha, A, &n, B, &n, &beta, C2, &n, 1, 1);
    CHECK(stat(FTLA_PRELOAD_GPU) == g0 + 1, "a rank-512 update of 1024^2 did not run on the GPU");
    CHECK(gemm_err('N', 'T', n, n, r512, alpha, A, n, B, n, beta, C2, C1, C2, n) <= 2.0,
          "rank-512 dgemm_ result");
    free(A4), free(B4), free(C4), free(C5);
    double *tau = mat(n, 1), *w = mat(lw, 1), r0, r1;
    memcpy(C1, A, sizeof(double) * n * n);
    int info;
    g0 = stat(FTLA_PRELOAD_GPU);
    dgeqrf_(&n, &n, C1, &n, tau, w, &lw, &info);
    CHECK(info == 0 && stat(FTLA_PRELOAD_GPU) == g0 + 1, "1024^2 dgeqrf_: info %d, on the GPU %lld",
          info, (long long)(stat(FTLA_PRELOAD_GPU) - g0));
    qr_ratios(n, n, A, C1, n, tau, &r0, &r1);
    CHECK(r0 < 30 && r1 < 30, "GPU dgeqrf_ ratios %.3g %.3g", r0, r1);
    free(A), free(B), free(C1), free(C2), free(tau), free(w);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(mode, "gpu") && access("/dev/nvidiactl", F_OK)) {
        printf("test_preload gpu: no NVIDIA device (/dev/nvidiactl): skipped\n");
        return 77;
    }
    if (setup()) return finish();
    if (!strcmp(mode, "all")) {
        test_dgemm();
        test_dgemm_errors();
        test_cblas();
        test_dgeqrf();
        test_lapacke();
        test_threads();
        test_reentrance();
        test_pause();
        test_dormqr();
    } else if (!strcmp(mode, "inject")) {
        test_inject();
    } else if (!strcmp(mode, "dormqr_inject")) {
        test_dormqr_inject();
    } else if (!strcmp(mode, "off")) {
        test_off();
    } else if (!strcmp(mode, "small")) {
        test_small();
    } else if (!strcmp(mode, "gpu")) {
        test_gpu();
    } else {
        printf("usage: test_preload [all|inject|dormqr_inject|off|small|gpu]\n");
        return 2;
    }
    int64_t s[FTLA_PRELOAD_NSTATS];
    stats_fn(s, FTLA_PRELOAD_NSTATS);
    printf("%% interposer: %lld dgemm, %lld dgeqrf and %lld dormqr protected, %lld passed to the "
           "real routines, %lld inner calls forwarded\n",
           (long long)s[FTLA_PRELOAD_DGEMM], (long long)s[FTLA_PRELOAD_DGEQRF],
           (long long)s[FTLA_PRELOAD_DORMQR],
           (long long)s[FTLA_PRELOAD_PASSED], (long long)s[FTLA_PRELOAD_INNER]);
    return finish();
}
