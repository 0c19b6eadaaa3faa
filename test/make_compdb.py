#!/usr/bin/env python3
"""Writes a compile_commands.json for the tests.

  make_compdb.py OUT_DIR FILE [FILE...] -- FLAGS...

One entry per FILE, compiled in OUT_DIR with the given flags (a single
string of space-separated flags is split)."""
import json
import os
import sys


def main():
    args = sys.argv[1:]
    sep = args.index("--") if "--" in args else len(args)
    out_dir, files, flags = args[0], args[1:sep], args[sep + 1:]
    split = []
    for f in flags:
        split.extend(f.split())
    entries = []
    for f in files:
        path = os.path.abspath(f)
        entries.append({"directory": os.path.abspath(out_dir), "file": path,
                        "arguments": ["c++"] + split + ["-c", path, "-o", path + ".o"]})
    with open(os.path.join(out_dir, "compile_commands.json"), "w") as out:
        json.dump(entries, out, indent=1)


if __name__ == "__main__":
    main()
