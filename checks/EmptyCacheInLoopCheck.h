//===--- EmptyCacheInLoopCheck.h - libtorch-tidy ----------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_EMPTYCACHEINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_EMPTYCACHEINLOOPCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds CUDACachingAllocator::emptyCache() called on every iteration of a loop.
///
/// For the user-facing documentation see:
/// docs/checks/torch-empty-cache-in-loop.md
class EmptyCacheInLoopCheck : public CoreCheck {
public:
  EmptyCacheInLoopCheck(StringRef Name, ClangTidyContext *Context,
                        std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_EMPTYCACHEINLOOPCHECK_H
