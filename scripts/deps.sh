#!/usr/bin/env bash
# scripts/deps.sh — install what ftla needs to build and test, only when something is missing.
#
# Needs: cmake, a C compiler (gcc), g++, gfortran (optional: the Fortran example), make,
# pkg-config, OpenBLAS (with CBLAS) and LAPACKE headers + libraries. On Debian/Ubuntu as root this
# runs `apt-get update && apt-get install -y --no-install-recommends ...` for the missing packages;
# anywhere else it says what is missing and leaves the rest to you (CMake stops with a clear
# message if a library is really absent; a staged prefix works too: CMAKE_PREFIX_PATH=...).
# The CUDA toolkit is not installed here: CMake uses it when /usr/local/cuda/bin/nvcc (or nvcc on
# PATH) exists.
set -euo pipefail

pkgs=(cmake gcc g++ gfortran make libopenblas-dev liblapacke-dev pkg-config)
# Optional: the reference BLAS / LAPACK test programs (xblat3d, xdcblat3, xlintstd) that the
# interposer's tests run with libftla_preload.so preloaded (testing/preload.cmake), and MPI +
# ScaLAPACK for the distributed routines (cmake/dist.cmake: FTLA_WITH_MPI=AUTO builds them and
# their mpirun tests when found); without them those tests are skipped or not built, so a failed
# install here is not an error.
optional=(libblas-test liblapack-test openmpi-bin libopenmpi-dev libscalapack-openmpi-dev)

# A package counts as present when dpkg says so, or (without dpkg) when its tool / header exists.
have_pkg() {
    if command -v dpkg-query >/dev/null 2>&1; then
        [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == *"install ok installed"* ]] && return 0
        # for a library dpkg's answer is final: a header another package left (libblas-dev's
        # cblas.h) must not stand in for libopenblas-dev; a tool may come from elsewhere
        case "$1" in lib*) return 1 ;; esac
    fi
    case "$1" in
        libopenblas-dev) for d in /usr/include /usr/include/openblas /usr/include/x86_64-linux-gnu \
                                  /usr/include/x86_64-linux-gnu/openblas-pthread /usr/local/include; do
                             [ -f "$d/cblas.h" ] && return 0
                         done; return 1 ;;
        liblapacke-dev)  [ -f /usr/include/lapacke.h ] || [ -f /usr/local/include/lapacke.h ] ;;
        *)               command -v "$1" >/dev/null 2>&1 ;;
    esac
}

missing=()
for p in "${pkgs[@]}"; do
    have_pkg "$p" || missing+=("$p")
done
missing_opt=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${optional[@]}"; do
        have_pkg "$p" || missing_opt+=("$p")
    done
fi

install_optional() {
    [ ${#missing_opt[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] ||
        return 0
    export DEBIAN_FRONTEND=noninteractive
    if apt-get install -y --no-install-recommends "${missing_opt[@]}" ||
       { apt-get update && apt-get install -y --no-install-recommends "${missing_opt[@]}"; }; then
        echo "deps: installed ${missing_opt[*]}"
    else
        echo "deps: could not install ${missing_opt[*]}: the tests that need them" \
             "will be skipped or not built" >&2
    fi
}

if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: everything present (${pkgs[*]})"
    install_optional
    exit 0
fi

echo "deps: missing: ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: no apt-get on this system; install the equivalents of the packages above" \
         "with your package manager, then run this again. Continuing; the build may fail." >&2
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: not root, so not installing. Run as root, or:" >&2
    echo "      sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    echo "deps: continuing; the build may fail." >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "deps: installed ${missing[*]}"
install_optional
