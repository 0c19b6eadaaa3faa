#!/usr/bin/env python3
"""Editor latency on a LibTorch example (real LibTorch, the tests' compile flags
from build/test/e2e/lit.site.cfg.py).

  python3 scripts/bench-lsp.py [--build build] [--example FILE] [--edits 5]
      clangd (the default): stock clangd (clangd-N) and libtorch-tidy-clangd side
      by side, each on its own copy of the example with the same .clang-tidy
      (Checks: -*,torch-*) and .clangd (FastCheckFilter: Loose); both open the
      file, then get the same scripted edits without saving (didChange: a new
      evaluation function typed at the end of the file, one per edit). Prints,
      for each server, open -> diagnostics (the preamble, LibTorch's headers,
      built once) and the median of edit -> diagnostics (the diagnostics of
      that version), and the ratio of the two medians.
  python3 scripts/bench-lsp.py --server lsp [--runs 3]
      `libtorch-tidy lsp` (save to diagnostics):
cold: a fresh project (empty cache): didOpen -> diagnostics, which includes
      building the precompiled LibTorch header.
warm: the same server, one line of the file edited and saved -> diagnostics
      (the precompiled header reused, the results cache missed). Repeated
      --runs times, the median printed.
unchanged: one more save without a change (answered from the results cache).
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
from lsp_client import Client, uri  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(root, "build"))
ap.add_argument("--example", default=os.path.join(root, "examples", "eval_without_no_grad.cpp"))
ap.add_argument("--server", choices=["clangd", "lsp"], default="clangd")
ap.add_argument("--runs", type=int, default=3, help="--server lsp: saves")
ap.add_argument("--edits", type=int, default=5, help="--server clangd: edits per server")
ap.add_argument("--stock-clangd", default=None, help="default: clangd-N of the build's LLVM")
ap.add_argument("--ours-first", action="store_true", help="--server clangd: open libtorch-tidy-clangd first")
args = ap.parse_args()
args.build = os.path.abspath(args.build)

site = open(os.path.join(args.build, "test", "e2e", "lit.site.cfg.py")).read()
cxxflags = re.search(r'config.torch_cxxflags = "(.*)"', site).group(1).split()
llvm_version = re.search(r'config.llvm_version = "(.*)"', site).group(1)
driver = os.path.join(args.build, "bin", "libtorch-tidy")


def project(name):
    """A copy of the example with its compile_commands.json."""
    work = tempfile.mkdtemp(prefix="bench-%s-" % name)
    src = os.path.join(work, "main.cpp")
    shutil.copy(args.example, src)
    with open(os.path.join(work, "compile_commands.json"), "w") as f:
        json.dump([{"directory": work, "file": src,
                    "arguments": ["c++"] + cxxflags + ["-I" + os.path.join(root, "runtime", "include"),
                                                       "-c", src, "-o", "main.o"]}], f)
    return work, src


EDIT = """
double evaluate_edit_{n}(Classifier &model, torch::Tensor x) {{
  return model(x).sum().item<double>() + {n};
}}
"""


class Server:
    """One clangd on its own copy of the example."""

    def __init__(self, name, command):
        self.name = name
        self.work, self.src = project(name)
        with open(os.path.join(self.work, ".clang-tidy"), "w") as f:
            f.write("Checks: '-*,torch-*'\n")
        with open(os.path.join(self.work, ".clangd"), "w") as f:
            f.write("Diagnostics:\n  ClangTidy:\n    FastCheckFilter: Loose\n")
        # No index of the standard library (a parse of every standard header
        # in the background, once per session, that would share the CPU with
        # the first edits of one server and not the other's): both servers'
        # user configuration turns it off.
        os.environ["XDG_CONFIG_HOME"] = os.path.join(self.work, "xdg")
        os.makedirs(os.path.join(self.work, "xdg", "clangd"))
        with open(os.path.join(self.work, "xdg", "clangd", "config.yaml"), "w") as f:
            f.write("Index:\n  StandardLibrary: No\n")
        self.c = Client([command, "--background-index=false", "--log=error", "--pch-storage=memory"],
                        cwd=self.work)
        self.c.initialize(self.work)
        self.text = open(self.src).read()
        self.version = 1
        self.edits = []

    def diagnostics(self):
        u = uri(self.src)
        while True:
            msg = self.c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == u, 900, "diagnostics")
            if msg["params"].get("version", self.version) >= self.version:
                return msg["params"]["diagnostics"]

    def report(self, what, seconds, diags):
        torch = sum(1 for d in diags if str(d.get("code", "")).startswith("torch-"))
        print("%s: %s %.2f s to %d diagnostics (%d torch-)" % (self.name, what, seconds, len(diags), torch))

    def open(self):
        start = time.time()
        self.c.open(self.src, self.text)
        diags = self.diagnostics()
        self.opened = time.time() - start
        self.report("open", self.opened, diags)

    def edit(self, n):
        self.text += EDIT.format(n=n)
        self.version += 1
        start = time.time()
        self.c.change(self.src, self.version, self.text)
        diags = self.diagnostics()
        self.edits.append(time.time() - start)
        self.report("edit %d" % (n + 1), self.edits[-1], diags)

    def close(self):
        self.c.shutdown()
        shutil.rmtree(self.work, ignore_errors=True)


if args.server == "clangd":
    stock = args.stock_clangd or shutil.which("clangd-" + llvm_version) or "clangd"
    ours = os.path.join(args.build, "bin", "libtorch-tidy-clangd")
    print("example %s, %d edits, load average %.1f %.1f %.1f"
          % (os.path.relpath(args.example, root), args.edits, *os.getloadavg()))
    # Both servers run at once and take turns, so that both see the same load.
    servers = [Server("clangd-" + llvm_version, stock), Server("libtorch-tidy-clangd", ours)]
    for s in (servers[::-1] if args.ours_first else servers):
        s.open()
    for n in range(args.edits):
        for s in servers:
            s.edit(n)
    print("| server | open -> diagnostics | edit -> diagnostics (median of %d) |" % args.edits)
    for s in servers:
        print("| %s | %.2f s | %.2f s |" % (s.name, s.opened, statistics.median(s.edits)))
        s.close()
    print("edit ratio: %.2fx; load average after: %.1f"
          % (statistics.median(servers[1].edits) / statistics.median(servers[0].edits), os.getloadavg()[0]))
    sys.exit(0)

work, src = project("lsp")
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
