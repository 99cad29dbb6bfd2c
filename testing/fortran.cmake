# testing/fortran.cmake — gfortran programs against the Fortran interfaces (docs/fortran.md).
# Included from testing/CMakeLists.txt. Label cpu. Without a Fortran compiler (FTLA_HAVE_FORTRAN
# OFF, e.g. the GPU machine) they are not registered, and configure says so
# (cmake/fortran.cmake).
#   test_fortran_layout        the module's bind(C) types and constants against ftla.h as C
#                              compiles it (sizes, every field offset, every constant)
#   test_fortran_dropin        FT_DGEMM / FT_DGEQRF as renamed DGEMM / DGEQRF: results against a
#                              reference, every argument error through the program's own XERBLA
#                              (compared with the real DGEMM / DGEQRF), workspace query, library
#                              errors (FT_LAST_STATUS, the stderr line); linked with libftla.so
#   test_fortran_dropin_static the same program linked with libftla.a (the program's XERBLA
#                              found by a static link too)
#   test_fortran_module        the module's functions: results, reports, policies with every
#                              field, fault injection, FT factor, ft_dormqr, ft_dgels, column
#                              source and xerbla callbacks, trace, model, the _gpu error paths
#   test_fortran_gpu           (CUDA builds; label gpu, skipped without a device) the _gpu
#                              routines on device memory: results against the host routines,
#                              planned faults corrected (device memory via test_fortran_devmem.c)
if(NOT FTLA_HAVE_FORTRAN)
  message(STATUS "ftla: Fortran tests (test_fortran_*) not registered: no Fortran module")
  return()
endif()

# the C side: sizes, offsets and constants of ftla.h, stderr to a file (no call into ftla, so
# that the static variant links one ftla only)
add_library(ftla_ftest_util STATIC test_fortran_util.c)
target_include_directories(ftla_ftest_util PRIVATE ${PROJECT_SOURCE_DIR}/include)

function(ftla_fortran_test name src ftla_lib)
  add_executable(${name} ${src})
  set_target_properties(${name} PROPERTIES
    Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fmod_${name})
  target_link_libraries(${name} PRIVATE ${ftla_lib} ftla_ftest_util ${LAPACK_LIBRARIES}
                        ${BLAS_LIBRARIES})
  if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${name} PRIVATE -Wall -fcheck=bounds)
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "FTLA_DEVICE=cpu;FTLA_MODEL_CACHE=off")
endfunction()

ftla_fortran_test(test_fortran_layout test_fortran_layout.f90 ftla::ftla_fortran)
ftla_fortran_test(test_fortran_dropin test_fortran_dropin.f90 ftla::ftla_fortran)
ftla_fortran_test(test_fortran_dropin_static test_fortran_dropin.f90
                  ftla::ftla_fortran_static)
ftla_fortran_test(test_fortran_module test_fortran_module.f90 ftla::ftla_fortran)

if(FTLA_HAVE_CUDA)
  add_library(ftla_ftest_devmem STATIC test_fortran_devmem.c)
  target_link_libraries(ftla_ftest_devmem PUBLIC CUDA::cudart)
  ftla_fortran_test(test_fortran_gpu test_fortran_gpu.f90 ftla::ftla_fortran)
  target_link_libraries(test_fortran_gpu PRIVATE ftla_ftest_devmem)
  set_tests_properties(test_fortran_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "FTLA_MODEL_CACHE=off")
endif()
