//===--- GradModeNotRestoredCheck.cpp - libtorch-tidy ---------------------===//

#include "GradModeNotRestoredCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/ClangTidyCompat.h"
#include "utils/CallFacts.h"
#include "utils/ExecutionOrder.h"
#include "utils/Matchers.h"
#include "utils/ModeRestore.h"
#include "utils/TorchNames.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

ModeCall classifyGradMode(const CallExpr *Call, const ASTContext &Ctx) {
  switch (classifySetGradEnabled(Call, Ctx)) {
  case SetGradEnabled::Disables:
    return ModeCall::Enters;
  case SetGradEnabled::Enables:
    return ModeCall::Leaves;
  case SetGradEnabled::Unknown:
    return ModeCall::Unknown;
  case SetGradEnabled::NotACall:
    break;
  }
  return ModeCall::None;
}

} // namespace

GradModeNotRestoredCheck::GradModeNotRestoredCheck(StringRef Name, ClangTidyContext *Context,
                                                     std::shared_ptr<AnalysisCore> Core)
    : ModeRestoreCheck(Name, Context, std::move(Core)) {}

void GradModeNotRestoredCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  if (FD->isMain())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  // The switches are the core's facts: GradOff, GradOn and GradUnknown for
  // the set_enabled calls of the body, its lambdas included
  // (classifySetGradEnabled).
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  llvm::SmallVector<const CallExpr *, 4> Disables, Restores;
  for (const Fact &F : Facts.all()) {
    if (F.K != Fact::GradOff && F.K != Fact::GradOn && F.K != Fact::GradUnknown)
      continue;
    const auto *Call = dyn_cast_or_null<CallExpr>(F.S);
    ModeCall K = Call ? classifyGradMode(Call, Ctx) : ModeCall::None;
    if (K == ModeCall::Enters)
      Disables.push_back(Call);
    else if (isModeRestore(K))
      Restores.push_back(Call);
  }
  if (Disables.empty())
    return;
  const ParentMap &PM = Facts.parents();
  const ExecutionOrder &Order = Facts.order();
  auto Classify = [&](const CallExpr *Call) { return classifyGradMode(Call, Ctx); };
  auto NeverThrows = [](const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    return Callee && isNamed(dyn_cast<CXXRecordDecl>(Callee->getDeclContext()), names::GradMode);
  };
  auto AnyCall = [](const CallExpr *) { return true; };
  const std::string GuardName = freshName("no_grad", declaredNames(Facts));

  for (const CallExpr *Disable : Disables) {
    const Stmt *CodeBody = enclosingCodeBody(Disable, PM, Body);
    const CFG *Graph = Order.graph(CodeBody);
    if (!Graph)
      continue;
    ModePaths Paths = followModePaths(*Graph, Disable, Classify, NeverThrows, AnyCall,
                                      knownConditions(Disable, PM, CodeBody, Facts.defUse()));
    // The first call that may throw and whose exception no handler around it
    // answers by switching autograd back on.
    const CallExpr *FirstThrowing = firstUnhandledThrow(Paths, CodeBody, PM, Classify, SM);
    const bool InLambda = CodeBody != Body;
    const bool AnyRestore = llvm::any_of(Restores, [&](const CallExpr *R) {
      return enclosingCodeBody(R, PM, Body) == CodeBody;
    });

    const bool Escapes = !Paths.Escapes.empty() && (AnyRestore || Paths.DidWork);
    const bool Unsafe = !Escapes && CheckExceptionSafety && Paths.Restore && FirstThrowing;
    if (!Escapes && !Unsafe)
      continue;

    ModeScope Scope = findModeScope(Disable, PM, Classify);
    bool Fixed = false;
    {
      auto D = Escapes
                   ? diag(compat::beginLoc(Disable),
                          "autograd switched off here is not switched back on on every path out "
                          "of %select{'%1'|the lambda}0: it stays off for the caller, whose "
                          "training then records no graph and gets no gradients")
                   : diag(compat::beginLoc(Disable),
                          "autograd switched off here is switched back on only when nothing "
                          "throws: an exception leaves it off for the caller, whose training "
                          "then records no graph and gets no gradients");
      D << InLambda << FD->getNameAsString() << Disable->getSourceRange();
      CharSourceRange DisableRange = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Disable->getSourceRange()), SM, getLangOpts());
      for (const FixItHint &Fix :
           guardScopeFixes(Scope, DisableRange, names::NoGradGuardSpelling.str() + " " + GuardName,
                           SM, getLangOpts())) {
        D << Fix;
        Fixed = true;
      }
    }

    if (Escapes) {
      const Stmt *Last = escapeStatement(*Paths.Escapes.front());
      if (isa_and_nonnull<ReturnStmt>(Last))
        diag(compat::beginLoc(Last), "autograd is still off when it returns here",
             DiagnosticIDs::Note);
      else if (isa_and_nonnull<CXXThrowExpr>(Last))
        diag(compat::beginLoc(Last), "autograd is still off when this exception leaves",
             DiagnosticIDs::Note);
      else if (const auto *CS = dyn_cast<CompoundStmt>(CodeBody))
        diag(CS->getRBracLoc(), "autograd is still off at the end", DiagnosticIDs::Note);
    } else {
      diag(compat::beginLoc(FirstThrowing),
           "this call may throw before autograd is switched back on", DiagnosticIDs::Note);
      diag(compat::beginLoc(Paths.Restore), "switched back on here", DiagnosticIDs::Note);
    }
    if (Fixed)
      continue;
    if (Scope.Result == ModeScope::NoPair)
      diag(compat::beginLoc(Disable),
           "no fix-it: autograd is not switched back on later in the same block; hold a "
           "'%0' for the scope that needs autograd off",
           DiagnosticIDs::Note)
          << names::NoGradGuardSpelling;
    else if (Scope.Result == ModeScope::UsedAfter)
      diag(compat::beginLoc(Scope.RestoreStmt),
           "no fix-it: variables declared while autograd is off are used after it is switched "
           "back on; hold a '%0' for the scope that needs autograd off",
           DiagnosticIDs::Note)
          << names::NoGradGuardSpelling;
  }
}

} // namespace clang::tidy::torch_check
