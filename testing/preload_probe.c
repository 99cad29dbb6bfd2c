/*
 * preload_probe.c — libftla_test_probe.so, a test shim between libftla_preload.so and the real
 * BLAS (testing/test_preload.c, "threads"). test_preload links it before OpenBLAS, so the
 * interposer's dlsym(RTLD_NEXT, "cblas_dgemm") — the product ftla's host backend runs — finds
 * this cblas_dgemm, which forwards to the next one (OpenBLAS). Armed with ftla_probe_arm(want,
 * seconds), a call waits (at most `seconds`, once: a wait in vain disarms it) until `want`
 * threads are inside it at once, and records the most it saw: threads held inside ftla's calls meet here only if the interposer
 * lets them run at the same time (no global lock). Unarmed, it only forwards.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                               const double *, int, double, double *, int);

static cblas_dgemm_fn g_next;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void find_next(void) { *(void **)&g_next = dlsym(RTLD_NEXT, "cblas_dgemm"); }

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_want, g_inside, g_max, g_met;
static double g_seconds;

__attribute__((visibility("default"))) void ftla_probe_arm(int want, double seconds)
{
    pthread_mutex_lock(&g_mu);
    g_want = want, g_seconds = seconds, g_max = 0, g_met = 0;
    pthread_mutex_unlock(&g_mu);
}

/* 1 when `want` threads were inside at once since ftla_probe_arm; *max: the most seen. */
__attribute__((visibility("default"))) int ftla_probe_result(int *max)
{
    pthread_mutex_lock(&g_mu);
    const int met = g_met;
    if (max) *max = g_max;
    g_want = 0; /* disarmed */
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
    return met;
}

__attribute__((visibility("default"))) void cblas_dgemm(int order, int ta, int tb, int m, int n,
                                                        int k, double alpha, const double *A,
                                                        int lda, const double *B, int ldb,
                                                        double beta, double *C, int ldc)
{
    pthread_once(&g_once, find_next);
    pthread_mutex_lock(&g_mu);
    g_inside++;
    if (g_inside > g_max) g_max = g_inside;
    if (g_want > 0 && g_inside >= g_want) {
        g_met = 1;
        pthread_cond_broadcast(&g_cv);
    }
    if (g_want > 0 && !g_met) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)g_seconds;
        while (g_want > 0 && !g_met)
            if (pthread_cond_timedwait(&g_cv, &g_mu, &until)) {
                g_want = 0; /* waited once in vain: the verdict is in, later calls just pass */
                break;
            }
    }
    pthread_mutex_unlock(&g_mu);
    if (g_next) g_next(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    pthread_mutex_lock(&g_mu);
    g_inside--;
    pthread_mutex_unlock(&g_mu);
}
