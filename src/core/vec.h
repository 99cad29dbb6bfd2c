/*
 * vec.h — eight-lane vectors (GCC vector extensions) for the host passes that the compiler does
 * not vectorize by itself: a NaN-propagating maximum (a compare and an integer flag per element,
 * which GCC leaves scalar), sums of bit patterns, and sums whose lane order must stay fixed.
 *
 * Lane u of a vector loaded at row r holds row r + u, so a pass written with these keeps the
 * eight partial sums of the scalar code it replaces (same results, bit for bit, in every clone
 * of FT_SIMD_CLONES; products are not used here, so no FMA contraction can differ). The default
 * clone runs them as SSE2 pairs, x86-64-v3 as AVX2 halves, x86-64-v4 as one AVX-512 register.
 * Other compilers: the same code through GCC-compatible vector extensions (clang), else plain C.
 */
#ifndef FTLA_VEC_H
#define FTLA_VEC_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* n doubles from src to dst with non-temporal stores: copies read again only by a repair or a
 * recovery (a backup of C, the copy of A) neither evict what the next kernel reads nor read their
 * own lines first. The writer calls ft_stream_fence before anything else may read them. */
static inline void ft_stream_copy(double *dst, const double *src, int64_t n)
{
#if defined(__SSE2__)
    int64_t i = 0;
    if (n > 0 && (uintptr_t)dst % 16) dst[0] = src[0], i = 1;
    for (; i + 2 <= n; i += 2) _mm_stream_pd(dst + i, _mm_loadu_pd(src + i));
    for (; i < n; i++) dst[i] = src[i];
#else
    memcpy(dst, src, (size_t)n * sizeof(double));
#endif
}

static inline void ft_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#if defined(__GNUC__)
#define FT_HAVE_VEC 1
/* the helpers are inlined: no vector crosses a call, whatever the clone's ABI says */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double ft_v8d __attribute__((vector_size(64)));
typedef int64_t ft_v8l __attribute__((vector_size(64)));
typedef uint64_t ft_v8u __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) ft_v8d ft_v8d_load(const double *p)
{
    ft_v8d v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) ft_v8u ft_v8u_load(const double *p)
{
    ft_v8u v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void ft_v8d_store(double *p, ft_v8d v) { memcpy(p, &v, sizeof v); }

static inline __attribute__((always_inline)) ft_v8d ft_v8d_abs(ft_v8d v)
{
    return (ft_v8d)((ft_v8l)v & INT64_MAX); /* the sign bits cleared */
}

/* lane-wise v > m ? v : m (a NaN v leaves m; the caller tracks NaNs with ft_v8d_isnan) */
static inline __attribute__((always_inline)) ft_v8d ft_v8d_max(ft_v8d m, ft_v8d v)
{
    const ft_v8l k = v > m;
    return (ft_v8d)(((ft_v8l)v & k) | ((ft_v8l)m & ~k));
}

/* all-ones in the lanes holding a NaN */
static inline __attribute__((always_inline)) ft_v8l ft_v8d_isnan(ft_v8d v) { return v != v; }

static inline __attribute__((always_inline)) uint64_t ft_v8u_hsum(ft_v8u s)
{
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static inline __attribute__((always_inline)) int ft_v8l_any(ft_v8l k)
{
    return ((k[0] | k[1]) | (k[2] | k[3]) | (k[4] | k[5]) | (k[6] | k[7])) != 0;
}

/* the largest lane by the scalar rule m = v > m ? v : m, lanes 1..7 into lane 0 in order */
static inline __attribute__((always_inline)) double ft_v8d_hmax(ft_v8d m)
{
    double r = m[0];
    for (int u = 1; u < 8; u++) r = m[u] > r ? m[u] : r;
    return r;
}
#endif

#endif
