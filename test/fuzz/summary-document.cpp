// Fuzz target: a summaries document, as the plugin and the driver read it (a
// unit's, from the results cache; a linked one, `libtorch-tidy summarize -o`
// or the option TorchSummaries). An accepted document is written back and
// must read back to the same text; it is then linked (merged, chains of calls
// and callers' guards composed) and asked what a unit depends on.
#include "SummaryModel.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace clang::tidy::torch_check;
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto Doc = parseSummaryDocument(Text);
  if (!Doc) {
    llvm::consumeError(Doc.takeError());
    return 0;
  }
  std::string Once = Doc->toText();
  auto Back = parseSummaryDocument(Once);
  if (!Back || Back->toText() != Once)
    std::abort(); // what it writes, it must read back unchanged
  SummaryDocument Linked;
  Linked.merge(*Doc);
  Linked.merge(*Back);
  Linked.composeCalls();
  (void)Linked.dependencies(*Doc);
  (void)Linked.changesAnalysisOf(*Doc);
  (void)Linked.toText();
  return 0;
}
