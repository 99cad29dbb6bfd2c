/*
 * test_sizes.c — every size computation of the library with m*n > 2^31 (and near the 64-bit
 * limits): element and byte counts are exact (compared with 128-bit arithmetic) and overflow is
 * detected, never wrapped. Internal API (src/core/size.h and the modules' size functions); the
 * real calls with m*n > 2^31 run on the GPU machine (test_bigsizes, label gpu).
 */
#include "blas3/dgemm_internal.h"
#include "core/size.h"
#include "qr/qr_internal.h"

#include <stdint.h>
#include "testing_util.h"

#include <stdio.h>


typedef __int128 i128;

static int fits64(i128 v) { return v >= 0 && v <= (i128)INT64_MAX; }

/* Expected element count of dgemm's checksum workspace, in 128-bit arithmetic. */
static i128 ref_check(i128 m, i128 n, i128 k, i128 T, int have_c0, int keep)
{
    i128 nb = (n + T - 1) / T, mb = (m + T - 1) / T;
    i128 e = 3 * k * nb + nb + 5 * m * nb + m;
    if (have_c0) e += 3 * m * nb + (keep ? 3 * n * mb : 0);
    return e + (9 + 9) * T + 3 * k + 2 + 8;
}

int main(void)
{
    /* ---- primitives ---- */
    int64_t r;
    size_t b;
    TU_CHECK(!ft_mul_ovf(46341, 46341, &r) && r == 2147488281LL, "46341^2 = %lld", (long long)r);
    TU_CHECK(!ft_mul_ovf(INT32_MAX, INT32_MAX, &r) && (i128)r == (i128)INT32_MAX * INT32_MAX,
          "INT32_MAX^2");
    TU_CHECK(ft_mul_ovf(INT64_MAX / 2 + 1, 2, &r) && r == 0, "overflow of a product");
    TU_CHECK(ft_mul_ovf(-1, 5, &r), "negative operand");
    TU_CHECK(ft_add_ovf(INT64_MAX, 1, &r), "overflow of a sum");
    TU_CHECK(!ft_dbytes(((int64_t)1 << 31) + 5, &b) && b == (((size_t)1 << 31) + 5) * 8, "dbytes");
    TU_CHECK(ft_dbytes((int64_t)(SIZE_MAX / 8) + 1, &b), "dbytes overflow");
    int64_t t3[] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, 3, 4};
    TU_CHECK(!ft_sum_of_products(3, t3, &r) && (i128)r == 2 * (i128)INT32_MAX * INT32_MAX + 12,
          "sum of products");
    int64_t t4[] = {INT64_MAX / 2, 2, 1, 2};
    TU_CHECK(ft_sum_of_products(2, t4, &r), "sum of products overflow");

    /* ---- staging (ft_dgemm and ft_dgeqrf with host data on the GPU) ---- */
    const int64_t big[][3] = {{46341, 46341, 256},   {2200000, 1000, 1000}, {1000, 2200000, 64},
                              {INT32_MAX, 2, 2},     {65536, 65536, 65536}, {INT32_MAX, INT32_MAX, 1},
                              {100000, 30000, 4096}};
    for (unsigned c = 0; c < sizeof big / sizeof big[0]; c++) {
        const int64_t m = big[c][0], n = big[c][1], k = big[c][2];
        const int sfit = (i128)m * n * 8 <= (i128)SIZE_MAX;
        TU_CHECK(sfit ? !ft_stage_bytes(m, n, &b) && (i128)b == (i128)m * n * 8
                   : ft_stage_bytes(m, n, &b) == 1,
              "stage bytes %lld x %lld", (long long)m, (long long)n);
        i128 ref = (i128)m * k + (i128)k * n + (i128)m * n;
        int64_t got = dgemm_stage_elems(m, k, k, n, m, n);
        TU_CHECK(fits64(ref) ? got == (int64_t)ref : got == -1, "dgemm stage %lld %lld %lld",
              (long long)m, (long long)n, (long long)k);
        for (int64_t T = 256; T <= 4096; T *= 4)
            for (int c0 = 0; c0 < 2; c0++)
                for (int keep = 0; keep < 2; keep++) {
                    i128 rc = ref_check(m, n, k, T, c0, keep);
                    int64_t gc = dgemm_check_elems(m, n, k, T, c0, keep);
                    TU_CHECK(fits64(rc) ? gc == (int64_t)rc : gc == -1,
                          "dgemm check elems m=%lld n=%lld k=%lld T=%lld: %lld", (long long)m,
                          (long long)n, (long long)k, (long long)T, (long long)gc);
                }
        /* QR: device copy ld x n, loop workspaces */
        const int64_t nb = 64, ld = qr_stage_ld(m);
        TU_CHECK(ld >= m && ld % 32 == 0 && ld - m < 32, "qr ld");
        const i128 nbc = abft_qr_check_width(n), B = (n + nbc - 1) / nbc;
        /* three checksum columns per block (QR_NCS) */
        /* + recovery (issue 8): T of every panel, the identity, the original checksums, 7m */
        const i128 np = ((m < n ? m : n) + nb - 1) / nb;
        /* + the checkpoint of Q (issue 9): 5 sums per column in work memory; on the host the
         * checkpoint and the sums now (5 each), a record digest and two copies of tau */
        const i128 kk = m < n ? m : n;
        i128 rw = 9 * B * (i128)m + (3 + 2) * (i128)n + 2 * (i128)nb * m +
                  (np + 2) * (i128)nb * nb + (i128)nb * n + 3 * B * nb + 7 * (i128)m + 64 +
                  5 * kk;
        /* + the panel checks (issue 9): the kernels' scratch (nb^2 + 3 x 256 nb), 3 result
         * slots (4 nb + nb^2 each) and an end slot (4 nb), the digests of every T (np nb) and
         * of every V and T after its update (2 np nb); on the host the slots and five digests
         * per panel column (np nb each) */
        rw += (i128)nb * nb + 3 * 256 * (i128)nb;
        rw += 16 * (i128)nb + 3 * (i128)nb * nb + 3 * np * nb;
        /* + the column checks: sigma A_p of two panels (2 m nb) and the work of Q_p^T A_p
         * (nb^2); on the host a ring of 3 (R, thresholds) */
        rw += 2 * (i128)m * nb + (i128)nb * nb;
        i128 rh = 2 * (i128)nb * m + 2 * (i128)nb * nb + 64 * (i128)nb + (3 + 4) * (i128)n +
                  (7 * B + 3) * (i128)m + 2 * B + 64 + 13 * kk;
        rh += 16 * (i128)nb + 3 * (i128)nb * nb + 5 * np * nb;
        rh += 3 * ((i128)nb * nb + nb);
        /* + panels in work memory (issue 10): tau (k) and the seal's digests (2 nb); on the
         * host a ring of 3 (R_pp, tau) */
        rw += kk + 2 * (i128)nb;
        rh += 3 * ((i128)nb * nb + nb);
        /* + the sizes of a check's residuals (2 per checksum column), work and host */
        rw += 6 * B;
        rh += 6 * B;
        /* + what catch-ups gave each checksum block, and which residuals each block has on the
         * host (host, two int64 per block) */
        rh += 2 * B;
        int64_t gw = qr_work_elems(m, n, nb), gh = qr_host_elems(m, n, nb);
        TU_CHECK(fits64(rw) ? gw == (int64_t)rw : gw == -1, "qr work elems %lld", (long long)gw);
        TU_CHECK(fits64(rh) ? gh == (int64_t)rh : gh == -1, "qr host elems %lld", (long long)gh);
        TU_CHECK((i128)ld * n * 8 <= (i128)SIZE_MAX
                  ? ft_stage_bytes(ld, n, &b) == 0 && (i128)b == (i128)ld * n * 8
                  : ft_stage_bytes(ld, n, &b) == 1,
              "qr stage bytes");
    }
    /* beyond 64 bits: detected */
    TU_CHECK(dgemm_stage_elems(INT64_MAX / 2, 3, 1, 1, 1, 1) == -1, "stage overflow");
    TU_CHECK(dgemm_check_elems(INT64_MAX / 4, 1 << 20, 1, 256, 1, 1) == -1, "check overflow");
    TU_CHECK(qr_work_elems(INT64_MAX / 8, 1, 64) == -1, "qr work overflow");
    TU_CHECK(qr_host_elems(INT64_MAX / 8, 1, 64) == -1, "qr host overflow");
    TU_CHECK(ft_stage_bytes(INT64_MAX / 4, 2, &b) == 1, "stage bytes overflow");

    return tu_finish();
}
