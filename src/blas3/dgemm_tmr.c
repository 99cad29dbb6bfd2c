/*
 * dgemm_tmr.c — ft_dgemm's TMR mode (policy.protect = FT_PROTECT_TMR; docs/dgemm.md "TMR"):
 * triple modular redundancy instead of checksums. The product runs three times, into C and two
 * replicas R1, R2 in work memory, and one pass votes element by element, bit for bit
 * (dgemm_kernels.h tmr_vote): where one replica differs from the two others it is outvoted
 * (C takes the majority's value); where all three differ, a fourth product R1' is computed
 * and a second vote between C, R1' and R2 settles the element; what that cannot settle is
 * reported FT_ERR_UNCORRECTABLE. The three products are the same routine on the same data
 * (the backend's dgemm on one queue), so an error-free element agrees bit for bit.
 *
 * beta != 0: the input C is kept (C0) and the replicas start from copies of it. The operands are
 * digested before the first product (before it starts: a change the first product missed
 * but the digest saw would let the two later products outvote it unseen) and after the third
 * (on a side queue, beside the vote), as in the ABFT path (policy.operand_check): a change of A
 * or B during the call would make the later products agree on a wrong value, so it is reported,
 * never voted through. Injection (FT_REGION_C: the result; FT_REGION_
 * CHECKSUM: replica 1, or replica 2 with fault.step = 2; A and B: after the first product).
 */
#include "blas3/dgemm_internal.h"
#include "core/inject.h"
#include "core/size.h"

#include <stdint.h>

/* The faults planned for the replicas (FT_REGION_CHECKSUM): replica 2 when step == 2. */
static int inject_replicas(gemm_t *g, double *R1, double *R2)
{
    ft_fault_t f[FT_MAX_FAULTS];
    const int nf =
        ft_inject_take(g->ctx, g->call->index, FT_REGION_CHECKSUM, g->inject_step, f, FT_MAX_FAULTS);
    for (int i = 0; i < nf; i++) {
        /* in-core calls: step 2 names replica 2 (out of core the step names the chunk) */
        double *X = g->inject_step < 0 && f[i].step == 2 ? R2 : R1;
        FT_CHECK(ft_inject_apply(g->ctx, g->be, g->qm, &f[i], X, g->m, g->n, g->m, -1, g->rep, NULL,
                                 NULL));
    }
    return FT_SUCCESS;
}

/* One vote; the three counts back on the host in h. */
static int vote(gemm_t *g, double *R1, double *R2, uint64_t *d, uint64_t *h)
{
    FT_CHECK(g->kern->tmr_vote(g->qm, g->m, g->n, g->C, g->ldc, R1, R2, g->m, d));
    FT_CHECK(g->be->get_matrix(g->qm, 3, 1, (const double *)d, 3, (double *)h, 3));
    return g->be->sync(g->qm);
}

static int product(gemm_t *g, double *X, int64_t ldx)
{
    return g->be->dgemm(g->qm, g->ta, g->tb, g->m, g->n, g->k, g->alpha, g->A, g->lda, g->B, g->ldb,
                        g->beta, X, ldx);
}

int dgemm_tmr(gemm_t *g)
{
    const ft_backend_t *be = g->be;
    ft_report_t *rep = g->rep;
    const int64_t m = g->m, n = g->n;
    const int have_c0 = g->beta != 0.0;
    if (!g->kern->tmr_vote) return FT_ERR_INTERNAL;
    /* R1, R2 (m x n, ld m), C0 (beta != 0), the vote's counts */
    int64_t t[] = {m, n, m, n, have_c0 ? m : 0, n, 3, 1}, elems;
    if (ft_sum_of_products(4, t, &elems)) return FT_ERR_TOO_LARGE;
    double *w, *hw;
    FT_CHECK(ft_call_work_doubles(g->call, elems, &w));
    FT_CHECK(ft_call_pinned_doubles(g->call, 3, &hw));
    double *R1 = w, *R2 = w + m * n, *C0 = have_c0 ? w + 2 * m * n : NULL;
    uint64_t *dcnt = (uint64_t *)(w + (2 + have_c0) * m * n), *hcnt = (uint64_t *)hw;
    FT_CHECK(dgemm_operand_workspace(g));
    if (have_c0) {
        FT_CHECK(be->copy_matrix(g->qm, m, n, g->C, g->ldc, C0, m));
        FT_CHECK(be->copy_matrix(g->qm, m, n, C0, m, R1, m));
        FT_CHECK(be->copy_matrix(g->qm, m, n, C0, m, R2, m));
    }
    if (g->check_operands) FT_CHECK(dgemm_digest_operands(g, g->qm, g->dg0));
    FT_CHECK(be->event_record(g->ev0, g->qm));
    FT_CHECK(product(g, g->C, g->ldc));
    FT_CHECK(be->event_record(g->ev1, g->qm));
    dgemm_opfaults_t opf = {.n = 0};
    if (g->ctx->nfaults) FT_CHECK(dgemm_inject_operands(g, NULL, &opf));
    FT_CHECK(product(g, R1, m));
    FT_CHECK(product(g, R2, m));
    if (g->check_operands) { /* the operands after the third product, beside the vote */
        if (!g->qs) FT_CHECK(ft_call_queue(g->call, &g->qs));
        FT_CHECK(be->fork(g->qm, g->qs));
        FT_CHECK(dgemm_digest_operands(g, g->qs, g->dg1));
        const int64_t nd = 2 * (g->nca + g->ncb);
        FT_CHECK(be->get_matrix(g->qs, nd, 1, (const double *)g->dg0, nd, (double *)g->hdg, nd));
    }
    if (g->ctx->nfaults) {
        FT_CHECK(dgemm_inject(g, FT_REGION_C, g->C, m, n, g->ldc));
        FT_CHECK(inject_replicas(g, R1, R2));
    }
    if (g->check_operands) FT_CHECK(be->fork(g->qs, g->qm)); /* the vote's sync covers it */
    FT_CHECK(vote(g, R1, R2, dcnt, hcnt));
    rep->checks += m * n;
    int st = FT_SUCCESS;
    if (g->check_operands) {
        int changed = 0;
        FT_CHECK(dgemm_operands_changed(g, &changed));
        if (changed) st = FT_ERR_UNCORRECTABLE; /* the later products read the changed values */
    }
    const uint64_t nd = hcnt[0], n3 = hcnt[1], first = hcnt[2];
    if (nd > 0 && !st) {
        const int64_t r = (int64_t)(first % (uint64_t)m), c = (int64_t)(first / (uint64_t)m);
        rep->detected += (int64_t)nd;
        rep->corrected += (int64_t)(nd - n3);
        if (nd > n3)
            ft_report_event(rep, FT_EVENT_CORRECTED, FT_REGION_C, r, c, -1, (double)(nd - n3), 0.0);
        ft_log(g->ctx, 2,
               "dgemm (TMR): %llu element(s) where the replicas disagree (first "
               "(%lld, %lld)), %llu outvoted, %llu with all three different",
               (unsigned long long)nd, (long long)r, (long long)c, (unsigned long long)(nd - n3),
               (unsigned long long)n3);
    }
    if (n3 > 0 && !st) {
        /* all three differ somewhere: a fourth product, and C, R1', R2 vote again */
        if (have_c0) FT_CHECK(be->copy_matrix(g->qm, m, n, C0, m, R1, m));
        FT_CHECK(product(g, R1, m));
        FT_CHECK(vote(g, R1, R2, dcnt, hcnt));
        const uint64_t left = hcnt[1];
        rep->recomputed += (int64_t)(n3 - left);
        ft_report_event(rep, FT_EVENT_RECOMPUTED, FT_REGION_C, -1, -1, -1, (double)n3,
                        (double)left);
        if (left > 0) {
            rep->uncorrectable += (int64_t)left;
            ft_report_event(rep, FT_EVENT_UNCORRECTABLE, FT_REGION_C, -1, -1, -1, (double)left,
                            0.0);
            ft_log(g->ctx, 1,
                   "dgemm (TMR): %llu element(s) differ in all replicas after a "
                   "fourth product: not correctable",
                   (unsigned long long)left);
            st = FT_ERR_UNCORRECTABLE;
        }
    }
    const int st2 = dgemm_restore_operands(g, &opf);
    return st ? st : st2;
}
