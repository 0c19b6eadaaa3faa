//===--- DataloaderDefaultsCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DATALOADERDEFAULTSCHECK_H
#define LIBTORCH_TIDY_CHECKS_DATALOADERDEFAULTSCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds torch::data::make_data_loader calls that leave every option at its
/// default: batches of one example, loaded on the main thread.
///
/// For the user-facing documentation see:
/// docs/checks/torch-dataloader-defaults.md
class DataloaderDefaultsCheck : public ClangTidyCheck {
public:
  DataloaderDefaultsCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_DATALOADERDEFAULTSCHECK_H
