//===--- CarriedHistoryCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_CARRIEDHISTORYCHECK_H
#define LIBTORCH_TIDY_CHECKS_CARRIEDHISTORYCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds recurrent state carried from one loop iteration into the next forward
/// pass without being detached, while every iteration runs a backward pass
/// (truncated back-propagation through time done wrong).
///
/// For the user-facing documentation see:
/// docs/checks/torch-carried-history.md
class CarriedHistoryCheck : public CoreCheck {
public:
  CarriedHistoryCheck(StringRef Name, ClangTidyContext *Context,
                      std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_CARRIEDHISTORYCHECK_H
