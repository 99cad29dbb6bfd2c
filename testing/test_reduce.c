/*
 * test_reduce.c — the backend's reductions that the QR checks read the whole matrix with,
 * against plain references:
 *
 *   - qr_wsums (backend.h): X = [R11 R12; 0 A22] W at panel boundary i for block-diagonal
 *     weights W (each column's weights in EW), every i from 0 to min(m, n) and beyond, block widths 32 ... 1024, 1 to 3
 *     weights a block, ld > m. Integer data and dyadic weights make every sum exact, so the
 *     results must equal the reference bit for bit whatever the order of the additions; rows
 *     the trapezoid does not reach must be 0 (X is poisoned first);
 *   - qr_res_sizes (a clean check's residual sizes): maxima exact, norms within 1e-13, at
 *     every scale, NaN and Inf counted as Inf;
 *   - col_asum_max (the norms of the encode): sums and maxima of |a| by column, NaN kept;
 *   - the host backend's fused encoding (ft_host_qr_encode: qr_wsums at i = 0, the norms and a
 *     copy of A in one read): X and the copy bit for bit, the norms as col_asum_max's (integer
 *     data: exact), NaN kept, rows not a multiple of the row blocks, ld > m;
 *   - the checkpoint sums of Q (checkpoint.h, the backend's kernel table): equal to
 *     ckp_sums_ref bit for bit (exact arithmetic in GF(p)), for columns of 0 to 20000 rows
 *     (and the detection's first two sums, where the backend has them);
 *   - the panel's check on arrival (qr_pcheck.h, the backend's kernel table): the digests of
 *     V and T, the column maxima of Y and its top block equal to qr_pc_arrive_ref's bit for
 *     bit, ||v_c||^2 within 1e-12 relative, a NaN in V or Y giving NaN where it must;
 *     W = T V_1^T (s R) (wform) against qr_pc_wform_ref.
 * The host kernels run on the shared team (core/team.h): FTLA_HOST_THREADS=1 and the default
 * must both pass (CTest runs both).
 *
 *   test_reduce cpu|cuda [--small]  (--small: sizes up to 300, for compute-sanitizer)
 *   test_reduce cuda --bench        qr_wsums, the checkpoint sums and the detection's two on
 *                                   16384 x 16384 and 32768 x 8192: ms (median of 7) and GB/s
 *                                   of what they read
 *   test_reduce cpu --bench         the same on 4096 x 2048 and 8192 x 8192, and the host's
 *                                   fused encoding with its copy of A
 */
#include "backend/host/host_queue.h"
#include "checkpoint/checkpoint.h"
#include "core/call.h"
#include "qr/qr_internal.h"
#include "qr/qr_pcheck.h"

#include "test_dgeqrf_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ft_call_t c;
    const ft_backend_t *be;
    ft_queue_t *q;
    double *dA, *dEW, *dX;
    uint64_t *dS;
} env_t;

static int setup(env_t *e, ft_device_t dev, int64_t elems_a, int64_t elems_ew, int64_t elems_x)
{
    FT_CHECK(ft_call_begin(&e->c, NULL, "REDUCE", NULL, 0));
    FT_CHECK(ft_call_select(&e->c, 0.0, dev == FT_DEVICE_CUDA, 0));
    e->be = e->c.be, e->q = e->c.main;
    double *w;
    FT_CHECK(ft_call_work_doubles(&e->c, elems_a + elems_ew + 2 * elems_x, &w));
    e->dA = w, e->dEW = w + elems_a, e->dX = e->dEW + elems_ew;
    e->dS = (uint64_t *)(e->dX + elems_x);
    return FT_SUCCESS;
}

static int same_nan(double a, double b) { return (a != a && b != b) || a == b; }

/* X(l, nw b + c) = sum over j in block b, j >= min(l, i), of A(l, j) EW(j, nw b + c). */
static void wsums_ref(int64_t m, int64_t n, int64_t i, const double *A, int64_t lda,
                      const double *EW, int64_t nbc, int nw, double *X)
{
    const int64_t B = (n + nbc - 1) / nbc;
    for (int64_t b = 0; b < B; b++)
        for (int c = 0; c < nw; c++)
            for (int64_t l = 0; l < m; l++) {
                double s = 0.0;
                const int64_t lo = l < i ? l : i;
                for (int64_t j = b * nbc; j < (b + 1) * nbc && j < n; j++)
                    if (j >= lo) s += A[l + j * lda] * EW[j + c * n];
                X[l + (nw * b + c) * m] = s;
            }
}

static void wsums_case(env_t *e, tu_rng_t *rng, int64_t m, int64_t n, int64_t nbc, int nw)
{
    const int64_t lda = m + 3, B = (n + nbc - 1) / nbc, cx = nw * B;
    double *A = tu_malloc(lda * n), *EW = tu_malloc(n * nw), *X = tu_malloc(m * cx);
    double *R = tu_malloc(m * cx);
    for (int64_t x = 0; x < lda * n; x++) /* integers |a| <= 2^20: every sum below is exact */
        A[x] = (double)((int64_t)(tu_uniform(rng) * 2097152.0) - 1048576);
    for (int64_t j = 0; j < n; j++)
        for (int c = 0; c < nw; c++) /* dyadic weights of up to 12 bits */
            EW[j + c * n] = (double)(1 + (j * (2 * c + 3)) % 4095) / 4096.0;
    const ft_backend_t *be = e->be;
    int st = be->set_matrix(e->q, lda, n, A, lda, e->dA, lda);
    if (!st) st = be->set_matrix(e->q, n, nw, EW, n, e->dEW, n);
    const int64_t k = m < n ? m : n;
    const int64_t is[] = {0, 1, k / 3, k / 2 + 1, k - 1, k, n};
    for (size_t t = 0; t < sizeof is / sizeof is[0] && !st; t++) {
        const int64_t i = is[t] < 0 ? 0 : is[t];
        for (int64_t x = 0; x < m * cx; x++) X[x] = NAN; /* every element must be written */
        st = be->set_matrix(e->q, m, cx, X, m, e->dX, m);
        if (!st) st = be->qr_wsums(e->q, m, n, i, e->dA, lda, e->dEW, n, nbc, nw, e->dX, m);
        if (!st) st = be->get_matrix(e->q, m, cx, e->dX, m, X, m);
        if (!st) st = be->sync(e->q);
        if (st) break;
        wsums_ref(m, n, i, A, lda, EW, nbc, nw, R);
        int64_t bad = -1;
        for (int64_t x = 0; x < m * cx && bad < 0; x++)
            if (memcmp(&X[x], &R[x], sizeof X[x])) bad = x;
        TU_CHECK(bad < 0, "qr_wsums %s m %lld n %lld i %lld nbc %lld nw %d: X(%lld, %lld) = %.17g, "
                 "reference %.17g", be->name, (long long)m, (long long)n, (long long)i,
                 (long long)nbc, nw, (long long)(bad % m), (long long)(bad / m),
                 bad < 0 ? 0.0 : X[bad], bad < 0 ? 0.0 : R[bad]);
    }
    TU_CHECK(st == 0, "qr_wsums %s m %lld n %lld: %s", be->name, (long long)m, (long long)n,
             ft_strerror(st));
    free(A), free(EW), free(X), free(R);
}

/* col_asum_max: integer data (exact sums in any order), a NaN and an Inf column. */
static void norms_case(env_t *e, tu_rng_t *rng, int64_t m, int64_t n)
{
    const int64_t lda = m + 2;
    double *A = tu_malloc(lda * n), *out = tu_malloc(2 * n);
    for (int64_t x = 0; x < lda * n; x++)
        A[x] = (double)((int64_t)(tu_uniform(rng) * 2097152.0) - 1048576);
    if (n > 2 && m > 1) A[1 + 1 * lda] = NAN, A[0 + 2 * lda] = -INFINITY;
    const ft_backend_t *be = e->be;
    int st = be->set_matrix(e->q, lda, n, A, lda, e->dA, lda);
    if (!st) st = be->col_asum_max(e->q, m, n, e->dA, lda, e->dX, e->dX + n);
    if (!st) st = be->get_matrix(e->q, 2 * n, 1, e->dX, 2 * n, out, 2 * n);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "col_asum_max %s m %lld n %lld: %s", be->name, (long long)m, (long long)n,
             ft_strerror(st));
    for (int64_t c = 0; c < n && !st; c++) {
        double s = 0.0, mx = 0.0;
        int nan = 0;
        for (int64_t r = 0; r < m; r++) {
            const double v = fabs(A[r + c * lda]);
            s += v;
            if (v != v) nan = 1;
            else if (v > mx) mx = v;
        }
        const double gs = out[c], gm = out[n + c];
        const int ok = nan ? (gs != gs && gm != gm) : (gs == s && gm == mx);
        TU_CHECK(ok, "col_asum_max %s m %lld column %lld: %.17g %.17g, reference %.17g %.17g",
                 be->name, (long long)m, (long long)c, gs, gm, s, nan ? NAN : mx);
        if (!ok) break;
    }
    free(A), free(out);
}

/* ft_host_qr_encode against qr_wsums (i = 0), col_asum_max and a copy (host backend only). */
static void encode_case(env_t *e, tu_rng_t *rng, int64_t m, int64_t n, int64_t nbc, int nan)
{
    const int64_t lda = m + 5, B = (n + nbc - 1) / nbc, cx = QR_NCS * B;
    double *A = tu_malloc(lda * n), *EW = tu_malloc(n * QR_NCS), *X = tu_malloc(m * cx);
    double *R = tu_malloc(m * cx), *cp = tu_malloc(m * n), *nrm = tu_malloc(4 * n);
    double *scr = tu_malloc(ft_host_qr_encode_scratch(m, n));
    for (int64_t x = 0; x < lda * n; x++)
        A[x] = (double)((int64_t)(tu_uniform(rng) * 2097152.0) - 1048576);
    if (nan && n > 2 && m > 1) A[(m - 1) + 1 * lda] = NAN, A[0 + 2 * lda] = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        for (int c = 0; c < QR_NCS; c++)
            EW[j + c * n] = (double)(1 + (j * (2 * c + 3)) % 4095) / 4096.0;
    for (int64_t x = 0; x < m * n; x++) cp[x] = -1.0;
    ft_queue_t *q = e->q;
    int st = ft_host_qr_wsums(q, m, n, 0, A, lda, EW, n, nbc, QR_NCS, R, m);
    if (!st) st = ft_host_col_asum_max(q, m, n, A, lda, nrm + 2 * n, nrm + 3 * n);
    if (!st) st = ft_host_qr_encode(q, m, n, A, lda, EW, n, nbc, QR_NCS, X, m, nrm, nrm + n, scr,
                                    cp, m);
    if (!st) st = e->be->sync(q);
    TU_CHECK(st == 0, "qr_encode m %lld n %lld: %s", (long long)m, (long long)n, ft_strerror(st));
    int64_t bad = -1;
    for (int64_t x = 0; x < m * cx && bad < 0 && !st; x++)
        if (memcmp(&X[x], &R[x], sizeof X[x])) bad = x;
    TU_CHECK(bad < 0, "qr_encode m %lld n %lld nbc %lld: X(%lld) = %.17g, qr_wsums %.17g",
             (long long)m, (long long)n, (long long)nbc, (long long)bad, bad < 0 ? 0.0 : X[bad],
             bad < 0 ? 0.0 : R[bad]);
    for (int64_t j = 0; j < n && bad < 0 && !st; j++)
        if (memcmp(cp + j * m, A + j * lda, (size_t)m * sizeof *cp)) bad = j;
    TU_CHECK(bad < 0, "qr_encode m %lld n %lld: the copy of column %lld differs", (long long)m,
             (long long)n, (long long)bad);
    for (int64_t j = 0; j < n && !st; j++) {
        const int ok = same_nan(nrm[j], nrm[2 * n + j]) && same_nan(nrm[n + j], nrm[3 * n + j]);
        TU_CHECK(ok, "qr_encode m %lld column %lld: norms %.17g %.17g, col_asum_max %.17g %.17g",
                 (long long)m, (long long)j, nrm[j], nrm[n + j], nrm[2 * n + j], nrm[3 * n + j]);
        if (!ok) break;
    }
    free(A), free(EW), free(X), free(R), free(cp), free(nrm), free(scr);
}

/* qr_res_sizes: max |C - X| (NaN as Inf) and ||C - X||_2 by column, against long double;
 * columns at every scale (2^-1060 subnormal ... 2^1000), a zero column, a NaN and an Inf. */
static void sizes_case(env_t *e, tu_rng_t *rng, int64_t m)
{
    const int64_t nc = 8, ld = m + 1;
    double *C = tu_malloc(ld * nc), *X = tu_malloc(ld * nc), out[16];
    tu_fill(rng, ld, nc, C, ld);
    tu_fill(rng, ld, nc, X, ld);
    const double sc[8] = {1.0, 0x1p-1060, 0x1p-1000, 0x1p1000, 1.0, 0.0, 1.0, 1.0};
    for (int64_t c = 0; c < nc; c++)
        for (int64_t r = 0; r < ld; r++) C[r + c * ld] *= sc[c], X[r + c * ld] *= sc[c];
    if (m > 2) C[2 + 6 * ld] = NAN, X[1 + 7 * ld] = INFINITY;
    const ft_backend_t *be = e->be;
    double *dC = e->dA, *dX = e->dA + ld * nc;
    int st = be->set_matrix(e->q, ld, nc, C, ld, dC, ld);
    if (!st) st = be->set_matrix(e->q, ld, nc, X, ld, dX, ld);
    if (!st) st = be->qr_res_sizes(e->q, m, nc, dC, dX, ld, e->dX);
    if (!st) st = be->get_matrix(e->q, 2 * nc, 1, e->dX, 2 * nc, out, 2 * nc);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "qr_res_sizes %s m %lld: %s", be->name, (long long)m, ft_strerror(st));
    for (int64_t c = 0; c < nc && !st; c++) {
        double mx = 0.0;
        long double q = 0.0L;
        for (int64_t r = 0; r < m; r++) {
            double d = fabs(C[r + c * ld] - X[r + c * ld]);
            if (d != d) d = INFINITY;
            if (d > mx) mx = d;
        }
        for (int64_t r = 0; r < m && isfinite(mx) && mx > 0; r++) {
            const long double d = ((long double)C[r + c * ld] - X[r + c * ld]) / mx;
            q += d * d;
        }
        const double nrm = isfinite(mx) && mx > 0 ? (double)(sqrtl(q) * mx) : mx;
        const int ok = out[2 * c] == mx &&
                       (nrm == out[2 * c + 1] || fabs(out[2 * c + 1] - nrm) <= 1e-13 * nrm);
        TU_CHECK(ok, "qr_res_sizes %s m %lld column %lld: %.17g %.17g, reference %.17g %.17g",
                 be->name, (long long)m, (long long)c, out[2 * c], out[2 * c + 1], mx, nrm);
    }
    free(C), free(X);
}

static void ckp_case(env_t *e, tu_rng_t *rng, int64_t m, int64_t nc)
{
    const int64_t lda = m + 1;
    double *A = tu_malloc(lda * nc);
    uint64_t *out = malloc(sizeof(uint64_t) * CKP_NS * (size_t)(nc > 0 ? nc : 1));
    uint64_t *ref = malloc(sizeof(uint64_t) * CKP_NS * (size_t)(nc > 0 ? nc : 1));
    tu_fill(rng, lda, nc, A, lda);
    for (int64_t x = 0; x < lda * nc; x += 7) A[x] = -A[x] * 0x1p700; /* all kinds of bits */
    if (nc > 1) A[lda + 2 < lda * nc ? lda + 2 : 0] = -0.0;
    if (nc > 2) /* the largest bit patterns in a whole column: the deferred sums' worst case */
        for (int64_t r = 0; r < lda; r++) {
            const uint64_t b = 0xFFFFFFFFFFFFFFC4ull - (uint64_t)(r & 7);
            memcpy(A + r + (nc - 1) * lda, &b, sizeof b);
        }
    const ft_backend_t *be = e->be;
    int st = be->set_matrix(e->q, lda, nc, A, lda, e->dA, lda);
    if (!st) st = ckp_kernels(be)->sums(e->q, m, nc, e->dA, lda, e->dS);
    if (!st && nc > 0)
        st = be->get_matrix(e->q, CKP_NS, nc, (const double *)e->dS, CKP_NS, (double *)out,
                            CKP_NS);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "ckp sums %s m %lld: %s", be->name, (long long)m, ft_strerror(st));
    if (!st) {
        ckp_sums_ref(m, nc, A, lda, ref);
        TU_CHECK(nc == 0 || !memcmp(out, ref, sizeof(uint64_t) * CKP_NS * (size_t)nc),
                 "ckp sums %s m %lld nc %lld differ from the reference", be->name, (long long)m,
                 (long long)nc);
    }
    /* the detection's two sums (where the backend has them): the reference's first two */
    const ckp_kernels_t *K = ckp_kernels(be);
    if (!st && K->detect && nc > 0) {
        st = K->detect(e->q, m, nc, e->dA, lda, e->dS);
        if (!st)
            st = be->get_matrix(e->q, 2, nc, (const double *)e->dS, 2, (double *)out, 2);
        if (!st) st = be->sync(e->q);
        int same = st == 0;
        for (int64_t c = 0; same && c < nc; c++)
            same = out[2 * c] == ref[CKP_NS * c] && out[2 * c + 1] == ref[CKP_NS * c + 1];
        TU_CHECK(same, "ckp detect %s m %lld nc %lld: %s", be->name, (long long)m,
                 (long long)nc, st ? ft_strerror(st) : "differs from the reference");
    }
    free(A), free(out), free(ref);
}

/* The arrival check of a panel mi x ib on random V, T, Y (ld > rows): digests, maxima and the
 * top block bit for bit against qr_pc_arrive_ref, ||v_c||^2 within 1e-12 relative. nan 1:
 * V(mi - 1, ib - 1) = NaN (that column's ||v||^2 NaN); nan 2: Y(mi - 1, ib - 1) = NaN (with
 * mi > ib: that column's maximum NaN). */
static int same_or_nan(double a, double b) { return (a != a && b != b) || a == b; }

static void arrive_case(env_t *e, tu_rng_t *rng, int64_t mi, int64_t ib, int nan)
{
    const int64_t ldv = mi + 3, ldt = ib + 1, ldy = mi + 2, ldtop = ib + 5;
    const int64_t nv = ldv * ib, nt = ldt * ib, ny = ldy * ib, nh = nv + nt + ny;
    double *h = tu_malloc(nh);
    tu_fill(rng, nh, 1, h, nh);
    if (nan == 1) h[(mi - 1) + (ib - 1) * ldv] = NAN;
    if (nan == 2) h[nv + nt + (mi - 1) + (ib - 1) * ldy] = NAN;
    const ft_backend_t *be = e->be;
    double *dV = e->dA, *dT = dV + nv, *dY = dT + nt;
    /* out: digV ib, digT ib, ss ib, cmx ib, top ldtop x ib; then the scratch */
    const int64_t no = 4 * ib + ldtop * ib;
    uint64_t *o = (uint64_t *)e->dX;
    double *scr = e->dX + no;
    uint64_t *got = calloc((size_t)no, sizeof *got), *ref = calloc((size_t)no, sizeof *ref);
    int st = be->set_matrix(e->q, nh, 1, h, nh, dV, nh);
    if (!st) st = be->set_matrix(e->q, no, 1, (const double *)ref, no, (double *)o, no); /* 0 */
    if (!st)
        st = qr_pc_kernels(be)->arrive(e->q, mi, ib, dV, ldv, dT, ldt, dY, ldy, o, o + ib,
                                       (double *)(o + 2 * ib), (double *)(o + 3 * ib),
                                       (double *)(o + 4 * ib), ldtop, scr);
    if (!st) st = be->get_matrix(e->q, no, 1, (const double *)o, no, (double *)got, no);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "arrive %s %lld x %lld: %s", be->name, (long long)mi, (long long)ib,
             ft_strerror(st));
    if (!st) {
        qr_pc_arrive_ref(mi, ib, h, ldv, h + nv, ldt, h + nv + nt, ldy, ref, ref + ib,
                         (double *)(ref + 2 * ib), (double *)(ref + 3 * ib),
                         (double *)(ref + 4 * ib), ldtop);
        TU_CHECK(!memcmp(got, ref, sizeof(uint64_t) * 2 * (size_t)ib),
                 "arrive %s %lld x %lld: digests differ from the reference", be->name,
                 (long long)mi, (long long)ib);
        const double *gss = (const double *)(got + 2 * ib), *rss = (const double *)(ref + 2 * ib);
        const double *gc = (const double *)(got + 3 * ib), *rc = (const double *)(ref + 3 * ib);
        int ok = 1, okc = 1, okt = 1;
        for (int64_t c = 0; c < ib; c++) {
            if (!(fabs(gss[c] - rss[c]) <= 1e-12 * rss[c]) && !(gss[c] != gss[c] && rss[c] != rss[c]))
                ok = 0;
            if (!same_or_nan(gc[c], rc[c])) okc = 0;
            for (int64_t r = 0; r < (mi < ib ? mi : ib); r++) {
                const int64_t k = 4 * ib + r + c * ldtop;
                if (got[k] != ref[k]) okt = 0;
            }
        }
        if (nan == 1) ok = ok && gss[ib - 1] != gss[ib - 1];
        if (nan == 2 && mi > ib) okc = okc && gc[ib - 1] != gc[ib - 1];
        TU_CHECK(ok && okc && okt,
                 "arrive %s %lld x %lld (nan %d): sums %d, column maxima %d, top %d", be->name,
                 (long long)mi, (long long)ib, nan, ok, okc, okt);
    }
    free(h), free(got), free(ref);
}

/* W = T V_1^T (s R) against qr_pc_wform_ref (backends with their own wform): within 1e-13 ib of
 * the largest |W| elementwise, exact zeros below the diagonal; the triangles not read hold
 * random values (they must not count). */
static void wform_case(env_t *e, tu_rng_t *rng, int64_t ib)
{
    const qr_pc_kernels_t *K = qr_pc_kernels(e->be);
    if (!K->wform) return;
    const int64_t ldv = ib + 7, ldt = ib + 1, ldr = ib + 3, ldw = ib + 2;
    const int64_t nv = ldv * ib, nt = ldt * ib, nr = ldr * ib, nh = nv + nt + nr;
    double *h = tu_malloc(nh), *got = tu_malloc(ldw * ib), *ref = tu_malloc(ldw * ib);
    tu_fill(rng, nh, 1, h, nh);
    const ft_backend_t *be = e->be;
    double *dV = e->dA, *dT = dV + nv, *dR = dT + nt, *dW = dR + nr;
    int st = be->set_matrix(e->q, nh, 1, h, nh, dV, nh);
    if (!st) st = K->wform(e->q, ib, dV, ldv, dT, ldt, dR, ldr, 0.5, dW, ldw, e->dX);
    if (!st) st = be->get_matrix(e->q, ib, ib, dW, ldw, got, ldw);
    if (!st) st = be->sync(e->q);
    TU_CHECK(st == 0, "wform %s ib %lld: %s", be->name, (long long)ib, ft_strerror(st));
    if (!st) {
        qr_pc_wform_ref(ib, h, ldv, h + nv, ldt, h + nv + nt, ldr, 0.5, ref, ldw);
        double mx = 0.0, err = 0.0;
        int zeros = 1;
        for (int64_t j = 0; j < ib; j++)
            for (int64_t i = 0; i < ib; i++) {
                const double g = got[i + j * ldw], r = ref[i + j * ldw];
                if (i > j && g != 0.0) zeros = 0;
                if (fabs(r) > mx) mx = fabs(r);
                if (!(fabs(g - r) <= err)) err = fabs(g - r);
            }
        TU_CHECK(zeros && err <= 1e-13 * (double)ib * mx,
                 "wform %s ib %lld: error %.3g (largest |W| %.3g), zeros below %d", be->name,
                 (long long)ib, err, mx, zeros);
    }
    free(h), free(got), free(ref);
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The panel-sized kernels of the QR checks (a panel mi x ib): us a call, the median of 7 runs of
 * 20 calls back to back (the device's time, launches overlapped), and GB/s of what each reads. */
static void bench_panel(env_t *e, tu_rng_t *rng)
{
    const int64_t shapes[][2] = {{16384, 128}, {8192, 128}, {16384, 256}, {2048, 128}};
    const qr_pc_kernels_t *K = qr_pc_kernels(e->be);
    printf("%%   mi     ib  op          us(med)   min      max     GB/s\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int64_t mi = shapes[s][0], ib = shapes[s][1];
        double *col = tu_malloc(mi);
        for (int64_t j = 0; j < 2 * ib + ib; j++) {
            tu_fill(rng, mi, 1, col, mi);
            e->be->set_matrix(e->q, mi, 1, col, mi, e->dA + j * mi, mi);
        }
        free(col);
        const double *V = e->dA, *Y = e->dA + ib * mi, *T = e->dA + 2 * ib * mi;
        uint64_t *o = (uint64_t *)e->dX;
        double *scr = e->dX + 4 * ib + ib * ib;
        for (int op = 0; op < 4; op++) {
            double t[7];
            for (int r = -1; r < 7; r++) {
                e->be->sync(e->q);
                const double t0 = ft_wtime();
                for (int c = 0; c < 20; c++) {
                    if (op == 0) e->be->digest(e->q, mi, ib, V, mi, o);
                    else if (op == 1) ckp_kernels(e->be)->sums(e->q, mi, ib, V, mi, e->dS);
                    else if (op == 2 && K->wform)
                        K->wform(e->q, ib, V, mi, T, mi, Y, mi, 1.0, (double *)o, ib, scr);
                    else if (op == 3)
                        K->arrive(e->q, mi, ib, V, mi, T, mi, Y, mi, o, o + ib,
                                  (double *)(o + 2 * ib), (double *)(o + 3 * ib),
                                  (double *)(o + 4 * ib), ib, scr);
                }
                e->be->sync(e->q);
                if (r >= 0) t[r] = (ft_wtime() - t0) / 20;
            }
            qsort(t, 7, sizeof t[0], cmpd);
            const double el = op == 3 ? 2.0 * mi * ib : op == 2 ? 3.0 * ib * ib : (double)mi * ib;
            static const char *nm[] = {"digest", "ckp_sums", "wform", "arrive"};
            printf("%7lld %6lld %-10s %8.2f %8.2f %8.2f %7.0f\n", (long long)mi, (long long)ib,
                   nm[op], 1e6 * t[3], 1e6 * t[0], 1e6 * t[6], 8.0 * el / t[3] * 1e-9);
        }
    }
}

static void bench(env_t *e, tu_rng_t *rng)
{
    const int host = e->be->kind == FT_DEVICE_CPU;
    const int64_t shapes[][2] = {{16384, 16384}, {32768, 8192}, {4096, 2048}, {8192, 8192}};
    printf("%%   m      n     op         i        ms(med)  min     max     GB/s\n");
    for (size_t s = host ? 2 : 0; s < (host ? 4u : 2u); s++) {
        const int64_t m = shapes[s][0], n = shapes[s][1];
        const int64_t nbc = abft_qr_check_width(n), B = (n + nbc - 1) / nbc;
        double *col = tu_malloc(m);
        for (int64_t j = 0; j < n; j += 512) { /* the data's values do not matter to speed */
            tu_fill(rng, m, 1, col, m);
            e->be->set_matrix(e->q, m, 1, col, m, e->dA + j * m, m);
        }
        e->be->memset0(e->q, e->dEW, (size_t)(n * QR_NCS * B) * sizeof(double));
        free(col);
        /* the host: op 3, the fused encoding with its copy of A (ft_host_qr_encode), what
         * ft_dgeqrf runs at i = 0 there; its copy to the x buffer, which holds 3B columns */
        double *enc_copy = NULL, *enc_scr = NULL;
        if (host) {
            enc_copy = tu_malloc(m * n);
            enc_scr = tu_malloc(ft_host_qr_encode_scratch(m, n) + 2 * n);
        }
        for (int op = 0; op < 5; op++) {
            if (op == 3 && !host) continue;
            if (op == 4 && !ckp_kernels(e->be)->detect) continue;
            const int64_t i = op == 0 || op == 3 ? 0 : n; /* encode, final check, Q's sums */
            double t[7];
            for (int r = -1; r < 7; r++) {
                e->be->sync(e->q);
                const double t0 = ft_wtime();
                if (op < 2)
                    e->be->qr_wsums(e->q, m, n, i, e->dA, m, e->dEW, n, nbc, QR_NCS, e->dX, m);
                else if (op == 3) {
                    double *sc = enc_scr + 2 * n;
                    ft_host_qr_encode(e->q, m, n, e->dA, m, e->dEW, n, nbc, QR_NCS, e->dX, m,
                                      enc_scr, enc_scr + n, sc, enc_copy, m);
                } else if (op == 4)
                    ckp_kernels(e->be)->detect(e->q, m, n, e->dA, m, e->dS);
                else
                    ckp_kernels(e->be)->sums(e->q, m, n, e->dA, m, e->dS);
                e->be->sync(e->q);
                if (r >= 0) t[r] = ft_wtime() - t0;
            }
            qsort(t, 7, sizeof t[0], cmpd);
            /* bytes read: all of A (encode), the upper trapezoid (final check), the strictly
             * lower part (Q's sums) */
            const double el = op == 0 ? (double)m * n
                              : op == 3 ? 2.0 * m * n /* A read, its copy written */
                              : op == 1 ? (double)n * (n + 1) / 2
                                        : (double)m * n - (double)n * (n + 1) / 2;
            static const char *const nm[] = {"wsums", "wsums", "ckp_sums", "encode+copy",
                                             "ckp_detect"};
            printf("%7lld %6lld %-10s %6lld %8.3f %7.3f %7.3f %7.0f\n", (long long)m,
                   (long long)n, nm[op],
                   (long long)i, 1e3 * t[3], 1e3 * t[0], 1e3 * t[6], 8.0 * el / t[3] * 1e-9);
        }
        free(enc_copy);
        free(enc_scr);
    }
}

int main(int argc, char **argv)
{
    ft_device_t dev;
    if (argc < 2 || tu_parse_device(argv[1], &dev) || dev == FT_DEVICE_AUTO) {
        printf("usage: test_reduce cpu|cuda [--small|--bench]\n");
        return 2;
    }
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    const int do_bench = argc > 2 && strcmp(argv[2], "--bench") == 0;
    const int small = argc > 2 && strcmp(argv[2], "--small") == 0;
    env_t e;
    const int64_t amax = do_bench ? (dev == FT_DEVICE_CPU ? (int64_t)8192 * 8192
                                                          : (int64_t)16384 * 16384)
                                  : (int64_t)3003 * 3000;
    int st = setup(&e, dev, amax, do_bench ? 16384 * 48 : 3000 * 96,
                   do_bench ? 32768 * 96 : 3000 * 96);
    TU_CHECK(st == 0, "setup: %s", ft_strerror(st));
    if (st) return tu_finish();
    tu_rng_t rng;
    tu_seed(&rng, 5);
    if (do_bench) {
        bench_panel(&e, &rng);
        bench(&e, &rng);
    } else {
        const int64_t ws[][4] = {{1, 1, 32, 3},     {5, 3, 32, 3},     {33, 70, 32, 3},
                                 {100, 37, 32, 2},  {257, 300, 64, 3}, {300, 257, 32, 1},
                                 {1000, 700, 128, 3}, {3000, 2500, 1024, 3},
                                 {2500, 3000, 256, 3}, {700, 2000, 1024, 3}};
        for (size_t s = 0; s < sizeof ws / sizeof ws[0]; s++) {
            if (small && (ws[s][0] > 300 || ws[s][1] > 300)) continue;
            wsums_case(&e, &rng, ws[s][0], ws[s][1], ws[s][2], (int)ws[s][3]);
        }
        const int64_t ns[][2] = {{0, 3}, {1, 1}, {7, 5}, {300, 40}, {3000, 700}};
        for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
            if (small && ns[s][0] > 300) continue;
            norms_case(&e, &rng, ns[s][0], ns[s][1]);
        }
        if (dev == FT_DEVICE_CPU) {
            const int64_t es[][3] = {{1, 1, 32},   {7, 5, 32},     {255, 40, 32},
                                     {257, 300, 64}, {1000, 700, 128}, {3000, 2500, 1024}};
            for (size_t s = 0; s < sizeof es / sizeof es[0]; s++) {
                if (small && es[s][0] > 300) continue;
                for (int nan = 0; nan < 2; nan++)
                    encode_case(&e, &rng, es[s][0], es[s][1], es[s][2], nan);
            }
        }
        const int64_t ms[] = {0, 1, 3, 257, 4099};
        for (size_t s = 0; s < sizeof ms / sizeof ms[0]; s++)
            if (!small || ms[s] <= 300) sizes_case(&e, &rng, ms[s]);
        const int64_t cs[][2] = {{0, 0}, {1, 1}, {2, 2}, {5, 3}, {31, 8}, {257, 40},
                                 {1025, 7}, {4097, 33}, {20000, 40}, {30000, 40}};
        for (size_t s = 0; s < sizeof cs / sizeof cs[0]; s++) {
            if (small && cs[s][0] > 300) continue;
            ckp_case(&e, &rng, cs[s][0], cs[s][1]);
        }
        const int64_t as[][2] = {{1, 1},     {5, 3},      {64, 64},    {300, 32},  {3000, 64},
                                 {4099, 128}, {8200, 128}, {20000, 40}, {1500, 256}};
        for (size_t s = 0; s < sizeof as / sizeof as[0]; s++) {
            if (small && as[s][0] > 300) continue;
            for (int nan = 0; nan < 3; nan++) arrive_case(&e, &rng, as[s][0], as[s][1], nan);
        }
        const int64_t wb[] = {1, 3, 32, 33, 100, 128, 256};
        for (size_t s = 0; s < sizeof wb / sizeof wb[0]; s++)
            if (!small || wb[s] <= 64) wform_case(&e, &rng, wb[s]);
    }
    ft_call_end(&e.c, st);
    return tu_finish();
}
