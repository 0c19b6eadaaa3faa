//===--- AnalysisCore.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// The analysis core: one context per translation unit, shared by every
// torch- check of a clang-tidy run (the way clazy's ClazyContext is shared).
//
// Design:
//   - One AnalysisCore per clang-tidy run (ClangTidyContext; clangd runs
//     several at once): TorchTidyModule's factories hand it to the run's
//     checks. clang-tidy creates the checks once per translation unit and
//     runs their matchers in one MatchFinder, so the core is handed the
//     ASTContext on each query and forgets everything when it changes (or
//     when a new translation unit starts: CoreCheck::onStartOfTranslationUnit).
//   - The checks on the core are called once per user function by one pass
//     over the functions (FunctionDispatch.h): for each function, each
//     check in turn, so a body is walked while its AST is in the cache.
//   - Per function, one walk of the body gathers its facts (FunctionFacts):
//     forward passes, losses, backward / autograd::grad, optimizer steps,
//     zero_grad, grad-mode guards and set_enabled, eval() / train(), in-place
//     tensor writes (t.add_(x), t += x, indexed assignment `k[0] = f(x)`),
//     views, container inserts, device syncs, host clock readings,
//     TorchScript loads, and calls of
//     the user's functions (keyed by their template pattern), the names it
//     calls or constructs, the overloaded operators it spells, whether it
//     spells a lambda or constructs an optimizer. The walk includes the
//     lambdas spelled in the body (marked InLambda). A check whose findings
//     all need something the facts lack skips its own walk of the body.
//   - The body's parent map is built once (FunctionFacts::parents) and
//     shared by the training-loop and history analyses and the checks.
//   - Execution order inside the body and the lambda bodies spelled in it
//     comes from their CFGs (ExecutionOrder.h, the one CFG builder), built on
//     first use and kept with the facts; so do the body's definitions and
//     modifications per variable (DefUse.h).
//   - The training loops of a body (TrainingLoop.h: events, loops, their
//     parent map) are analysed once per function and call depth and shared
//     by the checks that ask (trainingLoops).
//   - The history analysis of a body (History.h: which values carry autograd
//     history) is built once per function and shared by the history checks
//     (historyOf). The core reports no finding: a check whose findings wait
//     for the end of the unit holds them itself and asks the one call graph
//     (calls(); CoreCheck::deferUntilCallersKnown).
//   - Function summaries (Summaries.h) are computed once per translation unit,
//     bottom-up over the call graph's strongly connected components, from the
//     facts of every user function.
//   - Across translation units: a global option (TorchSummaries) names the
//     linked summaries of a project (SummaryModel.h, written by
//     `libtorch-tidy summarize`). It is read once per process and version;
//     a function declared but not defined in the translation unit gets its
//     summary from it by USR (externalSummary), one level of calls deeper
//     like a callee defined here, and the callers' side says whether a
//     function's result reaches a backward pass in another file. Another
//     option (TorchSummariesOutput) names the file where the translation
//     unit's own summaries are written, atomically, at its end, with the
//     questions the checks asked of linked summaries (recorded with or
//     without a linked file: the driver keeps the findings of a unit whose
//     questions the link answers as no file does, and analyses the others
//     again with it). Without them nothing changes.
//   - The names of LibTorch's classes and members are spelled in TorchNames.h
//     only; the core asks its predicates.
//   - One helper per question: which variable an expression names
//     (namedVariable), which variable's storage it writes (storageVariable),
//     which argument a parameter receives (argumentFor, parameterIndexFor).
//
// Cost: nothing is computed for a function until a check asks about it; the
// walk visits the user's function bodies only, never LibTorch's headers.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_ANALYSISCORE_H
#define LIBTORCH_TIDY_CHECKS_UTILS_ANALYSISCORE_H

#include "CallGraph.h"
#include "DefUse.h"
#include "ExecutionOrder.h"
#include "GradGuards.h"
#include "History.h"
#include "SummaryModel.h"
#include "TrainingLoop.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <bitset>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace clang::tidy::torch_check {

class HistoryEscapes;

class SummaryTable;
class FunctionDispatch;

/// One thing a function body does that a check may ask about.
struct Fact {
  enum Kind {
    Forward,         ///< a module's forward pass (isForwardCall)
    Loss,            ///< a LibTorch loss function (isLossFunctionCall)
    Backward,        ///< tensor.backward(), torch::autograd::backward
    Grad,            ///< torch::autograd::grad
    Step,            ///< optimizer.step()
    ZeroGrad,        ///< optimizer.zero_grad(), module->zero_grad()
    GradOff,         ///< NoGradGuard / InferenceMode / AutoGradMode(false) / set_enabled(false)
    GradOn,          ///< AutoGradMode(true) / set_enabled(true)
    GradUnknown,     ///< a guard or set_enabled whose argument is not a constant
    Eval,            ///< module.eval(), module.train(false)
    Train,           ///< module.train(), train(true), train(x)
    InPlace,         ///< t.add_(x), t.copy_(x), t += x: writes Object's storage
    IndexedAssign,   ///< k[0] = f(x), k.index({...}) = f(x): writes Object's storage
    View,            ///< t.view(...), t.select(...), t[0]: a view of Object
    ContainerInsert, ///< v.push_back(x), m.insert(...), m.emplace(...)
    Sync,            ///< t.item(), t.cpu(), t.to(kCPU), `os << t`, torch::cuda::synchronize(),
                     ///< a CUDA stream's or event's synchronize(), cudaDeviceSynchronize()
    EmptyCache,      ///< CUDACachingAllocator::emptyCache()
    Load,            ///< torch::jit::load(...)
    UserCall,        ///< a call of a function defined in the translation unit
    ClockRead,       ///< std::chrono::steady_clock::now() (any std clock), clock()
  };
  Kind K;
  /// The call, operator call or variable declaration.
  const Stmt *S;
  /// The object acted on (the module, optimizer, tensor or container), with
  /// `->`, `*`, parentheses and casts stripped; null when none.
  const Expr *Object = nullptr;
  /// The variable or member Object names (storageVariable); null when none.
  const ValueDecl *ObjectDecl = nullptr;
  /// The value written or inserted (IndexedAssign, InPlace, ContainerInsert).
  const Expr *Value = nullptr;
  /// UserCall: the callee's key (SummaryTable::key: the template pattern's
  /// canonical declaration); its definition is Definition.
  const FunctionDecl *Callee = nullptr;
  const FunctionDecl *Definition = nullptr;
  /// Spelled inside a lambda of the body (runs where the lambda is called).
  bool InLambda = false;
};

/// The facts of one function body, in the order the walk meets them (source
/// order; use order() for execution order).
class FunctionFacts {
public:
  FunctionFacts(const FunctionDecl *FD, ASTContext &Ctx);

  const FunctionDecl *function() const { return FD; }
  const Stmt *body() const { return Body; }
  llvm::ArrayRef<Fact> all() const { return Facts; }
  /// The facts of kind \p K.
  llvm::SmallVector<const Fact *, 4> of(Fact::Kind K) const;
  bool has(Fact::Kind K) const;
  /// The fact recorded for \p S, or null.
  const Fact *factFor(const Stmt *S, Fact::Kind K) const;

  /// True when the body (its lambdas included) calls a function or method,
  /// or constructs an object of a class, whose own name \p Pred accepts: the
  /// name of its declaration (`from_blob`, `register_hook`, `set_enabled`),
  /// resolved or, in a template, not yet resolved. A check whose every
  /// finding needs such a call asks this first and skips its own walk of the
  /// body otherwise.
  bool callsNamed(llvm::function_ref<bool(llvm::StringRef)> Pred) const;
  bool callsNamed(llvm::StringRef Name) const {
    return callsNamed([Name](llvm::StringRef N) { return N == Name; });
  }
  /// True when the body calls a function that an analysis following calls
  /// would enter: one defined in the translation unit (followableCallee) or,
  /// through its linked summary, in another (externalCallee).
  bool followsCalls() const { return FollowsCalls; }
  /// True when the body (its lambdas included) spells an overloaded operator
  /// call of kind \p Op (`t += x`, `c[k] = v`, `m(x)`), resolved or, in a
  /// template, not yet resolved.
  bool usesOperator(OverloadedOperatorKind Op) const { return Operators.test(Op); }
  /// True when the body spells a lambda.
  bool spellsLambda() const { return Shape.Lambda; }
  /// True when the body constructs an optimizer (a class derived from
  /// torch::optim::Optimizer, by its constructor with arguments, `new`, or
  /// std::make_unique / std::make_shared).
  bool constructsOptimizer() const { return Shape.OptimizerConstruction; }

  /// What the walk notes about the body as a whole.
  struct BodyShape {
    bool Lambda = false;
    bool OptimizerConstruction = false;
  };

  /// The calls of the user's functions (CallGraph.h's isUserFunction, the
  /// callee's canonical declaration), virtual ones included, in the order
  /// the walk meets them: what CallGraph::collect records.
  llvm::ArrayRef<std::pair<const CallExpr *, const FunctionDecl *>> userFunctionCalls() const {
    return UserFunctionCalls;
  }

  /// The parent map of the body (built on first use).
  const ParentMap &parents() const;
  /// The execution order of the body and of its lambda bodies (their CFGs,
  /// each built on first use).
  const ExecutionOrder &order() const;
  /// Where the body's variables get their values (DefUse.h, built on first
  /// use).
  const DefUse &defUse() const;
  /// True when autograd is (or may be) off where \p S runs
  /// (isGradDisabledAt; memoised).
  bool isGuarded(const Stmt *S) const;

private:
  const FunctionDecl *FD;
  const Stmt *Body;
  ASTContext &Ctx;
  std::vector<Fact> Facts;
  llvm::SmallPtrSet<const IdentifierInfo *, 16> CalleeNames;
  llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 4> UserFunctionCalls;
  bool FollowsCalls = false;
  std::bitset<NUM_OVERLOADED_OPERATORS> Operators;
  BodyShape Shape;
  mutable std::unique_ptr<ParentMap> PM;
  mutable std::unique_ptr<ExecutionOrder> Order;
  mutable std::unique_ptr<DefUse> Defs;
  mutable std::unique_ptr<GradGuardCache> Guards;
};

/// \p E without parentheses, implicit casts, temporaries, copies and moves,
/// functional casts, and `*`/`->` of pointers and smart pointers.
const Expr *stripCopies(const Expr *E);

/// The variable, parameter or data member (of `this`) \p E names, looking
/// through parentheses, implicit casts, copies and `*`/`->` of pointers and
/// smart pointers; null when \p E is not such a name.
const ValueDecl *namedVariable(const Expr *E);

/// The variable whose storage \p E denotes: LoopVariables.h's storageOf
/// (subscripts, members of a named object, std::get, `*p`), looking first
/// through tensor views (`k.select(0, i)`, `k.index({...})`, `k.narrow(...)`).
/// Null when it is not a name.
const ValueDecl *storageVariable(const Expr *E);

/// The argument \p Call passes to parameter \p ParamIndex of its callee
/// (member operator calls shift their arguments by one: the object is the
/// first); null for a default argument or an index out of range.
const Expr *argumentFor(const CallExpr *Call, unsigned ParamIndex);

/// The index of the callee's parameter that receives \p Arg (an argument of
/// \p Call, compared after stripping parentheses and implicit casts); -1 when
/// \p Arg is not an argument, is the object of a member operator, or goes to
/// a variadic part.
int parameterIndexFor(const CallExpr *Call, const Expr *Arg);

/// The translation unit's shared analysis context.
class AnalysisCore {
public:
  AnalysisCore();
  ~AnalysisCore();

  /// A new translation unit starts: forget everything at the next query.
  void beginTranslationUnit() {
    Stale = true;
    ReadsSummaries.clear();
    ReadsCallers.clear();
    ReadsKeeps.clear();
    Written.reset();
  }

  /// Cross-translation-unit configuration (the options TorchSummaries and
  /// TorchSummariesOutput): loads \p Input when it differs from the file
  /// loaded before. Returns the one-line error of a file that cannot be
  /// read or parsed, once per file (later calls return "": the core then
  /// works as without a file).
  std::string configure(llvm::StringRef Input, llvm::StringRef Output);
  /// The linked summaries, or null when none is loaded.
  const SummaryDocument *external() const { return External.get(); }
  /// The linked summary of \p FD when it has no definition in the
  /// translation unit (by USR of its template pattern); null otherwise.
  /// The question is recorded (ReadsSummaries).
  const FunctionSummary *externalSummary(const FunctionDecl *FD) const;
  /// True when the linked summaries say a caller in another file feeds the
  /// result of \p FD into a backward pass. The question is recorded
  /// (ReadsCallers).
  bool resultReachesBackwardElsewhere(const FunctionDecl *FD) const;
  /// True when the linked summaries say \p FD is called in other files and
  /// every call there holds a grad-mode guard on every path
  /// (SummaryDocument::calledOnlyUnderGuards). The question is recorded
  /// (ReadsCallers).
  bool calledOnlyUnderGuardsElsewhere(const FunctionDecl *FD) const;
  /// True when \p FD has no definition in the translation unit and its
  /// linked summary says a call keeps no value with history
  /// (FunctionSummary::KeepsNoHistory). The question is recorded (ReadsKeeps).
  bool keepsNoHistoryElsewhere(const FunctionDecl *FD) const;
  /// True when the translation unit's summaries are to be written.
  bool writesSummaries() const { return !OutputPath.empty(); }
  /// A check's part of the translation unit ends: writes the unit's
  /// summaries when asked to, with what the checks asked of the linked summaries so far
  /// (SummaryDocument::ReadsSummaries, ReadsCallers). Each check calls it
  /// after its last question, and each call rewrites the file (atomically),
  /// so the last one holds every question whatever the order of the checks.
  /// The summaries are built here when no check asked for them: whichever
  /// torch- checks are enabled, a unit asked to write its summaries writes
  /// them whole. Returns the write error, or "".
  std::string endTranslationUnit();

  /// The facts of \p FD's definition (built on first use).
  const FunctionFacts &facts(const FunctionDecl *FD, ASTContext &Ctx);
  /// The facts of \p FD's definition when some check already asked for them;
  /// null otherwise (for a check that needs too little to pay for the walk).
  const FunctionFacts *factsIfBuilt(const FunctionDecl *FD, ASTContext &Ctx);

  /// The training loops of \p FD's body (TrainingLoopAnalysis, following
  /// calls \p CallDepth levels deep), built on first use for each depth and
  /// shared by every check that asks with the same depth.
  /// With \p Linked, helpers defined in other translation units contribute
  /// the events of their linked summaries (externalSummary; the question is
  /// recorded whether a linked file is loaded or not); the analysis is the
  /// shared one when the body calls no such helper (or when no linked file
  /// is loaded and no summaries are written).
  const TrainingLoopAnalysis &
  trainingLoops(const FunctionDecl *FD, ASTContext &Ctx, unsigned CallDepth,
                bool Linked = false);

  /// The function summaries of the translation unit (built on first use,
  /// once every function of the translation unit is parsed).
  const SummaryTable &summaries(ASTContext &Ctx);

  /// The history summaries of the translation unit (History.h), shared.
  HistoryFunctions &history(ASTContext &Ctx);
  /// Which values with history outlive a function (Escapes.h), over the
  /// history summaries and, for functions of other files, the linked
  /// summaries (externalSummary: the question is recorded).
  HistoryEscapes &escapes(ASTContext &Ctx);

  // ---- history (torch-carried-history, torch-accumulated-history,
  // torch-history-in-container) ----------------------------------------------

  /// The history analysis of \p FD's body (HistoryFunctions::analysis): one
  /// history walk per function (and per \p ParamsCarry), shared.
  const HistoryAnalysis &historyOf(const FunctionDecl *FD, ASTContext &Ctx,
                                   bool ParamsCarry = false);
  /// The prefilter of torch-carried-history, from the facts alone: true when
  /// \p FD's body (lambdas included) runs a forward pass and a backward pass
  /// or autograd::grad. Otherwise no state can carry a graph from one
  /// iteration into a backward pass of the same loop.
  bool runsForwardAndBackward(const FunctionDecl *FD, ASTContext &Ctx);
  /// The calls between the user's functions of the translation unit, with
  /// their guards and loops (CallGraph.h), collected once on first use. The
  /// depth limit is a parameter of each query (a check's CallDepth), so one
  /// graph serves every check: eval-without-no-grad, missing-eval and
  /// load-in-loop.
  const CallGraph &calls(ASTContext &Ctx);

  /// Every user function definition of the translation unit (Matchers.h's
  /// forEachUserFunction), in declaration order.
  llvm::ArrayRef<const FunctionDecl *> userFunctions(ASTContext &Ctx);

  /// The pass that calls every check on the core with each user function
  /// (FunctionDispatch.h).
  FunctionDispatch &dispatch();

private:
  void sync(ASTContext &Ctx);
  /// The USR of \p FD for a question about its callers in other files,
  /// recorded (ReadsCallers); empty when it has none.
  std::string askCallers(const FunctionDecl *FD) const;
  /// FunctionSummary::KeepsNoHistory of the unit's functions, into \p Doc.
  void recordKeepsNoHistory(ASTContext &Ctx, SummaryDocument &Doc);

  ASTContext *Current = nullptr;
  bool Stale = true;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionFacts>> Facts;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>,
                 std::unique_ptr<TrainingLoopAnalysis>>
      Loops, LinkedLoops;
  std::unique_ptr<SummaryTable> Summaries;
  std::unique_ptr<HistoryFunctions> History;
  std::unique_ptr<HistoryEscapes> Escapes;
  std::unique_ptr<CallGraph> Calls;
  std::vector<const FunctionDecl *> Functions;
  bool FunctionsListed = false;
  std::unique_ptr<FunctionDispatch> Dispatch;
  // Across translation units (configure()).
  std::string InputPath, OutputPath;
  std::unique_ptr<SummaryDocument> External;
  // What the checks asked of the linked summaries in this translation unit
  // (recorded with or without a linked document: the driver decides from
  // them whether the unit's findings depend on other files).
  mutable std::set<std::string> ReadsSummaries, ReadsCallers, ReadsKeeps;
  /// What the last endTranslationUnit wrote (whether the summaries were
  /// built, how many questions of each kind): the questions only grow within
  /// a translation unit, so the same figures mean the same document.
  std::optional<std::tuple<bool, size_t, size_t, size_t>> Written;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_ANALYSISCORE_H
