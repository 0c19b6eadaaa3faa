#!/usr/bin/env bash
# The checks' share over parsing on hostile source (scripts/gen-hostile.py:
# nested expressions, a huge function, template recursion, loop macros, a
# 50,000-line translation unit), against the real LibTorch: clang-tidy's
# per-check profile of all torch- checks (user + system) over the CPU time of
# the parse alone (clang-tidy with one near-free torch- check, as
# scripts/bench-checks.sh does: the parse and the core's walk of each body). CPU times, not wall times: the figure holds
# on a loaded machine. docs/performance.md has the figures.
#   bash scripts/bench-hostile.sh [KIND...]      (default: all five)
set -euo pipefail
cd "$(dirname "$0")/.."
V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
TIDY=/usr/lib/llvm-$V/bin/clang-tidy
B=${BUILD_DIR:-build}
PLUGIN=$B/lib/LibTorchTidy.so
FLAGS=(-std=c++17 -isystem /usr/include/torch/csrc/api/include ${EXTRA_FLAGS:-})
OUT=$B/bench-hostile
mkdir -p "$OUT"
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(nested huge templates macros big)

# cpu SECONDS-FILE COMMAND...: runs it, writes its user+system seconds.
cpu() {
  local f=$1
  shift
  python3 - "$f" "$@" <<'PY'
import resource, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(out, "w").write("%.3f\n" % (u.ru_utime + u.ru_stime))
sys.stdout.write(r.stdout)
PY
}

printf '%-10s %8s %12s %14s %8s\n' file lines "parse (CPU)" "torch- checks" share
for k in "${kinds[@]}"; do
  f=$OUT/$k.cpp
  python3 scripts/gen-hostile.py "$k" "$f"
  cpu "$OUT/$k.parse" "$TIDY" --load "$PLUGIN" --checks='-*,torch-dataloader-defaults' "$f" -- "${FLAGS[@]}" \
    >"$OUT/$k.parse.log"
  if grep -q 'error:' "$OUT/$k.parse.log"; then
    echo "bench-hostile: $f does not compile:" >&2
    grep -m3 'error:' "$OUT/$k.parse.log" >&2
    exit 2
  fi
  "$TIDY" --load "$PLUGIN" --checks='-*,torch-*' --enable-check-profile "$f" -- "${FLAGS[@]}" \
    >"$OUT/$k.checks.log" 2>&1
  # The profile's "Total" line: user, system, user+system, wall.
  checks=$(awk '/Total Execution Time/ {p=1} p && /Total$/ {print; exit}' "$OUT/$k.checks.log" \
           | sed -nE 's/^ *[0-9.]+ *\([^)]*\) +[0-9.]+ *\([^)]*\) +([0-9.]+) .*/\1/p')
  parse=$(cat "$OUT/$k.parse")
  printf '%-10s %8s %10s s %12s s %7s\n' "$k" "$(wc -l <"$f")" "$parse" "${checks:-?}" \
    "$(awk -v a="${checks:-0}" -v b="$parse" 'BEGIN { printf "%.2f %%", a * 100 / b }')"
done
