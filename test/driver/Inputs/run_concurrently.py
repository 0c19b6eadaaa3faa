#!/usr/bin/env python3
"""Runs COMMAND twice at the same time and fails unless both exit alike with
the same stdout; then every JSON file under CACHE must parse (no torn entry).

  run_concurrently.py CACHE COMMAND [ARGS...]
"""
import json
import os
import subprocess
import sys

cache, cmd = sys.argv[1], sys.argv[2:]
procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for _ in range(2)]
outs = [(p.communicate()[0], p.returncode) for p in procs]
if outs[0] != outs[1]:
    sys.exit("the two runs differ: exit %d and %d" % (outs[0][1], outs[1][1]))
entries = 0
for d, _, files in os.walk(cache):
    for f in files:
        path = os.path.join(d, f)
        if ".tmp" in f:
            sys.exit("temporary file left: " + path)
        if f.endswith(".json"):
            json.load(open(path))
            entries += 1
sys.stdout.buffer.write(outs[0][0])
print("exit %d, %d cache entries" % (outs[0][1], entries))
