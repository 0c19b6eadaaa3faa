//===--- AutocastNotRestoredCheck.h - libtorch-tidy -------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_AUTOCASTNOTRESTOREDCHECK_H
#define LIBTORCH_TIDY_CHECKS_AUTOCASTNOTRESTOREDCHECK_H

#include "clang-tidy/utils/IncludeInserter.h"
#include "utils/ModeRestore.h"
#include "utils/ModeRestoreCheck.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch_check {

/// Finds at::autocast::set_enabled(true) (and the per-device and 2.x
/// set_autocast_enabled spellings) not switched off again on every path out
/// of the function, or switched off only when nothing throws.
///
/// For the user-facing documentation see:
/// docs/checks/torch-autocast-not-restored.md
class AutocastNotRestoredCheck : public ModeRestoreCheck {
public:
  AutocastNotRestoredCheck(StringRef Name, ClangTidyContext *Context,
                            std::shared_ptr<AnalysisCore> Core = nullptr);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  /// The notes that say why: where autocast is still on when the code leaves
  /// (Escapes), or the call that may throw before the switch back.
  void noteWhy(bool Escapes, const ModePaths &Paths, const CallExpr *FirstThrowing,
               const Stmt *CodeBody);
  /// Why there is no fix-it, when the scope says.
  void noteNoFix(const CallExpr *Enable, const ModeScope &Scope);

  const std::string GuardType;
  const std::string GuardHeader;
  utils::IncludeInserter Inserter;
  /// The files that already include GuardHeader (clang-tidy's IncludeInserter
  /// finds an existing include only in a sorted include block).
  llvm::DenseSet<FileID> IncludeGuardHeader;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_AUTOCASTNOTRESTOREDCHECK_H
