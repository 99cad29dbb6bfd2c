# The distributed routines (src/dist, include/ftla_dist.h; docs/dist.md): ft_pdgemm and
# ft_pdgeqrf on ScaLAPACK + MPI, in their own library ftla_dist (ftla::ftla_dist), built when
# MPI and ScaLAPACK are found (FTLA_WITH_MPI=AUTO), required (ON) or never (OFF).
set(FTLA_WITH_MPI "AUTO" CACHE STRING "Build ftla_dist on MPI + ScaLAPACK: AUTO, ON, OFF")
set_property(CACHE FTLA_WITH_MPI PROPERTY STRINGS AUTO ON OFF)
set(FTLA_HAVE_MPI OFF)
if(NOT FTLA_WITH_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C QUIET)
  # Debian: libscalapack-openmpi (BLACS included); elsewhere libscalapack
  find_library(SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack)
  if(MPI_C_FOUND AND SCALAPACK_LIBRARY)
    set(FTLA_HAVE_MPI ON)
  elseif(FTLA_WITH_MPI STREQUAL "ON")
    message(FATAL_ERROR "FTLA_WITH_MPI=ON but MPI (${MPI_C_FOUND}) or ScaLAPACK "
                        "(${SCALAPACK_LIBRARY}) was not found (Debian: apt-get install "
                        "libopenmpi-dev openmpi-bin libscalapack-openmpi-dev)")
  endif()
endif()
message(STATUS "ftla: distributed routines (MPI + ScaLAPACK) ${FTLA_HAVE_MPI}")
if(FTLA_HAVE_MPI)
  add_library(ftla_dist SHARED src/dist/dist_common.c src/dist/pdgemm.c src/dist/pdgeqrf.c)
  target_include_directories(ftla_dist PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE src)
  target_link_libraries(ftla_dist PUBLIC ftla PRIVATE ${SCALAPACK_LIBRARY} MPI::MPI_C
                        LAPACK::LAPACK BLAS::BLAS m)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(ftla_dist PRIVATE -Wall -Wextra -Wno-unused-parameter)
  endif()
  set_target_properties(ftla_dist PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0)
  add_library(ftla::ftla_dist ALIAS ftla_dist)
endif()
