//===--- DefUse.cpp - libtorch-tidy ---------------------------------------===//

#include "DefUse.h"
#include "Callees.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch_check {

const VarDecl *DefUse::variableNamed(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *BD = dyn_cast<BindingDecl>(DRE->getDecl()))
      return dyn_cast_or_null<VarDecl>(BD->getDecomposedDecl());
    return dyn_cast<VarDecl>(DRE->getDecl());
  }
  return nullptr;
}

void DefUse::Recorder::variable(const VarDecl *VD) {
  if (const Expr *Init = VD->getInit())
    F.Sources[VD].push_back(Init);
}

void DefUse::Recorder::statement(const Stmt *S) {
  if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
    rangeFor(For);
  else if (const auto *BO = dyn_cast<BinaryOperator>(S))
    binaryOperator(BO);
  else if (const auto *UO = dyn_cast<UnaryOperator>(S))
    unaryOperator(UO);
  else if (const auto *Call = dyn_cast<CallExpr>(S))
    call(Call);
}

void DefUse::Recorder::rangeFor(const CXXForRangeStmt *RF) {
  if (const VarDecl *VD = RF->getLoopVariable())
    F.RangeOf[VD] = RF->getRangeInit();
}

void DefUse::Recorder::binaryOperator(const BinaryOperator *BO) {
  if (BO->isAssignmentOp())
    noteModified(BO, BO->getLHS(), BO->getRHS(), BO->getOpcode() == BO_Assign ? BO : nullptr);
}

void DefUse::Recorder::unaryOperator(const UnaryOperator *UO) {
  if (UO->isIncrementDecrementOp())
    noteModified(UO, UO->getSubExpr(), /*Source=*/nullptr);
}

void DefUse::Recorder::call(const CallExpr *Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
      Op && Op->isAssignmentOp() && Op->getNumArgs() == 2)
    noteModified(Op, Op->getArg(0), Op->getArg(1), Op->getOperator() == OO_Equal ? Op : nullptr);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (const CXXMethodDecl *MD = MC->getMethodDecl()) {
      const Expr *Object = MC->getImplicitObjectArgument();
      // In-place tensor methods (`t.add_(x)`), and non-const methods of a
      // container of tensors (`parts.push_back(loss)`): the arguments become
      // part of the object's value.
      const bool InPlace = MD->getIdentifier() && MD->getName().ends_with("_");
      const bool ContainerUpdate = !MD->isConst() && !isTensorType(Object->getType()) &&
                                   mayHoldTensor(Object->getType()) &&
                                   DefUse::variableNamed(Object);
      if (InPlace || ContainerUpdate) {
        // One modification, with each argument written (not a default
        // one) as a source.
        llvm::SmallVector<const Expr *, 2> Written;
        for (const Expr *Arg : Call->arguments())
          if (!isa<CXXDefaultArgExpr>(Arg))
            Written.push_back(Arg);
        // An in-place method without arguments (`t.relu_()`) changes the
        // value but brings in nothing: not noted.
        if (!Written.empty() || ContainerUpdate)
          noteModified(MC, Object, Written);
      }
    }
  if (const FunctionDecl *Callee = Call->getDirectCallee()) {
    // A variable passed by non-const reference may be reassigned by the
    // callee (not a forward pass, nor a forwarding reference of a template).
    const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern();
    const bool Forwards = isForwardCall(Call) ||
                          (Pattern && llvm::any_of(Pattern->parameters(), [](const ParmVarDecl *P) {
                             return P->isParameterPack() || P->getType()->isRValueReferenceType();
                           }));
    for (unsigned P = 0; !Forwards && P < Callee->getNumParams(); ++P) {
      QualType T = Callee->getParamDecl(P)->getType();
      if (T->isLValueReferenceType() && !T.getNonReferenceType().isConstQualified())
        if (const VarDecl *VD = DefUse::variableNamed(argumentFor(Call, P))) {
          F.Modified.insert(VD);
          F.OtherwiseModified.insert(VD);
          F.OpaquelyModified.insert(VD);
          F.ModSites[VD].push_back(Call);
        }
    }
  }
}

void DefUse::Recorder::noteModified(const Stmt *Site, const Expr *Target, const Expr *Source,
                                    const Expr *PlainAssignment) {
  noteModified(Site, Target, Source ? llvm::ArrayRef(Source) : llvm::ArrayRef<const Expr *>(),
               PlainAssignment);
}

void DefUse::Recorder::noteModified(const Stmt *Site, const Expr *Target,
                                    llvm::ArrayRef<const Expr *> Sources,
                                    const Expr *PlainAssignment) {
  llvm::SmallVector<const VarDecl *, 4> Targets;
  const VarDecl *Whole = DefUse::variableNamed(Target);
  if (Whole) {
    Targets.push_back(Whole);
  } else {
    // Every variable named in Target (std::tie(a, b), obj.member).
    walkStmts(Target, [&](const Stmt *X) {
      if (const auto *E = dyn_cast<Expr>(X))
        if (const VarDecl *VD = DefUse::variableNamed(E)) {
          Targets.push_back(VD);
          return Walk::Skip;
        }
      return Walk::Into;
    });
  }
  for (const VarDecl *VD : Targets) {
    F.Modified.insert(VD);
    F.ModSites[VD].push_back(Site);
    F.Sources[VD].append(Sources.begin(), Sources.end());
    if (VD == Whole && PlainAssignment && Sources.size() == 1)
      F.Assignments[VD].push_back({PlainAssignment, Sources.front()});
    else
      F.OtherwiseModified.insert(VD);
  }
}

} // namespace clang::tidy::torch_check
