//===--- DataloaderDefaultsCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DATALOADERDEFAULTSCHECK_H
#define LIBTORCH_TIDY_CHECKS_DATALOADERDEFAULTSCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds torch::data::make_data_loader calls that leave every option at its
/// default: batches of one example, loaded on the main thread.
///
/// For the user-facing documentation see:
/// docs/checks/torch-dataloader-defaults.md
///
/// It asks nothing of the analysis core (a body's own walk for one call) but
/// is called through its pass over the functions, with the other checks.
class DataloaderDefaultsCheck : public CoreCheck {
public:
  DataloaderDefaultsCheck(StringRef Name, ClangTidyContext *Context,
                          std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_DATALOADERDEFAULTSCHECK_H
