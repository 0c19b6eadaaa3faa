//===--- UnsynchronizedTimingCheck.h - libtorch-tidy ------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UNSYNCHRONIZEDTIMINGCHECK_H
#define LIBTORCH_TIDY_CHECKS_UNSYNCHRONIZEDTIMINGCHECK_H

#include "utils/CoreCheck.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch_check {

/// Finds wall-clock intervals (`auto t0 = std::chrono::steady_clock::now();
/// ... ; auto t1 = ...now(); t1 - t0`) around CUDA work (a forward pass, a
/// backward pass, an optimizer step, a loss) with no host synchronisation
/// between the last of that work and the second reading: CUDA kernels run
/// asynchronously, so the interval measures their launches, not the work.
///
/// For the user-facing documentation see:
/// docs/checks/torch-unsynchronized-timing.md
class UnsynchronizedTimingCheck : public CoreCheck {
public:
  UnsynchronizedTimingCheck(StringRef Name, ClangTidyContext *Context,
                            std::shared_ptr<AnalysisCore> Core = nullptr);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  struct Finding;
  void diagnose(const Finding &F, ASTContext &Ctx);

  /// Whether a CUDA device chosen at run time (`torch::cuda::is_available()
  /// ? torch::kCUDA : torch::kCPU`, a kCUDA in one branch of an `if`) makes
  /// the function's timed work CUDA work.
  const bool RuntimeDevice;
  /// The end readings reported in this translation unit (a template is met
  /// once per instantiation).
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UNSYNCHRONIZEDTIMINGCHECK_H
