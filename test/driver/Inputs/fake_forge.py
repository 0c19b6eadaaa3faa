#!/usr/bin/env python3
"""Plays the GitHub and GitLab REST endpoints that `libtorch-tidy review` uses,
on 127.0.0.1 only, while it runs a command; records every request.

  fake_forge.py STATE [--token T] [--fail STATUS:METHOD:REGEX] [--refuse]
                [--gitlab-head SHA | --gitlab-head-from-git] -- CMD ARGS...

@API@ in CMD's arguments and in the environment becomes the server's base URL (http://127.0.0.1:PORT).
STATE (JSON) keeps what was posted (comments, reviews, discussions, notes) and
the request log across runs, so a second run sees the first run's comments.
--fail answers the matching requests (METHOD and a regex on the path) with
STATUS; --refuse starts no server (connection refused). The script exits with
CMD's exit status.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("state")
parser.add_argument("--token", default="secret-token")
parser.add_argument("--fail", action="append", default=[])
parser.add_argument("--refuse", action="store_true")
parser.add_argument("--gitlab-head", default="")
parser.add_argument("--gitlab-head-from-git", action="store_true",
                    help="the merge request's head is HEAD of the repository in the current directory")
split = sys.argv.index("--")
args = parser.parse_args(sys.argv[1:split])
cmd = sys.argv[split + 1:]
if args.gitlab_head_from_git:
    args.gitlab_head = subprocess.check_output(["git", "rev-parse", "HEAD"], text=True).strip()

state = {"requests": [], "gh_comments": [], "gh_reviews": [], "gl_discussions": [], "next_id": 1}
if os.path.exists(args.state):
    with open(args.state) as f:
        state = json.load(f)
lock = threading.Lock()
failures = []
for spec in args.fail:
    status, method, regex = spec.split(":", 2)
    failures.append((int(status), method, re.compile(regex)))


def new_id():
    state["next_id"] += 1
    return state["next_id"]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def page(self, items, query):
        per = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        return items[(page - 1) * per:page * per]

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, urllib.parse.parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with lock:
            state["requests"].append({"method": method, "path": path, "query": url.query, "body": body})
            for status, m, regex in failures:
                if m == method and regex.search(path):
                    return self.answer(status, {"message": "refused by the test", "errors": ["line must be part of the diff"] if status == 422 else []})
            github = path.startswith("/repos/")
            if github and self.headers.get("Authorization") != "Bearer " + args.token:
                return self.answer(401, {"message": "Bad credentials"})
            if not github and self.headers.get("PRIVATE-TOKEN") != args.token:
                return self.answer(401, {"message": "401 Unauthorized"})
            return self.route(method, path, query, body)

    def route(self, method, path, query, body):
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/(\d+)/(comments|reviews)", path)
        if m and method == "GET":
            key = "gh_" + m.group(3)
            return self.answer(200, self.page(state[key], query))
        if m and method == "POST" and m.group(3) == "reviews":
            for field in ("commit_id", "event", "body", "comments"):
                if field not in body:
                    return self.answer(422, {"message": "missing " + field})
            review = {"id": new_id(), "body": body["body"], "commit_id": body["commit_id"]}
            state["gh_reviews"].append(review)
            for c in body["comments"]:
                c = dict(c, id=new_id(), commit_id=body["commit_id"], pull_request_review_id=review["id"])
                state["gh_comments"].append(c)
            return self.answer(200, review)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/(\d+)/reviews/(\d+)", path)
        if m and method == "PUT":
            for r in state["gh_reviews"]:
                if r["id"] == int(m.group(3)):
                    if "body" not in body:
                        return self.answer(422, {"message": "missing body"})
                    r["body"] = body["body"]
                    return self.answer(200, r)
            return self.answer(404, {"message": "Not Found"})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/comments/(\d+)", path)
        if m and method == "PATCH":
            for c in state["gh_comments"]:
                if c["id"] == int(m.group(2)):
                    c["body"] = body["body"]
                    return self.answer(200, c)
            return self.answer(404, {"message": "Not Found"})
        m = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/(\d+)", path)
        if m and method == "GET":
            return self.answer(200, {"iid": int(m.group(2)), "diff_refs": {
                "base_sha": "b" * 40, "start_sha": "s" * 40, "head_sha": args.gitlab_head}})
        mr = r"/api/v4/projects/([^/]+)/merge_requests/(\d+)"
        if re.fullmatch(mr + "/discussions", path):
            if method == "GET":
                return self.answer(200, self.page(state["gl_discussions"], query))
            if method == "POST":
                note = {"id": new_id(), "body": body["body"], "resolvable": True, "resolved": False,
                        "position": body.get("position")}
                d = {"id": "%040x" % new_id(), "individual_note": False, "notes": [note]}
                state["gl_discussions"].append(d)
                return self.answer(201, d)
        m = re.fullmatch(mr + "/discussions/([0-9a-f]+)", path)
        if m and method == "PUT":
            for d in state["gl_discussions"]:
                if d["id"] == m.group(3):
                    for n in d["notes"]:
                        n["resolved"] = query.get("resolved", ["false"])[0] == "true"
                    return self.answer(200, d)
            return self.answer(404, {"message": "404 Not found"})
        m = re.fullmatch(mr + "/discussions/([0-9a-f]+)/notes/(\d+)", path)
        if m and method == "PUT":
            for d in state["gl_discussions"]:
                for n in d["notes"]:
                    if n["id"] == int(m.group(4)):
                        n["body"] = body["body"]
                        return self.answer(200, n)
            return self.answer(404, {"message": "404 Not found"})
        if re.fullmatch(mr + "/notes", path) and method == "POST":
            note = {"id": new_id(), "body": body["body"], "resolvable": False, "resolved": False}
            state["gl_discussions"].append({"id": "%040x" % new_id(), "individual_note": True, "notes": [note]})
            return self.answer(201, note)
        m = re.fullmatch(mr + "/notes/(\d+)", path)
        if m and method == "PUT":
            for d in state["gl_discussions"]:
                for n in d["notes"]:
                    if n["id"] == int(m.group(3)):
                        n["body"] = body["body"]
                        return self.answer(200, n)
        return self.answer(404, {"message": "no such endpoint in the test: %s %s" % (method, path)})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_PATCH(self):
        self.handle_any("PATCH")


if args.refuse:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    url = "http://127.0.0.1:%d" % s.getsockname()[1]
    s.close()  # nothing listens there now
    server = None
else:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    url = "http://127.0.0.1:%d" % server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()

state["requests"].append({"method": "RUN", "path": "", "query": "", "body": None})
env = dict(os.environ)
for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
    env.pop(proxy, None)
env = {k: v.replace("@API@", url) for k, v in env.items()}
rc = subprocess.call([a.replace("@API@", url) for a in cmd], env=env)
if server:
    server.shutdown()
with open(args.state, "w") as f:
    json.dump(state, f, indent=1)
sys.exit(rc)
