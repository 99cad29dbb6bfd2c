#!/usr/bin/env bash
# scripts/test-install.sh [BUILD_DIR] — install a built ftla into a temporary prefix and build and
# run programs against the INSTALLED package, as a user would (docs/install.md; CI runs it from
# .ci/run after scripts/test.sh):
#
#   1. cmake --install BUILD_DIR --prefix P (a fresh temporary directory): the shared and static
#      libraries, ftla.h, ftla.f90, ftla.mod (Fortran builds), the CMake package and the .pc files
#      must all be there;
#   2. CMake: examples/consumer (find_package(ftla 0.1 REQUIRED)) linked with ftla::ftla and, in a
#      second build, with ftla::ftla_static (+ the Fortran consumer with ftla::ftla_fortran[_static]
#      when ftla has Fortran and gfortran is here); each program runs and must print OK; ldd shows
#      the shared build uses P's libftla.so and the static one no libftla.so; find_package(ftla
#      0.2) must fail (version file: same major.minor);
#      in MPI builds, examples/consumer/consumer_dist.c with ftla::ftla_dist
#      (COMPONENTS dist), run by mpirun -np 2 (when mpirun is here);
#   3. pkg-config (PKG_CONFIG_PATH=P/lib/pkgconfig): consumer.c linked with
#      `pkg-config --cflags --libs ftla` (shared) and with libftla.a + `--static` (Libs.private),
#      and the Fortran consumer with ftla-fortran; each runs.
#
# BUILD_DIR defaults to ${FTLA_BUILD_DIR:-build}; it must be configured (scripts/test.sh does it);
# it is built first (a no-op when up to date). Exit status non-zero on any failure. The temporary
# directory is removed at the end (FTLA_KEEP_INSTALL=1 keeps it and prints where).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
src=$PWD
build=${1:-${FTLA_BUILD_DIR:-build}}
jobs=${FTLA_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ -f "$build/CMakeCache.txt" ] || { echo "test-install: $build is not configured (run scripts/test.sh)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftla-install.XXXXXX")
if [ "${FTLA_KEEP_INSTALL:-0}" = 1 ]; then
    echo "test-install: keeping $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi
prefix=$tmp/prefix
step() { echo; echo "== test-install: $*"; }
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }

step "build and install $build into $prefix"
cmake --build "$build" -j"$jobs"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
libdir=${libdir:-lib}
# a build with the Fortran module installs ftla.mod (cmake/fortran.cmake)
fortran=OFF
[ -n "$(find "$prefix" -name ftla.mod)" ] && fortran=ON
for f in "$libdir/libftla.so" "$libdir/libftla.a" include/ftla.h include/ftla.f90 \
         "$libdir/cmake/ftla/ftlaConfig.cmake" "$libdir/cmake/ftla/ftlaConfigVersion.cmake" \
         "$libdir/cmake/ftla/ftlaTargets.cmake" "$libdir/pkgconfig/ftla.pc"; do
    [ -e "$prefix/$f" ] || fail "$f not installed"
done
if [ "$fortran" = ON ]; then
    for f in include/ftla.mod "$libdir/libftla_fortran.so" "$libdir/libftla_fortran.a" \
             "$libdir/pkgconfig/ftla-fortran.pc"; do
        [ -e "$prefix/$f" ] || fail "$f not installed"
    done
fi
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

# ldd of program $1 must (want = yes) or must not (no) list P's libftla.so
check_ldd() {
    local out
    out=$(ldd "$1")
    if [ "$2" = yes ]; then
        grep -q "libftla.so.* => $prefix/" <<<"$out" || { echo "$out"; fail "$1 does not use $prefix's libftla.so"; }
    else
        ! grep -q "libftla" <<<"$out" || { echo "$out"; fail "$1 uses a shared libftla"; }
    fi
}

fortran_args=()
[ "$fortran" = ON ] && command -v gfortran >/dev/null && fortran_args=(-DCONSUMER_FORTRAN=ON)
for kind in shared static; do
    step "CMake consumer, $kind (find_package(ftla 0.1 REQUIRED) ${fortran_args[*]})"
    b=$tmp/consumer-$kind
    static=OFF
    [ $kind = static ] && static=ON
    cmake -S "$src/examples/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCONSUMER_STATIC=$static "${fortran_args[@]}" >"$b.log" 2>&1 || { cat "$b.log"; fail "consumer configure"; }
    grep "consumer: ftla" "$b.log" || true
    cmake --build "$b" >"$b.build.log" 2>&1 || { cat "$b.build.log"; fail "consumer build ($kind)"; }
    [ $kind = shared ] && want=yes || want=no
    check_ldd "$b/consumer" $want
    "$b/consumer"
    if [ ${#fortran_args[@]} -gt 0 ]; then
        check_ldd "$b/consumer_fortran" $want
        "$b/consumer_fortran"
    fi
done

# the distributed routines (MPI builds): ftla::ftla_dist from the package, run under mpirun
if [ -e "$prefix/$libdir/libftla_dist.so" ]; then
    [ -e "$prefix/include/ftla_dist.h" ] || fail "include/ftla_dist.h not installed"
    if command -v mpirun >/dev/null; then
        step "CMake consumer of ftla::ftla_dist (find_package(ftla 0.1 REQUIRED COMPONENTS dist)), mpirun -np 2"
        b=$tmp/consumer-dist
        cmake -S "$src/examples/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_DIST=ON \
              >"$b.log" 2>&1 || { cat "$b.log"; fail "dist consumer configure"; }
        cmake --build "$b" >"$b.build.log" 2>&1 || { cat "$b.build.log"; fail "dist consumer build"; }
        # capture first: under pipefail, "ldd | grep -q" fails whenever grep exits at its match
        # before ldd has written everything (ldd then dies of SIGPIPE)
        out=$(ldd "$b/consumer_dist")
        grep -q "libftla_dist.so.* => $prefix/" <<<"$out" ||
            { echo "$out"; fail "consumer_dist does not use $prefix's libftla_dist.so"; }
        # Open MPI refuses root without these (CI runs as root); no effect otherwise
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 \
            mpirun -np 2 --oversubscribe "$b/consumer_dist" | tee "$b.run.log"
        grep -q "consumer_dist: OK" "$b.run.log" || fail "consumer_dist"
        dist_done=", MPI"
    fi
fi

step "CMake consumer asking for ftla 0.2: must not be found"
if cmake -S "$src/examples/consumer" -B "$tmp/consumer-v02" -DCMAKE_PREFIX_PATH="$prefix" \
         -DCONSUMER_VERSION=0.2 >"$tmp/v02.log" 2>&1; then
    fail "find_package(ftla 0.2) accepted ftla $(sed -n 's/^Version: //p' "$prefix/$libdir/pkgconfig/ftla.pc")"
fi
grep -m1 -i "version" "$tmp/v02.log" || true

step "pkg-config consumer, shared: cc consumer.c \$(pkg-config --cflags --libs ftla)"
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
pc_libs=$(pkg-config --libs ftla)
echo "pkg-config --libs ftla: $pc_libs"
cc -O2 "$src/examples/consumer/consumer.c" $(pkg-config --cflags ftla) $pc_libs -lm -o "$tmp/pc-shared"
LD_LIBRARY_PATH=$prefix/$libdir check_ldd "$tmp/pc-shared" yes
LD_LIBRARY_PATH=$prefix/$libdir "$tmp/pc-shared"

step "pkg-config consumer, static: libftla.a + \$(pkg-config --static --libs ftla)"
pc_static=$(pkg-config --static --libs ftla)
echo "pkg-config --static --libs ftla: $pc_static"
# -lftla as the archive: the linker would otherwise take libftla.so from the same directory
cc -O2 "$src/examples/consumer/consumer.c" $(pkg-config --cflags ftla) \
   ${pc_static/-lftla /-Wl,-Bstatic -lftla -Wl,-Bdynamic } -o "$tmp/pc-static"
check_ldd "$tmp/pc-static" no
"$tmp/pc-static"

if [ "$fortran" = ON ] && command -v gfortran >/dev/null; then
    step "pkg-config Fortran consumer: gfortran consumer_fortran.f90 \$(pkg-config --cflags --libs ftla-fortran)"
    (cd "$tmp" && gfortran -O2 "$src/examples/consumer/consumer_fortran.f90" \
        $(pkg-config --cflags ftla-fortran) $(pkg-config --libs ftla-fortran) -o pc-fortran)
    LD_LIBRARY_PATH=$prefix/$libdir "$tmp/pc-fortran"
fi

echo
echo "test-install: OK (CMake shared + static, version check, pkg-config shared + static$([ "$fortran" = ON ] && echo ', Fortran')${dist_done:-})"
