//===--- Series.cpp - libtorch-tidy ---------------------------------------===//

#include "Series.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace libtorch_tidy::verify {

static Trend readTrend(const llvm::json::Object *Analysis, llvm::StringRef Key) {
  Trend T;
  const llvm::json::Object *O = Analysis ? Analysis->getObject(Key) : nullptr;
  if (!O)
    return T;
  T.Measured = true;
  T.Slope = O->getNumber("slope_per_iteration").value_or(0);
  T.Growing = O->getBoolean("growing").value_or(false);
  return T;
}

llvm::Expected<std::map<unsigned, LoopStats>> readProbeReport(llvm::StringRef Path, bool Cuda) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '" + Path + "'");
  auto Json = llvm::json::parse((*Buf)->getBuffer());
  if (!Json)
    return Json.takeError();
  const llvm::json::Object *Root = Json->getAsObject();
  if (!Root || Root->getString("format").value_or("") != "libtorch-tidy-runtime/1")
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "not a libtorch-tidy-runtime/1 report");
  double BytesThreshold = 1024, HistoryThreshold = 1;
  if (const llvm::json::Object *Th = Root->getObject("thresholds")) {
    BytesThreshold = Th->getNumber("bytes_per_iteration").value_or(BytesThreshold);
    HistoryThreshold = Th->getNumber("history_per_iteration").value_or(HistoryThreshold);
  }
  std::map<unsigned, LoopStats> Out;
  const llvm::json::Array *Loops = Root->getArray("loops");
  if (!Loops)
    return Out;
  for (const llvm::json::Value &L : *Loops) {
    const llvm::json::Object *O = L.getAsObject();
    if (!O)
      continue;
    llvm::StringRef Name = O->getString("name").value_or("");
    unsigned Line = 0;
    if (Name.rsplit(':').second.getAsInteger(10, Line))
      continue;
    LoopStats S;
    S.Present = true;
    S.BytesThreshold = BytesThreshold;
    S.HistoryThreshold = HistoryThreshold;
    const llvm::json::Object *A = O->getObject("analysis");
    S.Growing = A && A->getString("verdict").value_or("") == "growing";
    S.Bytes = readTrend(A, Cuda ? "cuda_bytes" : "cpu_bytes");
    if (Cuda && !S.Bytes.Measured)
      S.Bytes = readTrend(A, "cpu_bytes");
    S.History = readTrend(A, "history_nodes");
    S.PeakBytes = A ? A->getNumber(Cuda ? "cuda_peak_bytes" : "peak_bytes").value_or(0) : 0;
    if (const llvm::json::Array *Samples = O->getArray("samples"))
      for (const llvm::json::Value &V : *Samples)
        if (const llvm::json::Object *SO = V.getAsObject()) {
          Sample Smp;
          Smp.Iteration = SO->getInteger("iteration").value_or(int64_t(S.Samples.size()));
          auto Cu = SO->getNumber("cuda_allocated_bytes");
          Smp.LiveBytes = Cuda && Cu ? *Cu : SO->getNumber("cpu_live_bytes").value_or(0);
          S.Samples.push_back(Smp);
        }
    Out[Line] = std::move(S);
  }
  return Out;
}

std::string compareLoops(const LoopStats &Before, const LoopStats &After) {
  auto Faster = [](const Trend &X, const Trend &Y, double Threshold) {
    return Y.Growing && Y.Slope > 1.25 * std::max(X.Slope, 0.0) + Threshold;
  };
  if (!After.Growing)
    return Before.Growing ? "fixed" : "no growth observed";
  if (!Before.Growing || Faster(Before.Bytes, After.Bytes, After.BytesThreshold) ||
      Faster(Before.History, After.History, After.HistoryThreshold))
    return "regressed";
  return "not fixed";
}

} // namespace libtorch_tidy::verify
