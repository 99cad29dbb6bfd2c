file(REMOVE_RECURSE
  "CMakeFiles/ftla_demo.dir/demo.c.o"
  "CMakeFiles/ftla_demo.dir/demo.c.o.d"
  "ftla_demo"
  "ftla_demo.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ftla_demo.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
