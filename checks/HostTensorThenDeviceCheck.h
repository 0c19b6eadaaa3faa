//===--- HostTensorThenDeviceCheck.h - libtorch-tidy ------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTTENSORTHENDEVICECHECK_H
#define LIBTORCH_TIDY_CHECKS_HOSTTENSORTHENDEVICECHECK_H

#include "utils/CoreCheck.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch_check {

/// Finds tensors that a LibTorch factory creates on the CPU and that are moved
/// to a device at once: `torch::randn({64, 128}).to(torch::kCUDA)`,
/// `torch::zeros({n}).cuda()`, `torch::ones(sizes).to(device)`. The host
/// allocation, the filling on the CPU and the host-to-device copy are avoided
/// by passing the device in the factory's options.
///
/// For the user-facing documentation see:
/// docs/checks/torch-host-tensor-then-device.md
class HostTensorThenDeviceCheck : public CoreCheck {
public:
  HostTensorThenDeviceCheck(StringRef Name, ClangTidyContext *Context,
                            std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void onStartOfTranslationUnit() override;
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;

private:
  struct Move;
  void diagnose(const Move &M, ASTContext &Ctx);

  /// The moves reported in this translation unit: a call in a template is met
  /// once per instantiation.
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_HOSTTENSORTHENDEVICECHECK_H
