#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "ftla::ftla" for configuration "Release"
set_property(TARGET ftla::ftla APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(ftla::ftla PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "C"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libftla.a"
  )

list(APPEND _cmake_import_check_targets ftla::ftla )
list(APPEND _cmake_import_check_files_for_ftla::ftla "${_IMPORT_PREFIX}/lib/libftla.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
