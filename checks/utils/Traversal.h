//===--- Traversal.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Walks of statement trees with an explicit stack: the user's code decides how
// deep expressions and statements nest (a chain of ten thousand `+`, a
// generated parser), never the depth of the checks' own call stack. Every walk
// of a statement tree in checks/ goes through these (docs/traversals.md).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_TRAVERSAL_H
#define LIBTORCH_TIDY_CHECKS_UTILS_TRAVERSAL_H

#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>

namespace clang::tidy::torch_check {

/// What a walk does after visiting a statement.
enum class Walk {
  Into, ///< go on into its children
  Skip, ///< leave its children out, go on with the rest
  Stop, ///< end the walk
};

/// Visits \p Root and every statement under it in pre-order, children left to
/// right (the order of a recursive walk over `children()`), null children left
/// out; \p Visit (const Stmt * -> Walk) says whether to look inside each.
/// Returns false when \p Visit stopped the walk.
template <typename VisitFn> bool walkStmts(const Stmt *Root, VisitFn &&Visit) {
  llvm::SmallVector<const Stmt *, 64> Stack;
  if (Root)
    Stack.push_back(Root);
  while (!Stack.empty()) {
    const Stmt *S = Stack.pop_back_val();
    switch (Visit(S)) {
    case Walk::Stop:
      return false;
    case Walk::Skip:
      continue;
    case Walk::Into:
      break;
    }
    size_t First = Stack.size();
    for (const Stmt *Child : S->children())
      if (Child)
        Stack.push_back(Child);
    std::reverse(Stack.begin() + First, Stack.end());
  }
  return true;
}

/// True when \p Pred holds for \p Root or a statement under it (pre-order).
template <typename PredFn> bool anyStmt(const Stmt *Root, PredFn &&Pred) {
  return !walkStmts(Root, [&](const Stmt *S) { return Pred(S) ? Walk::Stop : Walk::Into; });
}

/// True when \p Pred holds for \p Root or a statement under it, not looking
/// inside the statements \p Prune names (tested after \p Pred, so that a
/// pruned statement itself can match).
template <typename PredFn, typename PruneFn>
bool anyStmt(const Stmt *Root, PredFn &&Pred, PruneFn &&Prune) {
  return !walkStmts(Root, [&](const Stmt *S) {
    if (Pred(S))
      return Walk::Stop;
    return Prune(S) ? Walk::Skip : Walk::Into;
  });
}

/// Calls \p Fn on \p Root and every statement under it (pre-order).
template <typename Fn> void forEachStmt(const Stmt *Root, Fn &&F) {
  walkStmts(Root, [&](const Stmt *S) {
    F(S);
    return Walk::Into;
  });
}

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TRAVERSAL_H
