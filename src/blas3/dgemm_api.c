/*
 * dgemm_api.c — ft_dgemm's public entry points (ftla.h): arguments checked in BLAS order, quick
 * returns, the call layer (core/call.h), host data staged to the device when the GPU runs the
 * call, then the protected product (dgemm_protect.c) or the plain one (protection off, or no
 * product: C := beta*C).
 */
#include "blas3/dgemm_internal.h"
#include "core/size.h"

#include <math.h>
#include <stdio.h>

static int check_args(char ta, char tb, ft_int m, ft_int n, ft_int k, ft_int lda, ft_int ldb,
                      ft_int ldc)
{
    int nota = ft_is_notrans(ta), notb = ft_is_notrans(tb);
    int64_t nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (!nota && !ft_is_trans(ta)) return 1;
    if (!notb && !ft_is_trans(tb)) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < (nrowa > 1 ? nrowa : 1)) return 8;
    if (ldb < (nrowb > 1 ? nrowb : 1)) return 10;
    if (ldc < (m > 1 ? m : 1)) return 13;
    return 0;
}

/* Elements of the device copies of op-shaped A (nrowa x ncola), B and C; -1 on overflow. */
int64_t dgemm_stage_elems(int64_t nrowa, int64_t ncola, int64_t nrowb, int64_t ncolb, int64_t m,
                          int64_t n)
{
    int64_t t[] = {nrowa, ncola, nrowb, ncolb, m, n}, e;
    return ft_sum_of_products(3, t, &e) ? -1 : e;
}

/* dgemm_internal.h */
int dgemm_run(gemm_t *g, int scale_only)
{
    const ft_backend_t *be = g->be;
    if (!scale_only && g->pol.protect == FT_PROTECT_TMR) return dgemm_tmr(g);
    if (!scale_only && g->pol.protect) return dgemm_protected(g);
    const int64_t m = g->m, n = g->n;
    dgemm_opfaults_t opf = {.n = 0};
    if (g->ctx->nfaults && !scale_only) FT_CHECK(dgemm_inject_operands(g, NULL, &opf));
    FT_CHECK(be->event_record(g->ev0, g->qm));
    /* C := beta*C as a k = 0 product; A and B are not read, and cuBLAS wants leading
     * dimensions valid for the operands' nominal shapes */
    int64_t la = scale_only ? (ft_is_notrans(g->ta) ? (m > 1 ? m : 1) : 1) : g->lda;
    int64_t lb = scale_only ? (ft_is_notrans(g->tb) ? 1 : (n > 1 ? n : 1)) : g->ldb;
    FT_CHECK(be->dgemm(g->qm, g->ta, g->tb, m, n, scale_only ? 0 : g->k,
                       scale_only ? 0.0 : g->alpha, scale_only ? g->C : g->A, la,
                       scale_only ? g->C : g->B, lb, g->beta, g->C, g->ldc));
    FT_CHECK(be->event_record(g->ev1, g->qm));
    if (g->ctx->nfaults && !scale_only) FT_CHECK(dgemm_inject(g, FT_REGION_C, g->C, m, n, g->ldc));
    FT_CHECK(be->sync(g->qm));
    return dgemm_restore_operands(g, &opf);
}

static int driver(ft_call_t *c, int is_gpu, char ta, char tb, ft_int m, ft_int n, ft_int k,
                  double alpha, const double *A, ft_int lda, const double *B, ft_int ldb,
                  double beta, double *C, ft_int ldc)
{
    int info = check_args(ta, tb, m, n, k, lda, ldb, ldc);
    if (info) {
        ft_xerbla(c->name, info);
        return -info;
    }
    if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return FT_SUCCESS;

    const int64_t nrowa = ft_is_notrans(ta) ? m : k, ncola = ft_is_notrans(ta) ? k : m;
    const int64_t nrowb = ft_is_notrans(tb) ? k : n, ncolb = ft_is_notrans(tb) ? n : k;
    const int scale_only = alpha == 0.0 || k == 0; /* C := beta*C, no product to protect */
    size_t stage_bytes;
    if (ft_dbytes(dgemm_stage_elems(nrowa, ncola, nrowb, ncolb, m, n), &stage_bytes))
        return FT_ERR_TOO_LARGE;
    snprintf(c->desc, sizeof c->desc, "%c%c m=%d n=%d k=%d", ta, tb, m, n, k);
    if (!is_gpu) /* A and B in, C in (unless beta = 0) and out */
        c->xfer_bytes = 8.0 * ((double)nrowa * ncola + (double)nrowb * ncolb +
                               (beta != 0.0 ? 2.0 : 1.0) * m * (double)n);
    /* host data: the copies need not fit (out of core below), so the selection does not
     * reject them */
    FT_CHECK(ft_call_select(c, 2.0 * m * n * (double)k, is_gpu, is_gpu ? stage_bytes : 0));
    const ft_backend_t *be = c->be;
    gemm_t g = {.call = c, .ctx = c->ctx, .be = be, .kern = dgemm_kernels(be), .rep = &c->rep,
                .pol = c->pol, .qm = c->main, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
                .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .lda = lda, .ldb = ldb,
                .ldc = ldc, .inject_step = -1};
    if (!g.kern) return FT_ERR_INTERNAL;
    if (be->kind == FT_DEVICE_CUDA && g.pol.protect == FT_PROTECT_ABFT && !scale_only) {
        /* the rare path's kernels loaded before a real fault needs them (once per process) */
        static int warmed;
        if (!__atomic_exchange_n(&warmed, 1, __ATOMIC_ACQ_REL)) {
            const int st = dgemm_warm_repair(c, g.kern);
            if (st) ft_log(c->ctx, 1, "dgemm: warm-up of the repair path: %s", ft_strerror(st));
        }
    }
    FT_CHECK(ft_call_event(c, &g.ev0));
    FT_CHECK(ft_call_event(c, &g.ev1));
    const int host_on_gpu = !is_gpu && be->kind == FT_DEVICE_CUDA;
    double *dA = NULL, *dB = NULL, *dC = NULL;

    if (!is_gpu) {
        /* host data: out of core when A, B, C and the protection's work do not fit in the work
         * memory the call may use (CUDA: the free memory less headroom for cuBLAS, and the
         * limit when set; the host: the limit when set) */
        const double lim = dgemm_ooc_limit(c);
        double avail = lim > 0 ? lim : INFINITY;
        if (host_on_gpu) {
            const size_t fr = be->mem_free();
            const double usable = (double)fr - (double)fr / 8 - (double)(64 << 20);
            if (fr && usable < avail) avail = usable > 0 ? usable : 0;
        }
        const int64_t w = dgemm_sub_work(&g.pol, m, n, k, ta, tb);
        const double want = 8.0 * ((double)dgemm_stage_elems(nrowa, ncola, nrowb, ncolb, m, n) +
                                   (w > 0 ? (double)w : 0.0));
        if (isfinite(avail) && (want > avail || w < 0)) {
            const int64_t budget = (int64_t)(avail / 8.0);
            int st = dgemm_ooc(&g, budget);
            c->rep.time_protect = 0.0; /* not separated from the copies out of core */
            return st;
        }
    }

    if (host_on_gpu) {
        /* copy in; the caller's C stays intact until the verified result is copied back */
        FT_CHECK(ft_stage_in(c, g.qm, nrowa, ncola, scale_only ? NULL : A, lda, nrowa, &dA));
        FT_CHECK(ft_stage_in(c, g.qm, nrowb, ncolb, scale_only ? NULL : B, ldb, nrowb, &dB));
        FT_CHECK(ft_stage_in(c, g.qm, m, n, beta != 0.0 ? C : NULL, ldc, m, &dC));
        g.A = dA, g.lda = nrowa, g.B = dB, g.ldb = nrowb, g.C = dC, g.ldc = m;
        g.hostC = C, g.hostldc = ldc;
    } else if (beta != 0.0 && !scale_only && g.pol.protect == FT_PROTECT_ABFT &&
               (g.pol.backup_c == 1 || (g.pol.backup_c == -1 && !is_gpu))) {
        /* a backup of the input C, so a tile hit by an uncorrectable pattern can be recomputed */
        size_t bytes;
        if (ft_stage_bytes(m, n, &bytes)) return FT_ERR_TOO_LARGE;
        FT_CHECK(ft_call_work(c, bytes, (void **)&g.Cb));
    }
    int st = dgemm_run(&g, scale_only);
    if (st && st != FT_ERR_UNCORRECTABLE && st != FT_ERR_UNCHECKED) return st;
    if (host_on_gpu) {
        int st2 = ft_stage_out(c, g.qm, m, n, dC, m, C, ldc);
        if (st2) return st2;
    }
    double tg = 0.0;
    if (be->event_elapsed(g.ev0, g.ev1, &tg) == FT_SUCCESS) {
        double total = ft_wtime() - c->t0;
        c->rep.time_protect = g.pol.protect && !scale_only ? total - tg : 0.0;
        if (c->rep.time_protect < 0) c->rep.time_protect = 0;
    }
    return st;
}

static int entry(ft_context_t *ctx, int is_gpu, const char *name, char ta, char tb, ft_int m,
                 ft_int n, ft_int k, double alpha, const double *A, ft_int lda, const double *B,
                 ft_int ldb, double beta, double *C, ft_int ldc, ft_report_t *report,
                 size_t report_size)
{
    ft_call_t c;
    int st = ft_call_begin(&c, ctx, name, report, report_size);
    if (!st) st = driver(&c, is_gpu, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return ft_call_end(&c, st);
}

int ft_dgemm_ex_v(ft_context_t *ctx, char transa, char transb, ft_int m, ft_int n, ft_int k,
                  double alpha, const double *A, ft_int lda, const double *B, ft_int ldb,
                  double beta, double *C, ft_int ldc, ft_report_t *report, size_t report_size)
{
    return entry(ctx, 0, "FT_DGEMM", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                 ldc, report, report_size);
}

int ft_dgemm(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
             const double *A, ft_int lda, const double *B, ft_int ldb, double beta, double *C,
             ft_int ldc)
{
    return entry(NULL, 0, "FT_DGEMM", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                 ldc, NULL, 0);
}

int ft_dgemm_gpu_ex_v(ft_context_t *ctx, char transa, char transb, ft_int m, ft_int n, ft_int k,
                      double alpha, const double *dA, ft_int lda, const double *dB, ft_int ldb,
                      double beta, double *dC, ft_int ldc, ft_report_t *report,
                      size_t report_size)
{
    return entry(ctx, 1, "FT_DGEMM_GPU", transa, transb, m, n, k, alpha, dA, lda, dB, ldb, beta,
                 dC, ldc, report, report_size);
}

int ft_dgemm_gpu(char transa, char transb, ft_int m, ft_int n, ft_int k, double alpha,
                 const double *dA, ft_int lda, const double *dB, ft_int ldb, double beta,
                 double *dC, ft_int ldc)
{
    return entry(NULL, 1, "FT_DGEMM_GPU", transa, transb, m, n, k, alpha, dA, lda, dB, ldb, beta,
                 dC, ldc, NULL, 0);
}
