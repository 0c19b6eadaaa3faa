// LIBTORCH_TIDY_ITERATION(): per-site series, the iteration cap and the JSON
// report written at exit.
#include <libtorch_tidy/cuda.h>
#include <libtorch_tidy/evidence.h>
#include <libtorch_tidy/measure.h>
#include <libtorch_tidy/memory.h>
#include <libtorch_tidy/snapshot.h>
// The library itself must not install the allocator when it is loaded.
#define LIBTORCH_TIDY_PROBE_NO_INSTALL
#include <libtorch_tidy/probe.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

namespace libtorch_tidy {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

struct Site {
  std::string file;
  int line;
  Series series;
  Clock::time_point last;
  EvidenceSamples evidence;        // graph walks (tensors probed) and allocation-site counts (trace mode)
  uint64_t previous_sequence_nr = 0;  // newest graph node at the sample before the last
  int64_t saved_last = -1, saved_graph = -1;  // bytes released from the graph at the cap
  std::string snapshot;            // CUDA snapshot written for this loop ("!why" when it could not be)
  std::string cpu_snapshot;        // CPU snapshot (trace mode) written for this loop
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Site>> sites;
  bool configured = false;
  long cap = 0;
  int warmup = 5;
  int64_t graph_max_nodes = kDefaultGraphMaxNodes;
  std::string report;
  std::string snapshot;         // LIBTORCH_TIDY_CUDA_SNAPSHOT (default: REPORT.cuda-snapshot.pickle)
  std::string cpu_snapshot;     // LIBTORCH_TIDY_CPU_SNAPSHOT (default with tracing: REPORT.cpu-snapshot.pickle)
  bool snapshot_always = false; // LIBTORCH_TIDY_CUDA_SNAPSHOT_ALWAYS=1: also for flat loops
  bool cuda_history = false;    // stack recording of the CUDA caching allocator started
  bool written = false;
  bool stopped = false;
  Clock::time_point start = Clock::now();
};

Registry& registry() {
  static Registry* r = new Registry;  // immortal: used from atexit
  return *r;
}

long envLong(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return (end && *end == '\0' && n >= 0) ? n : fallback;
}

Evidence evidenceOf(const Site& s, const Thresholds& th) {
  Evidence e = computeEvidence(s.evidence, s.series.warmup, th);
  e.saved_bytes_last_iteration = s.saved_last;
  e.saved_bytes_graph = s.saved_graph;
  e.snapshot = s.snapshot;
  e.cpu_snapshot = s.cpu_snapshot;
  for (std::string* path : {&e.snapshot, &e.cpu_snapshot})
    if (!path->empty() && (*path)[0] == '!') {  // "!message": the snapshot could not be written
      e.messages.push_back(path->substr(1));
      path->clear();
    }
  return e;
}

// The CUDA snapshot of the loops that grow (all loops with
// LIBTORCH_TIDY_CUDA_SNAPSHOT_ALWAYS=1), once, when CUDA was used.
void writeSnapshotLocked(Registry& r) {
  static bool done = false;
  if (done) return;
  Thresholds th;
  std::vector<Site*> wanted, wanted_cpu;
  for (auto& s : r.sites) {
    bool cuda = !s->series.samples.empty() && s->series.samples.back().has_cuda;
    bool want = r.snapshot_always || analyze(s->series, th).verdict == Verdict::Growing;
    if (cuda && want) wanted.push_back(s.get());
    if (want && !s->evidence.trace.empty() && (!r.report.empty() || !r.cpu_snapshot.empty()))
      wanted_cpu.push_back(s.get());
  }
  if (!wanted_cpu.empty()) {
    std::string path = r.cpu_snapshot.empty() ? r.report + ".cpu-snapshot.pickle" : r.cpu_snapshot;
    std::string error;
    bool ok = writeFile(path, snapshotPickle(cpuTraceSnapshot()), &error);
    for (Site* s : wanted_cpu) s->cpu_snapshot = ok ? path : "!" + error;
  }
  if (wanted.empty()) {
    done = true;
    return;
  }
  done = true;
  std::string path = r.snapshot.empty() ? (r.report.empty() ? std::string("libtorch-tidy") : r.report) +
                                              ".cuda-snapshot.pickle"
                                        : r.snapshot;
  std::string error;
  bool ok = writeCudaSnapshot(path, &error);
  for (Site* s : wanted) s->snapshot = ok ? path : "!" + error;
}

std::string reportJson(Registry& r) {
  std::string out = "{\"format\":\"libtorch-tidy-runtime/1\",\"stopped_at_cap\":";
  out += r.stopped ? "true" : "false";
  out += ",\"max_iterations\":" + std::to_string(r.cap);
  Thresholds th;
  out += ",\"thresholds\":{\"bytes_per_iteration\":" + std::to_string(th.bytes_per_iteration) +
         ",\"history_per_iteration\":" + std::to_string(th.history_per_iteration) +
         ",\"consistency\":" + std::to_string(th.consistency) + "}";
  out += ",\"loops\":[";
  for (size_t i = 0; i < r.sites.size(); ++i) {
    const Site& s = *r.sites[i];
    if (i) out += ",";
    std::string loop = toJson(s.series, analyze(s.series, th));
    // {"name":..., "analysis":..., "samples":[...]} + "evidence"
    loop.pop_back();
    out += loop + ",\"evidence\":" + toJson(evidenceOf(s, th)) + "}";
  }
  return out + "]}\n";
}

void writeReportLocked(Registry& r) {
  if (r.written) return;
  writeSnapshotLocked(r);
  if (r.report.empty()) return;
  r.written = true;
  std::string json = reportJson(r);
  FILE* f = std::fopen(r.report.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "libtorch-tidy: cannot write %s\n", r.report.c_str());
    return;
  }
  std::fwrite(json.data(), 1, json.size(), f);
  std::fclose(f);
}

void writeReportAtExit() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  writeReportLocked(r);
}

void configure(Registry& r) {
  if (r.configured) return;
  r.configured = true;
  r.cap = envLong("LIBTORCH_TIDY_MAX_ITERATIONS", 0);
  r.warmup = static_cast<int>(envLong("LIBTORCH_TIDY_WARMUP", 5));
  r.graph_max_nodes = envLong("LIBTORCH_TIDY_GRAPH_MAX_NODES", kDefaultGraphMaxNodes);
  if (r.graph_max_nodes <= 0) r.graph_max_nodes = kDefaultGraphMaxNodes;
  if (const char* p = std::getenv("LIBTORCH_TIDY_REPORT")) r.report = p;
  if (const char* p = std::getenv("LIBTORCH_TIDY_CUDA_SNAPSHOT")) r.snapshot = p;
  if (const char* p = std::getenv("LIBTORCH_TIDY_CPU_SNAPSHOT")) r.cpu_snapshot = p;
  r.snapshot_always = envLong("LIBTORCH_TIDY_CUDA_SNAPSHOT_ALWAYS", 0) == 1;
  std::atexit(&writeReportAtExit);
}

// At the cap (the program ends next): the bytes the probed graph holds in
// saved tensors, measured by releasing them as backward() does: first the
// nodes created since the previous sample (one iteration), then the rest.
void measureSavedBytes(Site& site, const std::vector<at::Tensor>& tensors, int64_t max_nodes) {
  auto live = [] {
    int64_t cpu = cpuMemoryStats().live_bytes;
    auto cuda = cudaMemoryStats();
    return cpu + (cuda ? cuda->allocated_bytes : 0);
  };
  int64_t before = live();
  if (site.previous_sequence_nr > 0) {
    releaseSavedVariables(tensors, site.previous_sequence_nr, max_nodes);
    site.saved_last = std::max<int64_t>(0, before - live());
  }
  releaseSavedVariables(tensors, 0, max_nodes);
  site.saved_graph = std::max<int64_t>(0, before - live());
}

}  // namespace

bool installForProbe() {
  installCountingAllocator();
  return true;
}

void probeSample(const char* file, int line, const std::vector<at::Tensor>* tensors) {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mutex);
  configure(r);
  auto now = Clock::now();
  Site* site = nullptr;
  for (auto& s : r.sites)
    if (s->line == line && s->file == file) site = s.get();
  if (site == nullptr) {
    r.sites.push_back(std::make_unique<Site>());
    site = r.sites.back().get();
    site->file = file;
    site->line = line;
    const char* base = std::strrchr(file, '/');
    site->series.name = std::string(base ? base + 1 : file) + ":" + std::to_string(line);
    site->series.warmup = r.warmup;
    site->last = r.start;
  }
  Sample s = sampleNow(nullptr);
  if (tensors != nullptr) {
    // One walk gives the history size and its node types.
    GraphWalk walk = walkGraph(*tensors, r.graph_max_nodes);
    s.history_nodes = walk.nodes;
    if (!site->evidence.graph.empty()) site->previous_sequence_nr = site->evidence.graph.back().max_sequence_nr;
    site->evidence.graph.push_back(std::move(walk));
  }
  if (allocationTracing()) site->evidence.trace.push_back(traceCounts());
  if (s.has_cuda && !r.cuda_history) {
    r.cuda_history = true;
    if (envLong("LIBTORCH_TIDY_CUDA_HISTORY", 0) == 1) recordCudaHistory();
  }
  s.iteration = static_cast<int64_t>(site->series.samples.size());
  s.seconds = std::chrono::duration<double>(now - site->last).count();
  site->last = Clock::now();  // the probe's own cost is not part of the next iteration
  site->series.samples.push_back(s);
  if (r.cap > 0 && static_cast<long>(site->series.samples.size()) >= r.cap) {
    r.stopped = true;
    writeSnapshotLocked(r);  // first: it shows the memory the graph holds
    if (tensors != nullptr && !site->evidence.graph.empty()) measureSavedBytes(*site, *tensors, r.graph_max_nodes);
    writeReportLocked(r);
    // One line per growing loop naming its top culprit.
    std::vector<std::string> culprits;
    for (auto& other : r.sites) {
      Analysis a = analyze(other->series, Thresholds{});
      if (a.verdict != Verdict::Growing) continue;
      std::string c = culprit(evidenceOf(*other, Thresholds{}));
      culprits.push_back(other->series.name + " growing" + (c.empty() ? "" : ": " + c));
    }
    std::string name = site->series.name;
    lock.unlock();
    std::cout.flush();
    std::fflush(stdout);
    std::fprintf(stderr, "libtorch-tidy: stopped after %ld iterations of %s (LIBTORCH_TIDY_MAX_ITERATIONS)\n",
                 r.cap, name.c_str());
    for (const std::string& c : culprits) std::fprintf(stderr, "libtorch-tidy: %s\n", c.c_str());
    std::exit(0);
  }
}

}  // namespace detail
}  // namespace libtorch_tidy
