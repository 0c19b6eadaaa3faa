//===--- GradGuards.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Which statements run with autograd switched off: RAII guards
// (NoGradGuard, InferenceMode, AutoGradMode) and GradMode::set_enabled calls
// in the enclosing blocks of a statement.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_GRADGUARDS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_GRADGUARDS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::torch_check {

/// What a statement does to autograd for the rest of its block.
enum class GradEffect {
  None,     ///< nothing
  Disables, ///< NoGradGuard, InferenceMode, AutoGradMode(false), set_enabled(false)
  Enables,  ///< AutoGradMode(true), set_enabled(true)
  Unknown,  ///< a guard whose argument is not a constant
};

/// The effect of declaring \p VD (a guard variable) on autograd.
GradEffect guardVarEffect(const VarDecl *VD, const ASTContext &Ctx);

/// The effect of \p S, a statement of a block: guard declarations and
/// GradMode::set_enabled calls. The last effect in the statement wins.
GradEffect statementGradEffect(const Stmt *S, const ASTContext &Ctx);

/// True when autograd is (or may be) off where \p S runs, judged from the
/// blocks of the enclosing function that contain \p S: the innermost guard or
/// set_enabled call that precedes \p S decides. A guard with a non-constant
/// argument counts as off: when unsure, checks stay silent.
bool isGradDisabledAt(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx);

/// isGradDisabledAt for the statements of one body, memoised: a statement's
/// answer comes from its parent's (or from the guards before it in its block),
/// and each block's statements are classified once. Asking about every node of
/// a body costs one pass over it, where asking isGradDisabledAt of each node
/// walks up to the root and along every enclosing block each time (quadratic
/// on a 4,000-term expression or a block of thousands of statements).
class GradGuardCache {
public:
  GradGuardCache(const ParentMap &PM, const ASTContext &Ctx) : PM(PM), Ctx(Ctx) {}
  /// Same answer as isGradDisabledAt(S, PM, Ctx).
  bool isDisabledAt(const Stmt *S);

private:
  /// The last effect among the statements of \p Block before \p Child.
  GradEffect effectBefore(const CompoundStmt *Block, const Stmt *Child);

  const ParentMap &PM;
  const ASTContext &Ctx;
  llvm::DenseMap<const Stmt *, bool> Answers;
  llvm::DenseMap<const Stmt *, GradEffect> Before;
  llvm::DenseMap<const CompoundStmt *, bool> Scanned;
};

/// True when \p Body contains a guard or set_enabled(false) anywhere.
bool containsGradDisable(const Stmt *Body, const ASTContext &Ctx);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_GRADGUARDS_H
