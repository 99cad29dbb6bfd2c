#!/bin/bash
# session 42 c: early copy-out: tests, GPU campaign with 4 KB slots (host pointers), 16384/32768 A/B vs cusolver-dev
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"; grep -E "error" $OUT/build.log | head -3
(cd build-gpu && timeout 200 ctest -L gpu -j4 -R 'dgeqrf|stage|dgels|fortran|abi' -E 'trace|bigsizes' > $OUT/ctest.log 2>&1); echo "ctest rc=$? $(grep -E 'tests passed' $OUT/ctest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*" $OUT/ctest.log | head
FTLA_STAGE_SLOT=4096 timeout 150 build-gpu/testing/ft_campaign --device cuda --routine dgeqrf --trials 1500 --seed 42 > $OUT/campaign_cuda_host_slot4k.txt 2>&1; echo "campaign dgeqrf host ptrs slot 4 KB rc=$? $(( $(date +%s) - t0 )) s"; tail -4 $OUT/campaign_cuda_host_slot4k.txt
for v in 1 0 1 0; do
  FTLA_QR_EARLY_OUT=$v timeout 100 build-gpu/bench/bench_dgeqrf_gpu -N 16384 --runs 7 --host --no-noq > $OUT/b16k_e$v.$RANDOM.log 2>&1; f=$(ls -t $OUT/b16k_e$v.*.log | head -1)
  echo "16384 early=$v: $(grep -E '^  (cusolver|ftla-on|ftla-off|cusolver-dev) ' $f | awk '{printf "%s %s [%s-%s]  ", $1,$2,$3,$4}') | $(grep -o 'cusolver-dev / ftla-on [0-9.]*' $f) $(( $(date +%s) - t0 )) s"
done
for v in 1 0; do
  FTLA_QR_EARLY_OUT=$v timeout 150 build-gpu/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --host --no-noq > $OUT/b32k_e$v.log 2>&1
  echo "32768 early=$v: $(grep -E '^  (ftla-on|ftla-off|cusolver-dev) ' $OUT/b32k_e$v.log | awk '{printf "%s %s [%s-%s]  ", $1,$2,$3,$4}') | $(grep -o 'cusolver-dev / ftla-on [0-9.]*' $OUT/b32k_e$v.log) $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf logs.tgz *.log 2>/dev/null; rm -f *.log
