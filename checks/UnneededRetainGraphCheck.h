//===--- UnneededRetainGraphCheck.h - libtorch-tidy -------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UNNEEDEDRETAINGRAPHCHECK_H
#define LIBTORCH_TIDY_CHECKS_UNNEEDEDRETAINGRAPHCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds backward passes with retain_graph=true whose graph no later backward
/// pass can reach.
///
/// For the user-facing documentation see:
/// docs/checks/torch-unneeded-retain-graph.md
class UnneededRetainGraphCheck : public CoreCheck {
public:
  UnneededRetainGraphCheck(StringRef Name, ClangTidyContext *Context,
                            std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  /// The warning on \p Call's retain_graph argument (argument \p Retain;
  /// \p Grad and \p Create the positions of the gradient and create_graph),
  /// with the fix-it.
  void diagnose(const CallExpr *Call, int Grad, int Retain, int Create, bool InLoop,
                const SourceManager &SM);
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UNNEEDEDRETAINGRAPHCHECK_H
