/*
 * dist_util.h — what the distributed tests share (test_dist.c, testing_ft_pdgeqrf.c): BLACS
 * grids, block-cyclic matrices filled by a function of the global indices (the same on every
 * grid), gathering a distributed matrix on every process, the owner of an element, a clock.
 */
#ifndef FTLA_TESTING_DIST_UTIL_H
#define FTLA_TESTING_DIST_UTIL_H

#include "dist/dist.h"

#include <stdlib.h>
#include <time.h>

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);

typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
} grid_t;

/* a P x Q grid, "Row" order */
static inline void grid_init(grid_t *g, int p, int q)
{
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, "Row", p, q);
    Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
}

/* the squarest P x Q grid of np processes (P <= Q) */
static inline void squarest_grid(grid_t *g, int np)
{
    int p = 1;
    while ((p + 1) * (p + 1) <= np) p++;
    while (np % p) p--;
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, "Row", p, np / p);
    Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
}

/* a distributed M x N matrix (global), blocks mb x nb, source (rsrc, csrc) */
typedef struct {
    int desc[9];
    double *a;
    int lr, lc;
} dmat_t;

static inline void dmat(const grid_t *g, int M, int N, int mb, int nb, int rsrc, int csrc,
                        dmat_t *x)
{
    int info;
    x->lr = numroc_(&M, &mb, &g->myrow, &rsrc, &g->nprow);
    x->lc = numroc_(&N, &nb, &g->mycol, &csrc, &g->npcol);
    int lld = (x->lr > 1 ? x->lr : 1) + 2; /* ld > local rows */
    descinit_(x->desc, &M, &N, &mb, &nb, &rsrc, &csrc, &g->ctxt, &lld, &info);
    x->a = calloc((size_t)lld * (size_t)(x->lc > 1 ? x->lc : 1), sizeof(double));
}

static inline long gidx(long l, int nb, int p, int src, int np)
{
    return (l / nb * np + (p - src + np) % np) * (long)nb + l % nb;
}

/* fill with a deterministic function of the global indices (the same on every grid) */
static inline void fill(const grid_t *g, dmat_t *x, unsigned seed)
{
    const int *d = x->desc;
    for (int lj = 0; lj < x->lc; lj++)
        for (int li = 0; li < x->lr; li++) {
            const long i = gidx(li, d[4], g->myrow, d[6], g->nprow);
            const long j = gidx(lj, d[5], g->mycol, d[7], g->npcol);
            unsigned long h = (unsigned long)(i * 7919 + j * 104729 + seed * 15485863u);
            h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
            x->a[li + lj * d[8]] = (double)(h % 20001) / 10000.0 - 1.0;
        }
}

/* the global M x N matrix on every process */
static inline double *gather(const grid_t *g, const dmat_t *x)
{
    const int *d = x->desc;
    double *G = calloc((size_t)d[2] * (size_t)d[3] + 1, sizeof(double));
    for (int lj = 0; lj < x->lc; lj++)
        for (int li = 0; li < x->lr; li++) {
            const long i = gidx(li, d[4], g->myrow, d[6], g->nprow);
            const long j = gidx(lj, d[5], g->mycol, d[7], g->npcol);
            G[i + j * d[2]] = x->a[li + lj * d[8]];
        }
    Cdgsum2d(g->ctxt, "All", " ", d[2], d[3], G, d[2], -1, -1);
    return G;
}

/* tau is distributed by columns (process row 0..P-1 all hold it): gather it from row 0 */
static inline double *gather_tau(const grid_t *g, const dmat_t *x, const double *tau)
{
    const int *d = x->desc;
    double *t = calloc((size_t)d[3] + 1, sizeof(double));
    if (g->myrow == 0)
        for (int lj = 0; lj < x->lc; lj++) t[gidx(lj, d[5], g->mycol, d[7], g->npcol)] = tau[lj];
    Cdgsum2d(g->ctxt, "All", " ", d[3], 1, t, d[3], -1, -1);
    return t;
}

/* the rank owning global (i, j) of x */
static inline int owner(const grid_t *g, const dmat_t *x, long i, long j)
{
    const int *d = x->desc;
    const int pr = (int)((d[6] + i / d[4]) % g->nprow), pc = (int)((d[7] + j / d[5]) % g->npcol);
    return pr * g->npcol + pc; /* "Row" order */
}

static inline int me_in(const grid_t *g) { return g->myrow * g->npcol + g->mycol; }

void Cblacs_barrier(int ctxt, const char *scope);

static inline double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
