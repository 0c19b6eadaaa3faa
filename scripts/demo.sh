#!/usr/bin/env bash
# Sets up and builds libtorch-tidy, runs the torch- checks on the bundled
# examples, shows the findings and the fixed code, the memory before/after the
# fixes (runtime companion), and ends with libtorch-tidy verify on one example.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
echo "== setup: packages, configure, build (scripts/setup.sh --demo)"
bash scripts/setup.sh --demo
DRIVER=$BUILD_DIR/bin/libtorch-tidy

echo "== findings in examples/"
"$DRIVER" -p "$BUILD_DIR" examples/ || true

echo "== fixes (applied to a copy in $BUILD_DIR/demo/)"
# The copy gets its own compile database: the examples' commands, pointed at the copy.
rm -rf "$BUILD_DIR/demo" && mkdir -p "$BUILD_DIR/demo" && cp -r examples "$BUILD_DIR/demo/"
python3 - "$BUILD_DIR" "$(pwd)/examples" "$(cd "$BUILD_DIR/demo" && pwd)/examples" <<'PY'
import json, os, sys
build, src, copy = sys.argv[1:4]
entries = [e for e in json.load(open(os.path.join(build, "compile_commands.json")))
           if os.path.abspath(os.path.join(e["directory"], e["file"])).startswith(src + os.sep)]
for e in entries:
    for key in ("file", "command"):
        if key in e:
            e[key] = e[key].replace(src + os.sep, copy + os.sep)
    if "arguments" in e:
        e["arguments"] = [a.replace(src + os.sep, copy + os.sep) for a in e["arguments"]]
json.dump(entries, open(os.path.join(build, "demo", "compile_commands.json"), "w"), indent=1)
PY
"$DRIVER" -p "$BUILD_DIR/demo" --fix --quiet "$BUILD_DIR/demo/examples" >/dev/null || true
for f in examples/*.cpp; do
  diff -u --label "a/$f" --label "b/$f" "$f" "$BUILD_DIR/demo/$f" || true
done

echo "== memory before/after the fixes (runtime companion: 50 iterations of each example's loop, CPU)"
# Each example and its fixed copy (examples/fixed/: the fix-its shown above,
# checked against clang-tidy --fix by the proof tests), built with the runtime.
echo "(building the fixed copies of the examples)"
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

echo "== libtorch-tidy verify: the fix proven on a bundled program (fix a copy, instrument, build, run both)"
"$DRIVER" verify examples/eval_without_no_grad.cpp -p "$BUILD_DIR" --iterations 60 \
  --json "$BUILD_DIR/demo/verify.json" --plot "$BUILD_DIR/demo/verify.svg" || true
echo "(memory per iteration before and after the fix: $BUILD_DIR/demo/verify.svg; see docs/verify.md)"
