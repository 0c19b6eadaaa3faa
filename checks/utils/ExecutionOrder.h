//===--- ExecutionOrder.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// Execution order inside one function body and the lambda bodies spelled in
// it, answered from their control-flow graphs (clang's CFG), never from
// source positions.
//
// Design (after clang-tidy's bugprone-use-after-move and utils/ExprSequence):
//   - the CFG is built once per body with every expression as an element
//     (BuildOptions::setAllAlwaysAdd), so two statements of one block are
//     ordered by their element index and statements of different blocks by
//     reachability or dominance between the blocks;
//   - a statement that is not itself an element (an if, a compound statement)
//     is placed at its nearest enclosing element;
//   - every code body has an order: the function body's CFG is built with the
//     ExecutionOrder, and the body of each lambda spelled in it gets a
//     sub-order of its own (same BuildOptions, sharing the function body's
//     ParentMap: FunctionFacts::parents() when the order is the facts', one
//     parent map per body), built on the first query that needs it, so a body whose
//     lambdas nobody asks about pays nothing for them;
//   - a query about two statements (mayRunAfter, dominates,
//     runsEveryIteration, reachesAvoiding) answers from the order of the code
//     body that holds both: the function body, or the innermost lambda body
//     around both. A statement inside a lambda and one outside it have no
//     order between them (the lambda's body runs when it is called, not where
//     it is written): such a query answers false, which keeps the checks
//     silent. canOrder() says whether a pair has an order;
//   - isPlaced() and reachableAvoiding() speak of the function body only: a
//     statement inside a lambda is not placed there (checks use isPlaced() to
//     tell a top-level statement from one in a lambda);
//   - graph() hands out the CFG of any code body (the function body or a
//     lambda body), for analyses that walk the blocks themselves (the
//     mode-restore paths, ModeRestore.h): one CFG builder for the project;
//   - "runs on every iteration" of a loop means the statement dominates every
//     edge that goes back to the loop's condition (a `continue` before it or
//     a branch around it fails; a `break` ends the loop and is not an
//     iteration that skipped it);
//   - "on some path without" walks the blocks from one statement to another
//     and stops a path at the first blocker: a `train()` in one branch ends
//     an evaluation region on that branch only (a blocker outside the code
//     body of the pair is ignored).
//
// Usage: build one ExecutionOrder per function body (the analysis core keeps
// one per function, FunctionFacts::order()), then query it; lambda bodies are
// reached through it.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_EXECUTIONORDER_H
#define LIBTORCH_TIDY_CHECKS_UTILS_EXECUTIONORDER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
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
  /// The same with the body's ParentMap of an owner that keeps one
  /// (FunctionFacts::parents()), which must outlive this order.
  ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx, const ParentMap &Shared);
  ~ExecutionOrder();
  ExecutionOrder(const ExecutionOrder &) = delete;
  ExecutionOrder &operator=(const ExecutionOrder &) = delete;

  /// False when clang could not build a CFG for the function body: every
  /// query about it then answers false (lambda bodies get their own try).
  bool valid() const { return Graph != nullptr; }

  /// The CFG of \p CodeBody: the function body, or the body of a lambda
  /// spelled in it (built on first use). Null for any other statement and
  /// when clang could not build one.
  const CFG *graph(const Stmt *CodeBody) const;

  /// True when \p A and \p B both have a place in the order of one code body
  /// (the function body, or the innermost lambda body around both), so that
  /// the queries below about the pair answer from the CFG.
  bool canOrder(const Stmt *A, const Stmt *B) const { return orderOf(A, B) != nullptr; }

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
  /// also when \p To has no place in the function body (is in a lambda).
  bool reachableAvoiding(const Stmt *To, llvm::ArrayRef<const Stmt *> Blockers) const;

  /// True when \p S has a place in the function body's CFG (not inside a
  /// lambda, not in unreachable code that clang dropped). A pair inside one
  /// lambda body may still be ordered: ask canOrder().
  bool isPlaced(const Stmt *S) const { return place(S).has_value(); }

private:
  /// A sub-order: the body \p Body of the lambda whose call operator is
  /// \p D, placed with \p Owner's ParentMap.
  ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx, const ExecutionOrder &Owner);
  void build(const Decl *D, const Stmt *Body);

  /// The order that places both \p A and \p B (this one or a lambda body's);
  /// null when none does.
  const ExecutionOrder *orderOf(const Stmt *A, const Stmt *B) const;
  /// The lambda whose body is the innermost code body around \p S: null for
  /// the function body, std::nullopt when \p S is in no code body (a lambda's
  /// capture initialiser, a statement outside the function body).
  std::optional<const LambdaExpr *> lambdaAround(const Stmt *S) const;
  /// The sub-order of \p L's body, built on first use (kept by the owner).
  const ExecutionOrder &lambdaOrder(const LambdaExpr *L) const;

  // The queries, answered from this order's CFG alone.
  bool dominatesHere(const Stmt *A, const Stmt *B) const;
  bool runsEveryIterationHere(const Stmt *S, const Stmt *Loop) const;
  bool reachesAvoidingHere(const Stmt *From, const Stmt *To,
                           llvm::ArrayRef<const Stmt *> Blockers) const;

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

  ASTContext &Ctx;
  const Stmt *Body = nullptr;
  /// The owner of the sub-orders: this order for the function body.
  const ExecutionOrder *Owner = this;
  std::unique_ptr<CFG> Graph;
  /// The function body's ParentMap (lambda bodies included); the
  /// FunctionFacts' when it gives one, else owned by the function body's
  /// order; shared by the sub-orders.
  std::unique_ptr<ParentMap> OwnPM;
  const ParentMap *PM = nullptr;
  mutable llvm::DenseMap<const LambdaExpr *, std::unique_ptr<ExecutionOrder>> Lambdas;
  std::unique_ptr<CFGDominatorTreeImpl<false>> Dom;
  llvm::DenseMap<const Stmt *, Position> Elements;
  std::vector<const CFGBlock *> ById;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_EXECUTIONORDER_H
