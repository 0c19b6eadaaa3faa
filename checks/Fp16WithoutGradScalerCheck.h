//===--- Fp16WithoutGradScalerCheck.h - libtorch-tidy -----------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_FP16WITHOUTGRADSCALERCHECK_H
#define LIBTORCH_TIDY_CHECKS_FP16WITHOUTGRADSCALERCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds backward() on a loss computed under float16 autocast, or by a module
/// converted to float16, with no gradient scaler scaling the loss first.
///
/// For the user-facing documentation see:
/// docs/checks/torch-fp16-without-grad-scaler.md
class Fp16WithoutGradScalerCheck : public CoreCheck {
public:
  Fp16WithoutGradScalerCheck(StringRef Name, ClangTidyContext *Context,
                              std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void reportAtEndOfUnit() override;

private:
  /// A finding whose only evidence is CUDA's default dtype: reported at the end
  /// of the translation unit unless some function sets another CUDA dtype.
  struct DefaultDtypeFinding {
    SourceLocation Backward;
    SourceRange Range;
    SourceLocation Switch;
  };
  llvm::SmallVector<DefaultDtypeFinding, 4> DefaultDtypeFindings;
  bool OtherCudaDtypeSet = false;
  void reportDefaultDtype(const DefaultDtypeFinding &F);
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_FP16WITHOUTGRADSCALERCHECK_H
