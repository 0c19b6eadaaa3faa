#!/usr/bin/env python3
"""The Bazel aspect (bazel/defs.bzl) on a small LibTorch workspace.

  bazel_test.py --build BUILD_DIR --source SOURCE_DIR --torch-cxxflags FLAGS
                [--llvm-version N] [--bazel BAZEL]

Copies test/bazel/workspace (a cc_binary and a cc_library over the system's
LibTorch, two translation units, one finding) into BUILD_DIR/test/bazel/ws
with a WORKSPACE naming this checkout's bazel/ rules and this build's
libtorch-tidy, then checks with Bazel (its output_user_root in
BUILD_DIR/test/bazel/root, a fresh --disk_cache each run):
  1. cold: one libtorch-tidy action per source, run; the merged JSON report
     holds the findings the libtorch-tidy command reports on the same sources
     outside Bazel; the SARIF report names them; the actions' command lines
     and inputs hold no absolute host path;
  2. after `bazel clean`: every libtorch-tidy action served from the disk
     cache (Bazel's execution log), none run; after another clean, served
     from an HTTP remote cache (a loopback server in this test that the cold
     build uploaded to: Bazel's HTTP caching protocol, GET and PUT of
     /ac/<sha256> and /cas/<sha256>) without the disk cache;
  3. one source edited: that source's action alone runs;
  4. the output group libtorch_tidy_check fails the build, printing the
     finding and running no analysis again; so does a report with
     fail_on_findings = True.
The Bazel server is shut down at the end.
"""
import argparse
import http.server
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ASPECT = "@libtorch_tidy//:defs.bzl%libtorch_tidy_aspect"


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
    ws, root, cache = (os.path.join(top, d) for d in ("ws", "root", "disk-cache"))
    os.makedirs(top, exist_ok=True)
    startup = [a.bazel, "--output_user_root=" + root, "--nohome_rc"]
    # A server left by an interrupted run of this test holds the old tree.
    if os.path.isdir(ws) and os.path.isdir(root):
        subprocess.run(startup + ["shutdown"], cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for d in (ws, root, cache):
        rmtree(d)
    shutil.copytree(os.path.join(HERE, "workspace"), ws)
    with open(os.path.join(ws, "WORKSPACE"), "w") as f:
        f.write(f"""workspace(name = "bazel_test")

local_repository(name = "libtorch_tidy", path = "{source}/bazel")

# Offline Bazel 4: stand-ins for the rules Bazel would download.
local_repository(name = "rules_cc", path = "{source}/bazel/shims/rules_cc")
local_repository(name = "rules_java", path = "{source}/bazel/shims/rules_java")
local_repository(name = "platforms", path = "{platforms}")

load("@libtorch_tidy//:repositories.bzl", "libtorch_system", "libtorch_tidy_dependencies")

libtorch_tidy_dependencies(prefix = "{build}", llvm_version = "{a.llvm_version}")

libtorch_system(name = "libtorch")
""")

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
        t = time.monotonic()
        if caches is None:
            caches = ["--disk_cache=" + cache]
        p = subprocess.run(startup + ["build", "--nosandbox_debug", "--color=no", "--curses=no",
                                      *caches, "--execution_log_json_file=" + log, *args],
                           cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != expect:
            fail("%s: bazel exited %d, expected %d:\n%s" % (name, p.returncode, expect, p.stdout[-6000:]))
        tidy = [s for s in read_log(log) if s.get("mnemonic") == "LibTorchTidy"]
        ran = sorted(s["progressMessage"].split()[-1] for s in tidy if not s.get("remoteCacheHit"))
        hits = sorted(s["progressMessage"].split()[-1] for s in tidy if s.get("remoteCacheHit"))
        summary = [l for l in p.stdout.splitlines() if " processes" in l]
        print("%s: %.0f s; libtorch-tidy ran on %s, from the cache %s; %s"
              % (name, time.monotonic() - t, ran, hits, summary[-1] if summary else ""))
        return p.stdout, tidy, ran, hits

    targets = ["//src:app", "//:report", "//:report_sarif", "--aspects=" + ASPECT,
               "--output_groups=libtorch_tidy"]
    try:
        # 1. Cold; the results go to the disk cache and to the remote one.
        _, tidy, ran, hits = bazel("cold", *targets,
                                   caches=["--disk_cache=" + cache, "--remote_cache=" + remote.url()])
        if ran != ["src/evaluate.cpp", "src/main.cpp"] or hits:
            fail("cold: expected one libtorch-tidy action per source, run: ran %s, cached %s" % (ran, hits))
        for s in tidy:
            absolute = [x for x in s["commandArgs"] if x.startswith("/")]
            absolute += [i["path"] for i in s["inputs"] if i["path"].startswith("/")]
            if absolute:
                fail("cold: absolute host paths in the action: %s" % absolute[:5])
        got = findings(os.path.join(ws, "bazel-bin", "report.json"))
        if not got:
            fail("cold: the merged report holds no finding")
        if got != expected:
            fail("cold: the aspect's findings differ from the command's:\n  bazel:   %s\n  command: %s"
                 % (got, expected))
        per_source = os.path.join(ws, "bazel-bin", "src", "_libtorch_tidy", "model", "src", "evaluate.cpp.json")
        if not os.path.isfile(per_source):
            fail("cold: no per-source report " + per_source)
        sarif = json.load(open(os.path.join(ws, "bazel-bin", "report_sarif.sarif")))
        rules = {r["ruleId"] for r in sarif["runs"][0]["results"]}
        if sarif.get("version") != "2.1.0" or rules != {f[3] for f in expected}:
            fail("cold: the SARIF report's results %s are not the findings' checks" % rules)
        print("cold: findings identical to the command's: %s" % [(f[0], f[1], f[3]) for f in got])

        # 2. From the disk cache after a clean.
        subprocess.run(startup + ["clean"], cwd=ws, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, tidy, ran, hits = bazel("cached", *targets)
        if ran or hits != ["src/evaluate.cpp", "src/main.cpp"]:
            fail("cached: expected every libtorch-tidy action from the disk cache: ran %s, cached %s" % (ran, hits))
        if findings(os.path.join(ws, "bazel-bin", "report.json")) != expected:
            fail("cached: the report changed")

        # 2b. From the HTTP remote cache alone (no disk cache) after a clean.
        if remote.count("PUT", "ac") < 2:
            fail("remote: the cold build uploaded %d action results, expected one per source at least"
                 % remote.count("PUT", "ac"))
        subprocess.run(startup + ["clean"], cwd=ws, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        before = remote.count("GET", "ac", hit=True)
        _, tidy, ran, hits = bazel("remote", *targets, caches=["--remote_cache=" + remote.url()])
        if ran or hits != ["src/evaluate.cpp", "src/main.cpp"]:
            fail("remote: expected every libtorch-tidy action from the remote cache: ran %s, cached %s" % (ran, hits))
        if remote.count("GET", "ac", hit=True) - before < 2:
            fail("remote: the server saw no action-cache hit for the libtorch-tidy actions")
        if findings(os.path.join(ws, "bazel-bin", "report.json")) != expected:
            fail("remote: the report changed")
        print("remote: %d action results and %d blobs uploaded by the cold build, served back after a clean"
              % (remote.count("PUT", "ac"), remote.count("PUT", "cas")))

        # 3. One source edited: analysed alone.
        with open(os.path.join(ws, "src", "main.cpp"), "a") as f:
            f.write("// edited\n")
        _, tidy, ran, hits = bazel("edited", *targets)
        if ran != ["src/main.cpp"]:
            fail("edited: expected src/main.cpp alone re-analysed, ran %s" % ran)

        # 4. Findings fail the build when asked: the aspect's check, then the report.
        out, _, ran, _ = bazel("fail-aspect", "//src:app", "--aspects=" + ASPECT,
                               "--output_groups=libtorch_tidy_check", expect=1)
        if "src/evaluate.cpp:8:21: warning:" not in out or ran:
            fail("fail-aspect: the finding is not printed, or an analysis ran again (%s):\n%s" % (ran, out[-4000:]))
        out, _, _, _ = bazel("fail-report", "//:report_fail", expect=1)
        if "src/evaluate.cpp:8:21: warning:" not in out:
            fail("fail-report: the finding is not printed:\n" + out[-4000:])
        bazel("no-fail", "//src:app", "--aspects=" + ASPECT, "--output_groups=libtorch_tidy")
    finally:
        subprocess.run(startup + ["shutdown"], cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        remote.shutdown()
    print("bazel_test: OK")


if __name__ == "__main__":
    main()
