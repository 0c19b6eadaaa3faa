//===--- Summaries.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Function summaries, computed bottom-up over the call graph of one
// translation unit.
//
// Design:
//   - the graph is the calls the summaries compose: each function's UserCall
//     facts (FunctionFacts, lambdas included), between the user's function
//     definitions only (never LibTorch's headers); no walk and no call graph
//     of its own. It is walked with llvm::scc_iterator, which yields the
//     strongly connected components
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
//   - what a call of the function adds to a caller's training loop
//     (LoopEvents: TrainingLoop.h's helper events, per depth the caller
//     follows), for torch-missing-zero-grad across translation units.
//   - layers (checks/utils/README.md): the summaries sit below the domain
//     analyses and include none of them; the loop events and the history
//     parts come from the analysis core, which hands build() a callback
//     (DomainFn: helperLoopEvents, HistorySummary.h's summariseHistory).
//   - keys: the canonical declaration of the pattern in the process; the USR
//     (clang::index::generateUSRForDecl) outside it. A summary converts to
//     and from llvm::json (toJSON / fromJSON, SummaryModel.h) so that
//     summaries of several translation units can be linked by USR.
//   - the callers' side: the USRs of functions defined in another
//     translation unit whose result a function here feeds into a backward
//     pass (directly, through variables computed from it, or through a
//     parameter of a callee that reaches backward).
//   - where, for a note: with the levels, the table keeps for each function
//     and depth the forward pass with autograd on that UnguardedForward
//     counts (firstUnguardedForward): its body's first, else the one reached
//     through its first unguarded call that reaches one (a call of another
//     file's function: the call). Same edges, same rules, computed in the
//     same bottom-up pass: a site is known exactly when the level says one
//     is reached. Likewise the synchronisation on every call that
//     SyncEveryCall counts (everyCallSync), through this unit's functions
//     only. Pointers into the AST: never serialised.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_SUMMARIES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_SUMMARIES_H

#include "Callees.h"
#include "FunctionFacts.h"
#include "SummaryModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <functional>
#include <string>
#include <vector>

namespace clang::tidy::torch_check {

/// The summaries of one translation unit.
class SummaryTable {
public:
  /// What the domain analyses, a layer above the summaries, add to the
  /// summary \p S of the definition \p FD (facts \p F): the training loop's
  /// events (TrainingLoop.h's helperLoopEvents) and the history parts
  /// (HistorySummary.h). Called once per definition, after its own facts and
  /// calls are summarised.
  using DomainFn =
      std::function<void(const FunctionDecl *FD, const FunctionFacts &F, FunctionSummary &S)>;

  /// Summarises \p Functions (definitions of the user's functions), bottom-up.
  /// \p Facts gives the facts of a definition; \p Domain what the domain
  /// analyses add (LoopEvents, ReturnsHistory...), may be empty.
  /// \p External, when given, holds the linked summaries of the functions
  /// defined in other translation units (looked up by USR).
  void build(llvm::ArrayRef<const FunctionDecl *> Functions, ASTContext &Ctx, FactsLookup Facts,
             DomainFn Domain, const SummaryDocument *External = nullptr);

  /// The key of \p FD: the canonical declaration of its template pattern (a
  /// member of a class template specialisation or an instantiated function
  /// template maps to the template's), else of \p FD.
  /// (Callees.h's patternKey.)
  static const FunctionDecl *key(const FunctionDecl *FD) { return patternKey(FD); }

  /// The summary of \p FD (through key()), or null when it has none (a
  /// library function, a declaration without a definition in the TU).
  const FunctionSummary *lookup(const FunctionDecl *FD) const;
  /// The summary whose USR is \p USR, or null.
  const FunctionSummary *lookup(llvm::StringRef USR) const;
  /// The forward pass with autograd on that \p FD runs within \p MaxDepth
  /// levels of calls (capped at MaxSummaryDepth), for a note to point at: the
  /// first unguarded one of its own body, else the one reached through the
  /// first of its unguarded calls that reaches one within the depth left (a
  /// call of a function of another file whose linked summary reaches one: the
  /// call itself). Null exactly when FunctionSummary::reaches(
  /// UnguardedForward, MaxDepth) is false (or \p FD has no summary):
  /// instantiations of one pattern keep the first site each depth got.
  const CallExpr *firstUnguardedForward(const FunctionDecl *FD, unsigned MaxDepth) const;

  /// A synchronisation on every call (FunctionSummary::SyncEveryCall), for a
  /// note to point at: the call and the definition whose body holds it.
  struct SyncSite {
    const CallExpr *Sync = nullptr;
    const FunctionDecl *In = nullptr;
  };
  /// The synchronisation on every call that \p FD reaches within \p MaxDepth
  /// levels of calls of this unit's functions (capped at MaxSummaryDepth):
  /// the first of its own body (syncsOnEveryCall), else the one reached
  /// through the first of its calls that synchronises on every call
  /// (syncsOnEveryCallThrough) and reaches one within the depth left. Empty
  /// when there is none, and for a level reached only through another file's
  /// function (its linked summary holds no site).
  SyncSite everyCallSync(const FunctionDecl *FD, unsigned MaxDepth) const;

  /// The keys in the order they were summarised (callees first).
  llvm::ArrayRef<const FunctionDecl *> bottomUpOrder() const { return Order; }

  /// Every summary, as a JSON array (sorted by USR).
  llvm::json::Value toJSON() const;
  /// The serialisable document of the translation unit (SummaryModel.h).
  SummaryDocument document() const;
  /// USRs of functions without a definition here whose result reaches a
  /// backward pass here.
  const std::set<std::string> &resultsReachingBackward() const { return ResultToBackward; }

  void clear();

private:
  /// firstUnguardedForward for each depth 0..MaxSummaryDepth.
  using ForwardSites = std::array<const CallExpr *, MaxSummaryDepth + 1>;
  /// everyCallSync for each depth 0..MaxSummaryDepth.
  using SyncSites = std::array<SyncSite, MaxSummaryDepth + 1>;

  std::vector<FunctionSummary> Storage;
  std::vector<ForwardSites> FirstForward; ///< parallel to Storage
  std::vector<SyncSites> EveryCallSync;   ///< parallel to Storage
  llvm::DenseMap<const FunctionDecl *, unsigned> ByKey;
  llvm::StringMap<unsigned> ByUSR;
  std::vector<const FunctionDecl *> Order;
  std::set<std::string> ResultToBackward;
  std::set<std::string> Uses; ///< USRs called without a definition here
};

/// \p Sync (a Fact::Sync of \p F's body) synchronises for a reporting habit
/// on every call of the function (Syncs.h's habitualSync and runsOnEveryCall):
/// what FunctionSummary::SyncEveryCall records at level 0.
bool syncsOnEveryCall(const Fact &Sync, const FunctionFacts &F, ASTContext &Ctx);
/// \p Call, in \p F's body, calls a function whose summary synchronises on
/// every call (\p Callee), runs on every call of \p F and its value decides no
/// branch there: \p F synchronises on every call too, one level deeper.
bool syncsOnEveryCallThrough(const CallExpr *Call, const FunctionSummary &Callee,
                             const FunctionFacts &F, ASTContext &Ctx);

/// The USR of \p D, or "" when clang cannot make one.
std::string usrOf(const Decl *D);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_SUMMARIES_H
