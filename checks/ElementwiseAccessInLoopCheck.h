//===--- ElementwiseAccessInLoopCheck.h - libtorch-tidy ---------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_ELEMENTWISEACCESSINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_ELEMENTWISEACCESSINLOOPCHECK_H

#include "utils/CoreCheck.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::torch_check {

/// Finds tensors read or written element by element in a loop over indices:
/// `t[i][j].item<float>()`, `t.index({i, j}).item()`, `t[i] = v`,
/// `t.index_put_({i}, v)`. Each access goes through the dispatcher and makes
/// a tensor (a view) for one number; an accessor (`t.accessor<T, N>()`) or
/// the `data_ptr<T>()` of a contiguous tensor reads the element directly.
/// One warning per loop and tensor; a fix-it only where the accessor's type,
/// rank and device are known and every access in the loop is rewritten.
///
/// For the user-facing documentation see:
/// docs/checks/torch-elementwise-access-in-loop.md
class ElementwiseAccessInLoopCheck : public CoreCheck {
public:
  ElementwiseAccessInLoopCheck(StringRef Name, ClangTidyContext *Context,
                               std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void onStartOfTranslationUnit() override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

  struct Access;
  struct Finding;
  struct HelperAccess;

private:
  /// The calls in a loop of \p FD of helpers that access one element per
  /// call, as accesses at the call (Access::InHelper).
  void appendHelperCalls(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx,
                         llvm::SmallVectorImpl<Access> &Accesses);
  void diagnose(const Finding &F, const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx);
  /// The accessor declared before the loop and every access rewritten to
  /// it; empty when the rewrite is not known to be correct.
  std::vector<FixItHint> accessorFix(const Finding &F, const FunctionDecl *FD, const Stmt *Body,
                                     ASTContext &Ctx);

  /// The accesses reported in this translation unit: a loop in a template is
  /// met once per instantiation.
  llvm::DenseSet<SourceLocation> Reported;
  /// Per helper of the translation unit, its accesses made once per call.
  llvm::DenseMap<const FunctionDecl *, std::shared_ptr<std::vector<HelperAccess>>> Helpers;
  /// The accessor names the fix-its of the current function declare.
  llvm::SmallVector<std::string, 4> NamesGiven;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_ELEMENTWISEACCESSINLOOPCHECK_H
