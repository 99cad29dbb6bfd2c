/*
 * test_checkpoint.c — the checkpoint arithmetic of Q (src/checkpoint, issue 9) on its own:
 *   - GF(2^64 - 59) against 128-bit integer arithmetic (random operands and the edges);
 *   - the running sums equal the explicit weights C(t + e - 1, e) (what the device forms);
 *   - columns of length 1 .. 300 with data of every scale (subnormal to near overflow, zeros,
 *     Inf, NaN): unchanged -> nothing located; one or two changed elements (bit flips of every
 *     bit, additive changes, at both ends) -> located at their rows and restored bit for bit;
 *     three -> reported (-1) in every trial;
 *   - the distributed checkpoint's runs (ckp_run_sums, lengths 1 .. 300 across the vector unit's
 *     runs of 128 and the short-run table): the same sums as ckp_sums_ref, and the plain sum mod
 *     2^64 of the bit patterns it returns beside them; ckp_run_detect's two the same as its
 *     first two.
 */
#include "checkpoint/checkpoint.h"
#include "checkpoint/ckp_field.h"
#include "testing_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ref_mul(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) % CKP_P);
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double draw(tu_rng_t *r)
{
    switch (tu_int(r, 0, 7)) {
    case 0: return 0.0;
    case 1: return DBL_TRUE_MIN * tu_int(r, 1, 1000);
    case 2: return DBL_MAX * (tu_uniform(r) - 0.5);
    case 3: return (tu_uniform(r) - 0.5) * 1e-300;
    case 4: return tu_int(r, 0, 20) == 0 ? INFINITY : NAN;
    default: return tu_uniform(r) - 0.5;
    }
}

static void field(tu_rng_t *r)
{
    const uint64_t edge[] = {0, 1, 2, 58, 59, 60, CKP_P - 1, CKP_P - 2, UINT64_MAX / 2};
    for (int t = 0; t < 20000; t++) {
        uint64_t a = t < 81 ? edge[t / 9] : ckp_red(tu_next(r));
        uint64_t b = t < 81 ? edge[t % 9] : ckp_red(tu_next(r));
        a = ckp_red(a), b = ckp_red(b);
        TU_CHECK(ckp_mul(a, b) == ref_mul(a, b), "mul %llu %llu", (unsigned long long)a,
                 (unsigned long long)b);
        TU_CHECK(ckp_add(a, b) == (uint64_t)(((unsigned __int128)a + b) % CKP_P), "add");
        TU_CHECK(ckp_add(ckp_sub(a, b), b) == a, "sub");
    }
    /* unreduced operands of the multiplication (weights, bit patterns) */
    for (int t = 0; t < 2000; t++) {
        const uint64_t a = tu_next(r) | 0xFFFFFFFFFFFFFF00ull, b = tu_next(r);
        TU_CHECK(ckp_mul(a, b) == ref_mul(a % CKP_P, b % CKP_P), "mul unreduced");
    }
    TU_CHECK(ckp_mul(2, CKP_INV2) == 1 && ckp_mul(3, CKP_INV3) == 1, "inverses of 2 and 3");
    /* the CUDA sums' shortcuts: h 2^32 by additions, products accumulated unreduced */
    const uint64_t hedge[] = {0, 1, 0xFFFFFFFFull, 0x100000000ull, CKP_P - 1, CKP_P, UINT64_MAX,
                              0xFFFFFFFF00000000ull, 0xFFFFFFFEFFFFFFFFull};
    for (int t = 0; t < 20000; t++) {
        const uint64_t h = t < 9 ? hedge[t] : t % 3 ? tu_next(r) : tu_next(r) >> tu_int(r, 0, 63);
        TU_CHECK(ckp_shl32(h) == ckp_mul(h, 1ull << 32), "shl32 %llu", (unsigned long long)h);
    }
    for (int t = 0; t < 200; t++) {
        uint64_t acc[3] = {0, 0, 0}, ref = 0;
        const int n = tu_int(r, 1, 4000);
        for (int i = 0; i < n; i++) {
            /* near p often: the 192-bit accumulator's carries */
            const uint64_t x = i % 2 ? CKP_P - 1 - (tu_next(r) & 0xff) : ckp_red(tu_next(r));
            const uint64_t y = i % 3 ? CKP_P - 1 - (tu_next(r) & 0xff) : ckp_red(tu_next(r));
            ckp_mac(acc, x, y);
            ref = ckp_add(ref, ckp_mul(x, y));
        }
        TU_CHECK(ckp_acc_red(acc) == ref, "%d products accumulated", n);
    }
}

static uint64_t binom_w(uint64_t t, int e)
{
    /* C(t + e - 1, e) mod p by exact 128-bit products of small integers */
    unsigned __int128 num = 1, den = 1;
    for (int i = 0; i < e; i++) num *= (t + (uint64_t)i), den *= (unsigned)(i + 1);
    return (uint64_t)((num / den) % CKP_P);
}

static void sums_match_weights(tu_rng_t *r)
{
    for (int64_t m = 1; m <= 70; m += 3) {
        double *A = tu_malloc(m * 3);
        for (int64_t i = 0; i < m * 3; i++) A[i] = draw(r);
        uint64_t out[3 * CKP_NS];
        ckp_sums_ref(m, 3, A, m, out);
        for (int64_t c = 0; c < 3; c++)
            for (int e = 0; e < CKP_NS; e++) {
                uint64_t s = 0;
                for (int64_t rr = c + 1; rr < m; rr++)
                    s = ckp_add(s, ref_mul(ckp_elem(bits(A[rr + c * m])), binom_w(m - rr, e)));
                TU_CHECK(s == out[CKP_NS * c + e], "m=%lld col %lld sum %d", (long long)m,
                         (long long)c, e);
            }
        free(A);
    }
}

static void run_sums(tu_rng_t *r)
{
    for (int64_t len = 1; len <= 300; len += len < 40 ? 1 : 13) {
        double *v = tu_malloc(len + 1);
        for (int64_t i = 0; i <= len; i++) v[i] = draw(r);
        uint64_t ref[CKP_NS], out[CKP_NS], raw = 7, sum = 7; /* raw accumulates */
        ckp_sums_ref(len + 1, 1, v, len + 1, ref); /* rows 1 .. len */
        ckp_run_sums(v + 1, len, out, &raw);
        for (int64_t i = 1; i <= len; i++) sum += bits(v[i]);
        for (int e = 0; e < CKP_NS; e++)
            TU_CHECK(out[e] == ref[e], "run of %lld: sum %d", (long long)len, e);
        TU_CHECK(raw == sum, "run of %lld: plain sum", (long long)len);
        ckp_run_sums(v + 1, len, out, NULL); /* no plain sum asked for: the same sums */
        for (int e = 0; e < CKP_NS; e++)
            TU_CHECK(out[e] == ref[e], "run of %lld without the plain sum: sum %d",
                     (long long)len, e);
        uint64_t det[2] = {1, 1}; /* the verification's first pass: S_0 and S_1 alone */
        ckp_run_detect(v + 1, len, det);
        for (int e = 0; e < 2; e++)
            TU_CHECK(det[e] == ref[e], "run of %lld: detect sum %d", (long long)len, e);
        free(v);
    }
}

static void locate(tu_rng_t *r)
{
    long trials = 0;
    for (int64_t len = 1; len <= 300; len += len < 10 ? 1 : 13) {
        double *v = tu_malloc(len + 1), *w = tu_malloc(len + 1);
        for (int rep = 0; rep < 40; rep++) {
            for (int64_t i = 0; i <= len; i++) v[i] = draw(r);
            uint64_t ref[CKP_NS], now[CKP_NS];
            ckp_sums_ref(len + 1, 1, v, len + 1, ref); /* rows 1 .. len */
            const int nch = rep % 4 < len ? rep % 4 : len; /* changed elements */
            memcpy(w, v, (size_t)(len + 1) * sizeof(double));
            int64_t rows[3];
            for (int k = 0; k < nch; k++) {
                int64_t row;
                int dup;
                do { /* distinct rows; the ends often */
                    const int pick = tu_int(r, 0, 3);
                    row = pick == 0 ? 1 : pick == 1 ? len : 1 + tu_int(r, 0, (int)len - 1);
                    dup = 0;
                    for (int q = 0; q < k; q++) dup |= rows[q] == row;
                } while (dup);
                rows[k] = row;
                if (tu_int(r, 0, 1)) {
                    uint64_t b = bits(w[row]) ^ ((uint64_t)1 << tu_int(r, 0, 63));
                    memcpy(&w[row], &b, sizeof b);
                } else {
                    const double d = tu_uniform(r) + 0.25;
                    w[row] = w[row] + d;
                    if (bits(w[row]) == bits(v[row])) w[row] = -w[row] - 1.0; /* absorbed */
                    if (bits(w[row]) == bits(v[row])) w[row] = 3.0;
                }
            }
            ckp_sums_ref(len + 1, 1, w, len + 1, now);
            ckp_fix_t fix[2];
            const int got = ckp_locate(ref, now, len, fix);
            trials++;
            if (nch == 3) {
                TU_CHECK(got == -1, "len %lld: three changes, located %d", (long long)len, got);
                continue;
            }
            TU_CHECK(got == nch, "len %lld: %d changes, located %d", (long long)len, nch, got);
            if (got != nch) continue;
            for (int k = 0; k < got; k++) {
                const int64_t row = len + 1 - fix[k].t; /* t = m - r with m = len + 1 */
                int hit = 0;
                for (int q = 0; q < nch; q++) hit |= rows[q] == row;
                TU_CHECK(hit, "len %lld: located row %lld not changed", (long long)len,
                         (long long)row);
                if (row >= 1 && row <= len) w[row] = ckp_restore(w[row], fix[k].delta);
            }
            TU_CHECK(memcmp(v, w, (size_t)(len + 1) * sizeof(double)) == 0,
                     "len %lld: %d changes not restored bit for bit", (long long)len, nch);
        }
        free(v);
        free(w);
    }
    printf("%ld locate trials\n", trials);
}

int main(void)
{
    tu_rng_t r;
    tu_seed(&r, 909);
    field(&r);
    sums_match_weights(&r);
    run_sums(&r);
    locate(&r);
    return tu_finish();
}
