// libtorch-tidy runtime: GoogleTest assertions on the memory of a step.
//
//   TEST(Trainer, StepDoesNotLeak) {
//     Trainer trainer;
//     EXPECT_NO_MEMORY_GROWTH([&] { trainer.step(); });
//     // with options: history of tensors, more iterations, other thresholds
//     libtorch_tidy::MeasureOptions options;
//     options.history_of = [&] { return std::vector<at::Tensor>{trainer.running_loss}; };
//     EXPECT_NO_MEMORY_GROWTH([&] { trainer.step(); }, options);
//   }
//
// The step runs warm-up + measured iterations (5 + 45 by default) with the
// counting allocator installed; on failure the message holds the table and,
// for a growing step, its culprit (the node types that grow, from history_of;
// the allocation sites with libtorch_tidy::setAllocationTracing(true)).
// Header-only: the runtime library itself does not depend on GoogleTest.
#pragma once

#include <libtorch_tidy/measure.h>

#include <gtest/gtest.h>

#include <functional>

namespace libtorch_tidy {
namespace testing {

inline ::testing::AssertionResult memoryGrowthIs(bool expect_growing, const std::function<void()>& step,
                                                 const MeasureOptions& options = {}) {
  EvidenceSamples samples;
  Series series = measureLoop(step, options, &samples);
  Analysis analysis = analyze(series, options.thresholds);
  Evidence evidence = computeEvidence(samples, series.warmup, options.thresholds);
  bool growing = analysis.verdict == Verdict::Growing;
  if (growing == expect_growing) return ::testing::AssertionSuccess() << toTable(series, analysis, evidence);
  return ::testing::AssertionFailure() << "expected the step's memory to be "
                                       << (expect_growing ? "growing" : "flat") << ", measured:\n"
                                       << toTable(series, analysis, evidence);
}

inline ::testing::AssertionResult NoMemoryGrowth(const std::function<void()>& step,
                                                 const MeasureOptions& options = {}) {
  return memoryGrowthIs(false, step, options);
}

inline ::testing::AssertionResult MemoryGrowth(const std::function<void()>& step,
                                               const MeasureOptions& options = {}) {
  return memoryGrowthIs(true, step, options);
}

}  // namespace testing
}  // namespace libtorch_tidy

// EXPECT_NO_MEMORY_GROWTH(step) / (step, options): the step's memory is flat.
#define EXPECT_NO_MEMORY_GROWTH(...) EXPECT_TRUE(::libtorch_tidy::testing::NoMemoryGrowth(__VA_ARGS__))
#define ASSERT_NO_MEMORY_GROWTH(...) ASSERT_TRUE(::libtorch_tidy::testing::NoMemoryGrowth(__VA_ARGS__))
// EXPECT_MEMORY_GROWTH(step): the step's memory grows (e.g. to pin a known leak).
#define EXPECT_MEMORY_GROWTH(...) EXPECT_TRUE(::libtorch_tidy::testing::MemoryGrowth(__VA_ARGS__))
