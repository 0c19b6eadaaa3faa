#!/usr/bin/env python3
"""Prints a code block of a Markdown page, so that a test runs the text the
docs show: the first ```LANG block that contains every --containing string.

  test/doc_snippet.py docs/editors.md --lang lua --containing libtorch-tidy-clangd
"""
import argparse
import re
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--lang", required=True)
    ap.add_argument("--containing", action="append", default=[])
    args = ap.parse_args()
    with open(args.page) as f:
        text = f.read()
    for block in re.findall(r"^```" + re.escape(args.lang) + r"\n(.*?)^```$", text, re.M | re.S):
        if all(c in block for c in args.containing):
            sys.stdout.write(block)
            return 0
    sys.stderr.write("%s: no ```%s block containing %s\n" % (args.page, args.lang, args.containing))
    return 1


if __name__ == "__main__":
    sys.exit(main())
