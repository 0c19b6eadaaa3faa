// Fuzz target: the JSON and SARIF reports `libtorch-tidy merge` reads (two
// inputs: the data as a report, and the data as a second report beside a
// fixed valid one, so the shard consistency checks run too).
#include "FuzzUtil.h"
#include "MergeCommand.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace libtorch_tidy::fuzz;
  std::string Report = writeInput("report.json", Data, Size);
  static const char Valid[] =
      "{\"tool\": \"libtorch-tidy\", \"version\": 1, \"shard\": {\"index\": 1, \"total\": 2, "
      "\"units\": [\"a.cpp\"]}, \"findings\": []}";
  std::string Other = writeInput("other.json", reinterpret_cast<const uint8_t *>(Valid),
                                 sizeof(Valid) - 1);
  std::string Out = workDir() + "/merged.sarif";
  for (int Twice = 0; Twice < 2; ++Twice) {
    std::vector<const char *> Argv = {"merge", "--format=sarif", "-o", Out.c_str(), Report.c_str()};
    if (Twice)
      Argv.push_back(Other.c_str());
    libtorch_tidy::runMergeCommand(int(Argv.size()), Argv.data());
  }
  return 0;
}
