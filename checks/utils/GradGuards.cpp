//===--- GradGuards.cpp - libtorch-tidy -----------------------------------===//

#include "GradGuards.h"
#include "ASTHelpers.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch_check {

static GradEffect boolArgEffect(const Expr *Arg, const ASTContext &Ctx, GradEffect IfTrue,
                                GradEffect IfFalse) {
  std::optional<bool> Value = knownBool(Arg, Ctx);
  if (!Value)
    return GradEffect::Unknown;
  return *Value ? IfTrue : IfFalse;
}

GradEffect guardVarEffect(const VarDecl *VD, const ASTContext &Ctx) {
  if (!VD || VD->getType()->isReferenceType() || VD->getType()->isPointerType())
    return GradEffect::None;
  const CXXRecordDecl *RD = classOf(VD->getType());
  if (!RD)
    return GradEffect::None;
  const auto *Construct =
      dyn_cast_or_null<CXXConstructExpr>(VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr);
  auto FirstArg = [&]() -> const Expr * {
    if (Construct && Construct->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(Construct->getArg(0)))
      return Construct->getArg(0);
    return nullptr;
  };
  if (isDerivedFromOrSame(RD, names::NoGradGuard))
    return GradEffect::Disables;
  if (isNamed(RD, names::InferenceMode)) {
    const Expr *Arg = FirstArg();
    return Arg ? boolArgEffect(Arg, Ctx, GradEffect::Disables, GradEffect::None)
               : GradEffect::Disables;
  }
  if (isNamed(RD, names::AutoGradMode)) {
    const Expr *Arg = FirstArg();
    return Arg ? boolArgEffect(Arg, Ctx, GradEffect::Enables, GradEffect::Disables)
               : GradEffect::Unknown;
  }
  return GradEffect::None;
}

GradEffect statementGradEffect(const Stmt *S, const ASTContext &Ctx) {
  if (!S)
    return GradEffect::None;
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    GradEffect Effect = GradEffect::None;
    for (const Decl *D : DS->decls())
      if (GradEffect E = guardVarEffect(dyn_cast<VarDecl>(D), Ctx); E != GradEffect::None)
        Effect = E;
    return Effect;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    const auto *Call = dyn_cast<CallExpr>(E->IgnoreImplicit()->IgnoreParens());
    switch (classifySetGradEnabled(Call, Ctx)) {
    case SetGradEnabled::Disables:
      return GradEffect::Disables;
    case SetGradEnabled::Enables:
      return GradEffect::Enables;
    case SetGradEnabled::Unknown:
      return GradEffect::Unknown;
    case SetGradEnabled::NotACall:
      break;
    }
  }
  return GradEffect::None;
}

bool isGradDisabledAt(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx) {
  const Stmt *Child = S;
  for (const Stmt *Parent = PM.getParent(Child); Parent;
       Child = Parent, Parent = PM.getParent(Parent)) {
    const auto *Block = dyn_cast<CompoundStmt>(Parent);
    if (!Block)
      continue;
    GradEffect Last = GradEffect::None;
    for (const Stmt *Sibling : Block->body()) {
      if (Sibling == Child)
        break;
      if (GradEffect E = statementGradEffect(Sibling, Ctx); E != GradEffect::None)
        Last = E;
    }
    if (Last != GradEffect::None)
      return Last != GradEffect::Enables;
  }
  return false;
}

GradEffect GradGuardCache::effectBefore(const CompoundStmt *Block, const Stmt *Child) {
  if (Scanned.try_emplace(Block, true).second) {
    GradEffect Last = GradEffect::None;
    for (const Stmt *Sibling : Block->body()) {
      Before.try_emplace(Sibling, Last);
      if (GradEffect E = statementGradEffect(Sibling, Ctx); E != GradEffect::None)
        Last = E;
    }
  }
  return Before.lookup(Child);
}

bool GradGuardCache::isDisabledAt(const Stmt *S) {
  llvm::SmallVector<const Stmt *, 16> Path;
  bool Result = false;
  for (const Stmt *Cur = S; Cur;) {
    if (auto It = Answers.find(Cur); It != Answers.end()) {
      Result = It->second;
      break;
    }
    Path.push_back(Cur);
    const Stmt *Parent = PM.getParent(Cur);
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Parent))
      if (GradEffect E = effectBefore(Block, Cur); E != GradEffect::None) {
        Result = E != GradEffect::Enables;
        break;
      }
    Cur = Parent;
  }
  for (const Stmt *P : Path)
    Answers[P] = Result;
  return Result;
}

bool containsGradDisable(const Stmt *Body, const ASTContext &Ctx) {
  return anyStmt(Body, [&](const Stmt *S) {
    GradEffect E = statementGradEffect(S, Ctx);
    return E == GradEffect::Disables || E == GradEffect::Unknown;
  });
}

} // namespace clang::tidy::torch_check
