#!/usr/bin/env python3
"""Checks action.yml, ci/libtorch-tidy.gitlab-ci.yml and .pre-commit-hooks.yaml:
each parses as YAML with the keys its platform requires, and docs/ci.md holds
each file verbatim in a code block.

  check_ci_files.py SOURCE_ROOT
"""
import os
import sys

import yaml

root = sys.argv[1]
docs = open(os.path.join(root, "docs", "ci.md")).read()


def fail(msg):
    sys.exit("check_ci_files: " + msg)


def load(rel):
    text = open(os.path.join(root, rel)).read()
    if "```yaml\n" + text + "```" not in docs:
        fail("docs/ci.md does not show %s verbatim" % rel)
    return yaml.safe_load(text)


action = load("action.yml")
if action["runs"]["using"] != "composite" or not action.get("name") or not action.get("description"):
    fail("action.yml is not a composite action with a name and a description")
for step in action["runs"]["steps"]:
    if "run" in step and "shell" not in step:
        fail("action.yml: a run step without a shell: %s" % step.get("name"))
modes = {"review", "write", "post"}
if not all(any(m in str(s.get("if", "")) for s in action["runs"]["steps"]) for m in modes):
    fail("action.yml does not handle every mode")

gitlab = load("ci/libtorch-tidy.gitlab-ci.yml")
job = gitlab["libtorch-tidy-review"]
if not any("libtorch-tidy review" in line for line in job["script"]) or "rules" not in job:
    fail("the GitLab template does not review merge requests")

hooks = load(".pre-commit-hooks.yaml")
for hook in hooks:
    for key in ("id", "name", "entry", "language"):
        if key not in hook:
            fail(".pre-commit-hooks.yaml: a hook lacks " + key)
    if "--diff" not in hook["entry"]:
        fail("the pre-commit hook does not limit itself to the change")
