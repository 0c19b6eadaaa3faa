#!/usr/bin/env bash
# Times a CMake build of a generated LibTorch project with and without
# libtorch_tidy_enable() (find_package(LibTorchTidy) from this build tree):
# N translation units, each the bundled eval example under another name, in one
# OBJECT library (compiled, not linked). The difference is what the checks add
# to a build: one clang-tidy parse of each file beside its compile.
#   N=8 JOBS=2 bash scripts/bench-cmake-enable.sh      (after the build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
N=${N:-8}
JOBS=${JOBS:-2}
SRC=$(pwd)
ROOT=$SRC/$BUILD_DIR/bench-cmake-enable
rm -rf "$ROOT" && mkdir -p "$ROOT/src"

sources=""
for i in $(seq 1 "$N"); do
  sed "s/evaluate(/evaluate_$i(/g; s/int main(/int main_$i(/" examples/eval_without_no_grad.cpp > "$ROOT/src/model_$i.cpp"
  sources+=" model_$i.cpp"
done
cat > "$ROOT/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(bench CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(Torch REQUIRED)
add_library(app OBJECT $sources)
target_include_directories(app PRIVATE $SRC/runtime/include)
target_compile_options(app PRIVATE \${TORCH_CXX_FLAGS})
target_link_libraries(app PRIVATE torch)
if(ENABLE)
  find_package(LibTorchTidy REQUIRED)
  libtorch_tidy_enable(app)
endif()
CMAKE

run() { # NAME ENABLE
  cmake -S "$ROOT/src" -B "$ROOT/$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENABLE="$2" \
        -DCMAKE_CXX_COMPILER_LAUNCHER= -DLibTorchTidy_DIR="$SRC/$BUILD_DIR/cmake/LibTorchTidy" > "$ROOT/$1.configure.log"
  local start end
  start=$(date +%s.%N)
  cmake --build "$ROOT/$1" -j"$JOBS" > "$ROOT/$1.build.log" 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
plain=$(run plain OFF)
checked=$(run checked ON)
findings=$(grep -c "warning: .*\[torch-" "$ROOT/checked.build.log" || true)
printf '%s translation units, -j%s\n' "$N" "$JOBS"
printf '| build | wall seconds | findings in the build output |\n|---|---|---|\n'
printf '| plain | %.1f | - |\n' "$plain"
printf '| with libtorch_tidy_enable | %.1f | %s |\n' "$checked" "$findings"
printf 'the checks add %.1f s, %.1f s per translation unit\n' "$(echo "$checked - $plain" | bc)" \
  "$(echo "($checked - $plain) / $N" | bc -l)"
