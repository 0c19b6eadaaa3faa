//===--- Summaries.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Function summaries, computed bottom-up over the call graph of one
// translation unit.
//
// Design:
//   - the graph is clang's CallGraph (Analysis/CallGraph.h), fed with the
//     user's function definitions only (never LibTorch's headers), and walked
//     with llvm::scc_iterator, which yields the strongly connected components
//     callees first: when a function is summarised, every function it calls
//     outside its own component already is. Calls inside a component
//     (recursion) add nothing: a cycle adds no path. Each summary is computed
//     once (no re-walk per call site).
//   - templates: a function template's instantiations and the members of a
//     class template's specialisations are analysed with their types
//     resolved, and their summaries are merged under the key of their
//     template pattern (getTemplateInstantiationPattern): a call of
//     `Trainer<Net>::evaluate()` and one of `Trainer<Mlp>::evaluate()` are
//     both calls of `Trainer<T>::evaluate()`.
//   - depth: a summary records, for each effect, the fewest levels of calls
//     between the function and the effect (0: its own body). The limit is
//     applied in one place, reaches(): a check passes its CallDepth option.
//     Levels beyond MaxSummaryDepth are not recorded.
//   - what a function does with its parameters (reaches a backward pass,
//     written in place, inserted into a container, returned) and with its
//     result (returns a tensor carrying autograd history, always or when an
//     argument does: History.h's HistoryFunctions), and whether it turns
//     autograd off.
//   - keys: the canonical declaration of the pattern in the process; the USR
//     (clang::index::generateUSRForDecl) outside it. A summary converts to
//     and from llvm::json (toJSON / fromJSON) so that summaries of several
//     translation units can be linked by USR.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_SUMMARIES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_SUMMARIES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include <functional>
#include <string>
#include <vector>

namespace clang::tidy::torch_check {

class FunctionFacts;
class HistoryFunctions;

/// The deepest level of calls a summary records (checks ask for less).
inline constexpr unsigned MaxSummaryDepth = 8;
/// "Never, within MaxSummaryDepth levels."
inline constexpr unsigned NotReached = ~0u;

/// What a function does with one of its parameters.
struct ParameterSummary {
  bool ReachesBackward = false; ///< its value flows into a backward pass
  bool WrittenInPlace = false;  ///< its storage is written (t.add_(x), t[0] = x)
  bool Inserted = false;        ///< it is inserted into a container
  bool Returned = false;        ///< it is returned
  friend bool operator==(const ParameterSummary &A, const ParameterSummary &B) {
    return A.ReachesBackward == B.ReachesBackward && A.WrittenInPlace == B.WrittenInPlace &&
           A.Inserted == B.Inserted && A.Returned == B.Returned;
  }
};

/// The summary of one function (or of every instantiation of a template).
struct FunctionSummary {
  std::string USR;
  std::string Name; ///< qualified name, for messages and debugging
  /// The fewest levels of calls to each effect (0: the function's own body;
  /// NotReached: never within MaxSummaryDepth). Effects inside lambdas of
  /// the body are not counted (they run where the lambda is called).
  unsigned Forward = NotReached;
  unsigned Backward = NotReached; ///< backward() or autograd::grad
  unsigned Step = NotReached;
  unsigned ZeroGrad = NotReached;
  unsigned Train = NotReached; ///< module.train()
  unsigned Eval = NotReached;  ///< module.eval()
  unsigned Sync = NotReached;
  bool DisablesGrad = false;   ///< its body holds a guard or set_enabled(false)
  bool ReturnsHistory = false; ///< its result carries history whatever its arguments
  bool ReturnsHistoryFromArgs = false; ///< ... when an argument does
  std::vector<ParameterSummary> Params;

  /// True when \p Level is within \p MaxDepth levels of calls (the one place
  /// the depth limit is applied).
  static bool reaches(unsigned Level, unsigned MaxDepth) {
    return Level != NotReached && Level <= MaxDepth;
  }
  /// The function trains: backward pass, step, or train() within \p MaxDepth.
  bool trains(unsigned MaxDepth) const {
    return reaches(Backward, MaxDepth) || reaches(Step, MaxDepth) || reaches(Train, MaxDepth);
  }
  friend bool operator==(const FunctionSummary &A, const FunctionSummary &B);
};

llvm::json::Value toJSON(const FunctionSummary &S);
bool fromJSON(const llvm::json::Value &V, FunctionSummary &S, llvm::json::Path P);

/// The summaries of one translation unit.
class SummaryTable {
public:
  using FactsFn = std::function<const FunctionFacts &(const FunctionDecl *)>;

  /// Summarises \p Functions (definitions of the user's functions), bottom-up.
  /// \p Facts gives the facts of a definition; \p History the history
  /// summaries (ReturnsHistory), may be null.
  void build(llvm::ArrayRef<const FunctionDecl *> Functions, ASTContext &Ctx, FactsFn Facts,
             HistoryFunctions *History);

  /// The key of \p FD: the canonical declaration of its template pattern (a
  /// member of a class template specialisation or an instantiated function
  /// template maps to the template's), else of \p FD.
  static const FunctionDecl *key(const FunctionDecl *FD);

  /// The summary of \p FD (through key()), or null when it has none (a
  /// library function, a declaration without a definition in the TU).
  const FunctionSummary *lookup(const FunctionDecl *FD) const;
  /// The summary whose USR is \p USR, or null.
  const FunctionSummary *lookup(llvm::StringRef USR) const;

  /// The keys in the order they were summarised (callees first).
  llvm::ArrayRef<const FunctionDecl *> bottomUpOrder() const { return Order; }

  /// Every summary, as a JSON array (sorted by USR).
  llvm::json::Value toJSON() const;

  void clear();

private:
  std::vector<FunctionSummary> Storage;
  llvm::DenseMap<const FunctionDecl *, unsigned> ByKey;
  llvm::StringMap<unsigned> ByUSR;
  std::vector<const FunctionDecl *> Order;
};

/// The USR of \p D, or "" when clang cannot make one.
std::string usrOf(const Decl *D);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_SUMMARIES_H
