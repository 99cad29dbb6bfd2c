/*
 * qr_model.c — the performance model of ft_dgeqrf (qr_model.h; docs/qr.md "Performance
 * model"; paper 001 Ch. 3-5: a step of the blocked loop costs its panel and its update, and
 * with lookahead the panel of step p + 1 overlaps the update of step p).
 *
 * Calibration: short measurements on the call's backend — the panel in work memory and on the
 * host at two heights per block size, the block reflector at two sizes per rank, the checksum
 * columns' update, copies, a pass over work memory, and how much a panel beside an update
 * slows the pair. Each is the fastest of three timed runs after one untimed run.
 */
#define _POSIX_C_SOURCE 200809L
#include "qr/qr_model.h"
#include "qr/qr_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const int64_t NBS[QR_MODEL_NNB] = {32, 64, 128, 256};
#define QR_MODEL_VERSION 5

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static qr_model_t g_mem[FT_NBACKENDS];
static int g_have[FT_NBACKENDS];

int qr_model_enabled(void)
{
    const char *e = getenv("FTLA_MODEL");
    return !(e && (!strcmp(e, "off") || !strcmp(e, "0")));
}

/* ---- the cache file ------------------------------------------------------------------------ */

static void cache_path(const char *device, char *out, size_t len)
{
    out[0] = 0;
    const char *e = getenv("FTLA_MODEL_CACHE");
    char dir[200];
    if (e && !strcmp(e, "off")) return;
    if (e && *e) snprintf(dir, sizeof dir, "%s", e);
    else if ((e = getenv("XDG_CACHE_HOME")) && *e) snprintf(dir, sizeof dir, "%s/ftla", e);
    else if ((e = getenv("HOME")) && *e) snprintf(dir, sizeof dir, "%s/.cache/ftla", e);
    else return;
    char name[96];
    size_t j = 0;
    for (const char *s = device; *s && j + 1 < sizeof name; s++)
        name[j++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                    (*s >= '0' && *s <= '9') || *s == '.' ? *s : '_';
    name[j] = 0;
    if (snprintf(out, len, "%.*s/qr-model-v%d-%.64s.txt", 150, dir, QR_MODEL_VERSION, name) >=
        (int)len)
        out[0] = 0; /* too long a path: memory only */
}

/* The fields, in file order. */
#define FIELDS(X)                                                                                  \
    X(gp_m, QR_MODEL_NH) X(gp_t[0], QR_MODEL_NNB) X(gp_t[1], QR_MODEL_NNB)                        \
    X(gp_t[2], QR_MODEL_NNB) X(cp_m, QR_MODEL_NH) X(cp_t[0], QR_MODEL_NNB)                        \
    X(cp_t[1], QR_MODEL_NNB) X(cp_t[2], QR_MODEL_NNB) X(up_a, QR_MODEL_NNB)                       \
    X(up_r, QR_MODEL_NNB) X(cs_a, QR_MODEL_NNB) X(cs_b, QR_MODEL_NNB)

static int load(const char *path, const char *device, qr_model_t *M)
{
    FILE *f = path[0] ? fopen(path, "r") : NULL;
    if (!f) return 0;
    char line[256];
    int ok = fgets(line, sizeof line, f) != NULL;
    line[strcspn(line, "\n")] = 0;
    ok = ok && !strncmp(line, "device ", 7) && !strcmp(line + 7, device);
#define RD(name, cnt)                                                                              \
    for (int i = 0; ok && i < cnt; i++) ok = fscanf(f, "%lf", &M->name[i]) == 1;
    FIELDS(RD)
#undef RD
    ok = ok && fscanf(f, "%lf %lf %lf %lf %lf %lf %lf", &M->bw_h2d, &M->bw_d2h, &M->lat,
                      &M->bw_dev, &M->contention, &M->launch, &M->bw_host) == 7;
    fclose(f);
    for (int i = 0; ok && i < QR_MODEL_NNB; i++)
        ok = M->up_r[i] > 0 && isfinite(M->gp_t[2][i]) && isfinite(M->cp_t[2][i]);
    for (int h = 1; ok && h < QR_MODEL_NH; h++)
        ok = M->gp_m[h] > M->gp_m[h - 1] && M->cp_m[h] > M->cp_m[h - 1];
    ok = ok && M->bw_host > 0 && M->launch >= 0;
    ok = ok && M->bw_h2d > 0 && M->bw_d2h > 0 && M->bw_dev > 0;
    if (ok) snprintf(M->device, sizeof M->device, "%s", device);
    return ok;
}

static void save(const char *path, const qr_model_t *M)
{
    if (!path[0]) return;
    char dir[256];
    snprintf(dir, sizeof dir, "%s", path);
    char *sl = strrchr(dir, '/');
    if (!sl) return;
    *sl = 0;
    /* the directory and its parent (~/.cache may not exist yet); failures leave no file */
    char *p2 = strrchr(dir, '/');
    if (p2 && p2 != dir) {
        *p2 = 0;
        mkdir(dir, 0755);
        *p2 = '/';
    }
    mkdir(dir, 0755);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fprintf(f, "device %s\n", M->device);
#define WR(name, cnt)                                                                              \
    for (int i = 0; i < cnt; i++) fprintf(f, "%.9g%c", M->name[i], i + 1 < cnt ? ' ' : '\n');
    FIELDS(WR)
#undef WR
    fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", M->bw_h2d, M->bw_d2h, M->lat, M->bw_dev,
            M->contention, M->launch, M->bw_host);
    if (fclose(f) == 0) rename(tmp, path); /* whole files only, for concurrent processes */
    else remove(tmp);
}

/* ---- calibration --------------------------------------------------------------------------- */

typedef struct {
    ft_call_t *c;
    const ft_backend_t *be;
    ft_queue_t *q, *q2;
    int64_t m2, cm2;
    double *P0, *P, *V, *T, *tau, *C, *W, *CS;
    void *lw;
    size_t lwb;
    double *hP, *hP0, *hw;
} cal_t;

/* what: 0 device panel, 1 host panel, 2 update (n columns), 3 checksum update, 4 copy in,
 * 5 copy out, 6 pass over work memory (n columns of m) */
static int run_op(cal_t *k, ft_queue_t *q, int what, int64_t m, int64_t n, int64_t nb)
{
    const ft_backend_t *be = k->be;
    switch (what) {
    case 0:
        return qr_dev_panel(be, q, m, nb, 0, k->P, k->m2, k->tau, k->V, k->m2, k->T, nb, k->W,
                            nb, k->lw, k->lwb, NULL, NULL);
    case 1: {
        /* hw: T (nb x nb <= 256^2), tau (256), the work (the rest of 64 x 256 + 256^2) */
        return ft_lapack_panel_factor(m, nb, k->hP, k->cm2, k->hw + 256 * 256, k->hw, nb,
                                      k->hw + 256 * 256 + 256, 64 * 256 - 256);
    }
    case 2: return qr_larfb_v(be, q, m, n, nb, k->V, k->m2, k->T, nb, k->C, m, k->W, nb);
    case 3:
        return qr_larfb_v(be, q, m, QR_NCS * 8, nb, k->V, k->m2, k->T, nb, k->CS, k->m2, k->W, nb);
    case 4: return be->set_matrix(q, m, n, k->hP0, m, k->P, m);
    case 5: return be->get_matrix(q, m, n, k->P, m, k->hP0, m);
    default: return be->copy_matrix(q, m, n, k->C, m, k->C + m * n, m);
    }
}

/* Restore what op `what` overwrites (untimed). */
static int reset(cal_t *k, int what, int64_t m, int64_t nb)
{
    if (what == 0) {
        FT_CHECK(k->be->copy_matrix(k->q, k->m2, 256, k->P0, k->m2, k->P, k->m2));
        return k->be->sync(k->q);
    }
    if (what == 1)
        for (int64_t j = 0; j < nb; j++)
            memcpy(k->hP + j * k->cm2, k->hP0 + j * k->cm2, (size_t)m * sizeof(double));
    return FT_SUCCESS;
}

/* The fastest of three timed runs after one untimed. */
static int timeit(cal_t *k, int what, int64_t m, int64_t n, int64_t nb, double *t)
{
    *t = 1e30;
    for (int r = 0; r < 4; r++) {
        FT_CHECK(reset(k, what, m, nb));
        const double t0 = ft_wtime();
        FT_CHECK(run_op(k, k->q, what, m, n, nb));
        FT_CHECK(k->be->sync(k->q));
        const double dt = ft_wtime() - t0;
        if (r > 0 && dt < *t) *t = dt;
    }
    return FT_SUCCESS;
}

/* a + b x through two points (b >= 0, a >= 0) */
static void line2(double x1, double t1, double x2, double t2, double *a, double *b)
{
    *b = t2 > t1 ? (t2 - t1) / (x2 - x1) : 0.0;
    *a = t1 - *b * x1;
    if (*a < 0) *a = 0, *b = t2 / x2;
}

typedef struct {
    double t[QR_MODEL_DT_N];
} dev_times_t;
typedef struct {
    int64_t gm[QR_MODEL_NH], um1, un1, um2, un2, m1, m2;
} dev_sizes_t;

/* One pass over the device's measurements (those with redo[i] set; all with redo NULL), each
 * entry kept as the fastest seen. A slow episode (its cause not found) can last through the
 * four runs of an entry: on a fresh H200 one calibration took nb 128's panel at 2048 rows
 * 2.7x slow and nb 256's update rate at 0.58x, chose nb 128 at n = 32768 and ran 14 % slower
 * (bench/NOTES.md, issue 10 session 40). */
static int dev_pass(cal_t *k, const dev_sizes_t *Z, dev_times_t *D, const int *redo)
{
    for (int j = 0; j < QR_MODEL_NNB; j++) {
        const int64_t nb = NBS[j];
        double t;
        for (int h = 0; h < QR_MODEL_NH; h++)
            if (!redo || redo[QR_MODEL_DT_GP(h, j)]) {
                FT_CHECK(timeit(k, 0, Z->gm[h], 0, nb, &t));
                if (t < D->t[QR_MODEL_DT_GP(h, j)]) D->t[QR_MODEL_DT_GP(h, j)] = t;
            }
        const struct {
            int i, what;
            int64_t m, n;
        } u[4] = {{QR_MODEL_DT_UP1(j), 2, Z->um1, Z->un1},
                  {QR_MODEL_DT_UP2(j), 2, Z->um2, Z->un2},
                  {QR_MODEL_DT_CS1(j), 3, Z->m1, 0},
                  {QR_MODEL_DT_CS2(j), 3, Z->m2, 0}};
        for (int e = 0; e < 4; e++)
            if (!redo || redo[u[e].i]) {
                FT_CHECK(timeit(k, u[e].what, u[e].m, u[e].n, nb, &t));
                if (t < D->t[u[e].i]) D->t[u[e].i] = t;
            }
    }
    return FT_SUCCESS;
}

int qr_model_suspect(const double *t, int *redo)
{
    int n = 0;
    for (int i = 0; i < QR_MODEL_DT_N; i++) redo[i] = 0;
#define PAIR(lo, hi, f)                                                                            \
    if (t[lo] * (f) > t[hi]) redo[lo] = redo[hi] = 1, n++;
    for (int j = 0; j < QR_MODEL_NNB; j++) {
        for (int h = 0; h < QR_MODEL_NH; h++) {
            /* twice the columns: twice the flops, 1.8-2.1x the time measured on the H100 and
             * the H200; beyond 2.6x one of the two is suspect */
            if (j + 1 < QR_MODEL_NNB) {
                PAIR(QR_MODEL_DT_GP(h, j), QR_MODEL_DT_GP(h, j + 1), 1.0)
                PAIR(QR_MODEL_DT_GP(h, j + 1), QR_MODEL_DT_GP(h, j), 1.0 / 2.6)
            }
            if (h + 1 < QR_MODEL_NH) PAIR(QR_MODEL_DT_GP(h, j), QR_MODEL_DT_GP(h + 1, j), 1.0)
        }
        /* twice the rank: twice the flops at a rate that grows with the rank (1.6x the time
         * from 128 to 256 on the H200): more than 2.2x, or less than 1x, is suspect */
        if (j + 1 < QR_MODEL_NNB) {
            PAIR(QR_MODEL_DT_UP2(j), QR_MODEL_DT_UP2(j + 1), 1.0)
            PAIR(QR_MODEL_DT_UP2(j + 1), QR_MODEL_DT_UP2(j), 1.0 / 2.2)
        }
        PAIR(QR_MODEL_DT_UP1(j), QR_MODEL_DT_UP2(j), 1.0)
        PAIR(QR_MODEL_DT_CS1(j), QR_MODEL_DT_CS2(j), 1.0)
    }
#undef PAIR
    return n;
}

static int calibrate(ft_call_t *c, qr_model_t *M)
{
    cal_t k = {.c = c, .be = c->be, .q = c->main};
    const ft_backend_t *be = c->be;
    const int host = be->kind == FT_DEVICE_CPU;
    /* device panels up to 16384 rows, taller ones by the last piece extended: measured on the
     * H100, a piece to 32768 predicted the square sizes 8-16 % short, these heights within
     * 8 % (bench/NOTES.md "Issue 10, session 2") */
    const int64_t gm[QR_MODEL_NH] = {host ? 256 : 2048, host ? 1024 : 9216, host ? 2048 : 16384};
    const int64_t cm[QR_MODEL_NH] = {host ? 256 : 1024, host ? 1024 : 4096, host ? 2048 : 8192};
    const int64_t m1 = gm[0], m2 = gm[QR_MODEL_NH - 1], cm2 = cm[QR_MODEL_NH - 1];
    const int64_t um1 = host ? 256 : 2048, un1 = um1, um2 = host ? 1024 : 8192,
                  un2 = host ? 1024 : 4096;
    k.m2 = m2, k.cm2 = cm2;
    FT_CHECK(ft_call_queue(c, &k.q2));
    FT_CHECK(be->lapack_work(k.q, m2, 256, &k.lwb));
    FT_CHECK(ft_call_work(c, k.lwb, &k.lw));
    FT_CHECK(ft_call_work_doubles(c, 3 * m2 * 256 + 256 * 256 + 256, &k.P0));
    k.P = k.P0 + m2 * 256, k.V = k.P + m2 * 256, k.T = k.V + m2 * 256, k.tau = k.T + 256 * 256;
    FT_CHECK(ft_call_work_doubles(c, 2 * um2 * un2 + 256 * un2 + m2 * QR_NCS * 8, &k.C));
    k.W = k.C + 2 * um2 * un2, k.CS = k.W + 256 * un2;
    FT_CHECK(ft_call_pinned_doubles(c, 2 * cm2 * 256 + 64 * 256 + 256 * 256 + m2 * 256, &k.hP));
    k.hP0 = k.hP + cm2 * 256, k.hw = k.hP0 + cm2 * 256;
    double *hsrc = k.hw + 64 * 256 + 256 * 256;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int64_t i = 0; i < m2 * 256; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        hsrc[i] = (double)(s >> 11) * 0x1.0p-53 - 0.5;
    }
    memcpy(k.hP0, hsrc, (size_t)(cm2 * 256) * sizeof(double));
    FT_CHECK(be->set_matrix(k.q, m2, 256, hsrc, m2, k.P0, m2));
    FT_CHECK(be->memset0(k.q, k.C, (size_t)(2 * um2 * un2 + 256 * un2 + m2 * QR_NCS * 8) * 8));
    FT_CHECK(be->copy_matrix(k.q, m2, 256, k.P0, m2, k.V, m2));
    FT_CHECK(be->unit_lower(k.q, 256, k.V, m2));
    FT_CHECK(be->memset0(k.q, k.T, 256 * 256 * sizeof(double)));
    FT_CHECK(be->sync(k.q));
    for (int h = 0; h < QR_MODEL_NH; h++) M->gp_m[h] = (double)gm[h], M->cp_m[h] = (double)cm[h];
    /* the device's measurements: two whole passes, each entry the faster of the two, then
     * entries that break the shape such times have redone (dev_pass, qr_model_suspect) */
    dev_times_t D;
    for (int i = 0; i < (int)(sizeof D.t / sizeof D.t[0]); i++) D.t[i] = 1e30;
    const dev_sizes_t Z = {{gm[0], gm[1], gm[2]}, um1, un1, um2, un2, m1, m2};
    for (int pass = 0; pass < 2; pass++) FT_CHECK(dev_pass(&k, &Z, &D, NULL));
    for (int again = 0; again < 3; again++) {
        int redo[QR_MODEL_DT_N];
        if (!qr_model_suspect(D.t, redo)) break;
        FT_CHECK(dev_pass(&k, &Z, &D, redo));
    }
    for (int j = 0; j < QR_MODEL_NNB; j++) {
        const int64_t nb = NBS[j];
        for (int h = 0; h < QR_MODEL_NH; h++) M->gp_t[h][j] = D.t[QR_MODEL_DT_GP(h, j)];
        const double f1 = 4.0 * um1 * un1 * nb, f2 = 4.0 * um2 * un2 * nb;
        const double t1 = D.t[QR_MODEL_DT_UP1(j)], t2 = D.t[QR_MODEL_DT_UP2(j)];
        double a, b;
        line2(f1, t1, f2, t2, &a, &b);
        M->up_a[j] = a, M->up_r[j] = b > 0 ? 1.0 / b : f2 / t2;
        line2((double)m1, D.t[QR_MODEL_DT_CS1(j)], (double)m2, D.t[QR_MODEL_DT_CS2(j)], &M->cs_a[j],
              &M->cs_b[j]);
    }
    /* the host panels after the device's measurements, not between them (host BLAS threads
     * may still be spinning when the next device measurement is issued) */
    for (int j = 0; j < QR_MODEL_NNB; j++)
        for (int h = 0; h < QR_MODEL_NH; h++) {
            if (!host) FT_CHECK(timeit(&k, 1, cm[h], 0, NBS[j], &M->cp_t[h][j]));
            else M->cp_t[h][j] = M->gp_t[h][j]; /* one LAPACK: the same panel */
        }
    if (host) memcpy(M->cp_m, M->gp_m, sizeof M->cp_m);
    double t1, t2;
    /* copies: a host panel's size */
    FT_CHECK(timeit(&k, 4, cm2, 256, 0, &t2));
    FT_CHECK(timeit(&k, 4, 1, 1, 0, &t1));
    M->lat = t1;
    M->bw_h2d = 8.0 * cm2 * 256 / (t2 > t1 ? t2 - t1 : t2);
    FT_CHECK(timeit(&k, 5, cm2, 256, 0, &t2));
    M->bw_d2h = 8.0 * cm2 * 256 / (t2 > t1 ? t2 - t1 : t2);
    FT_CHECK(timeit(&k, 6, um2, un2, 0, &t2));
    M->bw_dev = 16.0 * um2 * un2 / t2; /* read and written */
    /* the host: issuing (tiny operations, not waited for), reading memory */
    {
        for (int r = 0; r < 8; r++) /* untimed: the first operations of a queue set things up */
            FT_CHECK(be->dgemm(k.q, 'N', 'N', 1, 1, 1, 1.0, k.T, 1, k.T, 1, 0.0, k.W + 1, 1));
        FT_CHECK(be->sync(k.q));
        const double t0 = ft_wtime();
        for (int r = 0; r < 32; r++) {
            FT_CHECK(be->memset0(k.q, k.W, 8));
            FT_CHECK(be->dgemm(k.q, 'N', 'N', 1, 1, 1, 1.0, k.T, 1, k.T, 1, 0.0, k.W + 1, 1));
        }
        M->launch = (ft_wtime() - t0) / 64;
        FT_CHECK(be->sync(k.q));
        /* as the seals read a panel: the bits summed in four independent sums */
        double best = 1e30;
        uint64_t acc[4] = {0, 0, 0, 0};
        for (int r = 0; r < 3; r++) {
            const double t3 = ft_wtime();
            for (int64_t i = 0; i + 4 <= m2 * 256; i += 4) {
                uint64_t w[4];
                memcpy(w, hsrc + i, sizeof w);
                acc[0] += w[0], acc[1] += w[1], acc[2] += w[2], acc[3] += w[3];
            }
            const double dt = ft_wtime() - t3;
            if (dt < best) best = dt;
        }
        M->bw_host = 8.0 * (double)(m2 * 256) / best;
        if (!(M->bw_host > 0) || (acc[0] ^ acc[1] ^ acc[2] ^ acc[3]) == 1) M->bw_host = 1e10;
    }
    /* a panel beside an update (two queues): the pair's time against the longer alone */
    M->contention = 0.0;
    if (!host) {
        double tp, tu, tb = 1e30;
        FT_CHECK(timeit(&k, 0, m2, 0, 256, &tp));
        FT_CHECK(timeit(&k, 2, um2, un2, 256, &tu));
        for (int r = 0; r < 3; r++) {
            FT_CHECK(reset(&k, 0, m2, 256));
            const double t0 = ft_wtime();
            FT_CHECK(be->fork(k.q, k.q2));
            FT_CHECK(run_op(&k, k.q2, 0, m2, 0, 256));
            FT_CHECK(run_op(&k, k.q, 2, um2, un2, 256));
            FT_CHECK(be->sync(k.q2));
            FT_CHECK(be->sync(k.q));
            const double dt = ft_wtime() - t0;
            if (dt < tb) tb = dt;
        }
        const double lo = tp < tu ? tp : tu, hi = tp < tu ? tu : tp;
        M->contention = lo > 0 ? (tb - hi) / lo : 0.0;
        if (M->contention < 0) M->contention = 0;
        if (M->contention > 1) M->contention = 1;
    }
    return FT_SUCCESS;
}

int qr_model_get(ft_call_t *c, const qr_model_t **out, int *source, double *secs, char *cache,
                 size_t cache_len)
{
    const int b = ft_backend_index(c->be);
    char device[96];
    c->be->describe(device, sizeof device);
    char path[256];
    cache_path(device, path, sizeof path);
    if (cache) snprintf(cache, cache_len, "%s", path);
    *secs = 0.0;
    pthread_mutex_lock(&g_lock);
    if (g_have[b] && !strcmp(g_mem[b].device, device)) {
        *out = &g_mem[b], *source = 3;
        pthread_mutex_unlock(&g_lock);
        return FT_SUCCESS;
    }
    qr_model_t M;
    memset(&M, 0, sizeof M);
    M.backend = b;
    int st = FT_SUCCESS;
    if (load(path, device, &M)) *source = 2;
    else {
        const double t0 = ft_wtime();
        snprintf(M.device, sizeof M.device, "%s", device);
        /* the measurements take the device to themselves: what the call issued so far first */
        st = ft_call_sync(c);
        if (!st) st = calibrate(c, &M);
        if (!st) st = ft_call_sync(c);
        *secs = ft_wtime() - t0, *source = 1;
        if (!st) save(path, &M);
        ft_log(c->ctx, 1, "dgeqrf model: calibrated on %s in %.3f s (%s)", device, *secs,
               st ? ft_strerror(st) : path[0] ? path : "not cached");
    }
    if (!st) {
        g_mem[b] = M, g_have[b] = 1;
        *out = &g_mem[b];
    }
    pthread_mutex_unlock(&g_lock);
    return st;
}

/* ---- prediction ---------------------------------------------------------------------------- */

/* interpolation in nb between the measured block sizes (linear in nb; outside: the nearest) */
static double in_nb(const double *v, int64_t nb)
{
    if (nb <= NBS[0]) return v[0] * (double)nb / NBS[0];
    for (int j = 1; j < QR_MODEL_NNB; j++)
        if (nb <= NBS[j]) {
            const double w = (double)(nb - NBS[j - 1]) / (double)(NBS[j] - NBS[j - 1]);
            return v[j - 1] + w * (v[j] - v[j - 1]);
        }
    return v[QR_MODEL_NNB - 1] * (double)nb / NBS[QR_MODEL_NNB - 1];
}

static double t_update(const qr_model_t *M, int64_t m, int64_t n, int64_t nb)
{
    if (m <= 0 || n <= 0) return 0.0;
    const double a = in_nb(M->up_a, nb), r = in_nb(M->up_r, nb);
    return a + 4.0 * (double)m * (double)n * (double)nb / r;
}

/* piecewise linear in m through the measured heights hm (the end pieces extended) */
static double in_m(const double *hm, const double (*t)[QR_MODEL_NNB], int64_t m, int64_t nb)
{
    int h = 1;
    while (h + 1 < QR_MODEL_NH && (double)m > hm[h]) h++;
    const double a = in_nb(t[h - 1], nb), b = in_nb(t[h], nb);
    const double v = a + (b - a) * ((double)m - hm[h - 1]) / (hm[h] - hm[h - 1]);
    return v > 0 ? v : 0.0;
}

static double t_panel(const qr_model_t *M, int gpanel, int64_t m, int64_t nb)
{
    if (gpanel) return in_m(M->gp_m, M->gp_t, m, nb);
    const double bytes = 8.0 * (double)m * (double)nb;
    return in_m(M->cp_m, M->cp_t, m, nb) + 2 * M->lat + bytes / M->bw_d2h + bytes / M->bw_h2d;
}

/* Host panels: what the host does per step besides the panel — issuing the step's operations
 * (counted in qr_loop.c: about 16 without protection, 24 with the checksum columns, 44 with
 * issue 9's checks) and reading the panel for its seals. */
static double t_host_step(const qr_model_t *M, const qr_problem_t *P, int64_t mi, int64_t ib)
{
    const double ops = P->pcheck ? 44.0 : P->protect ? 24.0 : 16.0;
    /* the seals run on up to 4 threads (seal_threads, qr_loop.c) */
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const double thr = cpus >= 8 ? 4.0 : cpus >= 4 ? 2.0 : 1.0;
    return ops * M->launch +
           (P->pcheck ? 8.0 * (double)mi * (double)ib / (thr * M->bw_host) : 0.0);
}

double qr_model_verify(const qr_model_t *M, const qr_problem_t *P)
{
    /* the checksum columns against the matrix: a pass over it, and the thresholds */
    return 8.0 * (double)P->m * (double)P->n / M->bw_dev + 1e-4;
}

double qr_model_time(const qr_model_t *M, const qr_problem_t *P, int gpanel, int64_t nb, int la)
{
    const int64_t m = P->m, n = P->n, k = m < n ? m : n, np = (k + nb - 1) / nb;
    const double pass = 8.0 * (double)m * (double)n / M->bw_dev;
    double T = 0.0;
    if (!P->is_gpu && M->backend != 0) /* host data: in and out */
        T += 8.0 * (double)m * (double)n * (1.0 / M->bw_h2d + 1.0 / M->bw_d2h);
    if (P->protect) T += 4.5 * pass; /* encode (3 passes), the final check, Q's */
    const double kap = gpanel ? M->contention : 0.0;
    if (M->backend == 0) la = 0; /* the host backend runs its queues in turn: no overlap */
    T += t_panel(M, gpanel, m, qr_imin(nb, k));
    for (int64_t p = 0; p < np; p++) {
        const int64_t i = p * nb, ib = qr_imin(nb, k - i), mi = m - i, j0 = i + ib;
        const int64_t lac = j0 < n && j0 < k ? qr_imin(nb, k - j0) : 0;
        const double tla = t_update(M, mi, lac, ib);
        double tpn = p + 1 < np ? t_panel(M, gpanel, m - j0, qr_imin(nb, k - j0)) : 0.0;
        if (!gpanel && M->backend != 0) tpn += t_host_step(M, P, mi, ib);
        double trest = t_update(M, mi, n - j0 - lac, ib);
        if (P->protect) trest += in_nb(M->cs_a, ib) + in_nb(M->cs_b, ib) * (double)mi;
        if (P->pcheck) trest += 4.0 * 8.0 * (double)mi * (double)ib / M->bw_dev + 40e-6;
        if (la) {
            const double a = tla + tpn, b = trest, hi = a > b ? a : b, lo = a > b ? b : a;
            T += hi + kap * lo;
        } else {
            T += tla + tpn + trest;
        }
    }
    return T;
}

void qr_model_choose(const qr_model_t *M, const qr_problem_t *P, int placement, int64_t nb,
                     double error_rate, ft_qr_model_t *out)
{
    const int64_t k = P->m < P->n ? P->m : P->n;
    double best[2] = {0, 0};
    int64_t bnb[2] = {0, 0};
    for (int gp = 0; gp < 2; gp++) {
        if (placement >= 0 && placement != gp) continue;
        if (gp == 0 && M->backend == 0 && placement < 0) continue; /* one LAPACK on the host */
        for (int j = 0; j < QR_MODEL_NNB; j++) {
            const int64_t b = nb > 0 ? nb : qr_imin(NBS[j], k);
            const double t = qr_model_time(M, P, gp, b, 1);
            if (!bnb[gp] || t < best[gp]) best[gp] = t, bnb[gp] = b;
            if (nb > 0) break;
        }
    }
    const int gp = !bnb[0] ? 1 : !bnb[1] ? 0 : best[1] <= best[0];
    out->panel = gp ? FT_PANEL_GPU : FT_PANEL_CPU;
    out->nb = (int)bnb[gp];
    out->seconds = best[gp];
    out->seconds_depth0 = qr_model_time(M, P, gp, bnb[gp], 0);
    out->lookahead = M->backend != 0 && out->seconds <= out->seconds_depth0 ? 1 : 0;
    out->seconds_cpu = best[0], out->seconds_gpu = best[1];
    out->nb_cpu = (int)bnb[0], out->nb_gpu = (int)bnb[1];
    out->verify_seconds = qr_model_verify(M, P);
    /* Young/Daly: verify every sqrt(2 C / lambda) seconds of work, in whole steps */
    out->verify_every = 0;
    const int64_t np = (k + bnb[gp] - 1) / bnb[gp];
    if (error_rate > 0 && P->protect && np > 1) {
        const double tau = sqrt(2.0 * out->verify_seconds / error_rate);
        const double step = out->seconds / (double)np;
        const double q = tau / step;
        out->verify_every = q >= (double)np ? 0 : q < 1.0 ? 1 : (int)(q + 0.5);
    }
    snprintf(out->device, sizeof out->device, "%s", M->device);
}

/* ---- the public entry ---------------------------------------------------------------------- */

int ft_dgeqrf_model(ft_context_t *ctx, ft_int m, ft_int n, int is_gpu, ft_qr_model_t *out)
{
    if (!out) return FT_ERR_INVALID_VALUE;
    memset(out, 0, sizeof *out);
    if (m < 0) return -1;
    if (n < 0) return -2;
    ft_call_t c;
    int st = ft_call_begin(&c, ctx, "FT_DGEQRF_MODEL", NULL, 0);
    if (!st) st = ft_call_select_unnumbered(&c, 2.0 * m * (double)n * (m < n ? m : n), is_gpu);
    const qr_model_t *M = NULL;
    if (!st) st = qr_model_get(&c, &M, &out->source, &out->calib_seconds, out->cache,
                               sizeof out->cache);
    if (!st && m > 0 && n > 0) {
        const ft_policy_t *pol = &c.pol;
        qr_problem_t P = {m, n, is_gpu, pol->protect != 0,
                          pol->protect != 0 && pol->protect_q != -1};
        /* what ft_dgeqrf would run: the model's choices on the device where the placement is
         * free (no FTLA_PANEL), else the fixed ones */
        const char *e = getenv("FTLA_PANEL");
        const int model = c.be->kind == FT_DEVICE_CUDA && qr_model_enabled();
        const int fixed = qr_resolve_panel(pol, c.be);
        const int placement = model && pol->panel == FT_PANEL_AUTO && !(e && *e) ? -1 : fixed;
        /* as the driver: the model's nb for device panels, the fixed one for host panels */
        int64_t nb = pol->nb > 0 ? pol->nb : model && (placement < 0 || fixed) ? 0
                                                   : qr_auto_nb(n, fixed);
        qr_model_choose(M, &P, placement, nb, pol->error_rate, out);
        if (out->panel == FT_PANEL_CPU && nb == 0 && pol->nb <= 0) { /* the driver's nb */
            qr_model_choose(M, &P, 0, qr_auto_nb(n, 0), pol->error_rate, out);
            if (placement < 0) { /* the device placement's figures stay beside it */
                ft_qr_model_t g;
                qr_model_choose(M, &P, 1, 0, pol->error_rate, &g);
                out->seconds_gpu = g.seconds, out->nb_gpu = g.nb;
            }
        }
    } else if (!st) {
        snprintf(out->device, sizeof out->device, "%s", M->device);
    }
    return ft_call_end(&c, st);
}
