/*
 * test_dgemm_operands.c — faults in the operands (FT_REGION_A / FT_REGION_B, issue 7 hole 7):
 * applied to the memory the product reads, after the checksums were encoded from it, and undone
 * at the end of the call. A wrong A(i,l) spoils row i of C, a wrong B(l,j) column j: detected,
 * and not correctable (a recomputation reads the same wrong operand) — FT_ERR_UNCORRECTABLE,
 * never silent; the caller's A and B are unchanged afterwards; with protection off the fault is
 * applied and nothing is checked. Argument: cpu or cuda (host and device pointers).
 */
#include "testing_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FTLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

int main(int argc, char **argv)
{
    ft_device_t dev = tu_device_from_args(argc, argv);
    tu_rng_t rng;
    tu_seed(&rng, 99);
    const int m = 300, n = 200, k = 150;
    double *A = malloc(sizeof(double) * m * k), *B = malloc(sizeof(double) * k * n);
    double *A0 = malloc(sizeof(double) * m * k), *B0 = malloc(sizeof(double) * k * n);
    double *C = malloc(sizeof(double) * m * n), *Cref = malloc(sizeof(double) * m * n);
    tu_fill(&rng, m, k, A, m);
    tu_fill(&rng, k, n, B, k);
    memcpy(A0, A, sizeof(double) * m * k);
    memcpy(B0, B, sizeof(double) * k * n);
    for (int reg = FT_REGION_A; reg <= FT_REGION_B; reg++)
        for (int prot = 0; prot <= 1; prot++) {
            ft_context_t *ctx;
            if (ft_context_create(&ctx, dev) != 0) return 77;
            ft_policy_t p;
            ft_context_get_policy(ctx, &p);
            p.protect = prot;
            p.tile = 64;
            ft_context_set_policy(ctx, &p);
            ft_fault_t f = {.region = (ft_region_t)reg, .row = 10, .col = 20, .bit = 60,
                            .call = -1, .step = -1};
            TU_CHECK(ft_inject_add(ctx, &f) == 0, "ft_inject_add region %d", reg);
            ft_report_t rep;
            tu_poison_report(&rep);
            int st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0, A, m, B, k, 0.0, C, m, &rep);
            const char *what = reg == FT_REGION_A ? "A(10,20)" : "B(10,20)";
            TU_CHECK(rep.injected == 1, "%s protect %d: injected %lld", what, prot,
                     (long long)rep.injected);
            if (prot)
                TU_CHECK(st == FT_ERR_UNCORRECTABLE && rep.detected >= 1 &&
                             rep.uncorrectable >= 1 && rep.corrected == 0,
                         "%s: status %d detected %lld uncorrectable %lld corrected %lld", what,
                         st, (long long)rep.detected, (long long)rep.uncorrectable,
                         (long long)rep.corrected);
            else
                TU_CHECK(st == 0 && rep.checks == 0, "%s, protection off: status %d checks %lld",
                         what, st, (long long)rep.checks);
            TU_CHECK(memcmp(A, A0, sizeof(double) * m * k) == 0 &&
                         memcmp(B, B0, sizeof(double) * k * n) == 0,
                     "%s protect %d: the caller's operands were not restored", what, prot);
            ft_context_destroy(ctx);
        }
    /* A change far below every check's threshold (bit 2 of the mantissa) in A or B, transposed
     * or not: the row checks cannot see it, the operand digests do (policy.operand_check,
     * default on): FT_ERR_UNCORRECTABLE with an event naming the operand. With the check off
     * (-1) the call returns 0 (the documented unprotected class) and no event names it. */
    for (int reg = FT_REGION_A; reg <= FT_REGION_B; reg++)
        for (int tr = 0; tr <= 1; tr++)
            for (int oc = -1; oc <= 1; oc++) {
                ft_context_t *ctx;
                if (ft_context_create(&ctx, dev) != 0) return 77;
                ft_policy_t p;
                ft_context_get_policy(ctx, &p);
                p.tile = 64;
                p.operand_check = oc;
                TU_CHECK(ft_context_set_policy(ctx, &p) == 0, "set operand_check %d", oc);
                ft_fault_t f = {.region = (ft_region_t)reg, .row = 5, .col = 9, .bit = 2,
                                .call = -1, .step = -1};
                ft_inject_add(ctx, &f);
                ft_report_t rep;
                tu_poison_report(&rep);
                const char ta = tr ? 'T' : 'N', tb = tr ? 'T' : 'N';
                /* op(A) m x k, op(B) k x n: stored A is k x m when transposed (ld k) */
                int st = ft_dgemm_ex(ctx, ta, tb, m, n, k, 1.0, A, tr ? k : m, B, tr ? n : k, 0.5,
                                     C, m, &rep);
                int named = 0;
                for (int e = 0; e < (int)rep.nevents && e < FT_REPORT_MAX_EVENTS; e++)
                    if (rep.events[e].kind == FT_EVENT_UNCORRECTABLE &&
                        (int)rep.events[e].region == reg)
                        named = 1;
                const char *what = reg == FT_REGION_A ? "A" : "B";
                TU_CHECK(rep.injected == 1, "low bit in %s (trans %d, check %d): injected %lld",
                         what, tr, oc, (long long)rep.injected);
                if (oc >= 0)
                    TU_CHECK(st == FT_ERR_UNCORRECTABLE && named && rep.uncorrectable >= 1,
                             "low bit in %s (trans %d, check %d): status %d, event %d", what, tr,
                             oc, st, named);
                else
                    TU_CHECK(st == 0 && !named, "low bit in %s (trans %d), check off: status %d",
                             what, tr, st);
                TU_CHECK(memcmp(A, A0, sizeof(double) * m * k) == 0 &&
                             memcmp(B, B0, sizeof(double) * k * n) == 0,
                         "low bit in %s: operands not restored", what);
                ft_context_destroy(ctx);
            }
    { /* the policy field is validated */
        ft_context_t *ctx;
        if (ft_context_create(&ctx, dev) != 0) return 77;
        ft_policy_t p;
        ft_context_get_policy(ctx, &p);
        TU_CHECK(p.operand_check == 0, "operand_check default %d", p.operand_check);
        p.operand_check = 2;
        TU_CHECK(ft_context_set_policy(ctx, &p) == FT_ERR_INVALID_VALUE, "operand_check 2 accepted");
        ft_context_destroy(ctx);
    }
#ifdef FTLA_HAVE_CUDA
    if (dev == FT_DEVICE_CUDA) { /* device pointers: the caller's device arrays, restored */
        double *dA, *dB, *dC;
        cudaMalloc((void **)&dA, sizeof(double) * m * k);
        cudaMalloc((void **)&dB, sizeof(double) * k * n);
        cudaMalloc((void **)&dC, sizeof(double) * m * n);
        cudaMemcpy(dA, A0, sizeof(double) * m * k, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B0, sizeof(double) * k * n, cudaMemcpyHostToDevice);
        ft_context_t *ctx;
        ft_context_create(&ctx, FT_DEVICE_CUDA);
        ft_fault_t f = {.region = FT_REGION_B, .row = 3, .col = 7, .bit = 61, .call = -1,
                        .step = -1};
        ft_inject_add(ctx, &f);
        ft_report_t rep;
        int st = ft_dgemm_gpu_ex(ctx, 'N', 'N', m, n, k, 1.0, dA, m, dB, k, 0.0, dC, m, &rep);
        cudaMemcpy(B, dB, sizeof(double) * k * n, cudaMemcpyDeviceToHost);
        TU_CHECK(st == FT_ERR_UNCORRECTABLE && rep.injected == 1,
                 "device B fault: status %d injected %lld", st, (long long)rep.injected);
        TU_CHECK(memcmp(B, B0, sizeof(double) * k * n) == 0, "device B not restored");
        ft_context_destroy(ctx);
        cudaFree(dA), cudaFree(dB), cudaFree(dC);
    }
#endif
    free(A), free(B), free(A0), free(B0), free(C), free(Cref);
    return tu_finish();
}
