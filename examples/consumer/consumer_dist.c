/*
 * consumer_dist.c — an MPI program built against an installed ftla's distributed routines
 * (examples/consumer/CMakeLists.txt with -DCONSUMER_DIST=ON: ftla::ftla_dist, MPI, ScaLAPACK;
 * scripts/test-install.sh runs it under mpirun). On a P x 1 grid of all the processes: the QR of
 * a 96 x 64 block-cyclic matrix (blocks 16) by ft_pdgeqrf, whose R must equal PDGEQRF's, then
 * the same with a fault planned in the trailing matrix (every process plans it, its owner
 * applies it), which must be corrected.
 * Prints "consumer_dist: OK" on process 0, or fails (exit 1 on every process).
 */
#include <ftla_dist.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BLACS and ScaLAPACK (no header ships with them) */
void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);
void Cdgsum2d(int ctxt, const char *scope, const char *top, int m, int n, double *A, int lda,
              int rdest, int cdest);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgeqrf_(const int *m, const int *n, double *A, const int *ia, const int *ja, const int *descA,
              double *tau, double *work, const int *lwork, int *info);

enum { M = 96, N = 64, NB = 16 };

/* the N x N upper triangle of the factored local array A (lr local rows, ld lld, a P x 1 grid)
 * into R on every process */
static void gather_r(int ctxt, int nprow, int myrow, int lr, int lld, const double *A, double *R)
{
    memset(R, 0, sizeof(double) * N * N);
    for (int j = 0; j < N; j++)
        for (int li = 0; li < lr; li++) {
            const int i = (li / NB * nprow + myrow) * NB + li % NB; /* the global row */
            if (i <= j) R[i + j * N] = A[li + (size_t)j * lld];
        }
    Cdgsum2d(ctxt, "All", " ", N, N, R, N, -1, -1);
}

int main(void)
{
    int me, np, ctxt, nprow, npcol, myrow, mycol, info = 0;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", np, 1);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    const int zero = 0, m = M, n = N, nb = NB;
    const int lr = numroc_(&m, &nb, &myrow, &zero, &nprow), lld = lr > 1 ? lr : 1;
    int desc[9];
    descinit_(desc, &m, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    double *A0 = malloc(sizeof(double) * (size_t)lld * N),
           *A = malloc(sizeof(double) * (size_t)lld * N);
    double *tau = malloc(sizeof(double) * N), wq = 0.0;
    for (int j = 0; j < N; j++)
        for (int li = 0; li < lr; li++) {
            const int i = (li / NB * nprow + myrow) * NB + li % NB; /* the global row */
            A0[li + (size_t)j * lld] = sin(0.37 * i + 1.9 * j) + (i == j ? 2.0 : 0.0);
        }
    const int one = 1, query = -1;
    pdgeqrf_(&m, &n, A0, &one, &one, desc, tau, &wq, &query, &info);
    int lwork = (int)wq;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    /* PDGEQRF's R, on every process */
    double R[N * N], F[N * N];
    memcpy(A, A0, sizeof(double) * (size_t)lld * N);
    pdgeqrf_(&m, &n, A, &one, &one, desc, tau, work, &lwork, &info);
    gather_r(ctxt, nprow, myrow, lr, lld, A, R);
    int bad = 0;
    for (int fault = 0; fault < 2; fault++) {
        ft_context_t *ctx = NULL;
        if (ft_context_create(&ctx, FT_DEVICE_CPU)) bad = 1;
        if (fault && ctx) { /* a trailing element, before step 1: applied by its owner */
            ft_fault_t f = {.region = FT_REGION_TRAILING,
                            .row = 20,
                            .col = 40,
                            .bit = 61,
                            .call = -1,
                            .step = 1};
            ft_inject_add(ctx, &f);
        }
        memcpy(A, A0, sizeof(double) * (size_t)lld * N);
        ft_report_t rep;
        const int st = ft_pdgeqrf_ex(ctx, m, n, A, 1, 1, desc, tau, work, lwork, &info, &rep);
        ft_context_destroy(ctx);
        gather_r(ctxt, nprow, myrow, lr, lld, A, F);
        double d = 0.0, r = 0.0;
        for (int x = 0; x < N * N; x++) d = fmax(d, fabs(F[x] - R[x])), r = fmax(r, fabs(R[x]));
        const int ok = st == 0 && info == 0 && d <= 1e-12 * r && (!fault || rep.corrected >= 1);
        if (me == 0)
            printf("consumer_dist: %d process(es), %s: status %d, R vs PDGEQRF %.1e, corrected "
                   "%lld: %s\n",
                   np, fault ? "a fault in the trailing matrix" : "no fault", st, d / r,
                   (long long)rep.corrected, ok ? "ok" : "FAILED");
        bad |= !ok;
    }
    if (me == 0 && !bad) printf("consumer_dist: OK\n");
    free(A0), free(A), free(tau), free(work);
    Cblacs_gridexit(ctxt);
    Cblacs_exit(0);
    return bad;
}
