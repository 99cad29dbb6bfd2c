# testing/preload.cmake — libftla_preload.so (docs/interposer.md): the interposer's own test and
# the reference BLAS / LAPACK test programs run with it preloaded. Included from
# testing/CMakeLists.txt. Label cpu (FTLA_DEVICE=cpu); the gpu variant of test_preload (CUDA
# builds) skips itself without a device.
#
# The programs are plain ones: they link BLAS / LAPACK / LAPACKE only, and get ftla through
# LD_PRELOAD. In a sanitizer build the ASan runtime must come first in the process
# (preloaded before the interposer), and LeakSanitizer is left to the instrumented tests: the
# reference programs are Fortran programs built without it.
set(FTLA_PRELOAD_LIBS "$<TARGET_FILE:ftla_preload>")
set(FTLA_PRELOAD_REF_ENV "FTLA_TEST_PRELOAD=${FTLA_PRELOAD_LIBS}")
if(FTLA_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE FTLA_ASAN_RT OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(FTLA_PRELOAD_LIBS "${FTLA_ASAN_RT}:$<TARGET_FILE:ftla_preload>")
  set(FTLA_PRELOAD_REF_ENV "FTLA_TEST_PRELOAD=${FTLA_PRELOAD_LIBS};ASAN_OPTIONS=detect_leaks=0")
endif()
set(FTLA_PRELOAD_ENV "LD_PRELOAD=${FTLA_PRELOAD_LIBS}")

# the probe (a cblas_dgemm between the interposer and OpenBLAS) must come before OpenBLAS in the
# program's libraries, so that the interposer's dlsym(RTLD_NEXT) finds it first
add_library(ftla_test_probe SHARED preload_probe.c)
target_link_libraries(ftla_test_probe PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
add_executable(test_preload test_preload.c)
target_include_directories(test_preload PRIVATE ${PROJECT_SOURCE_DIR}/src ${CBLAS_INCLUDE_DIR}
                           ${LAPACKE_INCLUDE_DIR})
target_link_libraries(test_preload PRIVATE ftla_test_probe ${LAPACKE_LIBRARY}
                      ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES} ${CMAKE_DL_LIBS} Threads::Threads m)
# xerbla_ of the program must be visible to the libraries (a Fortran program's is)
set_target_properties(test_preload PROPERTIES ENABLE_EXPORTS ON)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(test_preload PRIVATE -Wall -Wextra)
endif()
add_dependencies(test_preload ftla_preload)

# OpenBLAS single threaded: the threads case runs 4 callers at once (test_threads' note)
add_test(NAME test_preload_cpu COMMAND test_preload all)
set_tests_properties(test_preload_cpu PROPERTIES LABELS cpu TIMEOUT 300 ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;OPENBLAS_NUM_THREADS=1")
add_test(NAME test_preload_inject_cpu COMMAND test_preload inject)
set_tests_properties(test_preload_inject_cpu PROPERTIES LABELS cpu TIMEOUT 120 ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;FTLA_VERBOSE=1;FTLA_INJECT=dgemm:C:row=3:col=5:bit=60,dgeqrf:R:step=1:row=2:col=40:bit=62,dgeqrf:trailing:call=1:step=1:bit=60")
add_test(NAME test_preload_dormqr_inject_cpu COMMAND test_preload dormqr_inject)
set_tests_properties(test_preload_dormqr_inject_cpu PROPERTIES LABELS cpu TIMEOUT 120 ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;FTLA_VERBOSE=1;FTLA_INJECT=dormqr:C:step=2:row=4:col=3:bit=60,dormqr:checksum:call=1:bit=62,dormqr:C:call=2:row=9:col=1:value=1e-3,dormqr:reflectors:call=3:step=1:bit=40")
add_test(NAME test_preload_off_cpu COMMAND test_preload off)
set_tests_properties(test_preload_off_cpu PROPERTIES LABELS cpu TIMEOUT 60 ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;FTLA_PRELOAD=off")
add_test(NAME test_preload_small_cpu COMMAND test_preload small)
set_tests_properties(test_preload_small_cpu PROPERTIES LABELS cpu TIMEOUT 60 ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;FTLA_PRELOAD_SMALL=16")
if(FTLA_HAVE_CUDA)
  add_test(NAME test_preload_gpu COMMAND test_preload gpu)
  set_tests_properties(test_preload_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77
    ENVIRONMENT "${FTLA_PRELOAD_ENV};FTLA_DEVICE=auto")
endif()

# The reference test programs of Debian's libblas-test / liblapack-test (exit 77, skipped, when
# not installed): xblat3d on DGEMM (results, the untouched parts of C, A and B, error exits),
# xdcblat3 on cblas_dgemm (both layouts), xlintstd on the QR and least-squares paths (DQR, DLS,
# with their error exits). The script sets LD_PRELOAD (from FTLA_TEST_PRELOAD) for the program
# only, not for itself and the tools it runs. "system": the BLAS/LAPACK the programs link by default (on Debian the
# libblas.so.3 / liblapack.so.3 alternatives, OpenBLAS here); "reference": LD_LIBRARY_PATH set
# to the reference (netlib) libraries, which the interposer must then forward to.
set(FTLA_REF_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/preload/run_reference.sh)
foreach(prog_variant xblat3d:system xblat3d:reference xdcblat3:reference xlintstd:system
                     xlintstd:reference)
  string(REPLACE ":" ";" pv ${prog_variant})
  list(GET pv 0 prog)
  list(GET pv 1 variant)
  add_test(NAME preload_${prog}_${variant}_cpu
           COMMAND bash ${FTLA_REF_SCRIPT} ${prog} ${variant} ${CMAKE_CURRENT_SOURCE_DIR}/preload)
  set_tests_properties(preload_${prog}_${variant}_cpu PROPERTIES LABELS cpu TIMEOUT 600
    SKIP_RETURN_CODE 77 DEPENDS test_preload_cpu
    ENVIRONMENT "${FTLA_PRELOAD_REF_ENV};FTLA_DEVICE=cpu")
endforeach()

# The worked example of docs/interposer.md: examples/preload_lsq.c, a plain LAPACK least-squares
# program, with a bit flip injected into its dgeqrf_'s trailing matrix: detected and recovered,
# the solution right. The same fault with FTLA_PROTECT=0 (injected, not checked) must give a
# wrong solution (the program prints WRONG): the fault the first run survives is a real one.
add_executable(preload_lsq ${PROJECT_SOURCE_DIR}/examples/preload_lsq.c)
target_link_libraries(preload_lsq PRIVATE ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES} m)
add_dependencies(preload_lsq ftla_preload)
add_test(NAME preload_example_lsq_cpu COMMAND preload_lsq)
set_tests_properties(preload_example_lsq_cpu PROPERTIES LABELS cpu TIMEOUT 60 ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;FTLA_VERBOSE=1;FTLA_INJECT=dgeqrf:trailing:step=2:bit=60,dormqr:C:step=3:row=7:col=0:bit=61")
add_test(NAME preload_example_lsq_unprotected_cpu COMMAND preload_lsq)
set_tests_properties(preload_example_lsq_unprotected_cpu PROPERTIES LABELS cpu TIMEOUT 60
  PASS_REGULAR_EXPRESSION "WRONG" ENVIRONMENT
  "${FTLA_PRELOAD_ENV};FTLA_DEVICE=cpu;FTLA_PROTECT=0;FTLA_INJECT=dgeqrf:trailing:step=2:bit=60")
