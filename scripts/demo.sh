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
