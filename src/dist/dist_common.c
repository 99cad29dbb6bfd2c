/* dist_common.c — block-cyclic helpers, argument checks and replicated reductions (dist.h). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "dist/dist.h"
#include "core/team.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the node's ranks, from the launcher's environment (Open MPI, MPICH / Hydra, Slurm), or 0 */
static int local_ranks(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                        "SLURM_NTASKS_PER_NODE"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *e = getenv(names[i]);
        const long v = e && *e ? strtol(e, NULL, 10) : 0;
        if (v > 0) return (int)v;
    }
    return 0;
}

int dist_threads(void)
{
    static int n = 0;
    int v = __atomic_load_n(&n, __ATOMIC_RELAXED);
    if (v > 0) return v;
    v = ft_host_threads(); /* FTLA_HOST_THREADS, else the CPUs of the affinity mask */
    const char *e = getenv("FTLA_HOST_THREADS");
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    const int mask = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    const int L = local_ranks();
    /* a rank not bound to fewer CPUs than the node has shares them with the node's other ranks:
     * its share (4 unbound ranks on 2 cores: 1 thread, not 2 — helpers descheduled behind the
     * other ranks made the passes slower, docs/dist.md "Threads in a rank") */
    if (!(e && *e) && L > 1 && online > 0 && mask >= online) {
        const long share = online / L;
        if (share < v) v = share < 1 ? 1 : (int)share;
    }
    __atomic_store_n(&n, v, __ATOMIC_RELAXED);
    return v;
}

void dist_team_par(ft_team_fn fn, void *arg, long long work)
{
    ft_team_par_max(fn, arg, work, dist_threads());
}

int dist_grid(int ctxt, dist_grid_t *g)
{
    g->ctxt = ctxt;
    g->nprow = g->npcol = g->myrow = g->mycol = -1;
    Cblacs_gridinfo(ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    if (g->nprow < 1 || g->npcol < 1 || g->myrow < 0 || g->mycol < 0 || g->myrow >= g->nprow ||
        g->mycol >= g->npcol)
        return -1;
    return 0;
}

int dist_numroc(int n, int nb, int p, int src, int np) { return numroc_(&n, &nb, &p, &src, &np); }

int dist_check_desc(const dist_grid_t *g, const int *desc, int pos, int i, int ipos, int j,
                    int jpos, int rows, int cols)
{
    if (!desc) return -pos;
    if (desc[DTYPE_] != 1) return -(100 * pos + DTYPE_ + 1);
    if (desc[CTXT_] != g->ctxt) return -(100 * pos + CTXT_ + 1);
    if (desc[M_] < 0) return -(100 * pos + M_ + 1);
    if (desc[N_] < 0) return -(100 * pos + N_ + 1);
    if (desc[MB_] < 1) return -(100 * pos + MB_ + 1);
    if (desc[NB_] < 1) return -(100 * pos + NB_ + 1);
    if (desc[RSRC_] < 0 || desc[RSRC_] >= g->nprow) return -(100 * pos + RSRC_ + 1);
    if (desc[CSRC_] < 0 || desc[CSRC_] >= g->npcol) return -(100 * pos + CSRC_ + 1);
    const int lr = dist_numroc(desc[M_], desc[MB_], g->myrow, desc[RSRC_], g->nprow);
    if (desc[LLD_] < (lr > 1 ? lr : 1)) return -(100 * pos + LLD_ + 1);
    if (i < 1 || (rows > 0 && (int64_t)i - 1 + rows > desc[M_])) return -ipos;
    if (j < 1 || (cols > 0 && (int64_t)j - 1 + cols > desc[N_])) return -jpos;
    return 0;
}

double *dist_elem(const dist_grid_t *g, double *A, const int *desc, int64_t gi, int64_t gj)
{
    if (dist_owner(gi, desc[MB_], desc[RSRC_], g->nprow) != g->myrow ||
        dist_owner(gj, desc[NB_], desc[CSRC_], g->npcol) != g->mycol)
        return NULL;
    return A + dist_local(gi, desc[MB_], g->nprow) +
           dist_local(gj, desc[NB_], g->npcol) * (int64_t)desc[LLD_];
}

void dist_allsum(const dist_grid_t *g, double *X, int64_t rows, int64_t cols)
{
    /* BLACS takes int sizes: column panels of at most 2^30 elements */
    if (rows <= 0 || cols <= 0) return;
    const int64_t per = (int64_t)1 << 30;
    int64_t cstep = per / rows > 0 ? per / rows : 1;
    for (int64_t c = 0; c < cols; c += cstep) {
        const int64_t nc = c + cstep < cols ? cstep : cols - c;
        Cdgsum2d(g->ctxt, "All", " ", (int)rows, (int)nc, X + c * rows, (int)rows, -1, -1);
    }
}

int dist_mat_alloc(const dist_grid_t *g, int rows, int cols, int mb, int nb, dist_mat_t *x)
{
    const int zero = 0;
    x->lr = dist_numroc(rows, mb, g->myrow, 0, g->nprow);
    x->lc = dist_numroc(cols, nb, g->mycol, 0, g->npcol);
    int lld = x->lr > 1 ? x->lr : 1, info = 0;
    descinit_(x->desc, &rows, &cols, &mb, &nb, &zero, &zero, &g->ctxt, &lld, &info);
    if (info) return FT_ERR_INTERNAL;
    x->a = calloc((size_t)lld * (size_t)(x->lc > 1 ? x->lc : 1), sizeof(double));
    return x->a ? FT_SUCCESS : FT_ERR_ALLOC;
}

void dist_report_reduce(const dist_grid_t *g, ft_report_t *rep)
{
    dist_report_reduce_with(g, rep, NULL, 0);
}

void dist_report_reduce_with(const dist_grid_t *g, ft_report_t *rep, double *extra, int nextra)
{
    double v[11 + DIST_REDUCE_EXTRA] = {
        (double)rep->injected,   (double)rep->detected,      (double)rep->located,
        (double)rep->corrected,  (double)rep->uncorrectable, (double)rep->checksum_errors,
        (double)rep->recomputed, (double)rep->unchecked,     (double)rep->recovered,
        rep->time_protect,       (double)rep->checks};
    for (int x = 0; x < nextra; x++) v[11 + x] = extra[x];
    dist_allsum(g, v, 11 + nextra, 1);
    for (int x = 0; x < nextra; x++) extra[x] = v[11 + x];
    rep->checks = (int64_t)v[10];
    rep->injected = (int64_t)v[0], rep->detected = (int64_t)v[1], rep->located = (int64_t)v[2];
    rep->corrected = (int64_t)v[3], rep->uncorrectable = (int64_t)v[4];
    rep->checksum_errors = (int64_t)v[5], rep->recomputed = (int64_t)v[6];
    rep->unchecked = (int64_t)v[7], rep->recovered = (int64_t)v[8];
    rep->time_protect = v[9] / (g->nprow * g->npcol); /* the mean over the processes */
}
