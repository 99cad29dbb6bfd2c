#!/bin/bash
# session 42 e: final code (a45a2c0): ctest -L gpu, GPU campaigns (device pointers seed 43, host pointers seed 45), the replay of seed 43 trial 658
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"; grep -E " error" $OUT/build.log | head -3
build-gpu/testing/ft_campaign --seed 43 --routine dgemm --trial 658 --device cuda --pointers device > $OUT/replay_s43_t658.txt 2>&1; echo "replay rc=$? $(grep -E '^dgemm' $OUT/replay_s43_t658.txt | sed 's/.*-> //')"
timeout 80 build-gpu/testing/ft_campaign --device cuda --pointers device --trials 1500 --seed 43 > $OUT/campaign_cuda_dev_s43.txt 2>&1; echo "campaign dev ptrs s43 rc=$? $(tail -1 $OUT/campaign_cuda_dev_s43.txt) $(( $(date +%s) - t0 )) s"; grep -A2 "gate failures" $OUT/campaign_cuda_dev_s43.txt | head -3
timeout 80 build-gpu/testing/ft_campaign --device cuda --trials 1500 --seed 45 > $OUT/campaign_cuda_host_s45.txt 2>&1; echo "campaign host ptrs s45 rc=$? $(tail -1 $OUT/campaign_cuda_host_s45.txt) $(( $(date +%s) - t0 )) s"; grep -A2 "gate failures" $OUT/campaign_cuda_host_s45.txt | head -3
(cd build-gpu && timeout 280 ctest -L gpu -j4 -E 'bigsizes|givens' > $OUT/ctest_gpu.log 2>&1); echo "ctest -L gpu rc=$? $(grep -E 'tests passed' $OUT/ctest_gpu.log) $(( $(date +%s) - t0 )) s"; grep -E "\*\*\*|Failed  " $OUT/ctest_gpu.log | head
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf logs.tgz *.log 2>/dev/null; rm -f *.log
