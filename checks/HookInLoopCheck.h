//===--- HookInLoopCheck.h - libtorch-tidy ----------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HOOKINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_HOOKINLOOPCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds Tensor::register_hook called on every iteration of a loop on a tensor
/// that outlives the iteration, with no remove_hook of it in the loop.
///
/// For the user-facing documentation see:
/// docs/checks/torch-hook-in-loop.md
class HookInLoopCheck : public CoreCheck {
public:
  HookInLoopCheck(StringRef Name, ClangTidyContext *Context,
                   std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_HOOKINLOOPCHECK_H
