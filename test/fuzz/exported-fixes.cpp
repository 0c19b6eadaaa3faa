// Fuzz target: clang-tidy's --export-fixes YAML, as the driver parses it from
// clang-tidy and from its cache entries.
#include "TidyRunner.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Yaml(reinterpret_cast<const char *>(Data), Size);
  auto Findings = libtorch_tidy::parseExportedFixes(Yaml);
  if (!Findings)
    llvm::consumeError(Findings.takeError());
  return 0;
}
