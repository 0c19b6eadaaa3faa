//===--- Escapes.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// Which values outlive a function body: the escape walk behind the inference
// rule of torch-eval-without-no-grad (a function from which no value with
// autograd history leaves is evaluation code) and its SuggestInferenceMode
// option (no tensor leaves at all), and the fact the summaries record for
// other files (FunctionSummary::KeepsNoHistory: a call of the function keeps
// nothing it is given or computes, but through its result).
//
// Design:
//   - resultsStayIn: no tensor the function computes outlives it (returns,
//     writes to anything but its own locals, container inserts, arguments of
//     user functions and constructors, lambdas): every tensor counts.
//   - historyStaysIn: the same walk with a history analysis (History.h) of
//     the body, its parameters taken to carry history and the tensor members
//     and globals it reads counted as sources; only values with history
//     count. A call of a user function with such a value leaves unless that
//     function keeps nothing (keepsNoHistory, followed Budget levels and
//     memoised per budget: every call followed has a smaller one, so no
//     answer is read while it is being computed, and a recursion reads
//     "may keep" where the budget runs out), or, defined in another file, unless
//     its linked summary says KeepsNoHistory.
//   - A local object of the user's class built from values with history
//     (`auto dist = Normal(mu, sigma)`) is the body's own storage when its
//     constructor keeps nothing but in the object (keepsOnlyInObject: its
//     member initialisers and body, its data members its own storage) and
//     the class has no base and no destructor that does something: then the
//     object may only be the object of method calls that keep nothing (any
//     other use leaves), and what they return carries its history.
//   - Neither walks the body: both read the facts' nodes (FunctionFacts::nodes,
//     and initializerNodes for a constructor's member initialisers); the
//     returns, the state read and the local-object candidates come from them
//     too.
//   - The analysis core owns one HistoryEscapes per translation unit
//     (AnalysisCore::escapes); the check and the summaries' writer ask it.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_ESCAPES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_ESCAPES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>

namespace clang::tidy::torch_check {

class FunctionFacts;
class HistoryFunctions;

/// \p T may hold a tensor (through a reference too).
bool tensorish(QualType T);

/// True when no tensor the function of \p Facts (a definition) computes can
/// reach autograd after it returns: it returns no tensor, and none of its
/// body's nodes lets one outlive it.
bool resultsStayIn(const FunctionFacts &Facts);

class HistoryEscapes {
public:
  /// For a function defined in another file: its linked summary says a call
  /// keeps no value with history (AnalysisCore::keepsNoHistoryElsewhere).
  using ElsewhereFn = std::function<bool(const FunctionDecl *)>;
  HistoryEscapes(HistoryFunctions &History, ElsewhereFn KeepsNothingElsewhere)
      : History(History), KeepsNothingElsewhere(std::move(KeepsNothingElsewhere)) {}

  /// No value with autograd history that \p FD computes or is given (its
  /// parameters are taken to carry history) outlives its call, but through
  /// its result when \p ResultMayCarry; user functions it hands such a value
  /// are followed \p Budget levels (keepsNoHistory).
  /// \p ThisIsOwn: a constructor's walk, its data members (and their
  /// initialisers) are its own storage.
  bool historyStaysIn(const FunctionDecl *FD, ASTContext &Ctx, unsigned Budget,
                      bool ResultMayCarry, bool ThisIsOwn = false);
  /// historyStaysIn of a user function's definition with its result allowed
  /// to carry history (memoised per budget, which falls by one per call
  /// followed: a recursion reads false where it runs out). A function
  /// defined in another file: its linked summary's KeepsNoHistory.
  bool keepsNoHistory(const FunctionDecl *FD, ASTContext &Ctx, unsigned Budget);

  /// A constructor (defined here) keeps nothing with history it is given
  /// but in the object it builds, and the class ends with its objects (no
  /// base, no destructor that does something): a local object it builds is
  /// the caller's own storage (memoised).
  bool keepsOnlyInObject(const CXXConstructorDecl *Ctor, ASTContext &Ctx, unsigned Budget);

private:
  HistoryFunctions &History;
  ElsewhereFn KeepsNothingElsewhere;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, bool> Memo, ObjectMemo;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_ESCAPES_H
