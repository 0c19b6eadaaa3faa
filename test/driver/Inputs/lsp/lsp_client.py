"""A minimal LSP client over stdio for the tests of `libtorch-tidy lsp`.

Messages from the server are read by a thread into a queue; the tests wait
for the notification or response they expect, in order of arrival, with a
timeout; a message no wait has matched yet stays for the next wait, and every
message is kept (for assertions such as "no diagnostics of the cancelled run").
"""
import json
import os
import queue
import subprocess
import threading
import time


def uri(path):
    return "file://" + os.path.abspath(path)


class Client:
    def __init__(self, argv, cwd=None, stderr=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr if stderr is not None else subprocess.DEVNULL,
                                     cwd=cwd)
        self.inbox = queue.Queue()
        self.seen = []     # every message received
        self.backlog = []  # received, not yet matched by a wait
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = out.read(length)
            self.inbox.put(json.loads(body))

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params})
        return rid

    def wait(self, predicate, timeout=120, what="a message"):
        """The first message not yet matched by a wait that satisfies predicate."""
        for i, msg in enumerate(self.backlog):
            if predicate(msg):
                del self.backlog[i]
                return msg
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("timed out waiting for %s; seen: %s" % (what, json.dumps(self.seen[-10:])))
            try:
                msg = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                raise AssertionError("the server closed its output while waiting for %s" % what)
            self.seen.append(msg)
            # Answer the server's requests (progress tokens) as a client does.
            if "method" in msg and "id" in msg:
                self.send({"id": msg["id"], "result": None})
            if predicate(msg):
                return msg
            self.backlog.append(msg)

    def response(self, rid, timeout=120):
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout, "response %d" % rid)

    def call(self, method, params, timeout=120):
        return self.response(self.request(method, params), timeout)

    def diagnostics(self, path, timeout=300):
        u = uri(path)
        msg = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == u, timeout, "diagnostics of " + path)
        return msg["params"]["diagnostics"]

    def initialize(self, root, options=None, capabilities=None):
        caps = capabilities if capabilities is not None else {"window": {"workDoneProgress": True}}
        params = {"processId": os.getpid(), "rootUri": uri(root), "capabilities": caps}
        if options is not None:
            params["initializationOptions"] = options
        result = self.call("initialize", params)
        self.notify("initialized", {})
        return result["result"]

    def open(self, path, text=None):
        if text is None:
            with open(path) as f:
                text = f.read()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": "cpp", "version": 1, "text": text}})

    def change(self, path, version, text):
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                               "contentChanges": [{"text": text}]})

    def save(self, path):
        self.notify("textDocument/didSave", {"textDocument": {"uri": uri(path)}})

    def shutdown(self):
        rid = self.request("shutdown", None)
        resp = self.response(rid)
        assert resp.get("result", "missing") is None, resp
        self.notify("exit", None)
        return self.proc.wait(timeout=60)


def offset(text, position):
    """Byte offset of an LSP position (UTF-16 columns; ASCII test files)."""
    lines = text.split("\n")
    return sum(len(l) + 1 for l in lines[:position["line"]]) + position["character"]


def apply_edits(text, edits):
    """Applies LSP TextEdits (non-overlapping) to text."""
    spans = sorted(((offset(text, e["range"]["start"]), offset(text, e["range"]["end"]), e["newText"])
                    for e in edits), reverse=True)
    for begin, end, new in spans:
        text = text[:begin] + new + text[end:]
    return text


def apply_workspace_edit(edit):
    """Writes a WorkspaceEdit ("changes" form) to the files; returns their paths."""
    written = []
    for u, edits in edit["changes"].items():
        path = u[len("file://"):]
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(apply_edits(text, edits))
        written.append(path)
    return written
