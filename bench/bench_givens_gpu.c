/*
 * bench_givens_gpu — the plane-rotation kernels of src/givens on the GPU (issue 8, paper 004
 * Sec. 5.3): "plain" (one rotation at a time) against "fused" (blocked fused DLARTG + DLASR),
 * for both tasks of Algorithm 1 on an n x n upper triangle:
 *   z2h: zero a vector bottom-up and apply the rotations to R (triangular -> Hessenberg);
 *   h2t: reduce the Hessenberg matrix to triangular top-down.
 * Protocol: one warm-up call of each, then runs alternated plain / fused, each on a fresh copy
 * of the input (restored on the device, not timed), timed from before the call to the end of a
 * sync; median and min-max of --runs (default 7). Bytes: the n^2/2 upper elements read and
 * written once (16 bytes each), the least any implementation moves; GB/s = that / time.
 * An internal benchmark (it includes src/givens/givens.h), not built by run_before_after.sh.
 */
#include "bench_common.h"
#include "givens/givens.h"

#include <ftla.h>

static double *dev_alloc(const ft_backend_t *be, size_t n)
{
    void *p = NULL;
    if (be->alloc(&p, n * sizeof(double))) bench_die("device alloc of %zu doubles failed", n);
    return p;
}

/* --lasr: dlasr ('F' and 'B') on an m x n block (the checksum columns, one vector, or wide)
 * and zero_to_hess on an m x n upper trapezoid, the streaming sweep against the scan sweep
 * (FTLA_LASR), alternated; bytes = one read and one write of the block (16 m n; z2h: of the
 * trapezoid). */
static int bench_lasr(const ft_backend_t *be, ft_queue_t *q, int64_t m, const int *LN, int nL,
                      int runs)
{
    const givens_kernels_t *K = givens_kernels_cuda_fused();
    const char *modes[2] = {"stream", "scan"};
    printf("# op m n sweep runs median_s min_s max_s GB/s ratio_stream_over_this maxdiff\n");
    for (int il = 0; il < nL; il++) {
        const int64_t n = LN[il], mn = m * n;
        double *h = bench_malloc((size_t)mn * sizeof(double)), *hc = bench_malloc((size_t)m * sizeof(double)),
               *hs = bench_malloc((size_t)m * sizeof(double)), *out[2];
        bench_fill(h, (size_t)mn, 5 + (uint64_t)n);
        bench_fill(hc, (size_t)m, 9);
        for (int64_t p = 0; p < m; p++) {
            const double th = 3.0 * hc[p];
            hc[p] = cos(th);
            hs[p] = sin(th);
        }
        double *d0 = dev_alloc(be, (size_t)mn), *d = dev_alloc(be, (size_t)mn),
               *dc = dev_alloc(be, (size_t)m), *ds = dev_alloc(be, (size_t)m),
               *dx = dev_alloc(be, (size_t)m), *dsub = dev_alloc(be, (size_t)n + 1);
        be->set_matrix(q, m, n, h, m, d0, m);
        be->set_matrix(q, m, 1, hc, m, dc, m);
        be->set_matrix(q, m, 1, hs, m, ds, m);
        for (int op = 0; op < 3; op++) {
            double t[2][1024];
            for (int r = -1; r < runs; r++)
                for (int md = 0; md < 2; md++) {
                    setenv("FTLA_LASR", modes[md], 1);
                    be->copy_matrix(q, m, n, d0, m, d, m);
                    be->copy_matrix(q, m, 1, d0, m, dx, m);
                    be->sync(q);
                    const double t0 = bench_now();
                    int st = op == 2 ? K->zero_to_hess(q, m, n, dx, d, m, dsub, dc, ds)
                                     : K->lasr(q, op ? 'B' : 'F', m, n, dc, ds, d, m);
                    if (st || be->sync(q)) bench_die("lasr failed");
                    if (r >= 0) t[md][r] = bench_now() - t0;
                    if (r == runs - 1) {
                        out[md] = bench_malloc((size_t)mn * sizeof(double));
                        be->get_matrix(q, m, n, d, m, out[md], m);
                        be->sync(q);
                    }
                }
            unsetenv("FTLA_LASR");
            double mx = bench_absmax(out[0], (size_t)mn), diff = 0;
            for (int64_t e = 0; e < mn; e++) diff = fmax(diff, fabs(out[0][e] - out[1][e]));
            const double dm = (double)m, dn = (double)n; /* z2h: the upper trapezoid */
            const double up = n <= m ? dn * (dn + 1) / 2 : dm * (dm + 1) / 2 + (dn - dm) * dm;
            const double bytes = 16.0 * (op == 2 ? up : (double)mn);
            bench_stats_t st0 = bench_stats(t[0], runs);
            for (int md = 0; md < 2; md++) {
                bench_stats_t sx = bench_stats(t[md], runs);
                printf("%s %lld %lld %s %d %.6f %.6f %.6f %.1f %.2f %.2e\n",
                       op == 2 ? "z2h" : (op ? "lasrB" : "lasrF"), (long long)m, (long long)n,
                       modes[md], runs, sx.med, sx.min, sx.max, bytes / sx.med / 1e9,
                       st0.med / sx.med, diff / mx);
            }
            free(out[0]), free(out[1]);
        }
        be->free(d0), be->free(d), be->free(dc), be->free(ds), be->free(dx), be->free(dsub);
        free(h), free(hc), free(hs);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int N[BENCH_MAX_SIZES], nN = 0, runs = 7, LN[BENCH_MAX_SIZES], nL = 0, lm = 16384, slab_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-N") && i + 1 < argc) bench_parse_list(argv[++i], "-N", N, &nN, 1, 65536);
        else if (!strcmp(argv[i], "--lasr") && i + 1 < argc)
            bench_parse_list(argv[++i], "--lasr", LN, &nL, 1, 65536);
        else if (!strcmp(argv[i], "--lasr-m") && i + 1 < argc)
            lm = bench_parse_int(argv[++i], "--lasr-m", 2, 1 << 20);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = bench_parse_int(argv[++i], "--runs", 1, 1000);
        else if (!strcmp(argv[i], "--slab-only")) slab_only = 1;
        else bench_die("usage: bench_givens_gpu [-N n,n,...] [--runs r] [--slab-only] "
                       "[--lasr n,n,... [--lasr-m m]]");
    }
    if (nN == 0) bench_parse_list("8192,16384", "-N", N, &nN, 1, 65536);
    if (!ft_cuda_available()) {
        printf("SKIP: no usable CUDA device\n");
        return 77;
    }
    const ft_backend_t *be = ft_backend_cuda();
    ft_context_t *ctx = NULL;
    if (ft_context_create(&ctx, FT_DEVICE_CUDA)) bench_die("context");
    ft_queue_t *q = NULL;
    if (be->queue_create(ctx, NULL, &q)) bench_die("queue");
    /* plain, the two-launch fused steps, the persistent kernel (the default), the slab pipeline */
    if (nL > 0) return bench_lasr(be, q, lm, LN, nL, runs);
    const givens_kernels_t *K[4] = {givens_kernels_cuda_plain(), givens_kernels_cuda_steps(),
                                    givens_kernels_cuda_persistent(), givens_kernels_cuda_slab()};
    /* --slab-only: the slab pipeline's h2t alone (quick comparisons of its settings, run by
     * run; the ratio and maxdiff columns are then against itself) */
    const int NK = slab_only ? 1 : 4;
    if (slab_only) K[0] = K[3];
    printf("# GB/s = bytes of one read and one write of the upper triangle (16 n(n+1)/2) / median;"
           " copy = device-to-device copy of an n x n matrix in the same run (the HBM reference)\n");
    printf("# task n method runs median_s min_s max_s GB/s pct_of_copy ratio_plain_over_this "
           "maxdiff_vs_plain\n");
    for (int in = 0; in < nN; in++) {
        const int64_t n = N[in], ld = n;
        const size_t nn = (size_t)n * (size_t)n;
        double *hR = bench_malloc(nn * sizeof(double)), *hx = bench_malloc((size_t)n * sizeof(double));
        bench_fill(hR, nn, 7 + (uint64_t)n);
        bench_fill(hx, (size_t)n, 11 + (uint64_t)n);
        /* a well-conditioned R (diagonal 2 + sqrt(n), as test_givens): on a random triangular
         * matrix the forward error grows like its condition number, ~2^n, and two correct
         * implementations that round differently (the persistent kernel's dlartg uses rsqrt)
         * would differ in the maxdiff column by O(1) */
        for (int64_t j = 0; j < n; j++) hR[j + j * n] += 2.0 + sqrt((double)n);
        double *dR0 = dev_alloc(be, nn), *dR = dev_alloc(be, nn), *dx0 = dev_alloc(be, n),
               *dx = dev_alloc(be, n), *dsub0 = dev_alloc(be, n), *dsub = dev_alloc(be, n),
               *dc = dev_alloc(be, n), *ds = dev_alloc(be, n), *dH = dev_alloc(be, nn);
        be->set_matrix(q, n, n, hR, n, dR0, ld);
        be->set_matrix(q, n, 1, hx, n, dx0, n);
        /* a Hessenberg input for h2t: z2h once (fused) into dH / dsub0 */
        be->copy_matrix(q, n, n, dR0, ld, dH, ld);
        be->copy_matrix(q, n, 1, dx0, n, dx, n);
        if (K[1]->zero_to_hess(q, n, n, dx, dH, ld, dsub0, dc, ds)) bench_die("z2h");
        be->sync(q);
        /* the HBM reference: n x n device-to-device copies (read + write 16 n^2 bytes) */
        double tc[1024];
        for (int r = -1; r < runs; r++) {
            be->sync(q);
            const double t0 = bench_now();
            be->copy_matrix(q, n, n, dR0, ld, dR, ld);
            if (be->sync(q)) bench_die("copy");
            if (r >= 0) tc[r] = bench_now() - t0;
        }
        const bench_stats_t sc = bench_stats(tc, runs);
        const double copy_gbs = 16.0 * (double)n * (double)n / sc.med / 1e9;
        printf("copy %lld d2d %d %.6f %.6f %.6f %.1f 100.0 - -\n", (long long)n, runs, sc.med,
               sc.min, sc.max, copy_gbs);
        double *out[4];
        for (int task = slab_only; task < 2; task++) {
            double t[4][1024];
            for (int r = -1; r < runs; r++)
                for (int k = 0; k < NK; k++) {
                    be->copy_matrix(q, n, n, task ? dH : dR0, ld, dR, ld);
                    be->copy_matrix(q, n, 1, task ? dsub0 : dx0, n, task ? dsub : dx, n);
                    be->sync(q);
                    const double t0 = bench_now();
                    int st = task ? K[k]->hess_to_tri(q, n, n, dR, ld, dsub, dc, ds)
                                  : K[k]->zero_to_hess(q, n, n, dx, dR, ld, dsub, dc, ds);
                    if (st || be->sync(q)) bench_die("%s failed", K[k]->name);
                    if (r >= 0) t[k][r] = bench_now() - t0;
                    if (r == runs - 1) {
                        out[k] = bench_malloc(nn * sizeof(double));
                        be->get_matrix(q, n, n, dR, ld, out[k], n);
                        be->sync(q);
                    }
                }
            const double mx = bench_absmax(out[0], nn);
            const double bytes = 16.0 * (double)n * (double)(n + 1) / 2;
            bench_stats_t s[4];
            for (int k = 0; k < NK; k++) s[k] = bench_stats(t[k], runs);
            for (int k = 0; k < NK; k++) {
                double diff = 0;
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i <= j; i++)
                        diff = fmax(diff, fabs(out[0][i + j * n] - out[k][i + j * n]));
                const double gbs = bytes / s[k].med / 1e9;
                printf("%s %lld %s %d %.6f %.6f %.6f %.1f %.1f %.2f %.2e\n", task ? "h2t" : "z2h",
                       (long long)n, K[k]->name, runs, s[k].med, s[k].min, s[k].max, gbs,
                       100.0 * gbs / copy_gbs, s[0].med / s[k].med, diff / mx);
            }
            for (int k = 0; k < NK; k++) free(out[k]);
        }
        be->free(dR0), be->free(dR), be->free(dx0), be->free(dx), be->free(dsub0);
        be->free(dsub), be->free(dc), be->free(ds), be->free(dH);
        free(hR), free(hx);
    }
    be->queue_destroy(q);
    ft_context_destroy(ctx);
    return 0;
}
