#!/usr/bin/env python3
"""Runs a command and fails unless it exits with CODE; its output passes through.

  expect_exit.py CODE COMMAND [ARGS...]
"""
import subprocess
import sys

code = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != code:
    sys.stderr.write("expected exit code %d, got %d\n" % (code, proc.returncode))
    sys.exit(1)
