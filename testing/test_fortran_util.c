/*
 * test_fortran_util.c — C side of the Fortran tests (testing/fortran.cmake):
 *
 *   ftt_c_value(name)  the value, as C compiles it, of `name`: "sizeof(T)", "T%field" (the
 *                      offset of the field in T, in the spelling of the Fortran module) or a
 *                      constant of ftla.h ("FT_REGION_PANEL"); FTT_UNKNOWN for another name;
 *   ftt_c_count(prefix) how many names of the table start with prefix ("ft_policy_t%": the
 *                      number of fields of ft_policy_t), so that the Fortran side can check
 *                      that it compared every one;
 *   ftt_stderr_to(path) / ftt_stderr_restore()
 *                      send stderr (file descriptor 2) to a file and back, so that a Fortran
 *                      test can read what the library printed.
 */
#define _POSIX_C_SOURCE 200809L
#include "ftla.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FTT_UNKNOWN (-999999L)

typedef struct {
    const char *name;
    long value;
} ftt_entry_t;

/* the table: several short entries to a line */
// clang-format off
#define SZ(T) {"sizeof(" #T ")", (long)sizeof(T)}
#define OFF(T, f) {#T "%" #f, (long)offsetof(T, f)}
#define K(c) {#c, (long)(c)}

static const ftt_entry_t table[] = {
    /* ft_policy_t, every field in declaration order */
    SZ(ft_policy_t), OFF(ft_policy_t, protect), OFF(ft_policy_t, tile), OFF(ft_policy_t, tol),
    OFF(ft_policy_t, backup_c), OFF(ft_policy_t, nb), OFF(ft_policy_t, verify_every),
    OFF(ft_policy_t, crossover), OFF(ft_policy_t, verbose), OFF(ft_policy_t, serial_encode),
    OFF(ft_policy_t, operand_check), OFF(ft_policy_t, keep_input), OFF(ft_policy_t, protect_q),
    OFF(ft_policy_t, panel), OFF(ft_policy_t, error_rate), OFF(ft_policy_t, gpu_memory),
    /* ft_fault_t */
    SZ(ft_fault_t), OFF(ft_fault_t, region), OFF(ft_fault_t, row), OFF(ft_fault_t, col),
    OFF(ft_fault_t, bit), OFF(ft_fault_t, value), OFF(ft_fault_t, call), OFF(ft_fault_t, step),
    /* ft_event_t */
    SZ(ft_event_t), OFF(ft_event_t, kind), OFF(ft_event_t, region), OFF(ft_event_t, row),
    OFF(ft_event_t, col), OFF(ft_event_t, step), OFF(ft_event_t, before), OFF(ft_event_t, after),
    /* ft_report_t */
    SZ(ft_report_t), OFF(ft_report_t, backend), OFF(ft_report_t, status),
    OFF(ft_report_t, injected), OFF(ft_report_t, detected), OFF(ft_report_t, located),
    OFF(ft_report_t, corrected), OFF(ft_report_t, uncorrectable),
    OFF(ft_report_t, checksum_errors), OFF(ft_report_t, recomputed), OFF(ft_report_t, unchecked),
    OFF(ft_report_t, checks), OFF(ft_report_t, time_total), OFF(ft_report_t, time_protect),
    OFF(ft_report_t, nevents), OFF(ft_report_t, events), OFF(ft_report_t, recovery),
    OFF(ft_report_t, recovered), OFF(ft_report_t, refactor_col), OFF(ft_report_t, refactor_flops),
    OFF(ft_report_t, time_recovery),
    /* ft_qr_model_t */
    SZ(ft_qr_model_t), OFF(ft_qr_model_t, seconds), OFF(ft_qr_model_t, panel),
    OFF(ft_qr_model_t, nb), OFF(ft_qr_model_t, lookahead), OFF(ft_qr_model_t, verify_every),
    OFF(ft_qr_model_t, seconds_depth0), OFF(ft_qr_model_t, seconds_cpu),
    OFF(ft_qr_model_t, seconds_gpu), OFF(ft_qr_model_t, nb_cpu), OFF(ft_qr_model_t, nb_gpu),
    OFF(ft_qr_model_t, verify_seconds), OFF(ft_qr_model_t, source),
    OFF(ft_qr_model_t, calib_seconds), OFF(ft_qr_model_t, device), OFF(ft_qr_model_t, cache),
    /* ft_span_t, ft_trace_t */
    SZ(ft_span_t), OFF(ft_span_t, lane), OFF(ft_span_t, phase), OFF(ft_span_t, step),
    OFF(ft_span_t, t0), OFF(ft_span_t, t1),
    SZ(ft_trace_t), OFF(ft_trace_t, spans), OFF(ft_trace_t, capacity), OFF(ft_trace_t, count),
    OFF(ft_trace_t, dropped), OFF(ft_trace_t, total),
    /* sizes of the versioned structures' first versions, and of the enums (C int) */
    K(FT_POLICY_SIZE_V1), K(FT_REPORT_SIZE_V1), K(FT_REPORT_MAX_EVENTS),
    SZ(ft_device_t), SZ(ft_region_t), SZ(ft_event_kind_t), SZ(ft_panel_t), SZ(ft_int),
    /* constants */
    K(FTLA_VERSION_MAJOR), K(FTLA_VERSION_MINOR), K(FTLA_VERSION_PATCH),
    K(FT_SUCCESS), K(FT_ERR_ALLOC), K(FT_ERR_DEVICE_ALLOC), K(FT_ERR_CUDA), K(FT_ERR_CUBLAS),
    K(FT_ERR_NO_DEVICE), K(FT_ERR_NOT_BUILT), K(FT_ERR_UNCORRECTABLE), K(FT_ERR_NOT_RECOVERED),
    K(FT_ERR_LAPACK), K(FT_ERR_INVALID_VALUE), K(FT_ERR_TOO_LARGE), K(FT_ERR_INTERNAL),
    K(FT_ERR_UNCHECKED),
    K(FT_DEVICE_AUTO), K(FT_DEVICE_CPU), K(FT_DEVICE_CUDA),
    K(FT_PANEL_AUTO), K(FT_PANEL_CPU), K(FT_PANEL_GPU),
    K(FT_PROTECT_OFF), K(FT_PROTECT_ABFT), K(FT_PROTECT_TMR),
    K(FT_REGION_C), K(FT_REGION_A), K(FT_REGION_B), K(FT_REGION_CHECKSUM), K(FT_REGION_R),
    K(FT_REGION_TRAILING), K(FT_REGION_Q), K(FT_REGION_TAU), K(FT_REGION_REFLECTORS),
    K(FT_REGION_PANEL),
    K(FT_EVENT_INJECTED), K(FT_EVENT_CORRECTED), K(FT_EVENT_RECOMPUTED), K(FT_EVENT_CHECKSUM),
    K(FT_EVENT_UNCORRECTABLE), K(FT_EVENT_LOCATED), K(FT_EVENT_RECOVERED),
    K(FT_LANE_HOST), K(FT_LANE_MAIN), K(FT_LANE_SIDE), K(FT_LANE_CHECK), K(FT_LANE_COPY_OUT),
    K(FT_NLANES),
    K(FT_PHASE_ENCODE), K(FT_PHASE_PANEL), K(FT_PHASE_LOOKAHEAD), K(FT_PHASE_UPDATE),
    K(FT_PHASE_CHECKSUM), K(FT_PHASE_ARRIVE), K(FT_PHASE_CHECKPOINT), K(FT_PHASE_AFTER),
    K(FT_PHASE_COPY), K(FT_PHASE_WAIT), K(FT_PHASE_CHECKS), K(FT_PHASE_ISSUE), K(FT_PHASE_SEAL),
    K(FT_PHASE_VERIFY), K(FT_PHASE_STAGE), K(FT_PHASE_RECOVER), K(FT_NPHASES),
};
// clang-format on

long ftt_c_value(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name)) return table[i].value;
    return FTT_UNKNOWN;
}

int ftt_c_count(const char *prefix)
{
    int n = 0;
    const size_t len = strlen(prefix);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strncmp(table[i].name, prefix, len)) n++;
    return n;
}

static int saved_fd = -1;

int ftt_stderr_to(const char *path)
{
    fflush(stderr);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    if (saved_fd < 0) saved_fd = dup(2);
    int rc = dup2(fd, 2) < 0 ? -1 : 0;
    close(fd);
    return rc;
}

int ftt_stderr_restore(void)
{
    fflush(stderr);
    if (saved_fd < 0) return -1;
    int rc = dup2(saved_fd, 2) < 0 ? -1 : 0;
    close(saved_fd);
    saved_fd = -1;
    return rc;
}
