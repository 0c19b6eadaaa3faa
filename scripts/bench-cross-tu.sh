#!/usr/bin/env bash
# The cost of --cross-tu on scripts/bench-driver.sh's tree (8 LibTorch training
# programs, 8 files without LibTorch): libtorch-tidy cold (empty cache), warm,
# and after one LibTorch file is edited, plain and with --cross-tu, as CPU time
# of all processes (steadier than wall time on a shared machine). The findings
# of each --cross-tu run are compared with the plain run's (nothing crosses a
# file boundary in this tree: they must be equal).
#   N=8 JOBS=2 bash scripts/bench-cross-tu.sh     (after the build)
# DRIVER=PATH measures another build's libtorch-tidy (its plugin beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_SCRIPTS=$PWD/scripts  # bench_run.py: one timed run
BUILD_DIR=${BUILD_DIR:-build}
ROOT=${BENCH_ROOT:-$(pwd)/$BUILD_DIR/bench-cross-tu}
DRIVER=${DRIVER:-$(pwd)/$BUILD_DIR/bin/libtorch-tidy}
GENERATE_ONLY=1 BENCH_ROOT="$ROOT" BUILD_DIR="$BUILD_DIR" N=${N:-8} bash scripts/bench-driver.sh
cd "$ROOT"
echo "== $(ls src | wc -l) translation units; -j${JOBS:-2}; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$DRIVER" "${JOBS:-2}" <<'PY'
import os, shutil, sys
sys.path.insert(0, os.environ["BENCH_SCRIPTS"])
import bench_run
driver, jobs = sys.argv[1:3]
run = bench_run.run

results = {}
for mode, extra in [("plain", []), ("--cross-tu", ["--cross-tu"])]:
    cache = os.path.abspath(".cache-" + mode.strip("-"))
    shutil.rmtree(cache, ignore_errors=True)
    with open("src/model_1.cpp") as f:
        original = f.read()
    cmd = [driver, "-p", ".", "-j", jobs, "--cache-dir=" + cache] + extra
    cold = run(mode + ", cold", cmd)
    warm = run(mode + ", warm", cmd)
    with open("src/model_1.cpp", "a") as f:
        f.write("// edited\n")
    edit = run(mode + ", model_1.cpp edited", cmd)
    with open("src/model_1.cpp", "w") as f:
        f.write(original)
    results[mode] = (cold, warm, edit)
ok = True
for i, name in enumerate(["cold", "warm", "edited"]):
    p, c = results["plain"][i], results["--cross-tu"][i]
    same = p[1] == c[1] and p[1]
    ok &= bool(same)
    print("%-7s --cross-tu / plain CPU: %.2fx; findings %s" % (name, c[0] / max(p[0], 1e-3),
                                                          "equal" if same else "DIFFER"))
sys.exit(0 if ok else 1)
PY
