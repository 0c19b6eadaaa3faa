#!/usr/bin/env python3
"""Proves that a check's fix-it stops a loop's memory growth.

Applies the fix (clang-tidy --fix with the plugin on a copy, or a given fixed
copy), compiles the original and the fixed program with the runtime companion
linked, runs both with LIBTORCH_TIDY_MAX_ITERATIONS, reads the runtime's JSON
reports and compares the probed loops.

  prove_fix.py --original examples/x.cpp --check torch-foo --clang-tidy ... --plugin ... \
               --cxx c++ --cxxflags "..." --ldflags "..." [--compile-flags "..."] --workdir /tmp/w
  prove_fix.py --original examples/x.cpp --fixed examples/fixed/x.cpp --cxx ... (no LLVM needed)
  prove_fix.py --pair NAME:BEFORE_BINARY:AFTER_BINARY[:EXPECT] ...   (prebuilt programs)

--expect growth (default): the original grows and the fixed program is flat.
--expect held: both are flat and the fixed program holds clearly less memory
between iterations (a retained graph costs memory held, not growth): at least
64 KiB less, and at least half the saved tensors the original's graph held when
the runtime measured them (else a quarter of all it held; on CUDA the bytes held
include the process's workspaces, tens of MiB that no fix changes).
Exit status 0 when the expectation holds, 1 otherwise, 2 on a build or run error.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

# The runtime's rules (runtime/include/libtorch_tidy/series.h), applied to the
# per-metric trends it writes.
BYTES_THRESHOLD = 1024
HISTORY_THRESHOLD = 1
HELD_MIN_DROP = 64 * 1024


def fail(msg, code=2):
    print("prove_fix: " + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def apply_fix(args, fixed):
    cmd = [args.clang_tidy, "--load", args.plugin, "--checks=-*," + args.check, "--fix", fixed, "--"]
    cmd += shlex.split(args.cxxflags)
    r = run(cmd, timeout=600)
    if "warning:" not in r.stdout:
        fail("%s found nothing in %s:\n%s" % (args.check, args.original, r.stdout[-2000:]))


def compile_both(args, sources):
    procs = []
    for src, out in sources:
        cmd = ([args.cxx] + shlex.split(args.compile_flags) + shlex.split(args.cxxflags) + [src, "-o", out]
               + shlex.split(args.ldflags))
        procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for cmd, p in procs:
        out, _ = p.communicate(timeout=900)
        if p.returncode != 0:
            fail("does not compile: %s\n%s" % (" ".join(cmd), out[-4000:]))


def measure(binary, report, iterations, timeout, env_extra=None):
    env = dict(os.environ)
    env["LIBTORCH_TIDY_MAX_ITERATIONS"] = str(iterations)
    env["LIBTORCH_TIDY_REPORT"] = report
    env.update(env_extra or {})
    if os.path.exists(report):
        os.remove(report)
    try:
        r = run([binary], env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail("%s ran longer than %d s" % (binary, timeout))
    if r.returncode != 0:
        fail("%s failed with status %d:\n%s" % (binary, r.returncode, r.stdout[-3000:]))
    if not os.path.exists(report):
        fail("%s wrote no report (does it call LIBTORCH_TIDY_ITERATION?)" % binary)
    with open(report) as f:
        loops = json.load(f)["loops"]
    if not loops:
        fail("%s: no probed loop ran" % binary)
    return loops[0]


def evidence_text(loop):
    """The runtime's evidence of a loop in a few lines: what grew, where, and
    the bytes its retained graph held; "" when it names nothing."""
    e = loop.get("evidence") or {}
    lines = []
    g = e.get("graph")
    if g and g.get("chain"):
        lines.append("retained graph: " + g["chain"])
    for s in ((e.get("allocation_sites") or {}).get("sites") or [])[:3]:
        lines.append("allocation site: %s +%s/it (%s)" % (s["site"], human(s["bytes_per_iteration"]),
                                                           " <- ".join(s["stack"][1:3]) or "-"))
    if g and g.get("saved_bytes_graph") is not None:
        lines.append("saved tensors held by the graph at the end: %s (of which the last iteration %s)" % (
            human(g["saved_bytes_graph"]), human(g.get("saved_bytes_last_iteration") or 0)))
    if e and not (g and g.get("chain")) and not (e.get("allocation_sites") or {}).get("sites"):
        lines.insert(0, "nothing grows")
    lines.extend("note: " + m for m in e.get("messages") or [])
    return "\n".join(lines)


def growing(a):
    return a["verdict"] == "growing"


def slope(a, key):
    t = a.get(key)
    return t["slope_per_iteration"] if t else 0.0


def outcome(before, after):
    b, a = growing(before), growing(after)
    if not a:
        return "fixed" if b else "no growth observed"
    for key, th in (("cpu_bytes", BYTES_THRESHOLD), ("cuda_bytes", BYTES_THRESHOLD),
                    ("history_nodes", HISTORY_THRESHOLD)):
        t = after.get(key)
        if t and t["growing"] and t["slope_per_iteration"] > 1.25 * max(slope(before, key), 0) + th:
            return "regressed"
    return "not fixed" if b else "regressed"


def human(n):
    n = float(n)
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            return "%.1f %s" % (n / size, unit)
    return "%.0f B" % n


def row(name, before, after, graph_saved_bytes_before=None):
    """before, after: the loops' analyses; graph_saved_bytes_before: the saved
    tensors the original's retained graph held (its evidence), when measured."""
    cuda = before.get("cuda_bytes") is not None
    bytes_key = "cuda_bytes" if cuda else "cpu_bytes"
    held_key = "cuda_held_bytes" if cuda else "held_bytes"
    return {
        "example": name,
        "device": "cuda" if cuda else "cpu",
        "bytes_per_iteration_before": slope(before, bytes_key),
        "bytes_per_iteration_after": slope(after, bytes_key),
        "history_per_iteration_before": slope(before, "history_nodes"),
        "history_per_iteration_after": slope(after, "history_nodes"),
        "held_bytes_before": before[held_key],
        "held_bytes_after": after[held_key],
        "peak_bytes_before": before["cuda_peak_bytes" if cuda else "peak_bytes"],
        "peak_bytes_after": after["cuda_peak_bytes" if cuda else "peak_bytes"],
        "verdict_before": before["verdict"],
        "verdict_after": after["verdict"],
        "outcome": outcome(before, after),
        "graph_saved_bytes_before": graph_saved_bytes_before,
    }


HEADER = "%-24s %-4s %14s %14s %11s %11s %11s %11s  %s" % (
    "example", "dev", "bytes/it bef.", "bytes/it aft.", "nodes/it b.", "nodes/it a.", "held bef.",
    "held aft.", "outcome")


def format_row(r):
    return "%-24s %-4s %14s %14s %11.1f %11.1f %11s %11s  %s" % (
        r["example"], r["device"], human(r["bytes_per_iteration_before"]), human(r["bytes_per_iteration_after"]),
        r["history_per_iteration_before"], r["history_per_iteration_after"], human(r["held_bytes_before"]),
        human(r["held_bytes_after"]), r["outcome"])


def expectation_holds(expect, r):
    if expect == "growth":
        return r["verdict_before"] == "growing" and r["verdict_after"] == "flat"
    drop = r["held_bytes_before"] - r["held_bytes_after"]
    saved = r.get("graph_saved_bytes_before")
    needed = 0.5 * saved if saved else 0.25 * r["held_bytes_before"]
    return (r["verdict_before"] == "flat" and r["verdict_after"] == "flat"
            and drop >= max(HELD_MIN_DROP, needed))


def self_test():
    """The outcome and expectation rules on synthetic analyses (mirrors series.cpp's compare())."""
    def analysis(verdict, cpu=0.0, hist=None, held=0):
        a = {"verdict": verdict, "cpu_bytes": {"slope_per_iteration": cpu, "growing": cpu >= BYTES_THRESHOLD},
             "cuda_bytes": None, "held_bytes": held, "peak_bytes": held, "cuda_held_bytes": 0,
             "cuda_peak_bytes": 0, "history_nodes": None}
        if hist is not None:
            a["history_nodes"] = {"slope_per_iteration": hist, "growing": hist >= HISTORY_THRESHOLD}
        return a
    grow, flat = analysis("growing", 4096), analysis("flat")
    cases = [
        (grow, flat, "fixed"),
        (grow, grow, "not fixed"),
        (flat, grow, "regressed"),
        (grow, analysis("growing", 16384), "regressed"),
        (flat, flat, "no growth observed"),
        (analysis("growing", 0, 7), analysis("growing", 0, 7), "not fixed"),  # an incomplete fix
        (analysis("growing", 0, 7), analysis("flat", 0, 0), "fixed"),
    ]
    for before, after, want in cases:
        got = outcome(before, after)
        assert got == want, (before, after, got, want)
    assert expectation_holds("growth", row("x", grow, flat))
    assert not expectation_holds("growth", row("x", grow, grow))
    assert expectation_holds("held", row("x", analysis("flat", held=1 << 20), analysis("flat", held=512 << 10)))
    assert not expectation_holds("held", row("x", analysis("flat", held=1 << 20), analysis("flat", held=1000 << 10)))
    # On CUDA the held bytes include ~65 MiB of workspaces: the drop is judged against the graph's saved tensors.
    base = 65 << 20
    assert expectation_holds("held", row("x", analysis("flat", held=base + (517 << 10)),
                                         analysis("flat", held=base), 517 << 10))
    assert not expectation_holds("held", row("x", analysis("flat", held=base + (517 << 10)),
                                             analysis("flat", held=base + (400 << 10)), 517 << 10))
    assert not expectation_holds("held", row("x", analysis("flat", held=base + (517 << 10)), analysis("flat", held=base)))
    print("prove_fix self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--original")
    p.add_argument("--fixed", help="a fixed copy to use instead of clang-tidy --fix")
    p.add_argument("--expect-fixed", help="fail unless clang-tidy --fix produces exactly this file")
    p.add_argument("--check")
    p.add_argument("--clang-tidy", dest="clang_tidy")
    p.add_argument("--plugin")
    p.add_argument("--cxx", default="c++")
    p.add_argument("--cxxflags", default="")
    p.add_argument("--ldflags", default="")
    p.add_argument("--compile-flags", dest="compile_flags", default="",
                   help="flags for the compiler alone, before --cxxflags (not for clang-tidy): "
                        "e.g. a precompiled header's -include")
    p.add_argument("--workdir")
    p.add_argument("--pair", action="append", default=[], help="NAME:BEFORE_BINARY:AFTER_BINARY[:EXPECT]")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--expect", choices=["growth", "held", "none"], default="growth")
    p.add_argument("--json")
    p.add_argument("--evidence", action="store_true",
                   help="run with LIBTORCH_TIDY_TRACE=1 and print what grew before and after the fix")
    args = p.parse_args()

    pairs = []
    for spec in args.pair:
        parts = spec.split(":")
        if len(parts) not in (3, 4):
            fail("--pair wants NAME:BEFORE_BINARY:AFTER_BINARY[:EXPECT], got " + spec)
        pairs.append(tuple(parts) if len(parts) == 4 else tuple(parts) + (args.expect,))
    if args.original:
        if not args.workdir:
            fail("--workdir is needed with --original")
        os.makedirs(args.workdir, exist_ok=True)
        name = os.path.splitext(os.path.basename(args.original))[0]
        original = os.path.join(args.workdir, "original.cpp")
        fixed = os.path.join(args.workdir, "fixed.cpp")
        shutil.copyfile(args.original, original)
        if args.fixed:
            shutil.copyfile(args.fixed, fixed)
        else:
            if not (args.check and args.clang_tidy and args.plugin):
                fail("--check, --clang-tidy and --plugin are needed without --fixed")
            shutil.copyfile(args.original, fixed)
            apply_fix(args, fixed)
            if args.expect_fixed:
                with open(fixed) as a, open(args.expect_fixed) as b:
                    if a.read() != b.read():
                        d = run(["diff", "-u", args.expect_fixed, fixed]).stdout
                        fail("clang-tidy --fix differs from %s (update it):\n%s" % (args.expect_fixed, d), 1)
        with open(original) as a, open(fixed) as b:
            if a.read() == b.read():
                fail("the fix changed nothing in " + args.original)
        before_bin = os.path.join(args.workdir, "before")
        after_bin = os.path.join(args.workdir, "after")
        compile_both(args, [(original, before_bin), (fixed, after_bin)])
        pairs.append((name, before_bin, after_bin, args.expect))
    if not pairs:
        fail("nothing to prove: give --original or --pair")

    rows = []
    ok = True
    for name, before_bin, after_bin, expect in pairs:
        workdir = args.workdir or os.path.dirname(os.path.abspath(before_bin))
        os.makedirs(workdir, exist_ok=True)
        env = {"LIBTORCH_TIDY_TRACE": "1"} if args.evidence else None
        before = measure(before_bin, os.path.join(workdir, name + ".before.json"), args.iterations, args.timeout, env)
        after = measure(after_bin, os.path.join(workdir, name + ".after.json"), args.iterations, args.timeout, env)
        r = row(name, before["analysis"], after["analysis"],
                ((before.get("evidence") or {}).get("graph") or {}).get("saved_bytes_graph"))
        r["evidence_before"] = evidence_text(before)
        r["evidence_after"] = evidence_text(after)
        rows.append(r)
        if expect != "none" and not expectation_holds(expect, r):
            print("prove_fix: %s: expectation '%s' does not hold" % (name, expect), file=sys.stderr)
            ok = False
    print(HEADER)
    for r in rows:
        print(format_row(r))
    if args.evidence:
        for r in rows:
            print("\n%s before the fix:" % r["example"])
            print("  " + (r["evidence_before"] or "nothing named").replace("\n", "\n  "))
            print("%s after the fix:" % r["example"])
            print("  " + (r["evidence_after"] or "nothing named").replace("\n", "\n  "))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    if not ok:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
