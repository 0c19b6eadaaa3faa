//===--- EvalWithoutNoGradCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_EVALWITHOUTNOGRADCHECK_H
#define LIBTORCH_TIDY_CHECKS_EVALWITHOUTNOGRADCHECK_H

#include "utils/CallGraph.h"
#include "utils/CoreCheck.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "utils/NameParts.h"

namespace clang::tidy::torch_check {

/// Finds forward passes in evaluation code that run with autograd enabled.
///
/// For the user-facing documentation see:
/// docs/checks/torch-eval-without-no-grad.md
class EvalWithoutNoGradCheck : public CoreCheck {
public:
  enum class GuardKind { NoGradGuard, InferenceMode };

  EvalWithoutNoGradCheck(StringRef Name, ClangTidyContext *Context,
                         std::shared_ptr<AnalysisCore> Core = nullptr);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void reportAtEndOfUnit() override;

  /// One finding waiting for the call sites of its function to be known.
  struct Finding {
    const FunctionDecl *Function;
    SourceLocation CallLoc;
    SourceRange CallRange;
    enum { AfterEval, ByName, JitLoaded, Inference, Unused } Reason;
    SourceLocation EvidenceLoc; ///< eval() call, function name, jit::load call, the function
                                ///< (Inference) or the variable the result initialises (Unused)
    std::string FunctionName;
    SourceLocation FixLoc;         ///< where the guard goes; invalid: no fix-it
    std::string FixIndent;         ///< indentation of the inserted line
    bool InsertAfter;              ///< insert after FixLoc's token (after eval();)
    SourceLocation BlockingTrain;  ///< train() that prevents the fix-it
    /// When the reported forward is the call of a helper that runs one: the
    /// helper's definition and the forward pass inside it.
    const FunctionDecl *Helper = nullptr;
    SourceLocation HelperForward;
    /// The helper is defined in another file: its linked summary says it
    /// runs the forward pass.
    bool HelperElsewhere = false;
  };

private:
  /// One function while checkFunction judges it (the .cpp).
  struct Scan;
  // checkFunction's steps: collect (the helpers' forward passes), then each
  // rule of the docs page in turn.
  bool addHelperForwards(Scan &S, ASTContext &Ctx);
  void reportThreadBodies(Scan &S, ASTContext &Ctx);
  void diagThreadBody(const Scan &S, const CallExpr *Forward, const LambdaExpr *L,
                      const VarDecl *SpawnGuard);
  void findByName(Scan &S);
  void findJitLoaded(Scan &S, ASTContext &Ctx);
  void findAfterEval(Scan &S, ASTContext &Ctx);
  void afterEvalFix(Finding &F, const Scan &S, const CallExpr *Eval,
                    llvm::ArrayRef<const CallExpr *> Flagged, ASTContext &Ctx);
  /// The inference rule: a function that trains nothing and lets no value
  /// with autograd history leave it.
  bool mayBeInference(const Scan &S) const;
  void findInference(Scan &S, ASTContext &Ctx);
  /// (e) In training code: a forward pass whose result only ever reaches
  /// values read (item(), printing), never a backward pass, the function's
  /// result or any storage outside the body's locals.
  void findUnused(Scan &S, ASTContext &Ctx);
  // reportAtEndOfUnit's steps.
  bool silenced(const Finding &F);
  void emit(const Finding &F);
  void noteEvidence(const Finding &F);

  std::string guardDeclaration(const FunctionDecl *FD, GuardKind Kind);
  /// The guard a finding in \p F suggests: GuardType, or with
  /// SuggestInferenceMode c10::InferenceMode where no tensor of the function
  /// can reach autograd after it (resultsStayIn).
  GuardKind guardFor(const Finding &F);
  bool nameSaysEval(const FunctionDecl *FD);
  /// The linked summary of the function \p Call calls when it is defined in
  /// another file (option TorchSummaries); null otherwise.
  const FunctionSummary *externalHelper(const CallExpr *Call, const ASTContext &Ctx) const;

  const std::string EvalFunctionPattern;
  const GuardKind Guard;
  /// Option SuggestInferenceMode: suggest c10::InferenceMode instead of
  /// torch::NoGradGuard where no result of the evaluation leaves the function
  /// as a tensor.
  const bool SuggestInferenceMode;
  /// Option InferenceByUse: also report a function that is inference by what
  /// it does (findInference), whatever its name.
  const bool InferenceByUse;
  /// resultsStayIn, per function with a finding (canonical declaration).
  llvm::DenseMap<const FunctionDecl *, bool> ResultsStay;
  WordPattern EvalNames;
  const unsigned CallDepth;

  llvm::SmallVector<Finding, 8> Findings;
  /// The translation unit (for the core's call graph at its end).
  ASTContext *Unit = nullptr;
  /// The names each function with a finding declares (guardDeclaration).
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<std::string, 8>> DeclaredNames;
  const SourceManager *SM = nullptr;
};

} // namespace clang::tidy::torch_check

template <>
struct clang::tidy::OptionEnumMapping<clang::tidy::torch_check::EvalWithoutNoGradCheck::GuardKind> {
  static llvm::ArrayRef<
      std::pair<clang::tidy::torch_check::EvalWithoutNoGradCheck::GuardKind, StringRef>>
  getEnumMapping();
};

#endif // LIBTORCH_TIDY_CHECKS_EVALWITHOUTNOGRADCHECK_H
