#!/usr/bin/env python3
"""Applies every suggestion of the comments fake_forge.py holds to the files
under ROOT, as a reviewer clicking "Commit suggestion" would.

  apply_suggestions.py STATE ROOT github|gitlab
  apply_suggestions.py REPORT ROOT rdjson

GitHub: a ```suggestion block replaces the comment's lines start_line..line.
GitLab: a ```suggestion:-N+M block replaces lines new_line-N..new_line+M.
rdjson: each suggestion replaces its range (1-based line and byte column, end
exclusive) of the diagnostic's file.
Suggestions are applied bottom-up per file so earlier line numbers hold.
"""
import json
import os
import re
import sys

state = json.load(open(sys.argv[1]))
root, platform = sys.argv[2], sys.argv[3]
edits = {}  # path -> [(first, last, text)]
if platform == "github":
    for c in state["gh_comments"]:
        m = re.search(r"```suggestion\n(.*?)\n```", c["body"], re.S)
        if m:
            first = c.get("start_line") or c["line"]
            edits.setdefault(c["path"], []).append((first, c["line"], m.group(1)))
elif platform == "gitlab":
    for d in state["gl_discussions"]:
        n = d["notes"][0]
        m = re.search(r"```suggestion:-(\d+)\+(\d+)\n(.*?)\n```", n["body"], re.S)
        if m and n.get("position") and not n.get("resolved"):
            line = n["position"]["new_line"]
            edits.setdefault(n["position"]["new_path"], []).append(
                (line - int(m.group(1)), line + int(m.group(2)), m.group(3)))
count = 0
if platform == "rdjson":
    ranges = {}
    for d in state["diagnostics"]:
        for sug in d.get("suggestions", []):
            r = sug["range"]
            ranges.setdefault(d["location"]["path"], []).append(
                ((r["start"]["line"], r["start"]["column"]), (r["end"]["line"], r["end"]["column"]), sug["text"]))
    for path, items in ranges.items():
        full = os.path.join(root, path)
        data = open(full, "rb").read()
        starts = [0] + [i + 1 for i, c in enumerate(data) if c == ord("\n")]
        for (sl, sc), (el, ec), text in sorted(items, reverse=True):
            a, b = starts[sl - 1] + sc - 1, starts[el - 1] + ec - 1
            data = data[:a] + text.encode() + data[b:]
            count += 1
        open(full, "wb").write(data)
for path, items in edits.items():
    full = os.path.join(root, path)
    lines = open(full).read().split("\n")
    for first, last, text in sorted(items, reverse=True):
        lines[first - 1:last] = text.split("\n")
        count += 1
    open(full, "w").write("\n".join(lines))
print("applied %d suggestions" % count)
