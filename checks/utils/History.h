//===--- History.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// Which expressions of a function body "carry autograd history": tensors whose
// graph (grad_fn chain and saved activations) stays alive as long as they do.
//
// Sources of history:
//   - forward passes (isForwardCall: module forward, holder call, Sequential,
//     AnyModule, TorchScript modules), loss modules included;
//   - LibTorch loss functions (isLossFunctionCall);
//   - calls of functions and lambdas defined in the translation unit whose
//     returned tensor carries history (a wrapper around model->forward, a
//     compute_loss() member);
//   - the fields of a struct of tensors such a function returns, field by
//     field (`Result r = update(x); r.loss`: tensorAggregate,
//     Summary::FieldsAlways); with ParamsCarry, the fields of a parameter
//     of such a struct.
// History propagates
//   - through local variables, parameters and data members assigned in the
//     body (initialisation, `=`, compound assignment, `std::tie(a, b) = ...`,
//     structured bindings, range-for over a container, in-place tensor methods
//     `t.add_(e)`, container insertion `v.push_back(e)`, `m[k] = e`);
//   - to the result of a call that takes a value carrying history (as argument
//     or object) and returns something that can hold a tensor: `out.sum()`,
//     `a + b`, `std::get<0>(tuple)`, `torch::stack(list)`, `loss_fn(out, y)`.
//     A call of a function defined in the translation unit propagates only when
//     that function's returned tensor depends on its parameters.
// It stops at
//   - `.detach()`, `.detach_()`, `.item()` / `.item<T>()`, backward and
//     autograd::grad;
//   - operations without gradient (isNoGradientCall: argmax, comparisons,
//     *_like factories, ...), the indices of max/min/sort/topk...
//     (`std::get<1>(torch::max(x, 1))`: isReductionIndices) and `.to(kLong)` /
//     `.toType(kBool)` (integral results); results of non-tensor type
//     (double, bool, Scalar);
//   - computations under a guard (isGradDisabledAt). A plain copy of a tensor
//     keeps its history, guard or not.
// A variable that is detached somewhere in the body (`v.detach_()`,
// `v = v.detach()`) counts as carrying no history: the analysis is not
// flow-sensitive, and when unsure the checks stay silent.
//
// Usage: a HistoryAnalysis traverses one body (lambdas included) and solves
// its variables; query it per expression. The analysis core
// (AnalysisCore::history) holds the translation unit's one HistoryFunctions:
// the per-function summaries and each function's analysis, built once and
// shared by the history checks (HistoryFunctions::analysis).
//
//   HistoryFunctions &Functions = core().history(Ctx);
//   const HistoryAnalysis &History = Functions.analysis(FD, Ctx);
//   if (const Expr *Source = History.historySource(E)) ... // E carries history
//   if (History.flowsIntoBackward(Acc)) ...                // wanted graph
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_HISTORY_H
#define LIBTORCH_TIDY_CHECKS_UTILS_HISTORY_H

#include "CallGraph.h"
#include "FunctionFacts.h"
#include "GradGuards.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>
#include <vector>
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>

namespace clang::tidy::torch_check {

/// Per-translation-unit summaries: does a function defined in the TU return a
/// tensor that carries history? Computed on demand (callees may be defined
/// after their callers), memoised, recursion-safe.
class HistoryAnalysis;
class HistoryFunctions {
public:
  /// \p Facts: the facts of a function's body (the analysis core's: one
  /// walk, one parent map per body), which the history analyses read.
  explicit HistoryFunctions(FactsLookup Facts);
  ~HistoryFunctions();
  struct Summary {
    bool Always = false;   ///< its result carries history whatever its arguments
    bool FromArgs = false; ///< its result carries history when an argument does
    /// For a function returning a struct of tensors (tensorAggregate): the
    /// fields whose returned value carries history whatever its arguments
    /// (`return Result{loss, norm};` gives `loss`). The struct as a whole
    /// carries none: only `r.loss` of a variable it initialises does.
    llvm::SmallVector<const FieldDecl *, 2> FieldsAlways;
  };
  /// The summary of \p FD's definition; empty when it has no body in user
  /// code or does not return something that can hold a tensor. Built on
  /// first use, inside its caller's; memoised. Through a recursion each
  /// function of the cycle gets the cycle's least fixpoint (built from "no
  /// history" again until nothing changes), so the answer does not depend on
  /// which function of the cycle a check asked about first.
  Summary summary(const FunctionDecl *FD, ASTContext &Ctx);
  /// True when some member function of \p Field's class, defined in the TU,
  /// passes the member's value into a backward pass (a loss summed in one
  /// method and back-propagated in another). Memoised.
  bool memberFlowsIntoBackward(const FieldDecl *Field, ASTContext &Ctx);
  /// The history analysis of \p FD's body (its definition's), built on first
  /// use and shared by every check that asks: one history walk per function
  /// for torch-carried-history, torch-accumulated-history and
  /// torch-history-in-container. \p ParamsCarry: the analysis that assumes
  /// the parameters carry history (where a member's history comes from).
  /// Not used inside summary(), whose analyses see a recursive call's
  /// value so far and so may not be the final answer.
  const HistoryAnalysis &analysis(const FunctionDecl *FD, ASTContext &Ctx,
                                  bool ParamsCarry = false);
  void clear();
  /// The facts of \p FD's body.
  const FunctionFacts &facts(const FunctionDecl *FD) const { return Facts(FD); }

private:
  FactsLookup Facts;
  /// One pass of summary() over \p Def's body, with its callees' summaries
  /// as they stand.
  Summary build(const FunctionDecl *Def, bool Carries, ASTContext &Ctx);
  struct Entry {
    Summary S;
    bool Done = false;
    /// Being built, at this depth of summary()'s stack (0: not).
    unsigned OnStack = 0;
    /// Built from a function still being built: the lowest depth it read,
    /// that build (Frames) and the Round; valid while all three stand.
    unsigned Round = 0;
    unsigned Lowest = 0;
    unsigned Frame = 0;
  };
  llvm::DenseMap<const FunctionDecl *, Entry> Summaries;
  /// The summaries being built, each inside its caller's (one number per
  /// build, by depth): a chain of helpers deeper than MaxHelperChain
  /// (CallGraph.h) reads {false, false} past it.
  llvm::SmallVector<unsigned, 8> Frames;
  unsigned Builds = 0;
  /// The lowest depth of the stack that the summary being built has read
  /// (a recursion), ~0u when none.
  unsigned Lowest = ~0u;
  /// Bumped whenever a cycle's function is built again or finished: the
  /// answers built from its earlier value are stale.
  unsigned Round = 1;
  llvm::DenseMap<const FieldDecl *, bool> MemberBackward;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, std::unique_ptr<HistoryAnalysis>>
      Analyses;
};

/// Cross-function history: a data member \p Field updated in \p FD (a method,
/// outside any loop of its own) keeps its value across the iterations of a
/// loop that calls \p FD. Returns one chain of unguarded calls from \p FD up
/// to a call made in a loop, innermost first, each made on `this` except the
/// last, which may be made on an object that outlives the loop, none of them
/// a virtual call (another override may run); empty when
/// there is none within \p Depth levels of calls. With \p FirstCall, only direct calls
/// in a loop that it accepts (a chain of one).
llvm::SmallVector<const CallGraph::Site *, 4>
chainKeepingMember(const CallGraph &Graph, unsigned Depth, const FunctionDecl *FD,
                   const FieldDecl *Field, const SourceManager &SM,
                   llvm::function_ref<bool(const CallGraph::Site &)> FirstCall = nullptr);

/// Where the history a method stores into a member comes from: a call of its
/// own body (Source), or the argument of its parameter ParamIndex.
struct MemberHistoryTrace {
  const Expr *Source = nullptr;
  int ParamIndex = -1;
  /// The field of that parameter, a struct of tensors, that carries it.
  const FieldDecl *ParamField = nullptr;
};
/// The trace of \p Value, stored in \p FD: History's own source, else the
/// parameter it comes from (the shared analysis of \p FD with ParamsCarry).
/// None when it carries no history either way.
std::optional<MemberHistoryTrace>
traceMemberHistory(const FunctionDecl *FD, const Expr *Value, const HistoryAnalysis &History,
                   HistoryFunctions &Functions, ASTContext &Ctx);
/// chainKeepingMember for \p Trace: a value from a parameter needs a direct
/// call in a loop whose argument carries history in the caller.
llvm::SmallVector<const CallGraph::Site *, 4>
memberHistoryChain(const CallGraph &Graph, unsigned Depth, const FunctionDecl *FD,
                   const FieldDecl *Field, const MemberHistoryTrace &Trace, HistoryFunctions &Functions, ASTContext &Ctx,
                   const SourceManager &SM);
/// The notes of a finding on a member: where the history comes from, the
/// member, the calls up to the loop.
void noteMemberHistory(llvm::function_ref<DiagnosticBuilder(SourceLocation, llvm::StringRef)> Note,
                       llvm::ArrayRef<const CallGraph::Site *> Chain,
                       const MemberHistoryTrace &Trace, const Expr *Value, llvm::StringRef Name,
                       SourceLocation FieldLoc);

/// True when a member function of \p Field's class, defined in the TU, hands
/// the member on: passes it into a backward pass
/// (HistoryFunctions::memberFlowsIntoBackward) or returns it.
bool memberLeavesClass(const FieldDecl *Field, HistoryFunctions &Functions, ASTContext &Ctx);

/// A struct of the user's made to carry tensors (`struct Result { Tensor loss;
/// Tensor norm; };`): an aggregate without bases, not a module, with a field
/// that can hold a tensor. Its definition, or null. Such a struct is no
/// mayCarryHistoryType: its fields are asked one by one.
const CXXRecordDecl *tensorAggregate(QualType T);

/// A type that can hold a tensor: at::Tensor, a class template specialisation
/// with such an argument (std::vector<Tensor>, std::tuple<Tensor,
/// std::tuple<Tensor, Tensor>>, c10::optional<...>), c10::IValue, a dependent
/// type. References and cv-qualifiers are ignored.
bool mayCarryHistoryType(QualType T);

/// True for the calls that end the history of their operands: `.detach()`,
/// `.detach_()`, `.item()`, backward/autograd::grad, operations without
/// gradient (isNoGradientCall), integral conversions (`.to(kLong)`).
bool cutsHistory(const Expr *E);

/// True when \p Value, stored or accumulated in \p Holder inside \p Loop,
/// only reads (through variables, data members and subscripts) a tensor
/// whose history \p Source was made before the outermost loop around \p Loop
/// that \p Holder outlives, and none of those loops changes the names read:
/// each iteration takes a graph that something else already holds (the
/// stored outputs of earlier layers gathered for torch::cat or summed by a
/// residual layer), not a new one.
bool readsHistoryHeldBeforeLoops(const Expr *Value, const Expr *Source, const ValueDecl *Holder,
                                 const Stmt *Loop, const Stmt *Body, const ParentMap &PM,
                                 const SourceManager &SM);

/// Fix-its that append `.detach()` to \p E (`(a + b).detach()` when the
/// expression needs parentheses). Empty when \p E is not a tensor, or its
/// range is in a macro or otherwise not editable.
llvm::SmallVector<FixItHint, 2> appendDetachFixIts(const Expr *E, const ASTContext &Ctx);

/// The history analysis of one function or lambda body.
class HistoryAnalysis {
public:
  /// Analyses the body of \p Facts (lambdas nested in it included), from the
  /// nodes of its one walk and its parent map (both must outlive the
  /// analysis). \p ParamsCarry assumes the parameters of the function carry
  /// history (used for summaries).
  HistoryAnalysis(const FunctionFacts &Facts, ASTContext &Ctx, HistoryFunctions &Functions,
                  bool ParamsCarry = false);
  HistoryAnalysis(const HistoryAnalysis &) = delete;
  HistoryAnalysis &operator=(const HistoryAnalysis &) = delete;

  /// The parent map of the body (for isGradDisabledAt, enclosingLoop, ...).
  const ParentMap &parentMap() const { return *PM; }

  /// The call that \p E's history comes from (a forward pass, a loss function,
  /// a user function returning history), or null when \p E carries none.
  const Expr *historySource(const Expr *E) const;
  bool carriesHistory(const Expr *E) const { return historySource(E) != nullptr; }
  /// The source of the history a variable or member holds at some point of the
  /// body, or null.
  const Expr *historySource(const ValueDecl *V) const;

  /// The expressions assigned to \p V in the body (initialiser, right-hand
  /// sides of `=`, `+=`, ..., arguments of in-place methods and insertions),
  /// in source order.
  llvm::ArrayRef<const Expr *> definitions(const ValueDecl *V) const;
  /// True when \p V is detached in the body (`v.detach_()`, `v = x.detach()`).
  bool isDetached(const ValueDecl *V) const { return Detached.contains(V); }

  /// True when \p E's value is computed from \p V (directly, or through local
  /// variables assigned from it), not through `.detach()`, `.item()` or an
  /// operation without gradient.
  bool dependsOn(const Expr *E, const ValueDecl *V) const;
  /// True when \p S mentions \p V directly (not through local variables), not
  /// under `.detach()`, `.item()` or an operation without gradient.
  bool mentions(const Stmt *S, const ValueDecl *V) const;

  /// The backward()/autograd::backward/autograd::grad calls of the body.
  llvm::ArrayRef<const CallExpr *> backwardCalls() const { return Backwards; }
  /// True when \p V's value reaches a backward pass of the body (its graph is
  /// wanted), through local variables.
  bool flowsIntoBackward(const ValueDecl *V) const;
  /// True when \p V's value reaches a return statement of the body (not of a
  /// nested lambda): the caller may train through it.
  bool flowsIntoReturn(const ValueDecl *V) const;
  /// True when a value returned by the body (not by a nested lambda) carries
  /// history.
  bool returnsHistory() const;
  /// The fields of the struct of tensors the body returns whose value carries
  /// history on some return: a braced initialiser (`return Result{loss,
  /// norm};`, `return {loss, norm};`) or a local of the struct's type
  /// returned, through its braced initialiser and its field assignments
  /// (`r.loss = loss;`).
  llvm::SmallVector<const FieldDecl *, 2> fieldsReturningHistory() const;
  /// Where the field \p Field of the struct of tensors \p Struct gets its
  /// history (`r.loss` of `Result r = update(x);` or `update(x).loss`): the
  /// call whose summary says the field carries history; with ParamsCarry, the
  /// field of a parameter itself. Null otherwise, and for other types.
  const Expr *fieldSource(const Expr *Struct, const FieldDecl *Field) const;

  /// True when autograd is off where \p S runs (isGradDisabledAt, memoised).
  bool isGuarded(const Stmt *S) const;

private:
  /// Reads the definitions, detaches, backward passes, returns and field
  /// assignments from the nodes of the body's walk.
  void collect(llvm::ArrayRef<FunctionFacts::Node> Nodes);
  void collectAssignment(const CXXOperatorCallExpr *Op);
  void collectMemberCall(const CXXMemberCallExpr *MC);
  void addDef(const ValueDecl *V, const Expr *E);
  const Expr *sourceOf(const Expr *E) const;
  const llvm::SmallPtrSetImpl<const ValueDecl *> &flowSet(const ValueDecl *V) const;
  bool mentionsAny(const Stmt *S, const llvm::SmallPtrSetImpl<const ValueDecl *> &Vars) const;

  const Stmt *Body;
  ASTContext &Ctx;
  HistoryFunctions &Functions;
  bool ParamsCarry;
  const ParentMap *PM;
  bool Solved = false;

  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const Expr *, 2>> Defs;
  llvm::SmallVector<const ValueDecl *, 16> DefOrder;
  llvm::SmallPtrSet<const ValueDecl *, 4> Detached;
  llvm::SmallVector<const CallExpr *, 4> Backwards;
  llvm::SmallVector<const Expr *, 4> Returns;
  /// `v.f = e` with `v` named: (v, f) and e, in body order.
  llvm::SmallVector<std::pair<std::pair<const ValueDecl *, const FieldDecl *>, const Expr *>, 4>
      FieldAssignments;
  llvm::DenseMap<const ValueDecl *, const Expr *> VarSources;
  mutable llvm::DenseMap<const Expr *, const Expr *> ExprSources;
  mutable std::unique_ptr<GradGuardCache> Guards;
  mutable llvm::DenseMap<const ValueDecl *, std::unique_ptr<llvm::SmallPtrSet<const ValueDecl *, 8>>>
      FlowSets;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_HISTORY_H
