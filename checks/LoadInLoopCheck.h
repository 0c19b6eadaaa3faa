//===--- LoadInLoopCheck.h - libtorch-tidy ----------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_LOADINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_LOADINLOOPCHECK_H

#include "utils/CallGraph.h"
#include "utils/CoreCheck.h"
#include "llvm/ADT/DenseSet.h"
#include <vector>

namespace clang::tidy::torch_check {

/// Finds a model or checkpoint loaded from the same file on every iteration of
/// a loop (torch::jit::load, torch::load into a module or optimizer,
/// InputArchive::load_from, an AOTInductor AOTIModelPackageLoader or
/// AOTIModelContainerRunner constructed), directly or through a helper the
/// loop calls.
///
/// For the user-facing documentation see:
/// docs/checks/torch-load-in-loop.md
class LoadInLoopCheck : public CoreCheck {
public:
  LoadInLoopCheck(StringRef Name, ClangTidyContext *Context,
                   std::shared_ptr<AnalysisCore> Core);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void reportAtEndOfUnit() override;

private:
  /// Adds the calls of \p FD's body that run only under a condition to
  /// ConditionalCalls (on the core's parent map of the body); returns its
  /// loads.
  llvm::SmallVector<const Expr *, 4> collect(const FunctionDecl *FD);

  struct HelperLoad {
    const Expr *Load; ///< a call, or an AOTInductor loader's construction
    const FunctionDecl *Helper;
  };
  const unsigned CallDepth;
  /// The translation unit (for the core's call graph at its end).
  ASTContext *Unit = nullptr;
  llvm::SmallVector<HelperLoad, 4> HelperLoads;
  /// Calls that run only under a condition in their loop (or function body).
  llvm::DenseSet<const Expr *> ConditionalCalls;
  /// Functions without a load: their calls' conditions are collected at the
  /// end of the translation unit, only when some helper loads.
  std::vector<const FunctionDecl *> Deferred;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_LOADINLOOPCHECK_H
