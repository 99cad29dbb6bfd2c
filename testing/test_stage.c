/*
 * test_stage.c — the call layer's copies of the caller's host matrices to and from work memory
 * (core/call.c ft_stage_in / ft_stage_out): pageable data of at least a slot goes through the
 * pinned ring packed by the host team, the rest directly (call.h FT_STAGE_SLOT).
 *
 *   - each direction apart against the backend's plain copy: staged in then get_matrix, and
 *     set_matrix then staged out, bit for bit; the rows between m and ldh of the host buffer
 *     untouched by the copy out; ld > rows on both sides;
 *   - several pieces per copy and the ring wrapping round (more pieces than slots), a last
 *     narrow piece, pieces of consecutive copies in one call;
 *   - what goes directly: under a slot, a column over a slot, pinned host memory;
 *   - which path ran: the pieces the call counted (cuda: as above; the host backend: none).
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
    const int64_t per = (int64_t)(FT_STAGE_SLOT / sizeof(double)) / (m > 0 ? m : 1);
    const int expect = be->kind != FT_DEVICE_CPU && !pinned && per > 0 &&
                       (double)m * n * sizeof(double) >= (double)FT_STAGE_SLOT;
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
    const int64_t slot = (int64_t)(FT_STAGE_SLOT / sizeof(double));
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
    ft_call_end(&c, 0);
    return tu_finish();
}
