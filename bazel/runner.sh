#!/bin/sh
# The actions of defs.bzl (POSIX sh: a remote worker needs no more than a shell).
#   runner.sh analyse DRIVER CLANG_TIDY PLUGIN CONFIG DATABASE REPORT
#       libtorch-tidy on the one source of DATABASE (its directory filled in
#       here: the execution root is this machine's), its JSON report in REPORT.
#   runner.sh merge DRIVER FORMAT OUT FAIL REPORT...
#       the reports merged into OUT; FAIL=true fails on findings.
#   runner.sh gate DRIVER STAMP REPORT...
#       fails, printing the findings, when the reports hold any; else STAMP.
set -u
mode=$1
shift
case $mode in
analyse)
  driver=$1 tidy=$2 plugin=$3 config=$4 database=$5 report=$6
  dir=$(mktemp -d "${TMPDIR:-/tmp}/libtorch-tidy-bazel.XXXXXX") || exit 2
  trap 'rm -rf "$dir"' EXIT
  sed "s|@EXECROOT@|$(pwd)|g" "$database" > "$dir/compile_commands.json" || exit 2
  # --all: Bazel's `includes` puts a target's own headers on -isystem, which
  # the LibTorch prefilter does not follow (it would skip a file that reaches
  # <torch/torch.h> through them); a file without LibTorch has no findings,
  # and each result is cached, so the prefilter would save little here.
  "$driver" -p "$dir" --clang-tidy="$tidy" --plugin="$plugin" --config-file="$config" \
    --all --no-cache --no-pch --quiet -j1 --format=json -o "$report" > "$dir/out.txt" 2>&1
  rc=$?
  # 0: no findings, 1: findings (both a report); else the tool failed.
  if [ $rc -gt 1 ] || [ ! -f "$report" ]; then
    cat "$dir/out.txt" >&2
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
