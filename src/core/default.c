/*
 * default.c — the default contexts of the plain entry points: one per thread, created on the
 * thread's first call and destroyed when the thread exits, all configured from the FTLA_*
 * environment read once per process. One per thread (rather than one shared context behind a
 * lock) lets threads run in parallel, and lets a call made from inside another call on the same
 * thread (a handler, a recovery that runs a protected product) proceed instead of deadlocking.
 */
#include "core/context.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static int g_key_ok;
static ft_device_t g_device = FT_DEVICE_AUTO;
static const char *g_device_name;
static ft_policy_t g_policy;
static pthread_mutex_t g_warn_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_warned;

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    if (!s || !*s) return def;
    char *end;
    long v = strtol(s, &end, 10);
    return (*end == '\0') ? v : def;
}

static void destroy_default(void *ctx) { ft_context_destroy(ctx); }

static void config_init(void)
{
    const char *d = getenv("FTLA_DEVICE");
    g_device_name = d;
    if (d && strcasecmp(d, "cpu") == 0) g_device = FT_DEVICE_CPU;
    if (d && (strcasecmp(d, "cuda") == 0 || strcasecmp(d, "gpu") == 0)) g_device = FT_DEVICE_CUDA;
    ft_policy_defaults(&g_policy);
    g_policy.verbose = (int)env_long("FTLA_VERBOSE", 0);
    if (g_policy.verbose < 0) g_policy.verbose = 0;
    {
        const char *pr = getenv("FTLA_PROTECT");
        if (pr && strcasecmp(pr, "tmr") == 0) g_policy.protect = FT_PROTECT_TMR;
        else g_policy.protect = env_long("FTLA_PROTECT", 1) != 0;
    }
    long tile = env_long("FTLA_TILE", 0), nb = env_long("FTLA_NB", 0);
    g_policy.tile = tile > 0 && tile < (1L << 30) ? (int)tile : 0;
    g_policy.nb = nb > 0 && nb < (1L << 20) ? (int)nb : 0;
    g_policy.serial_encode = env_long("FTLA_SERIAL_ENCODE", 0) != 0;
    {
        long oc = env_long("FTLA_OPERAND_CHECK", 0);
        g_policy.operand_check = oc < 0 ? -1 : oc > 0 ? 1 : 0;
    }
    const char *t = getenv("FTLA_TOL");
    if (t && *t) {
        double v = strtod(t, NULL);
        if (v > 0) g_policy.tol = v;
    }
    g_key_ok = pthread_key_create(&g_key, destroy_default) == 0;
}

ft_context_t *ft_default_context(void)
{
    pthread_once(&g_once, config_init);
    if (!g_key_ok) return NULL;
    ft_context_t *ctx = pthread_getspecific(g_key);
    if (ctx) return ctx;
    if (ft_context_create(&ctx, g_device) != FT_SUCCESS) {
        /* FTLA_DEVICE=cuda without a usable GPU: say so once per process, run on the CPU */
        pthread_mutex_lock(&g_warn_lock);
        if (!g_warned)
            fprintf(stderr, "ftla: FTLA_DEVICE=%s unavailable (%s); using the CPU\n",
                    g_device_name ? g_device_name : "",
                    ft_have_cuda() ? "no CUDA device" : "built without CUDA");
        g_warned = 1;
        pthread_mutex_unlock(&g_warn_lock);
        if (ft_context_create(&ctx, FT_DEVICE_CPU) != FT_SUCCESS) return NULL;
    }
    ctx->policy = g_policy;
    if (pthread_setspecific(g_key, ctx) != 0) {
        ft_context_destroy(ctx);
        return NULL;
    }
    return ctx;
}
