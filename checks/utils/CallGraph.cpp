//===--- CallGraph.cpp - libtorch-tidy ------------------------------------===//

#include "CallGraph.h"
#include "ASTHelpers.h"
#include "FunctionFacts.h"
#include "GradGuards.h"
#include "TorchNames.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch_check {

/// A call spelled in a lambda that is handed to another function runs where
/// that function calls it: under its guard when the function (defined here)
/// holds one; unknown (counted as guarded) when the function is not defined
/// here; unguarded for the standard algorithms and a user function without a
/// guard.
static bool lambdaRunsUnderGuard(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P; Child = P, P = PM.getParent(P)) {
    if (!isa<LambdaExpr>(P))
      continue;
    // Climb from the lambda through conversions to what receives it.
    const Stmt *L = P;
    const Stmt *Up = PM.getParent(L);
    while (Up && isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                     CXXConstructExpr, ExprWithCleanups, ParenExpr, CXXFunctionalCastExpr>(Up)) {
      L = Up;
      Up = PM.getParent(Up);
    }
    const auto *Receiver = dyn_cast_or_null<CallExpr>(Up);
    if (!Receiver || Receiver->getCallee() == L)
      return false; // stored, or called on the spot
    const FunctionDecl *Callee = Receiver->getDirectCallee();
    if (Callee && Callee->isInStdNamespace())
      return false; // std::for_each, std::transform...: runs now, here
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (!Def || !Def->getBody() || !isUserFunction(Def, Ctx))
      return true; // unknown: silent
    return containsGradDisable(Def->getBody(), Ctx);
  }
  (void)Child;
  return false;
}

void CallGraph::collect(const FunctionFacts &Facts, ASTContext &Ctx) {
  const FunctionDecl *CallerKey = Facts.function()->getCanonicalDecl();
  if (Facts.has(Fact::Backward) || Facts.has(Fact::Grad))
    Backward.insert(CallerKey);
  if (Facts.userFunctionCalls().empty())
    return;
  Memo.clear();
  const ParentMap &PM = Facts.parents();
  for (const auto &[Call, Callee] : Facts.userFunctionCalls()) {
    bool Guarded =
        Facts.isGuarded(Call) || lambdaRunsUnderGuard(Call, PM, Ctx) || Facts.runsFrozen(Call);
    const Stmt *Loop = enclosingLoop(Call, PM, Facts.body());
    Sites.push_back({Call, CallerKey, Guarded, Loop != nullptr, Loop, isVirtualDispatch(Call)});
    ByCallee[Callee].push_back(&Sites.back());
  }
}

llvm::SmallVector<const CallGraph::Site *, 4> CallGraph::callers(const FunctionDecl *FD) const {
  llvm::SmallVector<const Site *, 4> Result;
  if (!FD)
    return Result;
  FD = FD->getCanonicalDecl();
  if (auto It = ByCallee.find(FD); It != ByCallee.end())
    Result.append(It->second.begin(), It->second.end());
  // Virtual calls of the methods FD overrides may run FD.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isVirtual()) {
    llvm::SmallVector<const CXXMethodDecl *, 4> Work(MD->overridden_methods().begin(),
                                                     MD->overridden_methods().end());
    llvm::SmallPtrSet<const CXXMethodDecl *, 4> Seen;
    while (!Work.empty()) {
      const CXXMethodDecl *O = Work.pop_back_val();
      if (!Seen.insert(O).second)
        continue;
      if (auto It = ByCallee.find(O->getCanonicalDecl()); It != ByCallee.end())
        for (const Site *S : It->second)
          if (S->Virtual)
            Result.push_back(S);
      Work.append(O->overridden_methods().begin(), O->overridden_methods().end());
    }
  }
  return Result;
}

bool CallGraph::guardedImpl(const FunctionDecl *FD, unsigned Depth, unsigned Limit,
                            llvm::SmallPtrSetImpl<const FunctionDecl *> &OnPath,
                            llvm::function_ref<bool(const FunctionDecl *)> EntryGuarded) const {
  auto Calls = callers(FD);
  if (Calls.empty()) // an entry point: guarded only by its callers elsewhere
    return EntryGuarded && EntryGuarded(FD);
  for (const Site *S : Calls) {
    if (S->Guarded || OnPath.contains(S->Caller))
      continue; // guarded, or a cycle (adds no chain from an entry point)
    if (Depth + 1 > Limit)
      continue; // beyond the depth limit: unknown, counted as guarded
    OnPath.insert(S->Caller);
    bool G = guardedImpl(S->Caller, Depth + 1, Limit, OnPath, EntryGuarded);
    OnPath.erase(S->Caller);
    if (!G)
      return false;
  }
  return true;
}

bool CallGraph::guardedOnEveryPath(const FunctionDecl *FD, unsigned Depth) const {
  if (!FD)
    return false;
  FD = FD->getCanonicalDecl();
  auto Key = std::make_pair(FD, Depth);
  if (auto It = Memo.find(Key); It != Memo.end())
    return It->second;
  if (callers(FD).empty())
    return Memo[Key] = false;
  llvm::SmallPtrSet<const FunctionDecl *, 8> OnPath;
  OnPath.insert(FD);
  bool G = guardedImpl(FD, 0, Depth, OnPath, nullptr);
  Memo[Key] = G;
  return G;
}

bool CallGraph::guardedOnEveryPath(
    const FunctionDecl *FD, unsigned Depth,
    llvm::function_ref<bool(const FunctionDecl *)> EntryGuarded) const {
  if (!FD)
    return false;
  FD = FD->getCanonicalDecl();
  llvm::SmallPtrSet<const FunctionDecl *, 8> OnPath;
  OnPath.insert(FD);
  return guardedImpl(FD, 0, Depth, OnPath, EntryGuarded);
}

bool CallGraph::chainImpl(const FunctionDecl *FD, unsigned Depth, unsigned Limit,
                          llvm::SmallPtrSetImpl<const FunctionDecl *> &OnPath,
                          llvm::function_ref<bool(const Site &)> Accept,
                          llvm::function_ref<bool(const Site &)> Ends,
                          llvm::SmallVectorImpl<const Site *> &Chain) const {
  if (Depth >= Limit)
    return false;
  for (const Site *S : callers(FD)) {
    if (!Accept(*S) || OnPath.contains(S->Caller))
      continue;
    Chain.push_back(S);
    if (Ends(*S))
      return true;
    OnPath.insert(S->Caller);
    bool Found = chainImpl(S->Caller, Depth + 1, Limit, OnPath, Accept, Ends, Chain);
    OnPath.erase(S->Caller);
    if (Found)
      return true;
    Chain.pop_back();
  }
  return false;
}

llvm::SmallVector<const CallGraph::Site *, 4>
CallGraph::unguardedChain(const FunctionDecl *FD, unsigned Depth) const {
  llvm::SmallVector<const Site *, 4> Chain;
  if (!FD)
    return Chain;
  llvm::SmallPtrSet<const FunctionDecl *, 8> OnPath;
  OnPath.insert(FD->getCanonicalDecl());
  chainImpl(
      FD, 0, Depth, OnPath, [](const Site &S) { return !S.Guarded; },
      [this](const Site &S) { return callers(S.Caller).empty(); }, Chain);
  return Chain;
}

llvm::SmallVector<const CallGraph::Site *, 4>
CallGraph::chainToLoop(const FunctionDecl *FD, unsigned Depth,
                       llvm::function_ref<bool(const Site &)> Accept) const {
  llvm::SmallVector<const Site *, 4> Chain;
  if (!FD)
    return Chain;
  llvm::SmallPtrSet<const FunctionDecl *, 8> OnPath;
  OnPath.insert(FD->getCanonicalDecl());
  chainImpl(FD, 0, Depth, OnPath, Accept, [](const Site &S) { return S.InLoop; }, Chain);
  return Chain;
}

} // namespace clang::tidy::torch_check
