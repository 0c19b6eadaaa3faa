//===--- CarriedHistoryCheck.cpp - libtorch-tidy --------------------------===//

#include "CarriedHistoryCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/AnalysisCore.h"
#include "utils/Callees.h"
#include "utils/History.h"
#include "utils/LoopVariables.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// The arguments of a forward pass (not the module it is called on).
llvm::SmallVector<const Expr *, 4> forwardArguments(const CallExpr *F) {
  llvm::SmallVector<const Expr *, 4> Args;
  unsigned First = isa<CXXOperatorCallExpr>(F) ? 1 : 0;
  for (unsigned I = First; I < F->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(F->getArg(I)))
      Args.push_back(F->getArg(I));
  return Args;
}

/// The variables and members a forward pass reads as input (not under
/// `.detach()` and the like), with the expressions that name them.
void collectInputs(const Stmt *Root,
                   llvm::SmallVectorImpl<std::pair<const Expr *, const ValueDecl *>> &Out) {
  walkStmts(Root, [&](const Stmt *S) {
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (cutsHistory(E) || isa<LambdaExpr>(E))
        return Walk::Skip;
      if (isa<DeclRefExpr, MemberExpr>(E)) {
        if (const ValueDecl *V = storageOf(E)) {
          QualType T = V->getType();
          if (!T->isDependentType() && mayCarryHistoryType(T) &&
              !isAnyModuleLike(classOf(T)))
            Out.push_back({E, V});
          return Walk::Skip;
        }
      }
    }
    return Walk::Into;
  });
}

bool containsDetach(const Stmt *Root) {
  return anyStmt(Root, [](const Stmt *S) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    return MD && MD->getIdentifier() && MD->getName() == "detach";
  });
}

/// `v.detach_()`, `v = x.detach()`, `v = torch::zeros(...)` (any assignment of
/// a value without history or with a detach in it) somewhere in \p Root.
bool isCutIn(const Stmt *Root, const ValueDecl *V, const HistoryAnalysis &History) {
  return anyStmt(Root, [&](const Stmt *S) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && MD->getIdentifier() && MD->getName() == "detach_" &&
          storageOf(MC->getImplicitObjectArgument()) == V)
        return true;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      const Expr *LHS = Op->getArg(0)->IgnoreImplicit()->IgnoreParens();
      bool Assigns = storageOf(LHS) == V;
      if (const auto *Tie = dyn_cast<CallExpr>(LHS); Tie && Tie->getDirectCallee() &&
                                                      Tie->getDirectCallee()->getIdentifier() &&
                                                      Tie->getDirectCallee()->getName() == "tie")
        for (const Expr *Arg : Tie->arguments())
          Assigns = Assigns || storageOf(Arg) == V;
      // Detached, reset to a value without history, or recomputed from something
      // else (`h = encoder(x)` before the recurrence).
      if (Assigns && (containsDetach(Op->getArg(1)) || !History.carriesHistory(Op->getArg(1)) ||
                      !History.dependsOn(Op->getArg(1), V)))
        return true;
    }
    return false;
  });
}

/// The elements of a std::tuple whose elements are all tensors; 0 otherwise.
unsigned tensorTupleSize(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(classOf(T));
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
      Spec->getName() != "tuple")
    return 0;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() != 1 || Args[0].getKind() != TemplateArgument::Pack)
    return 0;
  unsigned N = 0;
  for (const TemplateArgument &P : Args[0].pack_elements()) {
    if (P.getKind() != TemplateArgument::Type || !isTensorType(P.getAsType()))
      return 0;
    ++N;
  }
  return N;
}

/// True when \p Arg, an argument of \p Call, binds to a non-const lvalue
/// reference parameter of a non-template function (a detached temporary
/// would not bind).
bool bindsToMutableReference(const CallExpr *Call, const Expr *Arg) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || FD->getPrimaryTemplate() || FD->isTemplateInstantiation())
    return false;
  const int P = parameterIndexFor(Call, Arg);
  if (P < 0)
    return false;
  QualType T = FD->getParamDecl(P)->getType();
  return T->isLValueReferenceType() && !T.getNonReferenceType().isConstQualified();
}

/// The variables that hold the result of the forward pass \p F: `auto out =
/// rnn(x, h)`, `auto [y, state] = lstm(x, state0)`, `std::tie(y, h) = gru(x, h)`.
llvm::SmallVector<const ValueDecl *, 4> resultHolders(const CallExpr *F, const ParentMap &PM) {
  llvm::SmallVector<const ValueDecl *, 4> Holders;
  for (const Stmt *P = PM.getParent(F); P && !isa<CompoundStmt>(P); P = PM.getParent(P)) {
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *Dcl : DS->decls())
        if (const auto *W = dyn_cast<VarDecl>(Dcl))
          Holders.push_back(W);
      break;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      const Expr *LHS = Op->getArg(0)->IgnoreImplicit()->IgnoreParens();
      if (const auto *Tie = dyn_cast<CallExpr>(LHS); Tie && !isa<CXXOperatorCallExpr>(Tie)) {
        for (const Expr *Arg : Tie->arguments())
          if (const ValueDecl *W = storageOf(Arg))
            Holders.push_back(W);
      } else if (const ValueDecl *W = storageOf(LHS)) {
        Holders.push_back(W);
      }
      break;
    }
  }
  return Holders;
}

/// The fix-its of a carried \p V: `.detach()` at every place the forward
/// pass \p F reads it (a tuple of tensors rebuilt with each element
/// detached), the first such place, and whether every place could be fixed.
struct CarriedFix {
  llvm::SmallVector<FixItHint, 4> Fixes;
  const Expr *First = nullptr;
  bool Fixable = true;
};
CarriedFix detachAtInputs(const CallExpr *F, const ValueDecl *V,
                          llvm::ArrayRef<std::pair<const Expr *, const ValueDecl *>> Inputs,
                          const ParentMap &PM, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallVector<FixItHint, 4> Fixes;
  const Expr *First = nullptr;
  bool Fixable = true;
  for (const auto &[M, W] : Inputs) {
    if (W != V)
      continue;
    if (!First)
      First = M;
    const Expr *Target = M;
    // std::get<I>(state) -> std::get<I>(state).detach()
    const Stmt *P = PM.getParent(M);
    while (P && isa<ImplicitCastExpr>(P))
      P = PM.getParent(P);
    if (!isTensorType(M->getType()))
      if (const auto *Get = dyn_cast_or_null<CallExpr>(P);
          Get && Get->getNumArgs() == 1 && storageOf(Get) == V && isTensorType(Get->getType()))
        Target = Get;
    const Stmt *ArgOf = Target;
    for (const Stmt *Q = PM.getParent(ArgOf); Q && Q != F; Q = PM.getParent(Q))
      ArgOf = Q;
    if (const auto *ArgExpr = dyn_cast<Expr>(ArgOf);
        ArgExpr && bindsToMutableReference(F, ArgExpr)) {
      Fixable = false;
      continue;
    }
    if (isTensorType(Target->getType())) {
      auto More = appendDetachFixIts(Target, Ctx);
      if (More.empty())
        Fixable = false;
      Fixes.append(More.begin(), More.end());
      continue;
    }
    unsigned N = tensorTupleSize(M->getType());
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(M->getSourceRange()), SM, Ctx.getLangOpts());
    if (N == 0 || Range.isInvalid() || compat::beginLoc(M).isMacroID()) {
      Fixable = false;
      continue;
    }
    std::string Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
    std::string Replacement = "std::make_tuple(";
    for (unsigned I = 0; I < N; ++I)
      Replacement +=
          (I ? ", std::get<" : "std::get<") + std::to_string(I) + ">(" + Text + ").detach()";
    Replacement += ")";
    Fixes.push_back(FixItHint::CreateReplacement(Range, Replacement));
  }
  return {std::move(Fixes), First, Fixable};
}

} // namespace

void CarriedHistoryCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  // The core's facts: no forward pass, or no backward pass, in the body (its
  // lambdas included): nothing to find, and no history walk.
  if (!core().runsForwardAndBackward(FD, Ctx))
    return;

  const SourceManager &SM = Ctx.getSourceManager();
  const HistoryAnalysis &History = core().historyOf(FD, Ctx);
  const ParentMap &PM = History.parentMap();

  for (const Fact *Forward : core().facts(FD, Ctx).of(Fact::Forward)) {
    const auto *F = cast<CallExpr>(Forward->S);
    const Stmt *InnerLoop = enclosingLoop(F, PM, Body);
    if (!InnerLoop || History.isGuarded(F))
      continue;
    llvm::SmallVector<std::pair<const Expr *, const ValueDecl *>, 4> Inputs;
    for (const Expr *Arg : forwardArguments(F))
      collectInputs(Arg, Inputs);
    llvm::SmallVector<const ValueDecl *, 2> Carried;
    for (const auto &[M, V] : Inputs)
      if (!llvm::is_contained(Carried, V))
        Carried.push_back(V);

    llvm::SmallVector<const ValueDecl *, 4> Holders = resultHolders(F, PM);

    for (const ValueDecl *V : Carried) {
      // The definitions of V computed from F's result.
      llvm::SmallVector<const Expr *, 2> FromForward;
      for (const Expr *D : History.definitions(V)) {
        bool Derived = isDescendant(F, D, PM);
        for (const ValueDecl *W : Holders)
          Derived = Derived || (W != V && History.dependsOn(D, W));
        if (Derived)
          FromForward.push_back(D);
      }
      if (FromForward.empty())
        continue;

      const Stmt *Flagged = nullptr;
      const Expr *Def = nullptr;
      const CallExpr *Backward = nullptr;
      for (const Stmt *L = InnerLoop; L; L = enclosingLoop(L, PM, Body)) {
        if (!outlivesIteration(V, L, SM))
          break;
        if (isCutIn(L, V, History))
          break;
        Def = nullptr;
        for (const Expr *D : FromForward)
          if (isDescendant(D, L, PM)) {
            Def = D;
            break;
          }
        Backward = nullptr;
        for (const CallExpr *B : History.backwardCalls())
          if (isDescendant(B, L, PM)) {
            Backward = B;
            break;
          }
        if (Def && Backward) {
          Flagged = L;
          break;
        }
      }
      if (!Flagged)
        continue;

      auto [Fixes, First, Fixable] = detachAtInputs(F, V, Inputs, PM, Ctx);
      if (!First)
        continue;
      {
        auto D = diag(compat::beginLoc(First),
                      "'%0' carries the autograd graph of every earlier iteration into this "
                      "forward pass: with a backward pass in the same loop, memory and backward "
                      "time grow every iteration; detach it")
                 << V->getName() << First->getSourceRange();
        if (Fixable)
          for (const FixItHint &Fix : Fixes)
            D << Fix;
      }
      diag(compat::beginLoc(Def), "'%0' is assigned from the forward pass's result here",
           DiagnosticIDs::Note)
          << V->getName();
      diag(Backward->getExprLoc(), "backward pass in the same loop", DiagnosticIDs::Note);
      if (!Fixable)
        diag(F->getExprLoc(),
             "no fix-it: detach each tensor of '%0' where it enters this forward pass",
             DiagnosticIDs::Note)
            << V->getName();
    }
  }
}

} // namespace clang::tidy::torch_check
