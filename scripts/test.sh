#!/usr/bin/env bash
# Sets up, builds and runs every test: the checks' lit suite, the driver's
# lit suite, the runtime's GoogleTest and the end-to-end tests that compile and
# run real LibTorch programs. Ends with a table of the seconds of each step and
# of each ctest test (docs/ci.md has the measured figures); when a step fails
# the others still run, and the exit status is non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
export LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS=${LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS-22}
BUILD_DIR=${BUILD_DIR:-build}
timing=$(mktemp -d)   # steps.tsv, tests.tsv: "seconds<TAB>status<TAB>name" lines
trap 'rm -rf "$timing"' EXIT
failed=()
now() { date +%s%N; }
tenths() { local d=$(( ($(now) - $1) / 100000000 )); echo "$((d / 10)).$((d % 10))"; }
all_start=$(now)

# step NAME COMMAND...: runs it and records its seconds and status.
step() {
  local name=$1 start status=ok
  shift
  echo "== $name"
  start=$(now)
  "$@" || status=FAILED
  printf '%s\t%s\t%s\n' "$(tenths "$start")" "$status" "$name" >>"$timing/steps.tsv"
  [ "$status" = ok ] || failed+=("$name")
}

# ctest_in DIR [ARGS...]: ctest, keeping each test's seconds from its
# "N/M Test #K: name ....   Passed   12.34 sec" line.
ctest_in() {
  local dir=$1 rc=0
  shift
  ctest --test-dir "$dir" --output-on-failure -j"${CTEST_JOBS:-1}" "$@" | tee "$timing/ctest.log" \
    || rc=$?
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+ *(\*\*\*)?([A-Za-z][A-Za-z ]*[a-z]) +([0-9.]+) sec$/\4\t\3\t'"${dir//\//\\/}"': \1/p' \
    "$timing/ctest.log" | sed -E 's/\tPassed\t/\tok\t/' >>"$timing/tests.tsv"
  return "$rc"
}

step setup bash scripts/setup.sh
if [ "${#failed[@]}" -ne 0 ]; then
  echo "test: setup failed" >&2
  exit 1
fi
# The downloads of test-torch2.sh (the 540 MB torch wheel, the CUDA runtime
# wheels, its virtual environment of about 3 GB) in the background, at low
# priority, while the steps below build and test: the network's time overlaps
# the CPU's. The step waits for it; whatever it left undone, the step does.
fetch_pid=""
if [ "${LIBTORCH_TIDY_SKIP_TORCH2:-0}" != 1 ]; then
  nice -n 10 bash scripts/test-torch2.sh --fetch >"$timing/torch2-fetch.log" 2>&1 &
  fetch_pid=$!
fi
wait_fetch() {
  if [ -n "$fetch_pid" ]; then
    wait "$fetch_pid" || echo "test: the background downloads failed (the step retries them):" >&2
    sed 's/^/  /' "$timing/torch2-fetch.log"
    fetch_pid=""
  fi
}
step "ctest $BUILD_DIR" ctest_in "$BUILD_DIR"
# The other clang-tidy versions: the checks' and the driver's lit suites and
# the package; the end-to-end LibTorch tests ran once above (label e2e).
for v in $LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS; do
  step "ctest build-$v" ctest_in "build-$v" -LE e2e
done
# The driver's parsers of outside input and the checks under libFuzzer with
# ASan and UBSan (test/fuzz, docs/fuzzing.md): 10,000 inputs per parser's
# target from a fixed seed and the seed corpora (a few seconds each), 150 for
# the checks' target (FUZZ_CHECKS_RUNS, about a minute), after building them
# with clang in build-fuzz/; scripts/fuzz.sh alone runs longer.
# LIBTORCH_TIDY_SKIP_FUZZ=1 skips it.
if [ "${LIBTORCH_TIDY_SKIP_FUZZ:-0}" != 1 ]; then
  step "fuzz.sh (10000 inputs per target)" env FUZZ_RUNS="${FUZZ_RUNS:-10000}" bash scripts/fuzz.sh
fi
# The crash sweep's bounded subset (docs/crash-sweep.md): every torch- check
# over 14 units of Debian packages' headers compiled as user code next to
# <torch/torch.h> (nlohmann-json, Boost, Eigen, OpenCV, pybind11, fmt,
# spdlog, cxxopts, GoogleTest, LLVM ADT and Support, libstdc++), about 2
# minutes; a crash, a hang or a unit whose checks did not finish fails it.
# scripts/crash-sweep.sh alone runs the whole sweep. LIBTORCH_TIDY_SKIP_SWEEP=1
# skips it.
if [ "${LIBTORCH_TIDY_SKIP_SWEEP:-0}" != 1 ]; then
  step "crash-sweep.sh --quick" bash scripts/crash-sweep.sh --quick --build "$BUILD_DIR" \
    --out "$BUILD_DIR/crash-sweep" --timeout 600
fi
# The command and the scope module built with ASan and UBSan (build-asan/,
# GCC) over the driver's lit suite, the plain plugin of build/ loaded beside
# them (docs/sanitizers.md: about 4 min of CPU, the build most of it); a
# sanitizer report fails it. scripts/sanitize.sh alone also sanitizes the
# plugin and runs the checks' suite and a corpus. LIBTORCH_TIDY_SKIP_SANITIZE=1
# skips it.
if [ "${LIBTORCH_TIDY_SKIP_SANITIZE:-0}" != 1 ]; then
  step "sanitize.sh (CI subset)" env SANITIZE_SUBSET=ci BUILD_DIR="$BUILD_DIR" bash scripts/sanitize.sh
fi
# The runtime companion against LibTorch 2.x from the PyPI torch wheel (about
# 2-3 minutes on 2 cores once the 540 MB wheel is cached in .whl/; see
# docs/runtime.md). LIBTORCH_TIDY_SKIP_TORCH2=1 skips it.
if [ "${LIBTORCH_TIDY_SKIP_TORCH2:-0}" != 1 ]; then
  wait_fetch
  step "test-torch2.sh" bash scripts/test-torch2.sh
fi
# The runtime's memory snapshots in PyTorch's memory_viz reader (PyPI torch on
# CPU; about 30 s once its virtual environment exists, see docs/runtime.md).
# LIBTORCH_TIDY_SKIP_SNAPSHOT_FORMAT=1 skips it.
if [ "${LIBTORCH_TIDY_SKIP_SNAPSHOT_FORMAT:-0}" != 1 ]; then
  wait_fetch
  step "test-snapshot-format.sh" bash scripts/test-snapshot-format.sh
fi

echo
echo "== seconds per step and per ctest test"
{
  [ -f "$timing/steps.tsv" ] && sed 's/^/step\t/' "$timing/steps.tsv"
  [ -f "$timing/tests.tsv" ] && sed 's/^/  test\t/' "$timing/tests.tsv"
} | awk -F'\t' '{ printf "%-6s %8s s  %-7s %s\n", $1, $2, $3, $4 }'
printf '%-6s %8s s\n' total "$(tenths "$all_start")"
if [ "${#failed[@]}" -ne 0 ]; then
  echo "test: failed: ${failed[*]}" >&2
  exit 1
fi
