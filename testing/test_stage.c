/*
 * test_stage.c — the call layer's copies of the caller's host matrices to and from work memory
 * (core/call.c ft_stage_in / ft_stage_out): pageable data of at least a slot goes through the
 * pinned ring packed by the host team, the rest directly (call.h ft_stage_slot()).
 *
 *   - each direction apart against the backend's plain copy: staged in then get_matrix, and
 *     set_matrix then staged out, bit for bit; the rows between m and ldh of the host buffer
 *     untouched by the copy out; ld > rows on both sides;
 *   - several pieces per copy and the ring wrapping round (more pieces than slots), a last
 *     narrow piece, pieces of consecutive copies in one call;
 *   - what goes directly: under a slot, a column over a slot, pinned host memory;
 *   - which path ran: the pieces the call counted (cuda: as above; the host backend: none);
 *   - the copy out in parts (ft_stage_out_ok / _async / _wait, ft_dgeqrf's finished columns
 *     during the call): blocks of columns of several widths, a wait after some of them, the
 *     ring full before a wait, pieces still to unpack when a copy in starts (unpacked first),
 *     pinned host memory (directly); bit for bit, the rows below m untouched.
 *
 * Usage: test_stage cpu|cuda
 */
#include "core/call.h"
#include "testing_util.h"

#include <stdlib.h>
#include <string.h>

static const double SENT = -7.25;

static void one(ft_call_t *c, tu_rng_t *rng, int64_t m, int64_t n, int64_t ldh, int64_t ldd,
                int pinned)
{
    const ft_backend_t *be = c->be;
    const size_t hb = (size_t)ldh * (size_t)n;
    double *src = NULL, *dst = NULL, *dst2 = NULL;
    if (pinned) {
        TU_CHECK(be->alloc_host((void **)&src, hb * sizeof(double)) == 0, "pinned src");
        TU_CHECK(be->alloc_host((void **)&dst, hb * sizeof(double)) == 0, "pinned dst");
    } else {
        src = tu_malloc((int64_t)hb), dst = tu_malloc((int64_t)hb);
    }
    dst2 = tu_malloc((int64_t)hb);
    if (!src || !dst) return;
    tu_fill(rng, m, n, src, ldh);
    for (size_t i = 0; i < hb; i++) dst[i] = dst2[i] = SENT;
    int marks[2];
    ft_call_mark(c, marks);
    const int64_t k0 = c->stage_next;
    const int64_t per = (int64_t)(ft_stage_slot() / sizeof(double)) / (m > 0 ? m : 1);
    const int expect = be->kind != FT_DEVICE_CPU && !pinned && per > 0 &&
                       (double)m * n * sizeof(double) >= (double)ft_stage_slot();
    const int64_t pieces = expect ? (n + per - 1) / per : 0;
    /* staged in, plain out */
    double *d = NULL;
    int st = ft_stage_in(c, c->main, m, n, src, ldh, ldd, &d);
    if (!st) st = be->get_matrix(c->main, m, n, d, ldd, dst2, ldh);
    if (!st) st = be->sync(c->main);
    TU_CHECK(st == 0, "stage in %lld x %lld: %s", (long long)m, (long long)n, ft_strerror(st));
    int same = 1;
    for (int64_t j = 0; j < n && !st; j++)
        same = same && !memcmp(src + j * ldh, dst2 + j * ldh, (size_t)m * sizeof(double));
    TU_CHECK(!st && same, "stage in %lld x %lld (ldh %lld, ldd %lld, %s): differs", (long long)m,
             (long long)n, (long long)ldh, (long long)ldd, pinned ? "pinned" : "pageable");
    TU_CHECK(c->stage_next - k0 == pieces, "stage in %lld x %lld: %lld pieces, expected %lld",
             (long long)m, (long long)n, (long long)(c->stage_next - k0), (long long)pieces);
    /* plain in (another layout), staged out */
    const int64_t k1 = c->stage_next;
    if (!st) st = be->memset0(c->main, d, (size_t)ldd * (size_t)n * sizeof(double));
    if (!st) st = be->set_matrix(c->main, m, n, src, ldh, d, ldd);
    if (!st) st = ft_stage_out(c, c->main, m, n, d, ldd, dst, ldh);
    TU_CHECK(st == 0, "stage out %lld x %lld: %s", (long long)m, (long long)n, ft_strerror(st));
    same = 1;
    int pad = 1;
    for (int64_t j = 0; j < n && !st; j++) {
        same = same && !memcmp(src + j * ldh, dst + j * ldh, (size_t)m * sizeof(double));
        for (int64_t i = m; i < ldh; i++) pad = pad && dst[i + j * ldh] == SENT;
    }
    TU_CHECK(!st && same && pad, "stage out %lld x %lld (ldh %lld, ldd %lld, %s): values %d, "
             "rows below m untouched %d", (long long)m, (long long)n, (long long)ldh,
             (long long)ldd, pinned ? "pinned" : "pageable", same, pad);
    TU_CHECK(c->stage_next - k1 == pieces, "stage out %lld x %lld: %lld pieces, expected %lld",
             (long long)m, (long long)n, (long long)(c->stage_next - k1), (long long)pieces);
    ft_call_release(c, marks);
    if (pinned) {
        be->free_host(src);
        be->free_host(dst);
    } else {
        free(src), free(dst);
    }
    free(dst2);
}

/* m x n (ld ldh on the host, ldd in work memory) back in blocks of widths w[0], w[1], ...
 * (cyclic), waiting after every `every`-th block; `in_after`: a copy in of another matrix
 * between the last block and the wait. */
static void parts(ft_call_t *c, tu_rng_t *rng, int64_t m, int64_t n, int64_t ldh, int64_t ldd,
                  const int64_t *w, int nw, int every, int in_after, int pinned)
{
    const ft_backend_t *be = c->be;
    const size_t hb = (size_t)ldh * (size_t)n;
    double *src = tu_malloc((int64_t)hb), *dst = NULL;
    if (pinned) TU_CHECK(be->alloc_host((void **)&dst, hb * sizeof(double)) == 0, "pinned dst");
    else dst = tu_malloc((int64_t)hb);
    if (!src || !dst) return;
    tu_fill(rng, m, n, src, ldh);
    for (size_t i = 0; i < hb; i++) dst[i] = SENT;
    int marks[2];
    ft_call_mark(c, marks);
    const int ok = ft_stage_out_ok(c, m, n, dst);
    const int expect = be->kind != FT_DEVICE_CPU &&
                       (pinned || ((double)m * n * sizeof(double) >= (double)ft_stage_slot() &&
                                   (uint64_t)m <= ft_stage_slot() / sizeof(double)));
    TU_CHECK(ok == expect, "parts %lld x %lld (%s): ft_stage_out_ok %d, expected %d",
             (long long)m, (long long)n, pinned ? "pinned" : "pageable", ok, expect);
    double *d = NULL, *d2 = NULL;
    int st = ft_stage_in(c, c->main, m, n, NULL, ldh, ldd, &d);
    if (!st) st = be->set_matrix(c->main, m, n, src, ldh, d, ldd);
    if (!st) st = be->sync(c->main);
    if (ok) {
        int64_t j = 0;
        for (int b = 0; j < n && !st; b++) {
            const int64_t nc = w[b % nw] < n - j ? w[b % nw] : n - j;
            st = ft_stage_out_async(c, c->main, m, nc, d + j * ldd, ldd, dst + j * ldh, ldh);
            j += nc;
            if (!st && every > 0 && (b + 1) % every == 0) st = ft_stage_out_wait(c, c->main);
        }
        if (!st && in_after) st = ft_stage_in(c, c->main, m, n, src, ldh, ldd, &d2);
        if (!st) st = ft_stage_out_wait(c, c->main);
    } else if (!st) {
        st = ft_stage_out(c, c->main, m, n, d, ldd, dst, ldh);
    }
    TU_CHECK(st == 0, "parts %lld x %lld: %s", (long long)m, (long long)n, ft_strerror(st));
    TU_CHECK(c->stage_npend == 0, "parts %lld x %lld: %d pieces left", (long long)m, (long long)n,
             c->stage_npend);
    int same = 1, pad = 1;
    for (int64_t j = 0; j < n && !st; j++) {
        same = same && !memcmp(src + j * ldh, dst + j * ldh, (size_t)m * sizeof(double));
        for (int64_t i = m; i < ldh; i++) pad = pad && dst[i + j * ldh] == SENT;
    }
    TU_CHECK(!st && same && pad, "parts %lld x %lld (ldh %lld, widths %lld.., every %d, in %d, "
             "%s): values %d, rows below m untouched %d", (long long)m, (long long)n,
             (long long)ldh, (long long)w[0], every, in_after, pinned ? "pinned" : "pageable",
             same, pad);
    ft_call_release(c, marks);
    free(src);
    if (pinned) be->free_host(dst);
    else free(dst);
}

int main(int argc, char **argv)
{
    ft_device_t dev;
    if (argc < 2 || tu_parse_device(argv[1], &dev) || dev == FT_DEVICE_AUTO) {
        printf("usage: test_stage cpu|cuda\n");
        return 2;
    }
    if (dev == FT_DEVICE_CUDA && !ft_cuda_available()) tu_skip_no_cuda();
    ft_call_t c;
    int st = ft_call_begin(&c, NULL, "STAGE", NULL, 0);
    if (!st) st = ft_call_select(&c, 0.0, dev == FT_DEVICE_CUDA, 0);
    TU_CHECK(st == 0, "call: %s", ft_strerror(st));
    if (st) return tu_finish();
    tu_rng_t rng;
    tu_seed(&rng, 11);
    const int64_t slot = (int64_t)(ft_stage_slot() / sizeof(double));
    const int64_t cases[][4] = {
        {1000, 3000, 1003, 1001},           /* 24 MB: pieces of whole columns */
        {4099, 700, 4101, 4099},            /* 23 MB: the last piece narrow */
        {1024, 8 * 8 + 5, 1024, 1030},      /* under a slot: directly */
        {1024, 9 * 1024 + 5, 1025, 1024},   /* 75 MB: more pieces than slots, the ring wraps */
        {slot, 3, slot + 1, slot},          /* a column of exactly a slot: a column a piece */
        {slot + 1, 3, slot + 1, slot + 2},  /* a column over a slot: directly */
        {1, slot + 3, 1, 1},                /* one row */
        {0, 5, 1, 1},                       /* nothing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        one(&c, &rng, cases[i][0], cases[i][1], cases[i][2], cases[i][3], 0);
    one(&c, &rng, 1000, 3000, 1003, 1001, 1); /* pinned: directly */
    {
        const int64_t w256[] = {256}, wmix[] = {1, 300, 2047, 7, 5000}, wbig[] = {40000};
        /* 16384 rows: 128 columns a piece, two pieces a block of 256 */
        parts(&c, &rng, 16384, 1536, 16387, 16384, w256, 1, 1, 0, 0); /* the QR's pattern */
        parts(&c, &rng, 16384, 1536 + 77, 16384, 16390, w256, 1, 2, 0, 0);
        parts(&c, &rng, 3001, 20000, 3003, 3001, wmix, 5, 3, 0, 0);   /* odd widths */
        parts(&c, &rng, 1024, 40000, 1024, 1024, wbig, 1, 0, 0, 0);   /* the ring full, twice over */
        parts(&c, &rng, 16384, 1024, 16384, 16384, w256, 1, 0, 1, 0); /* a copy in unpacks first */
        parts(&c, &rng, 1000, 1000, 1000, 1000, w256, 1, 1, 0, 0);    /* under a slot: at the end */
        parts(&c, &rng, 4096, 1000, 4100, 4096, w256, 1, 1, 0, 1);    /* pinned: directly */
    }
    ft_call_end(&c, 0);
    return tu_finish();
}
