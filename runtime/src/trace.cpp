// Allocation sites: with tracing on, each CPU allocation through the counting
// allocator records a short stack (libbacktrace's backtrace_simple over the
// compiler's unwinder: no allocation, no debug information needed) interned in
// a table of distinct stacks; each stack keeps the live bytes of its
// allocations. Symbolization happens only when a report is written
// (libbacktrace's backtrace_pcinfo: function, file and line from the DWARF
// line tables, one frame per inlined call; the symbol table without them).
// libbacktrace is GCC's (libgcc-<version>-dev), linked statically.
#include "trace.h"

#include <libtorch_tidy/evidence.h>

#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef LIBTORCH_TIDY_WITH_TRACE
#define LIBTORCH_TIDY_WITH_TRACE 0
#endif
#if LIBTORCH_TIDY_WITH_TRACE
#include <backtrace.h>
#include <cxxabi.h>
#include <dlfcn.h>
#endif

namespace libtorch_tidy {
namespace trace {

std::atomic<bool> enabled{false};

namespace {

constexpr int kMaxDepth = 64;
constexpr uint32_t kHardCap = 1 << 16;  // slots of the stack table, id 0 included

struct Slot {
  std::atomic<int64_t> live{0};
  uint64_t hash = 0;
  int depth = 0;
  std::unique_ptr<void*[]> frames;
};

struct Table {
  std::mutex mutex;
  std::unordered_map<uint64_t, uint32_t> ids;  // hash -> id (a hash collision merges two stacks)
  std::unique_ptr<Slot[]> slots{new Slot[kHardCap]};
  std::atomic<uint32_t> used{1};                // slot 0: untraced (the buffer was full)
  std::atomic<uint32_t> limit{4096};
  std::atomic<int> depth{48};
  std::atomic<bool> full{false};
};

// Immortal: frees may happen during static destruction.
Table& table() {
  static Table* t = new Table;
  return *t;
}

uint64_t hashFrames(void* const* frames, int n) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; ++i) {
    h ^= reinterpret_cast<uintptr_t>(frames[i]);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

void configureFromEnvironment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* v = std::getenv("LIBTORCH_TIDY_TRACE");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0) return;
    if (!allocationTracingCompiled()) {
      std::fprintf(stderr, "libtorch-tidy: LIBTORCH_TIDY_TRACE is set but this runtime was built without "
                           "libbacktrace: no allocation sites\n");
      return;
    }
    long stacks = 4096, depth = 48;
    if (const char* s = std::getenv("LIBTORCH_TIDY_TRACE_STACKS")) stacks = std::max(1L, std::atol(s));
    if (const char* d = std::getenv("LIBTORCH_TIDY_TRACE_DEPTH")) depth = std::max(1L, std::atol(d));
    setAllocationTracing(true, static_cast<int>(stacks), static_cast<int>(depth));
  });
}

#if LIBTORCH_TIDY_WITH_TRACE
namespace {

void ignoreError(void*, const char*, int) {}

// One state for the process (thread-safe; created on first use).
backtrace_state* btState() {
  static backtrace_state* state = backtrace_create_state(nullptr, /*threaded=*/1, &ignoreError, nullptr);
  return state;
}

struct Capture {
  void** frames;
  int max;
  int count;
};

int onFrame(void* data, uintptr_t pc) {
  auto* c = static_cast<Capture*>(data);
  if (pc == 0 || pc == uintptr_t(-1)) return 1;
  c->frames[c->count++] = reinterpret_cast<void*>(pc);
  return c->count >= c->max ? 1 : 0;
}

}  // namespace
#endif

int captureStack(void** frames, int max, int skip) {
#if LIBTORCH_TIDY_WITH_TRACE
  // The program counters (already the call instruction, not the return address).
  Capture c{frames, std::clamp(max, 1, kMaxDepth), 0};
  backtrace_simple(btState(), skip + 1, &onFrame, &ignoreError, &c);
  return c.count;
#else
  (void)frames;
  (void)max;
  (void)skip;
  return 0;
#endif
}

uint32_t onAllocate(size_t bytes) {
#if LIBTORCH_TIDY_WITH_TRACE
  Table& t = table();
  void* frames[kMaxDepth];
  int count = captureStack(frames, t.depth.load(std::memory_order_relaxed), 1);
  uint64_t h = hashFrames(frames, count);
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.ids.find(h);
    if (it != t.ids.end()) {
      id = it->second;
    } else if (t.used.load(std::memory_order_relaxed) <= t.limit.load(std::memory_order_relaxed) &&
               t.used.load(std::memory_order_relaxed) < kHardCap) {
      id = t.used.load(std::memory_order_relaxed);
      Slot& s = t.slots[id];
      s.hash = h;
      s.depth = count;
      s.frames.reset(new void*[count > 0 ? count : 1]);
      std::copy(frames, frames + count, s.frames.get());
      t.ids.emplace(h, id);
      t.used.store(id + 1, std::memory_order_release);
    } else {
      t.full.store(true, std::memory_order_relaxed);
    }
  }
  t.slots[id].live.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  return id;
#else
  (void)bytes;
  return 0;
#endif
}

void onFree(uint32_t id, size_t bytes) {
  Table& t = table();
  if (id < kHardCap) t.slots[id].live.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

#if LIBTORCH_TIDY_WITH_TRACE
namespace {

// "evaluate(Classifier&, std::vector<Batch> const&)" -> "evaluate"; keeps
// "operator()" and the parts of template arguments.
std::string shortFunction(const std::string& name) {
  int angle = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == '(' && angle == 0) {
      if (i >= 8 && name.compare(i - 8, 8, "operator") == 0) {
        if (i + 1 < name.size() && name[i + 1] == ')') ++i;  // the "()" of operator()
        continue;
      }
      if (name.compare(i, 10, "(anonymous") == 0) {  // "(anonymous namespace)::f"
        size_t close = name.find(')', i);
        if (close != std::string::npos) {
          i = close;
          continue;
        }
      }
      if (name.compare(i, 8, "{lambda(") == 0) continue;
      return name.substr(0, i);
    }
  }
  return name;
}

struct ObjectClassifier {
  std::mutex mutex;
  std::unordered_map<const void*, bool> user;  // object base -> the program's own code
  const void* runtime_base = nullptr;
  const void* c10_base = nullptr;

  ObjectClassifier() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&traceStack), &info)) runtime_base = info.dli_fbase;
    if (dladdr(reinterpret_cast<void*>(&c10::GetCPUAllocator), &info)) c10_base = info.dli_fbase;
  }

  bool isUser(const void* addr) {
    Dl_info info;
    if (!dladdr(addr, &info)) return false;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = user.find(info.dli_fbase);
    if (it != user.end()) return it->second;
    bool lib = info.dli_fbase == runtime_base || info.dli_fbase == c10_base;
    std::string path = info.dli_fname ? info.dli_fname : "";
    std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    for (const char* prefix : {"libtorch", "libc10", "libcaffe2", "libgomp", "libdnnl", "libmkl", "libshm",
                               "libstdc++", "libc.so", "libm.so", "ld-linux"})
      if (base.rfind(prefix, 0) == 0) lib = true;
    for (const char* dir : {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/python"})
      if (path.rfind(dir, 0) == 0) lib = true;
    user.emplace(info.dli_fbase, !lib);
    return !lib;
  }
};

ObjectClassifier& classifier() {
  static ObjectClassifier* c = new ObjectClassifier;
  return *c;
}

bool isLibraryHeader(const std::string& file) {
  if (file.empty()) return false;
  for (const char* dir : {"/usr/include/", "/usr/lib/", "/usr/local/include/"})
    if (file.rfind(dir, 0) == 0) return true;
  for (const char* part : {"/torch/include/", "/torch/csrc/", "/include/c10/", "/include/ATen/", "/c10/util/",
                           "/c10/core/", "/ATen/core/"})
    if (file.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace
#endif

}  // namespace trace

bool allocationTracingCompiled() { return LIBTORCH_TIDY_WITH_TRACE != 0; }

void setAllocationTracing(bool on, int max_stacks, int depth) {
  trace::Table& t = trace::table();
  t.limit.store(static_cast<uint32_t>(std::clamp<int64_t>(max_stacks, 1, trace::kHardCap - 1)));
  t.depth.store(std::clamp(depth, 1, trace::kMaxDepth));
  trace::enabled.store(on && allocationTracingCompiled(), std::memory_order_relaxed);
}

bool allocationTracing() { return trace::enabled.load(std::memory_order_relaxed); }

TraceCounts traceCounts() {
  trace::Table& t = trace::table();
  TraceCounts out;
  uint32_t used = t.used.load(std::memory_order_acquire);
  for (uint32_t id = 1; id < used; ++id) {
    int64_t live = t.slots[id].live.load(std::memory_order_relaxed);
    if (live != 0) out.live.emplace_back(id, live);
  }
  out.untraced_live_bytes = t.slots[0].live.load(std::memory_order_relaxed);
  out.full = t.full.load(std::memory_order_relaxed);
  out.stacks = used - 1;
  return out;
}

std::vector<Frame> trace::symbolize(void* const* frames, int count) {
  std::vector<Frame> out;
#if LIBTORCH_TIDY_WITH_TRACE
  struct Lines {
    std::vector<Frame> frames;  // innermost inlined call first
  };
  auto demangle = [](const char* name) {
    if (name == nullptr) return std::string("??");
    int status = 0;
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : name;
    std::free(d);
    return trace::shortFunction(out);
  };
  for (int i = 0; i < count; ++i) {
    uintptr_t pc = reinterpret_cast<uintptr_t>(frames[i]);
    bool user_object = trace::classifier().isUser(frames[i]);
    Lines lines;
    backtrace_pcinfo(
        trace::btState(), pc,
        [](void* data, uintptr_t, const char* file, int line, const char* function) {
          auto* l = static_cast<Lines*>(data);
          if (function == nullptr && file == nullptr) return 0;
          Frame f;
          f.function = function ? function : "";
          f.file = file ? file : "";
          f.line = line;
          l->frames.push_back(std::move(f));
          return 0;
        },
        &trace::ignoreError, &lines);
    if (lines.frames.empty()) {  // no line information: the symbol table
      Frame f;
      backtrace_syminfo(
          trace::btState(), pc,
          [](void* data, uintptr_t, const char* name, uintptr_t, uintptr_t) {
            if (name) static_cast<Frame*>(data)->function = name;
          },
          &trace::ignoreError, &f);
      if (f.function.empty()) {
        Dl_info info;
        if (dladdr(frames[i], &info) && info.dli_sname) f.function = info.dli_sname;
      }
      lines.frames.push_back(std::move(f));
    }
    for (Frame& f : lines.frames) {
      f.function = demangle(f.function.empty() ? nullptr : f.function.c_str());
      // Code of the program's object that comes from a LibTorch or system
      // header (inlined) is not the program's own.
      f.user = user_object && !trace::isLibraryHeader(f.file) && f.function != "_start";
      out.push_back(std::move(f));
    }
  }
#else
  (void)frames;
  (void)count;
#endif
  return out;
}

std::vector<Frame> traceStack(uint32_t id) {
  trace::Table& t = trace::table();
  if (id == 0 || id >= t.used.load(std::memory_order_acquire)) return {};
  const trace::Slot& s = t.slots[id];
  return trace::symbolize(s.frames.get(), s.depth);
}

}  // namespace libtorch_tidy
