#!/usr/bin/env python3
"""Runs a command and fails unless it exits with CODE; its output passes through.

  expect_exit.py CODE [--one-line-error] COMMAND [ARGS...]

--one-line-error: the command's stderr must be exactly one line; it is
printed on stdout (for FileCheck).
"""
import subprocess
import sys

code = int(sys.argv[1])
args = sys.argv[2:]
one_line = args[:1] == ["--one-line-error"]
if one_line:
    args = args[1:]
    proc = subprocess.run(args, stderr=subprocess.PIPE, text=True)
    lines = proc.stderr.splitlines()
    if len(lines) != 1:
        sys.stderr.write("expected one line on stderr, got %d:\n%s" % (len(lines), proc.stderr))
        sys.exit(1)
    print(lines[0])
else:
    proc = subprocess.run(args)
if proc.returncode != code:
    sys.stderr.write("expected exit code %d, got %d\n" % (code, proc.returncode))
    sys.exit(1)
