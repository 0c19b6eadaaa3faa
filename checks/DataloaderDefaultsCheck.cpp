//===--- DataloaderDefaultsCheck.cpp - libtorch-tidy ----------------------===//

#include "DataloaderDefaultsCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {
/// True when the caller wrote no DataLoaderOptions and no batch size: every
/// parameter of type DataLoaderOptions takes its default argument, and no
/// argument is an integer (a batch size converted to options).
bool usesDefaultOptions(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return false;
  bool SawOptions = false;
  for (unsigned I = 0, N = Call->getNumArgs(); I < N && I < FD->getNumParams(); ++I) {
    const Expr *Arg = Call->getArg(I);
    QualType ParamType = FD->getParamDecl(I)->getType();
    if (!isNamed(classOf(ParamType), names::DataLoaderOptions))
      continue;
    SawOptions = true;
    if (!isa<CXXDefaultArgExpr>(Arg))
      return false;
  }
  return SawOptions;
}
} // namespace

void DataloaderDefaultsCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.callsNamed("make_data_loader"))
    return;
  for (const CallSite &Site : Facts.calls()) {
    const auto *Call = dyn_cast<CallExpr>(Site.E);
    if (!Call || !isMakeDataLoaderCall(Call) || !usesDefaultOptions(Call))
      continue;
    SourceLocation Loc = compat::beginLoc(Call);
    if (const auto *Callee = dyn_cast<DeclRefExpr>(Call->getCallee()->IgnoreImplicit()))
      Loc = Callee->getLocation();
    diag(Loc, "'make_data_loader' without options loads batches of one example on the main "
              "thread: every step pays the per-batch overhead and waits for its data")
        << Call->getSourceRange();
    diag(Call->getRParenLoc(),
         "pass options as the last argument, e.g. "
         "'torch::data::DataLoaderOptions().batch_size(64).workers(2)'",
         DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch_check
