#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""options_table.py SCROLLCASE SCHEMA [CLI_MD] — checks the option table against the
program that uses it: `help --commands-json` validates against its schema;
every command's --help exits 0 and names every option it lists; a command
line made of every command's required operands and each of its options (with
a value that fits) passes `help --parse-only`; options a command does not
list are refused by it with the usage error.  With CLI_MD (docs/cli.md): every
option a `### \`scrollcase COMMAND ...\`` heading names is one COMMAND takes, and
the progress options (--quiet, --progress-fd) and --jobs are in the headings
of every command that takes them.  Prints "N passed, N failed"."""
import json
import re
import subprocess
import sys

import jsonschema

sc, schema_path = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def run(*args):
    p = subprocess.run([sc, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


rc, out, err = run("help", "--commands-json")
check("commands-json-exit", rc == 0, err)
table = json.loads(out)
with open(schema_path) as f:
    schema = json.load(f)
try:
    jsonschema.validate(table, schema)
    check("commands-json-schema", True)
except jsonschema.ValidationError as e:
    check("commands-json-schema", False, e.message)

all_options = {}
for c in table["commands"]:
    for o in c["options"]:
        all_options[o["name"]] = o


def value_for(o):
    if o["choices"]:
        return o["choices"][0]
    if o["argument"] == "NAME=VALUE":
        return "A=1"
    return "x"


for c in table["commands"]:
    words = c["words"]
    name = c["name"]
    check("words-name %s" % name, " ".join(words) == name)
    rc, out, err = run(*words, "--help")
    check("help %s" % name, rc == 0 and out.startswith("usage: scrollcase " + name) and err == "",
          "exit %d %s" % (rc, err))
    for o in c["options"]:
        check("help-lists %s %s" % (name, o["name"]), o["name"] in out)
    operands = [("A=1" if "=" in op["name"] else "x") for op in c["operands"]
                if op["required"] and not op["name"].startswith("--")]
    line = list(words) + operands
    for o in c["options"]:
        if o["name"] == "--help":
            continue
        extra = [o["name"]] if o["argument"] is None else [o["name"], value_for(o)]
        rc, _, err = run("help", "--parse-only", "--", *line, *extra)
        check("parses %s %s" % (name, o["name"]), rc == 0, err)
        for alias in o["aliases"] + ([o["short"]] if o["short"] else []):
            extra[0] = alias
            rc, _, err = run("help", "--parse-only", "--", *line, *extra)
            check("alias %s %s" % (name, alias), rc == 0, err)
        if o["choices"]:
            rc, out2, err = run("help", "--parse-only", "--", *line, o["name"], "not-a-choice")
            check("choice-refused %s %s" % (name, o["name"]),
                  rc == 2 and "error[usage]" in err and out2 == "", err)
    listed = {o["name"] for o in c["options"]}
    # three of the options other commands take (all of them: ~2000 runs)
    aliased = {a for o in c["options"] for a in o["aliases"]}
    for other in sorted(set(all_options) - listed - aliased)[:3]:
        o = all_options[other]
        extra = [other] if o["argument"] is None else [other, value_for(o)]
        rc, out2, err = run("help", "--parse-only", "--", *line, *extra)
        check("refused %s %s" % (name, other),
              rc == 2 and "error[usage]" in err and out2 == "",
              "exit %d" % rc)
    if any(op["required"] for op in c["operands"]):
        rc, _, err = run("help", "--parse-only", "--", *words)
        check("operand-required %s" % name, rc != 0 and "error[usage]" in err, err)

if len(sys.argv) > 3:
    with open(sys.argv[3], encoding="utf-8") as f:
        headings = re.findall(r"^### `scrollcase ([^`]*)`", f.read(), re.M)
    by_length = sorted(table["commands"], key=lambda c: len(c["name"]), reverse=True)
    named = {}  # command name -> the options its headings name
    for h in headings:
        c = next((c for c in by_length if h == c["name"] or h.startswith(c["name"] + " ")), None)
        if c is None:  # a heading for a family ("add file|asset|...")
            continue
        named.setdefault(c["name"], set()).update(re.findall(r"--[a-z][a-z0-9-]*", h))
    for c in table["commands"]:
        if c["name"] not in named:
            continue
        takes = {o["name"] for o in c["options"]}
        for o in sorted(named[c["name"]] - takes):
            check("heading-option-taken %s %s" % (c["name"], o), False, "docs/cli.md")
        for o in ("--quiet", "--progress-fd", "--jobs"):
            if o in takes:
                check("heading-lists %s %s" % (c["name"], o), o in named[c["name"]], "docs/cli.md")
    check("headings-found", len(named) > 20, "%d" % len(named))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
