// Internal: the counting allocator's hooks into the allocation tracer.
#pragma once

#include <libtorch_tidy/evidence.h>

#include <atomic>
#include <functional>
#include <vector>
#include <cstddef>
#include <cstdint>

namespace libtorch_tidy {
namespace trace {

// The stack id of an allocation made while tracing was off.
constexpr uint32_t kNoStack = UINT32_MAX;

// Read by the counting allocator on every allocation: tracing costs nothing
// (one relaxed load) when off.
extern std::atomic<bool> enabled;
// Reads LIBTORCH_TIDY_TRACE once (called when the counting allocator is installed).
void configureFromEnvironment();
// The stack id of a new allocation of `bytes` (0: untraced, the buffer is full).
uint32_t onAllocate(size_t bytes);
// The allocation of `bytes` made under stack `id` was freed.
void onFree(uint32_t id, size_t bytes);

// Captures the current stack (innermost first, skipping `skip` frames of the
// caller); 0 frames when the runtime has no tracer.
int captureStack(void** frames, int max, int skip);
// Symbolizes raw frames (return addresses).
std::vector<Frame> symbolize(void* const* frames, int count);
// Visits the live allocations made with tracing on (counting allocator).
void forEachTracedAllocation(const std::function<void(const void* data, size_t bytes, uint32_t stack)>& visit);

}  // namespace trace
}  // namespace libtorch_tidy
