//===--- Series.cpp - libtorch-tidy ---------------------------------------===//

#include "Series.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
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

static std::string perIteration(double V, bool Bytes) {
  if (Bytes) {
    double A = V < 0 ? -V : V;
    if (A >= 1024.0 * 1024.0)
      return llvm::formatv("+{0:F2} MiB/it", V / (1024.0 * 1024.0)).str();
    if (A >= 1024.0)
      return llvm::formatv("+{0:F1} KiB/it", V / 1024.0).str();
    return llvm::formatv("+{0:F0} B/it", V).str();
  }
  return llvm::formatv(V == double(int64_t(V)) ? "+{0:F0} nodes/it" : "+{0:F1} nodes/it", V).str();
}

/// The report's "evidence" of a loop (libtorch-tidy-runtime/1 with evidence).
static void readEvidence(const llvm::json::Object *E, LoopStats &S) {
  if (!E)
    return;
  S.Culprit = E->getString("culprit").value_or("").str();
  if (const llvm::json::Object *Sites = E->getObject("allocation_sites"))
    if (const llvm::json::Array *A = Sites->getArray("sites"))
      for (const llvm::json::Value &V : *A)
        if (const llvm::json::Object *O = V.getAsObject())
          S.Evidence.push_back({O->getString("site").value_or("?").str(),
                                perIteration(O->getNumber("bytes_per_iteration").value_or(0), true), true});
  if (const llvm::json::Object *G = E->getObject("graph"))
    if (const llvm::json::Array *A = G->getArray("growing_types"))
      for (const llvm::json::Value &V : *A)
        if (const llvm::json::Object *O = V.getAsObject())
          S.Evidence.push_back({O->getString("type").value_or("?").str(),
                                perIteration(O->getNumber("per_iteration").value_or(0), false), false});
  if (const llvm::json::Array *M = E->getArray("messages"))
    for (const llvm::json::Value &V : *M)
      if (auto Msg = V.getAsString())
        S.Messages.push_back(Msg->str());
}

std::vector<std::pair<Grown, bool>> grownAfterFix(const LoopStats &Before, const LoopStats &After) {
  std::vector<std::pair<Grown, bool>> Out;
  for (const Grown &G : Before.Evidence) {
    bool Still = After.Growing && llvm::any_of(After.Evidence, [&](const Grown &A) {
                   return A.Site == G.Site && A.What == G.What;
                 });
    Out.emplace_back(G, Still);
  }
  return Out;
}

std::string grownText(const std::vector<Grown> &Items, size_t Max) {
  std::string Out;
  for (size_t I = 0; I < Items.size() && I < Max; ++I)
    Out += (I ? ", " : "") + Items[I].What + " " + Items[I].PerIter;
  if (Items.size() > Max)
    Out += llvm::formatv(", +{0} more", Items.size() - Max).str();
  return Out;
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
    readEvidence(O->getObject("evidence"), S);
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
