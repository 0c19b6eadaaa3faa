//===--- ClangTidyCompat.h - libtorch-tidy ----------------------*- C++ -*-===//
//
// The differences between the clang-tidy versions the checks build against
// (19 and 22), in one place, so that every other source is the same for both
// (the command's, in LLVM Support, are in driver/LLVMCompat.h).
//
// - LLVM 22 moved ClangTidyModuleRegistry into ClangTidyModule.h and made
//   ClangTidyModuleRegistry.h a deprecated header that #warns on inclusion.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CLANGTIDYCOMPAT_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CLANGTIDYCOMPAT_H

#include "clang-tidy/ClangTidyModule.h"
#include "llvm/Config/llvm-config.h"

#if LLVM_VERSION_MAJOR < 22
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CLANGTIDYCOMPAT_H
