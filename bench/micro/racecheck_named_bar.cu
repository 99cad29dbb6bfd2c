/*
 * racecheck_named_bar.cu — does compute-sanitizer's racecheck understand a producer/consumer
 * hand-over through named barriers (bar.arrive by the producer, bar.sync by the consumer)?
 * (issue 8: the persistent hess_to_tri hands rotations from warp 2 to warp 1 that way, and
 * racecheck reports RAW hazards there; docs/givens.md "Session 6".) Standalone:
 *   nvcc -O3 -arch=sm_90 bench/micro/racecheck_named_bar.cu -o rnb
 *   compute-sanitizer --tool racecheck --racecheck-report hazard ./rnb MODE
 *
 * Every mode has warp 2 write a 32-double slot in shared memory and warp 1 read it, ITERS times,
 * through a ring of two slots:
 *   0 arrive    producer bar.arrive(1 + slot), consumer bar.sync(1 + slot); the consumer frees a
 *               slot by bar.arrive(3 + slot), which the producer bar.syncs before reusing it.
 *               Correct by the PTX barrier semantics (arrive orders the producer's earlier
 *               shared-memory writes before the consumer's reads after its sync).
 *   1 sync      the hand-over by bar.sync on both sides (both wait, so no free signal): correct.
 *   2 racy      the consumer reads without waiting for the producer (a real race: the tool must
 *               report it, or it sees nothing here at all).
 *   3 steps     the persistent kernel's pattern: per step k, the producer writes slot k & 1 in
 *               four batches of 8, bar.arrive(7 + batch) after each; the consumer first reads
 *               the previous step's slot (its "catch-up"), then bar.syncs 7 + batch and reads
 *               that batch of the current slot; every warp (an idle one too) ends the step
 *               with __syncthreads. Correct.
 *   4 kernel    the persistent hess_to_tri's whole barrier layout in a 384-thread block (launched
 *               with 384 threads): warp 0 fills a ring of two batch slots (bar.sync 11 / 12
 *               before reusing one, bar.arrive 3 + batch after each), warp 2 takes each batch
 *               (bar.sync 3 + batch), writes the step's rotations, bar.arrive 7 + batch to warp
 *               1 and 11 + batch to free the slot; warp 1 reads the previous step's rotations,
 *               then each batch (bar.sync 7 + batch), waits for the helpers (bar.sync 2, 256),
 *               writes the carry that warp 0 reads at the next step's start; helpers (warps 3,
 *               5, 6, 7, 9, 10, 11) bar.sync 1 (224) and bar.arrive 2; warps 4 and 8 idle;
 *               __syncthreads ends every step. Correct.
 * The program checks the values it read (modes 0 and 1 must read exactly what was written) and
 * prints "MODE ok|WRONG"; racecheck's own summary says how many hazards it saw.
 */
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));     \
            return 2;                                                                      \
        }                                                                                  \
    } while (0)

#define BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory")
#define BAR_ARRIVE(id, n) asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory")

enum { ITERS = 64 };

__global__ void handover(double *out, int mode)
{
    __shared__ double ring[2][32];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (mode == 4) {
        __shared__ double ur[2][32], rot[2][4][32], carry[32];
        double acc = 0.0;
        for (int k = 0; k < ITERS; k++) {
            if (w == 0) {
                if (k >= 1) acc += carry[(lane + 3) & 31] - (7.0 * (k - 1) + ((lane + 3) & 31));
                for (int c = 0; c < 4; c++) {
                    if (c >= 2) BAR_SYNC(11 + c - 2, 64);
                    ur[c & 1][lane] = 100.0 * k + 10.0 * c + lane;
                    BAR_ARRIVE(3 + c, 64);
                }
            } else if (w == 2) {
                for (int c = 0; c < 4; c++) {
                    BAR_SYNC(3 + c, 64);
                    const int l2 = (lane + 1) & 31;
                    acc += ur[c & 1][l2] - (100.0 * k + 10.0 * c + l2);
                    rot[k & 1][c][lane] = 3.0 * k + c + lane;
                    __syncwarp();
                    BAR_ARRIVE(7 + c, 64);
                    if (c + 2 < 4) BAR_ARRIVE(11 + c, 64);
                }
            } else if (w == 1) {
                const int l2 = (lane + 2) & 31;
                if (k >= 1)
                    for (int c = 0; c < 4; c++) acc += rot[(k + 1) & 1][c][l2] - (3.0 * (k - 1) + c + l2);
                for (int c = 0; c < 4; c++) {
                    BAR_SYNC(7 + c, 64);
                    acc += rot[k & 1][c][l2] - (3.0 * k + c + l2);
                }
                BAR_SYNC(2, 256);
                carry[lane] = 7.0 * k + lane;
            } else if ((w & 3) != 0) {
                BAR_SYNC(1, 224);
                BAR_ARRIVE(2, 256);
            }
            __syncthreads();
        }
        /* every read above matched what was written: acc == 0 in every thread */
        if (w < 3) out[w * 32 + lane] = acc;
        return;
    }
    if (mode == 3) {
        for (int k = 0; k < ITERS; k++) {
            const int s = k & 1;
            if (w == 2) {
                for (int c = 0; c < 4; c++) {
                    if ((lane >> 3) == c) ring[s][lane] = 1000.0 * k + lane;
                    __syncwarp();
                    BAR_ARRIVE(7 + c, 64);
                }
            } else if (w == 1) {
                double acc = 0.0;
                if (k >= 1) acc = ring[s ^ 1][(lane + 5) & 31] - (1000.0 * (k - 1) + ((lane + 5) & 31));
                for (int c = 0; c < 4; c++) {
                    BAR_SYNC(7 + c, 64);
                    if ((lane >> 3) == c) out[k * 32 + lane] = ring[s][(lane & ~7) | ((lane + 1) & 7)] + acc;
                }
            }
            __syncthreads();
        }
        return;
    }
    for (int it = 0; it < ITERS; it++) {
        const int s = it & 1;
        if (w == 2) {
            if (mode == 0 && it >= 2) BAR_SYNC(3 + s, 64); /* slot s freed by the consumer */
            ring[s][lane] = 1000.0 * it + lane;
            if (mode == 0) BAR_ARRIVE(1 + s, 64);
            else if (mode == 1) BAR_SYNC(1 + s, 64);
        } else if (w == 1) {
            if (mode != 2) BAR_SYNC(1 + s, 64);
            out[it * 32 + lane] = ring[s][(lane + 1) & 31];
            /* free slot s for iteration it + 2 (the producer waits only for it >= 2) */
            if (mode == 0 && it + 2 < ITERS) BAR_ARRIVE(3 + s, 64);
        }
    }
}

int main(int argc, char **argv)
{
    const int mode = argc > 1 ? atoi(argv[1]) : 0;
    const char *names[] = {"arrive", "sync", "racy", "steps", "kernel"};
    if (mode < 0 || mode > 4) {
        fprintf(stderr, "mode 0 .. 4\n");
        return 2;
    }
    double *d, h[ITERS * 32];
    CK(cudaMalloc(&d, sizeof h));
    if (mode == 4) CK(cudaMemset(d, 0, sizeof h));
    handover<<<1, mode == 4 ? 384 : 96>>>(d, mode);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    int bad = 0;
    if (mode == 4)
        for (int i = 0; i < 96; i++) bad += h[i] != 0.0;
    else for (int it = 0; it < ITERS; it++)
        for (int l = 0; l < 32; l++)
            bad += h[it * 32 + l] != 1000.0 * it + (mode == 3 ? (l & ~7) | ((l + 1) & 7) : (l + 1) & 31);
    printf("%s %s (%d of %d values differ)\n", names[mode], bad ? "WRONG" : "ok", bad, ITERS * 32);
    return mode != 2 && bad ? 1 : 0;
}
