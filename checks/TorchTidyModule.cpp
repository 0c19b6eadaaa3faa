//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//
//
// Registers the torch- checks with clang-tidy (alphabetical order).
//
//===----------------------------------------------------------------------===//

#include "EvalWithoutNoGradCheck.h"
#include "MisplacedZeroGradCheck.h"
#include "MissingZeroGradCheck.h"
#include "OptimizerInLoopCheck.h"
#include "SyncInLoopCheck.h"
#include "UnscaledAccumulatedLossCheck.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::torch_check {

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<EvalWithoutNoGradCheck>("torch-eval-without-no-grad");
    Factories.registerCheck<MisplacedZeroGradCheck>("torch-misplaced-zero-grad");
    Factories.registerCheck<MissingZeroGradCheck>("torch-missing-zero-grad");
    Factories.registerCheck<OptimizerInLoopCheck>("torch-optimizer-in-loop");
    Factories.registerCheck<SyncInLoopCheck>("torch-sync-in-loop");
    Factories.registerCheck<UnscaledAccumulatedLossCheck>("torch-unscaled-accumulated-loss");
  }
};

} // namespace clang::tidy::torch_check

namespace clang::tidy {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
static ClangTidyModuleRegistry::Add<torch_check::TorchTidyModule>
    X("torch-module", "Checks for memory mistakes in LibTorch training and evaluation code.");
} // namespace clang::tidy
