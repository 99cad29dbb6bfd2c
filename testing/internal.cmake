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

# Plane rotations (src/givens): dlartg/dlasr semantics, both tasks of paper 004 Algorithm 1 and
# the whole QR update on the host; the cuda plain and fused kernels against the host reference.
ftla_test_target(test_givens)
target_include_directories(test_givens PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME test_givens_cpu COMMAND test_givens cpu)
set_tests_properties(test_givens_cpu PROPERTIES LABELS cpu TIMEOUT 120)
add_test(NAME test_givens_cuda COMMAND test_givens cuda)
set_tests_properties(test_givens_cuda PROPERTIES LABELS gpu TIMEOUT 600 SKIP_RETURN_CODE 77)

# The panel in work memory (issue 10): recursive, its leaves the backend's qr_leaf (on cuda the
# cooperative shared-memory kernel), against LAPACK at every scale; `test_dpanel cuda --bench`
# times it against cuSOLVER's geqrf and larft.
ftla_test_target(test_dpanel)
target_include_directories(test_dpanel PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME test_dpanel_cpu COMMAND test_dpanel cpu)
set_tests_properties(test_dpanel_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME test_dpanel_cuda COMMAND test_dpanel cuda)
set_tests_properties(test_dpanel_cuda PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
