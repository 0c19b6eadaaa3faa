//===--- TidyCommand.h - `libtorch-tidy tidy`: clang-tidy in a build ------===//
#ifndef LIBTORCH_TIDY_DRIVER_TIDYCOMMAND_H
#define LIBTORCH_TIDY_DRIVER_TIDYCOMMAND_H

namespace libtorch_tidy {

/// clang-tidy on one source as a build runs it (CMake's CXX_CLANG_TIDY),
/// through the shared precompiled LibTorch header. Argv[0] is
/// "libtorch-tidy tidy".
int runTidyCommand(int Argc, const char **Argv);

} // namespace libtorch_tidy

#endif
