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
#include "DataloaderDefaultsCheck.h"
#include "EmptyCacheInLoopCheck.h"
#include "EvalWithoutNoGradCheck.h"
#include "Fp16WithoutGradScalerCheck.h"
#include "FromBlobLifetimeCheck.h"
#include "GradModeNotRestoredCheck.h"
#include "HistoryInContainerCheck.h"
#include "HookInLoopCheck.h"
#include "LoadInLoopCheck.h"
#include "MisplacedZeroGradCheck.h"
#include "MissingEvalCheck.h"
#include "MissingZeroGradCheck.h"
#include "ModuleToDeviceInLoopCheck.h"
#include "OptimizerInLoopCheck.h"
#include "SyncInLoopCheck.h"
#include "UnneededRetainGraphCheck.h"
#include "UnscaledAccumulatedLossCheck.h"

#include "utils/ClangTidyCompat.h"
#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    auto Core = std::make_shared<AnalysisCore>();
    registerCoreCheck<AccumulatedHistoryCheck>(Factories, "torch-accumulated-history", Core);
    Factories.registerCheck<AutocastNotRestoredCheck>("torch-autocast-not-restored");
    registerCoreCheck<CarriedHistoryCheck>(Factories, "torch-carried-history", Core);
    Factories.registerCheck<DataloaderDefaultsCheck>("torch-dataloader-defaults");
    registerCoreCheck<EmptyCacheInLoopCheck>(Factories, "torch-empty-cache-in-loop", Core);
    registerCoreCheck<EvalWithoutNoGradCheck>(Factories, "torch-eval-without-no-grad", Core);
    Factories.registerCheck<Fp16WithoutGradScalerCheck>("torch-fp16-without-grad-scaler");
    Factories.registerCheck<FromBlobLifetimeCheck>("torch-from-blob-lifetime");
    Factories.registerCheck<GradModeNotRestoredCheck>("torch-grad-mode-not-restored");
    registerCoreCheck<HistoryInContainerCheck>(Factories, "torch-history-in-container", Core);
    Factories.registerCheck<HookInLoopCheck>("torch-hook-in-loop");
    registerCoreCheck<LoadInLoopCheck>(Factories, "torch-load-in-loop", Core);
    registerCoreCheck<MisplacedZeroGradCheck>(Factories, "torch-misplaced-zero-grad", Core);
    registerCoreCheck<MissingEvalCheck>(Factories, "torch-missing-eval", Core);
    registerCoreCheck<MissingZeroGradCheck>(Factories, "torch-missing-zero-grad", Core);
    Factories.registerCheck<ModuleToDeviceInLoopCheck>("torch-module-to-device-in-loop");
    registerCoreCheck<OptimizerInLoopCheck>(Factories, "torch-optimizer-in-loop", Core);
    registerCoreCheck<SyncInLoopCheck>(Factories, "torch-sync-in-loop", Core);
    Factories.registerCheck<UnneededRetainGraphCheck>("torch-unneeded-retain-graph");
    registerCoreCheck<UnscaledAccumulatedLossCheck>(Factories, "torch-unscaled-accumulated-loss",
                                                    Core);
  }
};

} // namespace clang::tidy::torch_check

namespace clang::tidy {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
static ClangTidyModuleRegistry::Add<torch_check::TorchTidyModule>
    X("libtorch-tidy", "Checks for memory mistakes in LibTorch training and evaluation code.");
} // namespace clang::tidy
