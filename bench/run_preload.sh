#!/usr/bin/env bash
# bench/run_preload.sh [BUILD_DIR] [ROUNDS] — an unmodified LAPACK program (bench_preload) without
# and with libftla_preload.so preloaded (docs/interposer.md, bench/NOTES.md "Issue 11"):
#   dgels_ 4096 x 2048 (nrhs 1 and 64), dgeqrf_ 4096 x 2048 and 8192 x 8192, and the per-call
#   time of small dgemm_ / dgeqrf_ calls; each also with FTLA_PROTECT=0 (ftla's driver without
#   the checks), the small calls also with FTLA_PRELOAD=off (the interposition alone).
# Each round runs every configuration once, in an order that alternates from round to round;
# the figure of a configuration is the median over the rounds of each process's median, the
# ratio plain / preloaded (>= 1: the interposer is faster); "paired" is the median over the
# rounds of plain / preloaded within each round (the two processes ran back to back: the
# steadiest figure on a machine whose speed drifts), "best" the ratio of the fastest single calls.
# BENCH_PRELOAD_CFGS restricts the configurations (e.g. "plain ftla"). The CPU backend (FTLA_DEVICE=cpu),
# OPENBLAS_NUM_THREADS=2 unless set; pin the cores with taskset if the machine has more
# (`taskset -c 0,1 bench/run_preload.sh build`). BENCH_PRELOAD_CASES overrides the list
# (e.g. "dgels 4096 2048 1 3;small 4"). Logs: ${OUT:-./bench-logs}/preload/.
set -euo pipefail
build=${1:-build}
rounds=${2:-3}
bin=$build/bench/bench_preload
lib=$(cd "$build" && pwd)/libftla_preload.so
[ -x "$bin" ] && [ -f "$lib" ] || { echo "build $bin and $lib first"; exit 1; }
logs=${OUT:-./bench-logs}/preload
mkdir -p "$logs"
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2}
IFS=';' read -r -a cases <<< "${BENCH_PRELOAD_CASES:-dgels 4096 2048 1 3;dgels 4096 2048 64 3;dgeqrf 4096 2048 3;dgeqrf 8192 8192 2;small 4}"

echo "% $(date -u +%FT%TZ) $(uname -n), $(nproc) cpus visible, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS"
echo "% load: $(cut -d' ' -f1-3 /proc/loadavg)"
res=$logs/results.txt
: > "$res"
run() { # config case...
    local cfg=$1; shift
    local env=()
    case $cfg in
        plain) ;;
        ftla) env=(LD_PRELOAD="$lib" FTLA_DEVICE=cpu FTLA_VERBOSE=1) ;;
        off) env=(LD_PRELOAD="$lib" FTLA_DEVICE=cpu FTLA_PRELOAD=off) ;;
        noabft) env=(LD_PRELOAD="$lib" FTLA_DEVICE=cpu FTLA_PROTECT=0) ;;
    esac
    echo "% round $r $cfg: $*"
    env "${env[@]}" "$bin" "$@" > "$logs/last.txt" 2>&1 || { cat "$logs/last.txt"; exit 1; }
    cat "$logs/last.txt" >> "$logs/$cfg.log"
    grep '^ftla:' "$logs/last.txt" || true
    grep '^RESULT' "$logs/last.txt" | sed "s/^RESULT/$cfg/" | tee -a "$res"
}
for r in $(seq 1 "$rounds"); do
    for c in "${cases[@]}"; do
        read -r -a argv <<< "$c"
        cfgs=(plain ftla noabft)
        [ "${argv[0]}" = small ] && cfgs=(plain ftla off noabft)
        if [ -n "${BENCH_PRELOAD_CFGS:-}" ]; then read -r -a cfgs <<< "$BENCH_PRELOAD_CFGS"; fi
        if [ $((r % 2)) -eq 0 ]; then # alternate the order
            rev=()
            for ((i = ${#cfgs[@]} - 1; i >= 0; i--)); do rev+=("${cfgs[i]}"); done
            cfgs=("${rev[@]}")
        fi
        for cfg in "${cfgs[@]}"; do run "$cfg" "${argv[@]}"; done
    done
done

echo "% summary: medians over $rounds rounds (seconds; small: microseconds per call)"
awk '
{ key = $2 " " $3 "x" $4 "x" $5; v[$1, key, ++n[$1, key]] = $6; keys[key] = 1; cfgs[$1] = 1
  if (!(($1, key) in lo) || $7 < lo[$1, key]) lo[$1, key] = $7 }
function paired(key,   m, i, j, t, a) { # median of plain / ftla within each round
    m = n["ftla", key] < n["plain", key] ? n["ftla", key] : n["plain", key]; if (!m) return 0
    for (i = 1; i <= m; i++) a[i] = v["plain", key, i] / v["ftla", key, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function med(c, key,   m, i, j, t, a) {
    m = n[c, key]; if (!m) return -1
    for (i = 1; i <= m; i++) a[i] = v[c, key, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    printf "%-26s %12s %12s %12s %12s %10s %10s %10s\n", "case", "plain", "ftla", "off", "protect=0", "plain/ftla", "paired", "best"
    for (kk in keys) {
        p = med("plain", kk); f = med("ftla", kk); o = med("off", kk); z = med("noabft", kk)
        os = o < 0 ? "-" : sprintf("%.6g", o)
        zs = z < 0 ? "-" : sprintf("%.6g", z)
        r = (f > 0) ? p / f : 0
        b = (lo["ftla", kk] > 0) ? lo["plain", kk] / lo["ftla", kk] : 0
        printf("%-26s %12.6g %12.6g %12s %12s %10.3f %10.3f %10.3f\n", kk, p, f, os, zs, r,
               paired(kk), b)
    }
}' "$res" | sort
echo "% load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
