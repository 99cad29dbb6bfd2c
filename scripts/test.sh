#!/usr/bin/env bash
# scripts/test.sh [CTEST_ARGS...] — build ftla and run its tests (the README's test command; CI
# runs it through .ci/run).
#
#   1. scripts/deps.sh: install missing build dependencies (Debian/Ubuntu, as root);
#   2. configure a Release build in ${FTLA_BUILD_DIR:-build}; FTLA_WITH_CUDA=AUTO builds the CUDA
#      backend when nvcc is found (/usr/local/cuda/bin/nvcc or PATH) — that compile takes a while;
#      extra CMake arguments from ${FTLA_CMAKE_ARGS}, e.g. FTLA_CMAKE_ARGS=-DFTLA_WITH_CUDA=OFF;
#   3. build with all cores;
#   4. ctest --output-on-failure: labels `cpu` (run everywhere) and `gpu` (each gpu test skips
#      itself when there is no usable device). CTEST_ARGS are passed on, e.g. `-L cpu`.
# Exit status: non-zero when a step fails or any test fails (ctest prints its summary last).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${FTLA_BUILD_DIR:-build}
jobs=${FTLA_JOBS:-$(nproc 2>/dev/null || echo 2)}

bash scripts/deps.sh
# shellcheck disable=SC2086  # FTLA_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${FTLA_CMAKE_ARGS:-}
cmake --build "$build" -j"$jobs"
cd "$build"
ctest --output-on-failure --no-tests=error "$@"
