//===--- CudaStreamNotRestoredCheck.h - libtorch-tidy -----------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_CUDASTREAMNOTRESTOREDCHECK_H
#define LIBTORCH_TIDY_CHECKS_CUDASTREAMNOTRESTOREDCHECK_H

#include "utils/ModeRestore.h"
#include "utils/ModeRestoreCheck.h"
#include "clang-tidy/utils/IncludeInserter.h"

namespace clang::tidy::torch_check {

/// Finds c10::cuda::setCurrentCUDAStream(s) (at::cuda:: too) whose previous
/// stream is not made current again on every path out of the function, or
/// only when nothing throws.
///
/// For the user-facing documentation see:
/// docs/checks/torch-cuda-stream-not-restored.md
class CudaStreamNotRestoredCheck : public ModeRestoreCheck {
public:
  CudaStreamNotRestoredCheck(StringRef Name, ClangTidyContext *Context,
                             std::shared_ptr<AnalysisCore> Core = nullptr);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  /// What one switch of the body (\p Enter) leaves: decide, then diagnose.
  /// \p CalleeDefs: the definitions of a callee's body (the core's facts).
  void checkSwitch(const FunctionDecl *FD, const Stmt *Body, const CallExpr *Enter,
                   llvm::ArrayRef<const CallExpr *> Restores, llvm::StringRef GuardName,
                   const FunctionFacts &Facts, DefUseOf CalleeDefs, ASTContext &Ctx);
  /// The fix-its that turn the switch and its restore into a guard scope,
  /// when that is provably the same; otherwise none, and a note says why.
  llvm::SmallVector<FixItHint, 4> guardFixes(const CallExpr *Enter, const ModeScope &Scope,
                                             llvm::StringRef GuardName, const FunctionFacts &Facts,
                                             DefUseOf CalleeDefs, ASTContext &Ctx,
                                             std::string &WhyNot, const Stmt *&WhyNotAt);
  utils::IncludeInserter Inserter;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_CUDASTREAMNOTRESTOREDCHECK_H
