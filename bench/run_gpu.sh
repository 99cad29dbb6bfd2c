#!/bin/bash
# bench/run_gpu.sh [BUILD_DIR] — ft_dgemm_gpu vs cuBLAS DGEMM in the same run (device pointers,
# square NN), protection on, no fault and one injected fault; n = 8192 and 16384.
set -uo pipefail
b=${1:-build-gpu}
t=$b/testing/testing_ft_dgemm
for n in 8192 16384; do
  it=6; [ $n -gt 8192 ] && it=4
  for beta in 0 1; do
    "$t" -N $n --beta $beta --niter $it --device cuda --gpu-pointers
  done
  "$t" -N $n --niter $it --device cuda --gpu-pointers --inject 1
done
