#!/usr/bin/env bash
# Sets up and builds libtorch-tidy, runs the torch- checks on the bundled
# examples, shows the findings and the fixed code.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
bash scripts/setup.sh >/dev/null
TIDY=/usr/lib/llvm-${LIBTORCH_TIDY_LLVM_VERSION:-19}/bin/clang-tidy
PLUGIN=$BUILD_DIR/lib/LibTorchTidy.so

echo "== findings in examples/"
for f in examples/*.cpp; do
  "$TIDY" --load "$PLUGIN" -p "$BUILD_DIR" --checks='-*,torch-*' --quiet "$f" 2>/dev/null || true
done

echo "== fixes (applied to a copy in $BUILD_DIR/demo/)"
rm -rf "$BUILD_DIR/demo" && mkdir -p "$BUILD_DIR/demo"
for f in examples/*.cpp; do
  cp "$f" "$BUILD_DIR/demo/"
  copy="$BUILD_DIR/demo/$(basename "$f")"
  "$TIDY" --load "$PLUGIN" -p "$BUILD_DIR" --checks='-*,torch-*' --quiet --fix "$copy" >/dev/null 2>&1 || true
  diff -u --label "a/$f" --label "b/$f" "$f" "$copy" || true
done

echo "== memory before/after the fixes (runtime companion: 50 iterations of each example's loop, CPU)"
# Each example and its fixed copy (examples/fixed/: the fix-its shown above,
# checked against clang-tidy --fix by the proof tests), built with the runtime.
cmake --build "$BUILD_DIR" -j2 --target example_fixed_all >/dev/null
pairs=()
for f in examples/fixed/*.cpp; do
  n=$(basename "$f" .cpp)
  pairs+=(--pair "$n:$BUILD_DIR/examples/example_$n:$BUILD_DIR/examples/fixed/example_$n:none")
done
mkdir -p "$BUILD_DIR/demo/memory"
CUDA_VISIBLE_DEVICES= python3 test/e2e/prove_fix.py --workdir "$BUILD_DIR/demo/memory" "${pairs[@]}"
echo "(bytes/it: growth per iteration, Theil-Sen; nodes/it: autograd history growth; held: memory held between"
echo " iterations; see docs/runtime.md)"
