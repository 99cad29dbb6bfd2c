# cmake/preload.cmake — libftla_preload.so, the LD_PRELOAD interposer (docs/interposer.md).
# Included at the end of the top-level CMakeLists.txt (the library targets exist by then).
#
# ftla is linked in statically (its objects are position independent) and only the interposed
# symbols are exported (src/interface/preload.map): ftla's own BLAS/LAPACK calls come back to the
# interposed entries and are forwarded to the real library by the re-entrance guard
# (src/interface/preload.c). The static library is ftla_static where the tree builds both kinds
# (ftla is then the shared one), else ftla.
set(FTLA_PRELOAD_MAP ${PROJECT_SOURCE_DIR}/src/interface/preload.map)
if(TARGET ftla_static)
  set(FTLA_PRELOAD_LIB ftla_static)
else()
  set(FTLA_PRELOAD_LIB ftla)
endif()
add_library(ftla_preload SHARED src/interface/preload.c src/interface/preload_ormqr.c)
target_include_directories(ftla_preload PRIVATE ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ftla_preload PRIVATE ${FTLA_PRELOAD_LIB} ${CMAKE_DL_LIBS} Threads::Threads
                      m)
set_target_properties(ftla_preload PROPERTIES C_VISIBILITY_PRESET hidden
                      LINK_DEPENDS ${FTLA_PRELOAD_MAP})
target_link_options(ftla_preload PRIVATE "LINKER:--version-script=${FTLA_PRELOAD_MAP}")
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(ftla_preload PRIVATE -Wall -Wextra)
endif()
install(TARGETS ftla_preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
