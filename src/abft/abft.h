/*
 * abft.h — the checksum mathematics shared by every routine (ft_dgemm, ft_dgeqrf, and the coming
 * checkpoint): weights, location, thresholds and the decision rules, written once. Pure
 * arithmetic: no memory, no backend, usable from host code and CUDA kernels alike, so every
 * backend computes exactly the same checks. Derivations: docs/thresholds.md.
 */
#ifndef FTLA_ABFT_H
#define FTLA_ABFT_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define FT_HD __host__ __device__ __forceinline__
#else
#define FT_HD static inline
#endif

#define ABFT_U (DBL_EPSILON / 2)             /* unit roundoff */
#define ABFT_ETA 4.9406564584124654e-324     /* smallest subnormal, 2^-1074 */

/* ---- weights and location ----------------------------------------------------------------- */

/* Smallest power of two >= T: the weight denominator, so every weight is exact in binary. */
FT_HD int64_t abft_wden(int64_t T)
{
    int64_t W = 1;
    while (W < T) W <<= 1;
    return W;
}

/* Weight of local column jj (0 <= jj < W) of a block: w = (W + jj + 1) / (2W), in (1/2, 1].
 * In (1/2, 1] so that (a) a data error delta shows in the weighted check as w*delta >= delta/2
 * (it cannot hide under the threshold when the plain check fires), (b) weighted sums never
 * exceed plain absolute sums (no extra overflow), (c) w is exact, so w = dw/de locates jj.
 * This is the only place the formula is written. scale = abft_weight_scale(W) = 1/(2W), a power
 * of two, so the product is exact; loops pass it precomputed (abft_weight_at). */
FT_HD double abft_weight_scale(int64_t W) { return 0.5 / (double)W; }
FT_HD double abft_weight_at(int64_t jj, int64_t W, double scale)
{
    return (double)(W + jj + 1) * scale;
}
FT_HD double abft_weight(int64_t jj, int64_t W)
{
    return abft_weight_at(jj, W, abft_weight_scale(W));
}

/* The second weight vector of a block, v_jj = abft_weight(pi(jj), V) with V = abft_perm_den(W)
 * = max(W, 64) and pi(jj) = jj * 0x9E3779B1 mod V, a permutation of [0, V) (odd multiplier):
 * exact weights in (1/2, 1] in an order unrelated to the column index, so two columns that w
 * places close together (|w_a - w_b| = |a - b| / (2W)) are usually far apart in v (V >= 64: for
 * a denominator of 2 or 4 every odd multiplier is +-1 and would just repeat w). A third checksum
 * with these weights tells a data error that a first correction absorbed, or two errors
 * cancelling in one checksum, from a single error or a corrupted checksum (ft_dgeqrf, issue 7);
 * abft_consistent(r, t, abft_perm(jj, W), abft_perm_den(W), thr) checks one error against it. */
FT_HD int64_t abft_perm_den(int64_t W) { return W < 64 ? 64 : W; }
FT_HD int64_t abft_perm(int64_t jj, int64_t W)
{
    return (int64_t)(((uint64_t)jj * 0x9E3779B1ull) & (uint64_t)(abft_perm_den(W) - 1));
}
FT_HD double abft_weight_perm(int64_t jj, int64_t W)
{
    return abft_weight(abft_perm(jj, W), abft_perm_den(W));
}

/* Inverse of abft_weight: the local column a ratio dw/de points to (may be out of range). */
FT_HD int64_t abft_locate(double ratio, int64_t W)
{
    double x = ratio * (double)(2 * W) - (double)(W + 1);
    return (int64_t)floor(x + 0.5);
}

/* Is a pair of residuals (r plain, s weighted) consistent with one error in local column jj?
 * s = w_jj r up to the noise of both checks (2 thr) and a quarter of the weight spacing. */
FT_HD int abft_consistent(double r, double s, int64_t jj, int64_t W, double thr)
{
    return fabs(s - abft_weight(jj, W) * r) <= 2.0 * thr + fabs(r) / (4.0 * (double)W);
}

/* ---- decision rule of a pair of checks ---------------------------------------------------- */

enum {
    ABFT_PASS = 0,          /* both checks within the threshold */
    ABFT_FAIL_PLAIN = 1,    /* bit: the plain check fails */
    ABFT_FAIL_WEIGHTED = 2, /* bit: the weighted check fails */
    ABFT_FAIL_BOTH = 3,     /* a data error: its weight in (1/2, 1] shows it in both */
    ABFT_UNVERIFIABLE = -1  /* the threshold is not finite: NaN/Inf inputs or overflow */
};

/* Outcome of comparing residuals de (plain) and dw (weighted) with tau. NaN fails. */
FT_HD int abft_compare(double de, double dw, double tau)
{
    return (!(fabs(de) <= tau) ? ABFT_FAIL_PLAIN : 0) | (!(fabs(dw) <= tau) ? ABFT_FAIL_WEIGHTED : 0);
}

/* Only one of the two checks fails: the checksum itself was hit, not the data. */
FT_HD int abft_is_checksum_only(int outcome)
{
    return outcome == ABFT_FAIL_PLAIN || outcome == ABFT_FAIL_WEIGHTED;
}

/* ---- ft_dgemm thresholds ------------------------------------------------------------------ */

/*
 * The scale of every dgemm checksum sum (issue 7, hole 1): each element is multiplied by
 * sigma = 1 / abft_gemm_rscale(T, k), a power of two, before it is added, so that a sum of up
 * to N = max(T, k) elements (a check of a tile's row or column, a row norm of op(A) or a column
 * norm of op(B)) stays finite whenever its elements are: data near the overflow threshold whose
 * product is finite are checked like any other. The scaling is exact for every element above
 * 2^-1022 / sigma; below, the scaled element underflows and loses up to eta/2 absolutely in
 * scaled units, which the threshold counts. Returns 1/sigma = the power of two >= 2N.
 */
FT_HD double abft_gemm_rscale(int64_t T, int64_t k)
{
    const int64_t N = T > k ? T : k;
    return (double)abft_wden(2 * (N > 1 ? N : 1));
}

/*
 * Threshold of one check (a sum of the T elements of C = alpha*op(A)*op(B) + beta*C0 along a row
 * of a tile, or along a column; T is the number of elements actually summed — a partial tile's
 * width — not the tile size), compared with its prediction. With
 *   g = gnorm * gmax >= sum over the T elements of |op(A)(i,:)| |op(B)(:,j)|: for a row check
 *       gnorm = ||op(A)(i,:)||_1 and gmax = max_l z(l), z = block row sums of |op(B)|; for a
 *       column check gnorm = ||op(B)(:,j)||_1 and gmax = max_l of the block column sums of
 *       |op(A)| (docs/thresholds.md);
 *   h = sum over the T elements of |C0(i,j)|;  s = sum over the T elements of |C(i,j)|;
 * the computed check and prediction differ by at most
 *   gamma_{2k+T+4} |alpha| g + gamma_{T+4} |beta| h + gamma_{T+1} s
 *   + (eta/2) [ |alpha| (k T + T gnorm + k + 1) + |beta| (T + 1) + T + 2 ]
 * (each element: a k-term dot product, alpha, beta*c0 and the sum, gamma_{k+2} |alpha| g_ij +
 * gamma_2 |beta| |c0_ij|; their weighted sum gamma_{T+1} s; the prediction alpha op(A)(i,:) y +
 * beta C0(i,J) w with y = op(B) w: gamma_{k+T+2} |alpha| g + gamma_{T+2} |beta| h. The beta*C0
 * part never meets k: issue 7, hole 6 found it multiplied by 2k + 2T + 4.)
 * The last line is gradual underflow, each underflowing product losing up to eta/2 absolutely:
 * the k T products of the T elements' dot products and the k of the prediction (all scaled by
 * alpha), the T weighted sums of the encoded operand (w_j x for subnormal x) — amplified by the
 * other operand's norm gnorm and by alpha, which is why it cannot be a constant — and the T + 1
 * weighted sums of C0 and of C. We flag above tol * that bound (twice the underflow part):
 * never on rounding alone, whatever the scaling of the data.
 * Scaled units: every sum is formed from elements times sigma = 1/rsig (abft_gemm_rscale), so
 * gnorm, gmax, h and s are passed as sigma times the quantities above and the threshold comes
 * back in the same units. The g term then carries one factor rsig (g is a product of two scaled
 * sums); the scaled elements' own underflow adds eta/2 for each of the 2T elements of C0 and C
 * in the sums, and up to eta/2 of one column of the scaled gmax (counted as eta gmax rsig).
 * Evaluation order keeps the threshold finite whenever the bound is representable: the small
 * factors (u, eta) are applied before the large ones (gnorm, gmax, rsig).
 */
/* x * gmax * rsig for a product of two scaled sums (x = c gnorm, or gnorm): rsig applied
 * before a small gmax and after a large one, so neither the product nor the intermediate
 * overflows or underflows when the result is representable. */
FT_HD double abft_unscale(double x, double gmax, double rsig)
{
    /* x (gmax rsig) or (x gmax) rsig, written as two selects (the host's vector loop over rows,
     * dgemm_kernels_host.c verify_fast): the factor 1 is exact */
    const int small = gmax < 1.0;
    const double f1 = small ? gmax * rsig : gmax, f2 = small ? 1.0 : rsig;
    return (x * f1) * f2;
}

/* abft_tau without its gradual-underflow part (abft_pass_fast) */
FT_HD double abft_tau_upper(double tol, int64_t k, int64_t T, double alpha, double beta,
                            double gnorm, double gmax, double h, double s, double rsig)
{
    const double kk = (double)k, tt = (double)T, aa = fabs(alpha), bb = fabs(beta);
    const double c = tol * ABFT_U * (2.0 * kk + tt + 4.0);
    const double gterm = abft_unscale((c * aa) * gnorm, gmax, rsig);
    const double rest = tol * ABFT_U * (tt + 4.0) * bb * h + tol * ABFT_U * (tt + 1.0) * s;
    return gterm + rest;
}

FT_HD double abft_tau(double tol, int64_t k, int64_t T, double alpha, double beta, double gnorm,
                      double gmax, double h, double s, double rsig)
{
    const double kk = (double)k, tt = (double)T, aa = fabs(alpha), bb = fabs(beta);
    const double under =
        tol * ABFT_ETA * (aa * (kk * tt + kk + 1.0) + bb * (2.0 * tt + 1.0) + 2.0 * tt + 2.0) +
        (((tol * ABFT_ETA * tt) * aa) * gnorm) * rsig + ((tol * ABFT_ETA) * gmax) * rsig;
    return abft_tau_upper(tol, k, T, alpha, beta, gnorm, gmax, h, s, rsig) + under;
}

/* The computed-sum part of the threshold, gamma_T * s (abft_tau with g = h = 0, no eta). */
FT_HD double abft_tau_s(double tol, int64_t T, double s)
{
    return tol * ABFT_U * ((double)T + 1.0) * s;
}

/*
 * The decision rule of one dgemm check pair (a row or a column of a tile): residuals de = se - pe
 * (plain) and dw = sw - pw (weighted), bound ingredients g, h, s as for abft_tau (scaled units,
 * rsig = 1/sigma).
 * Returns ABFT_UNVERIFIABLE when the input part of the bound is not finite (NaN/Inf inputs or
 * overflow: the result is whatever IEEE arithmetic gives, not a soft error); ABFT_FAIL_BOTH when
 * the computed sum is not finite although valid data could not make it so (an exponent flip to
 * Inf/NaN) — ABFT_UNVERIFIABLE when the valid sum itself may overflow, and likewise when a
 * residual is not finite while the prediction itself may validly overflow (|op(A)| |op(B)|
 * beyond the range although C is finite: cancellation, or a tiny alpha); else abft_compare
 * against the full bound. *tau receives the threshold used.
 */
FT_HD int abft_check(double tol, int64_t k, int64_t T, double alpha, double beta, double gnorm,
                     double gmax, double h, double s, double de, double dw, double rsig,
                     double *tau)
{
    double t = abft_tau(tol, k, T, alpha, beta, gnorm, gmax, h, 0.0, rsig);
    *tau = t;
    if (!isfinite(t)) return ABFT_UNVERIFIABLE;
    /* bounds of the (scaled) prediction op(A) (op(B) w) before and after alpha: also of the
     * scaled sum of |C| over the check, and, times rsig, of every element of C */
    const double P = abft_unscale(gnorm, gmax, rsig);
    const double G = fabs(alpha) * P + fabs(beta) * h;
    const int range = isfinite(P) && P < DBL_MAX / 4 && isfinite(G) && G < DBL_MAX / 4;
    if (!isfinite(s)) {
        /* An element of C is at most |alpha| g + |beta| h unscaled (+ rounding): when that is
         * far below the overflow threshold, a non-finite sum can only come from a corrupted
         * element (an exponent flip to Inf/NaN); near it, a valid element may itself overflow
         * (the result is not representable), and the check cannot be evaluated. */
        return range && G < DBL_MAX / (4.0 * rsig) ? ABFT_FAIL_BOTH : ABFT_UNVERIFIABLE;
    }
    if (!range && !(isfinite(de) && isfinite(dw))) return ABFT_UNVERIFIABLE;
    t += abft_tau_s(tol, T, s);
    *tau = t;
    return abft_compare(de, dw, t);
}

/* Does the pair pass abft_check's bound without its gradual-underflow part? That part is formed
 * from the smallest subnormal, and on the host every operation with a subnormal operand or
 * result takes a microcode assist: abft_check costs ~0.2 us there, and the rare path of
 * ft_dgemm evaluates every row and column of a flagged tile several times (~8000 checks for a
 * 2048 tile: 1.7 ms of host time a corrected fault at 16384, issue 12). Leaving out a
 * nonnegative term lowers the threshold, so a pair that passes here passes abft_check too (as
 * the host's vector pass, dgemm_kernels_host.c verify_fast); for any other, call abft_check. */
FT_HD int abft_pass_fast(double tol, int64_t k, int64_t T, double alpha, double beta,
                         double gnorm, double gmax, double h, double s, double de, double dw,
                         double rsig)
{
    const double t = abft_tau_upper(tol, k, T, alpha, beta, gnorm, gmax, h, s, rsig);
    const double P = abft_unscale(gnorm, gmax, rsig);
    const double G = fabs(alpha) * P + fabs(beta) * h;
    const int range = P < DBL_MAX / 4 && G < DBL_MAX / 4; /* false for NaN */
    return fabs(t) <= DBL_MAX && fabs(s) <= DBL_MAX && range && fabs(de) <= t && fabs(dw) <= t;
}

/* ---- ft_dgeqrf thresholds ----------------------------------------------------------------- */

/* Width of a block of columns of the QR checksum columns: every block of nbc columns carries its
 * own pair [A_b e, A_b w] and its own threshold (issue 7, hole 6: one pair for all n columns made
 * the threshold grow with the sum of all column norms, far above the accuracy contract on graded
 * data). A power of two between 32 and 1024, about n/8: at most 2/32 more update flops for small
 * n, 2/1024 for large (on the H100 at n = 32768 the checks then cost 45 ms of 5 s; with 256 they
 * cost 154 ms, docs/performance.md). */
FT_HD int64_t abft_qr_check_width(int64_t n)
{
    int64_t w = 32;
    while (w < 1024 && 8 * w < n) w <<= 1;
    return w;
}

/* ||x||_2 with scaling (no overflow/underflow in the squares); NaN/Inf propagate. */
FT_HD double abft_nrm2(int64_t n, const double *x)
{
    double scale = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (!(a <= DBL_MAX)) return a; /* Inf or NaN */
        if (a > scale) scale = a;
    }
    if (scale == 0.0) return 0.0;
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double t = x[i] / scale;
        s += t * t;
    }
    return scale * sqrt(s);
}

/* ||a - b||_2 given mx = max_i |a_i - b_i| (NaN counted as Inf: returned as it is when not
 * finite or 0), each difference scaled by the power of two at or above mx (two normal factors:
 * exact, no overflow or underflow in the squares, a product rather than a division). */
FT_HD double abft_diff_nrm2(int64_t n, const double *a, const double *b, double mx)
{
    if (!(mx > 0 && mx <= DBL_MAX)) return mx;
    int e;
    frexp(mx, &e); /* mx < 2^e, e in [-1073, 1024] */
    const int e1 = -e > 1000 ? 1000 : -e < -1000 ? -1000 : -e;
    const double s1 = ldexp(1.0, e1), s2 = ldexp(1.0, -e - e1);
    double q[4] = {0.0, 0.0, 0.0, 0.0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int t = 0; t < 4; t++) {
            const double d = (a[i + t] - b[i + t]) * s1 * s2;
            q[t] += d * d;
        }
    for (; i < n; i++) {
        const double d = (a[i] - b[i]) * s1 * s2;
        q[0] += d * d;
    }
    return ldexp(sqrt((q[0] + q[1]) + (q[2] + q[3])), e);
}

/*
 * Threshold of the QR checks r = c - R e, s = v - R w (docs/qr.md): with colsum = sum_j ||a_j||_2
 * of the ORIGINAL A (each bounded by sqrt(||a_j||_1 max_i |a_ij|) >= ||a_j||_2, Hoelder) and
 * ce = ||A e||_2,
 *     bound = u (colsum + ce),   tau = tol ((m + n) bound + (m + n)(n + 2) 4 eta).
 */
FT_HD double abft_qr_bound(double colsum, double ce) { return ABFT_U * (colsum + ce); }
FT_HD double abft_qr_tau(double tol, int64_t m, int64_t n, double bound)
{
    return tol * ((double)(m + n) * bound + (double)(m + n) * (double)(n + 2) * 4.0 * ABFT_ETA);
}

#endif
