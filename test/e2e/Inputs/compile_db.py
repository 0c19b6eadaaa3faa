#!/usr/bin/env python3
"""Writes DIR/build/compile_commands.json: every .cpp directly in DIR compiled
with FLAGS (one shell-quoted string, e.g. the LibTorch flags).

  compile_db.py DIR FLAGS
"""
import json
import os
import shlex
import sys

root = os.path.abspath(sys.argv[1])
flags = shlex.split(sys.argv[2])
os.makedirs(os.path.join(root, "build"), exist_ok=True)
entries = [{"directory": root, "file": os.path.join(root, f),
            "arguments": ["c++"] + flags + ["-c", os.path.join(root, f)]}
           for f in sorted(os.listdir(root)) if f.endswith(".cpp")]
with open(os.path.join(root, "build", "compile_commands.json"), "w") as out:
    json.dump(entries, out, indent=1)
