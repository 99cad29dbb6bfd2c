# cmake/fortran.cmake — the Fortran module `ftla` (include/ftla.f90) compiled into ftla.mod and
# its procedures into a library of their own, so that C programs never need the Fortran runtime:
#   ftla_fortran        (libftla_fortran.so, ftla::ftla_fortran), links ftla
#   ftla_fortran_static (libftla_fortran.a, ftla::ftla_fortran_static), links ftla_static
# Included from the top-level CMakeLists.txt after the C libraries. Sets FTLA_HAVE_FORTRAN and
# FTLA_FORTRAN_MODULE_DIR (where ftla.mod is written in the build tree).
# FTLA_WITH_FORTRAN = AUTO (build when a Fortran compiler is found) | ON (required) | OFF.
set(FTLA_INSTALL_FMODDIR ${CMAKE_INSTALL_INCLUDEDIR} CACHE PATH
    "Where ftla.mod is installed, relative to the prefix (it is compiler-specific: gfortran's)")
set(FTLA_HAVE_FORTRAN OFF)
if(NOT FTLA_WITH_FORTRAN STREQUAL "OFF")
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    set(FTLA_HAVE_FORTRAN ON)
  elseif(FTLA_WITH_FORTRAN STREQUAL "ON")
    message(FATAL_ERROR "FTLA_WITH_FORTRAN=ON but no Fortran compiler was found")
  endif()
endif()
if(NOT FTLA_HAVE_FORTRAN)
  if(FTLA_WITH_FORTRAN STREQUAL "OFF")
    set(why "FTLA_WITH_FORTRAN=OFF")
  else()
    set(why "no Fortran compiler found")
  endif()
  message(STATUS "ftla: Fortran module OFF (${why}): ftla.mod, ftla_fortran, "
                 "examples/example_fortran.f90 and the Fortran tests (test_fortran_*) are not "
                 "built; ftla.f90 is still installed")
  return()
endif()
message(STATUS "ftla: Fortran module ON (${CMAKE_Fortran_COMPILER_ID} "
               "${CMAKE_Fortran_COMPILER_VERSION})")

set(FTLA_FORTRAN_MODULE_DIR ${CMAKE_CURRENT_BINARY_DIR}/fmod)
add_library(ftla_fortran_objects OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/include/ftla.f90)
set_target_properties(ftla_fortran_objects PROPERTIES POSITION_INDEPENDENT_CODE ON
                      Fortran_MODULE_DIRECTORY ${FTLA_FORTRAN_MODULE_DIR})
add_library(ftla_fortran SHARED $<TARGET_OBJECTS:ftla_fortran_objects>)
add_library(ftla_fortran_static STATIC $<TARGET_OBJECTS:ftla_fortran_objects>)
set_target_properties(ftla_fortran PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0)
set_target_properties(ftla_fortran_static PROPERTIES OUTPUT_NAME ftla_fortran)
foreach(t ftla_fortran ftla_fortran_static)
  set_target_properties(${t} PROPERTIES LINKER_LANGUAGE Fortran)
  # ftla.mod: in the build tree here; installed with the header (cmake/install.cmake)
  target_include_directories(${t} PUBLIC $<BUILD_INTERFACE:${FTLA_FORTRAN_MODULE_DIR}>
                             $<INSTALL_INTERFACE:${FTLA_INSTALL_FMODDIR}>)
endforeach()
target_link_libraries(ftla_fortran PUBLIC ftla)
target_link_libraries(ftla_fortran_static PUBLIC ftla_static)
add_library(ftla::ftla_fortran ALIAS ftla_fortran)
add_library(ftla::ftla_fortran_static ALIAS ftla_fortran_static)
