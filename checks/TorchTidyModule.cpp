//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//
//
// Registers the torch- checks with clang-tidy (alphabetical order). The
// checks on the analysis core share one AnalysisCore per clang-tidy run
// (utils/CoreCheck.h): their factories capture it.
//
//===----------------------------------------------------------------------===//

#include "AccumulatedHistoryCheck.h"
#include "AutocastNotRestoredCheck.h"
#include "CarriedHistoryCheck.h"
#include "CudaStreamNotRestoredCheck.h"
#include "DataloaderDefaultsCheck.h"
#include "ElementwiseAccessInLoopCheck.h"
#include "EmptyCacheInLoopCheck.h"
#include "EvalWithoutNoGradCheck.h"
#include "Fp16WithoutGradScalerCheck.h"
#include "FromBlobDtypeCheck.h"
#include "FromBlobLifetimeCheck.h"
#include "GradModeNotRestoredCheck.h"
#include "HistoryInContainerCheck.h"
#include "HookInLoopCheck.h"
#include "HostTensorThenDeviceCheck.h"
#include "LoadInLoopCheck.h"
#include "MisplacedZeroGradCheck.h"
#include "MissingEvalCheck.h"
#include "MissingZeroGradCheck.h"
#include "ModuleToDeviceInLoopCheck.h"
#include "OptimizerInLoopCheck.h"
#include "SyncInLoopCheck.h"
#include "UnneededRetainGraphCheck.h"
#include "UnscaledAccumulatedLossCheck.h"
#include "UnsynchronizedTimingCheck.h"

#include "utils/ClangTidyCompat.h"
#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    auto Core = std::make_shared<AnalysisCore>();
    registerCoreCheck<AccumulatedHistoryCheck>(Factories, "torch-accumulated-history", Core);
    registerCoreCheck<AutocastNotRestoredCheck>(Factories, "torch-autocast-not-restored", Core);
    registerCoreCheck<CarriedHistoryCheck>(Factories, "torch-carried-history", Core);
    registerCoreCheck<CudaStreamNotRestoredCheck>(Factories, "torch-cuda-stream-not-restored",
                                                  Core);
    registerCoreCheck<DataloaderDefaultsCheck>(Factories, "torch-dataloader-defaults", Core);
    registerCoreCheck<ElementwiseAccessInLoopCheck>(Factories, "torch-elementwise-access-in-loop",
                                                    Core);
    registerCoreCheck<EmptyCacheInLoopCheck>(Factories, "torch-empty-cache-in-loop", Core);
    registerCoreCheck<EvalWithoutNoGradCheck>(Factories, "torch-eval-without-no-grad", Core);
    registerCoreCheck<Fp16WithoutGradScalerCheck>(Factories, "torch-fp16-without-grad-scaler", Core);
    registerCoreCheck<FromBlobDtypeCheck>(Factories, "torch-from-blob-dtype", Core);
    registerCoreCheck<FromBlobLifetimeCheck>(Factories, "torch-from-blob-lifetime", Core);
    registerCoreCheck<GradModeNotRestoredCheck>(Factories, "torch-grad-mode-not-restored", Core);
    registerCoreCheck<HistoryInContainerCheck>(Factories, "torch-history-in-container", Core);
    registerCoreCheck<HookInLoopCheck>(Factories, "torch-hook-in-loop", Core);
    registerCoreCheck<HostTensorThenDeviceCheck>(Factories, "torch-host-tensor-then-device", Core);
    registerCoreCheck<LoadInLoopCheck>(Factories, "torch-load-in-loop", Core);
    registerCoreCheck<MisplacedZeroGradCheck>(Factories, "torch-misplaced-zero-grad", Core);
    registerCoreCheck<MissingEvalCheck>(Factories, "torch-missing-eval", Core);
    registerCoreCheck<MissingZeroGradCheck>(Factories, "torch-missing-zero-grad", Core);
    registerCoreCheck<ModuleToDeviceInLoopCheck>(Factories, "torch-module-to-device-in-loop", Core);
    registerCoreCheck<OptimizerInLoopCheck>(Factories, "torch-optimizer-in-loop", Core);
    registerCoreCheck<SyncInLoopCheck>(Factories, "torch-sync-in-loop", Core);
    registerCoreCheck<UnneededRetainGraphCheck>(Factories, "torch-unneeded-retain-graph", Core);
    registerCoreCheck<UnscaledAccumulatedLossCheck>(Factories, "torch-unscaled-accumulated-loss",
                                                    Core);
    registerCoreCheck<UnsynchronizedTimingCheck>(Factories, "torch-unsynchronized-timing", Core);
  }
};

} // namespace clang::tidy::torch_check

namespace clang::tidy {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
static ClangTidyModuleRegistry::Add<torch_check::TorchTidyModule>
    X("libtorch-tidy", "Checks for memory mistakes in LibTorch training and evaluation code.");
} // namespace clang::tidy
