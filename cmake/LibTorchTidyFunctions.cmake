# libtorch_tidy_enable(<target> [CHECKS <glob>...] [WARNINGS_AS_ERRORS] [NO_PCH]
#                      [CONFIG_FILE <file>] [HEADER_FILTER <regex>] [EXTRA_ARGS <arg>...])
#
# Runs the torch- checks on every C++ source of <target> as part of its build:
# sets the target's CXX_CLANG_TIDY to the clang-tidy the plugin was built for,
# loading the plugin (and the scope module that keeps clang-tidy's walk in the
# user's code), so each compile of the target first runs clang-tidy on the same
# command line. Findings appear in the build output; with WARNINGS_AS_ERRORS a
# finding fails that compile, and so the build.
#
# clang-tidy runs through `libtorch-tidy tidy`, which gives it one precompiled
# LibTorch header per set of flags, built once for the whole build under
# <build>/.libtorch-tidy-cache/pch: the checks then add the parse of the
# user's code to each compile, not a second parse of <torch/torch.h>. Output and
# exit status are clang-tidy's; a file the header does not fit is parsed as
# usual (docs/ci.md).
#
#   NO_PCH         run clang-tidy directly, without the shared header
#   CHECKS         check globs enabled after '-*' (default: torch-*); add other
#                  clang-tidy checks here, e.g. CHECKS torch-* bugprone-*
#   WARNINGS_AS_ERRORS  the enabled checks' findings are errors
#   CONFIG_FILE    a .clang-tidy file for CheckOptions (its Checks are
#                  overridden by CHECKS)
#   HEADER_FILTER  findings in headers matching this regex are reported too
#   EXTRA_ARGS     further clang-tidy arguments, e.g. --extra-arg=-Wno-unknown-warning-option
#
# Distributed compilers and launchers that run CMake's clang-tidy step (CMake
# runs it through `cmake -E __run_co_compile`) run the checks the same way.
function(libtorch_tidy_enable target)
  cmake_parse_arguments(PARSE_ARGV 1 _ltt "WARNINGS_AS_ERRORS;NO_PCH" "CONFIG_FILE;HEADER_FILTER"
                        "CHECKS;EXTRA_ARGS")
  if(_ltt_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "libtorch_tidy_enable: unknown arguments: ${_ltt_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "libtorch_tidy_enable: no target named '${target}'")
  endif()
  get_target_property(_ltt_type ${target} TYPE)
  if(_ltt_type STREQUAL "INTERFACE_LIBRARY" OR _ltt_type STREQUAL "UTILITY")
    message(FATAL_ERROR "libtorch_tidy_enable: '${target}' is an ${_ltt_type} target; it compiles no sources")
  endif()
  get_target_property(_ltt_imported ${target} IMPORTED)
  if(_ltt_imported)
    message(FATAL_ERROR "libtorch_tidy_enable: '${target}' is an imported target; it compiles no sources")
  endif()

  set(_ltt_checks ${_ltt_CHECKS})
  if(NOT _ltt_checks)
    set(_ltt_checks "torch-*")
  endif()
  list(JOIN _ltt_checks "," _ltt_globs)
  if(NOT _ltt_NO_PCH AND LIBTORCH_TIDY_DRIVER AND EXISTS "${LIBTORCH_TIDY_DRIVER}")
    set(_ltt_cmd "${LIBTORCH_TIDY_DRIVER}" tidy "--clang-tidy=${LIBTORCH_TIDY_CLANG_TIDY}"
                 "--cache-dir=${CMAKE_BINARY_DIR}/.libtorch-tidy-cache")
  else()
    set(_ltt_cmd "${LIBTORCH_TIDY_CLANG_TIDY}")
  endif()
  list(APPEND _ltt_cmd "--load=${LIBTORCH_TIDY_PLUGIN}")
  set(_ltt_enabled "-*,${_ltt_globs}")
  if(LIBTORCH_TIDY_SCOPE_MODULE AND EXISTS "${LIBTORCH_TIDY_SCOPE_MODULE}")
    # Narrows clang-tidy's walk to the user's declarations, and only when every
    # enabled check is a torch- check (the module decides).
    list(APPEND _ltt_cmd "--load=${LIBTORCH_TIDY_SCOPE_MODULE}")
    string(APPEND _ltt_enabled ",libtorch-tidy-user-scope")
  endif()
  list(APPEND _ltt_cmd "--checks=${_ltt_enabled}")
  if(_ltt_WARNINGS_AS_ERRORS)
    list(APPEND _ltt_cmd "--warnings-as-errors=${_ltt_globs}")
  endif()
  if(_ltt_CONFIG_FILE)
    get_filename_component(_ltt_config "${_ltt_CONFIG_FILE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${_ltt_config}")
      message(FATAL_ERROR "libtorch_tidy_enable: CONFIG_FILE '${_ltt_config}' does not exist")
    endif()
    list(APPEND _ltt_cmd "--config-file=${_ltt_config}")
  endif()
  if(DEFINED _ltt_HEADER_FILTER)
    list(APPEND _ltt_cmd "--header-filter=${_ltt_HEADER_FILTER}")
  endif()
  list(APPEND _ltt_cmd "--quiet" ${_ltt_EXTRA_ARGS})
  set_property(TARGET ${target} PROPERTY CXX_CLANG_TIDY "${_ltt_cmd}")
endfunction()
