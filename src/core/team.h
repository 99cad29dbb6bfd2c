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

#define FT_TEAM_MAX 8

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

#endif
