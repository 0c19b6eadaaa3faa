#!/usr/bin/env python3
"""Copies a small project template to DEST and writes its compile_commands.json.

  mkproject.py TEMPLATE DEST MOCKS [--build build] [--missing FILE]

Every .cpp under DEST/src becomes a translation unit compiled with the mock
LibTorch headers (-isystem MOCKS) and -IDEST/include, so no real LibTorch is
needed and a clang-tidy run takes a fraction of a second.
"""
import argparse
import json
import os
import shutil

parser = argparse.ArgumentParser()
parser.add_argument("template")
parser.add_argument("dest")
parser.add_argument("mocks")
parser.add_argument("--build", default="build")
parser.add_argument("--missing", action="append", default=[],
                    help="list a translation unit that does not exist")
parser.add_argument("--directory-per-file", action="store_true",
                    help="each command runs in a directory of its own (build/<n>), as in a "
                         "database merged from several sub-builds")
args = parser.parse_args()

shutil.rmtree(args.dest, ignore_errors=True)
shutil.copytree(args.template, args.dest)
dest = os.path.abspath(args.dest)
build = os.path.join(dest, args.build)
os.makedirs(build, exist_ok=True)
entries = []
sources = sorted(os.path.relpath(os.path.join(d, f), dest)
                 for d, _, files in os.walk(os.path.join(dest, "src")) for f in files if f.endswith(".cpp"))
for n, rel in enumerate(sources + args.missing):
    directory = build
    if args.directory_per_file:
        directory = os.path.join(build, str(n))
        os.makedirs(directory, exist_ok=True)
    entries.append({
        "directory": directory,
        "file": os.path.join(dest, rel),
        "arguments": ["c++", "-std=c++17", "-isystem", args.mocks, "-I" + os.path.join(dest, "include"),
                      "-c", os.path.join(dest, rel), "-o", rel + ".o"],
    })
with open(os.path.join(build, "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
