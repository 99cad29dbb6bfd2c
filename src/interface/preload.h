/*
 * preload.h — what libftla_preload.so exports besides the interposed BLAS/LAPACK symbols
 * (docs/interposer.md): its counters and the real routines it forwards to. A program reaches
 * them with dlsym(RTLD_DEFAULT, "ftla_preload_stats") / "ftla_preload_real" /
 * "ftla_preload_pause" when the interposer is preloaded (NULL otherwise); testing/test_preload.c
 * uses them to check the re-entrance guard, the concurrency of the calls and the pause;
 * bench_preload alternates plain and protected calls in one process with the pause.
 */
#ifndef FTLA_PRELOAD_H
#define FTLA_PRELOAD_H

#include <stdint.h>

/* Indices of the counters ftla_preload_stats fills (process totals since the library was
 * loaded). "Protected" calls ran through ftla; "passed" calls went straight to the real routine
 * (quick returns, C := beta*C, workspace queries, argument errors of the CBLAS/LAPACKE layer,
 * FTLA_PRELOAD=off); "inner" calls are ftla's own host BLAS/LAPACK calls that came back through
 * the interposed symbols and were forwarded to the real library by the re-entrance guard. */
enum {
    FTLA_PRELOAD_DGEMM = 0,        /* dgemm_ / cblas_dgemm calls protected by ft_dgemm */
    FTLA_PRELOAD_DGEQRF = 1,       /* dgeqrf_ / LAPACKE_dgeqrf(_work) calls protected */
    FTLA_PRELOAD_PASSED = 2,       /* calls passed to the real routine (see above) */
    FTLA_PRELOAD_INNER = 3,        /* ftla's own calls forwarded to the real library */
    FTLA_PRELOAD_INFLIGHT_MAX = 4, /* most threads inside protected calls at once */
    FTLA_PRELOAD_INNER_MAX = 5,    /* most threads inside real routines called by ftla at once */
    FTLA_PRELOAD_INJECTED = 6,     /* faults injected (FTLA_INJECT), from the calls' reports */
    FTLA_PRELOAD_DETECTED = 7,     /* errors detected */
    FTLA_PRELOAD_CORRECTED = 8,    /* errors corrected (in place, recomputed or recovered) */
    FTLA_PRELOAD_FAILED = 9,       /* calls whose status was an uncorrectable / unrecovered
                                     fault */
    FTLA_PRELOAD_UNCHECKED = 10,   /* calls with a part of the result that could not be checked */
    FTLA_PRELOAD_FALLBACK = 11,    /* calls ftla could not run (memory, device), run unprotected
                                     by the real routine instead */
    FTLA_PRELOAD_GPU = 12,         /* protected calls that ran on the GPU */
    FTLA_PRELOAD_UNPROTECTED = 13, /* calls with work to protect run unprotected by the real
                                     routine because they are small (FTLA_PRELOAD_SMALL) */
    FTLA_PRELOAD_DORMQR = 14,      /* dormqr_ calls protected by a checksum column / row */
    FTLA_PRELOAD_NSTATS = 15
};

/* Copy min(n, FTLA_PRELOAD_NSTATS) counters into out; returns FTLA_PRELOAD_NSTATS. */
typedef int (*ftla_preload_stats_fn)(int64_t *out, int n);
/* The real routine the interposer forwards `name` to ("dgemm_", "dgeqrf_", "dormqr_", "cblas_dgemm",
 * "LAPACKE_dgeqrf", "LAPACKE_dgeqrf_work", "xerbla_", "ilaenv_"), or NULL. */
typedef void *(*ftla_preload_real_fn)(const char *name);
/* paused != 0: from the next call on, every call goes to the real routine as with
 * FTLA_PRELOAD=off (counted as passed); 0: protected again. Returns the previous setting. For
 * benchmarks that alternate protected and plain calls in one process (bench_preload); set it
 * between calls, not while another thread is inside one. */
typedef int (*ftla_preload_pause_fn)(int paused);

#endif
