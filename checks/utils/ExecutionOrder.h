//===--- ExecutionOrder.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// Execution order inside one function body, answered from its control-flow
// graph (clang's CFG), never from source positions.
//
// Design (after clang-tidy's bugprone-use-after-move and utils/ExprSequence):
//   - the CFG is built once per body with every expression as an element
//     (BuildOptions::setAllAlwaysAdd), so two statements of one block are
//     ordered by their element index and statements of different blocks by
//     reachability or dominance between the blocks;
//   - a statement that is not itself an element (an if, a compound statement)
//     is placed at its nearest enclosing element; a statement inside a lambda
//     spelled in the body has no place (the lambda's body runs when it is
//     called, not where it is written): every query about it answers false,
//     which keeps the checks silent;
//   - "runs on every iteration" of a loop means the statement dominates every
//     edge that goes back to the loop's condition (a `continue` before it or
//     a branch around it fails; a `break` ends the loop and is not an
//     iteration that skipped it);
//   - "on some path without" walks the blocks from one statement to another
//     and stops a path at the first blocker: a `train()` in one branch ends
//     an evaluation region on that branch only.
//
// Usage: build one ExecutionOrder per body (the analysis core keeps one per
// function, FunctionFacts::order()), then query it.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_EXECUTIONORDER_H
#define LIBTORCH_TIDY_CHECKS_UTILS_EXECUTIONORDER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <optional>
#include <vector>

namespace clang {
template <bool IsPostDom> class CFGDominatorTreeImpl;
} // namespace clang

namespace clang::tidy::torch_check {

class ExecutionOrder {
public:
  /// Builds the CFG of \p Body, the body of \p D (a function or lambda).
  ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx);
  ~ExecutionOrder();
  ExecutionOrder(const ExecutionOrder &) = delete;
  ExecutionOrder &operator=(const ExecutionOrder &) = delete;

  /// False when clang could not build a CFG for the body: every query then
  /// answers false.
  bool valid() const { return Graph != nullptr; }

  /// Some path runs \p Later after \p Earlier (possibly on a later iteration
  /// of a loop around both).
  bool mayRunAfter(const Stmt *Later, const Stmt *Earlier) const;

  /// Every path from the function's entry to \p B runs \p A first.
  bool dominates(const Stmt *A, const Stmt *B) const;

  /// \p S is inside \p Loop (for, range-for, while, do) and runs on every
  /// iteration that goes back to the loop's condition.
  bool runsEveryIteration(const Stmt *S, const Stmt *Loop) const;

  /// Some path goes from \p From to \p To without running any of \p Blockers
  /// in between (a blocker that cannot be placed is ignored).
  bool reachesAvoiding(const Stmt *From, const Stmt *To,
                       llvm::ArrayRef<const Stmt *> Blockers) const;

  /// Some path goes from the function's entry to \p To without running any
  /// of \p Blockers: false when every path to \p To runs one of them first
  /// (an `eval()` on both branches of an `if` before a forward pass). False
  /// also when \p To has no place.
  bool reachableAvoiding(const Stmt *To, llvm::ArrayRef<const Stmt *> Blockers) const;

  /// True when \p S has a place in the CFG (not inside a lambda, not in
  /// unreachable code that clang dropped).
  bool isPlaced(const Stmt *S) const { return place(S).has_value(); }

private:
  struct Position {
    unsigned Block;
    unsigned Index;
  };
  std::optional<Position> place(const Stmt *S) const;
  const CFGBlock *block(unsigned ID) const;
  const CFGBlock *loopHeader(const Stmt *Loop) const;
  /// Some path from element \p Start of block \p From (its successors when
  /// \p Start is past its end) reaches \p To before any of \p Blockers.
  bool searchAvoiding(unsigned From, unsigned Start, Position To,
                      llvm::ArrayRef<const Stmt *> Blockers) const;

  std::unique_ptr<CFG> Graph;
  std::unique_ptr<ParentMap> PM;
  std::unique_ptr<CFGDominatorTreeImpl<false>> Dom;
  llvm::DenseMap<const Stmt *, Position> Elements;
  std::vector<const CFGBlock *> ById;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_EXECUTIONORDER_H
