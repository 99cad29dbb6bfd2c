#!/usr/bin/env bash
# testing/preload/run_reference.sh PROGRAM VARIANT INPUT_DIR — run one of the reference BLAS /
# LAPACK test programs of Debian's libblas-test / liblapack-test with libftla_preload.so
# preloaded (docs/interposer.md) and check that it passes.
#
#   PROGRAM  xblat3d (input dblat3.in: DGEMM), xdcblat3 (dcblat3.in: cblas_dgemm, both layouts)
#            or xlintstd (dlin_qr_ls.in: the DQR and DLS paths), each with its error exits;
#   VARIANT  system    — the BLAS / LAPACK the program links (libblas.so.3 / liblapack.so.3 as
#                        the system resolves them: OpenBLAS behind the Debian alternatives here);
#            reference — LD_LIBRARY_PATH set to the reference (netlib) libblas.so.3 and
#                        liblapack.so.3: the interposer must forward to those;
#   INPUT_DIR  where the input files are (testing/preload).
#   FTLA_TEST_PRELOAD  what to preload (the interposer's path; in a sanitizer build the ASan
#                      runtime first), set for the program only.
#   FTLA_REF_TEST_DIR  optional: where the program is, if not in Debian's places.
#
# Passes when the program exits 0, its output has every "passed" line of the selected tests and
# no failure line, and FTLA_VERBOSE=1's stderr has the interposer's summary (calls protected
# > 0: it really was in the process; reference: forwarded to the reference libraries) and no
# other ftla line (no fault found, no fallback, no failed call in a fault-free run) and no
# gfortran note of raised floating-point exceptions (the plain run has none).
# Exit 77 (CTest: skipped) when the program or the reference libraries are not installed.
set -u
prog=${1:?program} variant=${2:?system|reference} dir=${3:?input dir}
preload=${FTLA_TEST_PRELOAD:-}
if [ -z "$preload" ]; then
    echo "FAILED: FTLA_TEST_PRELOAD (the path of libftla_preload.so) is not set"
    exit 1
fi

case $prog in
    xblat3d)  pkg=libblas-test   sub=blas   input=dblat3.in    out=dblat3.out ;;
    xdcblat3) pkg=libblas-test   sub=blas   input=dcblat3.in   out=stdout.txt ;;
    xlintstd) pkg=liblapack-test sub=lapack input=dlin_qr_ls.in out=stdout.txt ;;
    *) echo "FAILED: unknown program $prog"; exit 1 ;;
esac

multiarch=$( (gcc -print-multiarch || dpkg-architecture -qDEB_HOST_MULTIARCH) 2>/dev/null)
bin=""
for d in ${FTLA_REF_TEST_DIR:-} /usr/lib/$multiarch/$sub /usr/lib/$sub /usr/lib64/$sub; do
    if [ -x "$d/$prog" ]; then bin=$d/$prog; break; fi
done
if [ -z "$bin" ] && command -v dpkg >/dev/null 2>&1; then
    bin=$(dpkg -L "$pkg" 2>/dev/null | grep "/$prog\$" | head -n 1)
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "SKIP: $prog not found: install Debian's $pkg (apt-get install -y liblapack-test" \
         "libblas-test; scripts/deps.sh does) or set FTLA_REF_TEST_DIR"
    exit 77
fi

libpath="" refdir=""
if [ "$variant" = reference ]; then
    for d in /usr/lib/$multiarch /usr/lib /usr/lib64; do
        if [ -e "$d/blas/libblas.so.3" ] && [ -e "$d/lapack/liblapack.so.3" ]; then
            libpath=$d/blas:$d/lapack refdir=$d
            break
        fi
    done
    if [ -z "$libpath" ]; then
        echo "SKIP: the reference libblas.so.3 / liblapack.so.3 (Debian libblas3, liblapack3)" \
             "are not installed"
        exit 77
    fi
elif [ "$variant" != system ]; then
    echo "FAILED: unknown variant $variant"
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$dir/$input" "$work/" || exit 1
cd "$work" || exit 1

echo "% $bin < $input (LD_PRELOAD=$preload${libpath:+, LD_LIBRARY_PATH=$libpath})"
t0=$(date +%s.%N)
env ${libpath:+LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}} \
    LD_PRELOAD="$preload" FTLA_VERBOSE=1 "$bin" < "$input" > stdout.txt 2> stderr.txt
rc=$?
t1=$(date +%s.%N)

fail=0
bad() { echo "FAILED: $*"; fail=1; }
need() { grep -qF -- "$1" "$out" || bad "'$1' is not in the output"; }

[ $rc -eq 0 ] || bad "$prog exited with status $rc"
[ -f "$out" ] || { bad "no output file $out"; out=stdout.txt; }
case $prog in
    xblat3d)
        need "DGEMM  PASSED THE TESTS OF ERROR-EXITS"
        need "DGEMM  PASSED THE COMPUTATIONAL TESTS"
        need "END OF TESTS"
        failpat='FAIL|FATAL|SUSPECT|WRONG|ERROR-EXIT.*NOT|NOT CALLED' ;;
    xdcblat3)
        need "cblas_dgemm  PASSED THE TESTS OF ERROR-EXITS"
        need "cblas_dgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS"
        need "cblas_dgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS"
        need "END OF TESTS"
        failpat='FAIL|FATAL|SUSPECT|WRONG|NOT CALLED' ;;
    xlintstd)
        need "DQR routines passed the tests of the error exits"
        need "All tests for DQR routines passed the threshold"
        need "DLS routines passed the tests of the error exits"
        need "All tests for DLS drivers  passed the threshold"
        need "End of tests"
        failpat='[Ff]ail|FAIL|[Ii]llegal|XERBLA|\*\*\*' ;;
esac
if grep -E -- "$failpat" "$out" > fails.txt; then
    bad "failure lines in the output:"
    head -n 20 fails.txt
fi

summary=$(grep '^ftla: preload summary:' stderr.txt)
if [ -z "$summary" ]; then
    bad "no interposer summary on stderr: was libftla_preload.so loaded?"
else
    ndgemm=$(sed -n 's/.*protected dgemm \([0-9]*\),.*/\1/p' <<< "$summary")
    ndgeqrf=$(sed -n 's/.*, dgeqrf \([0-9]*\) .*/\1/p' <<< "$summary")
    ndormqr=$(sed -n 's/.*, dormqr \([0-9]*\);.*/\1/p' <<< "$summary")
    [ "${ndgemm:-0}" -gt 0 ] || bad "no dgemm call was protected"
    if [ "$prog" = xlintstd ]; then
        [ "${ndgeqrf:-0}" -gt 0 ] || bad "no dgeqrf call was protected"
        [ "${ndormqr:-0}" -gt 0 ] || bad "no dormqr call was protected"
    fi
    if [ -n "$refdir" ]; then
        grep -qF "real dgemm_ from $refdir/blas/libblas.so.3" <<< "$summary" ||
            bad "dgemm_ not forwarded to the reference $refdir/blas/libblas.so.3"
        if [ "$prog" = xlintstd ]; then
            grep -qF "dgeqrf_ from $refdir/lapack/liblapack.so.3" <<< "$summary" ||
                bad "dgeqrf_ not forwarded to the reference $refdir/lapack/liblapack.so.3"
            grep -qF "dormqr_ from $refdir/lapack/liblapack.so.3" <<< "$summary" ||
                bad "dormqr_ not forwarded to the reference $refdir/lapack/liblapack.so.3"
        fi
    fi
fi
if grep '^ftla:' stderr.txt | grep -v '^ftla: preload summary:' > other.txt; then
    bad "the interposer reported calls in a fault-free run:"
    head -n 20 other.txt
fi
if grep -q 'floating-point exceptions are signalling' stderr.txt; then
    bad "floating-point exception flags raised that the plain run does not raise:"
    grep 'floating-point exceptions are signalling' stderr.txt
fi

echo "% output ($out):"
grep -v '^ *$' "$out" | tail -n 12
echo "% stderr:"
cat stderr.txt
echo "% $prog ($variant): $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
if [ $fail -ne 0 ]; then
    echo "$prog ($variant): FAILED"
    exit 1
fi
echo "$prog ($variant): passed"
exit 0
