//===--- MissingEvalCheck.h - libtorch-tidy ---------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MISSINGEVALCHECK_H
#define LIBTORCH_TIDY_CHECKS_MISSINGEVALCHECK_H

#include "utils/CallGraph.h"
#include "utils/CoreCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "utils/NameParts.h"

namespace clang::tidy::torch_check {

/// Finds forward passes in evaluation code of a torch::nn module with
/// training-mode-dependent layers (dropout, batch norm, or a module reading
/// is_training()) when no eval()/train(false) on that module precedes them.
///
/// For the user-facing documentation see:
/// docs/checks/torch-missing-eval.md
class MissingEvalCheck : public CoreCheck {
public:
  MissingEvalCheck(StringRef Name, ClangTidyContext *Context,
                    std::shared_ptr<AnalysisCore> Core);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void reportAtEndOfUnit() override;

private:
  struct Finding {
    const CallExpr *Forward;
    const FunctionDecl *Function;
    const ValueDecl *Object;     ///< the module variable, parameter or member
    const CXXRecordDecl *Layer;  ///< the mode-dependent layer (or the module itself)
    SourceLocation FixLoc;       ///< where `obj.eval();` goes; invalid: no fix-it
    std::string FixText;
    bool ByName;                 ///< evaluation code by its name (else: guarded)
    /// train() on the module before the forward pass, in evaluation code by its
    /// name that never backpropagates: what switches it to training mode.
    const CallExpr *SwitchedToTraining = nullptr;
  };
  const std::string EvalFunctionPattern;
  WordPattern EvalNames;
  const unsigned CallDepth;
  /// The translation unit (for the core's call graph at its end).
  ASTContext *Unit = nullptr;
  llvm::SmallVector<Finding, 4> Findings;
  /// Functions that call eval()/train(false) on some module; members that are
  /// switched to evaluation mode somewhere in the translation unit.
  llvm::DenseSet<const FunctionDecl *> EvalCallers;
  llvm::DenseSet<const ValueDecl *> EvaluatedMembers;
  /// The mode-dependent layer of each module type met (canonical type; null
  /// when none), for the translation unit.
  llvm::DenseMap<void *, const CXXRecordDecl *> LayerOfType;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_MISSINGEVALCHECK_H
