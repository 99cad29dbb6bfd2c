/* report.c — ft_report_t helpers. */
#include "core/context.h"

#include <stdio.h>
#include <stddef.h>
#include <string.h>

void ft_report_init(ft_report_t *r, ft_device_t backend)
{
    memset(r, 0, sizeof *r);
    r->backend = backend;
    r->refactor_col = -1;
}

void ft_report_event(ft_report_t *r, ft_event_kind_t kind, ft_region_t region, int64_t row,
                     int64_t col, int64_t step, double before, double after)
{
    if (r->nevents >= FT_REPORT_MAX_EVENTS) return;
    ft_event_t *e = &r->events[r->nevents++];
    e->kind = kind;
    e->region = region;
    e->row = row;
    e->col = col;
    e->step = step;
    e->before = before;
    e->after = after;
}

char *ft_report_string_v(const ft_report_t *r, size_t size, char *buf, size_t len)
{
    if (!buf || len == 0) return buf;
    if (!r || size < FT_REPORT_SIZE_V1) {
        buf[0] = '\0';
        return buf;
    }
    snprintf(buf, len,
             "backend=%s status=%d injected=%lld detected=%lld located=%lld corrected=%lld "
             "uncorrectable=%lld checksum_errors=%lld recomputed=%lld unchecked=%lld "
             "time=%.3es protect=%.3es",
             r->backend == FT_DEVICE_CUDA ? "cuda" : "cpu", r->status, (long long)r->injected,
             (long long)r->detected, (long long)r->located, (long long)r->corrected,
             (long long)r->uncorrectable, (long long)r->checksum_errors,
             (long long)r->recomputed, (long long)r->unchecked, r->time_total, r->time_protect);
    if (size >= offsetof(ft_report_t, time_recovery) + sizeof(double) && r->recovery) {
        size_t l = strlen(buf);
        if (l < len)
            snprintf(buf + l, len - l, " recovered=%lld (%s%s%s) refactor_col=%lld recovery=%.3es",
                     (long long)r->recovered, r->recovery & 1 ? "qr-update" : "",
                     r->recovery == 3 ? "+" : "", r->recovery & 2 ? "re-factor" : "",
                     (long long)r->refactor_col, r->time_recovery);
    }
    return buf;
}
