#!/bin/bash
# session 42 a: early copy-out of finished columns (host pointers): tests, memcheck, 16384/32768 A/B vs cusolver-dev
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"; grep -E "error" $OUT/build.log | head -3
timeout 60 build-gpu/testing/test_stage cuda > $OUT/test_stage.log 2>&1; echo "test_stage cuda rc=$? $(tail -1 $OUT/test_stage.log)"; grep FAIL $OUT/test_stage.log | head -5
CS=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
FTLA_STAGE_SLOT=65536 timeout 150 $CS --tool memcheck build-gpu/testing/test_dgeqrf_inject cuda > $OUT/cs_inject.log 2>&1; echo "memcheck inject slot64k rc=$? $(grep -E 'ERROR SUMMARY' $OUT/cs_inject.log | tail -1) $(tail -2 $OUT/cs_inject.log | head -1) $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 240 ctest -L gpu -j4 -R 'dgeqrf|stage|dgels|fortran|abi' -E 'trace|bigsizes' > $OUT/ctest.log 2>&1); echo "ctest rc=$? $(grep -E 'tests passed' $OUT/ctest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*" $OUT/ctest.log | head
for e in 1 0 1 0; do
  FTLA_QR_EARLY_OUT=$e timeout 100 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 7 --host --no-noq > $OUT/b16k_host_e$e.$RANDOM.log 2>&1; f=$(ls -t $OUT/b16k_host_e$e.*.log | head -1)
  echo "16384 early=$e: $(grep -E '^  (ftla-on|ftla-off|cusolver-dev) ' $f | awk '{printf "%s %s [%s-%s]  ", $1,$2,$3,$4}') | $(grep -o 'cusolver-dev / ftla-on [0-9.]*' $f) $(( $(date +%s) - t0 )) s"
done
for e in 1 0; do
  FTLA_QR_EARLY_OUT=$e timeout 150 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --host --no-noq > $OUT/b32k_host_e$e.log 2>&1
  echo "32768 early=$e: $(grep -E '^  (ftla-on|ftla-off|cusolver-dev) ' $OUT/b32k_host_e$e.log | awk '{printf "%s %s [%s-%s]  ", $1,$2,$3,$4}') | $(grep -o 'cusolver-dev / ftla-on [0-9.]*' $OUT/b32k_host_e$e.log) $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
