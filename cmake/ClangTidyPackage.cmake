# The CMake package of the checks, LibTorchTidy (LibTorchTidyConfig.cmake.in):
# libtorch_tidy_enable() for CMake builds. Written twice: installed under
# <libdir>/cmake/LibTorchTidy, with paths relative to itself, and into the build
# tree (<build>/cmake/LibTorchTidy, usable with LibTorchTidy_DIR) for the build's
# own plugin.
include(CMakePackageConfigHelpers)
get_filename_component(LIBTORCH_TIDY_CLANG_TIDY_DIR "${LIBTORCH_TIDY_CLANG_TIDY}" DIRECTORY)

set(_ltt_pkgdir ${CMAKE_INSTALL_LIBDIR}/cmake/LibTorchTidy)
file(RELATIVE_PATH _ltt_cfg_plugin ${CMAKE_INSTALL_FULL_LIBDIR}/cmake/LibTorchTidy
     ${CMAKE_INSTALL_FULL_LIBDIR}/LibTorchTidy.so)
file(RELATIVE_PATH _ltt_cfg_scope ${CMAKE_INSTALL_FULL_LIBDIR}/cmake/LibTorchTidy
     ${CMAKE_INSTALL_FULL_LIBDIR}/LibTorchTidyScope.so)
file(RELATIVE_PATH _ltt_cfg_driver ${CMAKE_INSTALL_FULL_LIBDIR}/cmake/LibTorchTidy
     ${CMAKE_INSTALL_FULL_BINDIR}/libtorch-tidy)
configure_file(cmake/LibTorchTidyConfig.cmake.in
               ${CMAKE_BINARY_DIR}/cmake/install/LibTorchTidyConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/LibTorchTidy/LibTorchTidyConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/install/LibTorchTidyConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/LibTorchTidy/LibTorchTidyConfigVersion.cmake
              cmake/LibTorchTidyFunctions.cmake
        DESTINATION ${_ltt_pkgdir})

set(_ltt_builddir ${CMAKE_BINARY_DIR}/cmake/LibTorchTidy)
file(RELATIVE_PATH _ltt_cfg_plugin ${_ltt_builddir} ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/LibTorchTidy.so)
file(RELATIVE_PATH _ltt_cfg_scope ${_ltt_builddir} ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/LibTorchTidyScope.so)
file(RELATIVE_PATH _ltt_cfg_driver ${_ltt_builddir} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/libtorch-tidy)
configure_file(cmake/LibTorchTidyConfig.cmake.in ${_ltt_builddir}/LibTorchTidyConfig.cmake @ONLY)
configure_file(cmake/LibTorchTidyFunctions.cmake ${_ltt_builddir}/LibTorchTidyFunctions.cmake COPYONLY)
