file(REMOVE_RECURSE
  "CMakeFiles/ftla.dir/src/blas3/abft_host.c.o"
  "CMakeFiles/ftla.dir/src/blas3/abft_host.c.o.d"
  "CMakeFiles/ftla.dir/src/blas3/ft_dgemm.c.o"
  "CMakeFiles/ftla.dir/src/blas3/ft_dgemm.c.o.d"
  "CMakeFiles/ftla.dir/src/core/backend_cuda_stub.c.o"
  "CMakeFiles/ftla.dir/src/core/backend_cuda_stub.c.o.d"
  "CMakeFiles/ftla.dir/src/core/backend_host.c.o"
  "CMakeFiles/ftla.dir/src/core/backend_host.c.o.d"
  "CMakeFiles/ftla.dir/src/core/context.c.o"
  "CMakeFiles/ftla.dir/src/core/context.c.o.d"
  "CMakeFiles/ftla.dir/src/core/error.c.o"
  "CMakeFiles/ftla.dir/src/core/error.c.o.d"
  "CMakeFiles/ftla.dir/src/core/inject.c.o"
  "CMakeFiles/ftla.dir/src/core/inject.c.o.d"
  "CMakeFiles/ftla.dir/src/core/report.c.o"
  "CMakeFiles/ftla.dir/src/core/report.c.o.d"
  "CMakeFiles/ftla.dir/src/interface/fortran.c.o"
  "CMakeFiles/ftla.dir/src/interface/fortran.c.o.d"
  "libftla.a"
  "libftla.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ftla.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
