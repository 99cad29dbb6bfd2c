#!/usr/bin/env bash
# scripts/demo.sh [N | M N K [SEED]] — build ftla and run the demo (examples/demo.c) on the GPU
# when one is usable, else on the CPU: (1) a random 1024 x 1024 product (or the sizes given) with
# one bit flip injected into C during the computation — where the fault went, that it was
# detected and corrected, the error against a fault-free reference; (2) ft_dgeqrf of a random
# 1024 x 1024 (M x N) matrix with one bit flip in a finished row of R and, in a second run, one in
# the trailing matrix with online checks — detected, located, corrected in place, with the QR
# accuracy ratios; then, shown only, a trailing fault consumed by a panel (located, not
# recovered). Prints "demo: OK" and exits 0 only when the corrections and accuracy hold.
#
# Same environment as scripts/test.sh: FTLA_BUILD_DIR (default build), FTLA_CMAKE_ARGS, FTLA_JOBS;
# FTLA_DEVICE=cpu forces the CPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${FTLA_BUILD_DIR:-build}
jobs=${FTLA_JOBS:-$(nproc 2>/dev/null || echo 2)}

bash scripts/deps.sh
# shellcheck disable=SC2086  # FTLA_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${FTLA_CMAKE_ARGS:-}
cmake --build "$build" -j"$jobs" --target ftla_demo
exec "$build/examples/ftla_demo" "$@"
