//===--- LoopVariables.cpp - libtorch-tidy --------------------------------===//

#include "LoopVariables.h"
#include "ASTHelpers.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch_check {

const ValueDecl *storageOf(const Expr *E) {
  for (int Depth = 0; E && Depth < 16; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const ValueDecl *D = DRE->getDecl();
      if (const auto *BD = dyn_cast<BindingDecl>(D))
        if (const ValueDecl *Decomposed = BD->getDecomposedDecl())
          return Decomposed;
      return isa<VarDecl, FieldDecl>(D) ? D : nullptr;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (!isa<FieldDecl>(ME->getMemberDecl()))
        return nullptr;
      const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
      if (isa<CXXThisExpr>(Base))
        return ME->getMemberDecl();
      E = Base;
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() != UO_Deref)
        return nullptr;
      E = UO->getSubExpr();
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      OverloadedOperatorKind K = Op->getOperator();
      if ((K == OO_Subscript || K == OO_Arrow || K == OO_Star) && Op->getNumArgs() >= 1) {
        E = Op->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E); Call && !isa<CXXMemberCallExpr>(Call)) {
      // std::get<I>(tuple)
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->getIdentifier() && FD->getName() == "get" && FD->isInStdNamespace() &&
          Call->getNumArgs() == 1) {
        E = Call->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const auto *MD = MC->getMethodDecl();
      const IdentifierInfo *II = MD ? MD->getIdentifier() : nullptr;
      if (II && (II->getName() == "at" || II->getName() == "back" || II->getName() == "front") &&
          MD->getReturnType()->isReferenceType()) {
        E = MC->getImplicitObjectArgument();
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

bool outlivesIteration(const ValueDecl *V, const Stmt *Loop, const SourceManager &SM) {
  if (!V || !Loop)
    return false;
  if (isa<FieldDecl>(V))
    return true;
  // A structured binding lives as long as the object it decomposes.
  if (const auto *Binding = dyn_cast<BindingDecl>(V))
    V = Binding->getDecomposedDecl();
  const auto *VD = dyn_cast_or_null<VarDecl>(V);
  if (!VD)
    return false;
  if (isa<ParmVarDecl>(VD) || VD->hasGlobalStorage())
    return true;
  if (!withinExpansion(VD->getLocation(), Loop->getSourceRange(), SM))
    return true;
  // Declared in the loop statement: only the init-statement of a for loop
  // lives across iterations.
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
      for (const Decl *D : Init->decls())
        if (D == VD)
          return !VD->getType()->isReferenceType();
  return false;
}

bool isOutParameter(const ValueDecl *V) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(V);
  return P && P->getType()->isLValueReferenceType() &&
         !P->getType().getNonReferenceType().isConstQualified();
}

} // namespace clang::tidy::torch_check
