// libtorch-tidy runtime: a counting allocator wrapped around LibTorch's CPU
// allocator. Live bytes, peak bytes and the number of allocations of CPU
// tensor storage, counted with relaxed atomics (thread-safe, a few atomic
// operations and one sharded-table update per allocation).
#pragma once

#include <cstdint>

namespace libtorch_tidy {

struct CpuMemoryStats {
  bool installed = false;   // the counting allocator is LibTorch's CPU allocator now
  int64_t live_bytes = 0;   // bytes of CPU storage allocated through it and not yet freed
  int64_t peak_bytes = 0;   // highest live_bytes since the last resetCpuPeak()
  int64_t allocations = 0;  // allocations through it since the process started
  int64_t frees = 0;        // frees of storage it allocated
};

// Makes the counting allocator LibTorch's CPU allocator (c10::SetCPUAllocator
// with a high priority). Nested: each call needs one uninstall. Only storage
// allocated while it is installed is counted; frees of that storage are
// counted whenever they happen, also after uninstall.
void installCountingAllocator();
// Gives LibTorch its previous CPU allocator back when the last install ends.
void uninstallCountingAllocator();
bool countingAllocatorInstalled();

CpuMemoryStats cpuMemoryStats();
// Starts a new peak window: peak_bytes becomes live_bytes.
void resetCpuPeak();

// Installs the counting allocator for the lifetime of the object.
class ScopedCountingAllocator {
 public:
  ScopedCountingAllocator() { installCountingAllocator(); }
  ~ScopedCountingAllocator() { uninstallCountingAllocator(); }
  ScopedCountingAllocator(const ScopedCountingAllocator&) = delete;
  ScopedCountingAllocator& operator=(const ScopedCountingAllocator&) = delete;
};

}  // namespace libtorch_tidy
