/*
 * consumer.c — a C program built against an installed ftla (examples/consumer/CMakeLists.txt,
 * or `cc consumer.c $(pkg-config --cflags --libs ftla)`; scripts/test-install.sh does both).
 * Checks that the header and the library agree on the version, that ft_dgemm's product matches a
 * triple loop, and that ft_dgeqrf's R satisfies R^T R = A^T A (a QR factor of A), with a fault
 * planned in R on an explicit context corrected. Prints "consumer: OK", or fails (exit 1).
 */
#include <ftla.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define M 64
#define N 48
#define K 40

static int fail(const char *what)
{
    fprintf(stderr, "consumer: FAILED: %s\n", what);
    return 1;
}

int main(void)
{
    int major, minor, patch;
    ft_version(&major, &minor, &patch);
    printf("consumer: ftla %d.%d.%d (header %d.%d.%d), CUDA built %d, usable %d\n", major, minor,
           patch, FTLA_VERSION_MAJOR, FTLA_VERSION_MINOR, FTLA_VERSION_PATCH, ft_have_cuda(),
           ft_cuda_available());
    if (major != FTLA_VERSION_MAJOR || minor != FTLA_VERSION_MINOR) return fail("version");

    static double A[M * K], B[K * N], C[M * N], Q[M * N], tau[N], work[64 * N];
    srand(7);
    for (int i = 0; i < M * K; i++) A[i] = rand() / (double)RAND_MAX - 0.5;
    for (int i = 0; i < K * N; i++) B[i] = rand() / (double)RAND_MAX - 0.5;

    // C = A*B against a triple loop, componentwise
    if (ft_dgemm('N', 'N', M, N, K, 1.0, A, M, B, K, 0.0, C, M)) return fail("ft_dgemm status");
    const double eps = 0x1p-52;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double s = 0, b = 0;
            for (int l = 0; l < K; l++) {
                s += A[i + l * M] * B[l + j * K];
                b += fabs(A[i + l * M] * B[l + j * K]);
            }
            if (fabs(C[i + j * M] - s) > 2 * (K + 2) * eps * b) return fail("ft_dgemm result");
        }

    // QR of C on a CPU context with a bit flip planned in a finished row of R (corrected)
    ft_context_t *ctx;
    if (ft_context_create(&ctx, FT_DEVICE_CPU)) return fail("ft_context_create");
    ft_policy_t pol;
    ft_context_get_policy(ctx, &pol);
    pol.nb = 8;
    if (ft_context_set_policy(ctx, &pol)) return fail("ft_context_set_policy");
    ft_fault_t f = {.region = FT_REGION_R, .row = 2, .col = 30, .bit = 60, .call = -1, .step = 1};
    if (ft_inject_add(ctx, &f)) return fail("ft_inject_add");
    for (int i = 0; i < M * N; i++) Q[i] = C[i];
    ft_report_t rep;
    ft_int info;
    if (ft_dgeqrf_ex(ctx, M, N, Q, M, tau, work, 64 * N, &info, &rep) || info)
        return fail("ft_dgeqrf_ex status");
    char line[512];
    printf("consumer: %s\n", ft_report_string(&rep, line, sizeof line));
    if (rep.injected != 1 || rep.corrected != 1) return fail("the fault in R was not corrected");
    ft_context_destroy(ctx);
    // R^T R = C^T C, normwise (||C||_F^2 scale)
    double nrm2 = 0, err = 0;
    for (int i = 0; i < M * N; i++) nrm2 += C[i] * C[i];
    for (int j = 0; j < N; j++)
        for (int l = 0; l <= j; l++) {
            double rr = 0, cc = 0;
            for (int i = 0; i <= l; i++) rr += Q[i + l * M] * Q[i + j * M];
            for (int i = 0; i < M; i++) cc += C[i + l * M] * C[i + j * M];
            if (fabs(rr - cc) > err) err = fabs(rr - cc);
        }
    printf("consumer: max |R^T R - A^T A| / (||A||_F^2 eps) = %.3f\n", err / (nrm2 * eps));
    if (!(err <= 30 * M * eps * nrm2)) return fail("ft_dgeqrf: R^T R != A^T A");
    if (ft_last_status() != 0) return fail("ft_last_status");
    puts("consumer: OK");
    return 0;
}
