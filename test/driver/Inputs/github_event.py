#!/usr/bin/env python3
"""Writes a GitHub pull_request event (as $GITHUB_EVENT_PATH holds it) for the
repository in the current directory: head = HEAD, base = BASE (default HEAD~1).

  github_event.py NUMBER [BASE] > event.json
"""
import json
import subprocess
import sys


def sha(rev):
    return subprocess.check_output(["git", "rev-parse", rev], text=True).strip()


base = sys.argv[2] if len(sys.argv) > 2 else "HEAD~1"
print(json.dumps({"action": "synchronize", "number": int(sys.argv[1]),
                  "pull_request": {"number": int(sys.argv[1]), "head": {"sha": sha("HEAD")},
                                   "base": {"sha": sha(base)}}}))
