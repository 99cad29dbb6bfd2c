#!/bin/bash
# session 41 a: contention micro (what each check kernel costs a product beside it); tri_mul with 4 chains A/B
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
timeout 60 build-gpu/testing/test_reduce cuda > $OUT/test_reduce_cuda.log 2>&1; echo "test_reduce cuda rc=$? $(tail -1 $OUT/test_reduce_cuda.log) $(( $(date +%s) - t0 )) s"
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude=./build-gpu --exclude=./.deps -cf - . | tar -xf - -C /tmp/old
cp .deps/old_pc/qr_pcheck_cuda.cu /tmp/old/src/qr/
(cd /tmp/old && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/old_cfg.log 2>&1 && cmake --build build -j16 --target test_reduce > $OUT/old_build.log 2>&1); echo "old build rc=$? $(( $(date +%s) - t0 )) s"
for v in old new old new; do b=$([ $v = old ] && echo /tmp/old/build || echo build-gpu); timeout 60 $b/testing/test_reduce cuda --contend > $OUT/contend_$v.log 2>&1; echo "== $v rc=$? $(( $(date +%s) - t0 )) s"; cat $OUT/contend_$v.log; done
for v in old new; do b=$([ $v = old ] && echo /tmp/old/build || echo build-gpu); timeout 30 $b/testing/test_reduce cuda --bench > $OUT/bench_$v.log 2>&1; echo "$v: $(grep -E 'wform' $OUT/bench_$v.log | tr '\n' ' ')"; done
echo "total $(( $(date +%s) - t0 )) s"
