#!/bin/bash
# bench/run_gpu.sh [BUILD_DIR] — the GPU benchmarks with their defaults, under the protocol in
# each program's header (warm-up, alternated calls, >= 7 timed runs, median and min-max, checks):
#   bench_dgemm_gpu                  ft_dgemm_gpu_ex vs cublasDgemm, device pointers,
#                                    n = 8192, 16384
#   bench_dgemm_gpu --inject 1       the same with one bit flip in C per protected call
#   bench_dgeqrf_gpu                 ft_dgeqrf_gpu_ex vs cusolverDnDgeqrf, device pointers,
#                                    n = 8192, 16384, 32768
#   bench_dgeqrf_gpu --host          ft_dgeqrf_ex vs cuSOLVER including its host<->device copies
# BUILD_DIR (default build-gpu) is a CUDA build: cmake -S . -B build-gpu -DFTLA_WITH_CUDA=ON
# -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build build-gpu -j.
# Logs: one file per program in $OUT (when set) else ./bench-logs, plus env.log.
# OPENBLAS_CORETYPE: ftla's QR panels run in the host's OpenBLAS, which misdetects the H100 host's
# CPU; when unset and the CPU has AVX-512, it is set to SkylakeX here (the benches print it).
# Exit status: 0 when every program passed or skipped (77, no device), else 1.
set -uo pipefail
b=${1:-build-gpu}
out=${OUT:-./bench-logs}
mkdir -p "$out"
if [ -z "${OPENBLAS_CORETYPE+x}" ] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=SkylakeX
fi

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    d=$(dirname "$0")
    echo "tree: $(git -C "$d" rev-parse --short HEAD 2>/dev/null || echo '?')" \
         "$(git -C "$d" status --porcelain 2>/dev/null | grep . >/dev/null && echo dirty)"
    echo "build: $b; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; nproc $(nproc)"
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --format=csv 2>&1 \
            --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu
    else
        echo "nvidia-smi: not available"
    fi
} | tee "$out/env.log"

fail=0
run() { # run LOGNAME PROGRAM ARGS...
    local log=$out/$1.log
    shift
    echo "=== $*" | tee "$log"
    "$@" 2>&1 | tee -a "$log"
    local rc=${PIPESTATUS[0]}
    case $rc in
        0) ;;
        77) echo "=== skipped (no usable CUDA device): $*" ;;
        *) echo "=== FAILED (exit $rc): $*"; fail=1 ;;
    esac
}

run dgemm_gpu "$b/bench/bench_dgemm_gpu"
run dgemm_gpu_inject1 "$b/bench/bench_dgemm_gpu" --inject 1
run dgeqrf_gpu "$b/bench/bench_dgeqrf_gpu"
run dgeqrf_gpu_host "$b/bench/bench_dgeqrf_gpu" --host
echo "logs in $out"
exit $fail
