// Fuzz target: `git diff -U0` output as --diff reads it.
#include "GitDiff.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Diff(reinterpret_cast<const char *>(Data), Size);
  libtorch_tidy::ChangedLines Lines = libtorch_tidy::parseUnifiedDiff(Diff, "/repo");
  for (const auto &F : Lines.Files)
    for (const auto &[First, Last] : F.second) {
      if (First > Last) // a range is never empty or reversed
        __builtin_trap();
      (void)Lines.contains(F.first(), First);
    }
  return 0;
}
