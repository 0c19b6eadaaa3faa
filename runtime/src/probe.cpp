// LIBTORCH_TIDY_ITERATION(): per-site series, the iteration cap and the JSON
// report written at exit.
#include <libtorch_tidy/measure.h>
#include <libtorch_tidy/memory.h>
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
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Site>> sites;
  bool configured = false;
  long cap = 0;
  int warmup = 5;
  std::string report;
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
    out += toJson(s.series, analyze(s.series, th));
  }
  return out + "]}\n";
}

void writeReportLocked(Registry& r) {
  if (r.written || r.report.empty()) return;
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
  if (const char* p = std::getenv("LIBTORCH_TIDY_REPORT")) r.report = p;
  std::atexit(&writeReportAtExit);
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
  Sample s = sampleNow(tensors);
  s.iteration = static_cast<int64_t>(site->series.samples.size());
  s.seconds = std::chrono::duration<double>(now - site->last).count();
  site->last = Clock::now();  // the probe's own cost is not part of the next iteration
  site->series.samples.push_back(s);
  if (r.cap > 0 && static_cast<long>(site->series.samples.size()) >= r.cap) {
    r.stopped = true;
    writeReportLocked(r);
    std::string name = site->series.name;
    lock.unlock();
    std::cout.flush();
    std::fflush(stdout);
    std::fprintf(stderr, "libtorch-tidy: stopped after %ld iterations of %s (LIBTORCH_TIDY_MAX_ITERATIONS)\n",
                 r.cap, name.c_str());
    std::exit(0);
  }
}

}  // namespace detail
}  // namespace libtorch_tidy
