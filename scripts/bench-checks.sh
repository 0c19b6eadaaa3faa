#!/usr/bin/env bash
# Measures what the torch- checks cost over parsing alone, on a real LibTorch
# file: clang-tidy with no check (parse only), with every torch- check, and
# with clang-tidy's own performance-* for comparison. Best of N runs each, plus
# clang-tidy's per-check profile.
#   scripts/bench-checks.sh [FILE] [RUNS]      (FILE "" for the default)
# PERF=0 skips the performance-* comparison; EXTRA_FLAGS adds compiler flags.
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=${1:-test/e2e/Inputs/verify_eval.cpp}
[ -n "$FILE" ] || FILE=test/e2e/Inputs/verify_eval.cpp
RUNS=${2:-3}
TIDY=/usr/lib/llvm-${LIBTORCH_TIDY_LLVM_VERSION:-19}/bin/clang-tidy
PLUGIN=${BUILD_DIR:-build}/lib/LibTorchTidy.so
FLAGS=(-- -std=c++17 -isystem /usr/include/torch/csrc/api/include -Iruntime/include ${EXTRA_FLAGS:-})
# The baseline is parsing alone. clang-tidy with no check at all exits before
# parsing, and clang-tidy's own checks are not free on these headers (even
# llvm-namespace-comment doubles the time), so the baseline runs one torch-
# check, whose own cost (its line in the profile below) is under a millisecond;
# the baseline then includes the core's one walk of each body (the facts the
# check reads), about 0.1 s of the 50,000-line file's 14 s (0.7 %).
BASELINE='-*,torch-dataloader-defaults'
if "$TIDY" --load "$PLUGIN" --checks="$BASELINE" "$FILE" "${FLAGS[@]}" 2>&1 | grep -q 'error:'; then
  echo "bench-checks: $FILE does not compile with ${FLAGS[*]}" >&2
  exit 2
fi

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

parse=$(best "$TIDY" --load "$PLUGIN" --checks="$BASELINE" "$FILE" "${FLAGS[@]}")
torch=$(best "$TIDY" --load "$PLUGIN" --checks='-*,torch-*' "$FILE" "${FLAGS[@]}")
perf=0
[ "${PERF:-1}" = 0 ] || perf=$(best "$TIDY" --checks='-*,performance-*' "$FILE" "${FLAGS[@]}")
echo "file: $FILE (best of $RUNS)"
echo "parse (baseline):  ${parse} ms"
echo "all torch- checks: ${torch} ms ($(pct "$torch" "$parse"))"
[ "${PERF:-1}" = 0 ] || echo "performance-*:     ${perf} ms ($(pct "$perf" "$parse"))"
echo "per-check profile (torch- checks):"
"$TIDY" --load "$PLUGIN" --checks='-*,torch-*' --enable-check-profile "$FILE" "${FLAGS[@]}" 2>&1 >/dev/null \
  | sed -n '/Total Execution Time/,/Total$/p'
