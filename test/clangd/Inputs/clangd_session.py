#!/usr/bin/env python3
"""Drives libtorch-tidy-clangd (or stock clangd) over LSP on a small project
(test/clangd/Inputs/project, mock LibTorch headers) and prints what an editor
shows, one line per fact, for FileCheck:

  open FILE: N diagnostics          then one line per diagnostic:
    LINE:COL [SOURCE CODE] MESSAGE  (1-based line and column)
  action TITLE                      a quick fix offered for a torch- finding
  fixed LINE: TEXT                  the buffer's first line changed by the quick fix
  then LINE: TEXT                   and the line after it

Sessions:
  edit       opens evaluate.cpp and loop.cpp at once (two builds on two
             threads), types a second evaluation function into evaluate.cpp
             without saving, applies the quick fix of its finding to the
             unsaved buffer, asks for a hover and completions, then breaks
             the buffer (clangd's own error).
  plain      opens evaluate.cpp (or --file) and prints its diagnostics; with
             --then CMD, runs CMD (a shell command, in the project), types a
             blank line into the buffer and prints its diagnostics again.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "driver",
                                "Inputs", "lsp"))
from lsp_client import Client, apply_edits, uri  # noqa: E402

CAPABILITIES = {
    "textDocument": {
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
        "codeAction": {"codeActionLiteralSupport": {
            "codeActionKind": {"valueSet": ["quickfix", "refactor", "source"]}}},
    },
}


class Session:
    def __init__(self, clangd, project, timeout):
        self.project = project
        self.timeout = timeout
        # A configuration of clangd's own (~/.config/clangd) must not change
        # what the test sees. Its user configuration here only turns off the
        # index of the standard library, a parse of every standard header in
        # the background that clangd waits for when it exits (minutes on a
        # loaded machine).
        os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="clangd-config-")
        os.makedirs(os.path.join(os.environ["XDG_CONFIG_HOME"], "clangd"))
        with open(os.path.join(os.environ["XDG_CONFIG_HOME"], "clangd", "config.yaml"), "w") as f:
            f.write("Index:\n  StandardLibrary: No\n")
        self.client = Client([clangd, "--background-index=false", "--log=error", "-j=2",
                              "--pch-storage=memory"], cwd=project)
        self.texts = {}
        self.versions = {}
        self.client.initialize(project, capabilities=CAPABILITIES)

    def path(self, rel):
        return os.path.join(self.project, rel)

    def open(self, rel):
        p = self.path(rel)
        with open(p) as f:
            self.texts[rel] = f.read()
        self.versions[rel] = 1
        self.client.open(p, self.texts[rel])

    def change(self, rel, text):
        self.versions[rel] += 1
        self.texts[rel] = text
        self.client.change(self.path(rel), self.versions[rel], text)

    def diagnostics(self, rel):
        """The diagnostics of the buffer's current version."""
        u = uri(self.path(rel))
        want = self.versions[rel]
        while True:
            msg = self.client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                   and m["params"]["uri"] == u, self.timeout, "diagnostics of " + rel)
            if msg["params"].get("version", want) >= want:
                return msg["params"]["diagnostics"]

    def show(self, rel, diags):
        print("open %s: %d diagnostics" % (rel, len(diags)))
        for d in sorted(diags, key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"])):
            s = d["range"]["start"]
            print("  %d:%d [%s %s] %s" % (s["line"] + 1, s["character"] + 1, d.get("source", ""),
                                         d.get("code", ""), d["message"].split("\n")[0]))

    def quick_fix(self, rel, diag):
        result = self.client.call("textDocument/codeAction", {
            "textDocument": {"uri": uri(self.path(rel))}, "range": diag["range"],
            "context": {"diagnostics": [diag]}}, self.timeout)["result"] or []
        fixes = [a for a in result if a.get("kind") == "quickfix" and "edit" in a]
        for a in fixes:
            print("action " + a["title"])
        return fixes

    def shutdown(self):
        rc = self.client.shutdown()
        print("exit %d" % rc)


def torch_findings(diags):
    return [d for d in diags if str(d.get("code", "")).startswith("torch-")]


MORE = """
double evaluate_more(Net &model, torch::Tensor x) {
  return model(x).sum().item<double>();
}
"""


def edit_session(s):
    # Two files at once: each build runs the checks on its own thread.
    s.open("src/evaluate.cpp")
    s.open("src/loop.cpp")
    s.show("src/evaluate.cpp", s.diagnostics("src/evaluate.cpp"))
    s.show("src/loop.cpp", s.diagnostics("src/loop.cpp"))

    # Typing, no save: a second evaluation function in the buffer only.
    rel = "src/evaluate.cpp"
    s.change(rel, s.texts[rel] + MORE)
    diags = s.diagnostics(rel)
    s.show(rel, diags)
    with open(s.path(rel)) as f:
        on_disk = f.read()
    print("on disk: %s" % ("evaluate_more" in on_disk and "edited" or "as before"))

    # The quick fix of the finding in the unsaved function, applied to the buffer.
    new = [d for d in torch_findings(diags) if d["range"]["start"]["line"] > on_disk.count("\n")]
    fixes = s.quick_fix(rel, new[0])
    edits = fixes[0]["edit"]["changes"][uri(s.path(rel))]
    text = apply_edits(s.texts[rel], edits)
    before = s.texts[rel].split("\n")
    for n, line in enumerate(text.split("\n")):
        if n >= len(before) or line != before[n]:
            print("fixed %d: %s" % (n + 1, line))
            print("then %d: %s" % (n + 2, text.split("\n")[n + 1]))
            break
    s.change(rel, text)
    s.show(rel, s.diagnostics(rel))

    # clangd's own features: hover on `forward` (line 5), completion after
    # `model->` there.
    pos = {"line": 4, "character": s.texts[rel].split("\n")[4].index("forward") + 1}
    hover = s.client.call("textDocument/hover", {"textDocument": {"uri": uri(s.path(rel))},
                                                 "position": pos}, s.timeout)["result"]
    print("hover: " + hover["contents"]["value"].split("\n")[0])
    pos["character"] -= 1
    items = s.client.call("textDocument/completion", {"textDocument": {"uri": uri(s.path(rel))},
                                                      "position": pos}, s.timeout)["result"]["items"]
    print("completion: " + ", ".join(sorted(i["filterText"] for i in items if i["filterText"] in ("forward", "fc"))))

    # clangd's own diagnostics keep working on the unsaved buffer.
    s.change(rel, text + "\nint broken() { return undeclared_name; }\n")
    s.show(rel, s.diagnostics(rel))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("session", choices=["edit", "plain"])
    ap.add_argument("--clangd", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--file", default="src/evaluate.cpp")
    ap.add_argument("--then", help="plain: a shell command to run before an edit")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    s = Session(args.clangd, os.path.abspath(args.project), args.timeout)
    if args.session == "edit":
        edit_session(s)
    else:
        s.open(args.file)
        s.show(args.file, s.diagnostics(args.file))
        if args.then:
            subprocess.run(args.then, shell=True, check=True, cwd=s.project,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            s.change(args.file, s.texts[args.file] + "\n")
            s.show(args.file, s.diagnostics(args.file))
    s.shutdown()


if __name__ == "__main__":
    main()
