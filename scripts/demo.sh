#!/usr/bin/env bash
# Sets up and builds libtorch-tidy, runs the torch- checks on the bundled
# examples, shows the findings and the fixed code.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
bash scripts/setup.sh >/dev/null
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
