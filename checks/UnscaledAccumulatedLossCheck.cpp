//===--- UnscaledAccumulatedLossCheck.cpp - libtorch-tidy -----------------===//

#include "UnscaledAccumulatedLossCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/TrainingLoop.h"
#include "utils/Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// Decides whether a loss is divided by the accumulation period K.
class ScaleFinder {
public:
  ScaleFinder(const Expr *Period, const TrainingLoop &Loop, const ASTContext &Ctx)
      : Loop(Loop), Ctx(Ctx) {
    const Expr *P = Period->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(P))
      PeriodDecl = DRE->getDecl();
    else if (const auto *ME = dyn_cast<MemberExpr>(P))
      PeriodDecl = ME->getMemberDecl();
    Expr::EvalResult R;
    if (!Period->isValueDependent() && Period->EvaluateAsRValue(R, Ctx) && R.Val.isInt())
      PeriodValue = R.Val.getInt().getSExtValue();
  }

  std::optional<int64_t> periodValue() const { return PeriodValue; }

  /// \p E mentions K: names it, equals its constant value, or names a
  /// variable initialised from it (`const double scale = 1.0 / K;`).
  bool mentionsPeriod(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > 2)
      return false;
    E = E->IgnoreUnlessSpelledInSource();
    if (PeriodDecl && refersTo(E, PeriodDecl))
      return true;
    if (PeriodValue && !E->isValueDependent()) {
      Expr::EvalResult R;
      if (E->EvaluateAsRValue(R, Ctx)) {
        if (R.Val.isInt() && R.Val.getInt().getSExtValue() == *PeriodValue)
          return true;
        if (R.Val.isFloat() && R.Val.getFloat().convertToDouble() == double(*PeriodValue))
          return true;
        if (R.Val.isFloat() && *PeriodValue &&
            R.Val.getFloat().convertToDouble() == 1.0 / double(*PeriodValue))
          return true;
      }
    }
    return mentionsThroughVar(E, Depth);
  }

  /// \p E divides by K somewhere (or multiplies by 1/K), or hands K to a
  /// user function (which may scale: not visible here).
  bool scales(const Stmt *Root, unsigned Depth = 0) const {
    return !walkStmts(Root, [&](const Stmt *S) {
      if (isa<LambdaExpr>(S))
        return Walk::Skip;
      return scalesHere(S, Depth) ? Walk::Stop : Walk::Into;
    });
  }

  /// The loss expression \p E is scaled, looking at the definitions of the
  /// variable it names. Unknown (no visible definition) counts as scaled.
  bool lossIsScaled(const Expr *E) const {
    if (scales(E))
      return true;
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    if (!DRE)
      return false;
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl())
      return true; // defined elsewhere: cannot tell
    bool Defined = VD->getInit() && !isa<CXXConstructExpr>(VD->getInit()->IgnoreImplicit());
    if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
            VD->getInit() ? VD->getInit()->IgnoreImplicit() : nullptr))
      Defined = Construct->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(Construct->getArg(0));
    if (VD->getInit() && scales(VD->getInit()))
      return true;
    // Assignments and in-place updates of the variable in the loop.
    bool Scaled = false;
    forEachUpdate(Loop.Body, VD, [&](const Stmt *Update) {
      Defined = true;
      Scaled |= scales(Update);
    });
    return Scaled || !Defined;
  }

private:
  /// \p S itself divides by K (or multiplies by 1/K), or hands K to a user
  /// function.
  bool scalesHere(const Stmt *S, unsigned Depth) const {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if ((BO->getOpcode() == BO_Div || BO->getOpcode() == BO_DivAssign) &&
          mentionsPeriod(BO->getRHS(), Depth))
        return true;
      if ((BO->getOpcode() == BO_Mul || BO->getOpcode() == BO_MulAssign) &&
          (isReciprocal(BO->getLHS(), Depth) || isReciprocal(BO->getRHS(), Depth)))
        return true;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S); Op && Op->getNumArgs() == 2) {
      OverloadedOperatorKind K = Op->getOperator();
      if ((K == OO_Slash || K == OO_SlashEqual) && mentionsPeriod(Op->getArg(1), Depth))
        return true;
      if ((K == OO_Star || K == OO_StarEqual) &&
          (isReciprocal(Op->getArg(0), Depth) || isReciprocal(Op->getArg(1), Depth)))
        return true;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      llvm::StringRef Name = MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier()
                                 ? MC->getMethodDecl()->getName()
                                 : "";
      if (MC->getNumArgs() >= 1) {
        if ((Name == "div" || Name == "div_" || Name == "divide" || Name == "true_divide") &&
            mentionsPeriod(MC->getArg(0), Depth))
          return true;
        if ((Name == "mul" || Name == "mul_" || Name == "multiply") &&
            isReciprocal(MC->getArg(0), Depth))
          return true;
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *FD = Call->getDirectCallee();
          FD && !isInLibraryNamespace(FD) &&
          !Ctx.getSourceManager().isInSystemHeader(FD->getLocation()))
        for (const Expr *Arg : Call->arguments())
          if (mentionsPeriod(Arg, Depth))
            return true;
    return false;
  }

  /// Through casts (a loop: they may nest deep), and through the initialisers
  /// of variables, at most two deep.
  bool isReciprocal(const Expr *E, unsigned Depth) const {
    E = E->IgnoreUnlessSpelledInSource()->IgnoreParens();
    while (const auto *Cast = dyn_cast<CastExpr>(E))
      E = Cast->getSubExpr()->IgnoreUnlessSpelledInSource()->IgnoreParens();
    if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == BO_Div)
      return mentionsPeriod(BO->getRHS(), Depth);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && VD->getInit() && Depth < 2)
        return isReciprocal(VD->getInit(), Depth + 1) ||
               (PeriodValue && mentionsPeriod(VD->getInit(), Depth + 1) &&
                !mentionsPeriodByName(VD->getInit()));
    if (PeriodValue && !E->isValueDependent()) {
      Expr::EvalResult R;
      if (E->EvaluateAsRValue(R, Ctx) && R.Val.isFloat() && *PeriodValue &&
          R.Val.getFloat().convertToDouble() == 1.0 / double(*PeriodValue))
        return true;
    }
    return false;
  }

  bool mentionsPeriodByName(const Expr *E) const {
    return PeriodDecl && refersTo(E, PeriodDecl);
  }

  /// A variable named in \p Root whose initialiser mentions K, one level
  /// deeper (mentionsPeriod gives up past depth 2: a bounded recursion).
  bool mentionsThroughVar(const Stmt *Root, unsigned Depth) const {
    return anyStmt(Root, [&](const Stmt *S) {
      const auto *DRE = dyn_cast<DeclRefExpr>(S);
      const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      return VD && VD->getInit() && VD != PeriodDecl && mentionsPeriod(VD->getInit(), Depth + 1);
    });
  }

  template <typename Fn>
  static void forEachUpdate(const Stmt *Root, const VarDecl *VD, Fn &&Callback) {
    walkStmts(Root, [&](const Stmt *S) {
      if (isa<LambdaExpr>(S))
        return Walk::Skip;
      if (const auto *BO = dyn_cast<BinaryOperator>(S);
          BO && BO->isAssignmentOp() && namedDecl(BO->getLHS()) == VD)
        Callback(S);
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
          Op && Op->isAssignmentOp() && Op->getNumArgs() == 2 && namedDecl(Op->getArg(0)) == VD)
        Callback(S);
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
        if (const CXXMethodDecl *MD = MC->getMethodDecl();
            MD && MD->getIdentifier() && MD->getName().ends_with("_") &&
            namedDecl(MC->getImplicitObjectArgument()) == VD)
          Callback(S);
      return Walk::Into;
    });
  }

  const TrainingLoop &Loop;
  const ASTContext &Ctx;
  const ValueDecl *PeriodDecl = nullptr;
  std::optional<int64_t> PeriodValue;
};

} // namespace

/// Every name in \p E is declared before \p Loc and \p E has no side effects.
static bool visibleAt(const Expr *E, SourceLocation Loc, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (E->HasSideEffects(Ctx))
    return false;
  return !anyStmt(E, [&](const Stmt *S) {
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (!DRE)
      return false;
    SourceLocation DeclLoc = DRE->getDecl()->getLocation();
    return !DeclLoc.isValid() || !expandedBefore(DeclLoc, Loc, SM);
  });
}

void UnscaledAccumulatedLossCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const TrainingLoopAnalysis &Analysis = core().trainingLoops(FD, Ctx, 0);

  for (const TrainingLoop &Loop : Analysis.loops()) {
    std::optional<ConditionalStep> Gate = Analysis.conditionalStep(Loop);
    if (!Gate)
      continue;
    // Gradients are zeroed with the step, never on every iteration.
    bool ZeroedInBranch = false, ZeroedEveryIteration = false;
    for (const TrainingEvent &E : Loop.Events) {
      if (!E.zeroes())
        continue;
      if (isDescendant(E.Call, Gate->If->getThen(), Analysis.parents()))
        ZeroedInBranch = true;
      else if (Analysis.runsEveryIteration(E.Call, Loop, /*ThroughNestedLoops=*/false) ||
               Analysis.enclosingIf(E.Call, Loop) != Gate->If)
        ZeroedEveryIteration = true;
    }
    if (!ZeroedInBranch || ZeroedEveryIteration)
      continue;
    ScaleFinder Scale(Gate->Period, Loop, Ctx);
    if (Scale.periodValue() && *Scale.periodValue() <= 1)
      continue;

    for (const TrainingEvent &E : Loop.Events) {
      if (E.K != TrainingEvent::Backward || E.InLambda ||
          !Analysis.runsEveryIteration(E.Call, Loop, /*ThroughNestedLoops=*/false))
        continue;
      const auto *MC = dyn_cast<CXXMemberCallExpr>(E.Call);
      if (!MC) {
        // torch::autograd::backward({loss}): look at the first tensor.
        continue;
      }
      const Expr *Loss = MC->getImplicitObjectArgument();
      if (!Loss || Scale.lossIsScaled(Loss))
        continue;

      // The fix-it: (loss / K).backward().
      const Expr *Period = Gate->Period;
      CharSourceRange LossRange = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Loss->getSourceRange()), SM, Ctx.getLangOpts());
      CharSourceRange PeriodRange = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Period->getSourceRange()), SM, Ctx.getLangOpts());
      std::string Fix;
      if (LossRange.isValid() && PeriodRange.isValid() && compat::beginLoc(Loss).isFileID() &&
          compat::beginLoc(Period).isFileID() && visibleAt(Period, compat::beginLoc(E.Call), Ctx)) {
        std::string LossText =
            Lexer::getSourceText(LossRange, SM, Ctx.getLangOpts()).str();
        std::string PeriodText =
            Lexer::getSourceText(PeriodRange, SM, Ctx.getLangOpts()).str();
        const Expr *StrippedLoss = Loss->IgnoreImplicit()->IgnoreParens();
        if (!isa<DeclRefExpr, MemberExpr, CallExpr, ParenExpr>(StrippedLoss))
          LossText = "(" + LossText + ")";
        const Expr *StrippedPeriod = Period->IgnoreParenImpCasts();
        bool Simple = isa<DeclRefExpr, MemberExpr, IntegerLiteral, FloatingLiteral>(StrippedPeriod);
        if (!Simple)
          PeriodText = "(" + PeriodText + ")";
        // LibTorch's Scalar converts implicitly only from signed integers and
        // floating point of its scalar types.
        QualType PT = StrippedPeriod->getType().getCanonicalType().getUnqualifiedType();
        const auto *BT = PT->getAs<BuiltinType>();
        bool ScalarOk = BT && (BT->getKind() == BuiltinType::Int ||
                               BT->getKind() == BuiltinType::Long ||
                               BT->getKind() == BuiltinType::Short ||
                               BT->getKind() == BuiltinType::Float ||
                               BT->getKind() == BuiltinType::Double);
        if (!ScalarOk)
          PeriodText = "static_cast<double>(" + Lexer::getSourceText(PeriodRange, SM,
                                                                     Ctx.getLangOpts())
                                                     .str() +
                       ")";
        Fix = "(" + LossText + " / " + PeriodText + ")";
      }
      {
        auto D = diag(E.Call->getExprLoc(),
                      "loss is not divided by the accumulation period: the gradients of every "
                      "backward() between two steps add up, so each step is as large as a "
                      "learning rate that many times higher");
        if (!Fix.empty())
          D << FixItHint::CreateReplacement(LossRange, Fix);
      }
      diag(compat::beginLoc(Period), "the optimizer steps once every '%0' iterations here",
           DiagnosticIDs::Note)
          << Lexer::getSourceText(
                 CharSourceRange::getTokenRange(Period->getSourceRange()), SM, Ctx.getLangOpts());
    }
  }
}

} // namespace clang::tidy::torch_check
