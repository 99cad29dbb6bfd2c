/*
 * h2d_stage.cu — copying a matrix held in pageable host memory to and from the device (issue 10,
 * host pointers): the driver's pageable cudaMemcpy; the buffer registered (cudaHostRegister, its
 * cost timed); staged through pinned buffers by T host threads (each memcpy's a chunk into one of
 * its two pinned buffers, then an asynchronous copy on its own stream); and a pinned buffer as
 * the ceiling. GB/s of the bytes moved, the best of 3.
 *   nvcc -O3 -arch=sm_90 -o h2d_stage h2d_stage.cu && ./h2d_stage [MB]
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/* T threads, chunk bytes: thread t takes chunks t, t + T, ... */
/* T threads, chunk bytes: thread t takes chunks t, t + T, ...; pins: 2 T pinned buffers of chunk
 * bytes, streams T (made beforehand, as a library would keep them) */
static void staged(bool h2d, char *host, char *dev, size_t bytes, int T, size_t chunk,
                   char **pins, cudaStream_t *streams)
{
    std::vector<std::thread> th;
    for (int t = 0; t < T; t++)
        th.emplace_back([=] {
            cudaStream_t s = streams[t];
            char *pin[2] = {pins[2 * t], pins[2 * t + 1]};
            cudaEvent_t ev[2];
            for (int b = 0; b < 2; b++) {
                CK(cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming));
                CK(cudaEventRecord(ev[b], s));
            }
            int b = 0;
            size_t prev_off = 0, prev_len = 0;
            int prev_b = -1;
            for (size_t off = (size_t)t * chunk; off < bytes; off += (size_t)T * chunk, b ^= 1) {
                const size_t len = bytes - off < chunk ? bytes - off : chunk;
                CK(cudaEventSynchronize(ev[b])); /* the buffer's previous copy done */
                if (h2d) {
                    memcpy(pin[b], host + off, len);
                    CK(cudaMemcpyAsync(dev + off, pin[b], len, cudaMemcpyHostToDevice, s));
                    CK(cudaEventRecord(ev[b], s));
                } else {
                    CK(cudaMemcpyAsync(pin[b], dev + off, len, cudaMemcpyDeviceToHost, s));
                    CK(cudaEventRecord(ev[b], s));
                    if (prev_b >= 0) { /* the previous chunk to the host while this one copies */
                        CK(cudaEventSynchronize(ev[prev_b]));
                        memcpy(host + prev_off, pin[prev_b], prev_len);
                    }
                    prev_b = b, prev_off = off, prev_len = len;
                }
            }
            if (!h2d && prev_b >= 0) {
                CK(cudaEventSynchronize(ev[prev_b]));
                memcpy(host + prev_off, pin[prev_b], prev_len);
            }
            CK(cudaStreamSynchronize(s));
            for (int k = 0; k < 2; k++) CK(cudaEventDestroy(ev[k]));
        });
    for (auto &x : th) x.join();
}

int main(int argc, char **argv)
{
    const size_t MB = argc > 1 ? atol(argv[1]) : 2048, bytes = MB << 20;
    char *host = (char *)malloc(bytes), *pinned, *dev;
    memset(host, 1, bytes);
    CK(cudaMalloc(&dev, bytes));
    CK(cudaMallocHost(&pinned, bytes));
    memset(pinned, 1, bytes);
    printf("%zu MB; GB/s, the best of 3\n", MB);
    auto best = [&](auto f) {
        double b = 1e30;
        for (int r = 0; r < 3; r++) {
            CK(cudaDeviceSynchronize());
            const double t0 = now();
            f();
            CK(cudaDeviceSynchronize());
            const double t = now() - t0;
            if (t < b) b = t;
        }
        return bytes / b * 1e-9;
    };
    printf("pinned          H2D %6.1f  D2H %6.1f\n",
           best([&] { CK(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice)); }),
           best([&] { CK(cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost)); }));
    printf("pageable        H2D %6.1f  D2H %6.1f\n",
           best([&] { CK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)); }),
           best([&] { CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)); }));
    for (int r = 0; r < 2; r++) {
        double t0 = now();
        CK(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
        const double treg = now() - t0;
        const double h = best([&] { CK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)); });
        const double d = best([&] { CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)); });
        t0 = now();
        CK(cudaHostUnregister(host));
        printf("registered      H2D %6.1f  D2H %6.1f  (register %.1f ms, unregister %.1f ms)\n", h, d,
               1e3 * treg, 1e3 * (now() - t0));
    }
    for (size_t chunk : {(size_t)4 << 20, (size_t)16 << 20, (size_t)64 << 20})
        for (int T : {1, 2, 4, 8, 12}) {
            std::vector<char *> pins(2 * T);
            std::vector<cudaStream_t> st(T);
            for (auto &p : pins) CK(cudaMallocHost(&p, chunk));
            for (auto &x : st) CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
            printf("staged %2d x %2zu MB H2D %6.1f  D2H %6.1f\n", T, chunk >> 20,
                   best([&] { staged(true, host, dev, bytes, T, chunk, pins.data(), st.data()); }),
                   best([&] { staged(false, host, dev, bytes, T, chunk, pins.data(), st.data()); }));
            for (auto &p : pins) CK(cudaFreeHost(p));
            for (auto &x : st) CK(cudaStreamDestroy(x));
        }
    return 0;
}
