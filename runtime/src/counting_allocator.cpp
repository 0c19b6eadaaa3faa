// The counting CPU allocator. LibTorch's Allocator::raw_allocate requires
// DataPtrs whose context is the data pointer (oneDNN/ideep allocates through
// it), and raw_deallocate frees through whatever allocator is installed at
// that moment. So the wrapper keeps the inner allocator's pointers unchanged
// and remembers size and inner deleter in a sharded table keyed by pointer:
// a pointer it does not know (allocated before install) goes to the inner
// allocator's raw deleter, and pointers it allocated are freed correctly after
// uninstall too, so swapping allocators at any time is safe.
#include <libtorch_tidy/memory.h>

#include "trace.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace libtorch_tidy {
namespace {

// Higher than LibTorch's default CPU allocator (0); reused to restore.
constexpr uint8_t kPriority = 100;

struct Entry {
  size_t bytes;
  c10::DeleterFnPtr deleter;
  uint32_t stack;  // the allocation's stack id (trace mode), trace::kNoStack: not traced
};

struct Shard {
  std::mutex mutex;
  std::unordered_map<void*, Entry> entries;
};

constexpr size_t kShards = 64;

struct State {
  std::array<Shard, kShards> shards;
  std::atomic<int64_t> live{0}, peak{0}, allocations{0}, frees{0};
  std::mutex install_mutex;
  int installs = 0;
  c10::Allocator* inner = nullptr;
};

// Immortal: DataPtr deleters may run during static destruction.
State& state() {
  static State* s = new State;
  return *s;
}

Shard& shardOf(void* p) {
  auto h = reinterpret_cast<uintptr_t>(p);
  return state().shards[(h >> 6 ^ h >> 12) % kShards];
}

void account(int64_t delta) {
  State& s = state();
  int64_t now = s.live.fetch_add(delta, std::memory_order_relaxed) + delta;
  int64_t peak = s.peak.load(std::memory_order_relaxed);
  while (now > peak && !s.peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void countingDelete(void* p) {
  if (p == nullptr) return;
  Shard& shard = shardOf(p);
  Entry e{0, nullptr, 0};
  {
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.entries.find(p);
    if (it != shard.entries.end()) {
      e = it->second;
      shard.entries.erase(it);
    }
  }
  if (e.deleter != nullptr) {
    account(-static_cast<int64_t>(e.bytes));
    if (e.stack != trace::kNoStack) trace::onFree(e.stack, e.bytes);
    state().frees.fetch_add(1, std::memory_order_relaxed);
    e.deleter(p);
    return;
  }
  // Not ours: allocated by the inner allocator before install (raw_deallocate).
  c10::DeleterFnPtr raw = state().inner ? state().inner->raw_deleter() : nullptr;
  TORCH_INTERNAL_ASSERT(raw != nullptr, "libtorch-tidy: freeing a pointer of unknown origin");
  raw(p);
}

// Storage whose inner DataPtr has its own context (not the data pointer).
struct Wrapped {
  c10::DataPtr inner;
  size_t bytes;
  uint32_t stack;
};

void wrappedDelete(void* ctx) {
  auto* w = static_cast<Wrapped*>(ctx);
  account(-static_cast<int64_t>(w->bytes));
  if (w->stack != trace::kNoStack) trace::onFree(w->stack, w->bytes);
  state().frees.fetch_add(1, std::memory_order_relaxed);
  delete w;
}

class CountingAllocator final : public c10::Allocator {
 public:
  // LibTorch < 2.3 declares allocate() const, later versions non-const: both
  // are defined, whichever the base declares is overridden.
  c10::DataPtr allocate(size_t n) const { return allocateImpl(n); }
  c10::DataPtr allocate(size_t n) { return allocateImpl(n); }
  c10::DeleterFnPtr raw_deleter() const override { return &countingDelete; }
  // Pure virtual since LibTorch 2.3; a plain member before.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }

 private:
  static c10::DataPtr allocateImpl(size_t n) {
    State& s = state();
    c10::DataPtr p = s.inner->allocate(n);
    void* data = p.get();
    if (data == nullptr) return p;
    s.allocations.fetch_add(1, std::memory_order_relaxed);
    account(static_cast<int64_t>(n));
    // Trace mode: the allocation's stack (a relaxed load when off).
    uint32_t stack = trace::kNoStack;
    bool traced = trace::enabled.load(std::memory_order_relaxed);
    if (traced) stack = trace::onAllocate(n);
    if (p.get_context() == data && p.get_deleter() != nullptr) {
      c10::DeleterFnPtr deleter = p.get_deleter();
      c10::Device device = p.device();
      Shard& shard = shardOf(data);
      {
        std::lock_guard<std::mutex> lock(shard.mutex);
        shard.entries[data] = Entry{n, deleter, stack};
      }
      p.release_context();
      return c10::DataPtr(data, data, &countingDelete, device);
    }
    c10::Device device = p.device();
    auto* w = new Wrapped{std::move(p), n, stack};
    return c10::DataPtr(data, w, &wrappedDelete, device);
  }
};

CountingAllocator& countingAllocator() {
  static CountingAllocator* a = new CountingAllocator;
  return *a;
}

}  // namespace

void trace::forEachTracedAllocation(const std::function<void(const void*, size_t, uint32_t)>& visit) {
  for (Shard& shard : state().shards) {
    std::vector<std::pair<void*, Entry>> entries;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      for (const auto& [p, e] : shard.entries)
        if (e.stack != trace::kNoStack) entries.emplace_back(p, e);
    }
    for (const auto& [p, e] : entries) visit(p, e.bytes, e.stack);
  }
}

void installCountingAllocator() {
  State& s = state();
  trace::configureFromEnvironment();
  std::lock_guard<std::mutex> lock(s.install_mutex);
  if (s.installs++ > 0) return;
  c10::Allocator* current = c10::GetCPUAllocator();
  if (current == &countingAllocator()) return;
  if (s.inner == nullptr) s.inner = current;
  c10::SetCPUAllocator(&countingAllocator(), kPriority);
}

void uninstallCountingAllocator() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.install_mutex);
  if (s.installs == 0 || --s.installs > 0) return;
  if (c10::GetCPUAllocator() == &countingAllocator()) c10::SetCPUAllocator(s.inner, kPriority);
}

bool countingAllocatorInstalled() { return c10::GetCPUAllocator() == &countingAllocator(); }

CpuMemoryStats cpuMemoryStats() {
  State& s = state();
  CpuMemoryStats out;
  out.installed = countingAllocatorInstalled();
  out.live_bytes = s.live.load(std::memory_order_relaxed);
  out.peak_bytes = s.peak.load(std::memory_order_relaxed);
  out.allocations = s.allocations.load(std::memory_order_relaxed);
  out.frees = s.frees.load(std::memory_order_relaxed);
  return out;
}

void resetCpuPeak() {
  State& s = state();
  s.peak.store(s.live.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

}  // namespace libtorch_tidy
