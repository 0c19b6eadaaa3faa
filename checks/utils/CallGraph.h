//===--- CallGraph.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// The calls between the user's functions of one translation unit, for the
// checks that follow a mistake across a function boundary (an evaluation
// helper called from the epoch loop, a trainer method that steps the optimizer,
// a member updated by a method called once per batch).
//
// Scope and limits (docs/cross-function.md):
//   - one translation unit: the functions defined in the main file and in the
//     headers it includes (not system headers, not LibTorch);
//   - direct calls only: calls through function pointers, std::function and
//     other callables are not followed (the callee is unknown);
//   - a virtual call counts as a call site of the method named and of every
//     override defined in the translation unit (when asking "who calls this?"),
//     but is never followed downwards (which override runs is unknown), unless
//     it is qualified (`Base::f()`) or the method or class is final;
//   - depth: at most the given number of levels of calls are followed (option
//     CallDepth, default 3; a parameter of each query, so one graph serves
//     checks with different limits); beyond it the answer is "unknown" and the
//     checks stay silent;
//   - recursion: a cycle adds no path; every walk keeps a visited set.
//
// Usage: the analysis core collects one graph per translation unit
// (AnalysisCore::calls: every user function, on first use) and the checks
// query it with their depth limit at the end of the translation unit, when
// every caller has been seen. The graph is built from each function's facts
// (AnalysisCore::facts): no walk of its own.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CALLGRAPH_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CALLGRAPH_H

#include "Callees.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <deque>

namespace clang::tidy::torch_check {

/// The name and default of the option that bounds how many levels of calls the
/// cross-function checks follow (local to a check, or global in CheckOptions).
inline constexpr llvm::StringLiteral CallDepthOption = "CallDepth";
inline constexpr unsigned DefaultCallDepth = 3;
/// A larger CallDepth reads as this one: each level is a frame of the checks'
/// own stack (the walks that follow calls recurse one level per call), so the
/// bound is the checks', never the user's configuration's.
inline constexpr unsigned MaxCallDepth = 16;
/// How long a chain of helpers an analysis that asks its callees on demand
/// (History.h's return summaries, each built inside its caller's) follows:
/// past it a helper reads as doing nothing (a missed finding, never a false
/// one). A bound on the checks' own stack like MaxCallDepth, not an option;
/// the summaries' levels stop at MaxSummaryDepth (SummaryModel.h).
inline constexpr unsigned MaxHelperChain = 32;

class FunctionFacts;

class CallGraph {
public:
  /// One call of a user function.
  struct Site {
    const CallExpr *Call;
    const FunctionDecl *Caller; ///< canonical declaration of the calling function
    bool Guarded;  ///< autograd is off (or may be) where the call runs
    bool InLoop;   ///< the call runs in a loop of the caller (not in a lambda there)
    const Stmt *Loop; ///< that loop (the innermost), or null
    bool Virtual;  ///< dispatched virtually
  };

  explicit CallGraph(unsigned MaxDepth = DefaultCallDepth) : MaxDepth(MaxDepth) {}
  void setMaxDepth(unsigned D) { MaxDepth = D; }
  unsigned maxDepth() const { return MaxDepth; }

  /// Records the calls of user functions made in the body whose facts are
  /// \p Facts (the analysis core's one walk of it, lambdas included); call
  /// once per function body.
  void collect(const FunctionFacts &Facts, ASTContext &Ctx);

  /// The recorded calls of \p FD: its own, and for a method the virtual calls
  /// of the methods it overrides. In source order of collection.
  llvm::SmallVector<const Site *, 4> callers(const FunctionDecl *FD) const;

  /// True when \p FD is called in the translation unit and every chain of
  /// calls that reaches it passes a guarded call site; chains longer than the
  /// depth limit count as guarded (unknown: silent), cycles add no chain.
  bool guardedOnEveryPath(const FunctionDecl *FD) const {
    return guardedOnEveryPath(FD, MaxDepth);
  }
  /// The same within \p Depth levels of calls (memoised per function and depth).
  bool guardedOnEveryPath(const FunctionDecl *FD, unsigned Depth) const;
  /// The same, where an entry point of a chain (a function nobody here calls,
  /// \p FD itself included) counts as guarded when \p EntryGuarded says so:
  /// every call of it in other files holds a guard (the linked callers' side),
  /// or, while a unit's own summaries are written, "assumed, and recorded".
  /// Not memoised: \p EntryGuarded may record what it is asked.
  bool guardedOnEveryPath(const FunctionDecl *FD, unsigned Depth,
                          llvm::function_ref<bool(const FunctionDecl *)> EntryGuarded) const;

  /// One chain of unguarded calls from an entry point (a function nobody
  /// calls) down to \p FD, innermost call first; empty when there is none
  /// within the depth limit.
  llvm::SmallVector<const Site *, 4> unguardedChain(const FunctionDecl *FD) const {
    return unguardedChain(FD, MaxDepth);
  }
  llvm::SmallVector<const Site *, 4> unguardedChain(const FunctionDecl *FD, unsigned Depth) const;

  /// One chain of calls from \p FD up to a call made in a loop, innermost call
  /// first, where \p Accept approves every site of the chain; empty when no
  /// such chain exists within the depth limit.
  llvm::SmallVector<const Site *, 4>
  chainToLoop(const FunctionDecl *FD,
              llvm::function_ref<bool(const Site &)> Accept) const {
    return chainToLoop(FD, MaxDepth, Accept);
  }
  llvm::SmallVector<const Site *, 4>
  chainToLoop(const FunctionDecl *FD, unsigned Depth,
              llvm::function_ref<bool(const Site &)> Accept) const;

  /// Every recorded call, in order of collection.
  const std::deque<Site> &sites() const { return Sites; }

  /// True when \p Caller's body (collected) runs a backward pass.
  bool runsBackward(const FunctionDecl *Caller) const {
    return Backward.contains(Caller->getCanonicalDecl());
  }

  void clear() {
    Sites.clear();
    ByCallee.clear();
    Backward.clear();
    Memo.clear();
  }

private:
  bool guardedImpl(const FunctionDecl *FD, unsigned Depth, unsigned Limit,
                   llvm::SmallPtrSetImpl<const FunctionDecl *> &OnPath,
                   llvm::function_ref<bool(const FunctionDecl *)> EntryGuarded) const;
  bool chainImpl(const FunctionDecl *FD, unsigned Depth, unsigned Limit,
                 llvm::SmallPtrSetImpl<const FunctionDecl *> &OnPath,
                 llvm::function_ref<bool(const Site &)> Accept,
                 llvm::function_ref<bool(const Site &)> Ends,
                 llvm::SmallVectorImpl<const Site *> &Chain) const;

  unsigned MaxDepth;
  std::deque<Site> Sites; ///< stable addresses
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const Site *, 2>> ByCallee;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Backward;
  /// guardedOnEveryPath, per function and depth limit.
  mutable llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, bool> Memo;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CALLGRAPH_H
