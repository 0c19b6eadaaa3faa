#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and a python3 `torch` with CUDA: builds the
# runtime companion, its GoogleTest and the examples (each original and its
# fixed copy from examples/fixed/) against that torch's LibTorch, then runs the
# CUDA unit tests, the CUDA statistics benchmark, the mixed-precision example
# (activation memory with and without float16 autocast), the before/after
# memory proofs on the GPU (the examples pick CUDA when it is available), and the
# evidence of a growing loop on CUDA: the caching allocator's snapshot, which
# the PyPI torch's torch.cuda._memory_viz must read. No LLVM
# needed: the fixes are the committed copies in examples/fixed/, which the
# proof tests check against clang-tidy --fix. Takes a few minutes.
#   PYTHON=python3  BUILD_DIR=build-gpu  JOBS=$(nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
start=$SECONDS

"$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
  || { echo "gpu-check: $PY's torch sees no GPU (torch.cuda.is_available() is False)" >&2; exit 2; }
torch_cmake=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
torch_root=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
"$PY" -c 'import torch; print("gpu-check: torch", torch.__version__, "CUDA", torch.version.cuda, "on", torch.cuda.get_device_name(0))'

command -v nvcc >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] \
  || { echo "gpu-check: the torch wheel's CMake config needs a CUDA toolkit (nvcc); set CUDA_HOME" >&2; exit 2; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# CMAKE_PREFIX_PATH first, so that this LibTorch's libraries win over a system LibTorch.
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DLIBTORCH_TIDY_BUILD_CHECKS=OFF -DLIBTORCH_TIDY_BUILD_EXAMPLES=ON \
  -DCMAKE_PREFIX_PATH="$torch_root" -DTorch_DIR="$torch_cmake/Torch" -DCaffe2_DIR="$torch_cmake/Caffe2" \
  >"$BUILD_DIR.configure.log" 2>&1 || { tail -40 "$BUILD_DIR.configure.log"; exit 1; }
grep -q "CUDA statistics ON" "$BUILD_DIR.configure.log" \
  || { echo "gpu-check: this LibTorch has no CUDA (torch_cuda target missing)" >&2; exit 2; }
cmake --build "$BUILD_DIR" -j"$JOBS"
cmake --build "$BUILD_DIR" -j"$JOBS" --target example_fixed_all

echo "== CUDA check of the runtime"
"$BUILD_DIR/bin/runtime_cuda_check"
echo "== runtime tests (CUDA cases run on this GPU)"
if [ -x "$BUILD_DIR/bin/runtime_tests" ]; then
  "$BUILD_DIR/bin/runtime_tests" --gtest_brief=1
  "$BUILD_DIR/bin/runtime_amp_tests" --gtest_brief=1
else
  echo "(GoogleTest not found: unit tests not built)"
fi
if [ -x "$BUILD_DIR/bin/runtime_benchmark" ]; then
  echo "== cost of a CUDA statistics read"
  "$BUILD_DIR/bin/runtime_benchmark" --benchmark_filter='BM_CudaStatsRead|BM_TrainStep$|BM_TrainStepProbe$'
fi

echo "== mixed precision on CUDA: AutocastGuard (float16) + GradScaler, activation memory (docs/runtime.md)"
amp_status=0
"$BUILD_DIR/examples/example_mixed_precision" --device cuda || amp_status=1

echo "== before/after memory on CUDA ($((SECONDS - start)) s so far)"
status=0
mkdir -p "$BUILD_DIR/gpu-proof"
pairs=()
for src in examples/fixed/*.cpp; do
  name=$(basename "$src" .cpp)
  expect=growth
  [ "$name" = unneeded_retain_graph ] && expect=held  # a retained graph is held memory, not growth
  pairs+=(--pair "$name:$BUILD_DIR/examples/example_$name:$BUILD_DIR/examples/fixed/example_$name:$expect")
done
"$PY" test/e2e/prove_fix.py --workdir "$BUILD_DIR/gpu-proof" --json "$BUILD_DIR/gpu-proof/table.json" \
  "${pairs[@]}" || status=1
echo "== evidence on CUDA: the caching allocator's snapshot of a growing loop, read by torch.cuda._memory_viz"
# LIBTORCH_TIDY_CUDA_HISTORY=1: stacks per CUDA allocation (torch::cuda::_record_memory_history),
# so the snapshot's blocks name ClassifierImpl::forward; the runtime writes the snapshot because the loop grows.
ev="$BUILD_DIR/gpu-proof/evidence"
mkdir -p "$ev"
rm -f "$ev"/*.pickle
LIBTORCH_TIDY_CUDA_HISTORY=1 LIBTORCH_TIDY_TRACE=1 LIBTORCH_TIDY_MAX_ITERATIONS=30 LIBTORCH_TIDY_REPORT="$ev/eval.json" \
  "$BUILD_DIR/examples/example_eval_without_no_grad" >"$ev/eval.log" 2>&1 || status=1
tail -2 "$ev/eval.log"
if [ -e "$ev/eval.json.cuda-snapshot.pickle" ]; then
  "$PY" -W ignore test/runtime/snapshot_format_test.py --cuda "$ev/eval.json.cuda-snapshot.pickle" \
    --cuda-function ClassifierImpl::forward || status=1
  "$PY" -c 'import json, sys; e = json.load(open(sys.argv[1]))["loops"][0]["evidence"]; print("evidence:", json.dumps(e)[:600])' "$ev/eval.json"
else
  echo "gpu-check: no CUDA snapshot written (see $ev/eval.json, evidence.messages)"; status=1
fi
echo "gpu-check: done in $((SECONDS - start)) s; reports in $BUILD_DIR/gpu-proof/"
exit $((status | amp_status))
