//===--- ASTHelpers.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Small helpers on statements and source text shared by the checks.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H

#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include <string>

namespace clang::tidy::torch_check {

/// True when \p Ancestor is \p S or encloses it (per \p PM).
bool isDescendant(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM);

/// The leading whitespace of the line that holds \p Loc (its expansion).
std::string indentationAt(SourceLocation Loc, const SourceManager &SM);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H
