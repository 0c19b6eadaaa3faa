// Fuzz target: the baseline file (--baseline FILE).
#include "Baseline.h"
#include "FuzzUtil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Path = libtorch_tidy::fuzz::writeInput("baseline.json", Data, Size);
  auto Set = libtorch_tidy::readBaseline(Path);
  if (!Set)
    llvm::consumeError(Set.takeError());
  return 0;
}
