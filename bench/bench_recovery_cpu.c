/*
 * bench_recovery_cpu — bench_recovery.h on the CPU backend: ft_dgeqrf_ex, host pointers.
 * Usage: bench_recovery_cpu [--sizes 2048] [--rounds 7] [--nb 0]
 * (threads: OpenBLAS's; OPENBLAS_NUM_THREADS to pin them)
 */
#include "bench_recovery.h"

typedef struct {
    int64_t n;
    const double *h;
    double *A, *tau, *work;
    ft_int lwork;
} cpu_state;

static void *cpu_setup(ft_context_t *ctx, int64_t n, const double *h)
{
    cpu_state *s = bench_malloc(sizeof *s);
    double wq;
    ft_int info;
    s->n = n, s->h = h;
    s->A = bench_malloc((size_t)n * (size_t)n * sizeof(double));
    s->tau = bench_malloc((size_t)n * sizeof(double));
    ft_dgeqrf_ex(ctx, (ft_int)n, (ft_int)n, s->A, (ft_int)n, s->tau, &wq, -1, &info, NULL);
    s->lwork = (ft_int)wq > 1 ? (ft_int)wq : 1;
    s->work = bench_malloc((size_t)s->lwork * sizeof(double));
    return s;
}

static void cpu_restore(void *p)
{
    cpu_state *s = p;
    memcpy(s->A, s->h, (size_t)s->n * (size_t)s->n * sizeof(double));
}

static int cpu_call(void *p, ft_context_t *ctx, ft_int *info, ft_report_t *rep)
{
    cpu_state *s = p;
    return ft_dgeqrf_ex(ctx, (ft_int)s->n, (ft_int)s->n, s->A, (ft_int)s->n, s->tau, s->work,
                        s->lwork, info, rep);
}

static void cpu_teardown(void *p)
{
    cpu_state *s = p;
    free(s->A), free(s->tau), free(s->work), free(s);
}

int main(int argc, char **argv)
{
    static const int defaults[] = {2048};
    static const bench_recovery_ops_t ops = {cpu_setup, cpu_restore, cpu_call, cpu_teardown};
    return bench_recovery_main(argc, argv, "bench_recovery_cpu",
                               "ft_dgeqrf_ex, CPU backend, host pointers", FT_DEVICE_CPU, defaults,
                               1, &ops);
}
