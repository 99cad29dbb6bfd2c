#!/bin/bash
# bench/run_cpu.sh [BUILD_DIR] — bench_cpu with its defaults on this machine's CPU (ftla's CPU
# backend): ft_dgemm_ex vs cblas_dgemm at n = 2048, beta 0 and 1; ft_dgeqrf_ex vs LAPACKE_dgeqrf
# and vs a plain blocked Householder QR with ftla's block size; 7 timed runs after a warm-up,
# calls alternated, median and min-max (protocol in bench/bench_cpu.c's header).
# BUILD_DIR: default build-cpu when it exists, else build. Extra arguments after BUILD_DIR go to
# bench_cpu (e.g. -N 512 --runs 9). Log: $OUT (when set) else ./bench-logs, file cpu.log.
set -uo pipefail
if [ $# -gt 0 ]; then b=$1; shift; elif [ -d build-cpu ]; then b=build-cpu; else b=build; fi
out=${OUT:-./bench-logs}
mkdir -p "$out"
"$b/bench/bench_cpu" "$@" 2>&1 | tee "$out/cpu.log"
exit "${PIPESTATUS[0]}"
