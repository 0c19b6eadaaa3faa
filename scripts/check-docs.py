#!/usr/bin/env python3
"""Checks that docs/checks/README.md, the doc pages and the lit tests agree with
the checks the plugin registers.

  check-docs.py CLANG_TIDY PLUGIN SOURCE_ROOT

Every registered check needs test/checks/<id>.cpp, docs/checks/<id>.md and a
row in docs/checks/README.md whose "offers fix-it" column says "yes" exactly
when its lit tests expect fixes (CHECK-FIXES). No row may name an unknown check.
"""
import glob
import os
import re
import subprocess
import sys


def main():
    tidy, plugin, root = sys.argv[1:4]
    out = subprocess.run([tidy, "--load", plugin, "--checks=-*,torch-*", "--list-checks"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    registered = sorted(set(re.findall(r"^\s+(torch-[a-z0-9-]+)\s*$", out, re.M)))
    if not registered:
        sys.exit("no torch- checks registered")
    index = open(os.path.join(root, "docs", "checks", "README.md"), encoding="utf-8").read()
    rows = {}
    for m in re.finditer(r"^\|\s*\[(torch-[a-z0-9-]+)\]\(([^)]+)\)\s*\|\s*(\w+)\s*\|\s*(\w+)\s*\|", index, re.M):
        rows[m.group(1)] = (m.group(2), m.group(3), m.group(4))
    errors = []
    for check in registered:
        tests = glob.glob(os.path.join(root, "test", "checks", check + "*.cpp"))
        if not os.path.exists(os.path.join(root, "test", "checks", check + ".cpp")):
            errors.append("%s: no lit test test/checks/%s.cpp" % (check, check))
        if not os.path.exists(os.path.join(root, "docs", "checks", check + ".md")):
            errors.append("%s: no doc page docs/checks/%s.md" % (check, check))
        if check not in rows:
            errors.append("%s: no row in docs/checks/README.md" % check)
            continue
        link, side, fix = rows[check]
        if link != check + ".md":
            errors.append("%s: the row links to %s" % (check, link))
        if side not in ("memory", "performance", "correctness"):
            errors.append("%s: side must be memory, performance or correctness, not %s" % (check, side))
        has_fixes = any("CHECK-FIXES" in open(t, encoding="utf-8").read() for t in tests)
        if (fix == "yes") != has_fixes:
            errors.append("%s: README says fix-it '%s' but its tests %s CHECK-FIXES"
                          % (check, fix, "have" if has_fixes else "have no"))
    for check in rows:
        if check not in registered:
            errors.append("%s: listed in docs/checks/README.md but not registered" % check)
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print("%d checks: index, pages and tests agree" % len(registered))


if __name__ == "__main__":
    main()
