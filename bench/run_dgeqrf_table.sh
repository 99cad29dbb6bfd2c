#!/bin/bash
# bench/run_dgeqrf_table.sh BUILD_DIR OUT_DIR [square|tall|both] — the dgeqrf table of the issue
# on the GPU machine: TFLOP/s against n for ftla (protection on and off; --panel's default
# placement, auto = device panels, and host panels, --cpanel), cusolverDnDgeqrf (device-resident,
# same stream) and LAPACKE_dgeqrf on the host's cores (--lapacke; up to min(m,n) = 16384, 3 timed
# calls after 1 warm-up, after the rounds), in two invocations of bench_dgeqrf_gpu:
#   square   m = n = 2048 ... 32768                     -> OUT_DIR/square.txt
#   tall     m = 4n: n = 512 ... 8192, m = 2048 ... 32768  -> OUT_DIR/tall.txt
# 7 timed rounds after 1 warm-up, ftla-on-noQ left out (--no-noq). The third argument runs one
# of the two only (H100, 16 cores: square about 5 min, tall about 2.5 min). Plot:
#   python3 bench/plot_dgeqrf.py -o docs/img/dgeqrf_tflops.png OUT_DIR/square.txt OUT_DIR/tall.txt
# OPENBLAS_CORETYPE is passed through from the environment (on the H100 host: SkylakeX, for
# ftla's host panels and for LAPACKE; the bench prints the value it ran with).
# Both always run; exit status: the first failing one's (1 = a check failed, 2 = error, 77 = no
# GPU), else 0.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 BUILD_DIR OUT_DIR [square|tall|both]" >&2
    exit 2
fi
build=$1
out=$2
which=${3:-both}
case $which in square | tall | both) ;; *) echo "$0: bad choice '$which'" >&2; exit 2 ;; esac
bin=$build/bench/bench_dgeqrf_gpu
if [ ! -x "$bin" ]; then
    echo "$0: $bin not found (cmake --build $build --target bench_dgeqrf_gpu)" >&2
    exit 2
fi
mkdir -p "$out"
# OPENBLAS_CORETYPE is neither set nor changed here: the caller's value (or none) reaches the bench
echo "# OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; build $build; out $out"

common=(--cpanel --lapacke --no-noq --runs 7 --warmup 1)

# run NAME ARGS...: print the command, run it with its output teed into OUT_DIR/NAME.txt;
# pipefail gives the pipeline the bench's status; a failing invocation does not stop the other
# one (a FAIL row at one size leaves the other shape's figures worth having)
status=0
run() {
    local name=$1
    shift
    echo "+ $bin $* 2>&1 | tee $out/$name.txt"
    "$bin" "$@" 2>&1 | tee "$out/$name.txt" || {
        local st=$?
        echo "# $name: exit status $st" >&2
        if [ "$status" -eq 0 ]; then status=$st; fi
    }
}

if [ "$which" != tall ]; then
    run square -N 2048,4096,8192,16384,32768 "${common[@]}"
fi
if [ "$which" != square ]; then
    run tall -N 512,1024,2048,4096,8192 -M 2048,4096,8192,16384,32768 "${common[@]}"
fi
exit "$status"
