/*
 * qr_dpanel.c — the panel factored in work memory (policy.panel = GPU; docs/qr.md "Panel
 * placement"): recursive, as LAPACK's dgeqrt3 by halves, its leaves (at most FT_QR_LEAF_MAX
 * columns) factored by the backend's qr_leaf in one pass each (on cuda one cooperative kernel
 * with the leaf in shared memory: cuda_qr_leaf.cu). For columns [c0, c0 + w) split at w1:
 *     the left half; its block reflector applied to the right half (qr_larfb_v: two GEMMs and
 *     a TRMM); the right half; T's off-diagonal block T12 = -T1 (V1^T V2) T2 (a GEMM, two TRMMs).
 * So all the panel's O(m nb^2) flops but the leaves' are GEMMs, and the leaves run on data in
 * shared memory. The result is a dgeqrf layout panel with tau, its V (explicit zeros and unit
 * diagonal) and T (dlarft 'F','C'): what the loop formed before by the backend's geqrf, a copy,
 * unit_lower and larft (still the path where the backend has no leaf, for panels shorter than
 * its qr_leaf_min_rows, and where it cannot hold the first, tallest leaf: bench/NOTES.md
 * "device panel").
 */
#include "qr/qr_internal.h"

#include <stdlib.h>

typedef struct {
    const ft_backend_t *be;
    ft_queue_t *q;
    int64_t mi, ld, ldv, ldt, ldw;
    double *P, *tau, *V, *T, *Wk;
    void *lw;
    size_t lwb;
    int (*mid)(void *);
    void *arg;
} dpanel_t;

/* Columns [c0, c0 + w), split at `split` (0: by halves, whole leaves on the left). */
static int node(const dpanel_t *d, int64_t c0, int64_t w, int64_t split)
{
    const ft_backend_t *be = d->be;
    ft_queue_t *q = d->q;
    const int64_t ld = d->ld, ldv = d->ldv, ldt = d->ldt, rows = d->mi - c0;
    if (split == 0 && w <= FT_QR_LEAF_MAX)
        return be->qr_leaf(q, rows, w, d->P + c0 + c0 * ld, ld, d->tau + c0, d->V + c0 + c0 * ldv,
                           ldv, c0, d->T + c0 + c0 * ldt, ldt, d->lw, d->lwb);
    int64_t w1 = split;
    if (w1 == 0) {
        w1 = (w / 2 + FT_QR_LEAF_MAX - 1) / FT_QR_LEAF_MAX * FT_QR_LEAF_MAX;
        if (w1 >= w) w1 = w / 2;
    }
    const int64_t w2 = w - w1, c1 = c0 + w1;
    int st = node(d, c0, w1, 0);
    if (st) return st; /* FT_BE_DECLINED only from the first leaf: nothing issued */
    const double *V1 = d->V + c0 + c0 * ldv;
    double *T1 = d->T + c0 + c0 * ldt, *T2 = d->T + c1 + c1 * ldt, *T12 = d->T + c0 + c1 * ldt;
    FT_CHECK(qr_larfb_v(be, q, rows, w2, w1, V1, ldv, T1, ldt, d->P + c0 + c1 * ld, ld, d->Wk,
                        d->ldw));
    if (split && d->mid) FT_CHECK(d->mid(d->arg));
    st = node(d, c1, w2, 0);
    if (st == FT_BE_DECLINED) return FT_ERR_INTERNAL; /* a shorter leaf than one taken */
    if (st) return st;
    /* T12 = -T1 (V1^T V2) T2, V2 zero above row c1 */
    FT_CHECK(be->dgemm(q, 'T', 'N', w1, w2, d->mi - c1, 1.0, V1 + w1, ldv, d->V + c1 + c1 * ldv,
                       ldv, 0.0, T12, ldt));
    FT_CHECK(be->dtrmm(q, 'L', 'U', 'N', 'N', w1, w2, -1.0, T1, ldt, T12, ldt));
    return be->dtrmm(q, 'R', 'U', 'N', 'N', w1, w2, 1.0, T2, ldt, T12, ldt);
}

/* The shortest panel factored by leaves: the backend's qr_leaf_min_rows, or FTLA_QR_LEAF_MIN_ROWS
 * (a count of rows, read once; 0: every panel by leaves — for tests and measurements). */
static int64_t leaf_min_rows(const ft_backend_t *be)
{
    static int64_t env = -2;
    if (env == -2) {
        const char *e = getenv("FTLA_QR_LEAF_MIN_ROWS");
        char *end = NULL;
        const long long v = e && *e ? strtoll(e, &end, 10) : -1;
        env = e && *e && end && *end == '\0' && v >= 0 ? (int64_t)v : -1;
    }
    return env >= 0 ? env : be->qr_leaf_min_rows;
}

/* qr_internal.h */
int qr_dev_panel(const ft_backend_t *be, ft_queue_t *q, int64_t mi, int64_t ib, int64_t h,
                 double *P, int64_t ld, double *tau, double *V, int64_t ldv, double *T,
                 int64_t ldt, double *Wk, int64_t ldw, void *lw, size_t lwb,
                 int (*mid)(void *), void *arg)
{
    if (mi <= 0 || ib <= 0) return FT_SUCCESS;
    if (be->qr_leaf && mi >= leaf_min_rows(be)) {
        const dpanel_t d = {be, q, mi, ld, ldv, ldt, ldw, P, tau, V, T, Wk, lw, lwb, mid, arg};
        /* T's blocks below the diagonal are never formed: zeros, as larft's */
        FT_CHECK(be->memset0(q, T, (size_t)(ldt * (ib - 1) + ib) * sizeof(double)));
        const int st = node(&d, 0, ib, h > 0 && h < ib ? h : 0);
        if (st != FT_BE_DECLINED) return st;
    }
    /* one piece: the backend's geqrf, V formed from the panel, larft */
    if (h > 0 && h < ib) { /* the first h columns, their reflectors applied to the rest */
        FT_CHECK(be->geqrf(q, mi, h, P, ld, tau, lw, lwb));
        FT_CHECK(be->copy_matrix(q, mi, h, P, ld, V, ldv));
        FT_CHECK(be->unit_lower(q, h, V, ldv));
        FT_CHECK(be->larft(q, mi, h, V, ldv, tau, T, ldt, lw, lwb));
        FT_CHECK(qr_larfb_v(be, q, mi, ib - h, h, V, ldv, T, ldt, P + h * ld, ld, Wk, ldw));
        if (mid) FT_CHECK(mid(arg));
    } else
        h = 0;
    FT_CHECK(be->geqrf(q, mi - h, ib - h, P + h + h * ld, ld, tau + h, lw, lwb));
    FT_CHECK(be->copy_matrix(q, mi, ib, P, ld, V, ldv));
    FT_CHECK(be->unit_lower(q, ib, V, ldv));
    return be->larft(q, mi, ib, V, ldv, tau, T, ldt, lw, lwb);
}
