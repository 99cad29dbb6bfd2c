/*
 * ckp_field.h — arithmetic in GF(p), p = 2^64 - 59 (the largest prime below 2^64), for the
 * checkpoint of Q (checkpoint.h). Exact and order-independent, so host and device sums agree
 * bit for bit and a checkpoint taken on the CPU verifies data on the GPU without thresholds.
 * An element is its IEEE bit pattern reduced mod p (the 59 patterns >= p are negative NaNs
 * with all-ones payloads, never produced by arithmetic; docs/fault-model.md).
 */
#ifndef FTLA_CKP_FIELD_H
#define FTLA_CKP_FIELD_H

#include <stdint.h>

#if defined(__CUDACC__)
#define CKP_FN __host__ __device__ __forceinline__
#else
#define CKP_FN static inline
#endif

#define CKP_P 0xFFFFFFFFFFFFFFC5ull   /* 2^64 - 59 */
#define CKP_INV2 0x7FFFFFFFFFFFFFE3ull /* (p + 1) / 2 */
#define CKP_INV3 0x5555555555555542ull /* (p + 1) / 3 (p = 2 mod 3) */

CKP_FN uint64_t ckp_mulhi(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* branch-free: the sums' carries are data-dependent (about one addition in two wraps) */
CKP_FN uint64_t ckp_red(uint64_t x)
{
    return x - (((uint64_t)0 - (uint64_t)(x >= CKP_P)) & CKP_P);
}

/* a + b mod p for a, b < p */
CKP_FN uint64_t ckp_add(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    s += ((uint64_t)0 - (uint64_t)(s < a)) & 59; /* 2^64 = 59 (mod p); no second wrap */
    return ckp_red(s);
}

/* a - b mod p for a, b < p */
CKP_FN uint64_t ckp_sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + (CKP_P - b); }

/* a * b mod p for a, b < 2^64 */
CKP_FN uint64_t ckp_mul(uint64_t a, uint64_t b)
{
    const uint64_t lo = a * b, hi = ckp_mulhi(a, b);
    /* hi 2^64 + lo = hi 59 + lo; hi 59 = th 2^64 + tl with th < 59 */
    const uint64_t tl = hi * 59, th = ckp_mulhi(hi, 59);
    uint64_t s = lo + tl;
    const uint64_t c = s < lo;
    const uint64_t add = (th + c) * 59; /* < 3600 */
    const uint64_t s2 = s + add;
    s = s2 < s ? s2 + 59 : s2;
    return ckp_red(s);
}

/* h 2^32 mod p for any h < 2^64: (h >> 32) 2^64 + (h << 32) = (h >> 32) 59 + (h << 32), two
 * additions where ckp_mul(h, 2^32) takes two 64-bit products and their reduction */
CKP_FN uint64_t ckp_shl32(uint64_t h)
{
    const uint64_t lo = h << 32, x = (h >> 32) * 59; /* x < 2^38 */
    uint64_t s = lo + x;
    s += ((uint64_t)0 - (uint64_t)(s < lo)) & 59; /* after a wrap s < x: no second one */
    return ckp_red(s);
}

/* a[0..2] += x y: the exact 128-bit product into a 192-bit accumulator, reduced once at the
 * end (ckp_acc_red) instead of after every product */
CKP_FN void ckp_mac(uint64_t *a, uint64_t x, uint64_t y)
{
    const uint64_t lo = x * y, t = ckp_mulhi(x, y); /* t <= 2^64 - 2 */
    a[0] += lo;
    const uint64_t hi = t + (uint64_t)(a[0] < lo);
    a[1] += hi;
    a[2] += (uint64_t)(a[1] < hi);
}

/* a[2] 2^128 + a[1] 2^64 + a[0] mod p (2^64 = 59, 2^128 = 3481) */
CKP_FN uint64_t ckp_acc_red(const uint64_t *a)
{
    return ckp_add(ckp_add(ckp_mul(a[2], 3481), ckp_mul(a[1], 59)), ckp_red(a[0]));
}

/* The element of a double: its bits reduced mod p. */
CKP_FN uint64_t ckp_elem(uint64_t bits) { return ckp_red(bits); }

#if !defined(__CUDACC__)
/* x mod p for x < 2^128 (2^64 = 59 mod p): the host's deferred sums */
static inline uint64_t ckp_red128(unsigned __int128 x)
{
    x = (x >> 64) * 59 + (uint64_t)x; /* < 2^70 */
    x = (x >> 64) * 59 + (uint64_t)x; /* < 2^64 + 2^12 */
    x = (x >> 64) * 59 + (uint64_t)x; /* < 2^64 */
    return ckp_red((uint64_t)x);
}
#endif

#endif
