# cmake/install.cmake — what `cmake --install` puts under the prefix (docs/install.md):
#   LIBDIR/libftla.so*, LIBDIR/libftla.a          the C library, shared and static
#   LIBDIR/libftla_fortran.so*, .a                the Fortran module's procedures (Fortran builds)
#   INCLUDEDIR/ftla.h, INCLUDEDIR/ftla.f90        the C header, the Fortran module's source
#   FTLA_INSTALL_FMODDIR/ftla.mod                 the compiled Fortran module (Fortran builds)
#   LIBDIR/libftla_dist.so*, INCLUDEDIR/ftla_dist.h   the distributed routines (MPI builds)
#   LIBDIR/cmake/ftla/                            find_package(ftla): ftla::ftla, ftla::ftla_static,
#                                                 ftla::ftla_fortran, ftla::ftla_fortran_static,
#                                                 ftla::ftla_dist (MPI builds)
#   LIBDIR/pkgconfig/ftla.pc, ftla-fortran.pc     pkg-config (relocatable: paths from ${pcfiledir})
# Included from the top-level CMakeLists.txt after the libraries are defined. A library defined
# before (e.g. an interposer) is installed and exported with the others when its target name is
# appended to FTLA_INSTALL_TARGETS.
include(CMakePackageConfigHelpers)

list(APPEND FTLA_INSTALL_TARGETS ftla ftla_static)
if(FTLA_HAVE_FORTRAN)
  list(APPEND FTLA_INSTALL_TARGETS ftla_fortran ftla_fortran_static)
endif()
# the distributed routines (cmake/dist.cmake): a shared library whose MPI and ScaLAPACK are
# private (found again through its run path), so ftlaConfig.cmake need not find them
if(FTLA_HAVE_MPI)
  list(APPEND FTLA_INSTALL_TARGETS ftla_dist)
  install(FILES include/ftla_dist.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
# the installed shared libraries find the libraries they were linked with outside the system
# directories (e.g. CUDA's) without LD_LIBRARY_PATH
foreach(t IN LISTS FTLA_INSTALL_TARGETS)
  get_target_property(type ${t} TYPE)
  if(type STREQUAL "SHARED_LIBRARY")
    set_target_properties(${t} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
  endif()
endforeach()
install(TARGETS ${FTLA_INSTALL_TARGETS} EXPORT ftlaTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/ftla.h include/ftla.f90 DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(FTLA_HAVE_FORTRAN)
  install(FILES ${FTLA_FORTRAN_MODULE_DIR}/ftla.mod DESTINATION ${FTLA_INSTALL_FMODDIR})
endif()

# ---- CMake package: ftlaConfig.cmake (dependencies, then the exported targets), version file --
set(FTLA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ftla)
install(EXPORT ftlaTargets NAMESPACE ftla:: DESTINATION ${FTLA_INSTALL_CMAKEDIR})
get_filename_component(FTLA_LAPACKE_DIR "${LAPACKE_LIBRARY}" DIRECTORY)
configure_package_config_file(cmake/ftlaConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ftlaConfig.cmake
                              INSTALL_DESTINATION ${FTLA_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the API, so only the same major.minor is compatible
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ftlaConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ftlaConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ftlaConfigVersion.cmake
        DESTINATION ${FTLA_INSTALL_CMAKEDIR})

# ---- pkg-config ---------------------------------------------------------------------------------
# prefix relative to the .pc file, so that `cmake --install build --prefix P` works for any P
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(FTLA_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH rel "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(FTLA_PC_PREFIX "\${pcfiledir}/${rel}")
endif()
# Libs.private: what libftla.a needs, as -L/-l flags from the libraries found at configure time
set(FTLA_PC_PRIVATE "")
set(pc_dirs "")
foreach(lib IN LISTS LAPACKE_LIBRARY LAPACK_LIBRARIES BLAS_LIBRARIES)
  if(lib MATCHES "^/.*/lib([^/]+)\\.(so|a|dylib)(\\.[0-9.]+)?$")
    get_filename_component(dir "${lib}" DIRECTORY)
    if(NOT dir IN_LIST pc_dirs)
      list(APPEND pc_dirs "${dir}")
      string(APPEND FTLA_PC_PRIVATE " -L${dir}")
    endif()
    set(flag "-l${CMAKE_MATCH_1}")
  else()
    set(flag "${lib}")
  endif()
  string(FIND "${FTLA_PC_PRIVATE} " " ${flag} " seen)
  if(seen EQUAL -1)
    string(APPEND FTLA_PC_PRIVATE " ${flag}")
  endif()
endforeach()
string(APPEND FTLA_PC_PRIVATE " -lpthread -lm")
if(FTLA_HAVE_CUDA)
  string(APPEND FTLA_PC_PRIVATE
         " -L${CUDAToolkit_LIBRARY_DIR} -lcusolver -lcublas -lcudart -lstdc++")
endif()
string(STRIP "${FTLA_PC_PRIVATE}" FTLA_PC_PRIVATE)
configure_file(cmake/ftla.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ftla.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ftla.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(FTLA_HAVE_FORTRAN)
  configure_file(cmake/ftla-fortran.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ftla-fortran.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ftla-fortran.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

