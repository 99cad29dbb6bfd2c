#!/bin/bash
# bench/run_cpu.sh [BUILD_DIR] — ft_dgemm vs OpenBLAS dgemm on this machine's CPU, n = 2048,
# beta = 0 and beta = 1, median of 5 after a warm-up. Prints the tester's table.
set -euo pipefail
b=${1:-build}
t=$b/testing/testing_ft_dgemm
for beta in 0 1; do
  "$t" -N 2048 --beta $beta --niter 6 --device cpu --check
done
