/*
 * test_dpanel.c — the panel factored in work memory (qr_dev_panel, src/qr/qr_dpanel.c: by
 * halves down to leaves of FT_QR_LEAF_MAX columns, each leaf the backend's qr_leaf; on cuda the
 * cooperative kernel of cuda_qr_leaf.cu), against LAPACK:
 *
 *   test_dpanel cpu|cuda: for panels from 1 x 1 to 16384 x 256 (leaves of every width 1 ... 32,
 *     one block and many; split at h as a planned panel fault splits it), data of every scale
 *     (1, 2^-997, subnormal 2^-1030, 2^997), a zero column (tau = 0, H = I), a column zero
 *     below its diagonal, and columns close to the span of the ones before them:
 *       dqrt01's ratios of the result (Q from LAPACKE_dorgqr) below 30, R and tau within
 *       rounding of LAPACKE_dgeqrf's (the same reflector convention as dlarfg, not only the
 *       same span); V exactly the panel's vectors with zeros above the diagonal and the unit
 *       diagonal; T within rounding of dlarft's from that V and tau, zeros below its diagonal;
 *       a second run bitwise the same; the one-piece path (the backend's geqrf and larft, what
 *       backends without leaves run) likewise;
 *   test_dpanel cpu|cuda --small: panels up to 300 rows only (for compute-sanitizer);
 *   test_dpanel cuda --bench: the recursive panel against the one-piece path (cuSOLVER's
 *     geqrf, larft) by rows and nb, ms (median of 7, min-max), the table last.
 */
#include "core/call.h"
#include "qr/qr_internal.h"

#include "test_dgeqrf_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ft_call_t c;
    const ft_backend_t *be;
    ft_queue_t *q;
    double *dP, *dV, *dT, *dTau, *dW;
    void *lw;
    size_t lwb;
} env_t;

/* d in units of rounding of data of size `scale` (eps: of the data's precision). */
static double tol_ratio(double d, double scale, double eps, int64_t m)
{
    return d / (scale * eps * (double)m);
}

/* Panel m x ib (ld m) through qr_dev_panel of backend be (the table: with or without leaves);
 * results to host P, tau, V, T (ld m, m, ib). */
static int factor(env_t *e, const ft_backend_t *be, int64_t m, int64_t ib, int64_t h,
                  const double *A, double *P, double *tau, double *V, double *T)
{
    ft_queue_t *q = e->q;
    FT_CHECK(e->be->set_matrix(q, m, ib, A, m, e->dP, m));
    for (int64_t x = 0; x < m * ib; x++) P[x] = NAN; /* poison: all of V must be written */
    FT_CHECK(e->be->set_matrix(q, m, ib, P, m, e->dV, m));
    FT_CHECK(qr_dev_panel(be, q, m, ib, h, e->dP, m, e->dTau, e->dV, m, e->dT, ib, e->dW, ib,
                          e->lw, e->lwb, NULL, NULL));
    FT_CHECK(e->be->get_matrix(q, m, ib, e->dP, m, P, m));
    FT_CHECK(e->be->get_matrix(q, ib, 1, e->dTau, ib, tau, ib));
    FT_CHECK(e->be->get_matrix(q, m, ib, e->dV, m, V, m));
    FT_CHECK(e->be->get_matrix(q, ib, ib, e->dT, ib, T, ib));
    return e->be->sync(q);
}

static void one(env_t *e, const ft_backend_t *be, const char *path, tu_rng_t *rng, int64_t m,
                int64_t ib, int64_t h, double scale, int special)
{
    double *A = tu_malloc(m * ib), *P = tu_malloc(m * ib), *V = tu_malloc(m * ib);
    double *T = tu_malloc(ib * ib), *tau = tu_malloc(ib), *R = tu_malloc(m * ib);
    double *taur = tu_malloc(ib), *Tr = tu_malloc(ib * ib), *P2 = tu_malloc(m * ib);
    double *V2 = tu_malloc(m * ib), *T2 = tu_malloc(ib * ib), *tau2 = tu_malloc(ib);
    tu_fill(rng, m, ib, A, m);
    for (int64_t j = 0; j < ib; j++)
        for (int64_t r = 0; r < m; r++) A[r + j * m] *= scale;
    if (special == 1 && ib > 2) { /* a zero column; a column zero below its diagonal */
        for (int64_t r = 0; r < m; r++) A[r + 1 * m] = 0.0;
        for (int64_t r = 3; r < m; r++) A[r + 2 * m] = 0.0;
    }
    /* columns close to the span of the ones before them (every 3rd: the last one plus 2^-4
     * of noise, scaled): their norms after the update cancel, what the cuda leaf's one-sync
     * norm must notice (it recomputes them; cuda_qr_leaf.cu) */
    if (special == 2)
        for (int64_t j = 1; j < ib; j += 3)
            for (int64_t r = 0; r < m; r++)
                A[r + j * m] = 3.0 * A[r + (j - 1) * m] + 0x1p-4 * A[r + j * m];
    char d[160];
    snprintf(d, sizeof d, "%s %lld x %lld h %lld scale %g%s", path, (long long)m, (long long)ib,
             (long long)h, scale, special == 1   ? " special"
             : special == 2 ? " near-dependent"
                            : "");
    int st = factor(e, be, m, ib, h, A, P, tau, V, T);
    TU_CHECK(st == 0, "%s: status %d", d, st);
    if (st) goto out;
    /* LAPACK */
    tu_copy(m, ib, A, m, R, m);
    TU_CHECK(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, (int)ib, R, (int)m, taur) == 0, "dgeqrf");
    const double amax = tu_dlange('M', m, ib, A, m);
    double dr = 0, dv = 0, dt = 0;
    long bad_v = 0, bad_t = 0;
    for (int64_t j = 0; j < ib; j++) {
        for (int64_t r = 0; r < m; r++) {
            const double x = P[r + j * m], y = R[r + j * m];
            if (r <= j) dr = fmax(dr, fabs(x - y));
            else dv = fmax(dv, fabs(x - y)); /* vectors: relative to 1 */
            const double want = r < j ? 0.0 : r == j ? 1.0 : x;
            if (memcmp(&V[r + j * m], &want, sizeof want) != 0) bad_v++;
            if (!isfinite(x)) bad_v++;
        }
        dt = fmax(dt, fabs(tau[j] - taur[j]));
    }
    /* R within rounding of LAPACK's, the vectors and tau likewise */
    /* subnormal data carry fewer bits: their precision is the spacing 2^-1074 relative to them */
    const double epse = fmax(tu_eps(), DBL_TRUE_MIN / amax);
    const double rr = tol_ratio(dr, amax, epse, m), rv = tol_ratio(dv, 1.0, epse, m),
                 rt = tol_ratio(dt, 1.0, epse, m);
    TU_CHECK(rr < 100 && rv < 100 && rt < 100, "%s: against LAPACK: R %.3g vectors %.3g tau %.3g",
             d, rr, rv, rt);
    TU_CHECK(bad_v == 0, "%s: V not the panel's vectors with zeros and the unit diagonal (%ld)", d,
             bad_v);
    /* T against dlarft from this V and tau */
    TU_CHECK(LAPACKE_dlarft(LAPACK_COL_MAJOR, 'F', 'C', (int)m, (int)ib, V, (int)m, tau, Tr,
                            (int)ib) == 0, "dlarft");
    double dtt = 0, tmax = 0;
    for (int64_t j = 0; j < ib; j++)
        for (int64_t r = 0; r < ib; r++) {
            if (r > j) {
                if (T[r + j * ib] != 0.0) bad_t++;
                continue;
            }
            dtt = fmax(dtt, fabs(T[r + j * ib] - Tr[r + j * ib]));
            tmax = fmax(tmax, fabs(Tr[r + j * ib]));
        }
    const double rtt = tol_ratio(dtt, fmax(tmax, 1.0), epse, m);
    TU_CHECK(rtt < 100 && bad_t == 0, "%s: T against dlarft %.3g, %ld non-zeros below", d, rtt,
             bad_t);
    /* dqrt01 of the factorization scaled back (exact: the scales are powers of two; with
     * subnormal data R carries only the bits its spacing leaves: finite is what is asked) */
    double res[2];
    for (int64_t j = 0; j < ib; j++)
        for (int64_t r = 0; r < m; r++) {
            A[r + j * m] /= scale;
            if (r <= j) R[r + j * m] = P[r + j * m] / scale;
            else R[r + j * m] = P[r + j * m];
        }
    qr_ratios(m, ib, A, m, R, m, tau, res);
    if (amax >= DBL_MIN)
        TU_CHECK(res[0] < 30 && res[1] < 30, "%s: dqrt01 ratios %.3g %.3g", d, res[0], res[1]);
    else
        TU_CHECK(isfinite(res[0]) && res[1] < 30, "%s: dqrt01 ratios %.3g %.3g", d, res[0],
                 res[1]);
    for (int64_t j = 0; j < ib; j++)
        for (int64_t r = 0; r < m; r++) A[r + j * m] *= scale;
    /* the same bits again */
    st = factor(e, be, m, ib, h, A, P2, tau2, V2, T2);
    TU_CHECK(st == 0 && !memcmp(P, P2, (size_t)(m * ib) * 8) && !memcmp(V, V2, (size_t)(m * ib) * 8) &&
                 !memcmp(T, T2, (size_t)(ib * ib) * 8) && !memcmp(tau, tau2, (size_t)ib * 8),
             "%s: a second run differs", d);
out:
    free(A), free(P), free(V), free(T), free(tau), free(R), free(taur), free(Tr), free(P2),
        free(V2), free(T2), free(tau2);
}

static int setup(env_t *e, ft_device_t dev, int64_t mmax, int64_t nbmax)
{
    FT_CHECK(ft_call_begin(&e->c, NULL, "DPANEL", NULL, 0));
    FT_CHECK(ft_call_select(&e->c, 0.0, dev == FT_DEVICE_CUDA, 0));
    e->be = e->c.be, e->q = e->c.main;
    FT_CHECK(e->be->lapack_work(e->q, mmax, nbmax, &e->lwb));
    FT_CHECK(ft_call_work(&e->c, e->lwb, &e->lw));
    double *w;
    FT_CHECK(ft_call_work_doubles(&e->c, 2 * mmax * nbmax + 2 * nbmax * nbmax + nbmax, &w));
    e->dP = w, e->dV = w + mmax * nbmax, e->dT = e->dV + mmax * nbmax;
    e->dW = e->dT + nbmax * nbmax, e->dTau = e->dW + nbmax * nbmax;
    return FT_SUCCESS;
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench(env_t *e, const ft_backend_t *rec, const ft_backend_t *one_piece)
{
    const int64_t ms[] = {2048, 8192, 16384, 32768}, nbs[] = {64, 128, 256};
    tu_rng_t rng;
    tu_seed(&rng, 5);
    double *A = tu_malloc(32768 * 256);
    tu_fill(&rng, 32768, 256, A, 32768);
    char table[4096];
    int len = snprintf(table, sizeof table, "%-6s %-4s %-24s %-24s %s\n", "m", "nb",
                       "recursive ms (min-max)", "geqrf+larft ms (min-max)", "ratio");
    for (size_t a = 0; a < sizeof ms / sizeof ms[0]; a++)
        for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; b++) {
            const int64_t m = ms[a], nb = nbs[b];
            double t[2][7];
            for (int r = -1; r < 7; r++)
                for (int w = 0; w < 2; w++) {
                    const ft_backend_t *be = w ? one_piece : rec;
                    (void)e->be->set_matrix(e->q, m, nb, A, 32768, e->dP, m);
                    (void)e->be->sync(e->q);
                    const double t0 = ft_wtime();
                    int st = qr_dev_panel(be, e->q, m, nb, 0, e->dP, m, e->dTau, e->dV, m, e->dT,
                                          nb, e->dW, nb, e->lw, e->lwb, NULL, NULL);
                    st = st ? st : e->be->sync(e->q);
                    TU_CHECK(st == 0, "bench %lld x %lld: %d", (long long)m, (long long)nb, st);
                    if (r >= 0) t[w][r] = (ft_wtime() - t0) * 1e3;
                }
            qsort(t[0], 7, sizeof(double), cmpd);
            qsort(t[1], 7, sizeof(double), cmpd);
            char s0[64], s1[64];
            snprintf(s0, sizeof s0, "%.3f (%.3f-%.3f)", t[0][3], t[0][0], t[0][6]);
            snprintf(s1, sizeof s1, "%.3f (%.3f-%.3f)", t[1][3], t[1][0], t[1][6]);
            len += snprintf(table + len, sizeof table - (size_t)len, "%-6lld %-4lld %-24s %-24s %.2f\n",
                            (long long)m, (long long)nb, s0, s1, t[1][3] / t[0][3]);
        }
    /* one leaf alone: device time between events over 20 leaves, and the host's issue time */
    ft_qevent_t *e0, *e1;
    if (ft_call_event(&e->c, &e0) == 0 && ft_call_event(&e->c, &e1) == 0)
        for (int64_t m = 2048; m <= 32768; m *= 4) {
            (void)e->be->set_matrix(e->q, m, 32, A, 32768, e->dP, m);
            (void)e->be->sync(e->q);
            double t0 = ft_wtime(), sec = 0;
            int st = e->be->event_record(e0, e->q);
            for (int r = 0; r < 20 && !st; r++)
                st = e->be->qr_leaf(e->q, m, 32, e->dP, m, e->dTau, e->dV, m, 0, e->dT, 32,
                                    e->lw, e->lwb);
            const double issue = ft_wtime() - t0;
            st = st ? st : e->be->event_record(e1, e->q);
            st = st ? st : e->be->sync(e->q);
            st = st ? st : e->be->event_elapsed(e0, e1, &sec);
            TU_CHECK(st == 0, "leaf timing: %d", st);
            len += snprintf(table + len, sizeof table - (size_t)len,
                            "leaf %lld x 32: %.1f us on the device, %.1f us to issue (each)\n",
                            (long long)m, sec * 1e6 / 20, issue * 1e6 / 20);
        }
    printf("\n%s", table);
    free(A);
}

int main(int argc, char **argv)
{
    ft_device_t dev;
    if (argc < 2 || tu_parse_device(argv[1], &dev) || dev == FT_DEVICE_AUTO) {
        printf("usage: test_dpanel cpu|cuda [--small|--bench]\n");
        return 2;
    }
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    const int do_bench = argc > 2 && strcmp(argv[2], "--bench") == 0;
    const int small = argc > 2 && strcmp(argv[2], "--small") == 0; /* for the sanitizers */
    env_t e;
    const int64_t mmax = do_bench ? 32768 : 16384;
    int st = setup(&e, dev, mmax, 256);
    TU_CHECK(st == 0, "setup: %s", ft_strerror(st));
    if (st) return tu_finish();
    TU_CHECK(e.be->qr_leaf != NULL, "the %s backend has no leaves", e.be->name);
    ft_backend_t piece = *e.be, leaves = *e.be;
    piece.qr_leaf = NULL;
    leaves.qr_leaf_min_rows = 0; /* leaves at every height (the driver's choice aside) */
    if (do_bench) {
        bench(&e, &leaves, &piece);
    } else {
        tu_rng_t rng;
        tu_seed(&rng, 11);
        const int64_t shapes[][3] = {{1, 1, 0},     {5, 3, 0},      {31, 31, 0},   {64, 32, 0},
                                     {100, 33, 0},  {257, 64, 0},   {300, 64, 32}, {300, 50, 25},
                                     {777, 96, 0},  {1000, 100, 0}, {2048, 256, 0},
                                     {4097, 128, 0}, {5000, 200, 100}, {16384, 256, 0}};
        const double scales[] = {1.0, 0x1p-997, 0x1p-1030, 0x1p997}; /* 1e-300, 1e-310, 1e300 */
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int64_t m = shapes[s][0], ib = shapes[s][1], h = shapes[s][2];
            if (dev == FT_DEVICE_CPU && m > 5000) continue; /* the host's leaves are LAPACK's */
            if (small && m > 300) continue;
            for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++)
                if (k == 0 || m <= 2048) one(&e, &leaves, "leaves", &rng, m, ib, h, scales[k], 0);
            one(&e, &leaves, "leaves", &rng, m, ib, h, 1.0, 1);
            one(&e, &leaves, "leaves", &rng, m, ib, h, 1.0, 2);
            if (m <= 2048) one(&e, &piece, "one piece", &rng, m, ib, h, 1.0, 1);
        }
    }
    ft_call_end(&e.c, st);
    return tu_finish();
}
