# testing/internal.cmake — unit tests of internal layers (they include headers from src/):
# size arithmetic, arenas and pools, the deferred host queues, the checkpoint arithmetic of Q,
# the host thread team.
# Label cpu.
foreach(t test_sizes test_internal test_checkpoint test_team)
  ftla_test_target(${t})
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME ${t}_cpu COMMAND ${t})
  set_tests_properties(${t}_cpu PROPERTIES LABELS cpu TIMEOUT 120)
endforeach()

# Real calls with m*n > 2^31 (host pointers, 17 GB matrices): the GPU machine only (label gpu;
# skips itself without a device or without 48 GB of host / 24 GB of device memory).
ftla_test_target(test_bigsizes)
add_test(NAME test_bigsizes_gpu COMMAND test_bigsizes cuda)
set_tests_properties(test_bigsizes_gpu PROPERTIES LABELS "gpu;big" TIMEOUT 900 SKIP_RETURN_CODE 77)

# Internal kernels with a host reference, run on both backends:
#   test_givens — plane rotations (src/givens): dlartg/dlasr semantics, both tasks of paper 004
#     Algorithm 1 and the whole QR update on the host; the cuda plain and fused kernels against
#     the host reference;
#   test_dpanel — the panel in work memory (issue 10): recursive, its leaves the backend's qr_leaf
#     (on cuda the cooperative shared-memory kernel), against LAPACK at every scale
#     (`test_dpanel cuda --bench` times it against cuSOLVER's geqrf and larft).
#   test_reduce — the reductions the QR checks read the whole matrix with (the trapezoid sums of
#     the checksum checks, the checkpoint sums of Q), bit for bit against plain references
#     (`test_reduce cuda --bench` times them at 16384 x 16384 and 32768 x 8192).
#   test_dgemm_ooc — ft_dgemm out of core (a forced work-memory limit): the plan, results for
#     every transpose and alpha/beta with k in 2..7 chunks, faults in named sub-products, a
#     block computed again, a limit nothing fits in.
#   test_stage — the copies of the caller's host matrices to and from work memory (pageable
#     data through the pinned ring on cuda), each direction bit for bit against a plain copy.
#   test_dgemm_kern — ft_dgemm's kernel table (dgemm_kernels.h): the input C's one-read sums
#     (c0_pass) bit for bit against a plain reference (`test_dgemm_kern cuda --bench` times it
#     against block_sums 'N' on a 16384 x 4096 chunk).
foreach(t test_givens test_dpanel test_reduce test_dgemm_ooc test_stage test_dgemm_kern)
  ftla_test_target(${t})
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME ${t}_cpu COMMAND ${t} cpu)
  set_tests_properties(${t}_cpu PROPERTIES LABELS cpu TIMEOUT 300)
  add_test(NAME ${t}_cuda COMMAND ${t} cuda)
  set_tests_properties(${t}_cuda PROPERTIES LABELS gpu TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()
# the host kernels on the caller alone (the shared team split off, core/team.h)
add_test(NAME test_reduce_cpu_1thread COMMAND test_reduce cpu)
set_tests_properties(test_reduce_cpu_1thread PROPERTIES LABELS cpu TIMEOUT 300
  ENVIRONMENT FTLA_HOST_THREADS=1)
# the checkpoint sums' other kernels (checkpoint_host.c; the default is the widest the CPU has)
foreach(k generic avx2)
  add_test(NAME test_checkpoint_${k}_cpu COMMAND test_checkpoint)
  set_tests_properties(test_checkpoint_${k}_cpu PROPERTIES LABELS cpu TIMEOUT 120
    ENVIRONMENT FTLA_CKP_DOTS=${k})
  add_test(NAME test_reduce_${k}_cpu COMMAND test_reduce cpu)
  set_tests_properties(test_reduce_${k}_cpu PROPERTIES LABELS cpu TIMEOUT 300
    ENVIRONMENT FTLA_CKP_DOTS=${k})
endforeach()

# test_reflect — the cuda one-launch block-reflector kernel (the recovery's z = Q~^T a_j, the
# checksum blocks' catch-up) against LAPACK dormqr; cuda only (the host runs the BLAS path).
ftla_test_target(test_reflect)
target_include_directories(test_reflect PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME test_reflect_cuda COMMAND test_reflect cuda)
set_tests_properties(test_reflect_cuda PROPERTIES LABELS gpu TIMEOUT 600 SKIP_RETURN_CODE 77)
