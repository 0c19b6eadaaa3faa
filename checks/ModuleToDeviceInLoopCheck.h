//===--- ModuleToDeviceInLoopCheck.h - libtorch-tidy ------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MODULETODEVICEINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_MODULETODEVICEINLOOPCHECK_H

#include "utils/CoreCheck.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch_check {

/// Finds the same module moved to a device (to/cuda/cpu) inside a loop.
///
/// For the user-facing documentation see:
/// docs/checks/torch-module-to-device-in-loop.md
class ModuleToDeviceInLoopCheck : public CoreCheck {
public:
  ModuleToDeviceInLoopCheck(StringRef Name, ClangTidyContext *Context,
                             std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void onStartOfTranslationUnit() override {
    CoreCheck::onStartOfTranslationUnit();
    Reported.clear();
  }

private:
  /// Calls in a loop of a function of the user's that moves, on every call,
  /// a module the loop hands it (or a data member of its class).
  void checkHelperCalls(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx);
  /// The calls reported (one warning per call, at its first move): a call in
  /// a template is met once per instantiation.
  llvm::DenseSet<const Stmt *> Reported;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_MODULETODEVICEINLOOPCHECK_H
