//===--- MisplacedZeroGradCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MISPLACEDZEROGRADCHECK_H
#define LIBTORCH_TIDY_CHECKS_MISPLACEDZEROGRADCHECK_H

#include "utils/CallGraph.h"
#include "utils/CoreCheck.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch_check {

/// Finds zero_grad() calls between backward() and step().
///
/// For the user-facing documentation see:
/// docs/checks/torch-misplaced-zero-grad.md
class MisplacedZeroGradCheck : public CoreCheck {
public:
  MisplacedZeroGradCheck(StringRef Name, ClangTidyContext *Context,
                         std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)),
        CallDepth(std::min(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth), MaxCallDepth)) {}
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    Options.store(Opts, CallDepthOption, CallDepth);
  }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void reportAtEndOfUnit() override { Reported.clear(); }

private:
  /// How many levels of helper calls the training-loop analysis follows.
  const unsigned CallDepth;
  /// zero_grad calls of helpers already reported (a helper called from several loops).
  llvm::SmallPtrSet<const CallExpr *, 4> Reported;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_MISPLACEDZEROGRADCHECK_H
