#!/bin/sh
# The actions of defs.bzl (POSIX sh: a remote worker needs no more than a shell).
#   runner.sh pch CLANG HEADER OUT FLAGS...
#       HEADER (#include <torch/torch.h>) precompiled into OUT with FLAGS, the
#       LibTorch target's compile flags; relocatable: the paths under the
#       execution root are stored relative to it (-isysroot), and no file
#       times, so the header serves other sandboxes and machines.
#   runner.sh analyse DRIVER CLANG_TIDY PLUGIN CONFIG DATABASE REPORT [PCH]
#       libtorch-tidy on the one source of DATABASE (its directory filled in
#       here: the execution root is this machine's), its JSON report in REPORT;
#       with PCH, the precompiled LibTorch header (--pch-file).
#   runner.sh merge DRIVER FORMAT OUT FAIL REPORT...
#       the reports merged into OUT; FAIL=true fails on findings.
#   runner.sh gate DRIVER STAMP REPORT...
#       fails, printing the findings, when the reports hold any; else STAMP.
set -u
mode=$1
shift

# The usual cause of a LibTorch file that does not parse under Bazel: Bazel 4's
# auto-configured toolchain compiles with -std=c++0x (C++11).
std_hint() {
  printf '%s\n' "$*" | grep -Eq -- '-std=(c|gnu)\+\+(1[7z]|2[0-9a-z])' ||
    echo "libtorch-tidy: LibTorch needs C++17 and this compile command sets no -std=c++17 or later;" \
      "add 'build --cxxopt=-std=c++17' to the workspace's .bazelrc (docs/ci.md)" >&2
}

case $mode in
pch)
  clang=$1 header=$2 out=$3
  shift 3
  log=$(mktemp "${TMPDIR:-/tmp}/libtorch-tidy-pch.XXXXXX") || exit 2
  trap 'rm -f "$log"' EXIT
  # Its warnings are LibTorch's, shown only when it fails.
  if ! "$clang" "$@" -Xclang -fno-pch-timestamp -relocatable-pch -isysroot "$(pwd)" \
      -fpch-instantiate-templates -x c++-header "$header" -o "$out" > "$log" 2>&1; then
    cat "$log" >&2
    std_hint "$@"
    exit 1
  fi
  ;;
analyse)
  driver=$1 tidy=$2 plugin=$3 config=$4 database=$5 report=$6 pch=${7:-}
  dir=$(mktemp -d "${TMPDIR:-/tmp}/libtorch-tidy-bazel.XXXXXX") || exit 2
  trap 'rm -rf "$dir"' EXIT
  sed "s|@EXECROOT@|$(pwd)|g" "$database" > "$dir/compile_commands.json" || exit 2
  # --all: Bazel's `includes` puts a target's own headers on -isystem, which
  # the LibTorch prefilter does not follow (it would skip a file that reaches
  # <torch/torch.h> through them); a file without LibTorch has no findings,
  # and each result is cached, so the prefilter would save little here.
  if [ -n "$pch" ]; then
    set -- --pch-file="$pch"
  else
    set -- --no-pch
  fi
  "$driver" -p "$dir" --clang-tidy="$tidy" --plugin="$plugin" --config-file="$config" \
    --all --no-cache "$@" -j1 --format=json -o "$report" > "$dir/out.txt" 2>&1
  rc=$?
  # Why the precompiled header was not used (then the source took a full parse).
  [ -n "$pch" ] && grep -E "without the precompiled LibTorch header|parsed again without it" "$dir/out.txt" >&2
  # 0: no findings, 1: findings (both a report); else the tool failed.
  if [ $rc -gt 1 ] || [ ! -f "$report" ]; then
    cat "$dir/out.txt" >&2
    std_hint "$(cat "$database")"
    echo "libtorch-tidy failed (exit $rc)" >&2
    exit 2
  fi
  exit 0
  ;;
merge)
  driver=$1 format=$2 out=$3 fail=$4
  shift 4
  "$driver" merge --format="$format" -o "$out" "$@"
  rc=$?
  if [ $rc -eq 1 ] && [ "$fail" = true ]; then
    "$driver" merge --format=text "$@" >&2
    echo "libtorch-tidy: findings (fail_on_findings)" >&2
    exit 1
  fi
  [ $rc -le 1 ] && [ -f "$out" ]
  ;;
gate)
  driver=$1 stamp=$2
  shift 2
  "$driver" merge --format=text "$@" >&2
  rc=$?
  if [ $rc -eq 0 ]; then
    : > "$stamp"
    exit 0
  fi
  [ $rc -eq 1 ] && echo "libtorch-tidy: findings (fail_on_findings)" >&2
  exit 1
  ;;
*)
  echo "runner.sh: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
