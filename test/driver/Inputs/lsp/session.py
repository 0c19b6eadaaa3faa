#!/usr/bin/env python3
"""Drives `libtorch-tidy lsp` over stdio through one scenario of the protocol
tests and prints what an editor would show, for FileCheck.

  session.py SCENARIO --driver DRIVER --project DIR [--fake-clang-tidy F]

Scenarios: open, diagnostics, fix, fixall, header, nolint, stale, outside, crash, cancel,
queue, lifecycle. Assertions that FileCheck cannot express are made here (a
failed one exits non-zero).
"""
import argparse
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Client, apply_workspace_edit, uri  # noqa: E402


def show(diags, path):
    """One line per diagnostic: line:col severity code message | links."""
    print("diagnostics %s: %d" % (os.path.basename(path), len(diags)))
    for d in diags:
        s = d["range"]["start"]
        e = d["range"]["end"]
        print("  %d:%d-%d:%d severity=%d code=%s source=%s: %s" % (
            s["line"] + 1, s["character"] + 1, e["line"] + 1, e["character"] + 1, d["severity"],
            d.get("code", "-"), d.get("source"), d["message"]))
        if "codeDescription" in d:
            print("    doc " + d["codeDescription"]["href"])
        for r in d.get("relatedInformation", []):
            loc = r["location"]
            print("    related %s:%d: %s" % (os.path.basename(loc["uri"]), loc["range"]["start"]["line"] + 1,
                                            r["message"]))


def actions_for(client, path, diag):
    resp = client.call("textDocument/codeAction", {
        "textDocument": {"uri": uri(path)}, "range": diag["range"],
        "context": {"diagnostics": [diag]}})
    return resp["result"]


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone as far as work goes.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_for_file(path, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path) and open(path).read().strip():
            return open(path).read().split()
        time.sleep(0.05)
    raise AssertionError("no " + path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--driver", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--fake-clang-tidy")
    ap.add_argument("--file", default="src/evaluate.cpp")
    ap.add_argument("--checks", help="initializationOptions.checks")
    args = ap.parse_args()
    root = os.path.abspath(args.project)
    src = os.path.join(root, args.file)
    stderr = open(os.path.join(root, "lsp-stderr.txt"), "w")
    c = Client([args.driver, "lsp"], cwd=root, stderr=stderr)
    sc = args.scenario

    if sc == "lifecycle":
        # Before initialize: an error, the server keeps reading.
        r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri(src)},
                                                "range": {"start": {"line": 0, "character": 0},
                                                          "end": {"line": 0, "character": 0}},
                                                "context": {"diagnostics": []}})
        print("before initialize: error %d" % r["error"]["code"])
        result = c.initialize(root)
        caps = result["capabilities"]
        print("server %s" % result["serverInfo"]["name"])
        print("sync %s save=%s" % (caps["textDocumentSync"]["change"], "save" in caps["textDocumentSync"]))
        print("code actions %s" % ",".join(caps["codeActionProvider"]["codeActionKinds"]))
        print("commands %s" % ",".join(caps["executeCommandProvider"]["commands"]))
        r = c.call("no/such/method", {})
        print("unknown method: error %d" % r["error"]["code"])
        print("exit code after shutdown: %d" % c.shutdown())
        # exit without shutdown: 1
        c2 = Client([args.driver, "lsp"], cwd=root)
        c2.initialize(root)
        c2.notify("exit", None)
        print("exit code without shutdown: %d" % c2.proc.wait(timeout=60))
        return

    options = {}
    if args.fake_clang_tidy:
        options["clangTidy"] = args.fake_clang_tidy
    if sc == "queue":
        options["queueLimit"] = 1
    if args.checks:
        options["checks"] = args.checks
    c.initialize(root, options)

    if sc == "open":
        c.open(src)
        show(c.diagnostics(src), src)
    elif sc == "diagnostics":
        c.open(src)
        begin = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin",
                       what="progress begin")
        print("progress begin: %s" % begin["params"]["value"]["message"])
        show(c.diagnostics(src), src)
        end = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end",
                     what="progress end")
        print("progress end: %s" % end["params"]["value"]["message"])
        # A save analyses again (the results cache answers).
        c.save(src)
        show(c.diagnostics(src), src)
    elif sc in ("fix", "header"):
        c.open(src)
        diags = c.diagnostics(src)
        show(diags, src)
        for d in diags:
            acts = actions_for(c, src, d)
            for a in acts:
                print("action [%s] %s" % (a["kind"], a["title"]))
            fix = [a for a in acts if a["kind"] == "quickfix" and a.get("isPreferred")]
            assert len(fix) == 1, acts
            print("edited " + " ".join(os.path.relpath(p, root) for p in apply_workspace_edit(fix[0]["edit"])))
        c.save(src)
        show(c.diagnostics(src), src)
    elif sc == "fixall":
        c.open(src)
        show(c.diagnostics(src), src)
        acts = c.call("textDocument/codeAction", {
            "textDocument": {"uri": uri(src)},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]}})["result"]
        for a in acts:
            print("action [%s] %s" % (a["kind"], a["title"]))
        apply_workspace_edit(acts[0]["edit"])
    elif sc == "nolint":
        c.open(src)
        diags = c.diagnostics(src)
        show(diags, src)
        acts = [a for a in actions_for(c, src, diags[0]) if "NOLINT" in a["title"]]
        print("action " + acts[0]["title"])
        apply_workspace_edit(acts[0]["edit"])
        c.save(src)
        show(c.diagnostics(src), src)
    elif sc == "stale":
        c.open(src)
        diags = c.diagnostics(src)
        show(diags, src)
        text = open(src).read()
        c.change(src, 2, "// edited\n" + text)
        show(c.diagnostics(src), src)
        print("actions while edited: %d" % len(actions_for(c, src, diags[0])))
        # Saved: analysed again, fresh.
        with open(src, "w") as f:
            f.write("// edited\n" + text)
        c.save(src)
        show(c.diagnostics(src), src)
        # A buffer opened with unsaved text: the file on disk is analysed and
        # the findings say they are stale.
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri(src)}})
        show(c.diagnostics(src), src)
        c.open(src, text="int unsaved;\n" + text)
        show(c.diagnostics(src), src)
    elif sc == "outside":
        other = os.path.join(root, "scratch.cpp")
        with open(other, "w") as f:
            f.write("int main() {}\n")
        c.open(other)
        msg = c.wait(lambda m: m.get("method") == "window/showMessage", what="showMessage")
        print("message type %d: %s" % (msg["params"]["type"], msg["params"]["message"]))
        c.save(other)
        # The next file still gets its findings; no second message came first.
        c.open(src)
        show(c.diagnostics(src), src)
        print("messages about scratch.cpp: %d" % sum(1 for m in c.seen if m.get("method") == "window/showMessage"))
        print("diagnostics for scratch.cpp: %d" % sum(
            1 for m in c.seen if m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri(other)))
    elif sc == "crash":
        c.open(src)
        show(c.diagnostics(src), src)
        # Still serving: back to the real clang-tidy, the findings come.
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"libtorch-tidy": {"clangTidy": os.environ["REAL_CLANG_TIDY"]}}})
        c.save(src)
        show(c.diagnostics(src), src)
    elif sc == "cancel":
        pids = os.path.join(root, "fake-pids.txt")
        # 1. A newer save kills the older run (the fake clang-tidy sleeps on its
        #    first run only).
        c.open(src)
        first = int(wait_for_file(pids)[0])
        c.save(src)
        show(c.diagnostics(src), src)
        time.sleep(0.5)
        print("first run alive after the newer save: %s" % pid_alive(first))
        published = [m for m in c.seen if m.get("method") == "textDocument/publishDiagnostics"]
        print("diagnostics published: %d" % len(published))
        # 2. $/cancelRequest on a running analysis: killed, answered cancelled.
        #    (The file changes each time, so no cached result answers.)
        os.remove(pids)
        os.remove(os.path.join(root, "fake-count.txt"))
        with open(src, "a") as f:
            f.write("// 2\n")
        rid = c.request("workspace/executeCommand", {"command": "libtorch-tidy.analyze",
                                                      "arguments": [uri(src)]})
        second = int(wait_for_file(pids)[0])
        c.notify("$/cancelRequest", {"id": rid})
        r = c.response(rid)
        print("cancelled request: error %d" % r["error"]["code"])
        end = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end"
                     and m["params"]["value"].get("message") == "cancelled", what="progress end")
        time.sleep(0.5)
        print("cancelled run alive: %s" % pid_alive(second))
        show(c.diagnostics(src), src)
        # 3. A run the client cancels through its progress token.
        os.remove(pids)
        os.remove(os.path.join(root, "fake-count.txt"))
        with open(src, "a") as f:
            f.write("// 3\n")
        c.backlog.clear()
        c.save(src)
        begin = c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "begin",
                       what="progress begin")
        third = int(wait_for_file(pids)[0])
        c.notify("window/workDoneProgress/cancel", {"token": begin["params"]["token"]})
        c.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end",
               what="progress end")
        time.sleep(0.5)
        print("run cancelled through its progress alive: %s" % pid_alive(third))
        # 4. An analysis requested now completes: the server is still serving.
        r = c.call("workspace/executeCommand", {"command": "libtorch-tidy.analyze", "arguments": [uri(src)]})
        print("analyze: %d findings, stale %s" % (r["result"]["findings"], r["result"]["stale"]))
    elif sc == "queue":
        # queueLimit 1: while one file runs, a second waits and a third pushes
        # it out of the queue; the request waiting on it is answered cancelled.
        other = os.path.join(root, "src/train.cpp")
        third = os.path.join(root, "src/config.cpp")
        c.open(src)
        wait_for_file(os.path.join(root, "fake-pids.txt"))
        c.open(other)
        rid = c.request("workspace/executeCommand", {"command": "libtorch-tidy.analyze",
                                                      "arguments": [uri(other)]})
        c.open(third)
        r = c.response(rid)
        print("train.cpp pushed out of the queue: error %d" % r["error"]["code"])
        # Closing the running file stops its analysis; the queued one runs.
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri(src)}})
        show(c.diagnostics(src), src)
        show(c.diagnostics(third), third)
        print("diagnostics for train.cpp: %d" % sum(
            1 for m in c.seen if m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri(other)))
    print("exit code: %d" % c.shutdown())


if __name__ == "__main__":
    main()
