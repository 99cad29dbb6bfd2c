#!/bin/bash
# session 42 f: host pointers, pinned buffers (the direct early copies) and pageable, 16384, final code
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 --target bench_dgeqrf_gpu > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
for v in pinned pageable pinned; do
  P=""; [ $v = pinned ] && P=--pinned
  timeout 100 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 7 --host $P --no-noq > $OUT/b16k_$v.$RANDOM.log 2>&1; f=$(ls -t $OUT/b16k_$v.*.log | head -1)
  echo "16384 $v: $(grep -E '^  (cusolver|ftla-on|ftla-off|cusolver-dev) ' $f | awk '{printf "%s %s [%s-%s]  ", $1,$2,$3,$4}') | $(grep -o 'cusolver-dev / ftla-on [0-9.]*' $f) $(grep -o 'check: colnorm.*' $f | cut -c1-60) $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
