#!/usr/bin/env bash
# Times the Bazel aspect (bazel/defs.bzl) on a generated LibTorch workspace of
# 2N translation units: N LibTorch training programs (the bundled
# examples/eval_without_no_grad.cpp with the real <torch/torch.h>, renamed per
# file) and N without LibTorch (CSV reading and config parsing), one cc_library
# per pair, a cc_binary over them. Runs: cold (empty --disk_cache), from the
# disk cache after `bazel clean`, and after one LibTorch file is edited. CPU is
# the Bazel server's reaped child processes (the actions), from /proc.
#   N=16 bash scripts/bench-bazel.sh      (after the build; Debian's bazel-bootstrap)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
N=${N:-16}
JOBS=${JOBS:-2}
V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
SRC=$(pwd)
BUILD=$(cd "$BUILD_DIR" && pwd)
TOP=$BUILD/bench-bazel
WS=$TOP/ws
BAZEL=(bazel "--output_user_root=$TOP/root" --nohome_rc)
[ -d "$WS" ] && (cd "$WS" && "${BAZEL[@]}" shutdown >/dev/null 2>&1 || true)
chmod -R u+w "$TOP" 2>/dev/null || true
rm -rf "$TOP" && mkdir -p "$WS/src"

cat > "$WS/WORKSPACE" <<EOF
workspace(name = "bench")
local_repository(name = "libtorch_tidy", path = "$SRC/bazel")
local_repository(name = "rules_cc", path = "$SRC/bazel/shims/rules_cc")
local_repository(name = "rules_java", path = "$SRC/bazel/shims/rules_java")
local_repository(name = "platforms", path = "/usr/share/bazel/platforms")
load("@libtorch_tidy//:repositories.bzl", "libtorch_system", "libtorch_tidy_dependencies")
libtorch_tidy_dependencies(prefix = "$BUILD", llvm_version = "$V")
libtorch_system(name = "libtorch")
new_local_repository(
    name = "probe",
    path = "$SRC/runtime/include",
    build_file_content = 'cc_library(name = "probe", hdrs = glob(["**/*.h"]), includes = ["."], visibility = ["//visibility:public"])',
)
EOF
echo 'build --cxxopt=-std=c++17' > "$WS/.bazelrc"
{
  echo 'package(default_visibility = ["//visibility:public"])'
  for i in $(seq 1 "$N"); do
    echo "cc_library(name = \"part_$i\", srcs = [\"model_$i.cpp\", \"data_$i.cpp\"], deps = [\"@libtorch\", \"@probe\"])"
  done
  echo "cc_binary(name = \"app\", srcs = [\"main.cpp\"], deps = [$(for i in $(seq 1 "$N"); do printf '":part_%s", ' "$i"; done)])"
} > "$WS/src/BUILD.bazel"
echo 'int main() { return 0; }' > "$WS/src/main.cpp"
for i in $(seq 1 "$N"); do
  sed -e "s/evaluate(/evaluate_$i(/g" -e "s/^int main(/int main_$i(/" examples/eval_without_no_grad.cpp > "$WS/src/model_$i.cpp"
  cat > "$WS/src/data_$i.cpp" <<CPP
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <string>
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
done

cd "$WS"
echo "== $((2 * N + 1)) translation units, $N with LibTorch; --jobs=$JOBS; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"${BAZEL[@]}" info server_pid >/dev/null 2>&1
PID=$("${BAZEL[@]}" info server_pid 2>/dev/null)
children_cpu() { awk '{ printf "%.1f", ($16 + $17) / 100 }' "/proc/$PID/stat"; }  # cutime + cstime, in s (USER_HZ 100)
run() {
  local name=$1
  shift
  local c0 t0 c1 t1
  c0=$(children_cpu) t0=$(date +%s.%N)
  "${BAZEL[@]}" build --nosandbox_debug --color=no --curses=no --jobs="$JOBS" --disk_cache="$TOP/disk-cache" \
    //src:app --aspects=@libtorch_tidy//:defs.bzl%libtorch_tidy_aspect --output_groups=libtorch_tidy \
    "$@" > "$TOP/$name.log" 2>&1 || { tail -30 "$TOP/$name.log"; exit 1; }
  c1=$(children_cpu) t1=$(date +%s.%N)
  printf '%-44s wall %7.1f s   actions cpu %7.1f s   %s\n' "$name:" "$(awk "BEGIN { print $t1 - $t0 }")" \
    "$(awk "BEGIN { print $c1 - $c0 }")" "$(grep -o '[0-9]* processes:.*' "$TOP/$name.log" | tail -1)"
}
run "aspect, cold (empty disk cache)"
"${BAZEL[@]}" clean >/dev/null 2>&1
run "aspect, after bazel clean (disk cache)"
echo "// edited" >> src/model_1.cpp
run "aspect, model_1.cpp edited"
found=$(cat bazel-bin/src/_libtorch_tidy/*/src/*.json | grep -c '"check"' || true)
echo "findings in the per-source reports: $found"
"${BAZEL[@]}" shutdown >/dev/null 2>&1
