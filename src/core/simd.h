/*
 * simd.h — FT_SIMD_CLONES: compile a host loop also for x86-64-v3 (AVX2, FMA) and x86-64-v4
 * (AVX-512) and pick the clone at load time (GCC target_clones, an ifunc), as OpenBLAS picks its
 * kernels. The library itself is built for the baseline x86-64 (SSE2) so it runs anywhere; the
 * streaming passes over C and the operands of a short product (k = 32 inside dormqr) are bound by
 * the instructions, not by memory, at that width (issue 11, bench/NOTES.md).
 *
 * Only for loops whose result may differ in the last bits between clones (FMA contraction):
 * sums compared under a rounding threshold, never bit for bit. Empty elsewhere (other compilers
 * and targets, sanitizer builds keep it: ifuncs work under ASan).
 */
#ifndef FTLA_SIMD_H
#define FTLA_SIMD_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&       \
    __GNUC__ >= 11 && !defined(FTLA_NO_SIMD_CLONES)
#define FT_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FT_SIMD_CLONES
#endif

#endif
