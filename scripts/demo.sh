#!/usr/bin/env bash
# scripts/demo.sh [N | M N K [SEED]] — build ftla and run the demo (examples/demo.c): a random
# 1024 x 1024 product (or the sizes given) on the GPU when one is usable, else on the CPU, with one
# bit flip injected into C during the computation; the demo shows where the fault went, that it
# was detected and corrected, and the error against a fault-free reference. Prints "demo: OK" and
# exits 0 only when all of that holds.
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
