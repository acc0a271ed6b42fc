#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Differential check of the TOML reader against Python's tomllib (TOML 1.0).

    toml_vs_tomllib.py DECODER DIR...

Every file in the DIRs is read by DECODER (toml_decode: toml-test's tagged
JSON, exit 0; exit 1 for a refusal) and by tomllib.  Both must accept or
refuse it, and what they accept must be the same document (types and
values; date-times as instants).  Five differences are known and allowed,
each where the two readers legitimately part:

- a file larger than 1 MiB: our reader refuses it (the size cap of 19.2,
  a rule of the format, not of TOML), tomllib reads it;
- a value nested deeper than 32 levels: our reader refuses it (19.2), tomllib
  reads it;
- a time with second 60 (a leap second, allowed by RFC 3339 and TOML): our
  reader keeps it, tomllib's datetime cannot hold it;
- an integer outside the signed 64-bit range: TOML 1.0 says a reader must
  refuse what it cannot hold losslessly and ours does; tomllib has Python's
  unbounded integers;
- a finite float literal whose value overflows binary64 (2e909): ours
  refuses it, tomllib rounds it to infinity.

Exit 0 when nothing else differs, 1 otherwise.
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tomllib

UTC = datetime.timezone.utc


def ref_tag(v):
    if isinstance(v, dict):
        return {k: ref_tag(x) for k, x in v.items()}
    if isinstance(v, list):
        return [ref_tag(x) for x in v]
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("integer", v)
    if isinstance(v, float):
        return ("float", "nan" if v != v else v)
    if isinstance(v, str):
        return ("string", v)
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            return ("datetime", v.astimezone(UTC).replace(tzinfo=None))
        return ("datetime-local", v)
    if isinstance(v, datetime.date):
        return ("date-local", v)
    return ("time-local", v)


def fromiso(kind, s):
    # Python keeps microseconds: cut the fraction to 6 digits as tomllib does
    if "." in s:
        head, rest = s.split(".", 1)
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        s = head + "." + (digits + "000000")[:6] + rest
    if kind == "datetime":
        d = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
        return d.astimezone(UTC).replace(tzinfo=None)
    if kind == "datetime-local":
        return datetime.datetime.fromisoformat(s)
    if kind == "date-local":
        return datetime.date.fromisoformat(s)
    return datetime.time.fromisoformat(s)


def our_tag(j):
    if isinstance(j, list):
        return [our_tag(x) for x in j]
    if set(j) == {"type", "value"} and isinstance(j["value"], str):
        t, s = j["type"], j["value"]
        if t == "integer":
            return (t, int(s))
        if t == "float":
            return (t, "nan" if s == "nan" else float(s))
        if t == "bool":
            return (t, s == "true")
        if t == "string":
            return (t, s)
        return (t, fromiso(t, s))
    return {k: our_tag(x) for k, x in j.items()}


def leap_second_only(data):
    """tomllib reads the file once every second 60 is written as 59."""
    text = data.decode("utf-8", "replace")
    fixed = re.sub(r"(\d\d:\d\d):60", r"\1:59", text)
    if fixed == text:
        return False
    try:
        tomllib.loads(fixed)
        return True
    except (tomllib.TOMLDecodeError, ValueError):
        return False


INT64 = (-(1 << 63), (1 << 63) - 1)


def values(doc):
    if isinstance(doc, dict):
        for v in doc.values():
            yield from values(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from values(v)
    else:
        yield doc


def out_of_range_only(ours_err, doc):
    """Our refusal names a range and tomllib's document holds such a value."""
    if "integer beyond the 64-bit range" in ours_err:
        return any(isinstance(v, int) and not isinstance(v, bool)
                   and not INT64[0] <= v <= INT64[1] for v in values(doc))
    if "float out of the binary64 range" in ours_err:
        return any(isinstance(v, float) and v in (float("inf"), float("-inf"))
                   for v in values(doc))
    return False


def main():
    decoder, dirs = sys.argv[1], sys.argv[2:]
    n = problems = allowed = 0
    for d in dirs:
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not os.path.isfile(path):
                continue
            data = open(path, "rb").read()
            n += 1
            doc = None
            try:
                doc = tomllib.loads(data.decode("utf-8"))
                ref, ref_err = ref_tag(doc), None
            except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as e:
                ref, ref_err = None, str(e)
            p = subprocess.run([decoder, path], capture_output=True, timeout=60)
            if p.returncode not in (0, 1):
                print("FAIL %s: decoder exit status %d" % (path, p.returncode))
                problems += 1
                continue
            ours_err = p.stderr.decode("utf-8", "replace").strip() if p.returncode else None
            if (ours_err is None) != (ref_err is None):
                if ours_err is not None and "nested deeper than" in ours_err:
                    allowed += 1
                    continue
                if (ours_err is not None and len(data) > 1 << 20
                        and "larger than 1048576 bytes" in ours_err):
                    allowed += 1
                    continue
                if ref_err is not None and leap_second_only(data):
                    allowed += 1
                    continue
                if ours_err is not None and out_of_range_only(ours_err, doc):
                    allowed += 1
                    continue
                print("FAIL %s: ours %s, tomllib %s" % (path, ours_err or "accepts",
                                                         ref_err or "accepts"))
                problems += 1
            elif ours_err is None and our_tag(json.loads(p.stdout)) != ref:
                print("FAIL %s: the two readers read different documents" % path)
                problems += 1
    print("toml vs tomllib: %d files, %d agree, %d known differences, %d problems"
          % (n, n - allowed - problems, allowed, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
