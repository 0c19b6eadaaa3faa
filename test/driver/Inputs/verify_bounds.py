"""libtorch-tidy verify under its limits and under kills, with a fake toolchain.

The fake clang-tidy, instrumenter, compiler and programs behave like the real
ones as far as verify can tell (clang-tidy exports its finding and fix-it,
the instrumenter writes its -o copy and report, the compiler writes the binary,
the program writes its runtime report), and each can be held at its step: it
does its work, starts a grandchild in its process group, writes a marker and
sleeps. The harness then kills verify and checks what a user would: the
sources byte-identical, nothing new in the project or the current directory,
the work directory removed, the step's whole process group gone.

  verify_bounds.py DRIVER LLVM_MAJOR WORKDIR
"""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

DRIVER, LLVM_MAJOR, ROOT = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
TOOLS, PROJ, STATE, WORK, CWD = (os.path.join(ROOT, d) for d in ("tools", "proj", "state", "work", "cwd"))
STAGES = ["tidy", "instrument", "fix", "build-before", "build-after", "run-before", "run-after"]

FAKE_COMMON = r'''#!/usr/bin/env python3
import json, os, subprocess, sys, time
STATE = os.environ["FAKE_STATE"]
def hold(stage):
    if os.environ.get("FAKE_HOLD") != stage:
        return
    grandchild = subprocess.Popen(["sleep", "300"])
    with open(os.path.join(STATE, "held"), "w") as f:
        f.write("%d %d\n" % (os.getpid(), grandchild.pid))
    time.sleep(300)
def source(args):
    before = args[:args.index("--")] if "--" in args else args
    return [a for a in before if not a.startswith("-") and a.endswith(".cpp")][0]
'''
FAKES = {
    "clang-tidy": FAKE_COMMON + r'''
args = sys.argv[1:]
if args == ["--version"]:
    print("LLVM (http://llvm.org/):\n  LLVM version %s.1.0" % os.environ["FAKE_LLVM"])
    sys.exit(0)
src = source(args)
# The finding and its fix-it, exported as clang-tidy --export-fixes writes them.
export = [a.split("=", 1)[1] for a in args if a.startswith("--export-fixes=")][0]
offset = open(src).read().index("model(x);")
with open(export, "w") as f:
    f.write("""---
MainSourceFile: '%s'
Diagnostics:
  - DiagnosticName: torch-eval-without-no-grad
    DiagnosticMessage:
      Message: 'forward pass without NoGradGuard'
      FilePath: '%s'
      FileOffset: %d
      Replacements:
        - FilePath: '%s'
          Offset: %d
          Length: 9
          ReplacementText: '{ NoGradGuard g; model(x); }'
    Level: Warning
    BuildDirectory: '%s'
...
""" % (src, src, offset, src, offset, os.getcwd()))
hold("fix" if "/after/" in src else "tidy")
''',
    "instrument": FAKE_COMMON + r'''
args = sys.argv[1:]
src, out, report = args[0], args[args.index("-o") + 1], args[args.index("--report") + 1]
with open(out, "w") as f:
    f.write("// probe\n" + open(src).read())
with open(report, "w") as f:
    json.dump({"has_main": True, "loops": [{"line": 4, "label": "main:3", "loop_line": 3}]}, f)
hold("instrument")
''',
    "cxx": FAKE_COMMON + r'''
args = sys.argv[1:]
src, out = source(args), args[args.index("-o") + 1]
which = "after" if "/after/" in src else "before"
with open(out, "w") as f:
    f.write("#!/bin/sh\nexec %s %s/program.py %s \"$@\"\n" % (sys.executable, os.environ["FAKE_TOOLS"], which))
os.chmod(out, 0o755)
hold("build-" + which)
''',
    "program.py": FAKE_COMMON + r'''
which = sys.argv[1]
with open(os.path.join(STATE, "limits-" + which), "w") as f:
    f.write(subprocess.run(["sh", "-c", "ulimit -v; ulimit -c"], capture_output=True, text=True).stdout)
if os.environ.get("FAKE_SLOW") == which:
    grandchild = subprocess.Popen(["sleep", "300"])
    with open(os.path.join(STATE, "held"), "w") as f:
        f.write("%d %d\n" % (os.getpid(), grandchild.pid))
    time.sleep(300)
report = {"format": "libtorch-tidy-runtime/1",
          "loops": [{"name": "main:3", "analysis": {"verdict": "flat"},
                     "samples": [{"iteration": i, "cpu_live_bytes": 1000} for i in range(10)]}]}
with open(os.environ["LIBTORCH_TIDY_REPORT"], "w") as f:
    json.dump(report, f)
hold("run-" + which)
''',
}


def setup():
    for d in (TOOLS, PROJ, STATE, WORK, CWD):
        os.makedirs(d, exist_ok=True)
    for name, text in FAKES.items():
        p = os.path.join(TOOLS, name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, 0o755)
    with open(os.path.join(PROJ, "prog.cpp"), "w") as f:
        f.write('#include "model.h"\nint main() {\n  for (int i = 0; i < 100; ++i)\n    model(x);\n}\n')
    with open(os.path.join(PROJ, "model.h"), "w") as f:
        f.write("void model(int);\nstatic int x;\n")
    with open(os.path.join(PROJ, "compile_commands.json"), "w") as f:
        json.dump([{"directory": PROJ, "file": "prog.cpp",
                    "arguments": ["c++", "-c", "prog.cpp", "-o", "prog.o"]}], f)


def snapshot(*dirs):
    """Every file under dirs with its SHA-256: a changed, added or removed file shows."""
    out = {}
    for d in dirs:
        for base, _, files in os.walk(d):
            for n in files:
                p = os.path.join(base, n)
                with open(p, "rb") as f:
                    out[p] = hashlib.sha256(f.read()).hexdigest()
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def verify(extra_env, *args):
    env = dict(os.environ, FAKE_STATE=STATE, FAKE_TOOLS=TOOLS, FAKE_LLVM=LLVM_MAJOR, **extra_env)
    cmd = [DRIVER, "verify", os.path.join(PROJ, "prog.cpp"), "-p", PROJ,
           "--clang-tidy", os.path.join(TOOLS, "clang-tidy"), "--instrument", os.path.join(TOOLS, "instrument"),
           "--cxx", os.path.join(TOOLS, "cxx"), "--work-dir", WORK, "--iterations", "10"] + list(args)
    return subprocess.Popen(cmd, cwd=CWD, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


failures = []


def expect(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def wait_held(proc, timeout=60):
    held = os.path.join(STATE, "held")
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if os.path.exists(held):
            with open(held) as f:
                text = f.read()
            if text.endswith("\n"):
                os.remove(held)
                return [int(p) for p in text.split()]
        time.sleep(0.02)
    return None


def wait_dead(pids, timeout=20):
    end = time.time() + timeout
    while time.time() < end and any(alive(p) for p in pids):
        time.sleep(0.02)
    return not any(alive(p) for p in pids)


setup()
sources = snapshot(PROJ, CWD)

# A whole run: the limits it states, and the ones the program ran under.
p = verify({}, "--json", os.path.join(ROOT, "out.json"))
out, err = p.communicate(timeout=120)
expect(p.returncode == 0, "a complete run exits 0 (rc %d: %s)" % (p.returncode, err.strip()))
limits = json.load(open(os.path.join(ROOT, "out.json"))).get("limits", {})
expect(limits == {"timeout_seconds": 300, "iterations": 10, "address_space_mib": 32768},
       "the report states its limits: %s" % limits)
ran = open(os.path.join(STATE, "limits-before")).read().split()
expect(ran == [str(32768 * 1024), "0"], "the program ran with 32 GiB of address space, no core dumps: %s" % ran)
p = verify({}, "--memory-limit", "100")
p.communicate(timeout=120)
ran = open(os.path.join(STATE, "limits-after")).read().split()
expect(ran == [str(100 * 1024), "0"], "--memory-limit 100 caps the address space at 100 MiB: %s" % ran)
expect(snapshot(PROJ, CWD) == sources, "after complete runs: sources byte-identical, nothing new")
expect(os.listdir(WORK) == [], "after complete runs: work directory removed")

# The time limit: the program and the process it started are killed. The
# limit also bounds the stand-in tools (python scripts), so it leaves them room
# on a loaded machine.
for which in ("before", "after"):
    start = time.time()
    p = verify({"FAKE_SLOW": which}, "--timeout", "8")
    held = wait_held(p)
    out, err = p.communicate(timeout=60)
    expect(p.returncode == 4 and "ran past 8 s" in err and "process group was killed" in err,
           "%s program past --timeout 8: exit 4, one-line error (rc %d: %s)" % (which, p.returncode, err.strip()))
    expect(time.time() - start < 90, "%s program past --timeout 8: verify returns promptly" % which)
    expect(held is not None and wait_dead(held), "%s program past --timeout: its process group is gone" % which)

# Killed at each step, gently (SIGTERM) and not (SIGKILL).
for stage in STAGES:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        p = verify({"FAKE_HOLD": stage})
        held = wait_held(p)
        if held is None:
            p.kill()
            p.communicate()
            expect(False, "%s: verify reached the step (rc %s)" % (stage, p.returncode))
            continue
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        name = "%s, %s" % (stage, signal.Signals(sig).name)
        expect(snapshot(PROJ, CWD) == sources, name + ": sources byte-identical, nothing new")
        if sig == signal.SIGTERM:
            expect(p.returncode == 128 + sig and "interrupted by signal %d" % sig in err,
                   name + ": exit %d, says so (rc %d: %s)" % (128 + sig, p.returncode, err.strip()))
            expect(wait_dead(held), name + ": the step's process group is gone")
            expect(os.listdir(WORK) == [], name + ": work directory removed")
        else:
            # Nothing runs in verify after SIGKILL: the step's process dies with it.
            expect(wait_dead(held[:1]), name + ": the step's process died with verify")
            for pid in held[1:]:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            subprocess.run(["rm", "-rf"] + [os.path.join(WORK, d) for d in os.listdir(WORK)])

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
