/*
 * size.h — 64-bit size arithmetic with overflow checks (STYLE.md 6). Every element count and
 * byte count is computed here, in int64_t / size_t, and checked before it is used or narrowed:
 * m * n of two ft_int values overflows int from m*n >= 2^31 on.
 */
#ifndef FTLA_SIZE_H
#define FTLA_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* *r = a * b; 1 on overflow or a negative operand (then *r = 0). */
static inline int ft_mul_ovf(int64_t a, int64_t b, int64_t *r)
{
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, r)) {
        *r = 0;
        return 1;
    }
    return 0;
}

/* *r = a + b; 1 on overflow or a negative operand. */
static inline int ft_add_ovf(int64_t a, int64_t b, int64_t *r)
{
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, r)) {
        *r = 0;
        return 1;
    }
    return 0;
}

/* Bytes of n doubles; 1 on overflow of size_t (or n < 0). */
static inline int ft_dbytes(int64_t n, size_t *bytes)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) {
        *bytes = 0;
        return 1;
    }
    *bytes = (size_t)n * sizeof(double);
    return 0;
}

/* Element count of a sum of products: terms[2i] * terms[2i+1], i < nterms. 1 on overflow. */
static inline int ft_sum_of_products(int nterms, const int64_t *terms, int64_t *r)
{
    int64_t acc = 0, p;
    for (int i = 0; i < nterms; i++)
        if (ft_mul_ovf(terms[2 * i], terms[2 * i + 1], &p) || ft_add_ovf(acc, p, &acc)) {
            *r = 0;
            return 1;
        }
    *r = acc;
    return 0;
}

#endif
