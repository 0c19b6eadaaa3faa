# Locates Clang/LLVM of major version LIBTORCH_TIDY_LLVM_VERSION and the
# clang-tidy executable that the plugin will be loaded into, and refuses a
# clang-tidy whose major version differs from the headers'.
set(_ltt_v ${LIBTORCH_TIDY_LLVM_VERSION})
find_package(LLVM CONFIG REQUIRED NO_DEFAULT_PATH
  HINTS ${LLVM_DIR} /usr/lib/llvm-${_ltt_v}/lib/cmake/llvm /usr/lib/llvm-${_ltt_v})
find_package(Clang CONFIG REQUIRED NO_DEFAULT_PATH
  HINTS /usr/lib/llvm-${_ltt_v}/lib/cmake/clang ${LLVM_DIR}/../clang)

if(NOT LLVM_VERSION_MAJOR EQUAL _ltt_v)
  message(FATAL_ERROR "libtorch-tidy: found LLVM ${LLVM_PACKAGE_VERSION} headers at ${LLVM_DIR}, "
                      "but LIBTORCH_TIDY_LLVM_VERSION is ${_ltt_v}")
endif()
if(NOT TARGET clang-tidy)
  message(FATAL_ERROR "libtorch-tidy: the Clang ${_ltt_v} package exports no clang-tidy target; "
                      "install clang-tidy-${_ltt_v}")
endif()

get_target_property(_ltt_tidy_configs clang-tidy IMPORTED_CONFIGURATIONS)
list(GET _ltt_tidy_configs 0 _ltt_tidy_config)
get_target_property(LIBTORCH_TIDY_CLANG_TIDY clang-tidy IMPORTED_LOCATION_${_ltt_tidy_config})
if(NOT LIBTORCH_TIDY_CLANG_TIDY OR NOT EXISTS "${LIBTORCH_TIDY_CLANG_TIDY}")
  message(FATAL_ERROR "libtorch-tidy: clang-tidy ${_ltt_v} not found at '${LIBTORCH_TIDY_CLANG_TIDY}'; "
                      "install clang-tidy-${_ltt_v}")
endif()
execute_process(COMMAND "${LIBTORCH_TIDY_CLANG_TIDY}" --version
                OUTPUT_VARIABLE _ltt_tidy_version_text RESULT_VARIABLE _ltt_rc)
string(REGEX MATCH "version ([0-9]+)\\." _ltt_m "${_ltt_tidy_version_text}")
if(NOT _ltt_rc EQUAL 0 OR NOT CMAKE_MATCH_1 EQUAL LLVM_VERSION_MAJOR)
  message(FATAL_ERROR "libtorch-tidy: ${LIBTORCH_TIDY_CLANG_TIDY} is clang-tidy major version "
                      "'${CMAKE_MATCH_1}', but the Clang headers are version ${LLVM_VERSION_MAJOR}; "
                      "the plugin only loads into the clang-tidy it was built for")
endif()
# A sanitized plugin loads only into a clang-tidy that has the sanitizer
# runtime preloaded: scripts/sanitize.sh names a wrapper that does so, and the
# tests and the command run clang-tidy through it.
set(LIBTORCH_TIDY_CLANG_TIDY_WRAPPER "" CACHE FILEPATH
    "Run clang-tidy through this wrapper in the tests and the command (sanitized builds)")
if(LIBTORCH_TIDY_CLANG_TIDY_WRAPPER)
  set(LIBTORCH_TIDY_CLANG_TIDY ${LIBTORCH_TIDY_CLANG_TIDY_WRAPPER})
endif()
message(STATUS "libtorch-tidy: Clang ${LLVM_PACKAGE_VERSION}, clang-tidy ${LIBTORCH_TIDY_CLANG_TIDY}")

set(LIBTORCH_TIDY_LLVM_TOOLS_DIR ${LLVM_TOOLS_BINARY_DIR})
find_program(LIBTORCH_TIDY_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(LIBTORCH_TIDY_LIT NAMES lit lit.py
  HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-${_ltt_v}/build/utils/lit NO_DEFAULT_PATH)

# libtorch-tidy-clangd (clangd/): clangd's static libraries (libclang-N-dev
# ships them) and the gRPC and protobuf libraries that clangd's remote index
# links (Debian: libgrpc++-dev libprotobuf-dev). AUTO builds it when they are
# all here and says what is missing otherwise; ON requires them.
set(LIBTORCH_TIDY_BUILD_CLANGD AUTO CACHE STRING
    "Build libtorch-tidy-clangd, clangd with the torch- checks: AUTO (when clangd's libraries are found), ON, OFF")
set_property(CACHE LIBTORCH_TIDY_BUILD_CLANGD PROPERTY STRINGS AUTO ON OFF)
set(LIBTORCH_TIDY_CLANGD OFF)
if(NOT LIBTORCH_TIDY_BUILD_CLANGD STREQUAL "OFF")
  set(_ltt_clangd_missing "")
  foreach(_ltt_t clangdMain clangDaemon clangDaemonTweaks clangdSupport clangdRemoteIndex clangTidy
                 clangTidyUtils)
    set(_ltt_loc "")
    if(TARGET ${_ltt_t})
      get_target_property(_ltt_configs ${_ltt_t} IMPORTED_CONFIGURATIONS)
      list(GET _ltt_configs 0 _ltt_config)
      get_target_property(_ltt_loc ${_ltt_t} IMPORTED_LOCATION_${_ltt_config})
    endif()
    if(NOT _ltt_loc OR NOT EXISTS "${_ltt_loc}")
      list(APPEND _ltt_clangd_missing "lib${_ltt_t}.a (libclang-${_ltt_v}-dev)")
    endif()
  endforeach()
  # What the remote index links: plain library names (LLVM 19: grpc++,
  # protobuf...) or the imported targets of gRPC's and protobuf's CMake
  # packages (LLVM 22: gRPC::grpc++, protobuf::libprotobuf).
  set(_ltt_deps "")
  if(TARGET clangdRemoteIndexServiceProto)
    get_target_property(_ltt_deps clangdRemoteIndexServiceProto INTERFACE_LINK_LIBRARIES)
    if(NOT _ltt_deps)
      set(_ltt_deps "")
    endif()
  endif()
  if(_ltt_deps MATCHES "gRPC::")
    # Debian's gRPCConfig.cmake stops the configuration (a FATAL_ERROR, QUIET
    # or not) when its grpc_cpp_plugin is not installed
    # (protobuf-compiler-grpc): look first, so that AUTO only says it is missing.
    find_program(LIBTORCH_TIDY_GRPC_CPP_PLUGIN grpc_cpp_plugin)
    if(LIBTORCH_TIDY_GRPC_CPP_PLUGIN)
      find_package(gRPC CONFIG QUIET)
    else()
      list(APPEND _ltt_clangd_missing "grpc_cpp_plugin (protobuf-compiler-grpc)")
    endif()
  endif()
  if(_ltt_deps MATCHES "protobuf::")
    find_package(Protobuf QUIET)
  endif()
  foreach(_ltt_dep IN LISTS _ltt_deps)
    if(_ltt_dep MATCHES "^\\$<" OR TARGET ${_ltt_dep})
      continue()
    elseif(_ltt_dep MATCHES "::")
      list(APPEND _ltt_clangd_missing "${_ltt_dep} (libgrpc++-dev libprotobuf-dev)")
    else()
      string(MAKE_C_IDENTIFIER "${_ltt_dep}" _ltt_var)
      find_library(LIBTORCH_TIDY_LIB_${_ltt_var} ${_ltt_dep})
      if(NOT LIBTORCH_TIDY_LIB_${_ltt_var})
        list(APPEND _ltt_clangd_missing "lib${_ltt_dep}.so (libgrpc++-dev libprotobuf-dev)")
      endif()
    endif()
  endforeach()
  if(_ltt_clangd_missing)
    string(REPLACE ";" ", " _ltt_clangd_missing "${_ltt_clangd_missing}")
    if(LIBTORCH_TIDY_BUILD_CLANGD STREQUAL "ON")
      message(FATAL_ERROR "libtorch-tidy: LIBTORCH_TIDY_BUILD_CLANGD=ON but clangd's libraries are "
                          "missing: ${_ltt_clangd_missing}")
    endif()
    message(STATUS "libtorch-tidy: libtorch-tidy-clangd is off: missing ${_ltt_clangd_missing}")
  else()
    set(LIBTORCH_TIDY_CLANGD ON)
    message(STATUS "libtorch-tidy: building libtorch-tidy-clangd (clangd ${LLVM_VERSION_MAJOR} with the torch- checks)")
  endif()
endif()
