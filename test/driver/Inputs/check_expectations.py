#!/usr/bin/env python3
"""Compares a report's warnings with the sites a generator expects.

  check_expectations.py EXPECT.json REPORT (--linked | --alone)

EXPECT.json (gen_cross_tu.py): a list of sites {file, line, check, linked,
alone, case}; "linked" / "alone" is "warn", "silent" or "unchecked" (not
asserted). REPORT: clang-tidy output, with paths relative to the project
("src/f1.cpp:6:95: warning: ... [torch-eval-without-no-grad]").

Fails (exit 1, one line per mismatch) when an expected-positive site has no
warning of its check on its line, when a silent site has one, or when a
warning of one of the checks the sites name is on a line of a listed file
that no site expects. Prints a one-line count on success.
"""
import argparse
import collections
import json
import re
import sys

parser = argparse.ArgumentParser()
parser.add_argument("expect")
parser.add_argument("report")
mode = parser.add_mutually_exclusive_group(required=True)
mode.add_argument("--linked", dest="key", action="store_const", const="linked")
mode.add_argument("--alone", dest="key", action="store_const", const="alone")
args = parser.parse_args()

with open(args.expect) as f:
    sites = json.load(f)
warning = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+: warning: .* \[(?P<check>[\w.-]+)\]$")
warned = collections.Counter()
with open(args.report) as f:
    for text in f:
        m = warning.match(text.rstrip("\n"))
        if m:
            warned[(m["file"], int(m["line"]), m["check"])] += 1

checks = {s["check"] for s in sites}
files = {s["file"] for s in sites}
listed = {(s["file"], s["line"], s["check"]) for s in sites}
errors = []
counts = collections.Counter()
for s in sites:
    key = (s["file"], s["line"], s["check"])
    want = s[args.key]
    counts[want] += 1
    where = "%s:%d: %s (%s)" % (s["file"], s["line"], s["check"], s["case"])
    if want == "warn" and not warned[key]:
        errors.append(where + ": expected a warning, none")
    elif want == "silent" and warned[key]:
        errors.append(where + ": expected no warning, got %d" % warned[key])
for key in sorted(warned):
    if key[2] in checks and key[0] in files and key not in listed:
        errors.append("%s:%d: %s: a warning no site expects" % key)
for e in errors:
    print(e)
if errors:
    sys.exit(1)
print("%d sites as expected (%s): %d warned, %d silent, %d not asserted" %
      (len(sites), args.key, counts["warn"], counts["silent"], counts["unchecked"]))
