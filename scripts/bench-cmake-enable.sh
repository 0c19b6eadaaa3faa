#!/usr/bin/env bash
# Times a CMake build of a generated LibTorch project with and without
# libtorch_tidy_enable() (find_package(LibTorchTidy) from this build tree):
# N translation units, each the bundled eval example under another name, in one
# OBJECT library (compiled, not linked). Three builds: plain; with the checks
# run through `libtorch-tidy tidy` (one shared precompiled LibTorch header, the
# default); with the checks and NO_PCH (clang-tidy parses <torch/torch.h> again
# beside each compile). CPU is that of every process of the build.
#   N=8 JOBS=2 bash scripts/bench-cmake-enable.sh      (after the build)
#   MODES="plain pch" ...                              (a subset of plain pch nopch)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
N=${N:-8}
JOBS=${JOBS:-2}
MODES=${MODES:-plain pch nopch}
SRC=$(pwd)
ROOT=${BENCH_DIR:-$SRC/$BUILD_DIR/bench-cmake-enable}
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
  libtorch_tidy_enable(app \${ENABLE_ARGS})
endif()
CMAKE

run() { # NAME ENABLE ENABLE_ARGS -> "wall cpu" (cpu: user+sys of every process of the build)
  cmake -S "$ROOT/src" -B "$ROOT/$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENABLE="$2" -DENABLE_ARGS="$3" \
        -DCMAKE_CXX_COMPILER_LAUNCHER= -DLibTorchTidy_DIR="$SRC/$BUILD_DIR/cmake/LibTorchTidy" > "$ROOT/$1.configure.log"
  /usr/bin/time -f '%e %U %S' -o "$ROOT/$1.time" cmake --build "$ROOT/$1" -j"$JOBS" > "$ROOT/$1.build.log" 2>&1
  awk '{ printf "%.1f %.1f", $1, $2 + $3 }' "$ROOT/$1.time"
}
printf '%s translation units, -j%s, load average at the start %s\n' "$N" "$JOBS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| build | wall | CPU (all processes) | findings in the build output |\n|---|---|---|---|\n'
for mode in $MODES; do
  case $mode in
    plain) name="plain"; read -r wall cpu <<< "$(run plain OFF "")" ;;
    pch) name="with libtorch_tidy_enable (shared precompiled header)"; read -r wall cpu <<< "$(run pch ON "")" ;;
    nopch) name="with libtorch_tidy_enable NO_PCH"; read -r wall cpu <<< "$(run nopch ON NO_PCH)" ;;
    *) echo "bench-cmake-enable: unknown mode $mode (plain, pch, nopch)" >&2; exit 2 ;;
  esac
  findings=-
  [ "$mode" = plain ] || findings=$(grep -c "warning: .*\[torch-" "$ROOT/$mode.build.log" || true)
  printf '| %s | %s s | %s s | %s |\n' "$name" "$wall" "$cpu" "$findings"
done
