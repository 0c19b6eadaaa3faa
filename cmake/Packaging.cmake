# `cpack -G DEB` (or the `package` target): one Debian package per LLVM major
# version, libtorch-tidy-llvm<N>, holding what `cmake --install` lays out under
# /usr: bin/libtorch-tidy and bin/libtorch-tidy-instrument, bin/libtorch-tidy-clangd
# (clangd with the checks, when it was built), lib/LibTorchTidy.so
# (the plugin), the runtime companion (lib/, include/, lib/cmake/
# LibTorchTidyRuntime) when it was built, and share/doc/libtorch-tidy.
# Its dependencies are Debian packages: the ones its binaries link against
# (LLVM's by name, the others found by dpkg-shlibdeps), the clang-tidy the
# plugin loads into, and, for
# `libtorch-tidy verify`, which compiles programs, LibTorch's headers and g++;
# it recommends clang's OpenMP header package (projects built with -fopenmp).
set(_ltt_v ${LLVM_VERSION_MAJOR})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libtorch-tidy-llvm${_ltt_v})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR libtorch-tidy)
set(CPACK_PACKAGE_CONTACT "libtorch-tidy maintainers <maintainers@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "clang-tidy ${_ltt_v} checks for memory mistakes in LibTorch (PyTorch C++) code")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libLLVM and libclang-cpp named explicitly: the binaries find them through
# LLVM's lib directory (their RUNPATH), whose symlinks belong to llvm-<N>-dev,
# where dpkg-shlibdeps finds no package to depend on.
set(_ltt_depends "clang-tidy-${_ltt_v}, libllvm${_ltt_v}, libclang-cpp${_ltt_v}")
if(TARGET libtorch_tidy_runtime)
  string(APPEND _ltt_depends ", libtorch-dev, g++")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_ltt_depends}")
# clang-tidy parses projects built with -fopenmp only with clang's own omp.h,
# which Debian ships apart from clang; clang builds the precompiled LibTorch
# header (libtorch-tidy and `libtorch-tidy tidy`; without it every file is a
# plain parse).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libomp-${_ltt_v}-dev, clang-${_ltt_v}")
# Both versions install bin/libtorch-tidy: one at a time.
set(CPACK_DEBIAN_PACKAGE_PROVIDES libtorch-tidy)
set(CPACK_DEBIAN_PACKAGE_CONFLICTS libtorch-tidy)
set(CPACK_DEBIAN_PACKAGE_REPLACES libtorch-tidy)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
include(CPack)
