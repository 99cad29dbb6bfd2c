/* error.c — status texts and the argument-error handler (which never stops the program). */
#include "ftla.h"

#include <pthread.h>
#include <stdio.h>

void ft_version(int *major, int *minor, int *patch)
{
    if (major) *major = FTLA_VERSION_MAJOR;
    if (minor) *minor = FTLA_VERSION_MINOR;
    if (patch) *patch = FTLA_VERSION_PATCH;
}

const char *ft_strerror(int s)
{
    switch (s) {
    case FT_SUCCESS: return "success";
    case FT_ERR_ALLOC: return "host memory allocation failed";
    case FT_ERR_DEVICE_ALLOC: return "device memory allocation failed";
    case FT_ERR_CUDA: return "a CUDA runtime call failed";
    case FT_ERR_CUBLAS: return "a cuBLAS call failed";
    case FT_ERR_NO_DEVICE: return "no usable CUDA device";
    case FT_ERR_NOT_BUILT: return "ftla was built without the CUDA backend";
    case FT_ERR_UNCORRECTABLE: return "a soft error was detected and could not be corrected";
    case FT_ERR_NOT_RECOVERED: return "a soft error was detected and located but not recovered";
    case FT_ERR_LAPACK: return "a host LAPACK call failed";
    case FT_ERR_INVALID_VALUE: return "invalid context, option or fault description";
    case FT_ERR_TOO_LARGE: return "problem too large for device memory or 32-bit BLAS indices";
    case FT_ERR_INTERNAL: return "internal error";
    case FT_ERR_UNCHECKED:
        return "the result could not be verified: it or its checksums overflow (finite inputs)";
    default: break;
    }
    if (s < 0 && s > -1000) return "illegal value of an argument (see ft_xerbla output)";
    return "unknown status";
}

static void default_xerbla(const char *srname, int info)
{
    fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n",
            srname ? srname : "?", info);
}

static ft_xerbla_t g_handler = default_xerbla;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

ft_xerbla_t ft_set_xerbla(ft_xerbla_t h)
{
    pthread_mutex_lock(&g_lock);
    ft_xerbla_t old = g_handler;
    g_handler = h ? h : default_xerbla;
    pthread_mutex_unlock(&g_lock);
    return old == default_xerbla ? NULL : old;
}

void ft_xerbla(const char *srname, int info)
{
    pthread_mutex_lock(&g_lock);
    ft_xerbla_t h = g_handler;
    pthread_mutex_unlock(&g_lock);
    h(srname, info);
}
