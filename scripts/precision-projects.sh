#!/usr/bin/env bash
# Precision round on whole multi-file projects (docs/precision.md, "Multi-file projects"): for each project
# directory under PROJECTS (one per repository, <owner>_<repo>, reconstructed as that section says), write a
# compile_commands.json, then run the driver on it twice, single-file and with --cross-tu, and print the
# findings per check of both runs and the difference.
#
#   scripts/precision-projects.sh PROJECTS OUT [BUILD [NAME...]]
#
# NAMEs, when given, restrict the run to those project directories of PROJECTS.
# A project's translation units are its .cpp, .cc and .cxx files outside _stubs/ directories (or, when the file
# PROJECT/audit-units exists, the paths it lists, one per line, relative to PROJECT); each is compiled with
# -std=c++17, the LibTorch include flags of BUILD's configuration, -I PROJECT/src when it exists, -I for every
# _stubs/ directory of the project (stand-ins for headers and libraries the audit does not have) and the
# arguments of PROJECT/audit-flags when it exists (one per line; $PROJECT in a line is the project's path, so
# `-I$PROJECT/include` or `-DROOT_DIR="/tmp"`). Findings in headers under PROJECT/src/ are reported too, or in
# the headers matching the regex of PROJECT/audit-header-filter when it exists ($PROJECT substituted likewise).
# OUT receives, per project, single.json and cross-tu.json (the driver's JSON reports), *.log (its progress
# and summary lines) and time.txt (CPU and wall of each run). CACHE=DIR uses that results cache (default:
# none, so every run is cold); JOBS=N the parallel runs (default 2); NICE=N runs the driver under nice -n N;
# MODES='single' skips the --cross-tu run (default 'single cross-tu'; the comparison then lists single-file only).
set -euo pipefail

PROJECTS=$(realpath "${1:?usage: precision-projects.sh PROJECTS OUT [BUILD]}")
OUT=$(realpath -m "${2:?usage: precision-projects.sh PROJECTS OUT [BUILD]}")
BUILD=$(realpath "${3:-build}")
shift $(( $# < 3 ? $# : 3 ))
ONLY=("$@")
JOBS=${JOBS:-2}
TIDY="$BUILD/bin/libtorch-tidy"
[[ -x $TIDY ]] || { echo "precision-projects.sh: $TIDY not found (build first)" >&2; exit 2; }
TORCH_FLAGS=$(sed -n 's/^config.torch_cxxflags = "\(.*\)"$/\1/p' "$BUILD/test/driver/lit.site.cfg.py")
[[ -n $TORCH_FLAGS ]] || { echo "precision-projects.sh: no LibTorch flags in $BUILD/test/driver/lit.site.cfg.py" >&2; exit 2; }
mkdir -p "$OUT"
worst=0

for proj in "$PROJECTS"/*/; do
  proj=${proj%/}
  name=$(basename "$proj")
  if (( ${#ONLY[@]} )) && [[ " ${ONLY[*]} " != *" $name "* ]]; then continue; fi
  python3 - "$proj" "$TORCH_FLAGS" <<'PY'
import json, os, shlex, sys
root, flags = sys.argv[1], shlex.split(sys.argv[2])
incs, units = [], []
if os.path.isdir(os.path.join(root, "src")):
    incs += ["-I", os.path.join(root, "src")]
for d, subdirs, files in sorted(os.walk(root)):
    subdirs.sort()
    if os.path.basename(d) == "_stubs":
        incs += ["-I", d]
        subdirs[:] = []
        continue
    units += [os.path.join(d, f) for f in sorted(files) if f.endswith((".cpp", ".cc", ".cxx"))]
listed = os.path.join(root, "audit-units")
if os.path.isfile(listed):
    units = [os.path.join(root, l.strip()) for l in open(listed) if l.strip() and not l.startswith("#")]
extra = []
if os.path.isfile(os.path.join(root, "audit-flags")):
    extra = [l.strip().replace("$PROJECT", root) for l in open(os.path.join(root, "audit-flags"))
             if l.strip() and not l.startswith("#")]
entries = [{"directory": os.path.dirname(f), "file": f,
            "arguments": ["c++", "-std=c++17", *flags, *incs, *extra, "-c", f]} for f in units]
json.dump(entries, open(os.path.join(root, "compile_commands.json"), "w"), indent=1)
print(f"{os.path.basename(root)}: {len(entries)} translation units")
PY
  mkdir -p "$OUT/$name"
  filter="^$proj/src/"
  [[ -f $proj/audit-header-filter ]] && filter=$(sed "s#\$PROJECT#$proj#g" "$proj/audit-header-filter")
  for mode in ${MODES:-single cross-tu}; do
    args=(-p "$proj" -j "$JOBS" --format=json --output="$OUT/$name/$mode.json" --header-filter="$filter")
    [[ $mode == cross-tu ]] && args+=(--cross-tu)
    if [[ -n ${CACHE:-} ]]; then args+=(--cache-dir="$CACHE"); else args+=(--no-cache); fi
    start=$(date +%s.%N)
    rc=0
    /usr/bin/time -f "%U %S" -o "$OUT/$name/$mode.cpu" nice -n "${NICE:-0}" "$TIDY" "${args[@]}" 2> "$OUT/$name/$mode.log" || rc=$?
    end=$(date +%s.%N)
    if (( rc > 1 )); then # a unit not analysed (2) or a crash (4): say so, keep the report, go on, fail at the end
      echo "$name $mode: libtorch-tidy exited $rc (see $OUT/$name/$mode.log)" >&2
      (( rc > worst )) && worst=$rc
    fi
    read -r user sys < <(tail -n 1 "$OUT/$name/$mode.cpu") # time(1) puts "Command exited with non-zero status 1" first
    printf '%s %s cpu=%.1fs wall=%.1fs\n' "$name" "$mode" "$(echo "$user + $sys" | bc)" "$(echo "$end - $start" | bc)" \
      | tee -a "$OUT/$name/time.txt"
  done
  python3 - "$OUT/$name" <<'PY'
import collections, json, os, sys
d = sys.argv[1]
def load(mode):
    if not os.path.exists(os.path.join(d, mode + ".json")):
        return {}
    doc = json.load(open(os.path.join(d, mode + ".json")))
    items = doc["findings"] if isinstance(doc, dict) else doc
    return {(f["file"], f["line"], f["column"], f["check"]): f["message"] for f in items}
single, cross = load("single"), load("cross-tu")
if not os.path.exists(os.path.join(d, "cross-tu.json")):  # MODES=single
    for check, n in sorted(collections.Counter(k[3] for k in single).items()):
        print(f"  {check}: single-file {n}")
    sys.exit(0)
counts = collections.Counter(k[3] for k in single), collections.Counter(k[3] for k in cross)
for check in sorted(set(counts[0]) | set(counts[1])):
    print(f"  {check}: single-file {counts[0][check]}, --cross-tu {counts[1][check]}")
for k in sorted(single.keys() - cross.keys()):
    print(f"  only single-file: {k[0]}:{k[1]}:{k[2]} {k[3]}")
for k in sorted(cross.keys() - single.keys()):
    print(f"  only --cross-tu: {k[0]}:{k[1]}:{k[2]} {k[3]}: {cross[k]}")
PY
done
exit "$worst"
