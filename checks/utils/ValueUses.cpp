//===--- ValueUses.cpp - libtorch-tidy ------------------------------------===//

#include "ValueUses.h"
#include "ASTHelpers.h"
#include "Callees.h"
#include "DefUse.h"
#include "Escapes.h"
#include "History.h"
#include "TorchMembers.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

bool ValueUses::endsInRead(const Expr *E, Locals &Next) {
  // Walking up from the use: true when in a read or in the value of another
  // local (added to Next); false for anything else.
  auto IntoLocal = [&](const Expr *LHS) {
    const VarDecl *Target = DefUse::variableNamed(LHS);
    if (!Target || !Target->hasLocalStorage() || isa<ParmVarDecl>(Target))
      return false;
    Next.insert(Target);
    return true;
  };
  const ParentMap &PM = Facts.parents();
  const Stmt *Child = E;
  for (const Stmt *P = PM.getParent(E); P; Child = P, P = PM.getParent(P)) {
    if (isa<ParenExpr, ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
            ExprWithCleanups, CXXFunctionalCastExpr, MemberExpr>(P))
      continue;
    // A copy, or a conversion by a LibTorch class; a constructor of the
    // user's may keep its argument.
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      if (Ctor && (Ctor->isCopyOrMoveConstructor() || isInLibraryNamespace(Ctor->getParent())))
        continue;
      return false;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      if (isBackwardOrGradCall(Call))
        return false;
      if (cutsHistory(Call))
        return true;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call); Op && Op->getNumArgs() == 2) {
        // `std::cout << t`: printing reads the values.
        if (Op->getOperator() == OO_LessLess && Op->getArg(1) == Child &&
            !isTensorType(Op->getArg(0)->getType()))
          return true;
        // `v = e`, `v += e` on a local: e's value reaches v; v itself is
        // written (or keeps its value).
        if (Op->isAssignmentOp())
          return Op->getArg(0) == Child || IntoLocal(Op->getArg(0));
      }
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && isInLibraryNamespace(Callee)) {
        // LibTorch's tensor operations carry the value on to their result;
        // a container's method (push_back) stores it.
        const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
        if (MC && !isTensorType(MC->getImplicitObjectArgument()->IgnoreParenImpCasts()->getType()))
          return false;
        // A result that holds no tensor (`out.size(0)`, `out.dim()`) is a
        // read.
        if (!tensorish(Call->getType()))
          return true;
        continue;
      }
      if (PassesOn(Call, Child))
        continue;
      return false;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAssignmentOp())
        return BO->getLHS() == Child || IntoLocal(BO->getLHS());
      if (BO->isComparisonOp() || BO->isLogicalOp())
        return true;
      continue;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit())
          Next.insert(VD);
      return true;
    }
    return false; // a statement of its own, a return, anything else
  }
  return false;
}

std::optional<ValueUses::Locals> ValueUses::onlyRead(const VarDecl *Out) {
  const DefUse &Defs = Facts.defUse();
  const ParentMap &PM = Facts.parents();
  Locals Reached{Out};
  llvm::SmallVector<const VarDecl *, 8> Work{Out};
  while (!Work.empty()) {
    const VarDecl *V = Work.pop_back_val();
    // A range-for's hidden variables (the range, its iterators) hand the
    // value on where no reference is written: not followed.
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || V->getType()->isReferenceType() ||
        V->isImplicit() || Defs.isOpaquelyModified(V) || Defs.isRangeVariable(V) ||
        Reached.size() > 16 || capturedByLambda(V))
      return std::nullopt;
    for (const DeclRefExpr *Use : Facts.references(V)) {
      if (!PM.getParent(Use))
        continue; // in a type (`decltype(v)`): not evaluated
      Locals Next;
      if (!endsInRead(Use, Next))
        return std::nullopt;
      for (const VarDecl *N : Next)
        if (Reached.insert(N).second)
          Work.push_back(N);
    }
  }
  return Reached;
}

bool ValueUses::capturedByLambda(const VarDecl *V) const {
  // A lambda holds the value (a copy, or a reference it may hand on) where
  // it is spelled, and runs later.
  return llvm::any_of(Facts.lambdas(), [V](const LambdaExpr *L) {
    return llvm::any_of(L->captures(), [V](const LambdaCapture &C) {
      return C.capturesVariable() && C.getCapturedVar() == V;
    });
  });
}

bool ValueUses::tailComputesOnly(const CompoundStmt *Block, const Stmt *From, const Locals &Reached,
                                 const CallExpr *Forward) {
  bool Tail = false, Safe = true;
  for (const Stmt *St : Block->body()) {
    Tail |= St == From;
    if (!Tail || !Safe)
      continue;
    forEachStmt(St, [&](const Stmt *X) {
      if (const auto *Decl = dyn_cast<DeclStmt>(X)) {
        for (const auto *D : Decl->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && !Reached.contains(VD))
            Safe = false;
      } else if (const auto *Call = dyn_cast<CallExpr>(X)) {
        if (Call != Forward && (isForwardCall(Call) || isBackwardOrGradCall(Call) ||
                                classifyTrainingCall(Call) != TrainingCall::None ||
                                (followableCallee(Call, Ctx) && !PassesOn(Call, nullptr))))
          Safe = false;
        if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
            Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
          const VarDecl *T = DefUse::variableNamed(Op->getArg(0));
          Safe &= T && Reached.contains(T);
        }
      } else if (const auto *BO = dyn_cast<BinaryOperator>(X); BO && BO->isAssignmentOp()) {
        const VarDecl *T = DefUse::variableNamed(BO->getLHS());
        Safe &= T && (Reached.contains(T) || !tensorish(T->getType()));
      }
    });
  }
  return Tail && Safe;
}

} // namespace clang::tidy::torch_check
