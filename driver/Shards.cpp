//===--- Shards.cpp -------------------------------------------------------===//
#include "Shards.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Process.h"
#include <algorithm>
#include <numeric>

namespace libtorch_tidy {

llvm::Expected<ShardSpec> parseShard(llvm::StringRef Text, llvm::StringRef Source) {
  auto [I, N] = Text.split('/');
  ShardSpec S;
  if (I.trim().getAsInteger(10, S.Index) || N.trim().getAsInteger(10, S.Total) || S.Total == 0 ||
      S.Index == 0 || S.Index > S.Total)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s %s: not a shard I/N with 1 <= I <= N",
                                   Source.str().c_str(), Text.str().c_str());
  return S;
}

llvm::Expected<std::optional<ShardSpec>> shardFromEnvironment() {
  auto Index = llvm::sys::Process::GetEnv("CI_NODE_INDEX");
  auto Total = llvm::sys::Process::GetEnv("CI_NODE_TOTAL");
  if (!Index || !Total)
    return std::nullopt;
  auto S = parseShard(*Index + "/" + *Total, "CI_NODE_INDEX/CI_NODE_TOTAL");
  if (!S)
    return S.takeError();
  return std::optional<ShardSpec>(*S);
}

std::vector<size_t> shardUnits(llvm::ArrayRef<std::string> Keys, llvm::ArrayRef<double> Costs,
                               ShardSpec Shard) {
  std::vector<size_t> Order(Keys.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    if (Costs[A] != Costs[B])
      return Costs[A] > Costs[B];
    return Keys[A] < Keys[B];
  });
  std::vector<double> Load(Shard.Total, 0);
  std::vector<size_t> Mine;
  for (size_t U : Order) {
    size_t Lightest = std::min_element(Load.begin(), Load.end()) - Load.begin();
    Load[Lightest] += Costs[U];
    if (Lightest + 1 == Shard.Index)
      Mine.push_back(U);
  }
  std::sort(Mine.begin(), Mine.end());
  return Mine;
}

} // namespace libtorch_tidy
