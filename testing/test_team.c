/*
 * test_team.c — the host thread team (src/core/team.h): every thread of the team runs each job
 * exactly once with its own index, the caller waits for all of them, jobs follow each other
 * without loss, teams of one (no helpers) and teams started and stopped again work, and a
 * request beyond FT_TEAM_MAX is capped.
 */
#include "core/team.h"

#include "testing_util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int64_t n;
    const int64_t *x;
    int64_t part[FT_TEAM_MAX];
    int runs[FT_TEAM_MAX];
    int seen_nt[FT_TEAM_MAX];
} job_t;

static void sum_part(void *p, int t, int nt)
{
    job_t *j = p;
    int64_t s = 0;
    for (int64_t i = j->n * t / nt; i < j->n * (t + 1) / nt; i++) s += j->x[i];
    j->part[t] = s;
    j->runs[t]++;
    j->seen_nt[t] = nt;
}

static void one_team(int want, int jobs)
{
    enum { N = 100003 };
    static int64_t x[N];
    int64_t ref = 0;
    for (int64_t i = 0; i < N; i++) x[i] = (i * 7919) % 1013 - 500, ref += x[i];
    ft_team_t team;
    const int nt = ft_team_start(&team, want);
    const int cap = want < 1 ? 1 : want > FT_TEAM_MAX ? FT_TEAM_MAX : want;
    TU_CHECK(nt >= 1 && nt <= cap, "team of %d for %d", nt, want);
    TU_CHECK(nt == cap, "all %d threads made (got %d)", cap, nt);
    for (int r = 0; r < jobs; r++) {
        job_t j;
        memset(&j, 0, sizeof j);
        j.n = N - r; /* a different split each time */
        j.x = x;
        ft_team_run(&team, sum_part, &j);
        int64_t s = 0, want_s = 0;
        for (int t = 0; t < nt; t++) {
            s += j.part[t];
            TU_CHECK(j.runs[t] == 1 && j.seen_nt[t] == nt, "job %d thread %d ran %d times", r,
                     t, j.runs[t]);
        }
        for (int t = nt; t < FT_TEAM_MAX; t++) TU_CHECK(j.runs[t] == 0, "thread %d beyond", t);
        for (int64_t i = 0; i < j.n; i++) want_s += x[i];
        TU_CHECK(s == want_s, "job %d: sum %lld want %lld", r, (long long)s, (long long)want_s);
    }
    ft_team_stop(&team);
    (void)ref;
}

int main(void)
{
    one_team(1, 50);
    one_team(0, 5);
    one_team(2, 500);
    one_team(4, 2000);
    one_team(FT_TEAM_MAX + 5, 200);
    for (int k = 0; k < 50; k++) one_team(3, 3); /* started and stopped again */
    /* run after stop: the caller alone */
    ft_team_t team;
    ft_team_start(&team, 4);
    ft_team_stop(&team);
    job_t j;
    memset(&j, 0, sizeof j);
    int64_t x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    j.n = 10, j.x = x;
    ft_team_run(&team, sum_part, &j);
    TU_CHECK(j.part[0] == 55 && j.runs[0] == 1 && j.seen_nt[0] == 1, "stopped team runs alone");
    return tu_finish();
}
