/*
 * dgemm_ooc.c — ft_dgemm with host data larger than the work memory it may use (issue 12
 * item 2; docs/dgemm.md "Out of core"; paper 003, strategies 2-3).
 *
 * C is computed in blocks of mc x nc; for each block, op(A)'s block row and op(B)'s block
 * column stream through two pairs of work buffers in chunks of kc (double buffering): chunk l
 * is C_blk := alpha A_l B_l + beta_l C_blk (beta_0 = beta, then 1), each chunk a protected
 * product of its own (the ABFT fast and rare paths, or TMR, on work memory), so every chunk is
 * verified and corrected before the next one adds to it. A block goes back to the caller's C
 * only when all its chunks are verified; a chunk that stays uncorrectable leaves the caller's
 * block untouched and the block is computed again from the start (once) after the others.
 *
 * On CUDA a producer thread copies chunk t + 1 (and t + 2) into the free buffers on a copy
 * queue while the caller's thread runs chunk t: the copies overlap the products. On the host
 * backend (and for the recomputation) the copies are made in line, so the same scheduler and
 * block arithmetic run in CI with a forced limit (policy.gpu_memory / FTLA_GPU_MEMORY).
 *
 * Faults planned for the call: fault.step names the sub-product (chunks numbered over the
 * blocks in order, -1: the first) and row/col are within its C block.
 */
#include "blas3/dgemm_internal.h"
#include "core/size.h"
#include "core/team.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the limit and the plan ---- */

/* FTLA_GPU_MEMORY in bytes (a number with an optional K, M, G or T suffix); 0 when unset or
 * unparsable. Read at each call (a test may set it between calls). */
static double env_limit(void)
{
    const char *e = getenv("FTLA_GPU_MEMORY");
    if (!e || !*e) return 0.0;
    char *end;
    double x = strtod(e, &end);
    switch (*end) {
    case 'k': case 'K': x *= 1024.0; break;
    case 'm': case 'M': x *= 1048576.0; break;
    case 'g': case 'G': x *= 1073741824.0; break;
    case 't': case 'T': x *= 1099511627776.0; break;
    default: break;
    }
    return x > 0 && isfinite(x) ? x : 0.0;
}

double dgemm_ooc_limit(const ft_call_t *c)
{
    if (c->pol.gpu_memory > 0) return c->pol.gpu_memory;
    return env_limit();
}

/* Work-memory elements one chunk's protected product takes beyond its operands and C block. */
int64_t dgemm_sub_work(const ft_policy_t *pol, int64_t m, int64_t n, int64_t k, char ta, char tb)
{
    if (pol->protect == FT_PROTECT_OFF) return 0;
    const int64_t nca = ft_is_notrans(ta) ? k : m, ncb = ft_is_notrans(tb) ? n : k;
    const int64_t dig = 2 * (nca + ncb) + 64;
    if (pol->protect == FT_PROTECT_TMR) return 3 * m * n + 3 + dig;
    const int64_t T = pol->tile > 0 ? pol->tile : dgemm_auto_tile(m, n);
    const int64_t e = dgemm_check_elems(m, n, k, T, 1, 1);
    if (e < 0) return -1;
    return e + dig + (int64_t)(dgemm_verify_bytes(DGEMM_FLAG_CAP) / sizeof(double)) + 64;
}

static int64_t need(const ft_policy_t *pol, int ncbuf, int64_t mc, int64_t nc, int64_t kc,
                    char ta, char tb)
{
    const int64_t w = dgemm_sub_work(pol, mc, nc, kc, ta, tb);
    if (w < 0) return -1;
    return ncbuf * mc * nc + 2 * (mc * kc + kc * nc) + w;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ncbuf C block buffers, chunks of s / kdiv */
static int plan_with(const ft_policy_t *pol, char ta, char tb, int64_t m, int64_t n, int64_t k,
                     int64_t budget, int ncbuf, int64_t kdiv, dgemm_ooc_plan_t *p)
{
    /* square C blocks of side s (at most m x n), chunks of s / 2 (at most k): the largest s
     * that fits. C is read and written once; A is read n / nc times, B m / mc times, so the
     * traffic falls with s; chunks of s / 2 keep the products' rate and the per-chunk checks'
     * share small */
    const int64_t kk = k > 0 ? k : 1;
    int64_t s = m > n ? m : n;
    if (kk > s) s = kk;
    for (;;) {
        const int64_t mc = m < s ? m : s, nc = n < s ? n : s;
        int64_t kc = s / kdiv > 0 ? s / kdiv : 1;
        if (kc > kk) kc = kk;
        const int64_t e = need(pol, ncbuf, mc, nc, kc, ta, tb);
        if (e >= 0 && e <= budget) break;
        if (s <= 8) return FT_ERR_TOO_LARGE;
        s = s * 7 / 8;
    }
    /* balance: equal blocks and chunks (the last one at most as large) */
    int64_t mc = m < s ? m : s, nc = n < s ? n : s, kc = s / kdiv > 0 ? s / kdiv : 1;
    if (kc > kk) kc = kk;
    p->nbm = cdiv(m, mc), p->nbn = cdiv(n, nc), p->nbk = cdiv(kk, kc);
    p->mc = cdiv(m, p->nbm), p->nc = cdiv(n, p->nbn), p->kc = cdiv(kk, p->nbk);
    p->ncbuf = ncbuf;
    p->elems = need(pol, ncbuf, p->mc, p->nc, p->kc, ta, tb);
    return p->elems >= 0 && p->elems <= budget ? FT_SUCCESS : FT_ERR_TOO_LARGE;
}

int dgemm_ooc_plan(const ft_policy_t *pol, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   int64_t budget, dgemm_ooc_plan_t *p)
{
    return plan_with(pol, ta, tb, m, n, k, budget, 1, 2, p);
}

int dgemm_ooc_plan2(const ft_policy_t *pol, char ta, char tb, int64_t m, int64_t n, int64_t k,
                    int64_t budget, dgemm_ooc_plan_t *p)
{
    return plan_with(pol, ta, tb, m, n, k, budget, 2, 4, p);
}

int dgemm_ooc_choose(const ft_policy_t *pol, ft_device_t kind, char ta, char tb, int64_t m,
                     int64_t n, int64_t k, int64_t budget, dgemm_ooc_plan_t *p)
{
    FT_CHECK(dgemm_ooc_plan(pol, ta, tb, m, n, k, budget, p));
    const char *e = getenv("FTLA_OOC_CBUFS");
    if (kind != FT_DEVICE_CUDA || p->nbm * p->nbn < 2 || (e && atoi(e) == 1)) return FT_SUCCESS;
    dgemm_ooc_plan_t p2;
    if (dgemm_ooc_plan2(pol, ta, tb, m, n, k, budget, &p2) == FT_SUCCESS &&
        p2.nbm * p2.nbn <= p->nbm * p->nbn)
        *p = p2;
    return FT_SUCCESS;
}

/* ---- the scheduler ---- */

#define OOC_RING ((int64_t)4 << 20) /* doubles in a slot of the pinned ring (32 MB) */
#define OOC_NRING 4                 /* the producer's slots */
#define OOC_NSLOT (OOC_NRING + 4)   /* and the caller's thread's two, the storer's two */

typedef struct {
    gemm_t *g; /* the call: host A, B, C */
    dgemm_ooc_plan_t p;
    int64_t nchunks;
    double *dC; /* the current block's buffer: dCb[b % p.ncbuf] */
    double *dCb[2], *dA[2], *dB[2];
    int64_t lda_c[2], ldb_c[2];
    ft_queue_t *qc;
    ft_qevent_t *ev[2];
    /* producer / consumer */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t produced, consumed;
    int stop, perr;
    int unchecked; /* a chunk's checks could not be evaluated (finite inputs, overflow) */
    /* CUDA: host memory suited to asynchronous copies, in slots of RING doubles: the producer's
     * NRING (A and B chunks), the caller's thread's two (the C block in) and the storer's two
     * (the C block out). Pageable data goes through them: packed by the host threads, then
     * copied without the driver's staging */
    double *ring[OOC_NSLOT];
    ft_qevent_t *rev[OOC_NSLOT];
    int64_t rnext;
    /* the storer (p.ncbuf = 2): a thread that copies a verified block back to the caller's C
     * from its buffer on its own queue while the caller's thread computes the next block in
     * the other buffer; sq holds the buffers queued, in order */
    ft_queue_t *qd;
    int sstarted, sstop, serr;
    int sbusy[2], sq[2], sqh, sqn;
    int64_t sblock[2];
} ooc_t;

/* ---- copies through the pinned ring ---- */

/* Host rows x cols (ld ldh) to work memory d (ld ldd) on q through ring slots [s0, s0 + ns),
 * *next the slot counter: each piece packed into a slot whose previous copy has completed. */
static int put_ring(ooc_t *o, ft_queue_t *q, int s0, int ns, int64_t *next, int64_t rows,
                    int64_t cols, const double *h, int64_t ldh, double *d, int64_t ldd)
{
    const ft_backend_t *be = o->g->be;
    const int64_t per = rows > 0 && rows <= OOC_RING ? OOC_RING / rows : 0;
    if (per == 0) return be->set_matrix(q, rows, cols, h, ldh, d, ldd); /* a column > a slot */
    for (int64_t j = 0; j < cols; j += per) {
        const int64_t nc = cols - j < per ? cols - j : per;
        const int s = s0 + (int)((*next)++ % ns);
        if (*next > ns) FT_CHECK(be->event_sync(o->rev[s])); /* its last copy has landed */
        ft_team_copy(rows, nc, h + j * ldh, ldh, o->ring[s], rows);
        FT_CHECK(be->set_matrix(q, rows, nc, o->ring[s], rows, d + j * ldd, ldd));
        FT_CHECK(be->event_record(o->rev[s], q));
    }
    return FT_SUCCESS;
}

/* Work memory d to host through two slots s0, s0 + 1: copy a piece, wait, unpack. */
static int get_ring(ooc_t *o, ft_queue_t *q, int s0, int64_t rows, int64_t cols, const double *d,
                    int64_t ldd, double *h, int64_t ldh)
{
    const ft_backend_t *be = o->g->be;
    const int64_t per = rows > 0 && rows <= OOC_RING ? OOC_RING / rows : 0;
    if (per == 0) {
        FT_CHECK(be->get_matrix(q, rows, cols, d, ldd, h, ldh));
        return be->sync(q);
    }
    int64_t j0 = 0, pend = -1; /* the piece in flight: columns [pend, pend + its width) */
    for (int64_t it = 0; j0 < cols || pend >= 0; it++) {
        int64_t issued = -1;
        if (j0 < cols) { /* the next piece into slot it % 2 */
            const int64_t nc = cols - j0 < per ? cols - j0 : per;
            const int s = s0 + (int)(it % 2);
            FT_CHECK(be->get_matrix(q, rows, nc, d + j0 * ldd, ldd, o->ring[s], rows));
            FT_CHECK(be->event_record(o->rev[s], q));
            issued = j0;
            j0 += nc;
        }
        if (pend >= 0) { /* the previous piece: wait, unpack while the next one copies */
            const int s = s0 + (int)((it - 1) % 2);
            const int64_t nc = cols - pend < per ? cols - pend : per;
            FT_CHECK(be->event_sync(o->rev[s]));
            ft_team_copy(rows, nc, o->ring[s], rows, h + pend * ldh, ldh);
        }
        pend = issued;
    }
    return FT_SUCCESS;
}

/* Chunk t's block and slice. */
static void chunk_of(const ooc_t *o, int64_t t, int64_t *i0, int64_t *j0, int64_t *l0,
                     int64_t *mi, int64_t *nj, int64_t *kl)
{
    const dgemm_ooc_plan_t *p = &o->p;
    const int64_t l = t % p->nbk, b = t / p->nbk, bj = b % p->nbn, bi = b / p->nbn;
    *i0 = bi * p->mc, *j0 = bj * p->nc, *l0 = l * p->kc;
    *mi = o->g->m - *i0 < p->mc ? o->g->m - *i0 : p->mc;
    *nj = o->g->n - *j0 < p->nc ? o->g->n - *j0 : p->nc;
    *kl = o->g->k - *l0 < p->kc ? o->g->k - *l0 : p->kc;
}

/* Host to work memory: through the producer's ring slots on the producer's queue, else
 * directly. */
static int put(ooc_t *o, ft_queue_t *q, int64_t rows, int64_t cols, const double *h, int64_t ldh,
               double *d, int64_t ldd)
{
    if (o->ring[0] && q == o->qc)
        return put_ring(o, q, 0, OOC_NRING, &o->rnext, rows, cols, h, ldh, d, ldd);
    return o->g->be->set_matrix(q, rows, cols, h, ldh, d, ldd);
}

/* Copy chunk t's op(A) rows x k-slice and op(B) k-slice x columns into slot t % 2 on q. */
static int copy_chunk(ooc_t *o, ft_queue_t *q, int64_t t)
{
    const gemm_t *g = o->g;
    int64_t i0, j0, l0, mi, nj, kl;
    chunk_of(o, t, &i0, &j0, &l0, &mi, &nj, &kl);
    const int s = (int)(t % 2);
    if (kl <= 0 || g->alpha == 0.0) return FT_SUCCESS; /* C := beta C: no operands */
    if (ft_is_notrans(g->ta)) { /* A(i0:, l0:), mi x kl, ld mi */
        o->lda_c[s] = mi;
        FT_CHECK(put(o, q, mi, kl, g->A + i0 + l0 * g->lda, g->lda, o->dA[s], mi));
    } else { /* A stored k x m: A(l0:, i0:), kl x mi, ld kl */
        o->lda_c[s] = kl;
        FT_CHECK(put(o, q, kl, mi, g->A + l0 + i0 * g->lda, g->lda, o->dA[s], kl));
    }
    if (ft_is_notrans(g->tb)) { /* B(l0:, j0:), kl x nj */
        o->ldb_c[s] = kl;
        FT_CHECK(put(o, q, kl, nj, g->B + l0 + j0 * g->ldb, g->ldb, o->dB[s], kl));
    } else { /* B stored n x k: B(j0:, l0:), nj x kl */
        o->ldb_c[s] = nj;
        FT_CHECK(put(o, q, nj, kl, g->B + j0 + l0 * g->ldb, g->ldb, o->dB[s], nj));
    }
    return FT_SUCCESS;
}

static void *producer(void *arg)
{
    ooc_t *o = arg;
    for (int64_t t = 0; t < o->nchunks; t++) {
        pthread_mutex_lock(&o->mu);
        while (t - o->consumed >= 2 && !o->stop) pthread_cond_wait(&o->cv, &o->mu);
        const int stop = o->stop;
        pthread_mutex_unlock(&o->mu);
        if (stop) break;
        int st = copy_chunk(o, o->qc, t);
        if (!st) st = o->g->be->event_record(o->ev[t % 2], o->qc);
        pthread_mutex_lock(&o->mu);
        if (st) o->perr = st;
        o->produced = t + 1;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
        if (st) break;
    }
    return NULL;
}

/* One chunk's protected product on the block in work memory. */
static int sub_product(ooc_t *o, int64_t t, int first, int64_t mi, int64_t nj, int64_t kl)
{
    gemm_t *g = o->g;
    const int s = (int)(t % 2);
    const int scale_only = kl <= 0 || g->alpha == 0.0;
    gemm_t sub = {.call = g->call, .ctx = g->ctx, .be = g->be, .kern = g->kern, .rep = g->rep,
                  .pol = g->pol, .qm = g->qm, .qs = g->qs, .ev0 = g->ev0, .ev1 = g->ev1,
                  .qc = g->qc, .evc = g->evc, .evp = g->evp,
                  .ta = g->ta, .tb = g->tb, .m = mi, .n = nj, .k = scale_only ? 0 : kl,
                  .alpha = g->alpha, .beta = first ? g->beta : 1.0, .A = o->dA[s],
                  .B = o->dB[s], .C = o->dC, .lda = o->lda_c[s], .ldb = o->ldb_c[s], .ldc = mi,
                  .inject_step = t};
    sub.pol.backup_c = 0; /* the caller's C is the backup: a failed block starts again */
    int marks[2];
    ft_call_mark(g->call, marks);
    int st = dgemm_run(&sub, scale_only);
    const int st2 = g->be->sync(g->qm);
    ft_call_release(g->call, marks);
    g->qs = sub.qs; /* taken by the first chunk, kept for the others */
    g->qc = sub.qc, g->evc = sub.evc, g->evp = sub.evp; /* likewise for chunked products */
    return st ? st : st2;
}

/* The input C of block b (beta != 0) into the block buffer on the main queue: through the
 * caller's two ring slots when there is a ring, else directly. */
static int block_in(ooc_t *o, int64_t b)
{
    gemm_t *g = o->g;
    if (g->beta == 0.0) return FT_SUCCESS;
    int64_t i0, j0, l0, mi, nj, kl;
    chunk_of(o, b * o->p.nbk, &i0, &j0, &l0, &mi, &nj, &kl);
    const double *h = g->C + i0 + j0 * g->ldc;
    if (!o->ring[0]) return g->be->set_matrix(g->qm, mi, nj, h, g->ldc, o->dC, mi);
    int64_t next = 0;
    return put_ring(o, g->qm, OOC_NRING, 2, &next, mi, nj, h, g->ldc, o->dC, mi);
}

/* Block b in line (the host backend, and the recomputation of a failed block): its chunks
 * copied on the main queue. Returns the worst status of its chunks. */
static int block_inline(ooc_t *o, int64_t b, int *bad)
{
    gemm_t *g = o->g;
    *bad = 0;
    for (int64_t l = 0; l < o->p.nbk; l++) {
        const int64_t t = b * o->p.nbk + l;
        int64_t i0, j0, l0, mi, nj, kl;
        chunk_of(o, t, &i0, &j0, &l0, &mi, &nj, &kl);
        if (l == 0) FT_CHECK(block_in(o, b));
        FT_CHECK(copy_chunk(o, g->qm, t));
        int st = sub_product(o, t, l == 0, mi, nj, kl);
        if (st == FT_ERR_UNCORRECTABLE) *bad = st;
        else if (st == FT_ERR_UNCHECKED) o->unchecked = 1;
        else if (st) return st;
    }
    return FT_SUCCESS;
}

/* Block b from its buffer d to the caller's C on q (ring slots s0, s0 + 1); returns when done. */
static int block_out(ooc_t *o, ft_queue_t *q, int s0, int64_t b, const double *d)
{
    gemm_t *g = o->g;
    int64_t i0, j0, l0, mi, nj, kl;
    chunk_of(o, b * o->p.nbk, &i0, &j0, &l0, &mi, &nj, &kl);
    if (o->ring[0]) return get_ring(o, q, s0, mi, nj, d, mi, g->C + i0 + j0 * g->ldc, g->ldc);
    FT_CHECK(g->be->get_matrix(q, mi, nj, d, mi, g->C + i0 + j0 * g->ldc, g->ldc));
    return g->be->sync(q);
}

static void *storer(void *arg)
{
    ooc_t *o = arg;
    for (;;) {
        pthread_mutex_lock(&o->mu);
        while (o->sqn == 0 && !o->sstop) pthread_cond_wait(&o->cv, &o->mu);
        if (o->sqn == 0) {
            pthread_mutex_unlock(&o->mu);
            break;
        }
        const int buf = o->sq[o->sqh];
        const int64_t b = o->sblock[buf];
        pthread_mutex_unlock(&o->mu);
        const int st = block_out(o, o->qd, OOC_NRING + 2, b, o->dCb[buf]);
        pthread_mutex_lock(&o->mu);
        o->sqh = (o->sqh + 1) % 2;
        o->sqn--;
        o->sbusy[buf] = 0;
        if (st && !o->serr) o->serr = st;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
    }
    return NULL;
}

/* The storer's error, or 0 once buffer buf is free (buf < 0: every buffer). */
static int storer_wait(ooc_t *o, int buf)
{
    pthread_mutex_lock(&o->mu);
    while (!o->serr && (buf >= 0 ? o->sbusy[buf] : o->sqn > 0)) pthread_cond_wait(&o->cv, &o->mu);
    const int st = o->serr;
    pthread_mutex_unlock(&o->mu);
    return st;
}

int dgemm_ooc(gemm_t *g, int64_t budget)
{
    ft_call_t *c = g->call;
    const ft_backend_t *be = g->be;
    ooc_t o;
    memset(&o, 0, sizeof o);
    o.g = g;
    /* on a device with several blocks: two C buffers, each block stored while the next one
     * computes (dgemm_ooc_choose) */
    FT_CHECK(dgemm_ooc_choose(&g->pol, be->kind, g->ta, g->tb, g->m, g->n, g->k, budget, &o.p));
    const dgemm_ooc_plan_t *p = &o.p;
    const int64_t nblocks = p->nbm * p->nbn;
    o.nchunks = nblocks * p->nbk;
    ft_log(g->ctx, 2, "dgemm: out of core, %lld x %lld blocks of %lld x %lld, %lld chunks of "
           "%lld, %d C buffer(s) (%lld MB of work memory)", (long long)p->nbm, (long long)p->nbn,
           (long long)p->mc, (long long)p->nc, (long long)p->nbk, (long long)p->kc, p->ncbuf,
           (long long)(p->elems >> 17));
    for (int s = 0; s < p->ncbuf; s++) FT_CHECK(ft_call_work_doubles(c, p->mc * p->nc, &o.dCb[s]));
    o.dC = o.dCb[0];
    for (int s = 0; s < 2; s++) {
        FT_CHECK(ft_call_work_doubles(c, p->mc * p->kc, &o.dA[s]));
        FT_CHECK(ft_call_work_doubles(c, p->kc * p->nc, &o.dB[s]));
    }
    int *bad = calloc((size_t)nblocks, sizeof *bad);
    int64_t *unc = calloc((size_t)nblocks, sizeof *unc); /* what each block's chunks reported */
    if (!bad || !unc) {
        free(bad), free(unc);
        return FT_ERR_ALLOC;
    }
    int st = FT_SUCCESS;
    /* a producer thread on a device backend with its own queue; in line otherwise */
    const int threaded = be->kind == FT_DEVICE_CUDA && o.nchunks > 1;
    pthread_t th, sth;
    int started = 0;
    /* pageable data through the ring; the caller's pinned memory is copied from directly */
    const int pinned = be->host_pinned && be->host_pinned(g->A) && be->host_pinned(g->B) &&
                       be->host_pinned(g->C);
    if (threaded) {
        st = ft_call_queue(c, &o.qc);
        for (int s = 0; !st && s < 2; s++) st = ft_call_event(c, &o.ev[s]);
        const int nslot = OOC_NRING + 2 * p->ncbuf;
        for (int s = 0; !st && !pinned && s < nslot; s++) {
            st = ft_call_pinned_doubles(c, OOC_RING, &o.ring[s]);
            if (!st) st = ft_call_event(c, &o.rev[s]);
        }
        if (!st && p->ncbuf == 2) st = ft_call_queue(c, &o.qd);
        if (!st && (pthread_mutex_init(&o.mu, NULL) || pthread_cond_init(&o.cv, NULL)))
            st = FT_ERR_ALLOC;
        if (!st && pthread_create(&th, NULL, producer, &o) == 0) started = 1;
        if (started && p->ncbuf == 2 && pthread_create(&sth, NULL, storer, &o) == 0)
            o.sstarted = 1;
    }
    for (int64_t b = 0; !st && b < nblocks; b++) {
        const int64_t unc0 = g->rep->uncorrectable;
        if (!started) {
            st = block_inline(&o, b, &bad[b]);
            unc[b] = g->rep->uncorrectable - unc0;
            if (!st && !bad[b]) st = block_out(&o, g->qm, OOC_NRING, b, o.dC);
            continue;
        }
        const int buf = (int)(b % p->ncbuf);
        if (o.sstarted) st = storer_wait(&o, buf); /* its previous block is back in C */
        o.dC = o.dCb[buf];
        for (int64_t l = 0; !st && l < p->nbk; l++) {
            const int64_t t = b * p->nbk + l;
            int64_t i0, j0, l0, mi, nj, kl;
            chunk_of(&o, t, &i0, &j0, &l0, &mi, &nj, &kl);
            if (l == 0) st = block_in(&o, b);
            pthread_mutex_lock(&o.mu);
            while (o.produced <= t && !o.perr) pthread_cond_wait(&o.cv, &o.mu);
            if (!st && o.perr) st = o.perr;
            pthread_mutex_unlock(&o.mu);
            if (!st) st = be->event_sync(o.ev[t % 2]);
            if (!st) {
                const int s2 = sub_product(&o, t, l == 0, mi, nj, kl);
                if (s2 == FT_ERR_UNCORRECTABLE) bad[b] = s2;
                else if (s2 == FT_ERR_UNCHECKED) o.unchecked = 1;
                else st = s2;
            }
            pthread_mutex_lock(&o.mu);
            o.consumed = t + 1;
            pthread_cond_broadcast(&o.cv);
            pthread_mutex_unlock(&o.mu);
        }
        unc[b] = g->rep->uncorrectable - unc0;
        if (!st && !bad[b] && o.sstarted) { /* verified: to the storer (the products synced) */
            pthread_mutex_lock(&o.mu);
            o.sblock[buf] = b;
            o.sbusy[buf] = 1;
            o.sq[(o.sqh + o.sqn) % 2] = buf;
            o.sqn++;
            pthread_cond_broadcast(&o.cv);
            pthread_mutex_unlock(&o.mu);
        } else if (!st && !bad[b]) {
            st = block_out(&o, g->qm, OOC_NRING, b, o.dC);
        }
    }
    if (o.sstarted) { /* every queued block back, then the storer ends */
        const int s4 = storer_wait(&o, -1);
        if (!st) st = s4;
        pthread_mutex_lock(&o.mu);
        o.sstop = 1;
        pthread_cond_broadcast(&o.cv);
        pthread_mutex_unlock(&o.mu);
        pthread_join(sth, NULL);
        const int s5 = be->sync(o.qd);
        if (!st) st = s5;
    }
    if (started) {
        pthread_mutex_lock(&o.mu);
        o.stop = 1;
        pthread_cond_broadcast(&o.cv);
        pthread_mutex_unlock(&o.mu);
        pthread_join(th, NULL);
        const int s3 = be->sync(o.qc);
        if (!st) st = s3;
    }
    if (threaded) {
        pthread_cond_destroy(&o.cv);
        pthread_mutex_destroy(&o.mu);
    }
    /* the blocks with an uncorrectable or unchecked chunk: once more, in line, from the
     * caller's C (untouched); what fails again goes back as it is, and the call says so */
    int worst = FT_SUCCESS;
    for (int64_t b = 0; !st && b < nblocks; b++) {
        if (!bad[b]) continue;
        g->rep->recomputed++;
        ft_report_event(g->rep, FT_EVENT_RECOMPUTED, FT_REGION_C, -1, -1, b * p->nbk, 0.0, 0.0);
        ft_log(g->ctx, 1, "dgemm: out-of-core block %lld uncorrectable: computed again",
               (long long)b);
        int again = 0;
        o.dC = o.dCb[0];
        st = block_inline(&o, b, &again);
        if (!st) st = block_out(&o, g->qm, OOC_NRING, b, o.dC);
        if (again) worst = again;
        /* computed again from the caller's C: what its first pass could not correct is not in
         * the result (the events stay, followed by FT_EVENT_RECOMPUTED) */
        else g->rep->uncorrectable -= unc[b];
    }
    free(bad), free(unc);
    if (st) return st;
    return worst ? worst : o.unchecked ? FT_ERR_UNCHECKED : FT_SUCCESS;
}
