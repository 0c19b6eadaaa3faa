#!/usr/bin/env bash
# Builds the plugin, the scope module and the libtorch-tidy command with
# AddressSanitizer and UndefinedBehaviorSanitizer (GCC, -O1) in build-asan/ and
# runs them over the checks' lit suite, the driver's lit suite and the examples
# (every torch- check on each example, through the driver, against the real
# LibTorch). Every sanitizer report is written to build-asan/sanitizer-logs/;
# the script fails when any test fails or any report was written.
#   bash scripts/sanitize.sh            everything (docs/sanitizers.md has the figures)
#   SANITIZE_SUBSET=ci bash scripts/sanitize.sh
#                                       the checks' lit suite and the examples'
#                                       driver run: the subset scripts/test.sh runs
#
# The plugin is loaded into Debian's clang-tidy, which is not sanitized: the
# ASan runtime must be the first library of the process, so clang-tidy runs
# through build-asan/clang-tidy-asan, which preloads it (LD_PRELOAD) and turns
# leak detection off for that process (clang-tidy frees nothing at exit by
# design; the driver, a sanitized executable, keeps it on).
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
cat >"$B/clang-tidy-asan" <<WRAP
#!/bin/sh
# clang-tidy $LLVM_V with the ASan runtime first, for the sanitized plugin.
export LD_PRELOAD="$asan_rt\${LD_PRELOAD:+:\$LD_PRELOAD}"
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0"
exec /usr/lib/llvm-$LLVM_V/bin/clang-tidy "\$@"
WRAP
chmod +x "$B/clang-tidy-asan"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
cmake -S . -B "$B" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DLIBTORCH_TIDY_LLVM_VERSION="$LLVM_V" -DLIBTORCH_TIDY_SANITIZE=address,undefined \
  -DLIBTORCH_TIDY_CLANG_TIDY_WRAPPER="$B/clang-tidy-asan" \
  -DLIBTORCH_TIDY_BUILD_RUNTIME=OFF -DLIBTORCH_TIDY_BUILD_EXAMPLES=OFF >"$B/configure.log" 2>&1 \
  || { cat "$B/configure.log"; exit 1; }
cmake --build "$B" --target LibTorchTidy LibTorchTidyScope libtorch-tidy libtorch-tidy-instrument -j"$(nproc)"

# Reports go to files (one per process that found something), the first
# report stops its process, and UBSan prints the stack.
export ASAN_OPTIONS="log_path=$logs/asan:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
status=0
run() { # NAME COMMAND...
  local s=$(date +%s) rc=0
  echo "== sanitize: $1"
  "${@:2}" || rc=$?
  echo "$1: exit $rc, $(( $(date +%s) - s )) s" | tee -a "$B/sanitize-summary.txt"
  [ "$rc" = 0 ] || status=1
}
: >"$B/sanitize-summary.txt"
lit=$(grep -m1 'LIBTORCH_TIDY_LIT:' "$B/CMakeCache.txt" | cut -d= -f2)

run "checks lit suite" python3 "$lit" -q "$B/test/checks"
# The examples through the driver: every torch- check on each, with the
# precompiled LibTorch header and the scope module (both sanitized paths).
# Exit 1 means findings (the examples hold mistakes on purpose): only >1 fails.
examples() {
  local out=$B/sanitize-examples rc=0
  rm -rf "$out" && mkdir -p "$out"
  local flags
  flags=$(sed -nE 's/^config.torch_cxxflags = "(.*)"$/\1/p' "$B/test/e2e/lit.site.cfg.py")
  [ -n "$flags" ] || { echo "sanitize: no LibTorch flags in $B (LibTorch not found?)" >&2; return 2; }
  python3 test/make_compdb.py "$out" "$PWD"/examples/*.cpp -- $flags "-I$PWD/runtime/include" >/dev/null
  "$B/bin/libtorch-tidy" -p "$out" -j"$(nproc)" --cache-dir "$out/cache" --format json -o "$out/report.json" || rc=$?
  [ "$rc" -le 1 ] && python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['findings']), 'findings')" "$out/report.json"
  [ "$rc" -le 1 ]
}
run "examples through the driver" examples
if [ "$SUBSET" != ci ]; then
  run "driver lit suite" python3 "$lit" -q "$B/test/driver"
fi

reports=$(find "$logs" -type f | wc -l)
echo "sanitizer reports: $reports (in $logs)" | tee -a "$B/sanitize-summary.txt"
if [ "$reports" -ne 0 ]; then
  for f in "$logs"/*; do echo "--- $f"; head -40 "$f"; done
  status=1
fi
exit "$status"
