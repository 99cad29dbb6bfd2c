#!/bin/bash
# session 42 d: the source copy of A beside the first panel (split copy); early-out test; campaigns; A/B old (c3e97b4) vs new, device pointers 16384/32768
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
CFG="-DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB"
cmake -S . -B build-gpu $CFG > $OUT/cfg.log 2>&1
cmake -S .deps/old_src -B build-old $CFG > $OUT/cfg_old.log 2>&1
(cmake --build build-gpu -j10 > $OUT/build.log 2>&1; echo "build new rc=$?") &
(cmake --build build-old -j6 --target bench_dgeqrf_gpu > $OUT/build_old.log 2>&1; echo "build old rc=$?") &
wait; echo "builds $(( $(date +%s) - t0 )) s"; grep -E " error" $OUT/build.log | head -3
(cd build-gpu && timeout 200 ctest -L gpu -j4 -R 'dgeqrf|stage|dgels|recover|reflect' -E 'trace|bigsizes' > $OUT/ctest.log 2>&1); echo "ctest rc=$? $(grep -E 'tests passed' $OUT/ctest.log) $(( $(date +%s) - t0 )) s"; grep -E "Failed|\*\*\*" $OUT/ctest.log | head
timeout 90 build-gpu/testing/ft_campaign --device cuda --pointers device --trials 1500 --seed 43 > $OUT/campaign_cuda_dev.txt 2>&1; echo "campaign dev ptrs rc=$? $(tail -1 $OUT/campaign_cuda_dev.txt) $(( $(date +%s) - t0 )) s"; grep -A3 "gate failures" $OUT/campaign_cuda_dev.txt | head -4
FTLA_STAGE_SLOT=4096 timeout 90 build-gpu/testing/ft_campaign --device cuda --trials 1500 --seed 44 > $OUT/campaign_cuda_host_slot4k.txt 2>&1; echo "campaign host ptrs slot 4 KB rc=$? $(tail -1 $OUT/campaign_cuda_host_slot4k.txt) $(( $(date +%s) - t0 )) s"; grep -A3 "gate failures" $OUT/campaign_cuda_host_slot4k.txt | head -4
for v in new old new old; do
  B=build-gpu; [ $v = old ] && B=build-old
  timeout 80 $B/bench/bench_dgeqrf_gpu -N 16384 --runs 7 --no-noq > $OUT/b16k_$v.$RANDOM.log 2>&1; f=$(ls -t $OUT/b16k_$v.*.log | head -1)
  echo "16384 dev $v: $(grep -E '^  (cusolver|ftla-on|ftla-off) ' $f | awk '{printf "%s %s  ", $1,$2}') | $(grep -o 'paired per round.*' $f | cut -c1-90) $(( $(date +%s) - t0 )) s"
done
for v in new old; do
  B=build-gpu; [ $v = old ] && B=build-old
  timeout 100 $B/bench/bench_dgeqrf_gpu -N 32768 --runs 3 --no-noq > $OUT/b32k_$v.log 2>&1
  echo "32768 dev $v: $(grep -E '^  (cusolver|ftla-on|ftla-off) ' $OUT/b32k_$v.log | awk '{printf "%s %s  ", $1,$2}') | $(grep -o 'paired per round.*' $OUT/b32k_$v.log | cut -c1-90) $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf logs.tgz *.log 2>/dev/null; rm -f *.log
