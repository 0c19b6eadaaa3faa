#include <libtorch_tidy/cuda.h>
#include <libtorch_tidy/evidence.h>
#include <libtorch_tidy/history.h>
#include <libtorch_tidy/measure.h>
#include <libtorch_tidy/memory.h>

#include <chrono>

namespace libtorch_tidy {

namespace {
int64_t& lastAllocations() {
  static thread_local int64_t last = -1;
  return last;
}
}  // namespace

Sample sampleNow(const std::vector<at::Tensor>* tensors) {
  Sample s;
  CpuMemoryStats cpu = cpuMemoryStats();
  s.cpu_live_bytes = cpu.live_bytes;
  s.cpu_peak_bytes = cpu.peak_bytes;
  int64_t& last = lastAllocations();
  s.cpu_allocations = last < 0 ? 0 : cpu.allocations - last;
  last = cpu.allocations;
  resetCpuPeak();
  if (auto cuda = cudaMemoryStats()) {
    s.has_cuda = true;
    s.cuda_allocated_bytes = cuda->allocated_bytes;
    s.cuda_peak_allocated_bytes = cuda->peak_allocated_bytes;
    s.cuda_reserved_bytes = cuda->reserved_bytes;
    s.cuda_alloc_retries = cuda->alloc_retries;
    s.cuda_ooms = cuda->ooms;
    resetCudaPeak(cuda->device);
  }
  if (tensors != nullptr) s.history_nodes = historySize(*tensors);
  return s;
}

Series measureLoop(const std::function<void()>& step, const MeasureOptions& options) {
  return measureLoop(step, options, nullptr);
}

Series measureLoop(const std::function<void()>& step, const MeasureOptions& options, EvidenceSamples* evidence) {
  using Clock = std::chrono::steady_clock;
  Series series;
  series.name = options.name;
  series.warmup = options.warmup;
  ScopedCountingAllocator counting;
  sampleNow();  // starts the peak and allocation windows
  const int total = options.warmup + options.iterations;
  for (int i = 0; i < total; ++i) {
    auto start = Clock::now();
    step();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    Sample s;
    if (options.history_of && evidence != nullptr) {
      std::vector<at::Tensor> tensors = options.history_of();
      GraphWalk walk = walkGraph(tensors);  // one walk: the history size and its node types
      s = sampleNow();
      s.history_nodes = walk.nodes;
      evidence->graph.push_back(std::move(walk));
    } else if (options.history_of) {
      std::vector<at::Tensor> tensors = options.history_of();
      s = sampleNow(&tensors);
    } else {
      s = sampleNow();
    }
    if (evidence != nullptr && allocationTracing()) evidence->trace.push_back(traceCounts());
    s.iteration = i;
    s.seconds = seconds;
    series.samples.push_back(s);
  }
  return series;
}

}  // namespace libtorch_tidy
