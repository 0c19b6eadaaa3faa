//===--- GradModeNotRestoredCheck.h - libtorch-tidy -------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_GRADMODENOTRESTOREDCHECK_H
#define LIBTORCH_TIDY_CHECKS_GRADMODENOTRESTOREDCHECK_H

#include "utils/ModeRestoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds GradMode::set_enabled(false) not undone on every path out of the
/// function, or undone only when nothing throws.
///
/// For the user-facing documentation see:
/// docs/checks/torch-grad-mode-not-restored.md
class GradModeNotRestoredCheck : public ModeRestoreCheck {
public:
  GradModeNotRestoredCheck(StringRef Name, ClangTidyContext *Context,
                            std::shared_ptr<AnalysisCore> Core = nullptr);
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_GRADMODENOTRESTOREDCHECK_H
