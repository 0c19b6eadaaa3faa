# Builds the precompiled LibTorch header of the end-to-end tests (run by the
# torch_pch target of test/CMakeLists.txt with cmake -P):
#   -DCXX=compiler -DFLAGS="LibTorch flags" -DHEADER=.../torch_pch.h
#   -DSTAMP=file to touch -DDEPFILE=file for the header dependencies
# GCC's precompiled header of HEADER (#include <torch/torch.h>) is HEADER.gch,
# built with -g: GCC uses it for compilations with the same flags, with or
# without -g, and parses HEADER as text otherwise (another -O, -pthread, a
# sanitizer: -Winvalid-pch names the reason), so a missing or unusable .gch
# only costs time. The .gch is kept only if a compilation with the flags of the
# tests uses it (-H lists it with "!"); if not, a warning, and the tests parse
# <torch/torch.h> each time. The stamp is touched either way: a build never
# fails and never retries for the header alone.
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
set(gch "${HEADER}.gch")
file(REMOVE "${gch}" "${gch}.tmp")
execute_process(COMMAND "${CXX}" ${flags} -g -x c++-header "${HEADER}" -o "${gch}.tmp"
                        -MD -MF "${DEPFILE}" -MT "${STAMP}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
set(why "")
if(NOT rc EQUAL 0)
  set(why "it did not build: ${err}")
else()
  file(RENAME "${gch}.tmp" "${gch}")
  get_filename_component(dir "${HEADER}" DIRECTORY)
  file(WRITE "${dir}/probe.cpp" "int main() { return 0; }\n")
  execute_process(COMMAND "${CXX}" -include "${HEADER}" -Winvalid-pch ${flags} -H -fsyntax-only
                          "${dir}/probe.cpp"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  string(FIND "${err}" "! ${gch}" used)
  if(NOT rc EQUAL 0 OR used EQUAL -1)
    string(REGEX MATCH "[^\n]*invalid-pch[^\n]*" reason "${err}")
    set(why "the compiler does not use it: ${reason}")
    file(REMOVE "${gch}")
  endif()
endif()
file(REMOVE "${gch}.tmp")
if(why)
  message(WARNING "The precompiled LibTorch header (${gch}) is not used, ${why}\n"
                  "The end-to-end tests parse <torch/torch.h> in every compilation (slower, same results).")
endif()
if(NOT EXISTS "${DEPFILE}")
  file(WRITE "${DEPFILE}" "${STAMP}: ${HEADER}\n")
endif()
file(TOUCH "${STAMP}")
