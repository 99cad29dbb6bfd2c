# testing/core.cmake — tests of the core call layer: threads, re-entrance, ABI of the versioned
# structures. Included from testing/CMakeLists.txt (after ftla_test_target is defined):
#   include(${CMAKE_CURRENT_SOURCE_DIR}/core.cmake)
# Labels: `cpu` (argument cpu) and `gpu` (argument cuda; skips itself with exit 77 when ftla has
# no CUDA backend or no device is present).

# 8 threads at once on their default contexts and on contexts of their own. OpenBLAS single
# threaded: 8 callers into a multithreaded OpenBLAS (0.3.21) contend for its lock and workers —
# on 2 cores 43 s instead of 0.4 s, spent in OpenBLAS, not in ftla
ftla_test_target(test_threads)
target_link_libraries(test_threads PRIVATE Threads::Threads)
add_test(NAME test_threads_cpu COMMAND test_threads cpu)
set_tests_properties(test_threads_cpu PROPERTIES LABELS cpu TIMEOUT 120
                     ENVIRONMENT OPENBLAS_NUM_THREADS=1)
add_test(NAME test_threads_gpu COMMAND test_threads cuda)
set_tests_properties(test_threads_gpu PROPERTIES LABELS gpu TIMEOUT 120 SKIP_RETURN_CODE 77
                     ENVIRONMENT OPENBLAS_NUM_THREADS=1)

# ftla called from inside an ftla call (an argument-error handler): deadlocked with one global
# lock, hence the short timeout
ftla_test_target(test_reentrance)
add_test(NAME test_reentrance_cpu COMMAND test_reentrance cpu)
set_tests_properties(test_reentrance_cpu PROPERTIES LABELS cpu TIMEOUT 60)
add_test(NAME test_reentrance_gpu COMMAND test_reentrance cuda)
set_tests_properties(test_reentrance_gpu PROPERTIES LABELS gpu TIMEOUT 60 SKIP_RETURN_CODE 77)

# a caller built against the first ftla.h: v1-sized reports and policies through the _v calls
ftla_test_target(test_abi)
add_test(NAME test_abi_cpu COMMAND test_abi cpu)
set_tests_properties(test_abi_cpu PROPERTIES LABELS cpu TIMEOUT 120)
