#!/bin/bash
# run_expect.sh MUST MUSTNOT CMD [ARGS...] — run CMD (stdout and stderr shown), then pass only when
# it exits 0, its output has a line matching the extended regex MUST and none matching MUSTNOT
# (an empty MUSTNOT checks nothing). Exit 77 (skip) is passed through.
must=$1 mustnot=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 77 ] && exit 77
if [ $rc -ne 0 ]; then echo "run_expect: exit status $rc"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$must"; then echo "run_expect: no line matches '$must'"; exit 1; fi
if [ -n "$mustnot" ] && printf '%s\n' "$out" | grep -Eq -- "$mustnot"; then
    echo "run_expect: a line matches '$mustnot'"; exit 1
fi
exit 0
