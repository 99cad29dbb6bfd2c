#!/bin/bash
# bench/run_dist_gpu.sh BUILD NP THREADS RUNS ROUNDS WHAT "N:NB ..." — ScaLAPACK with a GPU per
# rank (docs/dist.md "GPUs per rank"): `test_dist --bench N NB RUNS 0 WHAT` (WHAT gemm or qr: the
# engine's routine and ftla's, alternated in each run) on NP ranks of THREADS OpenBLAS threads,
# each rank on its own GPU (bench/rank_gpu.sh), in four modes, alternated ROUNDS times:
#   cpu     the local BLAS on the CPU (OpenBLAS), as ScaLAPACK runs without GPUs;
#   nvblas  CUDA's NVBLAS preloaded: the local level-3 BLAS offloaded, unprotected (the peer);
#   ftla    libftla_preload.so (FTLA_DEVICE=auto): each local dgemm_ an ft_dgemm, on the GPU when
#           ftla's model sends it there;
#   ftla-gpu the same with FTLA_DEVICE=cuda: every local dgemm_ on the GPU.
# MODES (environment) picks some of them. Needs mpirun on PATH (scripts/mpi-env.sh on a machine without MPI) and OpenBLAS's libopenblas
# on LD_LIBRARY_PATH (NVBLAS's CPU BLAS). Prints each run's medians; a summary table last.
set -uo pipefail
b=${1:?usage: run_dist_gpu.sh BUILD NP THREADS RUNS ROUNDS WHAT "N:NB ..."}
np=$2 th=$3 runs=$4 rounds=$5 what=$6 shapes=$7
b=$(cd "$b" && pwd); here=$(cd "$(dirname "$0")" && pwd)
ob=$(for d in ${LD_LIBRARY_PATH//:/ }; do [ -e "$d/libopenblas.so.0" ] && echo "$d/libopenblas.so.0" && break; done)
nvb=$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)
conf=$(mktemp); trap 'rm -f "$conf"' EXIT
printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL0\nNVBLAS_TILE_DIM 2048\nNVBLAS_AUTOPIN_MEM_ENABLED\nNVBLAS_LOGFILE /dev/null\n' "$ob" >"$conf"
sum=$(mktemp)
echo "% $(date -u '+%F %T UTC') $what np $np threads $th runs $runs rounds $rounds;" \
     "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; nvblas $nvb; cpu blas $ob"
for r in $(seq 1 "$rounds"); do
  for s in $shapes; do
    n=${s%%:*} nb=${s##*:}
    for m in ${MODES:-cpu nvblas ftla ftla-gpu}; do
      pre= dev=auto
      case $m in nvblas) pre=$nvb ;; ftla) pre=$b/libftla_preload.so ;;
                 ftla-gpu) pre=$b/libftla_preload.so dev=cuda ;; esac
      [ "$m" = nvblas ] && [ -z "$nvb" ] && continue
      out=$(mpirun -np "$np" --bind-to none -x OPENBLAS_NUM_THREADS="$th" -x OPENBLAS_CORETYPE \
            -x RANK_PRELOAD="$pre" -x FTLA_DEVICE="$dev" -x NVBLAS_CONFIG_FILE="$conf" \
            -x FTLA_VERBOSE=1 "$here/rank_gpu.sh" "$b/testing/test_dist" --bench "$n" "$nb" \
            "$runs" 0 "$what" 2>&1)
      echo "== $m N $n nb $nb round $r"; echo "$out" | grep -v "^ftla: ft_pd"
      echo "$out" | sed -n "s/^% [0-9x]* N [0-9]* nb [0-9]* \([a-zA-Z_]*\) *median \([0-9.]*\).*/$n $nb $m \1 \2/p" >>"$sum"
    done
  done
done
echo "% summary: N nb mode routine median(s) (each round)"
sort -k1,1n -k2,2n -k3,3 -k4,4 "$sum" | awk '{k=$1" "$2" "$3" "$4; v[k]=v[k]" "$5} END {for (k in v) print k":"v[k]}' | sort -k1,1n -k2,2n
rm -f "$sum"
