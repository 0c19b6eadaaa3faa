//===--- MissingZeroGradCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H
#define LIBTORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H

#include "utils/CallGraph.h"
#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds training loops that never zero their gradients.
///
/// For the user-facing documentation see:
/// docs/checks/torch-missing-zero-grad.md
class MissingZeroGradCheck : public CoreCheck {
public:
  MissingZeroGradCheck(StringRef Name, ClangTidyContext *Context,
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

private:
  /// How many levels of helper calls the training-loop analysis follows.
  const unsigned CallDepth;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H
