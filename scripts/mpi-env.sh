# source scripts/mpi-env.sh DIR — use the Open MPI + ScaLAPACK that scripts/stage-mpi.sh staged
# into DIR (unpacked from DIR.tar.xz when DIR/root is not there). Sets OPAL_PREFIX (Open MPI
# relocated), PATH (mpirun), LD_LIBRARY_PATH, OMPI_ALLOW_RUN_AS_ROOT*, and FTLA_MPI_CMAKE_ARGS:
#   cmake ... $FTLA_MPI_CMAKE_ARGS
# PMIx looks for its few plugins (compression, resource managers) under Debian's path only and
# runs without them elsewhere; its warning about compression is silenced.
ftla_mpi_dir=${1:?usage: source scripts/mpi-env.sh DIR}
if [ ! -d "$ftla_mpi_dir/root" ]; then
    mkdir -p "$ftla_mpi_dir" && tar -C "$ftla_mpi_dir" -xJf "$ftla_mpi_dir.tar.xz" ||
        { echo "mpi-env.sh: no $ftla_mpi_dir/root nor $ftla_mpi_dir.tar.xz" >&2; return 1; }
fi
ftla_mpi_dir=$(cd "$ftla_mpi_dir" && pwd)
ftla_mpi_lib=$ftla_mpi_dir/root/usr/lib/x86_64-linux-gnu
export OPAL_PREFIX=$ftla_mpi_dir/root/usr
export PATH=$OPAL_PREFIX/bin:$PATH
export LD_LIBRARY_PATH=$ftla_mpi_lib:$ftla_mpi_lib/openmpi/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PMIX_MCA_pcompress_base_silence_warning=1
export FTLA_MPI_CMAKE_ARGS="-DFTLA_WITH_MPI=ON -DMPI_C_HEADER_DIR=$ftla_mpi_lib/openmpi/include
 -DMPI_C_LIB_NAMES=mpi -DMPI_mpi_LIBRARY=$ftla_mpi_lib/libmpi.so.40
 -DSCALAPACK_LIBRARY=$ftla_mpi_lib/libscalapack-openmpi.so
 -DMPIEXEC_EXECUTABLE=$OPAL_PREFIX/bin/orterun"
unset ftla_mpi_lib
