
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/blas3/abft_host.c" "CMakeFiles/ftla.dir/src/blas3/abft_host.c.o" "gcc" "CMakeFiles/ftla.dir/src/blas3/abft_host.c.o.d"
  "/work/main/src/blas3/ft_dgemm.c" "CMakeFiles/ftla.dir/src/blas3/ft_dgemm.c.o" "gcc" "CMakeFiles/ftla.dir/src/blas3/ft_dgemm.c.o.d"
  "/work/main/src/core/backend_cuda_stub.c" "CMakeFiles/ftla.dir/src/core/backend_cuda_stub.c.o" "gcc" "CMakeFiles/ftla.dir/src/core/backend_cuda_stub.c.o.d"
  "/work/main/src/core/backend_host.c" "CMakeFiles/ftla.dir/src/core/backend_host.c.o" "gcc" "CMakeFiles/ftla.dir/src/core/backend_host.c.o.d"
  "/work/main/src/core/context.c" "CMakeFiles/ftla.dir/src/core/context.c.o" "gcc" "CMakeFiles/ftla.dir/src/core/context.c.o.d"
  "/work/main/src/core/error.c" "CMakeFiles/ftla.dir/src/core/error.c.o" "gcc" "CMakeFiles/ftla.dir/src/core/error.c.o.d"
  "/work/main/src/core/inject.c" "CMakeFiles/ftla.dir/src/core/inject.c.o" "gcc" "CMakeFiles/ftla.dir/src/core/inject.c.o.d"
  "/work/main/src/core/report.c" "CMakeFiles/ftla.dir/src/core/report.c.o" "gcc" "CMakeFiles/ftla.dir/src/core/report.c.o.d"
  "/work/main/src/interface/fortran.c" "CMakeFiles/ftla.dir/src/interface/fortran.c.o" "gcc" "CMakeFiles/ftla.dir/src/interface/fortran.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
