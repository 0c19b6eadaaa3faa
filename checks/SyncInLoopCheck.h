//===--- SyncInLoopCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_SYNCINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_SYNCINLOOPCHECK_H

#include "utils/CallGraph.h"
#include "utils/CoreCheck.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {
struct TrainingLoop;
} // namespace clang::tidy::torch_check

namespace clang::tidy::torch_check {

/// Finds host-device synchronisations on every iteration of a training loop.
///
/// For the user-facing documentation see:
/// docs/checks/torch-sync-in-loop.md
class SyncInLoopCheck : public CoreCheck {
public:
  SyncInLoopCheck(StringRef Name, ClangTidyContext *Context,
                  std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)),
        CallDepth(std::min(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth), MaxCallDepth)) {}
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  void noteLoop(const TrainingLoop &Loop);

  /// How many levels of calls a synchronisation is followed into helpers the
  /// loop calls (0: the loop's own body only).
  const unsigned CallDepth;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_SYNCINLOOPCHECK_H
