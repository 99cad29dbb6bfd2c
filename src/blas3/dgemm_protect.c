/*
 * dgemm_protect.c — ft_dgemm's fast path (no error), paper 003 adapted (docs/dgemm.md,
 * docs/thresholds.md):
 *   side queue : Y = op(B) [e_J w_J] per column block J (k x 2nb), z_J = |op(B)| e_J,
 *                anorm = ||op(A)(i,:)||_1, P = op(A) Y (m x 2nb)       -- overlaps the product
 *   main queue : (beta != 0) block row sums of the input C; the product; block row sums of the
 *                result; compare every (row, block) check with alpha P + beta C0-sums.
 * Rank-k shapes run the product in column chunks, the sums of the chunks on a queue of raised
 * priority beside it (chunk_plan). A failing check goes to the rare path (dgemm_repair.c).
 */
#include "blas3/dgemm_internal.h"
#include "core/inject.h"
#include "core/size.h"
#include "core/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t dgemm_auto_tile(int64_t m, int64_t n)
{
    int64_t d = m > n ? m : n;
    int64_t T = (d + 7) / 8;
    if (T < 256) T = 256;
    if (T > 4096) T = 4096;
    return (T + 63) / 64 * 64;
}

int64_t dgemm_check_elems(int64_t m, int64_t n, int64_t k, int64_t T, int have_c0, int keep_c0col)
{
    const int64_t nb = (n + T - 1) / T, mb = (m + T - 1) / T;
    /* Y 2k nb, Z k nb, zmax nb, P 2m nb, anorm m, CS 2m nb, CA m nb
     * (+ C0S 2m nb, C0A m nb, and C0col 2n mb, C0colA n mb when kept), tile scratch */
    int64_t t[] = {3 * nb, k, 1, nb, 5 * nb, m, 1, m};
    int64_t e, x;
    if (ft_sum_of_products(4, t, &e)) return -1;
    if (have_c0) {
        int64_t t2[] = {3 * nb, m, 3 * mb, keep_c0col ? n : 0};
        if (ft_sum_of_products(2, t2, &x) || ft_add_ovf(e, x, &e)) return -1;
    }
    int64_t gs = dgemm_gather_elems(T, k);
    if (gs < 0 || ft_add_ovf(e, gs + 8, &e)) return -1;
    return e;
}

int dgemm_inject(gemm_t *g, ft_region_t region, double *X, int64_t rows, int64_t cols, int64_t ld)
{
    ft_fault_t f[FT_MAX_FAULTS];
    int nf = ft_inject_take(g->ctx, g->call->index, region, g->inject_step, f, FT_MAX_FAULTS);
    for (int i = 0; i < nf; i++)
        FT_CHECK(ft_inject_apply(g->ctx, g->be, g->qm, &f[i], X, rows, cols, ld, -1, g->rep,
                                 NULL, NULL));
    return FT_SUCCESS;
}

int dgemm_inject_operands(gemm_t *g, ft_queue_t *after, dgemm_opfaults_t *saved)
{
    static const ft_region_t regs[2] = {FT_REGION_A, FT_REGION_B};
    for (int r = 0; r < 2; r++) {
        ft_fault_t f[FT_MAX_FAULTS];
        int nf = ft_inject_take(g->ctx, g->call->index, regs[r], g->inject_step, f,
                                FT_MAX_FAULTS - saved->n);
        if (nf > 0 && after) { /* applied once `after`'s work (the encoding) has read them */
            FT_CHECK(g->be->fork(after, g->qm));
            after = NULL;
        }
        /* the stored operand: rows x cols with its leading dimension */
        const int a = regs[r] == FT_REGION_A;
        const int notr = ft_is_notrans(a ? g->ta : g->tb);
        const int64_t rows = a ? (notr ? g->m : g->k) : (notr ? g->k : g->n);
        const int64_t cols = a ? (notr ? g->k : g->m) : (notr ? g->n : g->k);
        double *X = (double *)(a ? g->A : g->B); /* restored by dgemm_restore_operands */
        const int64_t ld = a ? g->lda : g->ldb;
        for (int i = 0; i < nf; i++) {
            int64_t ri = -1, ci = -1;
            double before = 0.0;
            if (rows <= 0 || cols <= 0) continue;
            ft_fault_t fi = f[i];
            if (fi.row < 0) fi.row = (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)rows);
            if (fi.col < 0) fi.col = (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)cols);
            if (fi.row >= rows || fi.col >= cols) continue; /* logged by ft_inject_apply */
            FT_CHECK(g->be->get_elem(g->qm, X + ft_ix(fi.row, fi.col, ld), &before));
            FT_CHECK(ft_inject_apply(g->ctx, g->be, g->qm, &fi, X, rows, cols, ld, -1, g->rep,
                                     &ri, &ci));
            saved->p[saved->n] = X + ft_ix(ri, ci, ld);
            saved->before[saved->n++] = before;
        }
    }
    return FT_SUCCESS;
}

int dgemm_restore_operands(gemm_t *g, dgemm_opfaults_t *saved)
{
    for (int i = saved->n - 1; i >= 0; i--)
        FT_CHECK(g->be->set_elem(g->qm, saved->p[i], saved->before[i]));
    saved->n = 0;
    return FT_SUCCESS;
}

/* Carve the checksum workspace (dgemm_check_elems) into the buffers of g. */
static int workspace(gemm_t *g)
{
    const int64_t m = g->m, n = g->n, k = g->k, nb = g->nb, mb = g->mb;
    const int keep_c0col = g->have_c0 && !g->Cb;
    int64_t elems = dgemm_check_elems(m, n, k, g->T, g->have_c0, keep_c0col);
    if (elems < 0) return FT_ERR_TOO_LARGE;
    double *p;
    FT_CHECK(ft_call_work_doubles(g->call, elems, &p));
    g->Y = p, p += 2 * k * nb;
    g->Z = p, p += k * nb;
    g->zmax = p, p += nb;
    g->P = p, p += 2 * m * nb;
    g->anorm = p, p += m;
    g->CS = p, p += 2 * m * nb;
    g->CA = p, p += m * nb;
    if (g->have_c0) {
        g->C0S = p, p += 2 * m * nb;
        g->C0A = p, p += m * nb;
        /* the input C's column sums serve only the rare path: with a backup of C they are
         * computed there, from the backup, for the flagged tiles alone */
        if (keep_c0col) {
            g->C0col = p, p += 2 * n * mb;
            g->C0colA = p, p += n * mb;
        }
    }
    g->tmp = p;
    FT_CHECK(dgemm_operand_workspace(g));
    const size_t vb = dgemm_verify_bytes(DGEMM_FLAG_CAP);
    FT_CHECK(ft_call_work(g->call, vb, &g->vdev));
    FT_CHECK(ft_call_pinned(g->call, vb, &g->vhost));
    return FT_SUCCESS;
}

int dgemm_operand_workspace(gemm_t *g)
{
    const int64_t m = g->m, n = g->n, k = g->k;
    g->check_operands = g->pol.operand_check >= 0 && g->k > 0 && g->alpha != 0.0;
    if (g->check_operands) {
        g->nca = ft_is_notrans(g->ta) ? k : m;
        g->ncb = ft_is_notrans(g->tb) ? n : k;
        double *d, *h;
        FT_CHECK(ft_call_work_doubles(g->call, 2 * (g->nca + g->ncb), &d));
        FT_CHECK(ft_call_pinned_doubles(g->call, 2 * (g->nca + g->ncb), &h));
        g->dg0 = (uint64_t *)d;
        g->dg1 = g->dg0 + g->nca + g->ncb;
        g->hdg = (uint64_t *)h;
    }
    return FT_SUCCESS;
}

static int dgemm_checked(gemm_t *g, int issued);
static int issue_product(gemm_t *g);

/* The timeline (core/trace.h, issue 12): a span of phase ph on queue q from here (lanes: main,
 * side = the encoding and the operands' digests, check = the chunks' sums); gte ends it after
 * the work issued on q so far. No-ops when the call is not traced. */
static int gtb(gemm_t *g, ft_queue_t *q, int ph)
{
    if (!ft_traced(g->call)) return -1;
    const int lane = q == g->qm ? FT_LANE_MAIN : q == g->qs ? FT_LANE_SIDE : FT_LANE_CHECK;
    return ft_trace_begin(g->call, q, lane, ph, -1);
}
static void gte(gemm_t *g, int span, ft_queue_t *q) { ft_trace_end(g->call, span, q); }

/* Digests of the stored columns of A (nca) then B (ncb) into out, on queue q. */
int dgemm_digest_operands(gemm_t *g, ft_queue_t *q, uint64_t *out)
{
    const int64_t ra = ft_is_notrans(g->ta) ? g->m : g->k, rb = ft_is_notrans(g->tb) ? g->k : g->n;
    FT_CHECK(g->be->digest(q, ra, g->nca, g->A, g->lda, out));
    return g->be->digest(q, rb, g->ncb, g->B, g->ldb, out + g->nca);
}

/* Are all the inputs finite? (op(A), op(B), and the input C when beta != 0 and a copy of it is
 * kept; without a copy its absolute row sums stand for it.) One NaN-propagating max per column,
 * only on the rare path where a check could not be evaluated. */
static int inputs_finite(gemm_t *g, int *finite)
{
    const ft_backend_t *be = g->be;
    const int na = ft_is_notrans(g->ta), nb = ft_is_notrans(g->tb);
    const int64_t ra = na ? g->m : g->k, ca = na ? g->k : g->m;
    const int64_t rb = nb ? g->k : g->n, cb = nb ? g->n : g->k;
    int64_t len = ca + cb + g->n + g->nb;
    double *d, *h;
    FT_CHECK(ft_call_work_doubles(g->call, len, &d));
    FT_CHECK(ft_call_pinned_doubles(g->call, len, &h));
    FT_CHECK(be->col_absmax(g->qm, ra, ca, g->A, g->lda, d));
    FT_CHECK(be->col_absmax(g->qm, rb, cb, g->B, g->ldb, d + ca));
    int64_t used = ca + cb;
    if (g->beta != 0.0) {
        if (g->hostC) { /* the caller's C on the host: checked there */
            for (int64_t j = 0; j < g->n; j++)
                for (int64_t i = 0; i < g->m; i++)
                    if (!isfinite(g->hostC[i + j * g->hostldc])) {
                        *finite = 0;
                        return FT_SUCCESS;
                    }
        } else if (g->Cb) {
            FT_CHECK(be->col_absmax(g->qm, g->m, g->n, g->Cb, g->m, d + used));
            used += g->n;
        } else {
            FT_CHECK(be->col_absmax(g->qm, g->m, g->nb, g->C0A, g->m, d + used));
            used += g->nb;
        }
    }
    FT_CHECK(be->get_matrix(g->qm, used, 1, d, used, h, used));
    FT_CHECK(be->sync(g->qm));
    *finite = 1;
    for (int64_t i = 0; i < used; i++)
        if (!isfinite(h[i])) *finite = 0;
    return FT_SUCCESS;
}

/* Chunks of C for the rank-k shapes (issue 12). The product of a rank-k update reads and writes
 * C once and leaves most of the memory bandwidth idle, while the protection reads C twice more
 * (the input's sums, the result's sums): ~1.0 ms against a 2.9 ms product at 16384^2 x 256 on
 * the H200. In nch column chunks (widths a multiple of T, so that every chunk owns whole
 * checksum blocks) chunk i+1's input sums and chunk i's result sums run on qc beside the
 * product of chunk i+1. qc has the greatest priority: at the default priority its kernels
 * waited behind the product's blocks and the schedule was slower than no chunks at all (a
 * first version, without the priority, was measured and reverted); with it they take the
 * multiprocessors the product frees (bench/micro/overlap_sums.cu, bench/NOTES.md). Automatic
 * on a device backend for k <= 1024 with m, n >= 4k and at least 4 blocks, chunks of about
 * 4096 columns; FTLA_DGEMM_CHUNKS=c forces c chunks on any backend (tests: the host runs the
 * same schedule), FTLA_DGEMM_CHUNKS=1 turns them off. */
static void chunk_plan(gemm_t *g)
{
    static int64_t env = -2;
    if (env == -2) {
        const char *e = getenv("FTLA_DGEMM_CHUNKS");
        char *end = NULL;
        const long long v = e && *e ? strtoll(e, &end, 10) : -1;
        env = e && *e && end && *end == '\0' && v >= 1 ? (int64_t)v : -1;
    }
    int64_t c = 1;
    if (g->warm || g->k <= 0) c = 1;
    else if (env >= 1) c = env;
    else if (g->be->kind == FT_DEVICE_CUDA && g->k <= 1024 && g->m >= 4 * g->k &&
             g->n >= 4 * g->k && g->nb >= 4) {
        const int64_t bpc = 4096 / g->T; /* blocks a chunk */
        c = bpc >= 1 ? (g->nb + bpc - 1) / bpc : g->nb;
        if (c < 2) c = 2;
    }
    if (c > g->nb) c = g->nb;
    if (c < 1) c = 1;
    const int64_t bpc = (g->nb + c - 1) / c;
    g->cw = bpc * g->T;
    g->nch = (g->n + g->cw - 1) / g->cw;
}

static void chunk_cols(const gemm_t *g, int64_t i, int64_t *c0, int64_t *nc)
{
    *c0 = i * g->cw;
    *nc = g->n - *c0 < g->cw ? g->n - *c0 : g->cw;
}

/* The input C of chunk i: its block sums (rows, and columns when kept) and its backup, on q. */
static int c0_chunk(gemm_t *g, ft_queue_t *q, int64_t i)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, n = g->n, T = g->T;
    int64_t c0, nc;
    chunk_cols(g, i, &c0, &nc);
    const int64_t J0 = c0 / T;
    const double *Ci = g->C + c0 * g->ldc;
    double *cs = g->C0col ? g->C0col + c0 : NULL, *ca = g->C0colA ? g->C0colA + c0 : NULL;
    double *cb = g->Cb ? g->Cb + c0 * m : NULL;
    if (g->kern->c0_pass) {
        const int st = g->kern->c0_pass(q, m, nc, Ci, g->ldc, T, g->sig, g->C0S + 2 * J0 * m,
                                        g->C0A + J0 * m, cs, ca, n, cb);
        if (st < 0) return st;
        if (st == 0) return FT_SUCCESS; /* 1: a tile it does not handle */
    }
    FT_CHECK(be->block_sums(q, 'N', m, nc, Ci, g->ldc, T, g->sig, g->C0S + 2 * J0 * m, m,
                            g->C0A + J0 * m, m));
    if (cs) FT_CHECK(be->block_sums(q, 'T', nc, m, Ci, g->ldc, T, g->sig, cs, n, ca, n));
    if (cb) FT_CHECK(be->copy_matrix(q, m, nc, Ci, g->ldc, cb, m));
    return FT_SUCCESS;
}

/* Faults planned in C for a chunked product with its sums beside it: taken before the
 * products, their row and column drawn over the whole of C, and each applied right after the
 * product of its chunk, before that chunk's sums read it (as the faults of an unchunked
 * product are applied after it, before its sums). */
typedef struct {
    ft_fault_t f[FT_MAX_FAULTS];
    int n;
} chunk_faults_t;

static void chunk_faults_take(gemm_t *g, chunk_faults_t *cf)
{
    cf->n = ft_inject_take(g->ctx, g->call->index, FT_REGION_C, g->inject_step, cf->f,
                           FT_MAX_FAULTS);
    for (int i = 0; i < cf->n; i++) {
        ft_fault_t *f = &cf->f[i];
        if (f->row < 0) f->row = (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)g->m);
        if (f->col < 0) f->col = (int64_t)(ft_rng_next(&g->ctx->rng) % (uint64_t)g->n);
    }
}

/* The products of the chunks on the main queue; the input sums of the next chunk and (sums)
 * the result sums of each chunk on qc beside them. Chunk 0's input sums are done. */
static int chunked_product(gemm_t *g, int sums, const chunk_faults_t *cf)
{
    const ft_backend_t *be = g->be;
    const int64_t m = g->m, T = g->T;
    for (int64_t i = 0; i < g->nch; i++) {
        int64_t c0, nc;
        chunk_cols(g, i, &c0, &nc);
        const int next = g->have_c0 && i + 1 < g->nch;
        if (next) {
            FT_CHECK(c0_chunk(g, g->qc, i + 1));
            FT_CHECK(be->event_record(g->evc, g->qc));
        }
        FT_CHECK(be->dgemm(g->qm, g->ta, g->tb, m, nc, g->k, g->alpha, g->A, g->lda,
                           dgemm_opb_cols(g, c0), g->ldb, g->beta, g->C + c0 * g->ldc, g->ldc));
        if (sums) {
            for (int f = 0; cf && f < cf->n; f++)
                if (cf->f[f].col >= c0 && cf->f[f].col < c0 + nc &&
                    cf->f[f].row < m) /* else: logged by ft_inject_apply below */
                    FT_CHECK(ft_inject_apply(g->ctx, be, g->qm, &cf->f[f], g->C, m, g->n,
                                             g->ldc, -1, g->rep, NULL, NULL));
            const int64_t J0 = c0 / T;
            FT_CHECK(be->event_record(g->evp, g->qm));
            FT_CHECK(be->event_wait(g->qc, g->evp));
            FT_CHECK(be->block_sums(g->qc, 'N', m, nc, g->C + c0 * g->ldc, g->ldc, T, g->sig,
                                    g->CS + 2 * J0 * m, m, g->CA + J0 * m, m));
        }
        if (next) FT_CHECK(be->event_wait(g->qm, g->evc));
    }
    /* faults outside C (a planned row or column beyond it): applied to be logged, as unchunked */
    for (int f = 0; sums && cf && f < cf->n; f++)
        if (cf->f[f].col >= g->n || cf->f[f].row >= m)
            FT_CHECK(ft_inject_apply(g->ctx, be, g->qm, &cf->f[f], g->C, m, g->n, g->ldc, -1,
                                     g->rep, NULL, NULL));
    if (sums) FT_CHECK(be->fork(g->qc, g->qm)); /* the result sums are in before the checks */
    return FT_SUCCESS;
}

int dgemm_protected(gemm_t *g)
{
    const ft_backend_t *be = g->be;
    ft_context_t *ctx = g->ctx;
    const int64_t m = g->m, n = g->n, k = g->k;
    g->T = g->pol.tile > 0 ? g->pol.tile : dgemm_auto_tile(m, n);
    g->W = abft_wden(g->T);
    g->mb = (m + g->T - 1) / g->T;
    g->nb = (n + g->T - 1) / g->T;
    g->rsig = abft_gemm_rscale(g->T, k);
    g->sig = 1.0 / g->rsig;
    const int64_t nb = g->nb, T = g->T;
    const double sig = g->sig;
    g->have_c0 = g->beta != 0.0;
    FT_CHECK(workspace(g));
    if (!g->qs) FT_CHECK(ft_call_queue(g->call, &g->qs));
    FT_CHECK(ft_trace_start(g->call, g->qm));
    g->tissue = ft_traced(g->call) ? ft_wtime() : 0.0;
    chunk_plan(g);
    if (g->nch > 1) {
        ft_log(ctx, 3, "dgemm: C in %lld chunks of %lld columns", (long long)g->nch,
               (long long)g->cw);
        if (!g->qc) FT_CHECK(ft_call_queue_raised(g->call, &g->qc));
        if (!g->evc) {
            FT_CHECK(ft_call_event(g->call, &g->evc));
            FT_CHECK(ft_call_event(g->call, &g->evp));
        }
        FT_CHECK(be->fork(g->qm, g->qc)); /* C is in place (a copy in on the main queue) */
    }

    /* input C: its block sums (rows and columns), and a backup when asked (in chunks: the first
     * chunk's here, the others' beside the products) */
    int c0_done = 0;
    if (g->have_c0 && g->nch > 1) {
        FT_CHECK(c0_chunk(g, g->qm, 0));
        c0_done = 1;
    } else if (g->have_c0 && g->kern->c0_pass) {
        const int st = g->kern->c0_pass(g->qm, m, n, g->C, g->ldc, T, sig, g->C0S, g->C0A,
                                        g->C0col, g->C0colA, n, g->Cb);
        if (st < 0) return st;
        c0_done = st == 0; /* 1: a tile the kernel does not handle, the separate passes */
    }
    if (g->have_c0 && !c0_done) {
        FT_CHECK(be->block_sums(g->qm, 'N', m, n, g->C, g->ldc, T, sig, g->C0S, m, g->C0A, m));
        if (g->C0col)
            FT_CHECK(be->block_sums(g->qm, 'T', n, m, g->C, g->ldc, T, sig, g->C0col, n,
                                    g->C0colA, n));
        if (g->Cb) FT_CHECK(be->copy_matrix(g->qm, m, n, g->C, g->ldc, g->Cb, m));
    }
    /* encode on the side queue while the product runs on the main queue. The product is
     * issued first: issuing the encoding (a dozen launches and memsets) took the host ~75 us
     * at 2048^3 and ~130 us at 4096^3 on the H200, and the product waited for it (issue 12
     * session 45, bench_dgemm_gpu --trace); the side queue forks before it, so the encoding
     * does not wait for the product. Not when an operand fault is planned (it is applied after
     * the encoding has read the operand and before the product does) or the encoding is
     * serial. */
    ft_queue_t *qe = g->pol.serial_encode ? g->qm : g->qs;
    FT_CHECK(be->fork(g->qm, g->qs));
    const int opfaults = ctx->nfaults && !g->warm &&
                         (ft_inject_count(ctx, g->call->index, FT_REGION_A, g->inject_step) > 0 ||
                          ft_inject_count(ctx, g->call->index, FT_REGION_B, g->inject_step) > 0);
    static int encode_first = -1; /* FTLA_DGEMM_ENCODE_FIRST=1: the previous order, for
                                   * same-binary measurements */
    if (encode_first < 0) {
        const char *e = getenv("FTLA_DGEMM_ENCODE_FIRST");
        encode_first = e && e[0] == '1';
    }
    const int product_first = qe != g->qm && !opfaults && !encode_first;
    if (product_first) FT_CHECK(issue_product(g));
    const int sp_enc = gtb(g, qe, FT_PHASE_ENCODE);
    /* op(B)'s block sums, with B's digests from the same read where the backend has the fused
     * pass (every read of an operand here costs its bytes: docs/dgemm.md "Cost") */
    int bdig = 0;
    if (g->check_operands && g->kern->sums_digest && k > 0) {
        const int st = g->kern->sums_digest(qe, g->tb, k, n, g->B, g->ldb, T, sig, g->Y, k,
                                            g->Z, k, g->dg0 + g->nca);
        if (st < 0) return st;
        bdig = st == 0;
    }
    if (!bdig) FT_CHECK(be->block_sums(qe, g->tb, k, n, g->B, g->ldb, T, sig, g->Y, k, g->Z, k));
    FT_CHECK(be->col_absmax(qe, k, nb, g->Z, k, g->zmax));
    /* op(A): its norms, the prediction P and its digests in one read where the backend has the
     * fused kernel (A is read three times otherwise: 2 GB each at 16384 x 16384 on the GPU; on
     * the host the short products inside dormqr, where those reads cost more than the product) */
    int fused = 0;
    if (g->kern->encode_at && !ft_is_notrans(g->ta) && k > 0) {
        const int st = g->kern->encode_at(qe, k, m, g->A, g->lda, g->Y, k, (int)(2 * nb), sig,
                                          g->anorm, g->P, m, g->check_operands ? g->dg0 : NULL);
        if (st < 0) return st;
        fused = st == 0;
    } else if (g->kern->encode_an && ft_is_notrans(g->ta) && k > 0) {
        const int st = g->kern->encode_an(qe, m, k, g->A, g->lda, g->Y, k, (int)(2 * nb), sig,
                                          g->anorm, g->P, m, g->check_operands ? g->dg0 : NULL);
        if (st < 0) return st;
        fused = st == 0;
    }
    const int64_t ra = ft_is_notrans(g->ta) ? m : k, rb = ft_is_notrans(g->tb) ? k : n;
    if (!fused) {
        /* the norms of op(A), with A's digests where fused; then P in a product of its own */
        int adig = 0;
        if (g->check_operands && g->kern->sums_digest && k > 0) {
            const int st = g->kern->sums_digest(qe, g->ta, m, k, g->A, g->lda, k, sig, NULL, 0,
                                                g->anorm, m, g->dg0);
            if (st < 0) return st;
            adig = st == 0;
        }
        if (!adig)
            FT_CHECK(be->block_sums(qe, g->ta, m, k, g->A, g->lda, k, sig, NULL, 0, g->anorm, m));
        FT_CHECK(be->dgemm(qe, g->ta, 'N', m, 2 * nb, k, 1.0, g->A, g->lda, g->Y, k, 0.0, g->P,
                           m));
        if (g->check_operands && !adig) /* as read */
            FT_CHECK(be->digest(qe, ra, g->nca, g->A, g->lda, g->dg0));
    }
    if (g->check_operands && !bdig) /* B's digests, unless they came with its sums */
        FT_CHECK(be->digest(qe, rb, g->ncb, g->B, g->ldb, g->dg0 + g->nca));
    gte(g, sp_enc, qe);

    /* input corruption: after the encoding has read the operands, before the product does (the
     * product then waits for the encoding; only when an operand fault is planned: a call with a
     * fault planned in C alone keeps the encoding beside the product, as a clean call) */
    dgemm_opfaults_t opf = {.n = 0};
    if (ctx->nfaults && !g->warm) FT_CHECK(dgemm_inject_operands(g, g->qs, &opf));
    int st = dgemm_checked(g, product_first);
    int st2 = dgemm_restore_operands(g, &opf);
    return st ? st : st2;
}

/* Did an operand change between the encoding and the end of the product (policy.operand_check)?
 * A soft error in A or B after the checksums were taken makes the product disagree with them
 * by delta * (a row of B or a column of A): far above the threshold it shows in the checks, but
 * below it (a low mantissa bit) it can still break the accuracy contract (issue 7: most of the
 * campaign's silent faults below the limit were such). The digests are exact (bitwise), so any
 * change is seen. C was computed from the changed values and there is no clean copy to repair
 * from: reported, FT_ERR_UNCORRECTABLE, one event per operand (its first changed stored
 * column). Needs hdg on the host (copied on the side queue, which the main queue waits for
 * before its last sync). */
int dgemm_operands_changed(gemm_t *g, int *changed)
{
    FT_CHECK(g->be->sync(g->qm));
    const uint64_t *h0 = g->hdg, *h1 = g->hdg + g->nca + g->ncb;
    *changed = 0;
    for (int op = 0; op < 2; op++) {
        const int64_t c0 = op ? g->nca : 0, nc = op ? g->ncb : g->nca;
        int64_t first = -1, cnt = 0;
        for (int64_t c = 0; c < nc; c++)
            if (h0[c0 + c] != h1[c0 + c]) {
                if (first < 0) first = c;
                cnt++;
            }
        if (!cnt) continue;
        *changed = 1;
        g->rep->detected++;
        g->rep->uncorrectable++;
        ft_report_event(g->rep, FT_EVENT_UNCORRECTABLE, op ? FT_REGION_B : FT_REGION_A, -1, first,
                        -1, 0.0, 0.0);
        ft_log(g->ctx, 1, "dgemm: operand %c changed during the call (%lld stored column(s), "
               "first %lld): C was computed from changed values, not correctable",
               op ? 'B' : 'A', (long long)cnt, (long long)first);
    }
    return FT_SUCCESS;
}

/* The product on the main queue, between the events ev0 and ev1. Chunked: the result sums
 * beside the products (not for the warm-up, whose changed element comes after the product);
 * planned faults in C are applied chunk by chunk. */
static int issue_product(gemm_t *g)
{
    const ft_backend_t *be = g->be;
    const int early_sums = g->nch > 1 && !g->warm;
    chunk_faults_t cf = {.n = 0};
    if (early_sums && g->ctx->nfaults) chunk_faults_take(g, &cf);
    FT_CHECK(be->event_record(g->ev0, g->qm));
    const int sp = gtb(g, g->qm, FT_PHASE_UPDATE); /* ft_dgemm: the product */
    if (g->nch > 1)
        FT_CHECK(chunked_product(g, early_sums, &cf));
    else
        FT_CHECK(be->dgemm(g->qm, g->ta, g->tb, g->m, g->n, g->k, g->alpha, g->A, g->lda, g->B,
                           g->ldb, g->beta, g->C, g->ldc));
    gte(g, sp, g->qm);
    if (ft_traced(g->call)) ft_trace_host(g->call, FT_PHASE_ISSUE, -1, g->tissue, ft_wtime());
    return be->event_record(g->ev1, g->qm);
}

/* The product (unless issued already) and its verification, after the encoding was issued. */
static int dgemm_checked(gemm_t *g, int issued)
{
    const ft_backend_t *be = g->be;
    ft_context_t *ctx = g->ctx;
    const int64_t m = g->m, n = g->n, k = g->k, nb = g->nb, T = g->T;
    const int early_sums = g->nch > 1 && !g->warm; /* the result's sums came with the chunks */
    if (!issued) FT_CHECK(issue_product(g));
    FT_CHECK(be->fork(g->qs, g->qm));
    if (g->check_operands) {
        /* the operands as the product left them: on the side queue, beside the result's sums
         * on the main queue (three reads that the verification waits for together) */
        FT_CHECK(be->fork(g->qm, g->qs));
        const int sp = gtb(g, g->qs, FT_PHASE_AFTER);
        FT_CHECK(dgemm_digest_operands(g, g->qs, g->dg1));
        const int64_t nd = 2 * (g->nca + g->ncb);
        FT_CHECK(be->get_matrix(g->qs, nd, 1, (const double *)g->dg0, nd, (double *)g->hdg, nd));
        gte(g, sp, g->qs);
    }

    /* faults "during the computation": in the result, or in the predicted checksums */
    if (ctx->nfaults && !g->warm) {
        FT_CHECK(dgemm_inject(g, FT_REGION_C, g->C, m, n, g->ldc));
        FT_CHECK(dgemm_inject(g, FT_REGION_CHECKSUM, g->P, m, 2 * nb, m));
    }
    if (g->warm) FT_CHECK(be->set_elem(g->qm, g->C + 5 + 7 * g->ldc, 1e3));

    /* verify every (row, column block) */
    const int sp_ver = gtb(g, g->qm, FT_PHASE_VERIFY);
    if (!early_sums)
        FT_CHECK(be->block_sums(g->qm, 'N', m, n, g->C, g->ldc, T, g->sig, g->CS, m, g->CA, m));
    gte(g, sp_ver, g->qm);
    if (g->check_operands) FT_CHECK(be->fork(g->qs, g->qm)); /* the digests in hdg at the sync */
    dgemm_rowcheck_args_t args = {.m = m, .n = n, .nb = nb, .k = k, .T = T, .W = g->W, .alpha = g->alpha,
                                  .beta = g->beta, .tol = g->pol.tol, .rsig = g->rsig, .sums = g->CS,
                                  .abss = g->CA, .pred = g->P, .anorm = g->anorm,
                                  .zmax = g->zmax, .csums = g->have_c0 ? g->C0S : NULL,
                                  .cabss = g->have_c0 ? g->C0A : NULL};
    int64_t nf = 0, nu = 0;
    dgemm_flag_t *flags = NULL;
    const int timed = ctx->policy.verbose >= 3 || ft_traced(g->call);
    double tv0 = timed ? ft_wtime() : 0.0;
    FT_CHECK(g->kern->verify_rows(g->qm, &args, g->vdev, g->vhost, DGEMM_FLAG_CAP, &flags, &nf,
                                  &nu));
    double tv1 = timed ? ft_wtime() : 0.0;
    if (ft_traced(g->call)) ft_trace_host(g->call, FT_PHASE_WAIT, -1, tv0, tv1);
    g->rep->checks += m * nb;
    g->rep->unchecked += nu;
    int st = FT_SUCCESS;
    if (nu > 0) {
        /* a check could not be evaluated: NaN/Inf inputs (IEEE semantics, status 0), or finite
         * inputs whose result or checksums overflow — then the call says so (issue 7) */
        int fin = 0;
        FT_CHECK(inputs_finite(g, &fin));
        if (fin) {
            st = FT_ERR_UNCHECKED;
            ft_log(ctx, 1, "dgemm: %lld checks could not be evaluated on finite inputs (overflow)",
                   (long long)nu);
        }
    }
    if (g->check_operands) {
        int changed = 0;
        FT_CHECK(dgemm_operands_changed(g, &changed));
        if (changed) return FT_ERR_UNCORRECTABLE; /* nothing to repair from */
    }
    if (nf > 0) {
        ft_log(ctx, 2, "dgemm: %lld failing row checks", (long long)nf);
        int st2 = dgemm_repair(g, flags, nf);
        if (st2) st = st2; /* uncorrectable outranks unchecked */
    }
    if (ctx->policy.verbose >= 3)
        ft_log(ctx, 3, "dgemm timing: product+verify wait %.3f ms, repair %.3f ms",
               (tv1 - tv0) * 1e3, (ft_wtime() - tv1) * 1e3);
    if (ft_traced(g->call)) ft_trace_host(g->call, FT_PHASE_CHECKS, -1, tv1, ft_wtime());
    return st;
}

/* dgemm_internal.h */
int dgemm_warm_repair(ft_call_t *c, const dgemm_kernels_t *kern)
{
    enum { N = 192 };
    const ft_backend_t *be = c->be;
    int marks[2];
    ft_call_mark(c, marks);
    double *h = NULL, *d = NULL;
    int st = ft_call_pinned_doubles(c, N * N, &h);
    if (!st) st = ft_call_work_doubles(c, 3 * N * N, &d);
    for (int64_t i = 0; !st && i < N * N; i++) h[i] = (double)(i % 13) - 6.0;
    if (!st) st = be->set_matrix(c->main, N, N, h, N, d, N);
    if (!st) st = be->set_matrix(c->main, N, N, h, N, d + N * N, N);
    static const char tr[3][2] = {{'N', 'N'}, {'T', 'N'}, {'N', 'T'}};
    ft_queue_t *qs = NULL;
    const int verbose = c->ctx->policy.verbose; /* the changed element is not the caller's */
    c->ctx->policy.verbose = 0;
    for (int v = 0; !st && v < 3; v++) {
        ft_report_t scratch;
        memset(&scratch, 0, sizeof scratch);
        gemm_t w = {.call = c, .ctx = c->ctx, .be = be, .kern = kern, .rep = &scratch,
                    .pol = c->pol, .qm = c->main, .ta = tr[v][0], .tb = tr[v][1], .m = N,
                    .n = N, .k = N, .alpha = 1.0, .beta = 0.0, .A = d, .B = d + N * N,
                    .C = d + 2 * N * N, .lda = N, .ldb = N, .ldc = N, .inject_step = -1,
                    .warm = 1, .qs = qs};
        w.pol.protect = FT_PROTECT_ABFT;
        w.pol.tile = 64;
        w.pol.verbose = 0;
        st = ft_call_event(c, &w.ev0);
        if (!st) st = ft_call_event(c, &w.ev1);
        if (!st) st = dgemm_protected(&w);
        if (!st) st = be->sync(c->main);
        qs = w.qs;
    }
    c->ctx->policy.verbose = verbose;
    ft_call_release(c, marks);
    return st;
}
