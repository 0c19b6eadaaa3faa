// Fuzz target: a results-cache entry on disk (BUILD/.libtorch-tidy-cache),
// read back by lookup() and, when accepted, its exported fixes parsed as the
// driver does.
#include "FuzzUtil.h"
#include "ResultCache.h"
#include "TidyRunner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace libtorch_tidy;
  static const std::string Key = "ab0123456789";
  fuzz::writeInput("cache/results/ab/" + Key + ".json", Data, Size);
  FileHasher Hasher;
  ResultCache Cache(fuzz::workDir() + "/cache", 0, Hasher);
  (void)Cache.recordedSeconds(Key);
  if (auto E = Cache.lookup(Key)) {
    auto Findings = parseExportedFixes(E->ExportedFixes);
    if (!Findings)
      llvm::consumeError(Findings.takeError());
  }
  return 0;
}
