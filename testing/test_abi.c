/*
 * test_abi.c — a caller built against the first version of ftla.h (ftla.h, "ABI stability").
 *
 * The caller's structures are the first FT_REPORT_SIZE_V1 / FT_POLICY_SIZE_V1 bytes of today's;
 * it calls the _v functions with those sizes. Local copies of the v1 layouts (old_report_t,
 * old_policy_t) are checked against the header's offsets, then:
 *   - ft_dgemm_ex_v / ft_dgeqrf_ex_v with a v1 report inside a buffer whose bytes after
 *     FT_REPORT_SIZE_V1 hold a guard pattern: the guard is untouched and the v1 fields are right
 *     (status 0, backend cpu, checks > 0, nothing detected); the same with a heap block of
 *     exactly FT_REPORT_SIZE_V1 bytes (AddressSanitizer catches a write past it);
 *   - a report size smaller than v1 (v1 - 1, 1, 0): FT_ERR_INVALID_VALUE, nothing written into
 *     the report, C / A untouched;
 *   - ft_context_get_policy_v with FT_POLICY_SIZE_V1: the guard after it untouched, the bytes
 *     equal to the full ft_context_get_policy's; smaller sizes: FT_ERR_INVALID_VALUE, nothing
 *     written;
 *   - ft_context_set_policy_v with FT_POLICY_SIZE_V1 from an exactly v1-sized heap block: the v1
 *     fields take the new values, the fields after v1 (none today) keep theirs; smaller sizes:
 *     FT_ERR_INVALID_VALUE, policy unchanged; the v1-set policy is the one the next call uses;
 *   - ft_report_string_v with FT_REPORT_SIZE_V1 gives the line (empty for a smaller size);
 *   - ft_version returns the header's FTLA_VERSION_* (and accepts NULL pointers).
 *
 * Usage: test_abi cpu
 */
#define _POSIX_C_SOURCE 200809L
#include "test_dgeqrf_common.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 30.0
#define GUARD 0xA5
#define GUARD_BYTES 64

/* ---- the v1 layouts as an old caller compiled them ---------------------------------------- */

typedef struct {
    ft_device_t backend;
    int status;
    int64_t injected, detected, located, corrected, uncorrectable, checksum_errors, recomputed,
        unchecked, checks;
    double time_total, time_protect;
    int nevents;
    ft_event_t events[FT_REPORT_MAX_EVENTS];
} old_report_t;

typedef struct {
    int protect, tile;
    double tol;
    int backup_c, nb, verify_every, crossover, verbose, serial_encode;
} old_policy_t;

_Static_assert(sizeof(old_report_t) == FT_REPORT_SIZE_V1, "old_report_t is not v1 in size");
_Static_assert(offsetof(old_report_t, checks) == offsetof(ft_report_t, checks),
               "old_report_t.checks moved");
_Static_assert(offsetof(old_report_t, nevents) == offsetof(ft_report_t, nevents),
               "old_report_t.nevents moved");
_Static_assert(offsetof(old_report_t, events) == offsetof(ft_report_t, events),
               "old_report_t.events moved");
_Static_assert(sizeof(old_policy_t) == FT_POLICY_SIZE_V1, "old_policy_t is not v1 in size");
_Static_assert(offsetof(old_policy_t, crossover) == offsetof(ft_policy_t, crossover),
               "old_policy_t.crossover moved");
_Static_assert(offsetof(old_policy_t, serial_encode) == offsetof(ft_policy_t, serial_encode),
               "old_policy_t.serial_encode moved");
_Static_assert(sizeof(ft_report_t) >= FT_REPORT_SIZE_V1, "ft_report_t shrank");
_Static_assert(sizeof(ft_policy_t) >= FT_POLICY_SIZE_V1, "ft_policy_t shrank");

/* A v1 structure followed by guard bytes. */
typedef union {
    unsigned char bytes[FT_REPORT_SIZE_V1 + GUARD_BYTES];
    max_align_t align;
} report_buf_t;

typedef union {
    unsigned char bytes[FT_POLICY_SIZE_V1 + GUARD_BYTES];
    max_align_t align;
} policy_buf_t;

/* 1 when bytes [from, to) of p all hold GUARD. */
static int guard_ok(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != GUARD) return 0;
    return 1;
}

/* ---- a small product and its check ------------------------------------------------------ */

enum { M = 150, N = 130, K = 170 };
static double g_A[M * K], g_B[K * N], g_C0[M * N], g_Cref[M * N];

static void gemm_data(void)
{
    tu_rng_t rng;
    tu_seed(&rng, 2024);
    tu_fill(&rng, M, K, g_A, M);
    tu_fill(&rng, K, N, g_B, K);
    tu_fill(&rng, M, N, g_C0, M);
    memcpy(g_Cref, g_C0, sizeof g_C0);
    tu_ref_dgemm('N', 'N', M, N, K, 0.75, g_A, M, g_B, K, 0.5, g_Cref, M);
}

static int gemm_v(ft_context_t *ctx, double *C, void *report, size_t size)
{
    memcpy(C, g_C0, sizeof g_C0);
    return ft_dgemm_ex_v(ctx, 'N', 'N', M, N, K, 0.75, g_A, M, g_B, K, 0.5, C, M,
                         (ft_report_t *)report, size);
}

static double gemm_err(const double *C)
{
    return tu_gemm_ratio('N', 'N', M, N, K, 0.75, g_A, M, g_B, K, 0.5, g_C0, M, C, M, g_Cref, M);
}

static void check_old_report(const char *what, const old_report_t *r, int64_t want_checks_min)
{
    TU_CHECK(r->status == 0, "%s: report status %d", what, r->status);
    TU_CHECK(r->backend == FT_DEVICE_CPU, "%s: report backend %d", what, (int)r->backend);
    TU_CHECK(r->checks >= want_checks_min && r->unchecked == 0,
             "%s: report checks %lld unchecked %lld", what, (long long)r->checks,
             (long long)r->unchecked);
    TU_CHECK(r->injected == 0 && r->detected == 0 && r->located == 0 && r->corrected == 0 &&
                 r->uncorrectable == 0 && r->checksum_errors == 0 && r->recomputed == 0,
             "%s: report counts injected %lld detected %lld corrected %lld", what,
             (long long)r->injected, (long long)r->detected, (long long)r->corrected);
    TU_CHECK(r->nevents == 0, "%s: report nevents %d", what, r->nevents);
    TU_CHECK(r->time_total >= 0.0 && r->time_total < 3600.0 && r->time_protect >= 0.0 &&
                 r->time_protect <= r->time_total + 1e-3,
             "%s: report times %g %g", what, r->time_total, r->time_protect);
}

/* ---- reports ------------------------------------------------------------------------------ */

static void test_report_dgemm(ft_context_t *ctx)
{
    double *C = tu_malloc(M * N);
    old_report_t r;

    /* v1 report with guard bytes after it */
    report_buf_t buf;
    memset(buf.bytes, GUARD, sizeof buf.bytes);
    int st = gemm_v(ctx, C, buf.bytes, FT_REPORT_SIZE_V1);
    TU_CHECK(st == 0, "ft_dgemm_ex_v(size v1): %s", ft_strerror(st));
    TU_CHECK(guard_ok(buf.bytes, FT_REPORT_SIZE_V1, sizeof buf.bytes),
             "ft_dgemm_ex_v(size v1) wrote past FT_REPORT_SIZE_V1 = %zu", FT_REPORT_SIZE_V1);
    memcpy(&r, buf.bytes, sizeof r);
    check_old_report("ft_dgemm_ex_v(size v1)", &r, 1);
    double e = gemm_err(C);
    TU_CHECK(e < TOL, "ft_dgemm_ex_v(size v1): error ratio %.3e", e);

    /* the same report into a heap block of exactly v1 bytes (ASan: no write past it) */
    unsigned char *exact = malloc(FT_REPORT_SIZE_V1);
    if (!exact) {
        printf("FAILED: out of memory\n");
        exit(2);
    }
    memset(exact, GUARD, FT_REPORT_SIZE_V1);
    st = gemm_v(ctx, C, exact, FT_REPORT_SIZE_V1);
    TU_CHECK(st == 0, "ft_dgemm_ex_v(exact v1 block): %s", ft_strerror(st));
    memcpy(&r, exact, sizeof r);
    check_old_report("ft_dgemm_ex_v(exact v1 block)", &r, 1);

    /* ft_report_string_v on the v1 report */
    char line[512];
    memset(line, 'x', sizeof line);
    char *ret =
        ft_report_string_v((const ft_report_t *)exact, FT_REPORT_SIZE_V1, line, sizeof line);
    TU_CHECK(ret == line && memchr(line, '\0', sizeof line) != NULL,
             "ft_report_string_v(size v1) did not return a terminated buf");
    if (ret == line && memchr(line, '\0', sizeof line)) {
        TU_CHECK(strstr(line, "status=0") != NULL && strstr(line, "backend=cpu") != NULL,
                 "ft_report_string_v(size v1): \"%s\"", line);
    }
    memset(line, 'x', sizeof line);
    ret = ft_report_string_v((const ft_report_t *)exact, FT_REPORT_SIZE_V1 - 1, line, sizeof line);
    TU_CHECK(ret == line && line[0] == '\0', "ft_report_string_v(size v1 - 1) not empty");
    /* a short buffer: truncated and terminated */
    char small[8];
    memset(small, 'x', sizeof small);
    ft_report_string_v((const ft_report_t *)exact, FT_REPORT_SIZE_V1, small, sizeof small);
    TU_CHECK(memchr(small, '\0', sizeof small) != NULL,
             "ft_report_string_v into 8 bytes: not terminated");
    free(exact);

    /* report sizes below v1: rejected, nothing written, C untouched */
    const size_t bad[] = {FT_REPORT_SIZE_V1 - 1, offsetof(ft_report_t, events), 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(buf.bytes, GUARD, sizeof buf.bytes);
        memcpy(C, g_C0, sizeof g_C0);
        st = ft_dgemm_ex_v(ctx, 'N', 'N', M, N, K, 0.75, g_A, M, g_B, K, 0.5, C, M,
                           (ft_report_t *)buf.bytes, bad[i]);
        TU_CHECK(st == FT_ERR_INVALID_VALUE, "ft_dgemm_ex_v(report size %zu) returned %d", bad[i],
                 st);
        TU_CHECK(guard_ok(buf.bytes, 0, sizeof buf.bytes),
                 "ft_dgemm_ex_v(report size %zu) wrote into the report", bad[i]);
        TU_CHECK(memcmp(C, g_C0, sizeof g_C0) == 0, "ft_dgemm_ex_v(report size %zu) changed C",
                 bad[i]);
    }
    /* no report at all: the size is not looked at */
    st = gemm_v(ctx, C, NULL, 0);
    TU_CHECK(st == 0 && gemm_err(C) < TOL, "ft_dgemm_ex_v(NULL report, size 0): %s",
             ft_strerror(st));
    free(C);
}

static void test_report_dgeqrf(ft_context_t *ctx)
{
    const int m = 300, n = 200, lwork = 64 * n;
    tu_rng_t rng;
    tu_seed(&rng, 31);
    double *A = tu_malloc(m * n), *AF = tu_malloc(m * n), *tau = tu_malloc(n);
    double *work = tu_malloc(lwork);
    tu_fill(&rng, m, n, A, m);
    memcpy(AF, A, sizeof(double) * m * n);
    report_buf_t buf;
    memset(buf.bytes, GUARD, sizeof buf.bytes);
    ft_int info = -99;
    int st = ft_dgeqrf_ex_v(ctx, m, n, AF, m, tau, work, lwork, &info, (ft_report_t *)buf.bytes,
                            FT_REPORT_SIZE_V1);
    TU_CHECK(st == 0 && info == 0, "ft_dgeqrf_ex_v(size v1): status %d info %d", st, (int)info);
    TU_CHECK(guard_ok(buf.bytes, FT_REPORT_SIZE_V1, sizeof buf.bytes),
             "ft_dgeqrf_ex_v(size v1) wrote past FT_REPORT_SIZE_V1");
    old_report_t r;
    memcpy(&r, buf.bytes, sizeof r);
    check_old_report("ft_dgeqrf_ex_v(size v1)", &r, 1);
    double res[2];
    qr_ratios(m, n, A, m, AF, m, tau, res);
    TU_CHECK(res[0] < TOL && res[1] < TOL, "ft_dgeqrf_ex_v(size v1): ratios %.3g %.3g", res[0],
             res[1]);

    /* below v1: rejected, nothing written, A untouched */
    memcpy(AF, A, sizeof(double) * m * n);
    memset(buf.bytes, GUARD, sizeof buf.bytes);
    info = -99;
    st = ft_dgeqrf_ex_v(ctx, m, n, AF, m, tau, work, lwork, &info, (ft_report_t *)buf.bytes,
                        FT_REPORT_SIZE_V1 - 1);
    TU_CHECK(st == FT_ERR_INVALID_VALUE && info == FT_ERR_INVALID_VALUE,
             "ft_dgeqrf_ex_v(size v1 - 1): status %d info %d", st, (int)info);
    TU_CHECK(guard_ok(buf.bytes, 0, sizeof buf.bytes),
             "ft_dgeqrf_ex_v(size v1 - 1) wrote into the report");
    TU_CHECK(memcmp(AF, A, sizeof(double) * m * n) == 0, "ft_dgeqrf_ex_v(size v1 - 1) changed A");
    free(A);
    free(AF);
    free(tau);
    free(work);
}

/* ---- policy --------------------------------------------------------------------------------- */

static void test_policy(ft_context_t *ctx)
{
    /* a non-default policy to read back */
    ft_policy_t full;
    int st = ft_context_get_policy(ctx, &full);
    TU_CHECK(st == 0, "ft_context_get_policy: %s", ft_strerror(st));
    full.tile = 48;
    full.tol = 3.5;
    full.nb = 24;
    full.verify_every = 2;
    full.crossover = -1;
    full.backup_c = 1;
    st = ft_context_set_policy(ctx, &full);
    TU_CHECK(st == 0, "ft_context_set_policy: %s", ft_strerror(st));
    st = ft_context_get_policy(ctx, &full);
    TU_CHECK(st == 0, "ft_context_get_policy: %s", ft_strerror(st));

    /* get, v1 size: the guard untouched, the bytes those of the full get */
    policy_buf_t buf;
    memset(buf.bytes, GUARD, sizeof buf.bytes);
    st = ft_context_get_policy_v(ctx, (ft_policy_t *)buf.bytes, FT_POLICY_SIZE_V1);
    TU_CHECK(st == 0, "ft_context_get_policy_v(size v1): %s", ft_strerror(st));
    TU_CHECK(guard_ok(buf.bytes, FT_POLICY_SIZE_V1, sizeof buf.bytes),
             "ft_context_get_policy_v(size v1) wrote past FT_POLICY_SIZE_V1 = %zu",
             FT_POLICY_SIZE_V1);
    old_policy_t op;
    memcpy(&op, buf.bytes, sizeof op);
    TU_CHECK(op.protect == full.protect && op.tile == full.tile && op.tol == full.tol &&
                 op.backup_c == full.backup_c && op.nb == full.nb &&
                 op.verify_every == full.verify_every && op.crossover == full.crossover &&
                 op.verbose == full.verbose && op.serial_encode == full.serial_encode,
             "ft_context_get_policy_v(size v1): fields differ from the full get (tile %d nb %d tol "
             "%g crossover %d)",
             op.tile, op.nb, op.tol, op.crossover);

    /* get, sizes below v1: rejected, nothing written */
    const size_t bad[] = {FT_POLICY_SIZE_V1 - 1, sizeof(int), 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(buf.bytes, GUARD, sizeof buf.bytes);
        st = ft_context_get_policy_v(ctx, (ft_policy_t *)buf.bytes, bad[i]);
        TU_CHECK(st == FT_ERR_INVALID_VALUE, "ft_context_get_policy_v(size %zu) returned %d",
                 bad[i], st);
        TU_CHECK(guard_ok(buf.bytes, 0, sizeof buf.bytes),
                 "ft_context_get_policy_v(size %zu) wrote into the policy", bad[i]);
    }

    /* set, v1 size, from a heap block of exactly v1 bytes (ASan: no read past it) */
    unsigned char *exact = malloc(FT_POLICY_SIZE_V1);
    if (!exact) {
        printf("FAILED: out of memory\n");
        exit(2);
    }
    old_policy_t np = op;
    np.tile = 96;
    np.tol = 5.0;
    np.nb = 16;
    np.verify_every = 1;
    np.backup_c = 0;
    np.verbose = 0;
    memcpy(exact, &np, sizeof np);
    ft_policy_t before;
    ft_context_get_policy(ctx, &before);
    st = ft_context_set_policy_v(ctx, (const ft_policy_t *)exact, FT_POLICY_SIZE_V1);
    TU_CHECK(st == 0, "ft_context_set_policy_v(size v1): %s", ft_strerror(st));
    ft_policy_t after;
    memset(&after, 0, sizeof after);
    ft_context_get_policy(ctx, &after);
    TU_CHECK(after.tile == 96 && after.tol == 5.0 && after.nb == 16 && after.verify_every == 1 &&
                 after.backup_c == 0 && after.crossover == np.crossover &&
                 after.protect == np.protect && after.serial_encode == np.serial_encode,
             "ft_context_set_policy_v(size v1): v1 fields not taken (tile %d tol %g nb %d "
             "verify_every %d backup_c %d)",
             after.tile, after.tol, after.nb, after.verify_every, after.backup_c);
    /* the fields after v1 (none in this ftla.h: then the range is empty) keep their values */
    TU_CHECK(memcmp((const unsigned char *)&after + FT_POLICY_SIZE_V1,
                    (const unsigned char *)&before + FT_POLICY_SIZE_V1,
                    sizeof(ft_policy_t) - FT_POLICY_SIZE_V1) == 0,
             "ft_context_set_policy_v(size v1) changed the fields after v1");

    /* set, sizes below v1: rejected, policy unchanged; an invalid v1 policy likewise */
    memcpy(exact, &np, sizeof np);
    ((old_policy_t *)exact)->tile = 200;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st = ft_context_set_policy_v(ctx, (const ft_policy_t *)exact, bad[i]);
        TU_CHECK(st == FT_ERR_INVALID_VALUE, "ft_context_set_policy_v(size %zu) returned %d",
                 bad[i], st);
        ft_policy_t cur;
        ft_context_get_policy(ctx, &cur);
        TU_CHECK(memcmp(&cur, &after, sizeof cur) == 0,
                 "ft_context_set_policy_v(size %zu) changed the policy (tile %d)", bad[i],
                 cur.tile);
    }
    ((old_policy_t *)exact)->tile = -5;
    st = ft_context_set_policy_v(ctx, (const ft_policy_t *)exact, FT_POLICY_SIZE_V1);
    TU_CHECK(st == FT_ERR_INVALID_VALUE, "ft_context_set_policy_v(v1, tile -5) returned %d", st);
    ft_policy_t cur;
    ft_context_get_policy(ctx, &cur);
    TU_CHECK(memcmp(&cur, &after, sizeof cur) == 0,
             "ft_context_set_policy_v(v1, invalid) changed the policy");
    free(exact);

    /* the v1-set policy is the one a call uses: protection off through a v1 set -> no checks */
    memcpy(&np, &cur, sizeof np);
    np.protect = 0;
    st = ft_context_set_policy_v(ctx, (const ft_policy_t *)&np, FT_POLICY_SIZE_V1);
    TU_CHECK(st == 0, "ft_context_set_policy_v(protect 0): %s", ft_strerror(st));
    double *C = tu_malloc(M * N);
    old_report_t r;
    memset(&r, GUARD, sizeof r);
    st = gemm_v(ctx, C, &r, sizeof r);
    TU_CHECK(st == 0 && r.status == 0 && r.checks == 0 && gemm_err(C) < TOL,
             "v1 policy protect 0: status %d checks %lld", st, (long long)r.checks);
    np.protect = 1;
    st = ft_context_set_policy_v(ctx, (const ft_policy_t *)&np, FT_POLICY_SIZE_V1);
    TU_CHECK(st == 0, "ft_context_set_policy_v(protect 1): %s", ft_strerror(st));
    memset(&r, GUARD, sizeof r);
    st = gemm_v(ctx, C, &r, sizeof r);
    TU_CHECK(st == 0 && r.status == 0 && r.checks > 0 && gemm_err(C) < TOL,
             "v1 policy protect 1: status %d checks %lld", st, (long long)r.checks);
    free(C);
}

/* A caller built against a newer header (structures with fields this library lacks): those
 * fields read as 0; a policy setting one of them non-zero is refused, and nothing changes. */
static void test_newer_caller(ft_context_t *ctx)
{
    enum { EXTRA = 24 };
    union {
        unsigned char bytes[sizeof(ft_policy_t) + EXTRA];
        ft_policy_t p;
    } big;
    memset(big.bytes, 0xA5, sizeof big.bytes);
    int st = ft_context_get_policy_v(ctx, &big.p, sizeof big.bytes);
    TU_CHECK(st == 0, "get_policy_v(newer size): %d", st);
    int zero = 1;
    for (size_t b = sizeof(ft_policy_t); b < sizeof big.bytes; b++) zero &= big.bytes[b] == 0;
    TU_CHECK(zero, "get_policy_v(newer size): unknown fields not zeroed");
    big.p.tile = 192;
    st = ft_context_set_policy_v(ctx, &big.p, sizeof big.bytes);
    ft_policy_t now;
    ft_context_get_policy(ctx, &now);
    TU_CHECK(st == 0 && now.tile == 192, "set_policy_v(newer size, zero extras): %d tile %d", st,
             now.tile);
    big.bytes[sizeof(ft_policy_t) + 3] = 1;
    big.p.tile = 320;
    st = ft_context_set_policy_v(ctx, &big.p, sizeof big.bytes);
    ft_context_get_policy(ctx, &now);
    TU_CHECK(st == FT_ERR_INVALID_VALUE && now.tile == 192,
             "set_policy_v(newer size, non-zero extra): %d tile %d", st, now.tile);
    union {
        unsigned char bytes[sizeof(ft_report_t) + EXTRA];
        ft_report_t r;
    } rep;
    memset(rep.bytes, 0xA5, sizeof rep.bytes);
    double C[M * N];
    memcpy(C, g_C0, sizeof C);
    st = gemm_v(ctx, C, &rep.r, sizeof rep.bytes);
    zero = 1;
    for (size_t b = sizeof(ft_report_t); b < sizeof rep.bytes; b++) zero &= rep.bytes[b] == 0;
    TU_CHECK(st == 0 && rep.r.status == 0 && zero, "dgemm_ex_v(newer size): %d, extras zero %d",
             st, zero);
    now.tile = 0;
    ft_context_set_policy(ctx, &now);
}

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "cpu") != 0) {
        printf("usage: %s cpu\n", argv[0]);
        return 2;
    }
    int major = -1, minor = -1, patch = -1;
    ft_version(&major, &minor, &patch);
    TU_CHECK(major == FTLA_VERSION_MAJOR && minor == FTLA_VERSION_MINOR &&
                 patch == FTLA_VERSION_PATCH,
             "ft_version %d.%d.%d, header %d.%d.%d", major, minor, patch, FTLA_VERSION_MAJOR,
             FTLA_VERSION_MINOR, FTLA_VERSION_PATCH);
    major = -1;
    ft_version(&major, NULL, NULL);
    TU_CHECK(major == FTLA_VERSION_MAJOR, "ft_version(&major, NULL, NULL): %d", major);
    ft_version(NULL, NULL, NULL);

    gemm_data();
    ft_context_t *ctx = NULL;
    int st = ft_context_create(&ctx, FT_DEVICE_CPU);
    TU_CHECK(st == 0 && ctx, "ft_context_create(cpu): %s", ft_strerror(st));
    if (!ctx) return tu_finish();
    test_report_dgemm(ctx);
    test_report_dgeqrf(ctx);
    test_policy(ctx);
    test_newer_caller(ctx);
    ft_context_destroy(ctx);
    return tu_finish();
}
