//===--- ModuleToDeviceInLoopCheck.h - libtorch-tidy ------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MODULETODEVICEINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_MODULETODEVICEINLOOPCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds the same module moved to a device (to/cuda/cpu) inside a loop.
///
/// For the user-facing documentation see:
/// docs/checks/torch-module-to-device-in-loop.md
class ModuleToDeviceInLoopCheck : public ClangTidyCheck {
public:
  ModuleToDeviceInLoopCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_MODULETODEVICEINLOOPCHECK_H
