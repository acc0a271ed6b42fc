#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Run the toml-test corpus against the TOML reader (toml_decode).

    toml_test_corpus.py DECODER CORPUS_DIR EXCEPTIONS_FILE

CORPUS_DIR holds valid/ and invalid/ (Debian's golang-github-burntsushi-toml-dev
ships it under .../internal/toml-test/tests).  Every valid/**/*.toml must decode
(exit 0) to JSON equal to its .json, compared as toml-test compares: tables
and arrays structurally, floats as binary64 numbers (NaN only as "nan"),
date-times as the instants (or local values) they name, everything else as
strings.  Every invalid/**/*.toml must be refused with exit status 1 (exit 2
or a signal is a failure: the reader broke, it did not refuse).

EXCEPTIONS_FILE lists "valid/... reason" or "invalid/... reason" lines (no
extension): those files are expected to come out the other way (a TOML 1.1
test refused by a 1.0 reader).  An exception that no longer fails is itself
an error, so the list cannot go stale.  Prints the counts; exit 0 when
everything matched, 1 otherwise, 77 (skipped) when the corpus is missing.
"""
import datetime
import json
import math
import os
import subprocess
import sys


def load_exceptions(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(" ")
            if not reason.strip():
                raise SystemExit("%s: exception %s has no reason" % (path, name))
            out[name] = reason.strip()
    return out


def parse_dt(kind, text):
    t = text.replace(" ", "T").replace("t", "T").replace("z", "Z")
    frac = 0
    if "." in t:
        head, rest = t.split(".", 1)
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        frac = int((digits + "000000000")[:9])
        t = head + rest
    if kind == "datetime":
        if t.endswith("Z"):
            t = t[:-1] + "+00:00"
        d = datetime.datetime.fromisoformat(t)
        return (d.astimezone(datetime.timezone.utc).replace(tzinfo=None), frac)
    if kind == "datetime-local":
        return (datetime.datetime.fromisoformat(t), frac)
    if kind == "date-local":
        return (datetime.date.fromisoformat(t), frac)
    return (datetime.time.fromisoformat(t), frac)


def is_value(m):
    return isinstance(m, dict) and set(m) == {"type", "value"}


def compare(want, have, key):
    if isinstance(want, list):
        if not isinstance(have, list) or len(want) != len(have):
            return "%s: array differs" % key
        for i, (w, h) in enumerate(zip(want, have)):
            r = compare(w, h, "%s[%d]" % (key, i))
            if r:
                return r
        return None
    if not isinstance(want, dict) or not isinstance(have, dict):
        return "%s: expected a table, got %r" % (key, have)
    if is_value(want) != is_value(have):
        return "%s: value/table mismatch" % key
    if is_value(want):
        wt, ht = want["type"], have["type"]
        if wt != ht:
            return "%s: type %s, want %s" % (key, ht, wt)
        if wt == "array":
            return compare(want["value"], have["value"], key)
        wv, hv = want["value"], have["value"]
        if wt == "float":
            if wv.endswith("nan") or hv.endswith("nan"):
                return None if wv.endswith("nan") and hv == "nan" else "%s: %s, want %s" % (key, hv, wv)
            return None if float(wv) == float(hv) else "%s: %s, want %s" % (key, hv, wv)
        if wt in ("datetime", "datetime-local", "date-local", "time-local"):
            return None if parse_dt(wt, wv) == parse_dt(wt, hv) else "%s: %s, want %s" % (key, hv, wv)
        return None if wv == hv else "%s: %r, want %r" % (key, hv, wv)
    if set(want) != set(have):
        return "%s: keys %s, want %s" % (key, sorted(have), sorted(want))
    for k in want:
        r = compare(want[k], have[k], (key + "." if key else "") + k)
        if r:
            return r
    return None


def main():
    decoder, corpus, exc_path = sys.argv[1:4]
    if not os.path.isdir(os.path.join(corpus, "valid")):
        print("toml-test corpus not found at %s (apt-get install golang-github-burntsushi-toml-dev)"
              % corpus)
        return 77
    exceptions = load_exceptions(exc_path)
    seen_exc = set()
    counts = {"valid": [0, 0], "invalid": [0, 0]}
    listed = {"valid": 0, "invalid": 0}
    problems = []
    for kind in ("valid", "invalid"):
        files = []
        for d, _, names in os.walk(os.path.join(corpus, kind)):
            files += [os.path.join(d, n) for n in names if n.endswith(".toml")]
        for path in sorted(files):
            name = os.path.relpath(path, corpus)[:-5]
            if name not in exceptions:
                counts[kind][1] += 1
            p = subprocess.run([decoder, path], capture_output=True, timeout=60)
            if kind == "valid":
                ok = p.returncode == 0
                why = p.stderr.decode("utf-8", "replace").strip()
                if ok:
                    with open(path[:-5] + ".json", encoding="utf-8") as f:
                        want = json.load(f)
                    why = compare(want, json.loads(p.stdout), "")
                    ok = why is None
            else:
                ok = p.returncode == 1
                why = "accepted" if p.returncode == 0 else "exit status %d" % p.returncode
            if name in exceptions:
                seen_exc.add(name)
                listed[kind] += 1
                want_rc = 1 if kind == "valid" else 0
                ok = p.returncode == want_rc
                why = ("listed as an exception (%s) but exit status %d"
                       % (exceptions[name], p.returncode))
            if ok:
                counts[kind][0] += name not in exceptions
            else:
                problems.append("%s: %s" % (name, why))
    for name in sorted(set(exceptions) - seen_exc):
        problems.append("%s: listed as an exception but not in the corpus" % name)
    for line in problems:
        print("FAIL " + line)
    print("toml-test: valid %d/%d decoded as expected, invalid %d/%d refused; "
          "listed exceptions: %d valid, %d invalid (each behaving as listed unless FAIL above)"
          % (counts["valid"][0], counts["valid"][1], counts["invalid"][0], counts["invalid"][1],
             listed["valid"], listed["invalid"]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
