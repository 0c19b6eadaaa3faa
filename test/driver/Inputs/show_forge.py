#!/usr/bin/env python3
"""Prints what fake_forge.py recorded, for FileCheck.

  show_forge.py STATE requests [last]
                                 every request (of the last run): METHOD PATH, then its JSON body
                                 (a review's comments one per line)
  show_forge.py STATE reviews    the GitHub reviews' bodies now on the request
  show_forge.py STATE comments   the comments now on the request: GitHub review
                                 comments, GitLab discussions (resolved or not)
Strings are printed JSON-escaped, so a body is one line. The commit HEAD of
the repository in the current directory is printed as <HEAD>.
"""
import json
import subprocess
import sys

state = json.load(open(sys.argv[1]))
what = sys.argv[2]
try:
    head = subprocess.check_output(["git", "rev-parse", "HEAD"], text=True, stderr=subprocess.DEVNULL).strip()
except (OSError, subprocess.CalledProcessError):
    head = None
_print = print


def print(text):  # noqa: A001
    _print(text.replace(head, "<HEAD>") if head else text)


if what == "requests":
    requests = state["requests"]
    if sys.argv[3:] == ["last"]:
        runs = [i for i, r in enumerate(requests) if r["method"] == "RUN"]
        requests = requests[runs[-1]:] if runs else requests
    for r in requests:
        if r["method"] == "RUN":
            continue
        query = "&".join(q for q in r["query"].split("&") if q and not q.startswith(("per_page", "page")))
        print("%s %s%s" % (r["method"], r["path"], "?" + query if query else ""))
        body = r["body"]
        if body is None:
            continue
        if isinstance(body, dict) and "comments" in body:
            rest = {k: v for k, v in body.items() if k != "comments"}
            print("  review " + json.dumps(rest, sort_keys=True))
            for c in body["comments"]:
                print("  comment " + json.dumps(c, sort_keys=True))
        else:
            print("  body " + json.dumps(body, sort_keys=True))
elif what == "reviews":
    for r in state["gh_reviews"]:
        print("review %s" % json.dumps(r["body"]))
elif what == "comments":
    for c in state["gh_comments"]:
        print("github %s:%s %s" % (c["path"], c["line"], json.dumps(c["body"])))
    for d in state["gl_discussions"]:
        n = d["notes"][0]
        where = ""
        if n.get("position"):
            where = " %s:%s" % (n["position"]["new_path"], n["position"]["new_line"])
        print("gitlab%s%s %s" % (where, " resolved" if n.get("resolved") else "", json.dumps(n["body"])))
