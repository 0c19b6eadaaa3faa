#!/usr/bin/env python3
"""Runs clang-tidy with every torch- check on a hostile file, bounded in time.

  check_hostile.py SECONDS FILE [--stack-kib N] -- CLANG-TIDY-COMMAND...

With --stack-kib, clang-tidy runs with its stack limited to N KiB (the soft
limit, as `ulimit -s N`). Fails when clang-tidy crashes (a signal, a stack dump), runs past SECONDS,
reports a compile error, or when, for a check named by a `// expect: CHECK`
comment, its warnings are not exactly on the lines so marked. Prints a
summary for FileCheck.
"""
import collections
import re
import resource
import subprocess
import sys
import time

seconds, path = float(sys.argv[1]), sys.argv[2]
options = sys.argv[3:sys.argv.index("--")]
cmd = sys.argv[sys.argv.index("--") + 1:]
limit_stack = None
if options[:1] == ["--stack-kib"]:
    stack = int(options[1]) * 1024

    def limit_stack():
        hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
        soft = stack if hard == resource.RLIM_INFINITY else min(stack, hard)
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))
elif options:
    sys.exit("check_hostile.py: unknown option " + options[0])
start = time.time()
try:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=seconds,
                          preexec_fn=limit_stack)
except subprocess.TimeoutExpired:
    print("FAIL: clang-tidy ran past %g s on %s" % (seconds, path))
    sys.exit(1)
elapsed = time.time() - start
out = proc.stdout
fail = []
if proc.returncode < 0 or "Stack dump" in out or "PLEASE submit a bug report" in out:
    fail.append("clang-tidy crashed (exit %d)" % proc.returncode)
errors = [l for l in out.splitlines() if re.search(r": error: ", l)]
if errors:
    fail.append("compile errors: " + errors[0])

expected = collections.defaultdict(set)
with open(path) as f:
    for n, line in enumerate(f, 1):
        m = re.search(r"// expect: (torch-[a-z0-9-]+)", line)
        if m:
            expected[m.group(1)].add(n)
got = collections.defaultdict(set)
name = re.escape(path.rsplit("/", 1)[-1])
for l in out.splitlines():
    m = re.match(r".*%s:(\d+):\d+: warning: .*\[(torch-[a-z0-9-]+)[],]" % name, l)
    if m:
        got[m.group(2)].add(int(m.group(1)))
for check, lines in sorted(expected.items()):
    missing, extra = lines - got[check], got[check] - lines
    if missing:
        fail.append("%s: no warning on line(s) %s" % (check, sorted(missing)[:5]))
    if extra:
        fail.append("%s: unexpected warning on line(s) %s" % (check, sorted(extra)[:5]))
with open(path) as f:
    nlines = sum(1 for _ in f)
print("file: %d lines; clang-tidy exit %d in %.1f s" % (nlines, proc.returncode, elapsed))
for check in sorted(got):
    print("%s: %d warning(s)%s" % (check, len(got[check]),
                                   " (as expected)" if check in expected and got[check] == expected[check] else ""))
for f in fail:
    print("FAIL: " + f)
if fail:
    print(out[-3000:])
sys.exit(1 if fail else 0)
