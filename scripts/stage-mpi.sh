#!/bin/bash
# stage-mpi.sh DIR — Open MPI 4.1 and ScaLAPACK from Debian 12's packages, unpacked (not installed)
# into DIR/root and packed as DIR.tar.xz, for a machine without them and without package access
# (the lent GPU machines: docs/dist.md "GPUs per rank"). There, `source scripts/mpi-env.sh DIR`
# unpacks it when needed and sets OPAL_PREFIX, PATH, LD_LIBRARY_PATH and the CMake variables
# (FTLA_MPI_CMAKE_ARGS) that find this MPI and ScaLAPACK. Needs apt-get and dpkg-deb; installs
# nothing. The BLAS/LAPACK ScaLAPACK links against come from stage-deps.sh (../shared/tools).
set -euo pipefail
dir=${1:?usage: stage-mpi.sh DIR}
mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
debs=$(mktemp -d); trap 'rm -rf "$debs"' EXIT
pkgs="openmpi-bin libopenmpi3 libopenmpi-dev openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
      libevent-pthreads-2.1-7 libscalapack-openmpi2.2 libfabric1 libucx0 libibverbs1 libnl-3-200
      libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libmunge2 librdmacm1"
(cd "$debs" && apt-get download $pkgs >/dev/null 2>&1) ||
    { apt-get update -qq && (cd "$debs" && apt-get download $pkgs >/dev/null); }
rm -rf "$dir/root"; mkdir -p "$dir/root"
for f in "$debs"/*.deb; do dpkg-deb -x "$f" "$dir/root"; done
r=$dir/root; l=$r/usr/lib/x86_64-linux-gnu
# what a C program on MPI + ScaLAPACK does not need
rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$l/fortran" "$r/usr/share/java" "$l"/liboshmem* \
       "$l"/libmpi_java* "$l"/openmpi/lib/liboshmem* "$l"/openmpi/lib/libmpi_java* "$l"/*.a \
       "$l"/openmpi/lib/*.a
ln -sf libscalapack-openmpi.so.2.2.1 "$l/libscalapack-openmpi.so.2.2"
ln -sf libscalapack-openmpi.so.2.2 "$l/libscalapack-openmpi.so"
ln -sf ../../libmpi.so.40 "$l/openmpi/lib/libmpi.so"
tar -C "$dir" -cJf "$dir.tar.xz" root
echo "staged into $dir/root ($(du -sh "$dir/root" | cut -f1)), packed as $dir.tar.xz" \
     "($(du -sh "$dir.tar.xz" | cut -f1))"
