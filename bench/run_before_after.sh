#!/bin/bash
# bench/run_before_after.sh BASE_SRC_DIR [CONFIG...] — before/after comparison of ftla versions
# with the SAME benchmark sources.
#
#   1. Library "before": configured from BASE_SRC_DIR (an older source tree of this project) into
#      build-base/ and built (target ftla only); library "after": this tree, in build-gpu/.
#      Existing builds are reused (after a check that they were configured from that tree).
#      CMake arguments: -DCMAKE_BUILD_TYPE=Release -DFTLA_WITH_CUDA=ON
#      -DCMAKE_CUDA_ARCHITECTURES=90, plus -DCMAKE_PREFIX_PATH=$DEPS when DEPS is set.
#   2. The benchmark programs are compiled from THIS tree's bench/*.c twice, with identical flags,
#      through the small CMake project bench/standalone: against build-base/libftla.a with
#      BASE_SRC_DIR/include/ftla.h (build-ba/before/) and against build-gpu/libftla.a with this
#      tree's ftla.h (build-ba/after/). Each binary prints its label (before:REV / after:REV).
#   3. For each configuration, processes alternate: before, after, before, after (ROUNDS rounds,
#      default 2); each process does its own warm-up and timed runs. Then every process's table
#      is printed, and a comparison per row (median seconds and ratio to the peer per process,
#      and after/before of the mean medians).
#
# CONFIG: a program and its arguments as one word, e.g. "bench_dgemm_gpu -N 8192 --beta 1".
# Default configurations: "bench_dgemm_gpu", "bench_dgeqrf_gpu", "bench_dgeqrf_gpu --host",
# "bench_cpu" (only "bench_cpu" when the libraries have no CUDA backend).
# Environment: ROUNDS (2), DEPS, FTLA_WITH_CUDA (ON; OFF builds CPU-only libraries),
# CUDA_ARCH (90), FTLA_JOBS (nproc), BASE_BUILD (build-base), CUR_BUILD (build-gpu),
# OUT (log directory, default ./bench-logs): one log per configuration (ba_<i>_<name>.log, all
# its processes) and ba_summary.log. OPENBLAS_CORETYPE defaults to SkylakeX on AVX-512 CPUs
# (the H100 host's OpenBLAS misdetects its CPU).
# Exit status: 0 when every process passed or skipped (77: no device), 1 otherwise, 2 on a
# build or usage error.
set -uo pipefail

die() { echo "run_before_after: error: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: $0 BASE_SRC_DIR [CONFIG...]"
base_src=$(cd "$1" 2>/dev/null && pwd) || die "no such directory: $1"
shift
if [ ! -f "$base_src/CMakeLists.txt" ] || [ ! -f "$base_src/include/ftla.h" ]; then
    die "$base_src is not an ftla source tree (CMakeLists.txt, include/ftla.h)"
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || die "cannot enter $root"
[ "$base_src" != "$root" ] || die "BASE_SRC_DIR is this tree itself"

rounds=${ROUNDS:-2}
with_cuda=${FTLA_WITH_CUDA:-ON}
jobs=${FTLA_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=${OUT:-./bench-logs}
base_build=${BASE_BUILD:-build-base}
cur_build=${CUR_BUILD:-build-gpu}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
if [ -z "${OPENBLAS_CORETYPE+x}" ] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=SkylakeX
fi

cmake_args=(-DCMAKE_BUILD_TYPE=Release "-DFTLA_WITH_CUDA=$with_cuda")
[ "$with_cuda" = OFF ] || cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90}")
prefix_args=()
[ -n "${DEPS:-}" ] && prefix_args+=("-DCMAKE_PREFIX_PATH=$DEPS")

rev_of() { # short revision of a source tree, "+dirty" when it has local changes
    local r
    r=$(git -C "$1" rev-parse --short HEAD 2>/dev/null) || { basename "$1"; return; }
    git -C "$1" status --porcelain --untracked-files=no 2>/dev/null | grep . >/dev/null &&
        r="$r+dirty"
    echo "$r"
}

# build_lib SRC DIR: configure (unless DIR already holds a build of SRC) and build target ftla.
build_lib() {
    local src=$1 dir=$2
    if [ -f "$dir/CMakeCache.txt" ]; then
        local home
        home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$dir/CMakeCache.txt")
        [ "$(cd "$home" 2>/dev/null && pwd)" = "$src" ] ||
            die "$dir was configured from '$home', not from $src" \
                "(remove it, or set BASE_BUILD / CUR_BUILD)"
        echo "== reusing $dir (configured from $src)"
    else
        echo "== configuring $dir from $src"
        cmake -S "$src" -B "$dir" "${cmake_args[@]}" "${prefix_args[@]}" -DBUILD_TESTING=OFF ||
            die "configuring $src failed"
    fi
    # the static archive: target ftla_static (libftla.a) since the shared library became the
    # target ftla; older trees built libftla.a as target ftla
    if grep -q 'ftla_static' "$src/CMakeLists.txt"; then
        cmake --build "$dir" -j"$jobs" --target ftla_static || die "building ftla in $dir failed"
    else
        cmake --build "$dir" -j"$jobs" --target ftla || die "building ftla in $dir failed"
    fi
    [ -f "$dir/libftla.a" ] || die "$dir/libftla.a not found (a static build is needed)"
}

lib_has_cuda() { nm "$1" 2>/dev/null | grep ' U cudaMalloc' >/dev/null; }

build_lib "$base_src" "$root/$base_build"
build_lib "$root" "$root/$cur_build"
base_lib=$root/$base_build/libftla.a
cur_lib=$root/$cur_build/libftla.a
cuda=OFF
lib_has_cuda "$cur_lib" && cuda=ON
if [ "$cuda" = ON ] && ! lib_has_cuda "$base_lib"; then
    die "$cur_lib has the CUDA backend but $base_lib does not"
fi
base_rev=$(rev_of "$base_src")
cur_rev=$(rev_of "$root")

# The same bench sources, compiled the same way against each library.
build_bench() { # build_bench SIDE LIB INCLUDE_DIR LABEL
    local dir=$root/build-ba/$1
    cmake -S "$root/bench/standalone" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
          "-DFTLA_LIBRARY=$2" "-DFTLA_INCLUDE_DIR=$3" "-DBENCH_SRC_DIR=$root/bench" \
          "-DFTLA_WITH_CUDA=$cuda" "-DBENCH_LIB_LABEL=$4" "${prefix_args[@]}" >/dev/null ||
        die "configuring the benches against $2 failed"
    cmake --build "$dir" -j"$jobs" || die "building the benches against $2 failed"
}
build_bench before "$base_lib" "$base_src/include" "before:$base_rev"
build_bench after "$cur_lib" "$root/include" "after:$cur_rev"

if [ $# -gt 0 ]; then
    configs=("$@")
elif [ "$cuda" = ON ]; then
    configs=("bench_dgemm_gpu" "bench_dgeqrf_gpu" "bench_dgeqrf_gpu --host" "bench_cpu")
else
    configs=("bench_cpu")
fi

tmp=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
summary=$out/ba_summary.log
{
    echo "before/after: before = $base_src ($base_rev, $base_build), after = $root ($cur_rev," \
         "$cur_build); bench sources: $root/bench ($cur_rev); $rounds round(s)"
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC');" \
         "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}"
} | tee "$summary"

fail=0
ci=0
for cfg in "${configs[@]}"; do
    ci=$((ci + 1))
    read -r -a words <<<"$cfg"
    prog=${words[0]}
    args=("${words[@]:1}")
    [ -x "build-ba/before/$prog" ] || die "no such bench program: $prog (config '$cfg')"
    log=$out/ba_${ci}_$(echo "$cfg" | tr -c 'A-Za-z0-9_-' '_' | cut -c1-60).log
    : >"$log"
    skipped=0
    for ((r = 1; r <= rounds && !skipped; r++)); do
        for side in before after; do
            echo "##### $side round $r: $cfg" | tee -a "$log"
            "build-ba/$side/$prog" "${args[@]}" >"$tmp/proc.log" 2>&1
            rc=$?
            cat "$tmp/proc.log" >>"$log"
            sed -n '/^# TABLE BEGIN/,/^# TABLE END/p' "$tmp/proc.log" | grep -v '^#' |
                sed "s/^/$side $r /" >>"$tmp/rows_$ci"
            if [ $rc -eq 77 ]; then
                echo "##### skipped (exit 77: no usable device): $cfg" | tee -a "$log"
                skipped=1
                break
            elif [ $rc -ne 0 ]; then
                echo "##### FAILED (exit $rc): $side round $r: $cfg" | tee -a "$log" "$summary"
                fail=1
            fi
        done
    done
    [ $skipped -eq 1 ] && { echo "== $cfg: skipped" >>"$summary"; continue; }
    {
        echo
        echo "======== $cfg"
        echo "# tables (one per process): side round op mode m n k param method runs median_s" \
             "min_s max_s rate protect_med_s ratio_peer ratio_peer2 faults check"
        cat "$tmp/rows_$ci"
        echo "# comparison per row: median_s and ratio_peer of each process; after/before ="
        echo "# mean(after median_s) / mean(before median_s) (< 1: after is faster)"
        awk '{
            key = $3" "$4" "$5" "$6" "$7" "$8" "$9
            if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
            med[key, $1] = med[key, $1] " " $11
            rat[key, $1] = rat[key, $1] " " $16
            sum[key, $1] += $11; cnt[key, $1]++
            if ($19 != "ok") bad[key] = " FAIL"
        }
        END {
            for (i = 1; i <= nk; i++) {
                k = order[i]
                ab = "-"
                if (cnt[k, "before"] > 0 && cnt[k, "after"] > 0 && sum[k, "before"] > 0) {
                    mb = sum[k, "before"] / cnt[k, "before"]
                    ma = sum[k, "after"] / cnt[k, "after"]
                    ab = sprintf("%.4f", ma / mb)
                }
                printf "%s | before med_s%s ratio%s | after med_s%s ratio%s | after/before %s%s\n",
                       k, med[k, "before"], rat[k, "before"], med[k, "after"], rat[k, "after"],
                       ab, bad[k]
            }
        }' "$tmp/rows_$ci"
    } | tee -a "$summary"
done
echo "logs: $out (ba_summary.log, ba_<i>_<config>.log)"
exit $fail
