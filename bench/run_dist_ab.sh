#!/bin/bash
# bench/run_dist_ab.sh BASE_BUILD NEW_BUILD [ROUNDS] [RUNS] [N] — ft_pdgeqrf against PDGEQRF (WHAT=qr,
# the default) or ft_pdgemm against PDGEMM (WHAT=gemm) for two
# builds of this project (e.g. a worktree of the previous commit and this tree, each configured
# with -DFTLA_WITH_CUDA=OFF), alternated: ROUNDS (default 3) rounds of base then new, each one
# process `test_dist --bench N 64 RUNS 0 qr` (N default 4096, RUNS default 15) on 4 ranks, 2 x 2.
# Prints each run's medians and its ratio of medians and median of paired ratios (each round of
# a run times PDGEQRF and ft_pdgeqrf back to back), then the summary.
#
# How the ranks run (docs/dist.md "Cost"): 4 ranks oversubscribe the 2 cores of the CI-like
# machine; they are bound round robin to the cores (--bind-to core:overload-allowed: ranks 0, 2
# — process column 0 — on core 0, ranks 1, 3 on core 1), which Open MPI runs with
# mpi_yield_when_idle (oversubscribed). Unbound, the same runs spread twice as widely. One
# OpenBLAS thread a rank; OPENBLAS_CORETYPE=SkylakeX where the CPU has AVX-512 and it is unset
# (OpenBLAS 0.3.21 takes some AVX-512 CPUs for Prescott and runs ~4x slower there).
set -uo pipefail
base=${1:?usage: run_dist_ab.sh BASE_BUILD NEW_BUILD [ROUNDS] [RUNS] [N]}
new=${2:?usage: run_dist_ab.sh BASE_BUILD NEW_BUILD [ROUNDS] [RUNS] [N]}
rounds=${3:-3} runs=${4:-15} n=${5:-4096} what=${WHAT:-qr}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
if [ -z "${OPENBLAS_CORETYPE+x}" ] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
echo "% $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $what, N $n, $runs runs a process, $rounds rounds;" \
     "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; base $base, new $new"
sum=$(mktemp)
trap 'rm -f "$sum"' EXIT
for r in $(seq 1 "$rounds"); do
    for v in base new; do
        b=$base
        [ "$v" = new ] && b=$new
        echo "== $v $r"
        out=$(mpirun --oversubscribe --bind-to core:overload-allowed -np 4 -x OPENBLAS_NUM_THREADS \
            -x OPENBLAS_CORETYPE "$b/testing/test_dist" --bench "$n" 64 "$runs" 0 "$what" 2>&1)
        echo "$out"
        echo "$out" |
            sed -n "s/.*ratio ft\/engine: [a-z]* \([0-9.]*\); paired by round: median \([0-9.]*\).*/$v \1 \2/p" >>"$sum"
    done
done
echo "% summary (ratio of medians, median of paired ratios), per run:"
for v in base new; do
    printf '%s:' "$v"
    awk -v v="$v" '$1 == v { printf " %s/%s", $2, $3 }' "$sum"
    echo
done
