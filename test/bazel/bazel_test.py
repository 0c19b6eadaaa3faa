#!/usr/bin/env python3
"""The Bazel aspect (bazel/defs.bzl) on a small LibTorch workspace, set up as
docs/ci.md says, from the installed rules.

  bazel_test.py --build BUILD_DIR --source SOURCE_DIR --torch-cxxflags FLAGS
                [--llvm-version N] [--bazel BAZEL]

Installs the build (`cmake --install`) into BUILD_DIR/test/bazel/prefix and
makes the workspace BUILD_DIR/test/bazel/ws from the recipe in docs/ci.md's
Bazel section (the fenced blocks whose first line names WORKSPACE, .bazelrc or
BUILD.bazel, with /usr replaced by that prefix, and the aspect and output
groups of its command lines) around test/bazel/workspace/src (a cc_binary and
a cc_library over the system's LibTorch, two translation units, one finding).
Then checks with Bazel (its output_user_root in BUILD_DIR/test/bazel/root, a
fresh --disk_cache each run):
  1. cold: one precompiled LibTorch header built, one libtorch-tidy action per
     source, run with it (in every build no source is parsed without it:
     runner.sh passes on the command's line saying so); the merged JSON report
     holds the findings the libtorch-tidy command reports on the same sources
     outside Bazel; the SARIF report names them; the actions' command lines
     and inputs hold no absolute host path; the merge and gate actions read
     the reports and the project's files, no LibTorch header. The time of
     each action is printed (Bazel's --profile);
  2. after `bazel clean`: every libtorch-tidy action served from the disk
     cache (Bazel's execution log), none run; after another clean, served
     from an HTTP remote cache (a loopback server in this test that the cold
     build uploaded to: Bazel's HTTP caching protocol, GET and PUT of
     /ac/<sha256> and /cas/<sha256>) without the disk cache;
  3. one source edited: that source's action alone runs;
  4. the output group libtorch_tidy_check fails the build, printing the
     finding and running no analysis again; so does a report with
     fail_on_findings = True;
  5. without the recipe's .bazelrc the build fails saying that line is
     missing.
The Bazel server is shut down at the end.
"""
import argparse
import gzip
import http.server
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("bazel_test: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def rmtree(path):
    def writable(func, p, _):
        os.chmod(os.path.dirname(p), 0o755)
        os.chmod(p, stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
        func(p)
    if os.path.exists(path):
        for root, dirs, _ in os.walk(path):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(path, onerror=writable)


def read_log(path):
    """Bazel's --execution_log_json_file: concatenated JSON objects."""
    text, dec, i, spawns = open(path).read(), json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return spawns
        obj, i = dec.raw_decode(text, i)
        spawns.append(obj)


def findings(report):
    doc = json.load(open(report))
    return sorted((f["file"], f["line"], f["column"], f["check"], f["message"], f.get("fingerprint", ""),
                   json.dumps(f.get("notes", []), sort_keys=True)) for f in doc["findings"])


def recipe(source, prefix, llvm_version):
    """docs/ci.md's Bazel recipe: {file name: text} of the blocks whose first
    line names a file (WORKSPACE's blocks joined), /usr replaced by prefix;
    and the aspect and output groups of its first `bazel build` line."""
    text = open(os.path.join(source, "docs", "ci.md")).read()
    section = text[text.index("\n## Bazel"):]
    section = section[:section.index("\n## ", 1)]
    files, command = {}, None
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", section, re.S | re.M):
        first = block.splitlines()[0]
        for name in ("WORKSPACE", ".bazelrc", "BUILD.bazel"):
            if first == "# " + name or first.startswith("# %s," % name):
                files[name] = files.get(name, "") + block + "\n"
        command = command or next((l for l in block.splitlines() if l.startswith("bazel build ")), None)
    if set(files) != {"WORKSPACE", ".bazelrc", "BUILD.bazel"} or not command:
        fail("docs/ci.md: the Bazel recipe lacks %s" % ({"WORKSPACE", ".bazelrc", "BUILD.bazel", "command"}
                                                        - set(files) - ({"command"} if command else set())))
    installed = "/usr/share/libtorch-tidy/bazel"
    for old, new in ((installed, prefix + "/share/libtorch-tidy/bazel"), ('prefix = "/usr"', 'prefix = "%s"' % prefix),
                     ('llvm_version = "19"', 'llvm_version = "%s"' % llvm_version)):
        if old not in files["WORKSPACE"]:
            fail("docs/ci.md: the WORKSPACE recipe no longer says " + old)
        files["WORKSPACE"] = files["WORKSPACE"].replace(old, new)
    args = shlex.split(command)
    aspect = [a for a in args if a.startswith("--aspects=")]
    groups = [a for a in args if a.startswith("--output_groups=")]
    if not aspect or not groups:
        fail("docs/ci.md: no --aspects/--output_groups in " + command)
    return files, aspect[0][len("--aspects="):], groups[0]


def action_times(profile):
    """Seconds of each action in Bazel's JSON trace profile, by progress message."""
    opener = gzip.open if profile.endswith(".gz") else open
    with opener(profile, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    times = {}
    for e in events:
        if e.get("name", "").startswith("libtorch-tidy") and "dur" in e and e.get("cat") == "action processing":
            times[e["name"]] = max(times.get(e["name"], 0), e["dur"] / 1e6)
    return times


class RemoteCache(http.server.ThreadingHTTPServer):
    """Bazel's HTTP remote cache on loopback: GET and PUT of /ac/<hash> and
    /cas/<hash>, kept in memory; records the requests."""

    def __init__(self):
        self.blobs, self.requests, self.lock = {}, [], threading.Lock()
        super().__init__(("127.0.0.1", 0), RemoteCacheHandler)

    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    def count(self, method, kind, hit=None):
        with self.lock:
            return sum(1 for m, k, h in self.requests if m == method and k == kind and (hit is None or h == hit))


class RemoteCacheHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _key(self):
        parts = self.path.strip("/").split("/")
        return (parts[-2], parts[-1]) if len(parts) >= 2 and parts[-2] in ("ac", "cas") else None

    def do_GET(self):
        key, srv = self._key(), self.server
        with srv.lock:
            blob = srv.blobs.get(key) if key else None
            srv.requests.append(("GET", key[0] if key else "?", blob is not None))
        if blob is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(blob)))
        self.end_headers()
        self.wfile.write(blob)

    def do_HEAD(self):
        key, srv = self._key(), self.server
        with srv.lock:
            found = key in srv.blobs
        self.send_response(200 if found else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_PUT(self):
        key, srv = self._key(), self.server
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with srv.lock:
            if key:
                srv.blobs[key] = body
            srv.requests.append(("PUT", key[0] if key else "?", True))
        self.send_response(200 if key else 400)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--torch-cxxflags", required=True)
    ap.add_argument("--llvm-version", default="19")
    ap.add_argument("--bazel", default=shutil.which("bazel") or "bazel")
    a = ap.parse_args()
    build, source = os.path.abspath(a.build), os.path.abspath(a.source)
    if not shutil.which(a.bazel):
        fail("bazel not found (Debian: apt-get install bazel-bootstrap bazel-platforms; scripts/setup.sh does)")
    platforms = "/usr/share/bazel/platforms"
    if not os.path.isdir(platforms):
        fail(platforms + " missing (Debian: apt-get install bazel-platforms)")

    top = os.path.join(build, "test", "bazel")
    ws, root, cache, prefix = (os.path.join(top, d) for d in ("ws", "root", "disk-cache", "prefix"))
    os.makedirs(top, exist_ok=True)
    startup = [a.bazel, "--output_user_root=" + root, "--nohome_rc"]
    # A server left by an interrupted run of this test holds the old tree.
    if os.path.isdir(ws) and os.path.isdir(root):
        subprocess.run(startup + ["shutdown"], cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for d in (ws, root, cache, prefix):
        rmtree(d)
    # The rules and the tools as a package user has them.
    p = subprocess.run(["cmake", "--install", build, "--prefix", prefix], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("cmake --install failed:\n" + p.stdout[-4000:])
    files, aspect, output_group = recipe(source, prefix, a.llvm_version)
    shutil.copytree(os.path.join(HERE, "workspace"), ws)
    for name, text in files.items():
        with open(os.path.join(ws, name), "w") as f:
            f.write(('workspace(name = "bazel_test")\n\n' if name == "WORKSPACE" else "") + text)

    # The reference: the libtorch-tidy command on the same two sources.
    flags = shlex.split(a.torch_cxxflags)
    ref_dir = os.path.join(top, "ref")
    rmtree(ref_dir)
    os.makedirs(ref_dir)
    defines = {"evaluate.cpp": ["-DMODEL_WIDTH=64"], "main.cpp": ["-DMODEL_WIDTH=64", "-DAPP_EPOCHS=2"]}
    json.dump([{"directory": ws, "file": "src/" + s,
                "arguments": ["c++", *flags, "-Isrc/include", *d, "-c", "src/" + s]}
               for s, d in defines.items()], open(os.path.join(ref_dir, "compile_commands.json"), "w"))
    t0 = time.monotonic()
    ref = subprocess.run([os.path.join(build, "bin", "libtorch-tidy"), "-p", ref_dir, "--no-cache", "--no-pch",
                          "-j2", "--format=json", "-o", os.path.join(ref_dir, "report.json")],
                         cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if ref.returncode != 1:
        fail("the reference run should find the mistake (exit 1), exit %d:\n%s" % (ref.returncode, ref.stdout))
    expected = findings(os.path.join(ref_dir, "report.json"))
    print("reference: %d findings (%.0f s)" % (len(expected), time.monotonic() - t0))

    remote = RemoteCache()
    threading.Thread(target=remote.serve_forever, daemon=True).start()

    def bazel(name, *args, expect=0, caches=None):
        log = os.path.join(top, name + ".log.json")
        profile = os.path.join(top, name + ".profile.json")
        t = time.monotonic()
        if caches is None:
            caches = ["--disk_cache=" + cache]
        p = subprocess.run(startup + ["build", "--nosandbox_debug", "--color=no", "--curses=no",
                                      *caches, "--execution_log_json_file=" + log, "--profile=" + profile, *args],
                           cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != expect:
            fail("%s: bazel exited %d, expected %d:\n%s" % (name, p.returncode, expect, p.stdout[-6000:]))
        # runner.sh says when an analysis parsed LibTorch in full.
        if "without the precompiled LibTorch header" in p.stdout or "parsed again without it" in p.stdout:
            fail("%s: a source was parsed without the precompiled header:\n%s" % (name, p.stdout[-4000:]))
        spawns = read_log(log)
        tidy = [s for s in spawns if s.get("mnemonic") == "LibTorchTidy"]
        ran = sorted(s["progressMessage"].split()[-1] for s in tidy if not s.get("remoteCacheHit"))
        hits = sorted(s["progressMessage"].split()[-1] for s in tidy if s.get("remoteCacheHit"))
        summary = [l for l in p.stdout.splitlines() if " processes" in l]
        times = action_times(profile)
        print("%s: %.0f s; libtorch-tidy ran on %s, from the cache %s; %s"
              % (name, time.monotonic() - t, ran, hits, summary[-1] if summary else ""))
        for action, seconds in sorted(times.items()):
            print("  %6.1f s  %s" % (seconds, action))
        return p.stdout, spawns, tidy, ran, hits, times

    targets = ["//src:app", "//:tidy_json", "//:tidy_sarif", "--aspects=" + aspect, output_group]
    pch_message = "libtorch-tidy: precompiling <torch/torch.h> for @libtorch//:libtorch"
    try:
        # 1. Cold; the results go to the disk cache and to the remote one.
        out, spawns, tidy, ran, hits, times = bazel(
            "cold", *targets, caches=["--disk_cache=" + cache, "--remote_cache=" + remote.url()])
        if ran != ["src/evaluate.cpp", "src/main.cpp"] or hits:
            fail("cold: expected one libtorch-tidy action per source, run: ran %s, cached %s" % (ran, hits))
        pch = [s for s in spawns if s.get("mnemonic") == "LibTorchTidyPch"]
        if len(pch) != 1 or pch[0].get("remoteCacheHit"):
            fail("cold: expected one precompiled LibTorch header built, got %d" % len(pch))
        pch_file = pch[0]["actualOutputs"][0]["path"]
        for s in tidy:
            if pch_file not in [i["path"] for i in s["inputs"]]:
                fail("cold: %s is not given the precompiled header %s" % (s["progressMessage"], pch_file))
        # That each analysis used the header, bazel() checks: the command
        # names every source it parsed without it, and runner.sh prints that.
        # (The times are printed, not compared: this machine may be shared.)
        analyses = {k: v for k, v in times.items() if k.startswith("libtorch-tidy src/")}
        if pch_message not in times or len(analyses) != 2:
            fail("cold: the profile lacks the actions' times: %s" % sorted(times))
        for s in tidy + pch:
            absolute = [x for x in s["commandArgs"] if x.startswith("/")]
            absolute += [i["path"] for i in s["inputs"] if i["path"].startswith("/")]
            if absolute:
                fail("cold: absolute host paths in the action: %s" % absolute[:5])
        # Merging reads the reports and the project's files, not LibTorch.
        for s in spawns:
            if s.get("mnemonic") in ("LibTorchTidyMerge", "LibTorchTidyGate"):
                paths = [i["path"] for i in s["inputs"]]
                if any(x.startswith("external/libtorch/") for x in paths) or len(paths) > 20:
                    fail("cold: %s reads %d inputs, LibTorch's among them" % (s["progressMessage"], len(paths)))
                print("cold: %s: %d inputs" % (s["progressMessage"], len(paths)))
        got = findings(os.path.join(ws, "bazel-bin", "tidy_json.json"))
        if not got:
            fail("cold: the merged report holds no finding")
        if got != expected:
            fail("cold: the aspect's findings differ from the command's:\n  bazel:   %s\n  command: %s"
                 % (got, expected))
        per_source = os.path.join(ws, "bazel-bin", "src", "_libtorch_tidy", "model", "src", "evaluate.cpp.json")
        if not os.path.isfile(per_source):
            fail("cold: no per-source report " + per_source)
        sarif = json.load(open(os.path.join(ws, "bazel-bin", "tidy_sarif.sarif")))
        rules = {r["ruleId"] for r in sarif["runs"][0]["results"]}
        if sarif.get("version") != "2.1.0" or rules != {f[3] for f in expected}:
            fail("cold: the SARIF report's results %s are not the findings' checks" % rules)
        print("cold: findings identical to the command's: %s" % [(f[0], f[1], f[3]) for f in got])

        # 2. From the disk cache after a clean.
        subprocess.run(startup + ["clean"], cwd=ws, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, tidy, ran, hits, _ = bazel("cached", *targets)
        if ran or hits != ["src/evaluate.cpp", "src/main.cpp"]:
            fail("cached: expected every libtorch-tidy action from the disk cache: ran %s, cached %s" % (ran, hits))
        if findings(os.path.join(ws, "bazel-bin", "tidy_json.json")) != expected:
            fail("cached: the report changed")

        # 2b. From the HTTP remote cache alone (no disk cache) after a clean.
        if remote.count("PUT", "ac") < 2:
            fail("remote: the cold build uploaded %d action results, expected one per source at least"
                 % remote.count("PUT", "ac"))
        subprocess.run(startup + ["clean"], cwd=ws, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        before = remote.count("GET", "ac", hit=True)
        _, _, tidy, ran, hits, _ = bazel("remote", *targets, caches=["--remote_cache=" + remote.url()])
        if ran or hits != ["src/evaluate.cpp", "src/main.cpp"]:
            fail("remote: expected every libtorch-tidy action from the remote cache: ran %s, cached %s" % (ran, hits))
        if remote.count("GET", "ac", hit=True) - before < 2:
            fail("remote: the server saw no action-cache hit for the libtorch-tidy actions")
        if findings(os.path.join(ws, "bazel-bin", "tidy_json.json")) != expected:
            fail("remote: the report changed")
        print("remote: %d action results and %d blobs uploaded by the cold build, served back after a clean"
              % (remote.count("PUT", "ac"), remote.count("PUT", "cas")))

        # 3. One source edited: analysed alone.
        with open(os.path.join(ws, "src", "main.cpp"), "a") as f:
            f.write("// edited\n")
        _, spawns, tidy, ran, hits, _ = bazel("edited", *targets)
        if ran != ["src/main.cpp"]:
            fail("edited: expected src/main.cpp alone re-analysed, ran %s" % ran)
        if any(s.get("mnemonic") == "LibTorchTidyPch" and not s.get("remoteCacheHit") for s in spawns):
            fail("edited: the precompiled LibTorch header was built again")

        # 4. Findings fail the build when asked: the aspect's check, then the report.
        out, _, _, ran, _, _ = bazel("fail-aspect", "//src:app", "--aspects=" + aspect,
                               "--output_groups=libtorch_tidy_check", expect=1)
        if "src/evaluate.cpp:8:21: warning:" not in out or ran:
            fail("fail-aspect: the finding is not printed, or an analysis ran again (%s):\n%s" % (ran, out[-4000:]))
        out, _, _, _, _, _ = bazel("fail-report", "//:tidy_gate", expect=1)
        if "src/evaluate.cpp:8:21: warning:" not in out:
            fail("fail-report: the finding is not printed:\n" + out[-4000:])
        bazel("no-fail", "//src:app", "--aspects=" + aspect, output_group)

        # 5. Without the recipe's .bazelrc (Bazel 4 compiles with -std=c++0x):
        # the failure says what is missing, not only clang's errors.
        os.rename(os.path.join(ws, ".bazelrc"), os.path.join(ws, ".bazelrc.off"))
        out = bazel("no-bazelrc", "//src:app", "--aspects=" + aspect, output_group, expect=1, caches=[])[0]
        if "add 'build --cxxopt=-std=c++17' to the workspace's .bazelrc" not in out:
            fail("no-bazelrc: the failure does not name the missing .bazelrc line:\n" + out[-4000:])
    finally:
        subprocess.run(startup + ["shutdown"], cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        remote.shutdown()
    print("bazel_test: OK")


if __name__ == "__main__":
    main()
