//===--- UnscaledAccumulatedLossCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UNSCALEDACCUMULATEDLOSSCHECK_H
#define LIBTORCH_TIDY_CHECKS_UNSCALEDACCUMULATEDLOSSCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds gradient accumulation whose loss is not divided by the accumulation period.
///
/// For the user-facing documentation see:
/// docs/checks/torch-unscaled-accumulated-loss.md
class UnscaledAccumulatedLossCheck : public CoreCheck {
public:
  UnscaledAccumulatedLossCheck(StringRef Name, ClangTidyContext *Context,
                               std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UNSCALEDACCUMULATEDLOSSCHECK_H
