#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and a python3 `torch` with CUDA: builds the
# runtime companion, its GoogleTest and the examples (each original and its
# fixed copy from examples/fixed/) against that torch's LibTorch, then runs the
# CUDA unit tests, the CUDA statistics benchmark, the mixed-precision example
# (activation memory with and without float16 autocast), the before/after
# memory proofs on the GPU (the examples pick CUDA when it is available), and the
# evidence of a growing loop on CUDA: the caching allocator's snapshot, which
# the PyPI torch's torch.cuda._memory_viz must read, with the program's frames named. No LLVM
# needed: the fixes are the committed copies in examples/fixed/, which the
# proof tests check against clang-tidy --fix. Takes a few minutes.
#   PYTHON=python3  BUILD_DIR=build-gpu  JOBS=$(nproc)
#   GTEST_SOURCE=DIR   GoogleTest sources, built when the package is missing
#                      (default: .gpu-deps/googletest when present, a copy of
#                      Debian's /usr/src/googletest)
#   BUILD_ONLY=1       configure and build only (rehearses the build against a
#                      CUDA LibTorch on a machine without a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
BUILD_ONLY=${BUILD_ONLY:-0}
GTEST_SOURCE=${GTEST_SOURCE:-}
[ -z "$GTEST_SOURCE" ] && [ -f .gpu-deps/googletest/CMakeLists.txt ] && GTEST_SOURCE=$PWD/.gpu-deps/googletest
start=$SECONDS
stamp() { echo "gpu-check: [$((SECONDS - start)) s] $*"; }

if [ "$BUILD_ONLY" != 1 ]; then
  "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
    || { echo "gpu-check: $PY's torch sees no GPU (torch.cuda.is_available() is False)" >&2; exit 2; }
fi
torch_cmake=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
torch_root=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
"$PY" -c 'import torch; print("gpu-check: torch", torch.__version__, "CUDA", torch.version.cuda, "on",
           torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' 2>/dev/null

command -v nvcc >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] \
  || { echo "gpu-check: the torch wheel's CMake config needs a CUDA toolkit (nvcc); set CUDA_HOME" >&2; exit 2; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# CMAKE_PREFIX_PATH first, so that this LibTorch's libraries win over a system LibTorch.
# The wheel's CMake config otherwise compiles and runs a CUDA program to find the
# GPU's architecture (nothing here compiles CUDA code): name this GPU's.
if [ -z "${TORCH_CUDA_ARCH_LIST:-}" ]; then
  TORCH_CUDA_ARCH_LIST=$("$PY" -c 'import torch
c = torch.cuda.get_device_capability(0) if torch.cuda.is_available() else (9, 0)
print("%d.%d" % c)' 2>/dev/null)
  export TORCH_CUDA_ARCH_LIST
fi
# LibTorch 2.x headers need C++20 in recent releases; 1.13's build as C++17.
cxx_std=17
"$PY" -c 'import sys, torch; sys.exit(0 if int(torch.__version__.split(".")[0]) >= 2 else 1)' && cxx_std=20
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=$cxx_std \
  -DLIBTORCH_TIDY_BUILD_CHECKS=OFF -DLIBTORCH_TIDY_BUILD_EXAMPLES=ON -DLIBTORCH_TIDY_TORCH_PCH=OFF \
  ${GTEST_SOURCE:+-DLIBTORCH_TIDY_GTEST_SOURCE_DIR="$GTEST_SOURCE"} \
  -DCMAKE_PREFIX_PATH="$torch_root" -DTorch_DIR="$torch_cmake/Torch" -DCaffe2_DIR="$torch_cmake/Caffe2" \
  >"$BUILD_DIR.configure.log" 2>&1 || { tail -40 "$BUILD_DIR.configure.log"; exit 1; }
grep -q "CUDA statistics ON" "$BUILD_DIR.configure.log" \
  || { echo "gpu-check: this LibTorch has no CUDA (torch_cuda target missing)" >&2; exit 2; }
stamp "configured (C++$cxx_std)"
cmake --build "$BUILD_DIR" -j"$JOBS"
cmake --build "$BUILD_DIR" -j"$JOBS" --target example_fixed_all
stamp "built"
if [ "$BUILD_ONLY" = 1 ]; then
  echo "gpu-check: BUILD_ONLY=1, nothing run"
  exit 0
fi

# Every step runs even when an earlier one fails (one run on a lent GPU must say
# all it can); the failures are listed at the end and make the exit status 1.
failed=()
step() {  # step NAME COMMAND...
  local name=$1; shift
  stamp "$name"
  "$@" || { echo "gpu-check: FAILED: $name"; failed+=("$name"); }
}
step "CUDA check of the runtime" "$BUILD_DIR/bin/runtime_cuda_check"
if [ -x "$BUILD_DIR/bin/runtime_tests" ]; then
  # The CUDA cases run on this GPU; a skipped CUDA case is listed by --gtest_brief=0's summary.
  step "runtime tests (CUDA cases on this GPU)" "$BUILD_DIR/bin/runtime_tests" --gtest_brief=1
  step "probe tests" "$BUILD_DIR/bin/runtime_probe_tests" --gtest_brief=1
  step "mixed-precision tests (CUDA cases on this GPU)" "$BUILD_DIR/bin/runtime_amp_tests" --gtest_brief=1
else
  echo "(GoogleTest not found: unit tests not built; GTEST_SOURCE= names its sources)"
fi
if [ -x "$BUILD_DIR/bin/runtime_benchmark" ]; then
  step "cost of a CUDA statistics read" \
    "$BUILD_DIR/bin/runtime_benchmark" --benchmark_filter='BM_CudaStatsRead|BM_TrainStep$|BM_TrainStepProbe$'
fi

step "mixed precision on CUDA: AutocastGuard (float16) + GradScaler, activation memory (docs/runtime.md)" \
  "$BUILD_DIR/examples/example_mixed_precision" --device cuda

mkdir -p "$BUILD_DIR/gpu-proof"
pairs=()
for src in examples/fixed/*.cpp; do
  name=$(basename "$src" .cpp)
  expect=growth
  [ "$name" = unneeded_retain_graph ] && expect=held  # a retained graph is held memory, not growth
  pairs+=(--pair "$name:$BUILD_DIR/examples/example_$name:$BUILD_DIR/examples/fixed/example_$name:$expect")
done
step "before/after memory on CUDA (the examples and their fixed copies)" \
  "$PY" test/e2e/prove_fix.py --workdir "$BUILD_DIR/gpu-proof" --json "$BUILD_DIR/gpu-proof/table.json" "${pairs[@]}"
# LIBTORCH_TIDY_CUDA_HISTORY=1: stacks per CUDA allocation (torch::cuda::_record_memory_history),
# named by LibTorch's DWARF symbolizer; the runtime writes the snapshot because the loop grows.
# That symbolizer does not expand inlined calls: in this optimised build the evaluation code
# (ClassifierImpl::forward, evaluate) is inlined into main, so the program's frame reads main,
# at the LibTorch header line it inlined (docs/runtime.md, "On CUDA").
ev="$BUILD_DIR/gpu-proof/evidence"
mkdir -p "$ev"
rm -f "$ev"/*.pickle
step "evidence on CUDA: a growing loop's caching-allocator snapshot" \
  env LIBTORCH_TIDY_CUDA_HISTORY=1 LIBTORCH_TIDY_TRACE=1 LIBTORCH_TIDY_MAX_ITERATIONS=30 \
  LIBTORCH_TIDY_REPORT="$ev/eval.json" "$BUILD_DIR/examples/example_eval_without_no_grad" >"$ev/eval.log" 2>&1
tail -2 "$ev/eval.log"
if [ -e "$ev/eval.json.cuda-snapshot.pickle" ]; then
  step "the snapshot read by this torch's torch.cuda._memory_viz" \
    "$PY" -W ignore test/runtime/snapshot_format_test.py --cuda "$ev/eval.json.cuda-snapshot.pickle" \
    --cuda-function main
  "$PY" -c 'import json, sys; e = json.load(open(sys.argv[1]))["loops"][0]["evidence"]; print("evidence:", json.dumps(e)[:600])' "$ev/eval.json" || true
else
  echo "gpu-check: FAILED: no CUDA snapshot written (see $ev/eval.json, evidence.messages)"
  failed+=("CUDA snapshot")
fi
stamp "done; reports in $BUILD_DIR/gpu-proof/"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'gpu-check: %d step(s) failed:\n' "${#failed[@]}"; printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "gpu-check: all steps passed"
