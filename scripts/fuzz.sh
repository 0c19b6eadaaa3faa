#!/usr/bin/env bash
# Builds the libFuzzer targets (test/fuzz: the driver's parsers and the
# checks) with clang-<N>, AddressSanitizer and UndefinedBehaviorSanitizer in
# build-fuzz/, and runs each for FUZZ_SECONDS (default 60) from its seed corpus
# (test/fuzz/corpus/<target>, read only, and for the checks also the checks'
# lit tests, test/checks/*.cpp; new inputs go to build-fuzz/corpus/<target>).
# Prints executions and coverage per target; a crash, a leak, a sanitizer
# report or a hang fails the script and leaves the input in
# build-fuzz/artifacts/. docs/fuzzing.md has the figures.
#   FUZZ_RUNS=10000 bash scripts/fuzz.sh     the short run of scripts/test.sh
#   bash scripts/fuzz.sh merge-report        one target
set -euo pipefail
cd "$(dirname "$0")/.."
LLVM_V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
FUZZ_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
# FUZZ_RUNS=N: N inputs per target from a fixed seed instead of a time budget,
# the same inputs on every machine (what scripts/test.sh runs, so that CI
# fails only on a change, not on a lucky seed).
# The checks' target runs a whole clang-tidy per input (about 2 a second under
# the sanitizers, its seed corpus alone about half a minute on 2 cores), so it
# gets FUZZ_CHECKS_RUNS inputs instead (default 150: about a minute). New
# inputs of a FUZZ_RUNS run go to a directory emptied first, so that what an
# earlier run found does not change the inputs.
budget=(-max_total_time="$SECONDS_EACH")
[ -n "${FUZZ_RUNS:-}" ] && budget=(-runs="$FUZZ_RUNS" -seed=1) && SECONDS_EACH=-
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(compile-db baseline git-diff merge-report cache-entry exported-fixes summary-document checks)

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
mkdir -p "$FUZZ_DIR"
# -O0: with ASan, UBSan and coverage, an optimised build of the checks costs
# twice the compile (53 s against 26 s for one check with clang 19) for inputs
# whose time goes to Clang's own parser, built optimised by Debian. NDEBUG as
# in the plugin users load.
cmake -S . -B "$FUZZ_DIR" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER="clang++-$LLVM_V" -DLIBTORCH_TIDY_LLVM_VERSION="$LLVM_V" -DLIBTORCH_TIDY_FUZZ=ON \
  -DLIBTORCH_TIDY_BUILD_RUNTIME=OFF -DLIBTORCH_TIDY_BUILD_EXAMPLES=OFF >"$FUZZ_DIR/configure.log" 2>&1 \
  || { cat "$FUZZ_DIR/configure.log"; exit 1; }
cmake --build "$FUZZ_DIR" --target fuzz-targets -j"$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$FUZZ_DIR/artifacts"
stats=$FUZZ_DIR/fuzz-stats.tsv
printf 'target\tseconds\texecutions\texec/s\tcoverage (edges)\tfeatures\tcorpus\tresult\n' >"$stats"
status=0
for t in "${targets[@]}"; do
  corpus=$FUZZ_DIR/corpus/$t
  if [ -n "${FUZZ_RUNS:-}" ]; then
    corpus=$FUZZ_DIR/corpus-runs/$t
    rm -rf "$corpus"
  fi
  mkdir -p "$corpus"
  log=$FUZZ_DIR/fuzz-$t.log
  result=ok
  seeds=("test/fuzz/corpus/$t")
  run_budget=("${budget[@]}")
  close=1
  if [ "$t" = checks ]; then
    # The lit tests as seeds, their RUN and CHECK comments removed.
    lit=$FUZZ_DIR/seeds/checks
    rm -rf "$lit" && mkdir -p "$lit"
    for f in test/checks/*.cpp; do
      sed -E '/^[[:space:]]*\/\/ *(RUN|CHECK[A-Z0-9-]*):/d; s#[[:space:]]*// *CHECK[A-Z0-9-]*:.*$##' \
        "$f" >"$lit/$(basename "$f")"
    done
    seeds+=("$lit")
    [ -n "${FUZZ_RUNS:-}" ] && run_budget=(-runs="${FUZZ_CHECKS_RUNS:-150}" -seed=1)
    close=3 # clang's "N errors generated" on stderr; libFuzzer and the sanitizers keep theirs
  fi
  "$FUZZ_DIR/bin/fuzz-$t" "$corpus" "${seeds[@]}" "${run_budget[@]}" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask="$close" \
    -artifact_prefix="$FUZZ_DIR/artifacts/$t-" >"$log" 2>&1 || result=FAILED
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1 || true)
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9a-zA-Z]+).*/\1/p' <<<"$done_line")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$SECONDS_EACH" "${execs:--}" "${rate:--}" "${cov:--}" \
    "${ft:--}" "${corp:--}" "$result" >>"$stats"
  if [ "$result" != ok ]; then
    status=1
    echo "fuzz: $t failed; the end of $log:" >&2
    grep -vE '^(libtorch-tidy merge: error|#[0-9]+[[:space:]])' "$log" | tail -40 >&2
  fi
done
column -t -s $'\t' "$stats"
exit "$status"
