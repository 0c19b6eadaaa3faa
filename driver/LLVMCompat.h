//===--- LLVMCompat.h - LLVM Support across versions ------------*- C++ -*-===//
//
// The differences in LLVM Support between the versions the command builds
// against (19 and 22), in one place; the plugin's are in
// checks/utils/ClangTidyCompat.h.
//
// - LLVM 22 added a vfs::FileSystem parameter to cl::ParseCommandLineOptions,
//   before EnvVar and LongOptionsUseDoubleDash.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_LLVMCOMPAT_H
#define LIBTORCH_TIDY_DRIVER_LLVMCOMPAT_H

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"

namespace libtorch_tidy::compat {

/// cl::ParseCommandLineOptions with long options also spelled "--name".
inline bool parseCommandLineWithDoubleDash(int Argc, const char *const *Argv,
                                           llvm::StringRef Overview, llvm::raw_ostream *Errs) {
#if LLVM_VERSION_MAJOR >= 22
  return llvm::cl::ParseCommandLineOptions(Argc, Argv, Overview, Errs, /*VFS=*/nullptr,
                                           /*EnvVar=*/nullptr, /*LongOptionsUseDoubleDash=*/true);
#else
  return llvm::cl::ParseCommandLineOptions(Argc, Argv, Overview, Errs, /*EnvVar=*/nullptr,
                                           /*LongOptionsUseDoubleDash=*/true);
#endif
}

} // namespace libtorch_tidy::compat

#endif // LIBTORCH_TIDY_DRIVER_LLVMCOMPAT_H
