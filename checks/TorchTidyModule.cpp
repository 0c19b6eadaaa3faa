//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//
//
// Registers the torch- checks with clang-tidy (alphabetical order).
//
//===----------------------------------------------------------------------===//

#include "AccumulatedHistoryCheck.h"
#include "CarriedHistoryCheck.h"
#include "EvalWithoutNoGradCheck.h"
#include "HistoryInContainerCheck.h"

#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"

namespace clang::tidy::torch_check {

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<AccumulatedHistoryCheck>("torch-accumulated-history");
    Factories.registerCheck<CarriedHistoryCheck>("torch-carried-history");
    Factories.registerCheck<EvalWithoutNoGradCheck>("torch-eval-without-no-grad");
    Factories.registerCheck<HistoryInContainerCheck>("torch-history-in-container");
  }
};

} // namespace clang::tidy::torch_check

namespace clang::tidy {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
static ClangTidyModuleRegistry::Add<torch_check::TorchTidyModule>
    X("torch-module", "Checks for memory mistakes in LibTorch training and evaluation code.");
} // namespace clang::tidy
