#!/bin/bash
# session 41 c: ncu on arrive_mm_k (why 5 us a chunk)
set -uo pipefail
export OPENBLAS_CORETYPE=SkylakeX
export LD_LIBRARY_PATH=$PWD/.deps/blas/lib:${LD_LIBRARY_PATH:-}
t0=$(date +%s); DB=$PWD/.deps/blas
[ -f build-gpu/CMakeCache.txt ] || cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$DB > $OUT/cfg.log 2>&1
cmake --build build-gpu -j16 --target test_reduce > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - t0 )) s"
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1); [ -z "$NCU" ] && NCU=$(which ncu)
timeout 200 $NCU -k regex:arrive_mm_k -c 1 --set full --import-source yes -o $OUT/mm build-gpu/testing/test_reduce cuda --bench > $OUT/ncu_run.log 2>&1; echo "ncu rc=$? $(( $(date +%s) - t0 )) s"
$NCU -i $OUT/mm.ncu-rep --page details > $OUT/mm_details.txt 2>&1
grep -E "Duration|Registers|Achieved Occupancy|Stall|Issue Slots|Executed Ipc|Warp Cycles Per Issued|No Eligible|L1/TEX Hit|Mem Busy|DRAM Throughput|SM Busy|Block Limit|Theoretical Occ" $OUT/mm_details.txt | head -40
$NCU -i $OUT/mm.ncu-rep --page raw --csv 2>/dev/null | tr ',' '\n' > /dev/null
$NCU -i $OUT/mm.ncu-rep --page raw 2>/dev/null | grep -E "smsp__pcsamp_warps_issue_stalled_[a-z_]+ " | sort -k3 -n -r | head -14
$NCU -i $OUT/mm.ncu-rep --page source --csv --print-source sass 2>/dev/null > $OUT/mm_sass.csv; echo "sass lines $(wc -l < $OUT/mm_sass.csv)"
echo "total $(( $(date +%s) - t0 )) s"
