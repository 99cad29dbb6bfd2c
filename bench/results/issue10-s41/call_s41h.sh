#!/bin/bash
# session 41 h: pageable host data through the pinned ring (ft_stage_in/out): tests, host-pointer QR at 16384 and 32768
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"; grep -E "error" $OUT/build.log | head -3
timeout 60 build-gpu/testing/test_stage cuda > $OUT/test_stage.log 2>&1; echo "test_stage cuda rc=$? $(tail -1 $OUT/test_stage.log)"; grep FAIL $OUT/test_stage.log | head
CS=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 120 $CS --tool memcheck build-gpu/testing/test_stage cuda > $OUT/cs_stage.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $OUT/cs_stage.log | tail -1) $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j3 -R 'dgeqrf|dgemm|stage|dgels|fortran|abi' -E 'trace|bigsizes' > $OUT/ctest.log 2>&1); echo "ctest rc=$? $(grep -E 'tests passed' $OUT/ctest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*" $OUT/ctest.log | head
timeout 150 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --host --no-noq > $OUT/b16k_host.log 2>&1; echo "16384 host rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^dgeqrf" $OUT/b16k_host.log
timeout 100 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 5 --no-noq > $OUT/b16k_dev.log 2>&1; echo "16384 dev rc=$?"; grep -E "^dgeqrf" $OUT/b16k_dev.log
timeout 200 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --host --no-noq > $OUT/b32k_host.log 2>&1; echo "32768 host rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^dgeqrf" $OUT/b32k_host.log
timeout 150 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --no-noq > $OUT/b32k_dev.log 2>&1; echo "32768 dev rc=$? $(( $(date +%s) - t0 )) s"; grep -E "^dgeqrf" $OUT/b32k_dev.log
echo "total $(( $(date +%s) - t0 )) s"
