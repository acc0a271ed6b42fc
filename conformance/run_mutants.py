#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Prove that the suite can fail: run it once per mutation of mutants.json
with scrollcase-mutant-adapter and check that each mutation is caught.

usage: run_mutants.py --runner R --adapter MUTANT --corpus DIR
                      --mutations mutants.json [--out DIR] [--only NAME]
                      [--area A ...] [-- ADAPTER ARG...]

The adapter is --adapter (one path) or the argv after `--` (an interpreter
and its script: the example port's mutant.py).  --area limits every run to
those areas (the areas a port implements).

First a baseline run with no mutation (the mutant build is the real
adapter plus a layer that is off by default) records which cases pass; a
case can only catch a mutation if it passed there, so failures of the
library itself (conformance/builtin reports those) are never taken for a
caught mutation.  Then, for every mutation M, over the cases its mustFail globs select:
  - the runner, with SCROLLCASE_MUTATION=M, must exit 1 (cases failed), not
    0 (nothing caught) and not 2 (setup problem);
  - the adapter's hello must report "mutation": M (the layer is active);
  - at least one case must match one of M's mustFail globs ("<area>/<id>",
    fnmatch), pass in the baseline, and fail under M with a clean result
    (an answer, not a crash: the report's "crashed" is false);
  - every mustFail glob must name at least one case of the corpus (a renamed
    case must not silently weaken the check).
The mutations the adapter knows and those mutants.json lists must be the
same set.  Exit 0 when everything holds, 1 otherwise.
"""

import argparse
import concurrent.futures
import fnmatch
import json
import os
import subprocess
import sys
import tempfile


def run_suite(runner, adapter, corpus, report, mutation, cases=(), areas=()):
    env = dict(os.environ)
    env.pop("SCROLLCASE_MUTATION", None)
    if mutation is not None:
        env["SCROLLCASE_MUTATION"] = mutation
    if os.path.exists(report):
        os.unlink(report)  # never read a stale report of an earlier run
    cmd = [runner, "--corpus", corpus, "--report-json", report]
    for a in areas:
        cmd += ["--area", a]
    for g in cases:
        cmd += ["--case", g]
    cmd += ["--"] + adapter
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=1800)
    out = proc.stdout.decode("utf-8", "replace")
    data = None
    if os.path.exists(report):
        with open(report, encoding="utf-8") as f:
            data = json.load(f)
    return proc.returncode, out, data


def hello(adapter, mutation):
    env = dict(os.environ)
    env.pop("SCROLLCASE_MUTATION", None)
    if mutation is not None:
        env["SCROLLCASE_MUTATION"] = mutation
    proc = subprocess.run(adapter + ["--hello"], env=env, stdout=subprocess.PIPE,
                          timeout=60)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--adapter")
    ap.add_argument("--area", action="append", default=[],
                    help="run only the cases of this area (repeatable)")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--mutations", required=True)
    ap.add_argument("--out", help="directory for the per-mutation reports")
    ap.add_argument("--only", action="append", help="check only this mutation")
    ap.add_argument("--parallel", type=int, default=2,
                    help="mutation runs at once (each runner uses --jobs 2)")
    rest = []
    if "--" in argv:
        rest = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    args = ap.parse_args(argv)
    if bool(args.adapter) == bool(rest):
        sys.exit("run_mutants.py: give the adapter as --adapter PATH or after --, not both")
    adapter = [args.adapter] if args.adapter else rest
    out_dir = args.out or tempfile.mkdtemp(prefix="scrollcase-mutants-")
    os.makedirs(out_dir, exist_ok=True)
    with open(args.mutations, encoding="utf-8") as f:
        spec = json.load(f)
    mutations = spec["mutations"]
    problems = []

    h = hello(adapter, None)
    if h is None or h.get("mutation") is not None:
        sys.exit("run_mutants.py: the mutant adapter's plain --hello failed or "
                 "reports an active mutation")
    known = set(h.get("mutations") or [])
    listed = [m["name"] for m in mutations]
    if len(set(listed)) != len(listed):
        problems.append("mutants.json lists a mutation twice")
    for name in sorted(known - set(listed)):
        problems.append("mutation %s is implemented but not in mutants.json" % name)
    for name in sorted(set(listed) - known):
        problems.append("mutation %s is in mutants.json but the adapter lacks it" % name)

    rc, out, base = run_suite(args.runner, adapter, args.corpus,
                              os.path.join(out_dir, "baseline.json"), None, areas=args.area)
    if rc not in (0, 1) or base is None:
        sys.exit("run_mutants.py: the baseline run exited %d:\n%s" % (rc, out[-3000:]))
    passing = set("%s/%s" % (c["area"], c["id"]) for c in base["cases"]
                  if c["status"] == "pass")
    print("baseline (no mutation): %s" % out.strip().splitlines()[-1])
    if rc != 0:
        print("note: the baseline has failures; they cannot count as caught "
              "mutations (see conformance/builtin)")

    todo = [m for m in mutations
            if (not args.only or m["name"] in args.only) and m["name"] in known]

    # A mutation run covers only the cases its mustFail globs name: those
    # are the ones that must catch it, and the whole corpus once per mutation
    # would cost minutes under the sanitizers.
    def one(m):
        report = os.path.join(out_dir, "%s.json" % m["name"])
        return run_suite(args.runner, adapter, args.corpus, report, m["name"],
                         m.get("mustFail") or (), areas=args.area)

    with concurrent.futures.ThreadPoolExecutor(max(1, args.parallel)) as pool:
        runs = list(pool.map(one, todo))

    for m, (rc, out, data) in zip(todo, runs):
        name = m["name"]
        globs = m.get("mustFail") or []
        if not globs:
            problems.append("%s: no mustFail globs" % name)
            continue
        last = out.strip().splitlines()[-1] if out.strip() else "(no output)"
        if rc != 1 or data is None:
            problems.append("%s: the runner exited %d, expected 1 (failures); %s"
                            % (name, rc, last))
            continue
        active = ((data.get("adapter") or {}).get("hello") or {}).get("mutation")
        if active != name:
            problems.append("%s: the adapter reports mutation %r" % (name, active))
            continue
        labels = ["%s/%s" % (c["area"], c["id"]) for c in base["cases"]]
        failing = [c for c in data["cases"] if c["status"] == "fail"]
        caught = []
        for g in globs:
            if not any(fnmatch.fnmatchcase(l, g) for l in labels):
                problems.append("%s: mustFail glob %r names no case of the corpus"
                                % (name, g))
        for c in failing:
            label = "%s/%s" % (c["area"], c["id"])
            # a clean answer, not a crash (in persistent mode there is no
            # exit status per case: the report's "crashed" says it)
            if c.get("crashed", c.get("exit_code") not in (0, 1)) or label not in passing:
                continue
            if any(fnmatch.fnmatchcase(label, g) for g in globs):
                caught.append(label)
        if not caught:
            problems.append("%s: no failing case matches %s (%d cases failed)"
                            % (name, ", ".join(globs), len(failing)))
            continue
        print("%-26s caught by %d targeted case(s), %d failing in all: %s%s"
              % (name, len(caught), len(failing), ", ".join(caught[:4]),
                 ", ..." if len(caught) > 4 else ""))

    for p in problems:
        print("PROBLEM %s" % p)
    print("%d mutations, %d problems" % (len(mutations), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
