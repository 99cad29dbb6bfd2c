/* context.c — contexts, policy, the default context, backend selection. */
#include "context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Below this many flops, AUTO runs on the CPU: transfers and launches cost more than they save. */
#define FT_AUTO_GPU_FLOPS (2.0 * 512.0 * 512.0 * 512.0)

double ft_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ft_log(const ft_context_t *ctx, int level, const char *fmt, ...)
{
    if (!ctx || ctx->policy.verbose < level) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("ftla: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void ft_policy_resolve(const ft_policy_t *in, ft_policy_t *out)
{
    *out = *in;
    if (out->tol <= 0) out->tol = 2.0;
}

static void policy_defaults(ft_policy_t *p)
{
    memset(p, 0, sizeof *p);
    p->protect = 1;
    p->tol = 2.0;
    p->backup_c = -1;
}

int ft_have_cuda(void) { return ft_backend_cuda() != NULL; }

int ft_cuda_available(void) { return ft_have_cuda() && ft_cuda_probe(); }

int ft_context_create(ft_context_t **out, ft_device_t device)
{
    if (!out) return FT_ERR_INVALID_VALUE;
    *out = NULL;
    if (device != FT_DEVICE_AUTO && device != FT_DEVICE_CPU && device != FT_DEVICE_CUDA)
        return FT_ERR_INVALID_VALUE;
    if (device == FT_DEVICE_CUDA) {
        if (!ft_have_cuda()) return FT_ERR_NOT_BUILT;
        if (!ft_cuda_probe()) return FT_ERR_NO_DEVICE;
    }
    ft_context_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return FT_ERR_ALLOC;
    ctx->requested = device;
    policy_defaults(&ctx->policy);
    ctx->rng = 1;
    pthread_mutex_init(&ctx->lock, NULL);
    if (device == FT_DEVICE_CUDA) {
        int st = ft_cuda_ctx_init(ctx);
        if (st) {
            ft_context_destroy(ctx);
            return st;
        }
    }
    *out = ctx;
    return FT_SUCCESS;
}

int ft_workspace(ft_context_t *ctx, const ft_backend_t *be, int slot, size_t bytes, void **p)
{
    int b = be->kind == FT_DEVICE_CUDA;
    *p = NULL;
    if (slot < 0 || slot >= FT_WS_SLOTS) return FT_ERR_INTERNAL;
    if (ctx->ws_size[b][slot] < bytes) {
        if (ctx->ws[b][slot]) {
            be->sync(ctx, FT_Q_MAIN);
            be->sync(ctx, FT_Q_SIDE);
            be->free(ctx, ctx->ws[b][slot]);
        }
        ctx->ws[b][slot] = NULL;
        ctx->ws_size[b][slot] = 0;
        FT_CHECK(be->alloc(ctx, &ctx->ws[b][slot], bytes));
        ctx->ws_size[b][slot] = bytes;
    }
    *p = ctx->ws[b][slot];
    return FT_SUCCESS;
}

void ft_workspace_trim(ft_context_t *ctx, size_t keep)
{
    for (int b = 0; b < 2; b++) {
        const ft_backend_t *be = b ? ft_backend_cuda() : ft_backend_host();
        for (int s = FT_WS_BACKUP; s < FT_WS_SLOTS; s++)
            if (ctx->ws[b][s] && ctx->ws_size[b][s] > keep && be) {
                be->free(ctx, ctx->ws[b][s]);
                ctx->ws[b][s] = NULL;
                ctx->ws_size[b][s] = 0;
            }
    }
}

void ft_workspace_release(ft_context_t *ctx)
{
    for (int b = 0; b < 2; b++) {
        const ft_backend_t *be = b ? ft_backend_cuda() : ft_backend_host();
        for (int s = 0; s < FT_WS_SLOTS; s++) {
            if (ctx->ws[b][s] && be) be->free(ctx, ctx->ws[b][s]);
            ctx->ws[b][s] = NULL;
            ctx->ws_size[b][s] = 0;
        }
    }
}

int ft_context_destroy(ft_context_t *ctx)
{
    if (!ctx) return FT_SUCCESS;
    ft_workspace_release(ctx);
    free(ctx->flags);
    if (ctx->cuda_ready) ft_cuda_ctx_fini(ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
    return FT_SUCCESS;
}

int ft_context_set_stream(ft_context_t *ctx, void *stream)
{
    if (!ctx) return FT_ERR_INVALID_VALUE;
    if (!ft_have_cuda()) return FT_ERR_NOT_BUILT;
    return ft_cuda_set_stream(ctx, stream);
}

int ft_context_get_policy(const ft_context_t *ctx, ft_policy_t *p)
{
    if (!ctx || !p) return FT_ERR_INVALID_VALUE;
    *p = ctx->policy;
    return FT_SUCCESS;
}

int ft_context_set_policy(ft_context_t *ctx, const ft_policy_t *p)
{
    if (!ctx || !p) return FT_ERR_INVALID_VALUE;
    if (p->protect < 0 || p->protect > 1 || p->tile < 0 || p->tol < 0 || p->nb < 0 ||
        p->verify_every < 0 || p->backup_c < -1 || p->backup_c > 1 || p->crossover < -1 ||
        p->verbose < 0 || p->serial_encode < 0 || p->serial_encode > 1)
        return FT_ERR_INVALID_VALUE;
    ctx->policy = *p;
    if (ctx->policy.tol == 0) ctx->policy.tol = 2.0;
    return FT_SUCCESS;
}

ft_device_t ft_context_device(const ft_context_t *ctx) { return ctx ? ctx->requested : FT_DEVICE_AUTO; }

/* ---- the default context ---- */

static ft_context_t *g_default;
static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    if (!s || !*s) return def;
    char *end;
    long v = strtol(s, &end, 10);
    return (*end == '\0') ? v : def;
}

static void default_init(void)
{
    ft_device_t dev = FT_DEVICE_AUTO;
    const char *d = getenv("FTLA_DEVICE");
    if (d && strcasecmp(d, "cpu") == 0) dev = FT_DEVICE_CPU;
    if (d && (strcasecmp(d, "cuda") == 0 || strcasecmp(d, "gpu") == 0)) dev = FT_DEVICE_CUDA;
    ft_context_t *ctx = NULL;
    if (ft_context_create(&ctx, dev) != FT_SUCCESS) {
        /* FTLA_DEVICE=cuda without a usable GPU: say so once, run on the CPU. */
        fprintf(stderr, "ftla: FTLA_DEVICE=%s unavailable (%s); using the CPU\n", d ? d : "",
                ft_have_cuda() ? "no CUDA device" : "built without CUDA");
        if (ft_context_create(&ctx, FT_DEVICE_CPU) != FT_SUCCESS) return;
    }
    ctx->policy.verbose = (int)env_long("FTLA_VERBOSE", 0);
    ctx->policy.protect = env_long("FTLA_PROTECT", 1) != 0;
    ctx->policy.tile = (int)env_long("FTLA_TILE", 0);
    ctx->policy.nb = (int)env_long("FTLA_NB", 0);
    ctx->policy.serial_encode = env_long("FTLA_SERIAL_ENCODE", 0) != 0;
    const char *t = getenv("FTLA_TOL");
    if (t && *t) {
        double v = strtod(t, NULL);
        if (v > 0) ctx->policy.tol = v;
    }
    g_default = ctx;
}

ft_context_t *ft_default_context(void)
{
    pthread_once(&g_default_once, default_init);
    return g_default;
}

/* ---- backend selection ---- */

int ft_select_backend(ft_context_t *ctx, double flops, int is_gpu_data, const ft_backend_t **be)
{
    *be = NULL;
    if (is_gpu_data) {
        if (!ft_have_cuda()) return FT_ERR_NOT_BUILT;
        if (ctx->requested == FT_DEVICE_CPU) return FT_ERR_INVALID_VALUE;
        FT_CHECK(ft_cuda_ctx_init(ctx));
        *be = ft_backend_cuda();
        return FT_SUCCESS;
    }
    int use_cuda = 0;
    if (ctx->requested == FT_DEVICE_CUDA) use_cuda = 1;
    else if (ctx->requested == FT_DEVICE_AUTO)
        use_cuda = flops >= FT_AUTO_GPU_FLOPS && ft_have_cuda() && ft_cuda_probe();
    if (use_cuda) {
        FT_CHECK(ft_cuda_ctx_init(ctx));
        *be = ft_backend_cuda();
    } else {
        *be = ft_backend_host();
    }
    return FT_SUCCESS;
}
