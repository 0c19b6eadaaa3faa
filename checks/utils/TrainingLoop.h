//===--- TrainingLoop.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// The training loops of a function body and what they do per iteration.
//
// A training loop is the innermost loop whose body (directly, in nested blocks
// or loops, or in a lambda spelled there such as an LBFGS closure) calls
// backward() and an optimizer's step(). A loop around it (the epoch loop) runs
// once per epoch and is not itself a training loop.
//
// The analysis is built once per function body; the checks query it:
//   - the training loops, their epoch loop and the optimizers they step;
//   - the backward / step / zero_grad / manual gradient zeroing calls of each
//     loop in source order (TrainingEvent);
//   - whether a statement runs on every iteration or only under a condition;
//   - the events on the same straight-line path as a given event;
//   - the conditional-step structure of gradient accumulation:
//       if ((i + 1) % K == 0) { optimizer.step(); optimizer.zero_grad(); }
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_TRAININGLOOP_H
#define LIBTORCH_TIDY_CHECKS_UTILS_TRAININGLOOP_H

#include "ASTHelpers.h"
#include "SummaryModel.h"
#include "TorchMembers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace clang::tidy::torch_check {

class FunctionFacts;

/// One call the training-loop analysis tracks.
struct TrainingEvent {
  enum Kind {
    Backward,       ///< tensor.backward(), torch::autograd::backward(...): accumulates into .grad
    Grad,           ///< torch::autograd::grad(...): returns gradients, does not accumulate
    Step,           ///< optimizer.step(...) on a torch::optim::Optimizer
    ZeroGrad,       ///< optimizer.zero_grad()
    ModuleZeroGrad, ///< module->zero_grad()
    ManualZero,     ///< p.grad().zero_(), .fill_(), .copy_(), p.mutable_grad().reset(), p.mutable_grad() = ...,
                    ///< or a user function whose name says it zeroes gradients
    OpaqueOptimizerUse, ///< a user function that receives an optimizer (may zero or step it)
  };
  Kind K;
  const CallExpr *Call;
  /// The object the call is made on (optimizer, module), with `->`, `*` and
  /// smart-pointer operators stripped; null when none.
  const Expr *Object = nullptr;
  /// The variable or field that object names; null when it is not a name.
  const ValueDecl *ObjectDecl = nullptr;
  /// Spelled inside a lambda within the loop (an LBFGS closure, a callback).
  bool InLambda = false;
  /// An event of a helper called in the loop (TrainingLoopAnalysis with a call
  /// depth): Call is the helper's call in this body, Inner the backward / step
  /// / zero_grad call itself, Via the function whose body spells Inner.
  const CallExpr *Inner = nullptr;
  const FunctionDecl *Via = nullptr;
  /// An event of a helper defined in another translation unit, read from its
  /// linked summary (FunctionSummary::LoopEvents): Call is the helper's call
  /// in this body, Linked the helper; Inner and Via are null.
  const FunctionDecl *Linked = nullptr;
  /// Linked steps only: the step's closure is not spelled at its call (it
  /// may zero the gradients).
  bool OpaqueClosure = false;

  bool zeroes() const { return K == ZeroGrad || K == ModuleZeroGrad || K == ManualZero; }
};

/// A training loop of a function body.
struct TrainingLoop {
  const Stmt *Loop = nullptr;      ///< for, range-for, while or do
  const Stmt *Body = nullptr;      ///< its body
  const Stmt *EpochLoop = nullptr; ///< the innermost loop around it, if any
  /// The events spelled inside the loop (condition, increment and body), in
  /// source order.
  llvm::SmallVector<TrainingEvent, 8> Events;
  /// The distinct optimizers stepped in the loop (first step call of each); an
  /// optimizer that is not a plain name gets one entry per step call.
  llvm::SmallVector<const TrainingEvent *, 2> OptimizerSteps;

  bool hasEvent(TrainingEvent::Kind K) const;
  bool zeroesGradients() const;
};

/// How gradient accumulation gates its step.
struct ConditionalStep {
  const IfStmt *If = nullptr;
  /// K: the right operand of `%` (`(i + 1) % K == 0`) or the bound a counter
  /// is compared with (`++count == K`, `count >= K` with `count = 0` in the branch).
  const Expr *Period = nullptr;
};

/// What a call of each helper of the translation unit contributes to a
/// caller's training loop, per call depth: the one model of a helper's loop
/// events in a translation unit. The expansions of TrainingLoopAnalysis and
/// the summaries' LoopEvents (helperLoopEvents) read it and fill it, so a
/// helper met at many call sites, by many callers and by its callers'
/// summaries is walked once per depth.
///
/// An entry is kept only when its walk met no helper already on the walk's
/// path and did not stop at the depth limit: then no cycle of calls runs
/// through the helper within reach, and every caller's walk of it is this
/// one. A helper in a recursion is walked again at each call, since where
/// the caller's path cuts the cycle decides what it contributes.
///
/// Owned by the analysis core, one per translation unit.
class HelperEventTable {
public:
  struct Events;
  /// The walks that see a helper's events differently.
  enum class Walk : unsigned {
    Unit,    ///< this translation unit's helpers only
    Linked,  ///< and the linked summaries of other units' helpers
    Summary, ///< writing the unit's summaries (LoopEvents)
  };
  /// A helper (canonical declaration), the depth of the walk that asks, and
  /// that walk.
  using Key = std::tuple<const FunctionDecl *, unsigned, Walk>;

  HelperEventTable();
  ~HelperEventTable();
  const Events *lookup(Key K) const;
  void enter(Key K, const Events &E);

private:
  llvm::DenseMap<Key, std::unique_ptr<Events>> Known;
};

/// The training loops of one function body.
class TrainingLoopAnalysis {
public:
  /// \p CallDepth > 0 follows calls of the translation unit's functions (up
  /// to that many levels, CallGraph.h's followableCallee; what each helper
  /// contributes is read from and entered in \p Table): a helper whose
  /// backward / step / zero_grad calls all run on its straight-line path
  /// contributes them, in order, at its call site (TrainingEvent::Inner); a
  /// helper that runs them under a condition, in a loop or in a lambda is an
  /// OpaqueOptimizerUse. 0 (the default) looks at this body alone.
  ///
  /// \p Linked, when given, is asked for the linked summary of each helper
  /// called here but defined in another translation unit (Summaries.h's
  /// externalCallee); its LoopEvents for this depth are the helper's events
  /// at its call (TrainingEvent::Linked), as for a helper defined here. A
  /// helper without a linked summary or without events is what it is
  /// without the option (an OpaqueOptimizerUse when it receives an
  /// optimizer).
  using LinkedLookup = std::function<const FunctionSummary *(const FunctionDecl *)>;
  /// The facts of a body (FunctionFacts): the analysis reads the calls of
  /// \p Own's body from them, and those of each helper it follows from
  /// \p Facts; its parent map is \p Own's.
  using FactsRef = llvm::function_ref<const FunctionFacts &(const FunctionDecl *)>;
  TrainingLoopAnalysis(const FunctionFacts &Own, FactsRef Facts, HelperEventTable &Table,
                       ASTContext &Ctx, unsigned CallDepth = 0, LinkedLookup Linked = nullptr);
  /// The analysis of a body known to run no optimizer step (it calls
  /// nothing named `step`), without walking it: no training loop, no
  /// parent map, no event. \p FollowsNoCall as followsNoCall().
  static std::unique_ptr<TrainingLoopAnalysis>
  withoutSteps(const Stmt *FunctionBody, ASTContext &Ctx, bool FollowsNoCall);
  ~TrainingLoopAnalysis();

  llvm::ArrayRef<TrainingLoop> loops() const { return Loops; }
  bool empty() const { return Loops.empty(); }
  /// Every event of the function body, in source order.
  llvm::ArrayRef<TrainingEvent> events() const { return AllEvents; }
  const ParentMap &parents() const { return *PM; }
  /// False when the body has no backward pass or no step: no parent map was
  /// built and parents() must not be called.
  bool hasParents() const { return PM != nullptr; }
  ASTContext &context() const { return Ctx; }
  const Stmt *functionBody() const { return Body; }
  /// True when the walk met a call (within the call depth) of a helper
  /// defined in another translation unit: an analysis with a LinkedLookup
  /// may differ from this one.
  bool callsOtherUnits() const { return CallsOtherUnits; }
  /// True for an analysis of depth 0 whose body calls no helper that a
  /// deeper analysis would follow (defined in this translation unit or, with
  /// linked summaries, in another): the analysis of any depth is this one.
  bool followsNoCall() const { return FollowsNoCall; }

  /// The training loop that spells \p S (its body, condition or increment,
  /// including nested loops and lambdas), or null.
  const TrainingLoop *trainingLoopOf(const Stmt *S) const;

  /// True when \p S is inside \p Loop's body and runs on every iteration: no
  /// if/else branch, switch, `?:`, `&&`/`||` operand, catch handler or lambda
  /// lies between them. Nested loops count as running every iteration when
  /// \p ThroughNestedLoops, else as conditional. A question of the loop's
  /// shape, not of its paths (ExecutionOrder::runsEveryIteration): a
  /// `continue` that skips a bad batch before \p S leaves it on every
  /// iteration here, since the loop's habit is what the checks judge.
  bool runsEveryIteration(const Stmt *S, const TrainingLoop &Loop,
                          bool ThroughNestedLoops) const;

  /// The events of \p Loop that run before (\p Forward false) or after
  /// (\p Forward true) \p E on the same straight-line path, nearest first,
  /// stopping at the first statement whose events are conditional (an `if`
  /// holding an event, a nested loop, a lambda). Events in an enclosing block
  /// are reached through the branch of an `if` that holds \p E.
  llvm::SmallVector<const TrainingEvent *, 4>
  straightLineNeighbours(const TrainingEvent &E, const TrainingLoop &Loop, bool Forward) const;

  /// Gradient accumulation: every step of \p Loop runs only under an `if`
  /// whose condition is a counter test, while some backward runs on every
  /// iteration. Returns the gating `if` of the first step and its K.
  std::optional<ConditionalStep> conditionalStep(const TrainingLoop &Loop) const;

  /// The innermost `if` whose then- or else-branch holds \p S, below \p Loop's
  /// body; null when none.
  const IfStmt *enclosingIf(const Stmt *S, const TrainingLoop &Loop) const;

private:
  struct NoWalk {};
  TrainingLoopAnalysis(const Stmt *FunctionBody, ASTContext &Ctx, NoWalk)
      : Body(FunctionBody), Ctx(Ctx) {}

  const Stmt *Body;
  ASTContext &Ctx;
  const ParentMap *PM = nullptr;
  llvm::SmallVector<TrainingEvent, 0> AllEvents; // (no inline storage: most bodies have none)
  llvm::SmallVector<TrainingLoop, 0> Loops; // (no inline storage: most bodies have none)
  bool CallsOtherUnits = false;
  bool FollowsNoCall = false;
};

/// FunctionSummary::LoopEvents of the definition \p Def: the events a call
/// of it contributes to a caller's training loop, for each depth the caller
/// follows, computed from this translation unit alone (no linked summary),
/// through \p Table: the entries of the helpers it calls are those their own
/// summaries read.
std::vector<std::string> helperLoopEvents(const FunctionDecl *Def, ASTContext &Ctx,
                                          TrainingLoopAnalysis::FactsRef Facts,
                                          HelperEventTable &Table);

/// A step(closure) whose closure is not spelled at the call (it may zero the
/// gradients); for a linked step, what its summary says.
bool stepHasOpaqueClosure(const TrainingEvent &Step);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TRAININGLOOP_H
