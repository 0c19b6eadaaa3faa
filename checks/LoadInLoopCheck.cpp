//===--- LoadInLoopCheck.cpp - libtorch-tidy ------------------------------===//
//
// collect: the loads of each function (torch::jit::load, torch::load into a
// module or optimizer, InputArchive::load_from, the construction of an
// AOTInductor package loader or runner), from the calls and constructions its
// facts record (FunctionFacts::calls), and the call graph;
// decide: a load that runs unconditionally on every iteration of a loop with a
// path that is the same on every iteration (no variable of the loop, no call
// that may return another name), in a loop that neither retries (try) nor stops
// early (break/return); or such a load in a helper, with a path that does not
// depend on the helper's parameters, reached from a loop through unconditional
// calls (CallGraph::chainToLoop);
// diagnose: the load, a note at the loop. No fix-it: hoisting a load changes
// which object the loop uses.
//
//===----------------------------------------------------------------------===//

#include "LoadInLoopCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// A load of a model, optimizer or checkpoint; the path argument.
const Expr *loadPath(const Expr *E) {
  // AOTInductor: constructing the loader (or a runner) loads the package.
  if (const Expr *Path = aotiLoadPathArg(E))
    return Path;
  const auto *Call = dyn_cast<CallExpr>(E);
  const Expr *Path = modelLoadPathArg(Call);
  if (!Path)
    return nullptr;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (isNamed(FD, names::TorchLoad)) {
    // torch::load(value, path): a module or an optimizer (not a tensor).
    const CXXRecordDecl *RD = classOf(Call->getArg(0)->getType(), /*LookThroughPointers=*/true);
    if (!RD || !(isAnyModuleLike(RD) || isOptimizerClass(RD)))
      return nullptr;
  }
  return Path;
}

/// True when the conditions of \p Site matter to a chain of calls: a load,
/// or a call of a function declared outside system headers (the call graph's
/// sites; the calls of LibTorch and the standard library never lead to a
/// load).
bool conditionMatters(const CallSite &Site, bool Load, const SourceManager &SM) {
  if (Load)
    return true;
  const auto *Call = dyn_cast<CallExpr>(Site.E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && !SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation()));
}

bool declaredWithin(const ValueDecl *VD, const Stmt *Scope, const SourceManager &SM) {
  SourceLocation L = SM.getExpansionLoc(VD->getLocation());
  return SM.isPointWithin(L, SM.getExpansionLoc(compat::beginLoc(Scope)),
                          SM.getExpansionLoc(Scope->getEndLoc()));
}

/// True when the path \p E may name another file on another run of \p Scope:
/// it reads a variable declared or assigned in \p Scope (or, with
/// \p ParamsVary, a parameter), or calls something other than std::string's
/// and std::filesystem::path's members and operators.
bool mayVary(const Stmt *E, const Stmt *Scope, bool ParamsVary, const SourceManager &SM) {
  return anyStmt(E, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl())) {
        if (ParamsVary && isa<ParmVarDecl>(VD))
          return true;
        if (declaredWithin(VD, Scope, SM) || isAssignedWithin(VD, Scope))
          return true;
      }
    if (const auto *ME = dyn_cast<MemberExpr>(S))
      if (isAssignedWithin(ME->getMemberDecl(), Scope))
        return true;
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && !isa<CXXOperatorCallExpr>(Call)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      bool StdMember = false;
      if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD))
        StdMember = MD->getParent()->isInStdNamespace();
      if (!StdMember)
        return true;
    }
    return false;
  });
}

/// True when a break, return, goto or throw in \p Loop's body leaves it.
bool loopMayLeave(const Stmt *Loop) {
  llvm::SmallVector<std::pair<const Stmt *, bool>, 16> Work{{loopBody(Loop), false}};
  while (!Work.empty()) {
    auto [Cur, Nested] = Work.pop_back_val();
    if (!Cur || isa<LambdaExpr>(Cur))
      continue;
    if (isa<ReturnStmt, GotoStmt, CXXThrowExpr>(Cur) || (isa<BreakStmt>(Cur) && !Nested))
      return true;
    bool ChildNested = Nested || isLoopStmt(Cur) || isa<SwitchStmt>(Cur);
    for (const Stmt *Child : Cur->children())
      Work.push_back({Child, ChildNested});
  }
  return false;
}

/// \p E without the implicit nodes around it.

/// The arguments of a load (a call or a construction).
llvm::ArrayRef<const Expr *> loadArgs(const Expr *Load) {
  if (const auto *Call = dyn_cast<CallExpr>(Load))
    return {Call->getArgs(), Call->getNumArgs()};
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Load))
    return {Construct->getArgs(), Construct->getNumArgs()};
  return {};
}

/// The index of the element \p E names (`v[i]`, `v.at(i)`), or null.
const Expr *elementIndex(const Expr *E) {
  E = stripWrappers(E, wrappers::Temporaries | wrappers::Constructions);
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
    return Op->getArg(1);
  if (const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(E))
    return Sub->getIdx();
  if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "at" && MC->getNumArgs() == 1)
      return MC->getArg(0);
  }
  return nullptr;
}

/// True when each iteration of \p Loop keeps a model of its own from \p Load
/// (replicas, one per device or worker): a device argument that changes with
/// the loop, a load into an element picked by the loop (`torch::load(nets[i],
/// path)`), or a loaded module inserted into a container (`push_back`,
/// `emplace_back`, `insert`, `emplace`) or assigned to such an element.
bool keptPerIteration(const Expr *Load, const Expr *Path, const Stmt *Loop, const ParentMap &PM,
                      const SourceManager &SM) {
  const auto *LoadCall = dyn_cast<CallExpr>(Load);
  for (const Expr *Arg : loadArgs(Load)) {
    if (Arg == Path || isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (const Expr *Index = elementIndex(Arg)) {
      if (mayVary(Index, Loop, /*ParamsVary=*/false, SM))
        return true;
      continue;
    }
    // A device or map location; not the value loaded into (torch::load's
    // first argument may be a module made in the iteration).
    if (LoadCall && isNamed(LoadCall->getDirectCallee(), names::TorchLoad) &&
        Arg == LoadCall->getArg(0))
      continue;
    if (mayVary(Arg, Loop, /*ParamsVary=*/false, SM))
      return true;
  }
  const Stmt *Cur = Load;
  const Stmt *P = PM.getParent(Cur);
  while (P && isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                  ExprWithCleanups, CXXConstructExpr, CXXFunctionalCastExpr>(P)) {
    Cur = P;
    P = PM.getParent(P);
  }
  if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(P)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() &&
        llvm::is_contained({"push_back", "emplace_back", "insert", "emplace", "push_front",
                            "emplace_front"},
                           MD->getName()))
      return true;
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P);
      Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && Op->getArg(1) == Cur)
    if (const Expr *Index = elementIndex(Op->getArg(0)))
      return mayVary(Index, Loop, /*ParamsVary=*/false, SM);
  return false;
}


/// True when \p Loop may stop after one iteration on purpose (a retry loop, a
/// search): a try statement around \p S inside the loop, or a break, return or
/// goto in the loop body that leaves the loop (memoised per loop in
/// \p Leaves: one walk of each loop body, not one per call).
bool mayRunOnce(const Stmt *S, const Stmt *Loop, const ParentMap &PM,
                llvm::DenseMap<const Stmt *, bool> &Leaves) {
  for (const Stmt *P = PM.getParent(S); P && P != Loop; P = PM.getParent(P))
    if (isa<CXXTryStmt>(P))
      return true;
  auto [It, New] = Leaves.try_emplace(Loop, false);
  if (New)
    It->second = loopMayLeave(Loop);
  return It->second;
}
} // namespace

LoadInLoopCheck::LoadInLoopCheck(StringRef Name, ClangTidyContext *Context,
                                 std::shared_ptr<AnalysisCore> Core)
    : CoreCheck(Name, Context, std::move(Core)),
      CallDepth(std::min(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth), MaxCallDepth)) {}

void LoadInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, CallDepthOption, CallDepth);
}

llvm::SmallVector<const Expr *, 4> LoadInLoopCheck::collect(const FunctionDecl *FD) {
  const FunctionFacts &Facts = core().facts(FD, *Unit);
  const Stmt *Body = FD->getBody();
  const SourceManager &SM = Unit->getSourceManager();
  // The loads (calls, or an AOTInductor loader or runner constructed: a
  // variable, a temporary, `new`) and the calls whose conditions matter,
  // lambdas' included.
  llvm::SmallVector<const Expr *, 4> Loads;
  llvm::SmallVector<const Expr *, 16> Calls;
  for (const CallSite &Site : Facts.calls()) {
    bool Load = loadPath(Site.E) != nullptr;
    if (Load)
      Loads.push_back(Site.E);
    if (conditionMatters(Site, Load, SM))
      Calls.push_back(Site.E);
  }
  if (Calls.empty())
    return {};
  const ParentMap &PM = Facts.parents();
  llvm::DenseMap<const Stmt *, bool> Leaves;

  // Calls that run only sometimes in their loop (or their function): a chain
  // of calls through them does not load on every iteration.
  for (const Expr *Call : Calls) {
    const Stmt *CodeBody = enclosingCodeBody(Call, PM, Body);
    const Stmt *Loop = enclosingLoop(Call, PM, CodeBody);
    const Stmt *Scope = Loop ? Loop : CodeBody;
    if (isConditionalWithin(Call, Scope, PM) || (Loop && mayRunOnce(Call, Loop, PM, Leaves)))
      ConditionalCalls.insert(Call);
  }
  return Loads;
}

void LoadInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  Unit = &Ctx;
  // A body that calls nothing named like a load (torch::jit::load,
  // torch::load, InputArchive::load_from, an AOTInductor loader or runner
  // class, std::make_unique) has no load of its own; the
  // conditions of its calls matter only to a chain from a helper that loads,
  // and are collected at the end of the translation unit when one does.
  if (!core().facts(FD, Ctx).callsNamed(mayNameModelLoad)) {
    Deferred.push_back(FD);
    return;
  }
  llvm::SmallVector<const Expr *, 4> Loads = collect(FD);
  if (Loads.empty())
    return;
  const ParentMap &PM = core().facts(FD, Ctx).parents();

  for (const Expr *Load : Loads) {
    if (ConditionalCalls.contains(Load))
      continue;
    const Stmt *CodeBody = enclosingCodeBody(Load, PM, Body);
    const Expr *Path = loadPath(Load);
    if (const Stmt *Loop = enclosingLoop(Load, PM, CodeBody)) {
      if (mayVary(Path, Loop, /*ParamsVary=*/false, SM) || keptPerIteration(Load, Path, Loop, PM, SM))
        continue;
      diag(compat::beginLoc(Load), "the same file is loaded on every iteration of a loop: each "
                                   "load reads and allocates the whole model again; load it "
                                   "once before the loop")
          << Load->getSourceRange();
      diag(compat::beginLoc(Loop), "the loop is here", DiagnosticIDs::Note);
      continue;
    }
    // Not in a loop here: a helper (its own body, not a lambda's) that a loop
    // may call, with a path of its own.
    if (CodeBody == Body && !mayVary(Path, Body, /*ParamsVary=*/true, SM))
      HelperLoads.push_back({Load, FD});
  }
}

void LoadInLoopCheck::reportAtEndOfUnit() {
  if (!HelperLoads.empty())
    for (const FunctionDecl *FD : Deferred)
      collect(FD);
  for (const HelperLoad &H : HelperLoads) {
    // The core's call graph (built on first use).
    auto Chain = core().calls(*Unit).chainToLoop(H.Helper, CallDepth, [&](const CallGraph::Site &S) {
      return !ConditionalCalls.contains(S.Call);
    });
    if (Chain.empty())
      continue;
    const CallGraph::Site *Outer = Chain.back();
    diag(compat::beginLoc(H.Load), "the same file is loaded on every iteration of a loop that "
                                   "calls '%0': each load reads and allocates the whole model "
                                   "again; load it once before the loop")
        << H.Helper->getNameAsString() << H.Load->getSourceRange();
    for (const CallGraph::Site *S : Chain)
      diag(compat::beginLoc(S->Call), "'%0' is called here", DiagnosticIDs::Note)
          << S->Call->getDirectCallee()->getNameAsString();
    if (Outer->Loop)
      diag(compat::beginLoc(Outer->Loop), "the loop is here", DiagnosticIDs::Note);
  }
  HelperLoads.clear();
  ConditionalCalls.clear();
  Deferred.clear();
  Unit = nullptr;
  // No question to the linked summaries: nothing to write (CoreCheck.h).
}

} // namespace clang::tidy::torch_check
