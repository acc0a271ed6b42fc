#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Check the conformance corpus: every case.json against case.schema.json,
plus the rules a schema cannot express.

usage: check_cases.py [CORPUS] [--root DIR]

CORPUS defaults to golden/ of the repository; relative paths are taken
against the current directory.  The repository root (for docs/ and
core/include/) defaults to the parent of this script's directory.

Checked for every golden/<area>/<id>/:
  - case.json is strict JSON (UTF-8, no duplicate keys, no NaN/Infinity, at
    most 72 deep) and validates against conformance/case.schema.json (JSON
    Schema 2020-12);
  - id equals the directory name and is unique in the corpus, area equals the
    parent directory name, kind agrees with expect.outcome;
  - every input file exists as a regular file (no link) inside the case
    directory, is listed once, and its bytes have the listed sha256;
  - every file in the case directory except case.json and README.md is
    listed in inputs; README.md exists and is not blank;
  - every errorCodes entry is a code of docs/errors.md (rows "| `code` |"),
    or, while that file does not exist, of the SC_ERROR_CODES X-macro in
    core/include/scrollcase/error.h (with a warning);
  - spec names a section heading of docs/format-v3.md; since is not newer
    than conformance/VERSION, not newer than the first recorded release that
    holds the case, and, for a case no recorded release holds, newer than the
    newest one (conformance/released/<version> lists the cases of each
    release: a case added later cannot claim to be part of an older suite,
    or `--suite-version` would give a list that release never had).
Prints the number of cases per area; exits 1 on any problem, 2 on a usage
or setup problem.
"""

import argparse
import hashlib
import json
import os
import re
import stat
import sys

try:
    import jsonschema
except ImportError:  # pragma: no cover - setup problem
    sys.stderr.write("check_cases.py: the jsonschema module is missing "
                     "(Debian: apt-get install python3-jsonschema)\n")
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP_FILES = ("case.json", "README.md")


class StrictJSONError(ValueError):
    pass


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise StrictJSONError("duplicate key %r" % key)
        seen[key] = value
    return seen


def _no_constant(name):
    raise StrictJSONError("%s is not JSON" % name)


ENVELOPE_DEPTH = 72  # README 2.2: a case file may nest 64 + 8 levels


def depth_of(v):
    """Nesting depth of a parsed value (the outermost container is 1)."""
    depth, level = 0, [(v, 1)]
    while level:
        x, d = level.pop()
        if isinstance(x, (dict, list)):
            depth = max(depth, d)
            level.extend((y, d + 1) for y in (x.values() if isinstance(x, dict) else x))
    return depth


def load_strict(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raise StrictJSONError("byte-order mark")
    text = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError
    return json.loads(text, object_pairs_hook=_no_duplicates,
                      parse_constant=_no_constant)


def error_codes(root, warn):
    errors_md = os.path.join(root, "docs", "errors.md")
    if os.path.isfile(errors_md):
        codes = set()
        row = re.compile(r"^\|\s*`([a-z0-9][a-z0-9-]*)`\s*\|")
        with open(errors_md, encoding="utf-8") as f:
            for line in f:
                m = row.match(line)
                if m:
                    codes.add(m.group(1))
        if not codes:
            raise SystemExit("check_cases.py: no \"| `code` |\" rows in %s" % errors_md)
        return codes, "docs/errors.md"
    header = os.path.join(root, "core", "include", "scrollcase", "error.h")
    with open(header, encoding="utf-8") as f:
        text = f.read()
    codes = set(re.findall(r'X\(\s*SC_[A-Z0-9_]+\s*,\s*"([a-z0-9-]+)"\s*\)', text))
    codes.discard("ok")
    if not codes:
        raise SystemExit("check_cases.py: no codes found in %s" % header)
    warn("docs/errors.md does not exist yet; taking the %d codes of "
         "core/include/scrollcase/error.h instead" % len(codes))
    return codes, "core/include/scrollcase/error.h"


def spec_sections(root):
    path = os.path.join(root, "docs", "format-v3.md")
    sections = set()
    heading = re.compile(r"^#{1,6}\s+([0-9]+(?:\.[0-9]+)*)\.?\s")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = heading.match(line)
            if m:
                sections.add(m.group(1))
    return sections


def semver(s):
    return tuple(int(x) for x in s.split("."))


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def case_files(case_dir):
    """Every non-directory below case_dir, as '/'-joined relative paths."""
    found = []
    for dirpath, dirnames, filenames in os.walk(case_dir):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, case_dir)
        for name in sorted(filenames) + [d for d in dirnames
                                          if os.path.islink(os.path.join(dirpath, d))]:
            rel = name if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/" + name
            found.append(rel)
    return found


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", help="the corpus directory (default: <root>/golden)")
    ap.add_argument("--root", default=os.path.dirname(HERE),
                    help="repository root (default: parent of conformance/)")
    ap.add_argument("--released", metavar="DIR",
                    help="the record of released case lists (default: conformance/released/ "
                    "when the corpus is the repository's golden/, else none)")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    corpus = os.path.abspath(args.corpus or os.path.join(root, "golden"))
    released_dir = args.released
    if released_dir is None and corpus == os.path.join(root, "golden"):
        released_dir = os.path.join(HERE, "released")

    problems = []
    warnings = []

    def problem(where, msg):
        problems.append("%s: %s" % (where, msg))

    def warn(msg):
        warnings.append(msg)
        sys.stderr.write("warning: %s\n" % msg)

    with open(os.path.join(HERE, "case.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    codes, codes_from = error_codes(root, warn)
    sections = spec_sections(root)
    with open(os.path.join(HERE, "VERSION"), encoding="utf-8") as f:
        suite_version = f.read().strip()
    released = released_cases(released_dir) if released_dir else (None, {})

    if not os.path.isdir(corpus):
        sys.stderr.write("check_cases.py: corpus %s is not a directory\n" % corpus)
        return 2

    per_area = {}
    ids = {}
    for area in sorted(os.listdir(corpus)):
        area_dir = os.path.join(corpus, area)
        if area.startswith("."):
            continue
        if not os.path.isdir(area_dir) or os.path.islink(area_dir):
            if area != "README.md":
                problem(area, "only area directories (and README.md) belong in the corpus root")
            continue
        per_area.setdefault(area, 0)
        for case_id in sorted(os.listdir(area_dir)):
            case_dir = os.path.join(area_dir, case_id)
            where = "%s/%s" % (area, case_id)
            if case_id.startswith("."):
                continue
            if not os.path.isdir(case_dir) or os.path.islink(case_dir):
                if case_id != "README.md":
                    problem(where, "only case directories (and README.md) belong in an area")
                continue
            per_area[area] += 1
            check_case(case_dir, area, case_id, where, validator, codes, codes_from,
                       sections, suite_version, ids, problem, released)

    if not per_area:
        problem(os.path.relpath(corpus), "the corpus holds no area")
    total = sum(per_area.values())
    for area in sorted(per_area):
        print("%-16s %5d" % (area, per_area[area]))
    print("%-16s %5d" % ("total", total))
    for p in problems:
        print("PROBLEM %s" % p)
    print("%d cases, %d problems, %d warnings" % (total, len(problems), len(warnings)))
    return 1 if problems else 0


def released_cases(directory):
    """(newest release, {area/id: first release holding it}) from
    conformance/released/<version>, one area/id per line."""
    first, newest = {}, None
    if not os.path.isdir(directory):
        return None, first
    for v in sorted(os.listdir(directory), key=semver):
        newest = v
        with open(os.path.join(directory, v), encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    first.setdefault(line.strip(), v)
    return newest, first


def check_since(where, since, suite_version, released, problem):
    if semver(since) > semver(suite_version):
        problem(where, "since %s is newer than the suite (%s)" % (since, suite_version))
    newest, first = released
    if newest is None:
        return
    shipped = first.get(where)
    if shipped is not None and semver(since) > semver(shipped):
        problem(where, "since %s is newer than %s, the release that shipped it" % (since, shipped))
    if shipped is None and semver(since) <= semver(newest):
        problem(where, "since %s, but no release up to %s holds the case: a case added "
                "after %s has the since of the release that first ships it (%s)"
                % (since, newest, newest, suite_version))


def check_case(case_dir, area, case_id, where, validator, codes, codes_from,
               sections, suite_version, ids, problem, released=(None, {})):
    case_json = os.path.join(case_dir, "case.json")
    if not os.path.isfile(case_json) or os.path.islink(case_json):
        problem(where, "no case.json")
        return
    try:
        case = load_strict(case_json)
    except (ValueError, OSError) as e:
        problem(where, "case.json is not strict JSON: %s" % e)
        return

    if depth_of(case) > ENVELOPE_DEPTH:
        problem(where, "case.json nests %d deep, more than the %d a case may (README 2.2)"
                % (depth_of(case), ENVELOPE_DEPTH))
    for err in sorted(validator.iter_errors(case), key=lambda e: list(e.absolute_path)):
        loc = "/".join(str(p) for p in err.absolute_path) or "(top)"
        problem(where, "schema: at %s: %s" % (loc, err.message))
    if not isinstance(case, dict):
        return

    if case.get("id") != case_id:
        problem(where, "id %r differs from the directory name" % case.get("id"))
    if isinstance(case.get("id"), str):
        if case["id"] in ids:
            problem(where, "id %r is also used by %s" % (case["id"], ids[case["id"]]))
        else:
            ids[case["id"]] = where
    if case.get("area") != area:
        problem(where, "area %r differs from the parent directory %r" % (case.get("area"), area))

    expect = case.get("expect") if isinstance(case.get("expect"), dict) else {}
    kind, outcome = case.get("kind"), expect.get("outcome")
    if (kind, outcome) in (("valid", "reject"), ("invalid", "accept")):
        problem(where, "kind %r contradicts expect.outcome %r" % (kind, outcome))
    for code in expect.get("errorCodes") or []:
        if isinstance(code, str) and code not in codes:
            problem(where, "error code %r is not listed in %s" % (code, codes_from))

    spec = case.get("spec")
    if isinstance(spec, str) and spec not in sections:
        problem(where, "spec %r names no section heading of docs/format-v3.md" % spec)
    since = case.get("since")
    if isinstance(since, str) and re.match(r"^\d+\.\d+\.\d+$", since):
        check_since(where, since, suite_version, released, problem)

    listed = set()
    for i, entry in enumerate(case.get("inputs") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        rel = entry["file"]
        if rel in listed:
            problem(where, "input %s is listed twice" % rel)
        listed.add(rel)
        parts = rel.split("/")
        if rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
            problem(where, "input %r is not a safe relative path" % rel)
            continue
        path = os.path.join(case_dir, *parts)
        try:
            st = os.lstat(path)
        except OSError:
            problem(where, "input %s does not exist" % rel)
            continue
        # no component may be a link, so the file cannot lie outside the case
        walked = case_dir
        linked = False
        for p in parts[:-1]:
            walked = os.path.join(walked, p)
            linked = linked or os.path.islink(walked)
        if linked or not stat.S_ISREG(st.st_mode):
            problem(where, "input %s is not a regular file inside the case directory" % rel)
            continue
        digest = sha256_of(path)
        if digest != entry.get("sha256"):
            problem(where, "input %s has sha256 %s, case.json says %s"
                    % (rel, digest, entry.get("sha256")))

    for rel in case_files(case_dir):
        if rel in SKIP_FILES or rel in listed:
            continue
        problem(where, "file %s is not listed in inputs" % rel)

    readme = os.path.join(case_dir, "README.md")
    if not os.path.isfile(readme) or os.path.islink(readme):
        problem(where, "README.md is missing")
    else:
        with open(readme, "rb") as f:
            if not f.read().strip():
                problem(where, "README.md is empty")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
