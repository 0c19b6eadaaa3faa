#!/usr/bin/env python3
"""expect_exit.py CODE COMMAND...: runs COMMAND, passes its output through and
fails unless it exits with CODE."""
import subprocess
import sys

code = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != code:
    sys.stderr.write("expected exit code %d, got %d\n" % (code, proc.returncode))
    sys.exit(1)
