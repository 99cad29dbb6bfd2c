#!/bin/bash
# session 41 j: staging slot 16 vs 8 MB alternated at 16384 (host pointers) with cuSOLVER device-resident; 32768 slot 16 and device-resident
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 --target bench_dgeqrf_gpu > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
for r in 1 2; do for mb in 16 8; do
  FTLA_STAGE_SLOT_MB=$mb timeout 60 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --host --no-noq > $OUT/b16k_host_s${mb}_$r.log 2>&1; echo "16384 host slot $mb r$r rc=$? $(grep -E '^dgeqrf.*ftla-on ' $OUT/b16k_host_s${mb}_$r.log | awk '{print "on",$9,$10,$11}') $(( $(date +%s) - t0 )) s"
done; done
timeout 40 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --no-noq > $OUT/b16k_dev.log 2>&1; echo "16384 dev: $(grep -E '^dgeqrf.*(cusolver|ftla-on) ' $OUT/b16k_dev.log | awk '{print $7,$9,$10,$11}' | tr '\n' ' ')"
FTLA_STAGE_SLOT_MB=16 timeout 75 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --host --no-noq > $OUT/b32k_host_s16.log 2>&1; echo "32768 host slot 16 rc=$? $(grep -E '^dgeqrf.*ftla-on ' $OUT/b32k_host_s16.log | awk '{print "on",$9,$10,$11}') $(( $(date +%s) - t0 )) s"
timeout 45 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --no-noq > $OUT/b32k_dev.log 2>&1; echo "32768 dev rc=$? $(grep -E '^dgeqrf.*(cusolver|ftla-on) ' $OUT/b32k_dev.log | awk '{print $7,$9,$10,$11}' | tr '\n' ' ')"
echo "total $(( $(date +%s) - t0 )) s"
