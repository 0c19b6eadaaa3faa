#!/usr/bin/env bash
# The cost of the cross-function analysis (docs/cross-function.md): generates a
# ~2,000-line LibTorch file of 200 functions whose loops reach helpers, trainer
# methods and evaluation functions through chains of calls, then measures it
# with scripts/bench-checks.sh (parse alone vs all torch- checks, and the
# per-check profile).
#   scripts/bench-calls.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${BUILD_DIR:-build}/bench-calls
mkdir -p "$OUT"
python3 scripts/gen-calls-bench.py "$OUT/calls.cpp" 200
PERF=0 bash scripts/bench-checks.sh "$OUT/calls.cpp" "${1:-3}"
