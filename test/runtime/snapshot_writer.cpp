// Writes a memory snapshot with the runtime's memory_viz pickle writer: two
// CUDA-like segments (blocks active, pending free and inactive, with frames)
// and a device trace, the shape LibTorch 1.13's CUDACachingAllocator::snapshot()
// gives the runtime. scripts/test-snapshot-format.sh loads it with the PyPI
// torch's torch.cuda._memory_viz.
//   runtime_snapshot_writer OUT.pickle
#include <libtorch_tidy/snapshot.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: runtime_snapshot_writer OUT.pickle\n");
    return 2;
  }
  namespace lt = libtorch_tidy;
  const lt::Frame leak{"train_step", "/src/train.cpp", 42, true};
  const lt::Frame caller{"main", "/src/train.cpp", 80, true};
  const int64_t base = int64_t(0x7f0000000000);
  lt::Snapshot s;
  lt::SnapshotSegment large;
  large.address = base;
  large.total_size = 20 << 20;
  large.allocated_size = large.active_size = large.requested_size = 8 << 20;
  large.segment_type = "large";
  large.blocks = {{base, 4 << 20, 4 << 20, "active_allocated", {leak, caller}},
                  {base + (4 << 20), 4 << 20, 4 << 20, "active_allocated", {leak, caller}},
                  {base + (8 << 20), 2 << 20, 2 << 20, "active_pending_free", {caller}},
                  {base + (10 << 20), 10 << 20, 0, "inactive", {}}};
  large.allocated_size = 8 << 20;
  large.active_size = 10 << 20;
  lt::SnapshotSegment small;
  small.address = base + (64 << 20);
  small.total_size = 2 << 20;
  small.allocated_size = small.active_size = small.requested_size = 512;
  small.segment_type = "small";
  small.blocks = {{small.address, 512, 500, "active_allocated", {caller}},
                  {small.address + 512, (2 << 20) - 512, 0, "inactive", {}}};
  s.segments = {large, small};
  s.device_traces = {{{"segment_alloc", base, 20 << 20, 0, {leak, caller}},
                      {"alloc", base, 4 << 20, 0, {leak, caller}},
                      {"alloc", base + (4 << 20), 4 << 20, 0, {leak, caller}},
                      {"alloc", base + (8 << 20), 2 << 20, 0, {caller}},
                      {"free_requested", base + (8 << 20), 2 << 20, 0, {caller}},
                      {"alloc", small.address, 512, 0, {caller}}}};
  std::string error;
  if (!lt::writeFile(argv[1], lt::snapshotPickle(s), &error)) {
    std::fprintf(stderr, "runtime_snapshot_writer: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
