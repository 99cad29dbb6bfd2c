/* inject.h — the fault-injection plan (DESIGN.md "fault injection"): what to corrupt, where and
 * when. Cheap when unused: one integer test per injection point. */
#ifndef FTLA_INJECT_H
#define FTLA_INJECT_H

#include "core/context.h"

uint64_t ft_rng_next(uint64_t *state);
double ft_flip_bit(double x, int bit);
/* Take (remove) the faults of region `region` planned for call number `call` (ft_call_t.index)
 * and panel step `step` (-1: any step); at most `cap`. Random steps are resolved by the caller
 * with ft_rng_next. Returns how many were taken. */
int ft_inject_take(ft_context_t *ctx, int64_t call, ft_region_t region, int64_t step,
                   ft_fault_t *out, int cap);
/* How many faults ft_inject_take would take for (call, region, step), none taken. */
int ft_inject_count(const ft_context_t *ctx, int64_t call, ft_region_t region, int64_t step);
/* Drop the faults still planned for call number `call` (it could not apply them). */
int ft_inject_drop_call(ft_context_t *ctx, int64_t call);
/* Apply one fault to element (row, col) of a rows x cols work-memory matrix X (ld ldx) on queue
 * q, resolving random row/col/bit, recording the event. */
int ft_inject_apply(ft_context_t *ctx, const ft_backend_t *be, ft_queue_t *q, const ft_fault_t *f,
                    double *X, int64_t rows, int64_t cols, int64_t ldx, int64_t step,
                    ft_report_t *rep, int64_t *row_out, int64_t *col_out);

#endif
