// LIBTORCH_TIDY_ITERATION: installed at start, per-site series, iteration cap,
// JSON report at exit.
#include <libtorch_tidy/memory.h>
#include <libtorch_tidy/probe.h>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(Probe, InstalledBeforeMain) { EXPECT_TRUE(libtorch_tidy::countingAllocatorInstalled()); }

TEST(Probe, StopsAtTheCapAndWritesTheReport) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The same path in the re-executed death-test child.
  std::string report = ::testing::TempDir() + "libtorch-tidy-probe-report.json";
  std::remove(report.c_str());
  EXPECT_EXIT(
      {
        ::setenv("LIBTORCH_TIDY_MAX_ITERATIONS", "20", 1);
        ::setenv("LIBTORCH_TIDY_REPORT", report.c_str(), 1);
        std::vector<torch::Tensor> kept;
        torch::Tensor total = torch::zeros({});
        auto w = torch::ones({4}, torch::requires_grad());
        for (int i = 0; i < 1000; ++i) {
          kept.push_back(torch::ones({1024}));  // 4 KiB per iteration
          total = total + (w * 2).sum();
          LIBTORCH_TIDY_ITERATION(total, kept);
        }
        std::exit(3);  // not reached
      },
      ::testing::ExitedWithCode(0), "stopped after 20 iterations of probe_test.cpp:[0-9]+");
  std::string json = slurp(report);
  EXPECT_NE(json.find("\"stopped_at_cap\":true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"verdict\":\"growing\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"history_nodes\":"), std::string::npos) << json;
  EXPECT_NE(json.find("\"iteration\":19"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"iteration\":20"), std::string::npos) << json;
  std::remove(report.c_str());
}

TEST(Probe, FunctionFormAndFlatLoop) {
  for (int i = 0; i < 10; ++i) {
    auto t = torch::ones({1024});
    libtorch_tidy::probe("flat.cpp", 1);
    LIBTORCH_TIDY_ITERATION();
  }
  SUCCEED();
}
