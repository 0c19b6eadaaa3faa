//===--- OptimizerInLoopCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_OPTIMIZERINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_OPTIMIZERINLOOPCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds optimizers constructed inside the loop that steps them.
///
/// For the user-facing documentation see:
/// docs/checks/torch-optimizer-in-loop.md
class OptimizerInLoopCheck : public CoreCheck {
public:
  OptimizerInLoopCheck(StringRef Name, ClangTidyContext *Context,
                       std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_OPTIMIZERINLOOPCHECK_H
