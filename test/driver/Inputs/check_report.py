#!/usr/bin/env python3
"""Checks a libtorch-tidy report file against its format's requirements.

  check_report.py sarif|gitlab|json|rdjson FILE

sarif:  valid against the OASIS SARIF 2.1.0 JSON schema (Inputs/sarif-schema-2.1.0.json,
        the errata01 schema as published by OASIS), one run, one rule per check with help
        text and a link, results pointing at their rule, with locations and fixes.
gitlab: a GitLab Code Quality report (an array of issues with description, check_name,
        fingerprint, severity, location.path and location.lines.begin).
json:   the driver's own format.
rdjson: valid against reviewdog's DiagnosticResult JSON schema (Inputs/rdjson-DiagnosticResult.json),
        and, beyond what that lenient schema requires, every diagnostic with a message, a relative
        path, a 1-based start, a rule code with its link, and suggestion ranges that start before
        they end.
Prints one line per finding: "<check> <file>:<line>" so FileCheck can look at them, and
one "notice ..." line per unit not analysed or check crashed (sarif: the invocation's
toolExecutionNotifications; json: "failures"; gitlab, rdjson: issues under the driver's or
the crashed check's name, which may lack a doc link).
"""
import json
import os
import sys


def fail(msg):
    sys.exit("check_report: " + msg)


def check_sarif(doc):
    import jsonschema  # pip install jsonschema

    with open(os.path.join(os.path.dirname(__file__), "sarif-schema-2.1.0.json")) as f:
        schema = json.load(f)
    checker = getattr(jsonschema.Draft4Validator, "FORMAT_CHECKER", None) or jsonschema.draft4_format_checker
    validator = jsonschema.Draft4Validator(schema, format_checker=checker)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("not valid SARIF 2.1.0: %s at %s" % (errors[0].message, "/".join(map(str, errors[0].path))))
    if doc.get("version") != "2.1.0" or len(doc["runs"]) != 1:
        fail("want version 2.1.0 and exactly one run")
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    if len(ids) != len(set(ids)):
        fail("a check has several rules")
    for r in rules:
        if r["id"].startswith("torch-"):
            if not r.get("helpUri") or not r.get("help", {}).get("text") or not r["shortDescription"]["text"]:
                fail("rule %s lacks help text or its doc link" % r["id"])
    if "SRCROOT" not in run.get("originalUriBaseIds", {}):
        fail("no SRCROOT base")
    for res in run["results"]:
        if rules[res["ruleIndex"]]["id"] != res["ruleId"]:
            fail("ruleIndex does not point at the result's rule")
        loc = res["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        if os.path.isabs(uri) or loc["artifactLocation"].get("uriBaseId") != "SRCROOT":
            fail("result location %s is not relative to SRCROOT" % uri)
        print("%s %s:%d fixes=%d related=%d" % (res["ruleId"], uri, loc["region"]["startLine"],
                                                len(res.get("fixes", [])), len(res.get("relatedLocations", []))))
    for inv in run.get("invocations", []):
        for n in inv.get("toolExecutionNotifications", []):
            uri = n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            print("notice %s %s success=%s %s: %s" % (n["descriptor"]["id"], uri, inv["executionSuccessful"],
                                                   n.get("associatedRule", {}).get("id", "-"),
                                                   n["message"]["text"]))


def check_gitlab(doc):
    if not isinstance(doc, list):
        fail("a Code Quality report is an array")
    seen = set()
    for issue in doc:
        for key in ("description", "check_name", "fingerprint", "severity", "location"):
            if key not in issue:
                fail("issue lacks %s" % key)
        if issue["severity"] not in ("info", "minor", "major", "critical", "blocker"):
            fail("bad severity " + issue["severity"])
        if issue["fingerprint"] in seen:
            fail("duplicate fingerprint")
        seen.add(issue["fingerprint"])
        loc = issue["location"]
        if os.path.isabs(loc["path"]) or not isinstance(loc["lines"]["begin"], int):
            fail("bad location %r" % loc)
        print("%s %s:%d" % (issue["check_name"], loc["path"], loc["lines"]["begin"]))


def check_rdjson(doc):
    import jsonschema  # pip install jsonschema

    with open(os.path.join(os.path.dirname(__file__), "rdjson-DiagnosticResult.json")) as f:
        schema = json.load(f)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("not valid rdjson: %s at %s" % (errors[0].message, "/".join(map(str, errors[0].path))))
    if doc.get("source", {}).get("name") != "libtorch-tidy":
        fail("the source is not named")
    for d in doc["diagnostics"]:
        loc = d["location"]
        start = loc["range"]["start"]
        if not d["message"] or os.path.isabs(loc["path"]) or start["line"] < 1 or start["column"] < 1:
            fail("bad diagnostic %r" % d)
        notice = not d["code"]["value"].startswith("torch-") and d["severity"] == "ERROR"
        if d["severity"] not in ("ERROR", "WARNING", "INFO") or not d["code"]["value"] or \
                not (d["code"].get("url") or notice):
            fail("diagnostic without severity, code or link: %r" % d)
        for sug in d.get("suggestions", []):
            a, b = sug["range"]["start"], sug["range"]["end"]
            if (a["line"], a["column"]) > (b["line"], b["column"]):
                fail("suggestion range ends before it starts")
        print("%s %s:%d suggestions=%d" % (d["code"]["value"], loc["path"], start["line"],
                                           len(d.get("suggestions", []))))


def check_json(doc):
    for f in doc["findings"]:
        for key in ("check", "severity", "message", "file", "line", "column", "notes", "fix", "fingerprint"):
            if key not in f:
                fail("finding lacks " + key)
        print("%s %s:%d fix=%d notes=%d" % (f["check"], f["file"], f["line"], len(f["fix"]), len(f["notes"])))
    for n in doc.get("failures", []):
        print("notice %s %s: %s%s" % (n["file"], n.get("check", "-"), n["message"],
                                      " crash_report" if n.get("crash_report") else ""))


kind, path = sys.argv[1:3]
with open(path) as f:
    document = json.load(f)
{"sarif": check_sarif, "gitlab": check_gitlab, "json": check_json, "rdjson": check_rdjson}[kind](document)
