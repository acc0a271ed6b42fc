#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""upstream_table.py COMMANDS_JSON CLI_MD — docs/cli.md's "Upstream's
spellings" against the option table (`help --commands-json`):

- every row of the table: each upstream option of its first column is an
  option or an alias of every command its last column names;
- every option of the "keep their spelling" sentence is an option of some
  command;
- every refusal of the "Not accepted" sentence (`COMMAND --option`) is not an
  option of that command.

Prints one line per failure and "N passed, N failed"."""
import json
import re
import sys

commands = json.load(open(sys.argv[1]))["commands"]
text = open(sys.argv[2], encoding="utf-8").read()
section = text[text.index("### Upstream's spellings"):text.index("### Workspace options")]

takes = {}  # command name -> set of spellings
for c in commands:
    spell = set()
    for o in c.get("options", []):
        spell.add(o["name"])
        spell.update(o.get("aliases") or [])
    takes[c["name"]] = spell
every = set().union(*takes.values())
passed = failed = 0


def check(name, ok):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", name)


rows = 0
for line in section.splitlines():
    if not line.startswith("| `"):
        continue
    cells = [c.strip() for c in line.strip("|").split("|")]
    flags = [f for f in re.findall(r"`(--[a-z][a-z0-9-]*)", cells[0])]
    where = [w for w in re.findall(r"`([a-z][a-z -]*[a-z])`", cells[-1]) if w in takes]
    if not flags or not where or "left out" in cells[0]:
        continue
    rows += 1
    for w in where:
        for f in flags:
            check("%s takes %s" % (w, f), f in takes[w])
check("the table has rows", rows >= 10)

keep = section[section.index("keep their spelling"):section.index("Not accepted")]
kept = re.findall(r"`(--[a-z][a-z0-9-]*)`", keep)
check("the keep sentence lists options", len(kept) >= 30)
for f in kept:
    check("some command takes %s" % f, f in every)

refused = section[section.index("Not accepted"):]
refused = refused[:refused.index("\n\n")]
pairs = re.findall(r"`([a-z][a-z -]*?) (--[a-z][a-z0-9-]*)`", refused.replace("\n", " "))
check("the refusals are listed", len(pairs) >= 3)
for w, f in pairs:
    check("%s refuses %s" % (w, f), w in takes and f not in takes[w])

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
