#!/usr/bin/env python3
"""Time from save to diagnostics of `libtorch-tidy lsp` on an example (real LibTorch).

  python3 scripts/bench-lsp.py [--build build] [--example examples/eval_without_no_grad.cpp] [--runs 3]

cold: a fresh project (empty cache): didOpen -> diagnostics, which includes
      building the precompiled LibTorch header.
warm: the same server, one line of the file edited and saved -> diagnostics
      (the precompiled header reused, the results cache missed). Repeated
      --runs times, the median printed.
unchanged: one more save without a change (answered from the results cache).
The compile flags are the tests' (build/test/e2e/lit.site.cfg.py).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "driver", "Inputs", "lsp"))
from lsp_client import Client  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(root, "build"))
ap.add_argument("--example", default=os.path.join(root, "examples", "eval_without_no_grad.cpp"))
ap.add_argument("--runs", type=int, default=3)
args = ap.parse_args()

site = open(os.path.join(args.build, "test", "e2e", "lit.site.cfg.py")).read()
cxxflags = re.search(r'config.torch_cxxflags = "(.*)"', site).group(1).split()
driver = os.path.join(args.build, "bin", "libtorch-tidy")

work = tempfile.mkdtemp(prefix="bench-lsp-")
src = os.path.join(work, "main.cpp")
shutil.copy(args.example, src)
with open(os.path.join(work, "compile_commands.json"), "w") as f:
    json.dump([{"directory": work, "file": src,
                "arguments": ["c++"] + cxxflags + ["-I" + os.path.join(root, "runtime", "include"),
                                                   "-c", src, "-o", "main.o"]}], f)

c = Client([driver, "lsp"], cwd=work)
c.initialize(work)
start = time.time()
c.open(src)
diags = c.diagnostics(src, timeout=900)
cold = time.time() - start
print("cold: %.1f s to %d diagnostics (precompiled header built)" % (cold, len(diags)))
warm = []
for i in range(args.runs):
    with open(src, "a") as f:
        f.write("// edit %d\n" % i)
    start = time.time()
    c.save(src)
    diags = c.diagnostics(src, timeout=900)
    warm.append(time.time() - start)
    print("warm %d: %.1f s to %d diagnostics" % (i + 1, warm[-1], len(diags)))
print("warm median: %.1f s" % statistics.median(warm))
start = time.time()
c.save(src)
diags = c.diagnostics(src, timeout=900)
print("unchanged: %.1f s to %d diagnostics (results cache)" % (time.time() - start, len(diags)))
c.shutdown()
shutil.rmtree(work, ignore_errors=True)
