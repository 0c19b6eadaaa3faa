//===--- Shards.h - One CI job's part of the translation units ------------===//
//
// `--shard I/N` (or GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, both 1-based) keeps
// the I-th of N parts of the translation units to analyse. The parts are
// balanced by cost (the longest first, each to the lightest part so far:
// greedy LPT), the cost of a unit being the seconds the result cache
// recorded for it, else an estimate (a LibTorch unit ~10 s, another ~2 s).
// The split is deterministic: every job that sees the same compile database,
// tree and cache computes the same parts, so CI jobs that restore one cache
// snapshot (or none) cover each unit exactly once. Each job's JSON or SARIF
// report names its part; `libtorch-tidy merge` checks that the parts fit.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_SHARDS_H
#define LIBTORCH_TIDY_DRIVER_SHARDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct ShardSpec {
  unsigned Index = 1; // 1-based
  unsigned Total = 1;
};

/// Parses "I/N" with 1 <= I <= N; Source names it in errors ("--shard").
llvm::Expected<ShardSpec> parseShard(llvm::StringRef Text, llvm::StringRef Source);

/// The shard of $CI_NODE_INDEX/$CI_NODE_TOTAL (GitLab's parallel:), when both
/// are set; an error when they are malformed.
llvm::Expected<std::optional<ShardSpec>> shardFromEnvironment();

/// The indices (ascending) of the units of Shard. Keys order equal costs.
std::vector<size_t> shardUnits(llvm::ArrayRef<std::string> Keys, llvm::ArrayRef<double> Costs,
                               ShardSpec Shard);

} // namespace libtorch_tidy

#endif
