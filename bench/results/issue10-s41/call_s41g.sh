#!/bin/bash
# session 41 g: host pointers — pageable vs pinned copies (micro), bench_dgeqrf_gpu --host and --host --pinned at 16384
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
(cd bench/micro && nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/h2d_stage h2d_stage.cu) && timeout 150 /tmp/h2d_stage 2048 > $OUT/h2d_stage.txt 2>&1; echo "h2d rc=$? $(( $(date +%s) - t0 )) s"; cat $OUT/h2d_stage.txt
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 --target bench_dgeqrf_gpu > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
nproc; grep -m1 "model name" /proc/cpuinfo
timeout 200 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --host --no-noq > $OUT/b16k_host.log 2>&1; echo "host rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^dgeqrf" $OUT/b16k_host.log
timeout 200 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --host --pinned --no-noq > $OUT/b16k_hostpin.log 2>&1; echo "host pinned rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^dgeqrf" $OUT/b16k_hostpin.log
timeout 100 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --no-noq > $OUT/b16k_dev.log 2>&1; echo "dev rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^dgeqrf" $OUT/b16k_dev.log
echo "total $(( $(date +%s) - t0 )) s"
