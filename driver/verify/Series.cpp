//===--- Series.cpp - libtorch-tidy ---------------------------------------===//

#include "Series.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace libtorch_tidy::verify {

double theilSen(const std::vector<double> &X, const std::vector<double> &Y) {
  std::vector<double> Slopes;
  for (size_t I = 0; I < X.size(); ++I)
    for (size_t J = I + 1; J < X.size(); ++J)
      if (X[J] != X[I])
        Slopes.push_back((Y[J] - Y[I]) / (X[J] - X[I]));
  if (Slopes.empty())
    return 0;
  size_t Mid = Slopes.size() / 2;
  std::nth_element(Slopes.begin(), Slopes.begin() + Mid, Slopes.end());
  double M = Slopes[Mid];
  if (Slopes.size() % 2 == 0) {
    double Lower = *std::max_element(Slopes.begin(), Slopes.begin() + Mid);
    M = (M + Lower) / 2;
  }
  return M;
}

LoopStats analyse(const std::vector<Sample> &Series) {
  LoopStats S;
  size_t Skip = std::min<size_t>(5, Series.size() / 5);
  std::vector<double> X, Bytes, Nodes;
  for (size_t I = Skip; I < Series.size(); ++I) {
    X.push_back(double(Series[I].Iteration));
    Bytes.push_back(Series[I].LiveBytes);
    Nodes.push_back(Series[I].HistoryNodes);
  }
  for (const Sample &Smp : Series)
    S.PeakBytes = std::max(S.PeakBytes, Smp.PeakBytes);
  S.Samples = X.size();
  if (X.size() < 3)
    return S;
  S.BytesPerIteration = theilSen(X, Bytes);
  S.NodesPerIteration = theilSen(X, Nodes);
  S.Growing = S.BytesPerIteration >= GrowthThresholdBytes ||
              S.NodesPerIteration >= GrowthThresholdNodes;
  return S;
}

llvm::Expected<std::map<std::string, std::vector<Sample>>> readProbeReport(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '" + Path + "'");
  auto Json = llvm::json::parse((*Buf)->getBuffer());
  if (!Json)
    return Json.takeError();
  std::map<std::string, std::vector<Sample>> Out;
  const llvm::json::Object *Root = Json->getAsObject();
  const llvm::json::Array *Loops = Root ? Root->getArray("loops") : nullptr;
  if (!Loops)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no \"loops\" array");
  for (const llvm::json::Value &L : *Loops) {
    const llvm::json::Object *O = L.getAsObject();
    if (!O)
      continue;
    std::string Label = O->getString("label").value_or("").str();
    const llvm::json::Array *Samples = O->getArray("samples");
    if (!Samples)
      continue;
    std::vector<Sample> &Series = Out[Label];
    for (const llvm::json::Value &V : *Samples) {
      const llvm::json::Object *SO = V.getAsObject();
      if (!SO)
        continue;
      Sample Smp;
      Smp.Iteration = SO->getInteger("iteration").value_or(int64_t(Series.size()));
      Smp.LiveBytes = SO->getNumber("live_bytes").value_or(0);
      Smp.PeakBytes = SO->getNumber("peak_bytes").value_or(Smp.LiveBytes);
      Smp.HistoryNodes = SO->getNumber("history_nodes").value_or(0);
      Series.push_back(Smp);
    }
  }
  return Out;
}

} // namespace libtorch_tidy::verify
