#!/bin/bash
# rank_gpu.sh PROGRAM [ARGS...] — run one MPI rank on one GPU (docs/dist.md "GPUs per rank"):
# CUDA_VISIBLE_DEVICES = the node-local rank modulo the node's GPUs (FTLA_RANK_GPUS, default
# nvidia-smi's count), and RANK_PRELOAD, when set, as the rank's LD_PRELOAD (so that mpirun
# itself does not load it), e.g. build/libftla_preload.so or CUDA's libnvblas.so.
lr=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
ng=${FTLA_RANK_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "${ng:-0}" -gt 0 ] && export CUDA_VISIBLE_DEVICES=$((lr % ng))
[ -n "${RANK_PRELOAD:-}" ] && export LD_PRELOAD=$RANK_PRELOAD
exec "$@"
