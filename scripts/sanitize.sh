#!/usr/bin/env bash
# Builds the plugin, the scope module and the libtorch-tidy command with
# AddressSanitizer and UndefinedBehaviorSanitizer (GCC, -O1) in build-asan/ and
# runs them over the driver's lit suite, the checks' lit suite and a corpus of
# real code: the examples and the LibTorch programs of the end-to-end tests
# (test/e2e/Inputs), every torch- check on each through the driver against the
# real LibTorch, with and without the precompiled header. Every sanitizer
# report is written to build-asan/sanitizer-logs/; the script fails when any
# test fails or any report was written. Wall and CPU seconds of each step go to
# build-asan/sanitize-summary.txt.
#   bash scripts/sanitize.sh            everything (docs/sanitizers.md has the figures)
#   SANITIZE_SUBSET=ci bash scripts/sanitize.sh
#                                       what scripts/test.sh runs: the sanitized
#                                       command and scope module over the driver's
#                                       lit suite, with the plain plugin of build/
#   SANITIZE_CORPUS=DIR SANITIZE_CORPUS_FLAGS=FILE bash scripts/sanitize.sh
#                                       also another corpus (docs/precision.md's),
#                                       through scripts/precision-audit.sh
#
# The plugin is loaded into Debian's clang-tidy, which is not sanitized: the
# ASan runtime must be the first library of the process, so clang-tidy runs
# through build-asan/clang-tidy-asan/clang-tidy, which preloads it (LD_PRELOAD)
# and turns leak detection off for that process (clang-tidy frees nothing at
# exit by design; the driver, a sanitized executable, keeps it on).
set -euo pipefail
cd "$(dirname "$0")/.."
LLVM_V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
B=${SANITIZE_BUILD_DIR:-build-asan}
SUBSET=${SANITIZE_SUBSET:-all}
mkdir -p "$B"
B=$(cd "$B" && pwd)
logs=$B/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"

asan_rt=$(g++ -print-file-name=libasan.so)
[ -f "$asan_rt" ] || { echo "sanitize: no libasan.so for g++ ($asan_rt)" >&2; exit 2; }
# The wrapper sits in a directory of its own with clang and clang++ beside
# it, as in LLVM's bin/: the command builds its precompiled LibTorch header
# with the clang beside clang-tidy, and find_package(LibTorchTidy) looks for
# clang-tidy there.
wrap=$B/clang-tidy-asan
rm -rf "$wrap" && mkdir -p "$wrap"
cat >"$wrap/clang-tidy" <<WRAP
#!/bin/sh
# clang-tidy $LLVM_V with the ASan runtime first, for the sanitized plugin.
export LD_PRELOAD="$asan_rt\${LD_PRELOAD:+:\$LD_PRELOAD}"
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0"
exec /usr/lib/llvm-$LLVM_V/bin/clang-tidy "\$@"
WRAP
chmod +x "$wrap/clang-tidy"
ln -s "/usr/lib/llvm-$LLVM_V/bin/clang" "$wrap/clang"
ln -s "/usr/lib/llvm-$LLVM_V/bin/clang++" "$wrap/clang++"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
cmake -S . -B "$B" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DLIBTORCH_TIDY_LLVM_VERSION="$LLVM_V" -DLIBTORCH_TIDY_SANITIZE=address,undefined \
  -DLIBTORCH_TIDY_CLANG_TIDY_WRAPPER="$wrap/clang-tidy" \
  -DLIBTORCH_TIDY_BUILD_RUNTIME=OFF -DLIBTORCH_TIDY_BUILD_EXAMPLES=OFF \
  `# the clangd server is not among the sanitized targets: nothing of it to install either` \
  -DLIBTORCH_TIDY_BUILD_CLANGD=OFF >"$B/configure.log" 2>&1 \
  || { cat "$B/configure.log"; exit 1; }
status=0
TIMEFORMAT='%R %U %S'
run() { # NAME COMMAND...: wall and CPU seconds (children included) to the summary
  local rc=0 t
  echo "== sanitize: $1"
  { t=$( { time "${@:2}" >&3 2>&4; } 2>&1 ) || rc=$?; } 3>&1 4>&2
  echo "${t##*$'\n'}" | awk -v n="$1" -v rc="$rc" '{ printf "%s: exit %s, %.0f s wall, %.0f s CPU\n", n, rc, $1, $2 + $3 }' \
    | tee -a "$B/sanitize-summary.txt"
  [ "$rc" = 0 ] || status=1
}
: >"$B/sanitize-summary.txt"
# The CI subset leaves the plugin out of the sanitized build (its ASan build
# costs about an hour of CPU) and loads the plain plugin of build/ instead.
mkdir -p "$B/lib"
if [ "$SUBSET" = ci ]; then
  plain=${SANITIZE_PLAIN_PLUGIN:-${BUILD_DIR:-build}/lib/LibTorchTidy.so}
  case $plain in /*) ;; *) plain=$PWD/$plain ;; esac
  [ -f "$plain" ] || { echo "sanitize: the CI subset loads the plugin $plain: build it first" >&2; exit 2; }
  ln -sfn "$plain" "$B/lib/LibTorchTidy.so"
  targets=(LibTorchTidyScope libtorch-tidy libtorch-tidy-instrument)
else
  [ -L "$B/lib/LibTorchTidy.so" ] && rm "$B/lib/LibTorchTidy.so"
  targets=(LibTorchTidy LibTorchTidyScope libtorch-tidy libtorch-tidy-instrument)
fi
run "build (${targets[*]})" cmake --build "$B" --target "${targets[@]}" -j"$(nproc)"
[ "$status" = 0 ] || exit 1

# Reports go to files (one per process that found something), the first
# report stops its process, and UBSan prints the stack.
export ASAN_OPTIONS="log_path=$logs/asan:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
lit=$(grep -m1 'LIBTORCH_TIDY_LIT:' "$B/CMakeCache.txt" | cut -d= -f2)

# The driver's lit suite: the sanitized command and scope module (the CI
# subset with the plain plugin). SANITIZE_DRIVER_FILTER_OUT: tests to leave out.
lit_filter=()
[ -n "${SANITIZE_DRIVER_FILTER_OUT:-}" ] && lit_filter=(--filter-out "$SANITIZE_DRIVER_FILTER_OUT")
run "driver lit suite" python3 "$lit" -q --time-tests "${lit_filter[@]}" "$B/test/driver"

# The corpus: every example and every LibTorch program of the end-to-end tests
# (test/e2e/Inputs, the verify project's sources with them), through the
# driver against the real LibTorch, every torch- check on each: with the
# precompiled LibTorch header and the scope module, then again parsed in full
# (--no-pch: the checks see every declaration). Exit 1 means findings (the
# files hold mistakes on purpose): only >1 fails.
corpus() { # NAME DRIVER-ARGS...
  local out=$B/sanitize-corpus/$1 rc=0 flags
  rm -rf "$out" && mkdir -p "$out"
  flags=$(sed -nE 's/^config.torch_cxxflags = "(.*)"$/\1/p' "$B/test/e2e/lit.site.cfg.py")
  [ -n "$flags" ] || { echo "sanitize: no LibTorch flags in $B (LibTorch not found?)" >&2; return 2; }
  python3 test/make_compdb.py "$out" "$PWD"/examples/*.cpp "$PWD"/test/e2e/Inputs/*.cpp \
    "$PWD"/test/e2e/Inputs/verify_project/src/*.cpp \
    -- $flags "-I$PWD/runtime/include" "-I$PWD/test/e2e/Inputs/verify_project/src" >/dev/null
  "$B/bin/libtorch-tidy" -p "$out" -j"$(nproc)" --no-cache --format json -o "$out/report.json" "${@:2}" || rc=$?
  [ "$rc" -le 1 ] && python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['findings']), 'findings')" "$out/report.json"
  [ "$rc" -le 1 ]
}
if [ "$SUBSET" != ci ]; then
  # The checks' lit suite (mock headers), the sanitized plugin in clang-tidy.
  run "checks lit suite" python3 "$lit" -q --time-tests "$B/test/checks"
  run "corpus through the driver (precompiled header, scope module)" corpus pch
  run "corpus through the driver (--no-pch)" corpus no-pch --no-pch
  # Another corpus of real code (e.g. docs/precision.md's, fetched
  # separately): SANITIZE_CORPUS=DIR SANITIZE_CORPUS_FLAGS=FILE, run with
  # scripts/precision-audit.sh through the sanitized plugin.
  if [ -n "${SANITIZE_CORPUS:-}" ]; then
    run "corpus $SANITIZE_CORPUS (precision-audit.sh)" env CLANG_TIDY="$B/clang-tidy-asan/clang-tidy" \
      PLUGIN="$B/lib/LibTorchTidy.so" bash scripts/precision-audit.sh "$SANITIZE_CORPUS" \
      "${SANITIZE_CORPUS_FLAGS:?SANITIZE_CORPUS_FLAGS: the corpus flags file}" "$B/sanitize-corpus/external"
  fi
fi

reports=$(find "$logs" -type f | wc -l)
echo "sanitizer reports: $reports (in $logs)" | tee -a "$B/sanitize-summary.txt"
if [ "$reports" -ne 0 ]; then
  for f in "$logs"/*; do echo "--- $f"; head -40 "$f"; done
  status=1
fi
exit "$status"
