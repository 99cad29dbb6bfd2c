/*
 * bench_dgemm_gpu — ft_dgemm_gpu vs cuBLAS DGEMM in the same run, on device pointers.
 *
 *   bench_dgemm_gpu [-n N]... [--beta b] [--niter k] [--inject f] [--trans XY] [--serial]
 *                   [--tile T] [--block b]
 *
 * For each n: random A, B, C in [-1,1] (never zeros), cuBLAS timed with events (median of
 * niter after one warm-up), then ft_dgemm_gpu_ex timed the same way (protection on; with
 * --inject f, f random bit flips in bits 52..62 are injected into C in every timed call), the
 * result compared with cuBLAS's: max |C_ft - C_cublas| / (k * max|A| * max|B| * eps) must be
 * below 30 in every call, and every injected fault must be corrected. Prints one row per n and
 * exits non-zero on any failure.
 */
#include "ftla.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));           \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)
#define CB(x)                                                                                      \
    do {                                                                                           \
        cublasStatus_t s_ = (x);                                                                   \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, (int)s_);                    \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void fill(double *h, size_t n, unsigned *seed)
{
    for (size_t i = 0; i < n; i++) h[i] = 2.0 * rand_r(seed) / RAND_MAX - 1.0;
}

int main(int argc, char **argv)
{
    int ns[16], nn = 0, niter = 5, inject = 0, serial = 0, tile = 0, block = 1;
    double beta = 0.0;
    char ta = 'N', tb = 'N';
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc && nn < 16) ns[nn++] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--beta") && i + 1 < argc) beta = atof(argv[++i]);
        else if (!strcmp(argv[i], "--niter") && i + 1 < argc) niter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--inject") && i + 1 < argc) inject = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--serial")) serial = 1;
        else if (!strcmp(argv[i], "--block") && i + 1 < argc) block = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tile") && i + 1 < argc) tile = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--trans") && i + 1 < argc) ta = argv[++i][0], tb = argv[i][1];
        else {
            fprintf(stderr, "usage: %s [-n N]... [--beta b] [--niter k] [--inject f] [--trans XY] [--serial] [--tile T] [--block b]\n",
                    argv[0]);
            return 2;
        }
    }
    if (nn == 0) ns[nn++] = 4096;
    if (!ft_cuda_available()) {
        printf("SKIP: no CUDA device (or built without CUDA)\n");
        return 77;
    }
    ft_context_t *ctx;
    if (ft_context_create(&ctx, FT_DEVICE_CUDA)) return 2;
    ft_inject_seed(ctx, 12345);
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.serial_encode = serial;
    pol.tile = tile;
    if (getenv("FTLA_VERBOSE")) pol.verbose = atoi(getenv("FTLA_VERBOSE"));
    if (ft_context_set_policy(ctx, &pol)) return 2;
    cublasHandle_t h;
    CB(cublasCreate(&h));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const double alpha = 1.0;
    int fails = 0, nbad = 0;
    printf("%%   M     N     K  tr  beta  cuBLAS_TF/s  ft_TF/s  ratio  off_TF/s on/off  ft/cuBLAS_ms     err  inj/det/cor  protect_ms\n");
    for (int t = 0; t < nn; t++) {
        const int n = ns[t];
        const size_t sz = (size_t)n * n;
        double *hA = malloc(sz * 8), *hB = malloc(sz * 8), *hC = malloc(sz * 8), *hR = malloc(sz * 8);
        unsigned seed = 1000u + (unsigned)n;
        fill(hA, sz, &seed);
        fill(hB, sz, &seed);
        fill(hC, sz, &seed);
        double *dA, *dB, *dC, *dC0, *dR;
        CK(cudaMalloc((void **)&dA, sz * 8));
        CK(cudaMalloc((void **)&dB, sz * 8));
        CK(cudaMalloc((void **)&dC, sz * 8));
        CK(cudaMalloc((void **)&dC0, sz * 8));
        CK(cudaMalloc((void **)&dR, sz * 8));
        CK(cudaMemcpy(dA, hA, sz * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, hB, sz * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dC0, hC, sz * 8, cudaMemcpyHostToDevice));
        double tc[64], tf[64], tp[64], to[64];
        cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
        cublasOperation_t ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
        /* cuBLAS and ftla alternate, one warm-up each, so clock and thermal drift over the run
         * hit both alike */
        double maxerr = 0;
        long inj = 0, det = 0, cor = 0, rowfail = 0;
        /* --block 1 (default): the methods alternate run by run, so drift hits all alike.
         * --block b > 1: b consecutive runs of one method, then of the next, the first run of
         * each block discarded: each method in its own steady state (a fault run's host round
         * trips leave the GPU idle, which lets the run after it boost: with b = 1 that run is
         * cuBLAS). */
        int nc = 0, nf = 0, no = 0, total = niter < 60 ? niter : 60;
        for (int round = 0; nc < total || nf < total || no < total; round++) {
            for (int method = 0; method < 3; method++) {
                for (int rep_ = 0; rep_ < block + (block > 1); rep_++) {
                    const int keep = (block > 1 ? rep_ > 0 : round > 0);
                    float ms;
                    if (method == 0) {
                        if (nc >= total) break;
                        CK(cudaMemcpy(dR, dC0, sz * 8, cudaMemcpyDeviceToDevice));
                        CK(cudaDeviceSynchronize());
                        CK(cudaEventRecord(e0, 0));
                        CB(cublasDgemm(h, oa, ob, n, n, n, &alpha, dA, n, dB, n, &beta, dR, n));
                        CK(cudaEventRecord(e1, 0));
                        CK(cudaEventSynchronize(e1));
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        if (keep) tc[nc++] = ms * 1e-3;
                        if (round == 0 && rep_ == 0)
                            CK(cudaMemcpy(hR, dR, sz * 8, cudaMemcpyDeviceToHost));
                    } else if (method == 1) {
                        /* the same driver with protection off: ftla's own stream and handle */
                        if (no >= total) break;
                        pol.protect = 0;
                        if (ft_context_set_policy(ctx, &pol)) return 2;
                        CK(cudaMemcpy(dC, dC0, sz * 8, cudaMemcpyDeviceToDevice));
                        CK(cudaDeviceSynchronize());
                        CK(cudaEventRecord(e0, 0));
                        if (ft_dgemm_gpu_ex(ctx, ta, tb, n, n, n, alpha, dA, n, dB, n, beta, dC, n,
                                            NULL))
                            rowfail++;
                        CK(cudaEventRecord(e1, 0));
                        CK(cudaEventSynchronize(e1));
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        if (keep) to[no++] = ms * 1e-3;
                        pol.protect = 1;
                        if (ft_context_set_policy(ctx, &pol)) return 2;
                    } else {
                        if (nf >= total) break;
                        CK(cudaMemcpy(dC, dC0, sz * 8, cudaMemcpyDeviceToDevice));
                        CK(cudaDeviceSynchronize());
                        for (int f = 0; f < inject; f++) {
                            ft_fault_t fl = {FT_REGION_C, -1, -1, 52 + rand_r(&seed) % 11, 0.0, -1, -1};
                            ft_inject_add(ctx, &fl);
                        }
                        ft_report_t rep;
                        CK(cudaEventRecord(e0, 0));
                        int st = ft_dgemm_gpu_ex(ctx, ta, tb, n, n, n, alpha, dA, n, dB, n, beta, dC,
                                                 n, &rep);
                        CK(cudaEventRecord(e1, 0));
                        CK(cudaEventSynchronize(e1));
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        if (keep) {
                            tp[nf] = rep.time_protect;
                            tf[nf++] = ms * 1e-3;
                            inj += rep.injected, det += rep.detected, cor += rep.corrected;
                        }
                        if (st) {
                            printf("%% ft_dgemm_gpu_ex returned %d (%s)\n", st, ft_strerror(st));
                            rowfail++;
                        }
                        if (rep.corrected != rep.injected || rep.checksum_errors) rowfail++;
                        if (inject || nf == total) { /* check injected calls and the last one */
                            CK(cudaMemcpy(hC, dC, sz * 8, cudaMemcpyDeviceToHost));
                            double e = 0;
                            for (size_t i = 0; i < sz; i++) {
                                double d = fabs(hC[i] - hR[i]);
                                if (!(d <= e)) e = d;
                            }
                            e /= (double)n * DBL_EPSILON * (1.0 + fabs(beta));
                            if (!(e <= maxerr)) maxerr = e;
                        }
                    }
                }
            }
        }
        niter = total;
        double mc = median(tc, niter), mf = median(tf, niter), mp = median(tp, niter);
        double mo = median(to, niter);
        double fl = 2.0 * n * (double)n * n;
        int ok = maxerr < 30 && inj == cor && det >= inj && !rowfail;
        fails += !ok;
        nbad += !ok;
        printf("%6d %5d %5d  %c%c  %4.1f  %11.2f  %7.2f  %5.3f  %8.2f  %5.3f  %6.2f/%6.2f  %6.2f  %ld/%ld/%ld  %9.3f  %s\n",
               n, n, n, ta, tb, beta, fl / mc * 1e-12, fl / mf * 1e-12, mc / mf, fl / mo * 1e-12,
               mo / mf, mc * 1e3, mf * 1e3,
               maxerr, inj, det, cor, mp * 1e3, ok ? "ok" : "failed");
        fflush(stdout);
        cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dC0), cudaFree(dR);
        free(hA), free(hB), free(hC), free(hR);
    }
    cublasDestroy(h);
    ft_context_destroy(ctx);
    printf("%d passed, %d failed\n", nn - nbad, nbad);
    return fails ? 1 : 0;
}
