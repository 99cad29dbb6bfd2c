/*
 * qr_model.h — the performance model of ft_dgeqrf (issue 10; docs/qr.md "Performance model"):
 * the rates of the loop's parts measured on the device (calibration), kept per device in
 * memory and in a cache file, a prediction of a call's time from them, and the choices that
 * minimise it.
 */
#ifndef FTLA_QR_MODEL_H
#define FTLA_QR_MODEL_H

#include "core/call.h"

#define QR_MODEL_NNB 4 /* block sizes measured: 32, 64, 128, 256 */

typedef struct {
    int backend;                     /* ft_backend_index */
    char device[96];
    /* a panel of nb columns measured at QR_MODEL_NH heights hm (piecewise linear in m between
     * them, the last piece extended): in work memory (geqrf, V, larft) and on the host (LAPACK
     * dgeqrf + dlarft) */
#define QR_MODEL_NH 3
    double gp_m[QR_MODEL_NH], gp_t[QR_MODEL_NH][QR_MODEL_NNB];
    double cp_m[QR_MODEL_NH], cp_t[QR_MODEL_NH][QR_MODEL_NNB];
    /* the block reflector applied to m x n of rank nb: t = a + 4 m n nb / r */
    double up_a[QR_MODEL_NNB], up_r[QR_MODEL_NNB];
    /* the checksum columns' update (m x 24 columns, rank nb): t = a + b m */
    double cs_a[QR_MODEL_NNB], cs_b[QR_MODEL_NNB];
    /* copies between host and work memory (bytes/s) and their latency; a pass over work
     * memory (bytes read / s) */
    double bw_h2d, bw_d2h, lat, bw_dev;
    /* a panel on the device beside an update: the pair takes the longer plus this fraction
     * (0 ... 1) of the shorter */
    double contention;
    /* the host: seconds to issue one operation on a queue, bytes read per second (the seals of
     * host panels) */
    double launch, bw_host;
} qr_model_t;

typedef struct {
    int64_t m, n;
    int is_gpu;    /* device pointers (no staging) */
    int protect;   /* checksum columns */
    int pcheck;    /* the checks of issue 9 */
} qr_problem_t;

/* The calibrated model of call c's backend: from memory, the cache file, or measured now
 * (*source 3, 2, 1). */
int qr_model_get(ft_call_t *c, const qr_model_t **M, int *source, double *secs, char *cache,
                 size_t cache_len);
/* Predicted seconds for panel placement gpanel, block size nb, lookahead depth la (0 or 1). */
double qr_model_time(const qr_model_t *M, const qr_problem_t *P, int gpanel, int64_t nb, int la);
/* Seconds of one online verification after step p (block size nb). */
double qr_model_verify(const qr_model_t *M, const qr_problem_t *P);
/* The choices (placement: -1 = free, else 0/1; nb: 0 = free) into out (ftla.h). */
void qr_model_choose(const qr_model_t *M, const qr_problem_t *P, int placement, int64_t nb,
                     double error_rate, ft_qr_model_t *out);
/* The device's calibration times in one array of QR_MODEL_DT_N: the panel at each height h and
 * block size j, the update at two sizes, the checksum columns' update at two heights. */
#define QR_MODEL_DT_NGP (QR_MODEL_NH * QR_MODEL_NNB)
#define QR_MODEL_DT_N (QR_MODEL_DT_NGP + 4 * QR_MODEL_NNB)
#define QR_MODEL_DT_GP(h, j) ((h)*QR_MODEL_NNB + (j))
#define QR_MODEL_DT_UP1(j) (QR_MODEL_DT_NGP + (j))
#define QR_MODEL_DT_UP2(j) (QR_MODEL_DT_NGP + QR_MODEL_NNB + (j))
#define QR_MODEL_DT_CS1(j) (QR_MODEL_DT_NGP + 2 * QR_MODEL_NNB + (j))
#define QR_MODEL_DT_CS2(j) (QR_MODEL_DT_NGP + 3 * QR_MODEL_NNB + (j))
/* Entries of t that break what such times must be — a panel faster with more columns or more
 * rows, or more than 2.6x slower with twice the columns; an update faster with twice the rank
 * or more than 2.2x slower; the larger update or checksum update faster than the smaller —
 * marked (both sides of each broken pair) in redo[QR_MODEL_DT_N]; the count of broken pairs.
 * The calibration measures those again (qr_model.c). */
int qr_model_suspect(const double *t, int *redo);
/* FTLA_MODEL=off: ft_dgeqrf keeps its fixed automatic choices. */
int qr_model_enabled(void);

#endif
