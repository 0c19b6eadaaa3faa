#!/usr/bin/env python3
"""Runs one torch- check on a lit test file and verifies its expectations.

Modelled on LLVM's check_clang_tidy.py:

  check_torch_tidy.py [options] INPUT CHECK TEMP [-- COMPILE ARGS...]

The file is copied to TEMP.cpp with its CHECK comments blanked (line numbers
stay), clang-tidy runs on the copy with the plugin and --fix, then FileCheck
verifies
  CHECK-MESSAGES[-SUFFIX]:  warnings (a stray warning or error fails the test)
  CHECK-NOTES[-SUFFIX]:     warnings and notes (a stray note fails the test)
  CHECK-FIXES[-SUFFIX]:     the fixed file
A file without CHECK-MESSAGES/CHECK-NOTES must produce no warning at all.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clang-tidy", required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--mocks", required=True)
    parser.add_argument("-check-suffix", "--check-suffix", default="")
    parser.add_argument("-config", "--config", default=None)
    parser.add_argument("-std", "--std", default="c++17")
    parser.add_argument("--no-fix", action="store_true")
    parser.add_argument("--fix-notes", action="store_true",
                        help="also apply fix-its attached to notes (clang-tidy --fix-notes)")
    parser.add_argument("input")
    parser.add_argument("check")
    parser.add_argument("temp")
    args, extra = parser.parse_known_args()
    if extra and extra[0] == "--":
        extra = extra[1:]

    suffix = "-" + args.check_suffix.upper() if args.check_suffix else ""
    prefix_messages = "CHECK-MESSAGES" + suffix
    prefix_notes = "CHECK-NOTES" + suffix
    prefix_fixes = "CHECK-FIXES" + suffix

    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    has_messages = re.search(r"\b%s:" % re.escape(prefix_messages), text) is not None
    has_notes = re.search(r"\b%s:" % re.escape(prefix_notes), text) is not None
    has_fixes = re.search(r"\b%s:" % re.escape(prefix_fixes), text) is not None
    if has_messages and has_notes:
        sys.exit("%s: use either %s or %s, not both" % (args.input, prefix_messages, prefix_notes))

    cleaned = re.sub(r"//\s*CHECK-[A-Z0-9-]+:[^\r\n]*", "//", text)
    temp = args.temp + ".cpp"
    os.makedirs(os.path.dirname(os.path.abspath(temp)), exist_ok=True)
    with open(temp, "w", encoding="utf-8") as f:
        f.write(cleaned)

    cmd = [args.clang_tidy, "--load", args.plugin, "--checks=-*," + args.check, "--quiet"]
    if not args.no_fix:
        cmd.append("--fix")
        if args.fix_notes:
            cmd.append("--fix-notes")
    if args.config is not None:
        cmd.append("--config=" + args.config)
    cmd += [temp, "--", "-std=" + args.std, "-isystem", args.mocks] + extra
    print("Running: " + " ".join(shlex.quote(c) for c in cmd))
    proc = run(cmd)
    output = proc.stdout
    print("------------------------ clang-tidy output -----------------------")
    print(output)
    if proc.returncode != 0 and "error:" in output and "clang-diagnostic-error" in output:
        sys.exit("clang-tidy reported a compilation error in the test input")
    if re.search(r"error: (unable to load plugin|unknown argument)", output):
        sys.exit("clang-tidy could not run the plugin")
    out_file = args.temp + ".msg"
    with open(out_file, "w", encoding="utf-8") as f:
        f.write(output)

    def filecheck(input_file, prefix, implicit):
        fc = ["FileCheck", "-input-file=" + input_file, args.input, "-check-prefix=" + prefix]
        if implicit:
            fc.append("-implicit-check-not=" + implicit)
        res = run(fc)
        if res.returncode != 0:
            print(res.stdout)
            sys.exit("FileCheck failed for " + prefix)

    if has_notes:
        filecheck(out_file, prefix_notes, "{{note|warning|error}}:")
    elif has_messages:
        filecheck(out_file, prefix_messages, "{{warning|error}}:")
    elif re.search(r"(warning|error): ", output):
        sys.exit("expected no diagnostics, but clang-tidy printed some")
    if has_fixes:
        filecheck(temp, prefix_fixes, None)
    elif not args.no_fix and cleaned != open(temp, encoding="utf-8").read():
        sys.exit("the check changed the file, but the test has no %s lines" % prefix_fixes)


if __name__ == "__main__":
    main()
