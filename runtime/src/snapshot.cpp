// Memory snapshots in memory_viz's pickle format (see snapshot.h). The pickle
// is written with LibTorch's own Pickler over Any-typed dicts and lists, as
// LibTorch 2.x's torch::cuda::_memory_snapshot_pickled does: the result holds
// only plain dicts, lists, tuples, strings and ints.
#include <libtorch_tidy/snapshot.h>

#include "trace.h"

#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/serialization/pickler.h>
#include <torch/version.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#if LIBTORCH_TIDY_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define LIBTORCH_TIDY_CUDA_SNAPSHOT_PICKLED 1
#include <torch/csrc/cuda/memory_snapshot.h>
#else
#define LIBTORCH_TIDY_CUDA_SNAPSHOT_PICKLED 0
#endif
#endif

namespace libtorch_tidy {
namespace {

using Dict = c10::Dict<c10::IValue, c10::IValue>;
using List = c10::List<c10::IValue>;

Dict newDict() { return Dict(c10::AnyType::get(), c10::AnyType::get()); }
List newList() { return List(c10::AnyType::get()); }

List framesList(const std::vector<Frame>& frames) {
  List out = newList();
  for (const Frame& f : frames) {
    Dict d = newDict();
    d.insert("name", f.function);
    d.insert("filename", f.file.empty() ? std::string("??") : f.file);
    d.insert("line", static_cast<int64_t>(f.line));
    out.push_back(d);
  }
  return out;
}

}  // namespace

std::string snapshotPickle(const Snapshot& snapshot) {
  List segments = newList();
  for (const SnapshotSegment& s : snapshot.segments) {
    Dict d = newDict();
    d.insert("device", s.device);
    d.insert("address", s.address);
    d.insert("total_size", s.total_size);
    d.insert("allocated_size", s.allocated_size);
    d.insert("active_size", s.active_size);
    d.insert("requested_size", s.requested_size);
    d.insert("stream", s.stream);
    d.insert("segment_type", s.segment_type);
    d.insert("segment_pool_id", c10::ivalue::Tuple::create({int64_t(0), int64_t(0)}));
    d.insert("expandable", false);
    d.insert("frames", newList());
    List blocks = newList();
    for (const SnapshotBlock& b : s.blocks) {
      Dict bd = newDict();
      bd.insert("address", b.address);
      bd.insert("size", b.size);
      bd.insert("requested_size", b.requested_size);
      bd.insert("state", b.state);
      bd.insert("frames", framesList(b.frames));
      blocks.push_back(bd);
    }
    d.insert("blocks", blocks);
    segments.push_back(d);
  }
  List traces = newList();
  for (const auto& device : snapshot.device_traces) {
    List entries = newList();
    for (const SnapshotTraceEntry& e : device) {
      Dict d = newDict();
      d.insert("action", e.action);
      d.insert("addr", e.addr);
      d.insert("size", e.size);
      d.insert("stream", e.stream);
      d.insert("frames", framesList(e.frames));
      entries.push_back(d);
    }
    traces.push_back(entries);
  }
  Dict root = newDict();
  root.insert("segments", segments);
  root.insert("device_traces", traces);
  // A bare pickle without type tags (tag_aggregates = false), as LibTorch
  // 2.x writes its own snapshot: plain Python dicts and lists when loaded.
  std::string out;
  torch::jit::Pickler pickler([&](const char* data, size_t size) { out.append(data, size); }, nullptr, nullptr,
                              nullptr, nullptr, /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(root);
  pickler.stop();
  return out;
}

Snapshot cpuTraceSnapshot() {
  Snapshot out;
  std::vector<std::pair<SnapshotSegment, uint32_t>> live;
  trace::forEachTracedAllocation([&](const void* data, size_t bytes, uint32_t stack) {
    SnapshotSegment s;
    s.address = static_cast<int64_t>(reinterpret_cast<uintptr_t>(data));
    s.total_size = s.allocated_size = s.active_size = s.requested_size = static_cast<int64_t>(bytes);
    SnapshotBlock b;
    b.address = s.address;
    b.size = b.requested_size = s.total_size;
    s.blocks.push_back(std::move(b));
    live.emplace_back(std::move(s), stack);
  });
  std::sort(live.begin(), live.end(), [](const auto& a, const auto& b) { return a.first.address < b.first.address; });
  std::map<uint32_t, std::vector<Frame>> stacks;  // symbolized once per stack
  for (auto& [segment, stack] : live) {
    auto it = stacks.find(stack);
    if (it == stacks.end()) it = stacks.emplace(stack, traceStack(stack)).first;
    segment.blocks.front().frames = it->second;
    out.segments.push_back(std::move(segment));
  }
  out.device_traces.resize(1);
  return out;
}

bool writeFile(const std::string& path, const std::string& bytes, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok && error) *error = "cannot write " + path;
  return ok;
}

#if LIBTORCH_TIDY_WITH_CUDA

bool cudaSnapshotCompiled() { return true; }

#if LIBTORCH_TIDY_CUDA_SNAPSHOT_PICKLED

void recordCudaHistory() {
  // The snapshot's C++ frames are named when it is taken. LibTorch's default
  // symbolizer (dladdr) names only exported symbols, so the program's own
  // functions read "??"; its DWARF reader ("fast") names them with file and
  // line. A mode the user set is kept.
  ::setenv("TORCH_SYMBOLIZE_MODE", "fast", /*overwrite=*/0);
  // enabled, context, stacks ("all": C++ frames too), entries of the trace ring.
  torch::cuda::_record_memory_history(std::string("all"), std::string("all"), std::string("all"), size_t(100000));
}

bool writeCudaSnapshot(const std::string& path, std::string* error) {
  try {
    return writeFile(path, torch::cuda::_memory_snapshot_pickled(), error);
  } catch (const std::exception& e) {
    if (error) *error = std::string("cannot read the CUDA snapshot: ") + e.what();
    return false;
  }
}

#else  // LibTorch 1.13: build the pickle from CUDACachingAllocator::snapshot()

namespace {

struct StackContext : c10::cuda::CUDACachingAllocator::Context {
  std::vector<void*> frames;
};

std::unique_ptr<c10::cuda::CUDACachingAllocator::Context> recordStack() {
  auto c = std::make_unique<StackContext>();
  void* frames[48];
  int n = trace::captureStack(frames, 48, 1);
  c->frames.assign(frames, frames + n);
  return c;
}

}  // namespace

void recordCudaHistory() { c10::cuda::CUDACachingAllocator::setContextRecorder(&recordStack); }

bool writeCudaSnapshot(const std::string& path, std::string* error) {
  Snapshot out;
  try {
    for (const auto& seg : c10::cuda::CUDACachingAllocator::snapshot()) {
      SnapshotSegment s;
      s.device = seg.device;
      s.address = seg.address;
      s.total_size = seg.total_size;
      s.allocated_size = seg.allocated_size;
      s.active_size = seg.active_size;
      s.requested_size = seg.allocated_size;
      s.stream = static_cast<int64_t>(reinterpret_cast<uintptr_t>(seg.stream));
      s.segment_type = seg.is_large ? "large" : "small";
      int64_t address = seg.address;
      for (const auto& block : seg.blocks) {
        SnapshotBlock b;
        b.address = address;
        b.size = block.size;
        b.requested_size = block.history ? static_cast<int64_t>(block.history->real_size) : block.size;
        b.state = block.allocated ? "active_allocated" : block.active ? "active_pending_free" : "inactive";
        if (block.history)
          if (auto* c = dynamic_cast<StackContext*>(block.history->context.get()))
            b.frames = trace::symbolize(c->frames.data(), static_cast<int>(c->frames.size()));
        address += block.size;
        s.blocks.push_back(std::move(b));
      }
      out.segments.push_back(std::move(s));
    }
  } catch (const std::exception& e) {
    if (error) *error = std::string("cannot read the CUDA snapshot: ") + e.what();
    return false;
  }
  int64_t devices = 0;
  for (const SnapshotSegment& s : out.segments) devices = std::max(devices, s.device + 1);
  out.device_traces.resize(std::max<int64_t>(devices, 1));
  return writeFile(path, snapshotPickle(out), error);
}

#endif

#else

bool cudaSnapshotCompiled() { return false; }
void recordCudaHistory() {}
bool writeCudaSnapshot(const std::string&, std::string* error) {
  if (error) *error = "no CUDA snapshot: this runtime was built against a LibTorch without CUDA";
  return false;
}

#endif

}  // namespace libtorch_tidy
