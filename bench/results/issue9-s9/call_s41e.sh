#!/bin/bash
# session 41 e: the trailing update's queue above the check queue (FTLA_QR_QS_MID), 16384 and 32768; arrive_mm off
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
export FTLA_QR_ARRIVE_MM=0
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do for v in 1 0; do
  FTLA_QR_QS_MID=$v timeout 150 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 7 > $OUT/b16k_mid${v}_$r.log 2>&1
  echo "16384 MID=$v r$r: $(grep -o 'ftla-on - ftla-on-noQ) / ftla-on-noQ median [^;]*' $OUT/b16k_mid${v}_$r.log) | $(grep -o 'ftla-on-noQ - ftla-off) / ftla-off median [^;]*' $OUT/b16k_mid${v}_$r.log) $(grep -E '^dgeqrf.*ftla-on ' $OUT/b16k_mid${v}_$r.log | awk '{print "on",$9,"x",$14}') $(( $(date +%s) - t0 )) s"
done; done
for v in 1 0; do
  FTLA_QR_QS_MID=$v timeout 200 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 5 > $OUT/b32k_mid${v}.log 2>&1
  echo "32768 MID=$v: $(grep -o 'ftla-on - ftla-on-noQ) / ftla-on-noQ median [^;]*' $OUT/b32k_mid${v}.log) | $(grep -o 'ftla-on-noQ - ftla-off) / ftla-off median [^;]*' $OUT/b32k_mid${v}.log) $(grep -E '^dgeqrf.*ftla-on ' $OUT/b32k_mid${v}.log | awk '{print "on",$9,"x",$14}') $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
