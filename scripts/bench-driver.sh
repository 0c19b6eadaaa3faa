#!/usr/bin/env bash
# Times libtorch-tidy against run-clang-tidy with the plugin on a generated tree
# where half the translation units use LibTorch (real <torch/torch.h>) and half
# do not (a data pipeline, config parsing, GoogleTest unit tests): run-clang-tidy,
# then libtorch-tidy cold (empty cache: the precompiled LibTorch header is built
# in the run), warm (nothing changed), and after one LibTorch file is edited.
# Each run's findings are compared with run-clang-tidy's.
#   N=8 JOBS=2 bash scripts/bench-driver.sh      (after the build)
# GENERATE_ONLY=1 BENCH_ROOT=DIR only writes the tree and its compile database
# into DIR (scripts/bench-review.sh uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_SCRIPTS=$PWD/scripts  # bench_run.py: one timed run
BUILD_DIR=${BUILD_DIR:-build}
N=${N:-8}
JOBS=${JOBS:-2}
V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
ROOT=${BENCH_ROOT:-$(pwd)/$BUILD_DIR/bench-driver}
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
            "arguments": ["c++", "-std=c++17", *flags, "-I", os.path.join(os.getcwd(), "runtime", "include"),
                          "-c", os.path.join("src", f)]}
           for f in sorted(os.listdir(os.path.join(root, "src")))]
json.dump(entries, open(os.path.join(root, "compile_commands.json"), "w"), indent=1)
PY
[[ -n ${GENERATE_ONLY:-} ]] && exit 0

cd "$ROOT"
echo "== $(ls src | wc -l) translation units, $N with LibTorch; -j$JOBS; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# CPU time of all child processes (user + system): steadier than wall time on a
# shared machine. Findings: (file, line, column, check) of each warning.
python3 - "$V" "$JOBS" <<'PY'
import functools, os, shutil, sys
sys.path.insert(0, os.environ["BENCH_SCRIPTS"])
import bench_run
v, jobs = sys.argv[1:3]
cache = os.path.abspath(".libtorch-tidy-cache")
shutil.rmtree(cache, ignore_errors=True)
run = functools.partial(bench_run.run, width=34)

tidy = ["../bin/libtorch-tidy", "-p", ".", "-j", jobs]
base_cpu, base = run("run-clang-tidy-%s -load" % v,
                     ["run-clang-tidy-" + v, "-load", "../lib/LibTorchTidy.so", "-p", ".", "-j", jobs,
                      "-quiet", "-checks=-*,torch-*"])
cold_cpu, cold = run("libtorch-tidy, cold", tidy)
warm_cpu, warm = run("libtorch-tidy, warm", tidy)
with open("src/model_1.cpp", "a") as f:
    f.write("// edited\n")
edit_cpu, edit = run("libtorch-tidy, model_1.cpp edited", tidy)
for name, found in [("cold", cold), ("warm", warm), ("edited", edit)]:
    print("findings %-7s %s run-clang-tidy's" % (name, "==" if found == base else "DIFFER from"))
print("CPU ratio to run-clang-tidy: cold %.1fx, warm %.1fx, edited %.1fx"
      % (base_cpu / cold_cpu, base_cpu / max(warm_cpu, 1e-3), base_cpu / edit_cpu))
sys.exit(0 if cold == base == warm == edit and base else 1)
PY