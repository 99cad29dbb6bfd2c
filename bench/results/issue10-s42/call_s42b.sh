#!/bin/bash
# session 42 b: why host pointers at 16384 ran 1.05 s: old (d8f3a72) vs new, h2d micro, phases
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
nproc; free -g | head -2; uptime
CFG="-DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB"
cmake -S . -B build-gpu $CFG > $OUT/cfg.log 2>&1
cmake -S .deps/old_src -B build-old $CFG > $OUT/cfg_old.log 2>&1
(cmake --build build-gpu -j8 --target bench_dgeqrf_gpu test_stage > $OUT/build.log 2>&1; echo "build new rc=$?") &
(cmake --build build-old -j8 --target bench_dgeqrf_gpu > $OUT/build_old.log 2>&1; echo "build old rc=$?") &
(cd bench/micro && nvcc -O3 -arch=sm_90 -o /tmp/h2d_stage h2d_stage.cu > $OUT/nvcc.log 2>&1; echo "nvcc rc=$?") &
wait; echo "builds $(( $(date +%s) - t0 )) s"
timeout 120 /tmp/h2d_stage > $OUT/h2d_stage.txt 2>&1; echo "h2d rc=$?"; cat $OUT/h2d_stage.txt
FTLA_STAGE_SLOT=65536 timeout 60 build-gpu/testing/test_stage cuda > $OUT/test_stage64k.log 2>&1; echo "test_stage slot64k rc=$? $(tail -1 $OUT/test_stage64k.log)"; grep FAIL $OUT/test_stage64k.log | head -3
for v in old new0 new1 old new0 new1; do
  case $v in old) B=build-old; E=0;; new0) B=build-gpu; E=0;; new1) B=build-gpu; E=1;; esac
  FTLA_QR_EARLY_OUT=$E timeout 100 $B/bench/bench_dgeqrf_gpu -N 16384 --runs 3 --host --no-noq --phases 1 > $OUT/b16k_$v.$RANDOM.log 2> $OUT/b16k_$v.err; f=$(ls -t $OUT/b16k_$v.*.log | head -1)
  echo "16384 $v: $(grep -E '^  (cusolver|ftla-on|ftla-off|cusolver-dev) ' $f | awk '{printf "%s %s [%s-%s]  ", $1,$2,$3,$4}') $(( $(date +%s) - t0 )) s"
done
grep -iE "stage|copy|in |out " $OUT/b16k_new1.err | head -5
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf logs.tgz *.log *.err 2>/dev/null; rm -f *.log *.err
