#!/usr/bin/env bash
# Times libtorch-tidy against run-clang-tidy with the plugin on a generated tree
# where half the translation units use LibTorch (real <torch/torch.h>) and half
# do not (a data pipeline, config parsing, GoogleTest unit tests).
#   N=4 JOBS=2 bash scripts/bench-driver.sh      (after the build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
N=${N:-4}
JOBS=${JOBS:-2}
V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
ROOT=$(pwd)/$BUILD_DIR/bench-driver
rm -rf "$ROOT" && mkdir -p "$ROOT/src"

for i in $(seq 1 "$N"); do
  # LibTorch half: the bundled training program, a distinct file each.
  sed "s/evaluate(/evaluate_$i(/g" examples/eval_without_no_grad.cpp > "$ROOT/src/model_$i.cpp"
  # The other half: what a LibTorch project also holds.
  if (( i % 2 )); then
    cat > "$ROOT/src/data_$i.cpp" <<CPP
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
// CSV reading and shuffling for the data loader (no LibTorch).
std::vector<std::vector<float>> read_csv_$i(const std::filesystem::path &p) {
  std::ifstream in(p);
  std::vector<std::vector<float>> rows;
  std::string line;
  std::regex sep(",");
  while (std::getline(in, line)) {
    std::vector<float> row;
    for (std::sregex_token_iterator it(line.begin(), line.end(), sep, -1), end; it != end; ++it)
      row.push_back(std::stof(*it));
    rows.push_back(std::move(row));
  }
  std::shuffle(rows.begin(), rows.end(), std::mt19937(42));
  return rows;
}
std::map<std::string, std::string> parse_config_$i(std::istream &in) {
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}
CPP
  else
    cat > "$ROOT/src/data_test_$i.cpp" <<CPP
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
// Unit tests of the config parser (no LibTorch).
static std::map<std::string, std::string> parse(std::istream &in) {
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}
TEST(Config$i, ParsesPairs) {
  std::istringstream in("lr=0.1\nepochs=3\n");
  auto kv = parse(in);
  EXPECT_EQ(kv["lr"], "0.1");
  EXPECT_EQ(kv.size(), 2u);
}
CPP
  fi
done

TORCH_FLAGS=$(sed -n 's/^config.torch_cxxflags = "\(.*\)"$/\1/p' "$BUILD_DIR/test/driver/lit.site.cfg.py")
python3 - "$ROOT" "$TORCH_FLAGS" <<'PY'
import json, os, shlex, sys
root, flags = sys.argv[1], shlex.split(sys.argv[2])
entries = [{"directory": root, "file": os.path.join(root, "src", f),
            "arguments": ["c++", "-std=c++17", *flags, "-c", os.path.join("src", f)]}
           for f in sorted(os.listdir(os.path.join(root, "src")))]
json.dump(entries, open(os.path.join(root, "compile_commands.json"), "w"), indent=1)
PY

cd "$ROOT"
echo "== $(ls src | wc -l) translation units, $N with LibTorch; -j$JOBS"
t0=$(date +%s.%N)
"run-clang-tidy-$V" -load "../lib/LibTorchTidy.so" -p . -j "$JOBS" -quiet -checks='-*,torch-*' >/dev/null 2>&1 || true
t1=$(date +%s.%N)
"../bin/libtorch-tidy" -p . -j "$JOBS" --quiet >/dev/null 2>&1 || true
t2=$(date +%s.%N)
python3 -c "a=$t1-$t0; b=$t2-$t1; print('run-clang-tidy-$V -load: %.1f s\nlibtorch-tidy:            %.1f s\nspeed-up:                 %.2fx' % (a, b, a / b))"
