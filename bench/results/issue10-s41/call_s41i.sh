#!/bin/bash
# session 41 i: staging slot size (FTLA_STAGE_SLOT_MB 8/16/32) at 16384 host pointers; GPU campaign (host pointers) on the staging code
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 --target bench_dgeqrf_gpu ft_campaign test_stage > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
timeout 60 build-gpu/testing/test_stage cuda > $OUT/test_stage.log 2>&1; echo "test_stage cuda rc=$? $(tail -1 $OUT/test_stage.log)"
for mb in 8 32 16; do
  FTLA_STAGE_SLOT_MB=$mb timeout 100 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --host --no-noq > $OUT/b16k_host_s$mb.log 2>&1; echo "16384 host slot $mb MB rc=$? $(grep -E '^dgeqrf.*ftla-on ' $OUT/b16k_host_s$mb.log | awk '{print "on",$9,$10,$11}') $(( $(date +%s) - t0 )) s"
done
timeout 170 build-gpu/testing/ft_campaign --device cuda --trials 1500 --seed 41 > $OUT/campaign_cuda_host.txt 2>&1; echo "campaign host ptrs rc=$? $(( $(date +%s) - t0 )) s"; tail -5 $OUT/campaign_cuda_host.txt
if [ $(( $(date +%s) - t0 )) -lt 230 ]; then
  timeout 90 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --no-noq > $OUT/b16k_dev.log 2>&1; echo "16384 dev: $(grep -E '^dgeqrf.*(cusolver|ftla-on) ' $OUT/b16k_dev.log | awk '{print $7,$9}' | tr '\n' ' ')"
fi
echo "total $(( $(date +%s) - t0 )) s"
