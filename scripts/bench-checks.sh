#!/usr/bin/env bash
# Measures what the torch- checks cost over parsing alone, on a real LibTorch
# file: clang-tidy with no check (parse only), with every torch- check, and
# with clang-tidy's own performance-* for comparison. Best of N runs each, plus
# clang-tidy's per-check profile.
#   scripts/bench-checks.sh [FILE] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=${1:-examples/eval_without_no_grad.cpp}
RUNS=${2:-3}
TIDY=/usr/lib/llvm-${LIBTORCH_TIDY_LLVM_VERSION:-19}/bin/clang-tidy
PLUGIN=${BUILD_DIR:-build}/lib/LibTorchTidy.so
FLAGS=(-- -std=c++17 -isystem /usr/include/torch/csrc/api/include)

# Prints the best wall time of RUNS runs of the command, in milliseconds.
best() {
  local best=0
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    local t=$(((e - s) / 1000000))
    if ((best == 0 || t < best)); then best=$t; fi
  done
  echo "$best"
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", (a - b) * 100 / b }'; }

parse=$(best "$TIDY" --allow-no-checks --checks='-*' "$FILE" "${FLAGS[@]}")
torch=$(best "$TIDY" --load "$PLUGIN" --checks='-*,torch-*' "$FILE" "${FLAGS[@]}")
perf=$(best "$TIDY" --checks='-*,performance-*' "$FILE" "${FLAGS[@]}")
echo "file: $FILE (best of $RUNS)"
echo "parse only:        ${parse} ms"
echo "all torch- checks: ${torch} ms ($(pct "$torch" "$parse"))"
echo "performance-*:     ${perf} ms ($(pct "$perf" "$parse"))"
echo "per-check profile (torch- checks):"
"$TIDY" --load "$PLUGIN" --checks='-*,torch-*' --enable-check-profile "$FILE" "${FLAGS[@]}" 2>&1 >/dev/null \
  | sed -n '/Total Execution Time/,/Total$/p'
