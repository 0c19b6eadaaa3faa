//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//
//
// Registers the torch- checks with clang-tidy (alphabetical order). The
// checks on the analysis core share one AnalysisCore per clang-tidy run
// (utils/CoreCheck.h): their factories ask RunCores for it.
//
// A run is a ClangTidyContext. clang-tidy has one per process and creates the
// checks once per translation unit; clangd (libtorch-tidy-clangd, clangd/)
// keeps the factories for the whole process and creates a context and its
// checks for every build of every open file, on one thread per file, several
// at once. The factories therefore capture no core: the first check created
// for a context creates one, the others of that context get the same, and it
// goes with the last of them. Two files built at once never share a core.
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

#include <map>
#include <mutex>

namespace clang::tidy::torch_check {

/// The analysis core of each live clang-tidy run (ClangTidyContext), shared
/// by the checks created for it. Thread-safe: clangd creates the checks of
/// several runs at once.
class RunCores {
public:
  std::shared_ptr<AnalysisCore> coreFor(const ClangTidyContext *Run) {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::weak_ptr<AnalysisCore> &Slot = Cores[Run];
    if (std::shared_ptr<AnalysisCore> Live = Slot.lock())
      return Live;
    // A run whose checks are all gone (a context's address reused, or
    // clang-tidy's next translation unit) starts afresh; forget the others
    // that ended so the map stays as small as the live runs.
    for (auto It = Cores.begin(); It != Cores.end();)
      It = It->second.expired() && It->first != Run ? Cores.erase(It) : std::next(It);
    auto Core = std::make_shared<AnalysisCore>();
    Slot = Core;
    return Core;
  }

private:
  std::mutex Mutex;
  std::map<const ClangTidyContext *, std::weak_ptr<AnalysisCore>> Cores;
};

/// Registers \p CheckT as \p Name, constructed with its run's core.
template <typename CheckT>
static void registerRunCheck(ClangTidyCheckFactories &Factories, llvm::StringRef Name,
                              const std::shared_ptr<RunCores> &Cores) {
  Factories.registerCheckFactory(Name, [Cores](llvm::StringRef N, ClangTidyContext *Ctx) {
    return std::make_unique<CheckT>(N, Ctx, Cores->coreFor(Ctx));
  });
}

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    auto Cores = std::make_shared<RunCores>();
    registerRunCheck<AccumulatedHistoryCheck>(Factories, "torch-accumulated-history", Cores);
    registerRunCheck<AutocastNotRestoredCheck>(Factories, "torch-autocast-not-restored", Cores);
    registerRunCheck<CarriedHistoryCheck>(Factories, "torch-carried-history", Cores);
    registerRunCheck<CudaStreamNotRestoredCheck>(Factories, "torch-cuda-stream-not-restored",
                                                  Cores);
    registerRunCheck<DataloaderDefaultsCheck>(Factories, "torch-dataloader-defaults", Cores);
    registerRunCheck<ElementwiseAccessInLoopCheck>(Factories, "torch-elementwise-access-in-loop",
                                                    Cores);
    registerRunCheck<EmptyCacheInLoopCheck>(Factories, "torch-empty-cache-in-loop", Cores);
    registerRunCheck<EvalWithoutNoGradCheck>(Factories, "torch-eval-without-no-grad", Cores);
    registerRunCheck<Fp16WithoutGradScalerCheck>(Factories, "torch-fp16-without-grad-scaler", Cores);
    registerRunCheck<FromBlobDtypeCheck>(Factories, "torch-from-blob-dtype", Cores);
    registerRunCheck<FromBlobLifetimeCheck>(Factories, "torch-from-blob-lifetime", Cores);
    registerRunCheck<GradModeNotRestoredCheck>(Factories, "torch-grad-mode-not-restored", Cores);
    registerRunCheck<HistoryInContainerCheck>(Factories, "torch-history-in-container", Cores);
    registerRunCheck<HookInLoopCheck>(Factories, "torch-hook-in-loop", Cores);
    registerRunCheck<HostTensorThenDeviceCheck>(Factories, "torch-host-tensor-then-device", Cores);
    registerRunCheck<LoadInLoopCheck>(Factories, "torch-load-in-loop", Cores);
    registerRunCheck<MisplacedZeroGradCheck>(Factories, "torch-misplaced-zero-grad", Cores);
    registerRunCheck<MissingEvalCheck>(Factories, "torch-missing-eval", Cores);
    registerRunCheck<MissingZeroGradCheck>(Factories, "torch-missing-zero-grad", Cores);
    registerRunCheck<ModuleToDeviceInLoopCheck>(Factories, "torch-module-to-device-in-loop", Cores);
    registerRunCheck<OptimizerInLoopCheck>(Factories, "torch-optimizer-in-loop", Cores);
    registerRunCheck<SyncInLoopCheck>(Factories, "torch-sync-in-loop", Cores);
    registerRunCheck<UnneededRetainGraphCheck>(Factories, "torch-unneeded-retain-graph", Cores);
    registerRunCheck<UnscaledAccumulatedLossCheck>(Factories, "torch-unscaled-accumulated-loss",
                                                    Cores);
    registerRunCheck<UnsynchronizedTimingCheck>(Factories, "torch-unsynchronized-timing", Cores);
  }
};

} // namespace clang::tidy::torch_check

namespace clang::tidy {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
static ClangTidyModuleRegistry::Add<torch_check::TorchTidyModule>
    X("libtorch-tidy", "Checks for memory mistakes in LibTorch training and evaluation code.");
} // namespace clang::tidy
