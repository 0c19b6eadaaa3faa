#!/usr/bin/env python3
"""Prints the entries of a compile_commands.json whose file ends with SUFFIX:
the database of a second build that compiles part of the project.

  filter_database.py compile_commands.json SUFFIX > other/compile_commands.json
"""
import json
import sys

entries = json.load(open(sys.argv[1]))
json.dump([e for e in entries if e["file"].endswith(sys.argv[2])], sys.stdout, indent=1)
