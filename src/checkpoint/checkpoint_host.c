/*
 * checkpoint_host.c — the checkpoint of Q on the host: the sums (running sums, additions only),
 * the host kernel table, and locating / undoing changes (checkpoint.h).
 */
#include "backend/host/host_queue.h"
#include "checkpoint/checkpoint.h"
#include "checkpoint/ckp_field.h"
#include "core/team.h"

#include <math.h>
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

/* x mod p for x < 2^128 (2^64 = 59 mod p) */
static uint64_t red128(unsigned __int128 x)
{
    x = (x >> 64) * 59 + (uint64_t)x; /* < 2^70 */
    x = (x >> 64) * 59 + (uint64_t)x; /* < 2^64 + 2^12 */
    x = (x >> 64) * 59 + (uint64_t)x; /* < 2^64 */
    return ckp_red((uint64_t)x);
}

/* ckp_sums_ref's sums with the reductions deferred: 128-bit running sums, exact; reduced every
 * CKP_RUN rows (after a reduction s_e < 2^64, and CKP_RUN rows later s_e < (CKP_RUN + 1)^(e+1)
 * 2^64 < 2^115) and at the end. The same residues as ckp_sums_ref, at about a third of its
 * work per element. */
enum { CKP_RUN = 1024 };
static void sums_fast(int64_t m, int64_t c0, int64_t c1, const double *A, int64_t lda,
                      uint64_t *out)
{
    typedef unsigned __int128 u128;
    for (int64_t c = c0; c < c1; c++) {
        const double *a = A + c * lda;
        u128 s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        for (int64_t r0 = c + 1; r0 < m; r0 += CKP_RUN) {
            const int64_t r1 = r0 + CKP_RUN < m ? r0 + CKP_RUN : m;
            for (int64_t r = r0; r < r1; r++) {
                uint64_t b;
                memcpy(&b, a + r, sizeof b);
                s0 += b;
                s1 += s0;
                s2 += s1;
                s3 += s2;
                s4 += s3;
            }
            s0 = red128(s0), s1 = red128(s1), s2 = red128(s2), s3 = red128(s3);
            s4 = red128(s4);
        }
        uint64_t *o = out + CKP_NS * c;
        o[0] = (uint64_t)s0, o[1] = (uint64_t)s1, o[2] = (uint64_t)s2, o[3] = (uint64_t)s3;
        o[4] = (uint64_t)s4;
    }
}

typedef struct {
    int64_t m, nc, lda;
    const double *A;
    uint64_t *out;
} sums_args;

static void sums_part(void *p, int t, int nt)
{
    const sums_args *a = p;
    sums_fast(a->m, a->nc * t / nt, a->nc * (t + 1) / nt, a->A, a->lda, a->out);
}

void ckp_sums_host(int64_t m, int64_t nc, const double *A, int64_t lda, uint64_t *out)
{
    sums_args a = {m, nc, lda, A, out};
    ft_team_par(sums_part, &a, nc > 1 ? (long long)m * nc : 0);
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

static const ckp_kernels_t s_host = {"host", h_sums};

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
