#!/usr/bin/env bash
# Cold run of the checks over a real project, run-clang-tidy against libtorch-tidy (docs/performance.md, "Driver"):
# CPU time of all processes and wall time of each, and the findings of both compared by file, line, column and check.
#
#   scripts/bench-project.sh PROJECT OUT [BUILD]
#
# PROJECT holds compile_commands.json (scripts/precision-projects.sh writes one for the projects of
# docs/precision.md). libtorch-tidy runs with an empty cache in OUT/cache, so it builds its precompiled LibTorch
# header too; its summary lines (how many units got the precompiled header, and why the others did not) are in
# OUT/libtorch-tidy.log. JOBS=N sets both tools' parallel runs (default 2).
set -euo pipefail

PROJECT=$(realpath "${1:?usage: bench-project.sh PROJECT OUT [BUILD]}")
OUT=$(realpath -m "${2:?usage: bench-project.sh PROJECT OUT [BUILD]}")
BUILD=$(realpath "${3:-build}")
JOBS=${JOBS:-2}
[[ -f $PROJECT/compile_commands.json ]] || { echo "bench-project.sh: no $PROJECT/compile_commands.json" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT/cache"

measure() { # NAME COMMAND...: runs it, appends "NAME cpu=... wall=..." to OUT/times.txt
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$OUT/$name.cpu" "$@" > "$OUT/$name.out" 2> "$OUT/$name.log" || true
  end=$(date +%s.%N)
  read -r user sys < <(tail -n 1 "$OUT/$name.cpu")
  printf '%s cpu=%.1fs wall=%.1fs\n' "$name" "$(echo "$user + $sys" | bc)" "$(echo "$end - $start" | bc)" \
    | tee -a "$OUT/times.txt"
}

measure run-clang-tidy run-clang-tidy-19 -quiet -j "$JOBS" -load "$BUILD/lib/LibTorchTidy.so" \
  -checks='-*,torch-*' -p "$PROJECT"
measure libtorch-tidy "$BUILD/bin/libtorch-tidy" -p "$PROJECT" -j "$JOBS" --checks='-*,torch-*' \
  --cache-dir="$OUT/cache" --format=json --output="$OUT/libtorch-tidy.json"
grep '^libtorch-tidy:' "$OUT/libtorch-tidy.log" | tr '\r' '\n' | grep '^libtorch-tidy:' || true

python3 - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
plain = set()
for line in open(f"{out}/run-clang-tidy.out", errors="replace"):
    m = re.match(r"^(/[^:]+):(\d+):(\d+): (?:warning|error): .* \[(torch-[\w-]+)(?:,[^\]]*)?\]$", line.strip())
    if m:
        plain.add((m[1], int(m[2]), int(m[3]), m[4]))
driver = {(f["file"], f["line"], f["column"], f["check"])
          for f in json.load(open(f"{out}/libtorch-tidy.json"))["findings"]}
print(f"findings: run-clang-tidy {len(plain)}, libtorch-tidy {len(driver)}, "
      f"{'the same' if plain == driver else 'DIFFERENT'}")
for k in sorted(plain ^ driver):
    print(("  only run-clang-tidy: " if k in plain else "  only libtorch-tidy: ") + f"{k[0]}:{k[1]}:{k[2]} {k[3]}")
sys.exit(0 if plain == driver else 1)
PY
