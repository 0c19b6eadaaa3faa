//===--- ModuleToDeviceInLoopCheck.cpp - libtorch-tidy --------------------===//

#include "ModuleToDeviceInLoopCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/AnalysisCore.h"
#include "utils/CallFacts.h"
#include "utils/Callees.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Matchers.h"
#include "utils/Syncs.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {
/// The variable or member a module expression names when it is the same object
/// on every iteration of \p Loop: a variable declared outside the loop and not
/// assigned in it, a data member of 'this', or a member of such a variable.
/// Null when the object may change between iterations (an element of a
/// container, a loop variable, a call result).
const ValueDecl *invariantObject(const Expr *E, const Stmt *Loop, const SourceManager &SM) {
  // Down the chain of `*` and member accesses (a loop: it may be long); the
  // result is the member the outermost access names, or the variable.
  const ValueDecl *Outermost = nullptr;
  for (;;) {
    E = stripHolderArrow(E);
    if (!E)
      return nullptr;
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref) {
      E = UO->getSubExpr();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD)
        return nullptr;
      // Declared in the loop (a loop variable or a local of its body): may be a
      // different module on each iteration.
      SourceLocation DeclLoc = SM.getExpansionLoc(VD->getLocation());
      if (SM.isPointWithin(DeclLoc, SM.getExpansionLoc(compat::beginLoc(Loop)),
                           SM.getExpansionLoc(Loop->getEndLoc())))
        return nullptr;
      if (isAssignedWithin(VD, Loop))
        return nullptr;
      return Outermost ? Outermost : VD;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
      if (isAssignedWithin(ME->getMemberDecl(), Loop))
        return nullptr;
      if (!Outermost)
        Outermost = ME->getMemberDecl();
      if (isa<CXXThisExpr>(Base))
        return Outermost;
      E = Base;
      continue;
    }
    return nullptr;
  }
}

/// True when \p S reads a variable declared in \p Loop or assigned there.
bool variesInLoop(const Stmt *S, const Stmt *Loop, const SourceManager &SM) {
  return anyStmt(S, [&](const Stmt *Node) {
    const auto *DRE = dyn_cast<DeclRefExpr>(Node);
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!VD)
      return false;
    SourceLocation DeclLoc = SM.getExpansionLoc(VD->getLocation());
    return SM.isPointWithin(DeclLoc, SM.getExpansionLoc(compat::beginLoc(Loop)),
                            SM.getExpansionLoc(Loop->getEndLoc())) ||
           isAssignedWithin(VD, Loop);
  });
}
/// The module methods that move it: to(), cuda(), cpu().
bool isModuleMove(llvm::StringRef Method) {
  return Method == "to" || Method == "cuda" || Method == "cpu";
}

/// The module moves of \p Def that run on every call and whose target does
/// not depend on its parameters: each with the parameter (or data member of
/// its class) it moves.
llvm::SmallVector<std::pair<const CXXMemberCallExpr *, const ValueDecl *>, 2>
movesOnEveryCall(const FunctionDecl *Def, AnalysisCore &Core, ASTContext &Ctx) {
  llvm::SmallVector<std::pair<const CXXMemberCallExpr *, const ValueDecl *>, 2> Result;
  const FunctionFacts &Facts = Core.facts(Def, Ctx);
  if (!Def->hasBody() || !Facts.callsNamed(isModuleMove))
    return Result;
  for (const CallSite &Site : Facts.calls()) {
    const auto *Move = dyn_cast<CXXMemberCallExpr>(Site.E);
    if (!Move || Site.InLambda || !isModuleMove(moduleMethodName(Move)) ||
        !runsOnEveryCall(Move, Def->getBody(), Facts.parents(), Ctx.getSourceManager()) ||
        llvm::any_of(Move->arguments(), [](const Expr *Arg) {
          return anyStmt(Arg, [](const Stmt *S) {
            const auto *DRE = dyn_cast<DeclRefExpr>(S);
            return DRE && isa<ParmVarDecl>(DRE->getDecl());
          });
        }))
      continue;
    const Expr *Object = stripHolderArrow(Move->getImplicitObjectArgument());
    Object = Object ? Object->IgnoreParenImpCasts() : nullptr;
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Object);
        DRE && isa<ParmVarDecl>(DRE->getDecl()))
      Result.push_back({Move, DRE->getDecl()});
    else if (const auto *ME = dyn_cast_or_null<MemberExpr>(Object);
             ME && isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      Result.push_back({Move, ME->getMemberDecl()});
  }
  return Result;
}

} // namespace

void ModuleToDeviceInLoopCheck::checkHelperCalls(const FunctionDecl *FD, const Stmt *Body,
                                                 ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  const SourceManager &SM = Ctx.getSourceManager();
  for (const auto &[Call, Callee] : Facts.userFunctionCalls()) {
    const Stmt *Loop = enclosingLoop(Call, Facts.parents(), Body);
    const FunctionDecl *Def = Loop ? followableCallee(Call, Ctx) : nullptr;
    if (!Def || isInLambdaBelow(Call, Loop, Facts.parents()))
      continue;
    for (const auto &[Move, Moved] : movesOnEveryCall(Def, core(), Ctx)) {
      // The module the call hands over (or whose member it moves) is the same
      // on every iteration.
      const ValueDecl *Object = nullptr;
      if (const auto *P = dyn_cast<ParmVarDecl>(Moved)) {
        // A holder passed by value: the copy shares the module.
        const Expr *Arg = stripWrappers(argumentFor(Call, P->getFunctionScopeIndex()),
                                        wrappers::Temporaries | wrappers::CopiesAndMoves);
        Object = Arg ? invariantObject(Arg, Loop, SM) : nullptr;
      } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
        const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
        Object = isa<CXXThisExpr>(Obj) || invariantObject(Obj, Loop, SM) ? Moved : nullptr;
      }
      if (!Object)
        continue;
      if (!Reported.insert(Call).second)
        break;
      diag(Call->getExprLoc(),
           "'%0' moves module '%1' with '%2' on every call, and this loop calls it on every "
           "iteration: each move walks all its parameters and buffers, and copies them whenever "
           "the device or type differs")
          << Callee->getNameAsString() << Object->getName() << Move->getMethodDecl()->getName()
          << Call->getSourceRange();
      diag(Move->getExprLoc(), "the module is moved here", DiagnosticIDs::Note);
      diag(compat::beginLoc(Loop), "the loop is here; move the module once before it",
           DiagnosticIDs::Note);
    }
  }
}

void ModuleToDeviceInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  checkHelperCalls(FD, Body, Ctx);
  if (!Facts.callsNamed(isModuleMove))
    return;
  // The module moves: to(), cuda(), cpu() on a module, lambdas' included.
  llvm::SmallVector<const CXXMemberCallExpr *, 4> Moves;
  for (const CallSite &Site : Facts.calls())
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Site.E);
        Call && isModuleMove(moduleMethodName(Call)))
      Moves.push_back(Call);
  if (Moves.empty())
    return;
  const ParentMap &PM = Facts.parents();

  for (const CXXMemberCallExpr *Call : Moves) {
    const Stmt *Loop = enclosingLoop(Call, PM, Body);
    if (!Loop)
      continue;
    const ValueDecl *Object = invariantObject(Call->getImplicitObjectArgument(), Loop, Ctx.getSourceManager());
    // The target changes between iterations (one device after another): a
    // deliberate move each time.
    if (llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
          return variesInLoop(Arg, Loop, Ctx.getSourceManager());
        }))
      continue;
    if (!Object)
      continue;
    diag(Call->getExprLoc(),
         "module '%0' is moved with '%1' on every iteration of a loop: each call walks all its "
         "parameters and buffers, and copies them whenever the device or type differs")
        << Object->getName() << Call->getMethodDecl()->getName() << Call->getSourceRange();
    diag(compat::beginLoc(Loop), "the loop is here; move the module once before it",
         DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch_check
