/*
 * test_dgemm_args.c — argument errors and the small API contracts around ft_dgemm.
 *
 *   - every illegal argument of ft_dgemm (transa 1, transb 2, m 3, n 4, k 5, lda 8 for both
 *     transa cases, ldb 10 for both transb cases, ldc 13), and the first of several: returns
 *     -i, calls the installed xerbla handler exactly once with ("FT_DGEMM", i), leaves C
 *     bit-identical; the same for ft_dgemm_ex (explicit and NULL context; report.status = -i)
 *     and for ft_dgemm_gpu / ft_dgemm_gpu_ex with "FT_DGEMM_GPU" (argument checks come first,
 *     so this needs no CUDA); boundary-valid arguments are accepted;
 *   - ft_dgemm_gpu_ex in a build without CUDA returns FT_ERR_NOT_BUILT;
 *   - ft_context_create: invalid device or NULL -> FT_ERR_INVALID_VALUE; CUDA without a device;
 *     ft_context_set_policy rejects invalid fields and keeps the old policy;
 *   - ft_strerror: non-empty text for every status;
 *   - ft_inject_add rejects bit 64 and other invalid faults (the plan stays empty), holds 64
 *     pending faults and refuses the 65th;
 *   - ft_set_xerbla returns the previous handler (NULL for the default).
 *
 * Usage: test_dgemm_args [cpu|cuda|auto]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, strcasecmp */
#include "testing_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int g_calls, g_info;
static char g_name[64];

static void handler(const char *srname, int info)
{
    g_calls++;
    g_info = info;
    snprintf(g_name, sizeof g_name, "%s", srname ? srname : "(null)");
}

static void reset_handler_log(void)
{
    g_calls = 0;
    g_info = 0;
    g_name[0] = '\0';
}

typedef struct {
    char ta, tb;
    int m, n, k, lda, ldb, ldc;
    int info; /* expected: argument number, 0 = valid */
    const char *desc;
} args_t;

enum { API_PLAIN, API_EX, API_EX_NULL, API_GPU, API_GPU_EX, NAPI };
static const char *api_name[NAPI] = {"ft_dgemm", "ft_dgemm_ex", "ft_dgemm_ex(NULL ctx)",
                                     "ft_dgemm_gpu", "ft_dgemm_gpu_ex"};

#define LD 16 /* every array is LD x LD: large enough for any of the cases */

int main(int argc, char **argv)
{
    ft_device_t dev = tu_device_from_args(argc, argv);
    setenv("FTLA_DEVICE", tu_device_name(dev), 1);
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, dev);
    TU_CHECK(st == 0 && ctx != NULL, "ft_context_create(%s): %s", tu_device_name(dev),
             ft_strerror(st));
    if (!ctx) return tu_finish();

    /* ---- the handler ---- */
    ft_xerbla_t prev = ft_set_xerbla(handler);
    TU_CHECK(prev == NULL, "first ft_set_xerbla returned a non-default handler");
    prev = ft_set_xerbla(handler);
    TU_CHECK(prev == handler, "ft_set_xerbla did not return the installed handler");
    reset_handler_log();
    ft_xerbla("FT_TEST", 7);
    TU_CHECK(g_calls == 1 && g_info == 7 && !strcmp(g_name, "FT_TEST"),
             "ft_xerbla did not reach the handler (calls %d info %d name %s)", g_calls, g_info,
             g_name);

    /* ---- illegal arguments, m = 5, n = 4, k = 3 unless stated ---- */
    static const args_t cases[] = {
        {'X', 'N', 5, 4, 3, 5, 3, 5, 1, "transa 'X'"},
        {'\0', 'N', 5, 4, 3, 5, 3, 5, 1, "transa NUL"},
        {'x', 'N', -1, -1, -1, 0, 0, 0, 1, "transa 'x' before everything else"},
        {'N', 'Y', 5, 4, 3, 5, 3, 5, 2, "transb 'Y'"},
        {'t', 'a', -1, 4, 3, 5, 3, 5, 2, "transb 'a' before m"},
        {'N', 'N', -1, 4, 3, 5, 3, 5, 3, "m < 0"},
        {'N', 'N', -1, -1, -1, 0, 0, 0, 3, "m < 0 before n, k, ld"},
        {'N', 'N', 5, -1, 3, 5, 3, 5, 4, "n < 0"},
        {'T', 'T', 5, -7, -1, 3, 4, 5, 4, "n < 0 before k"},
        {'N', 'N', 5, 4, -1, 5, 1, 5, 5, "k < 0"},
        {'N', 'N', 5, 4, 3, 4, 3, 5, 8, "lda < m (transa N)"},
        {'n', 'N', 5, 4, 3, 0, 3, 5, 8, "lda = 0 (transa n)"},
        {'T', 'N', 5, 4, 3, 2, 3, 5, 8, "lda < k (transa T)"},
        {'C', 'N', 5, 4, 3, 2, 3, 5, 8, "lda < k (transa C)"},
        {'N', 'N', 0, 4, 3, 0, 3, 1, 8, "lda = 0 with m = 0"},
        {'T', 'N', 5, 4, 0, 0, 1, 5, 8, "lda = 0 with k = 0 (transa T)"},
        {'N', 'N', 5, 4, 3, 4, 2, 4, 8, "lda before ldb, ldc"},
        {'N', 'N', 5, 4, 3, 5, 2, 5, 10, "ldb < k (transb N)"},
        {'N', 'T', 5, 4, 3, 5, 3, 5, 10, "ldb < n (transb T)"},
        {'N', 'c', 5, 4, 3, 5, 3, 5, 10, "ldb < n (transb c)"},
        {'N', 'N', 5, 4, 0, 5, 0, 5, 10, "ldb = 0 with k = 0"},
        {'N', 'N', 5, 4, 3, 5, 2, 4, 10, "ldb before ldc"},
        {'N', 'N', 5, 4, 3, 5, 3, 4, 13, "ldc < m"},
        {'N', 'N', 0, 4, 3, 1, 3, 0, 13, "ldc = 0 with m = 0"},
        {'T', 'T', 5, 4, 3, 3, 4, 4, 13, "ldc < m (transposed)"},
        /* boundary-valid */
        {'N', 'N', 5, 4, 3, 5, 3, 5, 0, "tight lds"},
        {'T', 'T', 5, 4, 3, 3, 4, 5, 0, "tight lds, transposed (lda = k < m, ldb = n > k)"},
        {'c', 't', 5, 4, 3, 3, 4, 5, 0, "tight lds, lower-case transposes"},
        {'N', 'N', 0, 0, 0, 1, 1, 1, 0, "all zero sizes, ld = 1"},
        {'T', 'N', 5, 4, 0, 1, 1, 5, 0, "k = 0, lda = ldb = 1"},
    };
    tu_rng_t rng;
    tu_seed(&rng, 5);
    double A[LD * LD], B[LD * LD], C[LD * LD], C0[LD * LD];
    tu_fill(&rng, LD, LD, A, LD);
    tu_fill(&rng, LD, LD, B, LD);
    tu_fill(&rng, LD, LD, C0, LD);
    C0[1] = NAN; /* an odd bit pattern that must survive too */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const args_t *a = &cases[c];
        for (int api = 0; api < NAPI; api++) {
            const int gpu = api == API_GPU || api == API_GPU_EX;
            if (a->info == 0 && gpu) continue; /* valid calls need device pointers */
            memcpy(C, C0, sizeof C);
            reset_handler_log();
            ft_report_t rep;
            memset(&rep, 0x5a, sizeof rep);
            int ret = 0;
            switch (api) {
            case API_PLAIN:
                ret = ft_dgemm(a->ta, a->tb, a->m, a->n, a->k, 0.5, A, a->lda, B, a->ldb, 1.5, C,
                               a->ldc);
                break;
            case API_EX:
            case API_EX_NULL:
                ret = ft_dgemm_ex(api == API_EX ? ctx : NULL, a->ta, a->tb, a->m, a->n, a->k, 0.5,
                                  A, a->lda, B, a->ldb, 1.5, C, a->ldc, &rep);
                break;
            case API_GPU:
                ret = ft_dgemm_gpu(a->ta, a->tb, a->m, a->n, a->k, 0.5, A, a->lda, B, a->ldb, 1.5,
                                   C, a->ldc);
                break;
            default:
                ret = ft_dgemm_gpu_ex(ctx, a->ta, a->tb, a->m, a->n, a->k, 0.5, A, a->lda, B,
                                      a->ldb, 1.5, C, a->ldc, &rep);
                break;
            }
            const char *want_name = gpu ? "FT_DGEMM_GPU" : "FT_DGEMM";
            char where[256];
            snprintf(where, sizeof where,
                     "%s, %s (ta %d tb %d m %d n %d k %d lda %d ldb %d ldc %d)", api_name[api],
                     a->desc, a->ta, a->tb, a->m, a->n, a->k, a->lda, a->ldb, a->ldc);
            TU_CHECK(ret == -a->info, "returned %d, expected %d: %s", ret, -a->info, where);
            if (a->info) {
                TU_CHECK(g_calls == 1, "xerbla called %d times: %s", g_calls, where);
                TU_CHECK(g_info == a->info && !strcmp(g_name, want_name),
                         "xerbla got (%s, %d), expected (%s, %d): %s", g_name, g_info, want_name,
                         a->info, where);
                TU_CHECK(memcmp(C, C0, sizeof C) == 0, "C modified: %s", where);
            } else {
                TU_CHECK(g_calls == 0, "xerbla called on valid arguments: %s", where);
            }
            if (api == API_EX || api == API_EX_NULL || api == API_GPU_EX)
                TU_CHECK(rep.status == ret, "report status %d != %d: %s", rep.status, ret, where);
        }
    }

    /* ---- ft_dgemm_gpu_ex with valid arguments where it cannot run ---- */
    if (!ft_cuda_available()) {
        reset_handler_log();
        ft_report_t rep;
        tu_poison_report(&rep);
        int ret = ft_dgemm_gpu_ex(ctx, 'N', 'N', 5, 4, 3, 1.0, A, 5, B, 3, 0.0, C, 5, &rep);
        if (!ft_have_cuda())
            TU_CHECK(ret == FT_ERR_NOT_BUILT && rep.status == ret,
                     "ft_dgemm_gpu_ex without CUDA returned %d (%s)", ret, ft_strerror(ret));
        else TU_CHECK(ret <= -1000, "ft_dgemm_gpu_ex without a device returned %d", ret);
        ret = ft_dgemm_gpu('N', 'N', 5, 4, 3, 1.0, A, 5, B, 3, 0.0, C, 5);
        TU_CHECK(ret <= -1000 && (ft_have_cuda() || ret == FT_ERR_NOT_BUILT),
                 "ft_dgemm_gpu without CUDA returned %d (%s)", ret, ft_strerror(ret));
        TU_CHECK(g_calls == 0, "xerbla called for a missing device");
    }

    /* ---- contexts and policies ---- */
    {
        ft_context_t *c2 = (ft_context_t *)&rng; /* must be set to NULL on failure */
        st = ft_context_create(&c2, (ft_device_t)7);
        TU_CHECK(st == FT_ERR_INVALID_VALUE && c2 == NULL, "device 7: %d", st);
        c2 = (ft_context_t *)&rng;
        st = ft_context_create(&c2, (ft_device_t)-1);
        TU_CHECK(st == FT_ERR_INVALID_VALUE && c2 == NULL, "device -1: %d", st);
        st = ft_context_create(NULL, FT_DEVICE_CPU);
        TU_CHECK(st == FT_ERR_INVALID_VALUE, "NULL out pointer: %d", st);
        if (!ft_cuda_available()) {
            c2 = (ft_context_t *)&rng;
            st = ft_context_create(&c2, FT_DEVICE_CUDA);
            TU_CHECK(st == (ft_have_cuda() ? FT_ERR_NO_DEVICE : FT_ERR_NOT_BUILT) && c2 == NULL,
                     "CUDA context without CUDA: %d (%s)", st, ft_strerror(st));
            st = ft_context_create(&c2, FT_DEVICE_AUTO); /* AUTO falls back to the CPU */
            TU_CHECK(st == 0 && c2 != NULL, "AUTO context without CUDA: %d", st);
            ft_context_destroy(c2);
        }
        TU_CHECK(ft_context_destroy(NULL) == 0, "ft_context_destroy(NULL)");
        TU_CHECK(ft_context_device(ctx) == dev, "ft_context_device %d", ft_context_device(ctx));

        ft_policy_t pol, bad, after;
        TU_CHECK(ft_context_get_policy(ctx, &pol) == 0, "get_policy");
        TU_CHECK(ft_context_get_policy(NULL, &pol) == FT_ERR_INVALID_VALUE, "get_policy(NULL)");
        TU_CHECK(ft_context_set_policy(NULL, &pol) == FT_ERR_INVALID_VALUE, "set_policy(NULL)");
        TU_CHECK(ft_context_set_policy(ctx, NULL) == FT_ERR_INVALID_VALUE, "set_policy(, NULL)");
        for (int f = 0; f < 6; f++) {
            bad = pol;
            const char *field = "";
            switch (f) {
            case 0: bad.protect = 3, field = "protect 3"; break;
            case 1: bad.tile = -1, field = "tile -1"; break;
            case 2: bad.tol = -1.0, field = "tol -1"; break;
            case 3: bad.backup_c = 2, field = "backup_c 2"; break;
            case 4: bad.backup_c = -2, field = "backup_c -2"; break;
            default: bad.verbose = -1, field = "verbose -1"; break;
            }
            st = ft_context_set_policy(ctx, &bad);
            ft_context_get_policy(ctx, &after);
            TU_CHECK(st == FT_ERR_INVALID_VALUE && memcmp(&after, &pol, sizeof pol) == 0,
                     "set_policy(%s): %d, policy changed %d", field, st,
                     memcmp(&after, &pol, sizeof pol) != 0);
        }
    }

    /* ---- ft_strerror ---- */
    {
        const char *unknown = ft_strerror(-5000);
        int codes[64], nc = 0;
        codes[nc++] = 0;
        for (int i = 1; i <= 13; i++) codes[nc++] = -i;
        for (int s = FT_ERR_ALLOC; s >= FT_ERR_INTERNAL; s--) codes[nc++] = s;
        codes[nc++] = -999, codes[nc++] = -1000, codes[nc++] = -1013, codes[nc++] = 1;
        codes[nc++] = -5000, codes[nc++] = 42;
        for (int c = 0; c < nc; c++) {
            const char *t = ft_strerror(codes[c]);
            TU_CHECK(t != NULL && t[0] != '\0', "ft_strerror(%d) empty", codes[c]);
            if (t && codes[c] <= FT_ERR_ALLOC && codes[c] >= FT_ERR_INTERNAL)
                TU_CHECK(strcmp(t, unknown) != 0, "ft_strerror(%d) is the unknown text", codes[c]);
        }
        char buf[256];
        ft_report_t r;
        memset(&r, 0, sizeof r);
        TU_CHECK(ft_report_string(&r, buf, sizeof buf) == buf && buf[0] != '\0',
                 "ft_report_string empty");
        buf[0] = 'x';
        ft_report_string(NULL, buf, sizeof buf);
        TU_CHECK(buf[0] == '\0', "ft_report_string(NULL) not empty");
    }

    /* ---- fault plans ---- */
    {
        ft_fault_t ok = {.region = FT_REGION_C,
                         .row = 1,
                         .col = 1,
                         .bit = 60,
                         .value = 0.0,
                         .call = -1,
                         .step = -1};
        ft_fault_t f;
        struct {
            const char *what;
            int field, value;
        } bads[] = {{"bit 64", 0, 64},  {"bit -2", 0, -2},    {"bit 1000", 0, 1000},
                    {"region 10", 1, 10}, {"region -1", 1, -1}, {"row -2", 2, -2},
                    {"col -2", 3, -2},  {"call -2", 4, -2},   {"step -2", 5, -2}};
        for (size_t b = 0; b < sizeof bads / sizeof bads[0]; b++) {
            f = ok;
            switch (bads[b].field) {
            case 0: f.bit = bads[b].value; break;
            case 1: f.region = (ft_region_t)bads[b].value; break;
            case 2: f.row = bads[b].value; break;
            case 3: f.col = bads[b].value; break;
            case 4: f.call = bads[b].value; break;
            default: f.step = bads[b].value; break;
            }
            st = ft_inject_add(ctx, &f);
            TU_CHECK(st == FT_ERR_INVALID_VALUE, "ft_inject_add(%s) returned %d", bads[b].what, st);
        }
        TU_CHECK(ft_inject_add(NULL, &ok) == FT_ERR_INVALID_VALUE, "ft_inject_add(NULL ctx)");
        TU_CHECK(ft_inject_add(ctx, NULL) == FT_ERR_INVALID_VALUE, "ft_inject_add(NULL fault)");
        TU_CHECK(ft_inject_clear(NULL) == FT_ERR_INVALID_VALUE, "ft_inject_clear(NULL)");
        TU_CHECK(ft_inject_seed(NULL, 1) == FT_ERR_INVALID_VALUE, "ft_inject_seed(NULL)");

        /* the rejected faults were not planned: a call injects nothing */
        const int m = 70, n = 66, k = 9;
        double *X = tu_malloc(m * k), *Y = tu_malloc(k * n), *Z = tu_malloc(m * n);
        tu_fill(&rng, m, k, X, m);
        tu_fill(&rng, k, n, Y, k);
        tu_fill(&rng, m, n, Z, m);
        ft_report_t rep;
        tu_poison_report(&rep);
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0, X, m, Y, k, 0.5, Z, m, &rep);
        TU_CHECK(st == 0 && rep.injected == 0 && rep.detected == 0,
                 "after rejected faults: status %d injected %lld", st, (long long)rep.injected);

        /* 64 pending faults fit, the 65th does not; clear empties the plan */
        f = ok;
        f.call = 1000000; /* far in the future: stays pending */
        int added = 0;
        for (int i = 0; i < 64; i++) added += ft_inject_add(ctx, &f) == 0;
        TU_CHECK(added == 64, "only %d of 64 faults accepted", added);
        TU_CHECK(ft_inject_add(ctx, &f) == FT_ERR_INVALID_VALUE, "65th pending fault accepted");
        TU_CHECK(ft_inject_clear(ctx) == 0, "ft_inject_clear");
        TU_CHECK(ft_inject_add(ctx, &ok) == 0, "ft_inject_add after clear");
        tu_poison_report(&rep);
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0, X, m, Y, k, 0.5, Z, m, &rep);
        TU_CHECK(st == 0 && rep.injected == 1 && rep.corrected == 1,
                 "planned fault after clear: status %d injected %lld corrected %lld", st,
                 (long long)rep.injected, (long long)rep.corrected);
        ft_inject_clear(ctx);
        free(X);
        free(Y);
        free(Z);
    }

    TU_CHECK(ft_set_xerbla(NULL) == handler, "ft_set_xerbla(NULL) did not return the handler");
    TU_CHECK(ft_set_xerbla(NULL) == NULL, "default handler not restored");
    ft_context_destroy(ctx);
    return tu_finish();
}
