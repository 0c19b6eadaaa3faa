//===--- ModeRestoreCheck.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// The base of the checks of thread-local modes that code switches with setter
// calls and must switch back on every path (ModeRestore.h):
// torch-grad-mode-not-restored and torch-autocast-not-restored. They share
// the path analysis of ModeRestore.h and, here, their policy options: whether
// a path that leaves by an exception counts (CheckExceptionSafety), read and
// stored the same way by both.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_MODERESTORECHECK_H
#define LIBTORCH_TIDY_CHECKS_UTILS_MODERESTORECHECK_H

#include "CoreCheck.h"

#include <optional>

namespace clang::tidy::torch_check {

class ModeRestoreCheck : public CoreCheck {
public:
  ModeRestoreCheck(StringRef Name, ClangTidyContext *Context, std::shared_ptr<AnalysisCore> Core)
      : CoreCheck(Name, Context, std::move(Core)),
        CheckExceptionSafety(boolOption("CheckExceptionSafety", true)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    // Stored as text: the plugin cannot use clang-tidy's bool option helpers,
    // which the clang-tidy executable does not export.
    Options.store(Opts, "CheckExceptionSafety", CheckExceptionSafety ? "true" : "false");
  }

protected:
  /// Report a path that leaves the function by an exception with the mode
  /// still switched (option CheckExceptionSafety, default true).
  const bool CheckExceptionSafety;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_MODERESTORECHECK_H
