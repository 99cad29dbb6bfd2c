/* team.c — see team.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "core/team.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *helper(void *p)
{
    ft_team_t *team = ((ft_team_slot_t *)p)->team;
    const int t = ((ft_team_slot_t *)p)->t;
    int seen = 0;
    pthread_mutex_lock(&team->mu);
    for (;;) {
        while (team->gen == seen && !team->quit) pthread_cond_wait(&team->go, &team->mu);
        if (team->quit) break;
        seen = team->gen;
        const ft_team_fn fn = team->fn;
        void *arg = team->arg;
        const int nt = team->nt;
        pthread_mutex_unlock(&team->mu);
        fn(arg, t, nt);
        pthread_mutex_lock(&team->mu);
        if (--team->pending == 0) pthread_cond_signal(&team->done);
    }
    pthread_mutex_unlock(&team->mu);
    return NULL;
}

int ft_team_start(ft_team_t *team, int nt)
{
    memset(team, 0, sizeof *team);
    team->nt = 1;
    if (nt > FT_TEAM_MAX) nt = FT_TEAM_MAX;
    if (nt <= 1) return 1;
    if (pthread_mutex_init(&team->mu, NULL)) return 1;
    if (pthread_cond_init(&team->go, NULL)) {
        pthread_mutex_destroy(&team->mu);
        return 1;
    }
    if (pthread_cond_init(&team->done, NULL)) {
        pthread_cond_destroy(&team->go);
        pthread_mutex_destroy(&team->mu);
        return 1;
    }
    team->sync_ok = 1;
    /* helpers wait for generation 1; team->nt grows only with the helpers made */
    pthread_mutex_lock(&team->mu);
    for (int t = 1; t < nt; t++) {
        team->slot[t].team = team;
        team->slot[t].t = t;
        if (pthread_create(&team->th[t], NULL, helper, &team->slot[t])) break;
        team->nt = t + 1;
    }
    pthread_mutex_unlock(&team->mu);
    return team->nt;
}

void ft_team_run(ft_team_t *team, ft_team_fn fn, void *arg)
{
    if (team->nt <= 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&team->mu);
    team->fn = fn;
    team->arg = arg;
    team->pending = team->nt - 1;
    team->gen++;
    pthread_cond_broadcast(&team->go);
    pthread_mutex_unlock(&team->mu);
    fn(arg, 0, team->nt);
    pthread_mutex_lock(&team->mu);
    while (team->pending > 0) pthread_cond_wait(&team->done, &team->mu);
    pthread_mutex_unlock(&team->mu);
}

void ft_team_stop(ft_team_t *team)
{
    if (!team->sync_ok) return;
    pthread_mutex_lock(&team->mu);
    team->quit = 1;
    pthread_cond_broadcast(&team->go);
    pthread_mutex_unlock(&team->mu);
    for (int t = 1; t < team->nt; t++) pthread_join(team->th[t], NULL);
    pthread_cond_destroy(&team->done);
    pthread_cond_destroy(&team->go);
    pthread_mutex_destroy(&team->mu);
    team->sync_ok = 0;
    team->nt = 1;
}

/* ---- the shared team ---- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static ft_team_t g_team;
static pid_t g_pid; /* the process that made g_team's helpers (0: none yet) */
static int g_threads = -1;

int ft_host_threads(void)
{
    int n = __atomic_load_n(&g_threads, __ATOMIC_RELAXED);
    if (n > 0) return n;
    const char *e = getenv("FTLA_HOST_THREADS");
    long v = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set; /* a process bound to fewer CPUs (an MPI rank bound to its core) uses those */
    if (!(e && *e) && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 &&
        CPU_COUNT(&set) < v)
        v = CPU_COUNT(&set);
    n = v < 1 ? 1 : v > FT_TEAM_MAX ? FT_TEAM_MAX : (int)v;
    __atomic_store_n(&g_threads, n, __ATOMIC_RELAXED);
    return n;
}

static void team_par(ft_team_fn fn, void *arg, long long work, long long min)
{
    const int nt = ft_host_threads();
    if (nt <= 1 || work < min || pthread_mutex_trylock(&g_mu) != 0) {
        fn(arg, 0, 1);
        return;
    }
    const pid_t pid = getpid();
    if (g_pid != pid) {
        /* first use, or a forked child: the parent's helpers do not exist here; their team's
         * state is abandoned as it is (its mutex may be held by a thread that is gone) */
        g_pid = pid;
        ft_team_start(&g_team, nt);
    }
    ft_team_run(&g_team, fn, arg);
    pthread_mutex_unlock(&g_mu);
}

void ft_team_par(ft_team_fn fn, void *arg, long long work)
{
    team_par(fn, arg, work, FT_TEAM_MIN_WORK);
}

typedef struct {
    ft_team_fn fn;
    void *arg;
    int nt;
} cap_t;

static void cap_run(void *p, int t, int nt)
{
    const cap_t *c = p;
    const int n = c->nt < nt ? c->nt : nt;
    if (t < n) c->fn(c->arg, t, n);
}

void ft_team_par_max(ft_team_fn fn, void *arg, long long work, int maxnt)
{
    if (maxnt <= 1 || ft_host_threads() <= 1 || work < FT_TEAM_MIN_WORK) {
        fn(arg, 0, 1);
        return;
    }
    cap_t c = {fn, arg, maxnt};
    team_par(cap_run, &c, work, FT_TEAM_MIN_WORK);
}

typedef struct {
    ft_team_fn fn;
    void *arg;
    int nchunk, next;
} dyn_t;

static void dyn_run(void *p, int t, int nt)
{
    (void)t, (void)nt;
    dyn_t *d = p;
    for (int c; (c = __atomic_fetch_add(&d->next, 1, __ATOMIC_RELAXED)) < d->nchunk;)
        d->fn(d->arg, c, d->nchunk);
}

void ft_team_par_dyn(ft_team_fn fn, void *arg, long long work)
{
    /* (a threshold of 2^17 for the QR's per-panel passes, 2 MB each: no faster, bench/NOTES.md) */
    const int nt = ft_host_threads();
    if (nt <= 1 || work < FT_TEAM_MIN_WORK) {
        fn(arg, 0, 1);
        return;
    }
    dyn_t d = {fn, arg, FT_TEAM_CHUNKS * nt, 0};
    team_par(dyn_run, &d, work, FT_TEAM_MIN_WORK);
}

typedef struct {
    int64_t rows, cols, lds, ldd;
    const double *src;
    double *dst;
} copy_t;

static void copy_part(void *p, int t, int nt)
{
    const copy_t *a = p;
    for (int64_t j = a->cols * t / nt; j < a->cols * (t + 1) / nt; j++)
        memcpy(a->dst + j * a->ldd, a->src + j * a->lds, (size_t)a->rows * sizeof(double));
}

void ft_team_copy(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst,
                  int64_t ldd)
{
    copy_t a = {rows, cols, lds, ldd, src, dst};
    ft_team_par(copy_part, &a, rows * cols);
}
