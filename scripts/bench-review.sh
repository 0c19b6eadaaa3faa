#!/usr/bin/env bash
# Times `libtorch-tidy review` on a pull request that touches 3 files of a
# 16-file project (scripts/bench-driver.sh's tree: 8 translation units on real
# <torch/torch.h>, 8 without LibTorch), from the review command starting on the
# pushed commit to the review posted on a local server playing GitHub
# (test/driver/Inputs/fake_forge.py, 127.0.0.1 only):
#   1. the base branch's CI run (`libtorch-tidy -p .` on the base commit, empty
#      cache) fills the results cache and builds the precompiled LibTorch header;
#   2. the pull request's first push: 2 LibTorch files and 1 other file change
#      (one new finding); the review with that warm cache;
#   3. its next push (model_1.cpp edited again): the review, the cache warm
#      from the base run and the first push;
#   4. the same review with an empty cache, for comparison.
# Wall time and the CPU time of every child process (steadier on a shared
# machine), with the load average; the driver's summary lines say what each
# run took from the cache and whether it used the precompiled header.
#   JOBS=2 bash scripts/bench-review.sh      (after the build)
# TIDY=path/to/libtorch-tidy times another build of the command.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
ROOT=$SRC/$BUILD_DIR/bench-review
rm -rf "$ROOT"
BENCH_ROOT=$ROOT GENERATE_ONLY=1 N=8 BUILD_DIR=$BUILD_DIR bash scripts/bench-driver.sh

cd "$ROOT"
printf '.libtorch-tidy-cache/\n*.json\n' > .gitignore
git init -q . && git add -A && git -c user.name=b -c user.email=b@example.com commit -qm base
TIDY=$(realpath "${TIDY:-$SRC/$BUILD_DIR/bin/libtorch-tidy}")
python3 - "$SRC" "$JOBS" "$TIDY" <<'PY'
import json, os, re, resource, shutil, subprocess, sys, time
src, jobs, tidy = sys.argv[1:4]
inputs = os.path.join(src, "test", "driver", "Inputs")
cache = os.path.abspath(".libtorch-tidy-cache")
shutil.rmtree(cache, ignore_errors=True)
git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]

def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])

def run(name, cmd, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    print("%-44s wall %6.1f s   cpu %6.1f s   exit %d   (load %s)" % (name + ":", wall, cpu, p.returncode, loadavg()))
    for l in p.stderr.splitlines():
        if l.startswith("libtorch-tidy"):
            print("    " + l)
    return p

print("== 16 translation units, 8 with LibTorch; -j%s; %d cores; load average %s" % (jobs, os.cpu_count(), loadavg()))
# 1. The base branch's run: fills the cache, builds the precompiled header.
run("base commit, libtorch-tidy -p . (cold)", [tidy, "-p", ".", "-j", jobs, "--quiet"])

# 2. The pull request: a new evaluation function (a finding) in model_1.cpp,
# a changed hyper-parameter in model_2.cpp, a changed data file.
with open("src/model_1.cpp", "a") as f:
    f.write("\n// Added by the pull request.\n"
            "double predict_all_1(Classifier &model, torch::Tensor x) {\n"
            "  return model->forward(x).sum().item<double>();\n}\n")
m2 = open("src/model_2.cpp").read().replace("SGDOptions(0.05)", "SGDOptions(0.02)")
open("src/model_2.cpp", "w").write(m2)
d1 = open("src/data_1.cpp").read().replace("std::mt19937(42)", "std::mt19937(7)")
open("src/data_1.cpp", "w").write(d1)
subprocess.check_call(git + ["commit", "-qam", "pull request"])
event = subprocess.check_output([sys.executable, os.path.join(inputs, "github_event.py"), "7"], text=True)
open("event.json", "w").write(event)
env = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_REPOSITORY="o/r", GITHUB_API_URL="@API@",
           GITHUB_TOKEN="secret-token", GITHUB_EVENT_PATH=os.path.abspath("event.json"))

def review(name, state):
    if os.path.exists(state):
        os.remove(state)
    run(name, [sys.executable, os.path.join(inputs, "fake_forge.py"), state, "--",
               tidy, "review", "-p", ".", "-j", jobs], env)
    posted = json.load(open(state))
    reviews = [r for r in posted["requests"] if r["method"] == "POST" and r["path"].endswith("/reviews")]
    if len(reviews) != 1:
        sys.exit("no review posted (%d review POSTs)" % len(reviews))
    comments = reviews[0]["body"].get("comments", [])
    print("    posted: 1 review, %d inline comments (%s)" % (
        len(comments), ", ".join("%s:%s" % (c["path"], c["line"]) for c in comments)))

# 3. From the push to the posted review: warm cache, then cold.
review("review of the first push, warm cache", "warm.json")
with open("src/model_1.cpp", "a") as f:
    f.write("// Reviewed.\n")
subprocess.check_call(git + ["commit", "-qam", "next push"])
event = subprocess.check_output([sys.executable, os.path.join(inputs, "github_event.py"), "7", "HEAD~2"], text=True)
open("event.json", "w").write(event)
review("review of the next push, warm cache", "next.json")
shutil.rmtree(cache)
review("review of the next push, cold cache", "cold.json")
PY
