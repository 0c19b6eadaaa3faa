//===--- ThreadBodies.cpp - libtorch-tidy ---------------------------------===//

#include "ThreadBodies.h"
#include "GradGuards.h"

#include "clang/AST/DeclTemplate.h"

namespace clang::tidy::torch_check {

static bool isThreadClass(const CXXRecordDecl *RD) {
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         (RD->getName() == "thread" || RD->getName() == "jthread");
}

/// True when the std::async call \p Call names the policy std::launch::deferred
/// alone (not combined with std::launch::async).
static bool isDeferredPolicy(const CallExpr *Call) {
  if (Call->getNumArgs() == 0)
    return false;
  const auto *DRE = dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts());
  const auto *E = DRE ? dyn_cast<EnumConstantDecl>(DRE->getDecl()) : nullptr;
  return E && E->getIdentifier() && E->getName() == "deferred";
}

const LambdaExpr *threadBodyLambda(const Stmt *S, const ParentMap &PM) {
  const LambdaExpr *L = nullptr;
  for (const Stmt *P = PM.getParent(S); P; P = PM.getParent(P))
    if ((L = dyn_cast<LambdaExpr>(P)))
      break;
  if (!L)
    return nullptr;
  const Stmt *Cur = L;
  for (const Stmt *P = PM.getParent(Cur); P; Cur = P, P = PM.getParent(P)) {
    if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, ParenExpr,
            CXXFunctionalCastExpr>(P))
      continue;
    if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
      if (isThreadClass(CE->getConstructor()->getParent()))
        return L;
      continue; // a std::function or a copy of the closure
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(P)) {
      // workers.emplace_back(lambda) on a container of threads.
      const CXXMethodDecl *MD = MC->getMethodDecl();
      const auto *Spec = MC->getImplicitObjectArgument()
                             ? dyn_cast_or_null<ClassTemplateSpecializationDecl>(
                                   MC->getImplicitObjectArgument()->getType()->getAsCXXRecordDecl())
                             : nullptr;
      if (MD && MD->getIdentifier() && Spec && Spec->getTemplateArgs().size() > 0 &&
          Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
          (MD->getName() == "emplace_back" || MD->getName() == "emplace" ||
           MD->getName() == "emplace_front") &&
          isThreadClass(Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl()))
        return L;
      return nullptr;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->isInStdNamespace() && FD->getIdentifier()) {
        if (FD->getName() == "async")
          // std::launch::deferred runs the task on the thread that calls
          // get() or wait(): not another thread.
          return isDeferredPolicy(Call) ? nullptr : L;
        if (FD->getName() == "move")
          continue;
      }
    }
    return nullptr;
  }
  return nullptr;
}

bool isGradDisabledInThreadBody(const Stmt *S, const LambdaExpr *L, const ASTContext &Ctx) {
  ParentMap BodyPM(L->getBody());
  return isGradDisabledAt(S, BodyPM, Ctx);
}

const VarDecl *enclosingGradGuard(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx) {
  const Stmt *Cur = S;
  for (const Stmt *P = PM.getParent(Cur); P; Cur = P, P = PM.getParent(P)) {
    const auto *Block = dyn_cast<CompoundStmt>(P);
    if (!Block)
      continue;
    const VarDecl *Found = nullptr;
    for (const Stmt *Child : Block->body()) {
      if (Child == Cur)
        break;
      if (const auto *DS = dyn_cast<DeclStmt>(Child))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && guardVarEffect(VD, Ctx) == GradEffect::Disables)
            Found = VD;
    }
    if (Found)
      return Found;
  }
  return nullptr;
}

} // namespace clang::tidy::torch_check
