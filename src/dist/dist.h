/*
 * dist.h — what ft_pdgemm and ft_pdgeqrf share (docs/dist.md): the ScaLAPACK / BLACS entry
 * points (Fortran and C BLACS interfaces, declared here: Debian's ScaLAPACK ships no header),
 * the block-cyclic index arithmetic, argument checks in ScaLAPACK's numbering, and the
 * replicated reductions the verification runs on.
 */
#ifndef FTLA_DIST_INTERNAL_H
#define FTLA_DIST_INTERNAL_H

#include "ftla_dist.h"

#include <stdint.h>

/* ---- ScaLAPACK, PBLAS, BLACS ------------------------------------------------------------- */
enum { DTYPE_ = 0, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_, DLEN_ };

void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cdgsum2d(int ctxt, const char *scope, const char *top, int m, int n, double *A, int lda,
              int rdest, int cdest);
void Cdgamx2d(int ctxt, const char *scope, const char *top, int m, int n, double *A, int lda,
              int *rA, int *cA, int ldia, int rdest, int cdest);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pxerbla_(const int *ictxt, const char *srname, const int *info, size_t len);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t lta, size_t ltb);
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
             const double *alpha, const double *A, const int *ia, const int *ja, const int *descA,
             const double *B, const int *ib, const int *jb, const int *descB, const double *beta,
             double *C, const int *ic, const int *jc, const int *descC, size_t, size_t);
void pdgeqrf_(const int *m, const int *n, double *A, const int *ia, const int *ja, const int *descA,
              double *tau, double *work, const int *lwork, int *info);
void pdgeqr2_(const int *m, const int *n, double *A, const int *ia, const int *ja, const int *descA,
              double *tau, double *work, const int *lwork, int *info);
/* PBLAS's broadcast / combine topologies (one character each: PDGEQRF sets 'I-ring' rowwise) */
void pb_topget_(const int *ictxt, const char *op, const char *scope, char *top);
void pb_topset_(const int *ictxt, const char *op, const char *scope, const char *top);
void pdormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
              const double *A, const int *ia, const int *ja, const int *descA, const double *tau,
              double *C, const int *ic, const int *jc, const int *descC, double *work,
              const int *lwork, int *info, size_t, size_t);
void pdlarft_(const char *direct, const char *storev, const int *n, const int *k, double *V,
              const int *iv, const int *jv, const int *descV, const double *tau, double *T,
              double *work, size_t, size_t);
void pdlarfb_(const char *side, const char *trans, const char *direct, const char *storev,
              const int *m, const int *n, const int *k, double *V, const int *iv, const int *jv,
              const int *descV, const double *T, double *C, const int *ic, const int *jc,
              const int *descC, double *work, size_t, size_t, size_t, size_t);
void pdlacpy_(const char *uplo, const int *m, const int *n, const double *A, const int *ia,
              const int *ja, const int *descA, double *B, const int *ib, const int *jb,
              const int *descB, size_t);

/* ---- the process grid and block-cyclic indices (0-based here) ---------------------------- */
typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
} dist_grid_t;

/* 0 on success; -1 when the context is not a valid grid this process belongs to */
int dist_grid(int ctxt, dist_grid_t *g);

/* the process coordinate owning global index g (block size nb, source src, np processes) */
static inline int dist_owner(int64_t g, int nb, int src, int np)
{
    return (int)((src + g / nb) % np);
}
/* its local index there */
static inline int64_t dist_local(int64_t g, int nb, int np)
{
    return g / ((int64_t)nb * np) * nb + g % nb;
}
/* the global index of local index l on process p */
static inline int64_t dist_global(int64_t l, int nb, int p, int src, int np)
{
    return (l / nb * np + (p - src + np) % np) * (int64_t)nb + l % nb;
}
/* local extent of n global indices on process p */
int dist_numroc(int n, int nb, int p, int src, int np);

/* Check one descriptor argument (position pos, 1-based) for a submatrix (i, j) (1-based) of
 * rows x cols inside it: 0, or ScaLAPACK's -(100 pos + entry) / -(position of i, j). ipos and
 * jpos are the argument positions of i and j. */
int dist_check_desc(const dist_grid_t *g, const int *desc, int pos, int i, int ipos, int j,
                    int jpos, int rows, int cols);

/* Element (gi, gj) (0-based global) of a distributed matrix: a pointer on its owner, else NULL */
double *dist_elem(const dist_grid_t *g, double *A, const int *desc, int64_t gi, int64_t gj);

/* X (rows x cols, column-major, ld rows) := the sum of every process's X (BLACS, all scope) */
void dist_allsum(const dist_grid_t *g, double *X, int64_t rows, int64_t cols);

/* A distributed rows x cols work matrix on the grid (row blocks mb, column blocks nb, source
 * (0, 0)), zeroed; free() its data. */
typedef struct {
    int desc[DLEN_];
    double *a;
    int lr, lc; /* local rows / columns */
} dist_mat_t;
int dist_mat_alloc(const dist_grid_t *g, int rows, int cols, int mb, int nb, dist_mat_t *x);

/* The passes of ft_pdgemm and ft_pdgeqrf on ftla's host team (core/team.h), on at most
 * dist_threads() threads: ft_host_threads(), or where the rank is not bound to fewer CPUs than
 * the node has, the node's CPUs over its ranks (the launcher's OMPI_COMM_WORLD_LOCAL_SIZE,
 * MPI_LOCALNRANKS or SLURM_NTASKS_PER_NODE); FTLA_HOST_THREADS, when set, as it says. */
int dist_threads(void);
void dist_team_par(void (*fn)(void *arg, int t, int nt), void *arg, long long work);

/* sum a report's counters over every process (status and events stay local) */
void dist_report_reduce(const dist_grid_t *g, ft_report_t *rep);
/* the same, with nextra <= DIST_REDUCE_EXTRA more numbers summed in the same all-reduce */
enum { DIST_REDUCE_EXTRA = 8 };
void dist_report_reduce_with(const dist_grid_t *g, ft_report_t *rep, double *extra, int nextra);

#endif
