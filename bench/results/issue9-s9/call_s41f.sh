#!/bin/bash
# session 41 f (m16n8k4): arrive_mm (the check's product and pass fused, DMMA): tests, memcheck, bench, contention, QR tests, 16384 A/B
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"; grep -E "error" $OUT/build.log | head -5
timeout 90 build-gpu/testing/test_reduce cuda > $OUT/test_reduce_cuda.log 2>&1; echo "test_reduce cuda rc=$? $(tail -1 $OUT/test_reduce_cuda.log) $(( $(date +%s) - t0 )) s"; grep -E "FAIL" $OUT/test_reduce_cuda.log | head -8
CS=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 90 $CS --tool memcheck build-gpu/testing/test_reduce cuda --small > $OUT/cs_memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $OUT/cs_memcheck.log | tail -1) $(( $(date +%s) - t0 )) s"
timeout 60 build-gpu/testing/test_reduce cuda --bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; grep -E "arrive|wform" $OUT/bench.log
(cd build-gpu && timeout 150 ctest -L gpu -j3 -R 'dgeqrf' -E 'trace' > $OUT/ctest.log 2>&1); echo "ctest rc=$? $(grep -E 'tests passed' $OUT/ctest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*" $OUT/ctest.log | head
for r in 1 2; do for v in 1 0; do
  FTLA_QR_ARRIVE_MM=$v timeout 150 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 7 > $OUT/b16k_mm${v}_$r.log 2>&1
  echo "16384 MM=$v r$r: $(grep -o 'ftla-on - ftla-on-noQ) / ftla-on-noQ median [^;]*' $OUT/b16k_mm${v}_$r.log) $(grep -E '^dgeqrf.*ftla-on ' $OUT/b16k_mm${v}_$r.log | awk '{print "on",$9,"x",$14}') $(( $(date +%s) - t0 )) s"
done; done
echo "total $(( $(date +%s) - t0 )) s"
