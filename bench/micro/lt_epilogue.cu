/*
 * lt_epilogue.cu — does cuBLASLt offer FP64 matmuls whose epilogue reduces the result (the
 * bias-gradient epilogues), and at what speed (issue 12: the protection's passes over C cost
 * their bytes because nothing runs beside cuBLAS's product; a product that sums its own output
 * would remove the result's pass)?
 *   nvcc -O3 -arch=sm_90 -o lt_epilogue lt_epilogue.cu -lcublasLt -lcublas && ./lt_epilogue
 * For each epilogue: how many algorithms the heuristic offers for D = alpha A B + beta C in
 * FP64 (CUBLAS_COMPUTE_64F), and for those it offers, the time at 16384^2 x 256 (beta 1) and
 * 4096^3 (beta 0) against cublasDgemm (median of 7, alternated) and, at a small size, the
 * reduction it returns against a host reference.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));                \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define LT(x) (int)(x)

struct Ep {
    const char *name;
    cublasLtEpilogue_t ep;
    int needs_bias;   /* a bias vector (input: BIAS; output: the gradients) */
    int needs_aux;    /* the ReLU mask (DRELU) */
    int grad_len_m;   /* the gradient's length: m (over the columns of D) or n / k */
};

static const Ep kEps[] = {
    {"DEFAULT", CUBLASLT_EPILOGUE_DEFAULT, 0, 0, 0},
    {"BIAS", CUBLASLT_EPILOGUE_BIAS, 1, 0, 1},
    {"BGRADA", CUBLASLT_EPILOGUE_BGRADA, 1, 0, 1},
    {"BGRADB", CUBLASLT_EPILOGUE_BGRADB, 1, 0, 0},
    {"DRELU_BGRAD", CUBLASLT_EPILOGUE_DRELU_BGRAD, 1, 1, 1},
};

struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo;
    size_t ws = 0;
    int found = 0;
    int status = 0;
};

static Plan plan(cublasLtHandle_t lt, const Ep &e, int64_t m, int64_t n, int64_t k, double *bias,
                 void *aux, int64_t ldaux, void *work, size_t wsmax)
{
    Plan p;
    p.status = LT(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_64F, CUDA_R_64F));
    if (p.status) return p;
    cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e.ep, sizeof e.ep);
    if (e.needs_bias) {
        cudaDataType_t bt = CUDA_R_64F;
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt);
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                       sizeof bias);
    }
    if (e.needs_aux) {
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux,
                                       sizeof aux);
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ldaux,
                                       sizeof ldaux);
    }
    cublasLtMatrixLayoutCreate(&p.a, CUDA_R_64F, m, k, m);
    cublasLtMatrixLayoutCreate(&p.b, CUDA_R_64F, k, n, k);
    cublasLtMatrixLayoutCreate(&p.c, CUDA_R_64F, m, n, m);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsmax,
                                         sizeof wsmax);
    cublasLtMatmulHeuristicResult_t res[8];
    int nres = 0;
    p.status = LT(cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.a, p.b, p.c, p.c, pref, 8, res,
                                                 &nres));
    cublasLtMatmulPreferenceDestroy(pref);
    (void)work;
    if (p.status == 0 && nres > 0) {
        p.algo = res[0].algo;
        p.ws = res[0].workspaceSize;
        p.found = nres;
    }
    return p;
}

static double med(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main()
{
    cublasLtHandle_t lt;
    cublasHandle_t h;
    if (cublasLtCreate(&lt) || cublasCreate(&h)) {
        printf("no cuBLAS(Lt)\n");
        return 1;
    }
    const int64_t M = 16384, N = 16384, K = 4096; /* the largest operands used below */
    double *A, *B, *C, *bias;
    void *aux, *work;
    const size_t wsmax = (size_t)64 << 20;
    CK(cudaMalloc(&A, (size_t)M * K * 8));
    CK(cudaMalloc(&B, (size_t)K * N * 8));
    CK(cudaMalloc(&C, (size_t)M * N * 8));
    CK(cudaMalloc(&bias, (size_t)N * 8 + (size_t)M * 8));
    CK(cudaMalloc(&aux, (size_t)M * N / 8 + 4096));
    CK(cudaMalloc(&work, wsmax));
    CK(cudaMemset(aux, 0xff, (size_t)M * N / 8 + 4096)); /* ReLU mask: every element passed */
    {
        std::vector<double> h1((size_t)M * K);
        for (size_t i = 0; i < h1.size(); i++) h1[i] = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
        CK(cudaMemcpy(A, h1.data(), h1.size() * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(B, h1.data(), (size_t)K * N * 8 > h1.size() * 8 ? h1.size() * 8 : (size_t)K * N * 8, cudaMemcpyHostToDevice));
        CK(cudaMemset(C, 0, (size_t)M * N * 8));
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const int64_t shapes[][4] = {{16384, 16384, 256, 1}, {4096, 4096, 4096, 0}, {192, 160, 64, 1}};
    printf("%-12s %6s %6s %6s  %-5s %8s %10s %10s %7s  %s\n", "epilogue", "m", "n", "k", "algos",
           "status", "lt_ms", "dgemm_ms", "ratio", "reduction check");
    for (const Ep &e : kEps)
        for (const auto &s : shapes) {
            const int64_t m = s[0], n = s[1], k = s[2];
            const double alpha = 1.0, beta = (double)s[3];
            Plan p = plan(lt, e, m, n, k, bias, aux, m, work, wsmax);
            if (!p.found) {
                printf("%-12s %6lld %6lld %6lld  %-5d %8d %10s %10s %7s  %s\n", e.name,
                       (long long)m, (long long)n, (long long)k, 0, p.status, "-", "-", "-",
                       "no algorithm");
                continue;
            }
            auto run_lt = [&]() {
                return (int)cublasLtMatmul(lt, p.op, &alpha, A, p.a, B, p.b, &beta, C, p.c, C, p.c,
                                           &p.algo, work, p.ws, 0);
            };
            auto run_bl = [&]() {
                return (int)cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k,
                                        &alpha, A, (int)m, B, (int)k, &beta, C, (int)m);
            };
            int st = run_lt();
            CK(cudaDeviceSynchronize());
            std::vector<double> tl, tb;
            for (int r = 0; r < 8 && !st; r++) {
                float ms;
                CK(cudaEventRecord(e0));
                st = run_lt();
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r) tl.push_back(ms);
                CK(cudaEventRecord(e0));
                run_bl();
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r) tb.push_back(ms);
            }
            char chk[160] = "-";
            if (!st && e.needs_bias && e.ep != CUBLASLT_EPILOGUE_BIAS && m * n <= 192 * 160) {
                /* D := alpha A B (+ beta C, C zero here); the reduction against the host's */
                std::vector<double> ha(m * k), hb(k * n), hd(m * n), hg(std::max(m, n));
                CK(cudaMemset(C, 0, (size_t)m * n * 8));
                st = run_lt();
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(ha.data(), A, ha.size() * 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hb.data(), B, hb.size() * 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hd.data(), C, hd.size() * 8, cudaMemcpyDeviceToHost));
                const int64_t len = e.grad_len_m ? m : (e.ep == CUBLASLT_EPILOGUE_BGRADB ? n : k);
                CK(cudaMemcpy(hg.data(), bias, len * 8, cudaMemcpyDeviceToHost));
                double err = 0.0, big = 0.0;
                for (int64_t i = 0; i < len; i++) {
                    double ref = 0.0;
                    if (e.ep == CUBLASLT_EPILOGUE_BGRADA)      /* sums of A's rows over k */
                        for (int64_t l = 0; l < k; l++) ref += ha[i + l * m];
                    else if (e.ep == CUBLASLT_EPILOGUE_BGRADB) /* sums of B's columns over k */
                        for (int64_t l = 0; l < k; l++) ref += hb[l + i * k];
                    else                                       /* sums of D's rows over n */
                        for (int64_t j = 0; j < n; j++) ref += hd[i + j * m];
                    err = std::max(err, std::fabs(ref - hg[i]));
                    big = std::max(big, std::fabs(ref));
                }
                snprintf(chk, sizeof chk, "max |ref - out| %.3g of max |ref| %.3g (len %lld)", err,
                         big, (long long)len);
            }
            if (st) {
                printf("%-12s %6lld %6lld %6lld  %-5d %8d %10s %10s %7s  %s\n", e.name,
                       (long long)m, (long long)n, (long long)k, p.found, st, "-", "-", "-",
                       "matmul failed");
                continue;
            }
            const double a = med(tl), b = med(tb);
            printf("%-12s %6lld %6lld %6lld  %-5d %8d %10.3f %10.3f %7.3f  %s\n", e.name,
                   (long long)m, (long long)n, (long long)k, p.found, 0, a, b, b / a, chk);
        }
    return 0;
}
