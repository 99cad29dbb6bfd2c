/*
 * team.h — a small fork-join team of host threads for memory-bound host work that runs while
 * the host would otherwise wait for the device (qr_loop.c: the seal of a panel's vectors).
 *
 * ft_team_start makes up to nt - 1 helper threads (nt <= FT_TEAM_MAX); ft_team_run runs
 * fn(arg, t, nt) for t = 0 .. nt - 1 — t = 0 on the caller — and returns when all have
 * finished; ft_team_stop ends the helpers. A helper that cannot be made leaves the team smaller
 * (at worst the caller alone): nothing fails. One caller thread per team; not from inside fn.
 */
#ifndef FTLA_CORE_TEAM_H
#define FTLA_CORE_TEAM_H

#include <pthread.h>
#include <stdint.h>

#define FT_TEAM_MAX 16

typedef void (*ft_team_fn)(void *arg, int t, int nt);

typedef struct ft_team ft_team_t;
typedef struct {
    ft_team_t *team;
    int t;
} ft_team_slot_t; /* a helper's argument */

struct ft_team {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t th[FT_TEAM_MAX];
    ft_team_slot_t slot[FT_TEAM_MAX];
    int nt;              /* threads, the caller included (1: no helpers) */
    int gen;             /* job generation: each helper runs each generation once */
    int pending;         /* helpers still running the current job */
    int quit, sync_ok;
    ft_team_fn fn;
    void *arg;
};

/* A team of up to nt threads (the caller and nt - 1 helpers). Returns the number it has. */
int ft_team_start(ft_team_t *team, int nt);
void ft_team_run(ft_team_t *team, ft_team_fn fn, void *arg);
void ft_team_stop(ft_team_t *team);

/* The process's shared team, for the host backend's memory-bound kernels (a pass over a
 * matrix: the checks' sums, the checkpoint of Q): runs fn(arg, t, nt) on up to
 * ft_host_threads() threads when work (elements touched) is at least FT_TEAM_MIN_WORK and the
 * team is free, else fn(arg, 0, 1) on the caller — never waits for another caller's job.
 * The helpers sleep between jobs; they are made on first use (again in a forked child). */
/* 2^20 elements (8 MB, about a millisecond for one thread): below that, waking a helper
 * next to OpenBLAS's spinning threads cost more than it saved (a 4064 x 64 x 32 ft_dgemm went
 * from 0.57 to 1.08 ms with its 2 MB passes split, bench/NOTES.md) */
#define FT_TEAM_MIN_WORK ((long long)1 << 20)
void ft_team_par(ft_team_fn fn, void *arg, long long work);
/* ft_team_par on at most maxnt threads (the others idle for this job): fn(arg, t, nt) with
 * nt <= maxnt (the distributed routines' passes, where ranks share a node's cores: dist.h) */
void ft_team_par_max(ft_team_fn fn, void *arg, long long work, int maxnt);
/* ft_team_par for a fn whose t only splits the work into parts [N t / nt, N (t + 1) / nt) (no
 * state per thread): the work is cut into FT_TEAM_CHUNKS parts per thread, fn(arg, c, nchunks),
 * that the threads take in turn as they come. A helper that shares its core with OpenBLAS's
 * spinning threads (which yield between polls) runs at a fraction of the caller's speed; with a
 * fixed half each, the pass took as long as on the caller alone (bench/NOTES.md, issue 11 s7). */
#define FT_TEAM_CHUNKS 8
void ft_team_par_dyn(ft_team_fn fn, void *arg, long long work);
/* dst(0:rows, 0:cols) = src (lds, ldd >= rows) by whole columns on the shared team
 * (ft_team_par): the packing of host data into pinned buffers and back (core/call.c
 * ft_stage_in / ft_stage_out, the out-of-core ft_dgemm's ring). */
void ft_team_copy(int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst,
                  int64_t ldd);
/* Threads of the shared team: FTLA_HOST_THREADS if set (1 = none), else the online CPUs (those
 * of the process's affinity mask where it has fewer: an MPI rank bound to one core), at most
 * FT_TEAM_MAX (16: the out-of-core ft_dgemm packs pageable chunks with it). */
int ft_host_threads(void);

#endif
