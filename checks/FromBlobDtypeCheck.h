//===--- FromBlobDtypeCheck.h - libtorch-tidy -------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_FROMBLOBDTYPECHECK_H
#define LIBTORCH_TIDY_CHECKS_FROMBLOBDTYPECHECK_H

#include "utils/CoreCheck.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch_check {

/// Finds torch::from_blob / at::from_blob calls whose dtype (kFloat when the
/// options give none) is not the element type of the memory the data pointer
/// points to: a std::vector<double>, an int64_t array, a uint8_t image read as
/// float.
///
/// For the user-facing documentation see:
/// docs/checks/torch-from-blob-dtype.md
class FromBlobDtypeCheck : public CoreCheck {
public:
  FromBlobDtypeCheck(StringRef Name, ClangTidyContext *Context,
                     std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void onStartOfTranslationUnit() override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  struct Finding;
  void diagnose(const CallExpr *Call, const Finding &F, ASTContext &Ctx);

  /// The calls reported in this translation unit: a call in a template that
  /// does not depend on its parameters is met once per instantiation.
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_FROMBLOBDTYPECHECK_H
