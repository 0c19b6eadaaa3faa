//===--- ClangTidyCompat.h - libtorch-tidy ----------------------*- C++ -*-===//
//
// The differences between the clang-tidy versions the checks build against
// (19 and 22), in one place, so that every other source is the same for both
// (the command's, in LLVM Support, are in driver/LLVMCompat.h).
//
// - LLVM 22 moved ClangTidyModuleRegistry into ClangTidyModule.h and made
//   ClangTidyModuleRegistry.h a deprecated header that #warns on inclusion.
// - LLVM 22's CallExpr::getBeginLoc() no longer forwards to
//   CXXOperatorCallExpr's: called through a CallExpr pointer, `model(x)` begins
//   at `(` instead of `model`. beginLoc() takes the most derived class's.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CLANGTIDYCOMPAT_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CLANGTIDYCOMPAT_H

#include "clang-tidy/ClangTidyModule.h"
#include "clang/AST/Stmt.h"
#include "llvm/Config/llvm-config.h"

#if LLVM_VERSION_MAJOR < 22
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

namespace clang::tidy::torch_check::compat {

/// Where \p S begins, as its most derived class says (Stmt dispatches on the
/// class; a CallExpr pointer in LLVM 22 does not for overloaded operators).
inline SourceLocation beginLoc(const Stmt *S) { return S->getBeginLoc(); }

} // namespace clang::tidy::torch_check::compat

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CLANGTIDYCOMPAT_H
