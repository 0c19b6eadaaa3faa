// libtorch-tidy runtime: memory snapshots in the pickle format of PyTorch's
// memory_viz (https://pytorch.org/memory_viz, torch.cuda._memory_viz), the
// format of torch.cuda.memory._snapshot() / _dump_snapshot():
//   {"segments": [{"device", "address", "total_size", "allocated_size",
//                  "active_size", "requested_size", "stream", "segment_type",
//                  "blocks": [{"address", "size", "requested_size", "state",
//                              "frames": [{"name", "filename", "line"}]}]}],
//    "device_traces": [[{"action", "addr", "size", "stream", "frames"}]]}
// - CUDA: the caching allocator's own snapshot. LibTorch >= 2.1 writes it
//   itself (torch::cuda::_memory_snapshot_pickled); with 1.13 the runtime
//   builds it from c10::cuda::CUDACachingAllocator::snapshot() (segments and
//   blocks; stacks when recordCudaHistory() ran: 1.13 records a context per
//   allocation through setContextRecorder; no device trace).
// - CPU (trace mode): the live allocations of the counting allocator, one
//   segment each, with the stack recorded at allocation.
#pragma once

#include <libtorch_tidy/evidence.h>

#include <cstdint>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct SnapshotBlock {
  int64_t address = 0;
  int64_t size = 0;
  int64_t requested_size = 0;
  std::string state = "active_allocated";  // active_allocated, active_pending_free or inactive
  std::vector<Frame> frames;               // innermost first
};

struct SnapshotSegment {
  int64_t device = 0;
  int64_t address = 0;
  int64_t total_size = 0;
  int64_t allocated_size = 0;
  int64_t active_size = 0;
  int64_t requested_size = 0;
  int64_t stream = 0;
  std::string segment_type = "large";  // large or small (pool)
  std::vector<SnapshotBlock> blocks;
};

struct SnapshotTraceEntry {
  std::string action;  // alloc, free_requested, free_completed, segment_alloc, segment_free, ...
  int64_t addr = 0;
  int64_t size = 0;
  int64_t stream = 0;
  std::vector<Frame> frames;
};

struct Snapshot {
  std::vector<SnapshotSegment> segments;
  std::vector<std::vector<SnapshotTraceEntry>> device_traces;  // one list per device
};

// The snapshot as the bytes of a pickle memory_viz reads (plain dicts, lists,
// strings and ints: loadable with pickle.load, no torch classes).
std::string snapshotPickle(const Snapshot& snapshot);

// The traced live CPU allocations (trace mode; empty otherwise).
Snapshot cpuTraceSnapshot();

// True when the runtime can read the CUDA caching allocator's snapshot.
bool cudaSnapshotCompiled();
// Starts recording a stack per CUDA allocation (LibTorch 2.x:
// torch::cuda::_record_memory_history; 1.13: a context recorder). No-op
// without CUDA.
void recordCudaHistory();
// Writes the CUDA caching allocator's snapshot to `path`; false (and `error`)
// without CUDA or when the file cannot be written.
bool writeCudaSnapshot(const std::string& path, std::string* error);
// Writes `bytes` to `path`; false (and `error`) when it cannot.
bool writeFile(const std::string& path, const std::string& bytes, std::string* error);

}  // namespace libtorch_tidy
