/*
 * testing_util.h — helpers shared by the ftla testers and unit tests (never installed):
 * a seeded generator for test data, 1-norms, the reference product and the GEMM error ratio,
 * assertion counting with the `N passed, N failed` closing line, and the device argument with
 * the CTest skip convention (exit 77).
 */
#ifndef FTLA_TESTING_UTIL_H
#define FTLA_TESTING_UTIL_H

#include "ftla.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Exit status of a test that skipped itself (CTest SKIP_RETURN_CODE). */
#define TU_SKIP 77

/** Column-major element (i, j) with leading dimension ld, 64-bit index arithmetic. */
#define TU_IX(i, j, ld) ((int64_t)(i) + (int64_t)(j) * (int64_t)(ld))

/* ---- test data ------------------------------------------------------------------------- */

/** Seeded generator (splitmix64): the same seed gives the same data on every platform. */
typedef struct {
    uint64_t s;
} tu_rng_t;

void tu_seed(tu_rng_t *r, uint64_t seed);
uint64_t tu_next(tu_rng_t *r);
/** Uniform in [-1, 1]. */
double tu_uniform(tu_rng_t *r);
/** Uniform integer in [lo, hi]. */
int tu_int(tu_rng_t *r, int lo, int hi);
/** rows x cols of A (ld lda) uniform in [-1, 1]; the padding rows lda - rows are left alone. */
void tu_fill(tu_rng_t *r, int64_t rows, int64_t cols, double *A, int64_t lda);
/** Every element of the lda x cols array (padding included) set to v. */
void tu_set_all(int64_t lda, int64_t cols, double *A, double v);
/** Malloc of n doubles (at least one); prints and exits 2 when memory runs out. */
double *tu_malloc(int64_t n);
/** Copy of the m x n matrix A (lda) into B (ldb). */
void tu_copy(int64_t m, int64_t n, const double *A, int64_t lda, double *B, int64_t ldb);

/* ---- norms and the reference product --------------------------------------------------- */

/** LAPACK dlange: norm '1' (max column sum), 'I' (max row sum) or 'M' (max |a|); 0 if empty.
 *  NaN propagates. */
double tu_dlange(char norm, int64_t m, int64_t n, const double *A, int64_t lda);
/** ||op(X)||_1 where op(X) is rows_op x cols_op and X is stored as trans says ('N' or T/C). */
double tu_opnorm1(char trans, int64_t rows_op, int64_t cols_op, const double *X, int64_t ldx);
/** ||C - R||_1 over an m x n matrix. */
double tu_diffnorm1(int64_t m, int64_t n, const double *C, int64_t ldc, const double *R,
                    int64_t ldr);
/** Rows of op(A) for transa ('N': m, else k). */
int64_t tu_nrows(char trans, int64_t m, int64_t k);
/** cblas_dgemm with reference-BLAS semantics for beta = 0 (C need not be set: zeroed first). */
void tu_ref_dgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                  int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc);
/** Machine epsilon as LAPACK dlamch('E'): the unit roundoff 2^-53. */
double tu_eps(void);
/**
 * The GEMM error ratio of DESIGN.md "Testing conventions":
 *   ||C - Cref||_1 / ((sqrt(k+2) |alpha| ||op(A)||_1 ||op(B)||_1 + 2 |beta| ||C0||_1) eps).
 * A correct result gives O(1); the tests compare with 30. 0 when the denominator is 0 and the
 * matrices agree exactly, Inf when only the denominator is 0, NaN when C holds NaN.
 */
double tu_gemm_ratio(char ta, char tb, int64_t m, int64_t n, int64_t k, double alpha,
                     const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                     const double *C0, int64_t ldc0, const double *C, int64_t ldc,
                     const double *Cref, int64_t ldr);

/* ---- assertions ------------------------------------------------------------------------ */

extern long tu_passed, tu_failed;

/** Count an assertion; on failure print one line with the place and the printf-style message. */
#define TU_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (cond) {                                                                                \
            tu_passed++;                                                                           \
        } else {                                                                                   \
            tu_failed++;                                                                           \
            printf("FAILED %s:%d: (%s) ", __FILE__, __LINE__, #cond);                              \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
        }                                                                                          \
    } while (0)

/** Print `N passed, N failed` and return the exit status (0 when nothing failed, else 1). */
int tu_finish(void);

/* ---- device ------------------------------------------------------------------------------ */

/** Parse cpu|cuda|gpu|auto. 0 on success, -1 for an unknown name. */
int tu_parse_device(const char *s, ft_device_t *dev);
/** Name of a device as the tests print it. */
const char *tu_device_name(ft_device_t dev);
/**
 * The device argument of a unit test (argv[1], default cpu). Exits 2 on a bad name, and exits
 * TU_SKIP after printing the SKIP line when cuda is asked and ft_cuda_available() == 0.
 */
ft_device_t tu_device_from_args(int argc, char **argv);
/** Print the SKIP line and exit TU_SKIP. */
void tu_skip_no_cuda(void);

/* ---- reports ----------------------------------------------------------------------------- */

/** Index of the first event of `kind` at (row, col) (col = -1: any column), or -1. */
int tu_find_event(const ft_report_t *rep, ft_event_kind_t kind, int64_t row, int64_t col);
/** Print a report as one line prefixed by `what` (for failure diagnostics). */
void tu_print_report(const char *what, const ft_report_t *rep);
/**
 * Fill a report with a byte pattern no routine writes (status, counters and backend all
 * invalid), before the call that should fill it: a field the routine leaves unset then fails
 * its check instead of passing on a zero the test itself put there.
 */
void tu_poison_report(ft_report_t *rep);
/**
 * The backend a call must report (report.backend) on a context created for `requested`: that
 * device for cpu and cuda; for auto the CPU, as every problem of the unit tests is far below
 * AUTO's GPU crossover of 2*512^3 flops (docs/api.md).
 */
ft_device_t tu_expected_backend(ft_device_t requested);

/* A context on device dev with policy.tile = tile and policy.backup_c = backup_c (-1 = default);
 * a failure is a failed check and ends the test (tu_finish). */
ft_context_t *tu_make_context(ft_device_t dev, int tile, int backup_c);

/* ---- command-line parsing shared by the testers ---- */
#define TU_MAX_SIZES 1024
typedef struct {
    int64_t v[TU_MAX_SIZES];
    int n;
} tu_sizes_t;
/* "v" or "start:end:step" into a list; 0 on success, -1 on a malformed or too long range. */
int tu_parse_sizes(const char *s, tu_sizes_t *out);
/* An integer in [lo, hi] / a double; 0 on success, -1 otherwise. */
int tu_parse_int(const char *s, long lo, long hi, int *out);
int tu_parse_double(const char *s, double *out);
/* A fault of the QR testers' --inject: region[:key=value]..., region R | trailing | Q | tau |
 * checksum | reflectors | panel, keys step, row, col (-1 or absent: drawn by the injector), bit
 * (0..63) or value (an added value); neither bit nor value: bit 55. 0 on success, -1 otherwise. */
int tu_parse_fault(const char *spec, ft_fault_t *f);

#endif
