/*
 * checkpoint_host.c — the checkpoint of Q on the host: the sums (running sums, additions only),
 * the host kernel table, and locating / undoing changes (checkpoint.h).
 */
#include "backend/host/host_queue.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/ckp_field.h"
#include "core/simd.h"
#include "core/team.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void ckp_sums_ref(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out)
{
    for (int64_t c = 0; c < nc; c++) {
        const double *a = A + c * lda;
        /* after row r, s_e = sum over rows so far of C(r_end - r + e, e)-type weights: the
         * running sums of running sums give C(m - r + e - 1, e) once the column ends at m-1 */
        uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        for (int64_t r = c + 1; r < m; r++) {
            uint64_t b;
            memcpy(&b, a + r, sizeof b);
            s0 = ckp_add(s0, ckp_elem(b));
            s1 = ckp_add(s1, s0);
            s2 = ckp_add(s2, s1);
            s3 = ckp_add(s3, s2);
            s4 = ckp_add(s4, s3);
        }
        uint64_t *o = out + CKP_NS * c;
        o[0] = s0, o[1] = s1, o[2] = s2, o[3] = s3, o[4] = s4;
    }
}

/*
 * ckp_sums_ref's sums by runs of VR = 128 rows, as dot products a vector unit can do (the row
 * recurrence with deferred 128-bit reductions took ~10 cycles an element: issue 11's dgels_).
 * After a run of R rows b_0 .. b_(R-1), the running sums of running sums are, from their values
 * S_e before it,
 *     s_e = sum_{d <= e} C(R + d - 1, d) S_(e-d) + sum_r C(R - r + e - 1, e) b_r,
 * (s_0 += b, s_1 += s_0, ... applied row by row gives exactly this). The weights are below
 * C(131, 4) < 2^24, so each element is split into its 32-bit halves and each product of a half
 * and a weight (< 2^56) added over the run in 64 bits (< 2^63) without overflow: 32 x 32 -> 64
 * multiplies (pmuludq) in the vector clones. The run's state is kept reduced (< 2^64), so the
 * update stays below 2^91. A short last run goes through the row recurrence. Exact: the
 * same residues as ckp_sums_ref, bit for bit.
 */
enum { VR = 128 };
static uint32_t g_vw[CKP_NS][VR];       /* C(VR - r + e - 1, e) */
static uint64_t g_vw64[CKP_NS][VR];     /* the same, widened (the vector kernels' loads) */
static uint64_t g_vc[VR + 1][CKP_NS];   /* C(L + d - 1, d), a run of L rows */
static pthread_once_t g_vw_once = PTHREAD_ONCE_INIT;

static uint64_t binom(uint64_t n, uint64_t k)
{
    uint64_t r = 1;
    for (uint64_t i = 1; i <= k; i++) r = r * (n - k + i) / i; /* exact at every step */
    return r;
}

typedef void (*run_dots_fn)(const double *a, int len, uint64_t lo[CKP_NS], uint64_t hi[CKP_NS]);
static run_dots_fn g_dots;

/* the five half-split dot products of one run of len <= VR rows: the weights of its own count
 * C(len - r + e - 1, e) are the last len of a full run's, g_vw[e][VR - len + r] */
FT_SIMD_CLONES static void run_dots(const double *a, int len, uint64_t lo[CKP_NS],
                                    uint64_t hi[CKP_NS])
{
    uint64_t l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0;
    const uint32_t *w1 = g_vw[1] + (VR - len), *w2 = g_vw[2] + (VR - len),
                   *w3 = g_vw[3] + (VR - len), *w4 = g_vw[4] + (VR - len);
    for (int r = 0; r < len; r++) {
        uint64_t b;
        memcpy(&b, a + r, sizeof b);
        const uint64_t bl = (uint32_t)b, bh = b >> 32;
        l0 += bl, h0 += bh; /* weight 1 */
        l1 += bl * w1[r], h1 += bh * w1[r];
        l2 += bl * w2[r], h2 += bh * w2[r];
        l3 += bl * w3[r], h3 += bh * w3[r];
        l4 += bl * w4[r], h4 += bh * w4[r];
    }
    lo[0] = l0, lo[1] = l1, lo[2] = l2, lo[3] = l3, lo[4] = l4;
    hi[0] = h0, hi[1] = h1, hi[2] = h2, hi[3] = h3, hi[4] = h4;
}

/* the first two sums only (the detection's, ckp_detect_host; those beyond are left as they
 * are): the AVX-512 kernel's two-sum instance, else g_dots */
static run_dots_fn g_dots2;

/*
 * run_dots with the 32 x 32 -> 64 multiply of the vector unit written out (vpmuludq multiplies
 * the low halves of each 64-bit lane): the compiler's own vectorization of run_dots uses the
 * full 64-bit multiply (vpmullq, three micro-ops) and ran ~3.6 cycles an element. The same sums,
 * bit for bit (integer additions in another order). Chosen at the first use by the CPU's
 * features; rows by eight (four), the run's tail by the scalar loop.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&       \
    __GNUC__ >= 11 && !defined(FTLA_NO_SIMD_CLONES)
#include <immintrin.h>
#define CKP_HAVE_X86 1

static inline __attribute__((always_inline)) void dots_tail(const double *a, int r, int len,
                                                            uint64_t lo[CKP_NS],
                                                            uint64_t hi[CKP_NS], int ne)
{
    for (; r < len; r++) {
        uint64_t b;
        memcpy(&b, a + r, sizeof b);
        const uint64_t bl = (uint32_t)b, bh = b >> 32;
        lo[0] += bl, hi[0] += bh;
        for (int e = 1; e < ne; e++) {
            const uint64_t w = g_vw[e][VR - len + r];
            lo[e] += bl * w, hi[e] += bh * w;
        }
    }
}

/* the first ne of the sums (ne constant in each caller below) */
static inline __attribute__((always_inline, target("avx512f"))) void
dots_512(const double *a, int len, uint64_t lo[CKP_NS], uint64_t hi[CKP_NS], int ne)
{
    __m512i l[CKP_NS], h[CKP_NS];
    for (int e = 0; e < ne; e++) l[e] = h[e] = _mm512_setzero_si512();
    const __m512i lo32 = _mm512_set1_epi64(0xffffffffll);
    const int off = VR - len;
    int r = 0;
    for (; r + 8 <= len; r += 8) {
        const __m512i b = _mm512_loadu_si512((const void *)(a + r));
        const __m512i bh = _mm512_srli_epi64(b, 32);
        l[0] = _mm512_add_epi64(l[0], _mm512_and_si512(b, lo32));
        h[0] = _mm512_add_epi64(h[0], bh);
        for (int e = 1; e < ne; e++) {
            const __m512i w = _mm512_loadu_si512((const void *)(g_vw64[e] + off + r));
            l[e] = _mm512_add_epi64(l[e], _mm512_mul_epu32(b, w));
            h[e] = _mm512_add_epi64(h[e], _mm512_mul_epu32(bh, w));
        }
    }
    for (int e = 0; e < ne; e++) {
        lo[e] = (uint64_t)_mm512_reduce_add_epi64(l[e]);
        hi[e] = (uint64_t)_mm512_reduce_add_epi64(h[e]);
    }
    dots_tail(a, r, len, lo, hi, ne);
}

__attribute__((target("avx512f"))) static void run_dots_512(const double *a, int len,
                                                             uint64_t lo[CKP_NS],
                                                             uint64_t hi[CKP_NS])
{
    dots_512(a, len, lo, hi, CKP_NS);
}

__attribute__((target("avx512f"))) static void run_dots2_512(const double *a, int len,
                                                              uint64_t lo[CKP_NS],
                                                              uint64_t hi[CKP_NS])
{
    dots_512(a, len, lo, hi, 2);
}

__attribute__((target("avx2"))) static void run_dots_256(const double *a, int len,
                                                          uint64_t lo[CKP_NS],
                                                          uint64_t hi[CKP_NS])
{
    __m256i l[CKP_NS], h[CKP_NS];
    for (int e = 0; e < CKP_NS; e++) l[e] = h[e] = _mm256_setzero_si256();
    const __m256i lo32 = _mm256_set1_epi64x(0xffffffffll);
    const int off = VR - len;
    int r = 0;
    for (; r + 4 <= len; r += 4) {
        const __m256i b = _mm256_loadu_si256((const __m256i *)(a + r));
        const __m256i bh = _mm256_srli_epi64(b, 32);
        l[0] = _mm256_add_epi64(l[0], _mm256_and_si256(b, lo32));
        h[0] = _mm256_add_epi64(h[0], bh);
        for (int e = 1; e < CKP_NS; e++) {
            const __m256i w = _mm256_loadu_si256((const __m256i *)(g_vw64[e] + off + r));
            l[e] = _mm256_add_epi64(l[e], _mm256_mul_epu32(b, w));
            h[e] = _mm256_add_epi64(h[e], _mm256_mul_epu32(bh, w));
        }
    }
    for (int e = 0; e < CKP_NS; e++) {
        uint64_t x[4], y[4];
        _mm256_storeu_si256((__m256i *)x, l[e]);
        _mm256_storeu_si256((__m256i *)y, h[e]);
        lo[e] = (x[0] + x[1]) + (x[2] + x[3]);
        hi[e] = (y[0] + y[1]) + (y[2] + y[3]);
    }
    dots_tail(a, r, len, lo, hi, CKP_NS);
}
#endif

static void vw_init(void)
{
    for (int e = 0; e < CKP_NS; e++) {
        for (int r = 0; r < VR; r++) {
            g_vw[e][r] = (uint32_t)binom((uint64_t)(VR - r + e - 1), e);
            g_vw64[e][r] = g_vw[e][r];
        }
        for (int L = 1; L <= VR; L++) g_vc[L][e] = binom((uint64_t)(L + e - 1), e);
    }
    g_dots = run_dots;
    g_dots2 = run_dots;
#ifdef CKP_HAVE_X86
    /* FTLA_CKP_DOTS=generic | avx2 (tests and measurements): the compiler's kernel, or the
     * AVX2 one on a machine that has AVX-512 too */
    const char *e = getenv("FTLA_CKP_DOTS");
    const int generic = e && !strcmp(e, "generic"), avx2 = e && !strcmp(e, "avx2");
    __builtin_cpu_init();
    if (!generic && !avx2 && __builtin_cpu_supports("avx512f"))
        g_dots = run_dots_512, g_dots2 = run_dots2_512;
    else if (!generic && __builtin_cpu_supports("avx2")) g_dots = run_dots_256;
#endif
}

/* The sums of rows [r0, m) of the column a (weights of t = m - r), by runs of VR rows; *raw (if
 * not NULL) += the plain sum mod 2^64 of the same bit patterns, from the same loads. */
/* The first ne sums of rows [r0, m) of the column a (weights of t = m - r), by runs of VR rows
 * (dots: ne of them at least); *raw (if not NULL) += the plain sum mod 2^64 of the same bit
 * patterns, from the same loads. */
static inline __attribute__((always_inline)) void sums_ne(const double *a, int64_t r0, int64_t m,
                                                          uint64_t *o, uint64_t *raw, int ne,
                                                          run_dots_fn dots)
{
    uint64_t rs = 0;
    typedef unsigned __int128 u128;
    u128 S[CKP_NS] = {0};
    /* runs of VR rows, then a last run of L >= 16 rows: its dots, S shifted by C(L + d - 1, d)
     * (g_vc, a table: the binomials' divisions cost as much as a short run's dots); shorter
     * tails go through the recurrence below */
    while (m - r0 >= 16) {
        const int L = m - r0 < VR ? (int)(m - r0) : VR;
        uint64_t lo[CKP_NS], hi[CKP_NS];
        const uint64_t *vc = g_vc[L];
        dots(a + r0, L, lo, hi);
        rs += lo[0] + (hi[0] << 32); /* the weight-1 dot's halves: the plain sum */
        u128 n[CKP_NS];
        for (int e = 0; e < ne; e++) {
            u128 t = (u128)lo[e] + ((u128)hi[e] << 32);
            for (int d = 0; d <= e; d++) t += (u128)vc[d] * S[e - d];
            n[e] = t;
        }
        for (int e = 0; e < ne; e++) S[e] = ckp_red128(n[e]);
        r0 += L;
    }
    for (int64_t r = r0; r < m; r++) { /* the last rows: the recurrence (< 2^100) */
        uint64_t b;
        memcpy(&b, a + r, sizeof b);
        rs += b;
        S[0] += b;
        for (int e = 1; e < ne; e++) S[e] += S[e - 1];
    }
    for (int e = 0; e < ne; e++) o[e] = ckp_red128(S[e]);
    if (raw) *raw += rs;
}

static void sums_col(const double *a, int64_t r0, int64_t m, uint64_t o[CKP_NS], uint64_t *raw)
{
    pthread_once(&g_vw_once, vw_init);
    sums_ne(a, r0, m, o, raw, CKP_NS, g_dots);
}

/* S_0 and S_1 only (the same residues) */
static void sums2_col(const double *a, int64_t r0, int64_t m, uint64_t o[2])
{
    pthread_once(&g_vw_once, vw_init);
    sums_ne(a, r0, m, o, NULL, 2, g_dots2);
}

static void sums_runs(int64_t m, int64_t c0, int64_t c1, const double *A, int64_t lda,
                      uint64_t *out)
{
    for (int64_t c = c0; c < c1; c++) sums_col(A + c * lda, c + 1, m, out + CKP_NS * c, NULL);
}

void ckp_run_sums(const double *x, int64_t len, uint64_t out[CKP_NS], uint64_t *raw)
{
    sums_col(x, 0, len, out, raw);
}

void ckp_run_detect(const double *x, int64_t len, uint64_t out[2])
{
    sums2_col(x, 0, len, out);
}

typedef struct {
    int64_t m, nc, lda;
    const double *A;
    uint64_t *out;
} sums_args;

static void sums_part(void *p, int t, int nt)
{
    const sums_args *a = p;
    sums_runs(a->m, a->nc * t / nt, a->nc * (t + 1) / nt, a->A, a->lda, a->out);
}

void ckp_sums_host(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out)
{
    sums_args a = {m, nc, lda, A, out};
    ft_team_par_dyn(sums_part, &a, nc > 1 ? (long long)m * nc : 0);
}

static int run_sums(void *p)
{
    const sums_args *a = p;
    ckp_sums_host(a->m, a->nc, a->A, a->lda, a->out);
    return FT_SUCCESS;
}

static int h_sums(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                  uint64_t *out)
{
    if (nc <= 0) return FT_SUCCESS;
    sums_args a = {m, nc, lda, A, out};
    return ft_host_submit(q, run_sums, &a, sizeof a);
}

static void detect_part(void *p, int t, int nt)
{
    const sums_args *a = p;
    for (int64_t c = a->nc * t / nt; c < a->nc * (t + 1) / nt; c++)
        sums2_col(a->A + c * a->lda, c + 1, a->m, a->out + 2 * c);
}

void ckp_detect_host(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out)
{
    sums_args a = {m, nc, lda, A, out};
    ft_team_par_dyn(detect_part, &a, nc > 1 ? (long long)m * nc : 0);
}

static int run_detect(void *p)
{
    const sums_args *a = p;
    ckp_detect_host(a->m, a->nc, a->A, a->lda, a->out);
    return FT_SUCCESS;
}

static int h_detect(ft_queue_t *q, int64_t m, int64_t nc, const double *A, int64_t lda,
                    uint64_t *out)
{
    if (nc <= 0) return FT_SUCCESS;
    sums_args a = {m, nc, lda, A, out};
    return ft_host_submit(q, run_detect, &a, sizeof a);
}

static const ckp_kernels_t s_host = {"host", h_sums, h_detect};

#ifndef FTLA_HAVE_CUDA
const ckp_kernels_t *ckp_kernels_cuda(void) { return NULL; }
#endif

const ckp_kernels_t *ckp_kernels(const ft_backend_t *be)
{
    const ckp_kernels_t *k = NULL;
    if (be && be->kind == FT_DEVICE_CUDA) k = ckp_kernels_cuda();
    return k ? k : &s_host;
}

/* ---- locating ---- */

static uint64_t f_pow(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1) r = ckp_mul(r, a);
        a = ckp_mul(a, a);
        e >>= 1;
    }
    return r;
}

static uint64_t f_inv(uint64_t a) { return f_pow(a, CKP_P - 2); } /* a != 0 */

static uint64_t f_small(int64_t v) { return v >= 0 ? (uint64_t)v : CKP_P - (uint64_t)(-v); }

/* floor(sqrt(v)) for v < 2^100 */
static uint64_t isqrt128(unsigned __int128 v)
{
    uint64_t s = (uint64_t)sqrtl((long double)v);
    while ((unsigned __int128)s * s > v) s--;
    while ((unsigned __int128)(s + 1) * (s + 1) <= v) s++;
    return s;
}

int ckp_locate(const uint64_t *ref, const uint64_t *now, int64_t tmax, ckp_fix_t fix[2])
{
    uint64_t d[CKP_NS], P[CKP_NS];
    int any = 0;
    for (int e = 0; e < CKP_NS; e++) {
        d[e] = ckp_sub(ckp_red(now[e]), ckp_red(ref[e]));
        any |= d[e] != 0;
    }
    if (!any) return 0;
    /* power sums P_e = sum t^e delta_t from the binomial ones: t^2 = 2 C(t+1,2) - t,
     * t^3 = 6 C(t+2,3) - 3 t^2 - 2 t, t^4 = 24 C(t+3,4) - 6 t^3 - 11 t^2 - 6 t */
    P[0] = d[0];
    P[1] = d[1];
    P[2] = ckp_sub(ckp_mul(2, d[2]), P[1]);
    P[3] = ckp_sub(ckp_sub(ckp_mul(6, d[3]), ckp_mul(3, P[2])), ckp_mul(2, P[1]));
    P[4] = ckp_sub(ckp_sub(ckp_sub(ckp_mul(24, d[4]), ckp_mul(6, P[3])), ckp_mul(11, P[2])),
                   ckp_mul(6, P[1]));
    /* one change: P_e = t^e delta */
    if (P[0] != 0) {
        const uint64_t t = ckp_mul(P[1], f_inv(P[0]));
        if (t >= 1 && (int64_t)t <= tmax && t <= (uint64_t)INT64_MAX && ckp_mul(t, P[1]) == P[2] &&
            ckp_mul(t, P[2]) == P[3] && ckp_mul(t, P[3]) == P[4]) {
            fix[0].t = (int64_t)t;
            fix[0].delta = P[0];
            return 1;
        }
    }
    /* two changes at a != b: sigma = a + b, pi = a b solve sigma P_(e+1) - pi P_e = P_(e+2)
     * for e = 0, 1 (paper 004 eq. 10, twice); e = 2 confirms */
    const uint64_t D = ckp_sub(ckp_mul(P[1], P[1]), ckp_mul(P[0], P[2]));
    if (D == 0) return -1;
    const uint64_t Di = f_inv(D);
    const uint64_t sg = ckp_mul(ckp_sub(ckp_mul(P[1], P[2]), ckp_mul(P[0], P[3])), Di);
    const uint64_t pi = ckp_mul(ckp_sub(ckp_mul(P[2], P[2]), ckp_mul(P[1], P[3])), Di);
    if (ckp_sub(ckp_mul(sg, P[3]), ckp_mul(pi, P[2])) != P[4]) return -1;
    if (tmax <= 0 || sg > 2 * (uint64_t)tmax) return -1;
    const unsigned __int128 s2 = (unsigned __int128)sg * sg, p4 = (unsigned __int128)pi * 4;
    if (s2 <= p4) return -1;
    const unsigned __int128 disc = s2 - p4;
    const uint64_t s = isqrt128(disc);
    if ((unsigned __int128)s * s != disc || ((sg - s) & 1)) return -1;
    const uint64_t a = (sg - s) / 2, b = (sg + s) / 2;
    if (a < 1 || (int64_t)b > tmax || (unsigned __int128)a * b != pi) return -1;
    /* delta_b = (P1 - a P0) / (b - a), delta_a = P0 - delta_b */
    const uint64_t db = ckp_mul(ckp_sub(P[1], ckp_mul(a, P[0])), f_inv(f_small((int64_t)(b - a))));
    const uint64_t da = ckp_sub(P[0], db);
    if (da == 0 || db == 0) return -1;
    fix[0].t = (int64_t)a, fix[0].delta = da;
    fix[1].t = (int64_t)b, fix[1].delta = db;
    return 2;
}

double ckp_restore(double x, uint64_t delta)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    b = ckp_sub(ckp_elem(b), delta);
    double y;
    memcpy(&y, &b, sizeof y);
    return y;
}

uint64_t ckp_record(const uint64_t *sums, double tau)
{
    uint64_t b, h = 0;
    memcpy(&b, &tau, sizeof b);
    for (int e = 0; e < CKP_NS; e++) h += ft_digest_mix(sums[e], e);
    return h + ft_digest_mix(b, CKP_NS);
}
