#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Per-case cost of the conformance adapter protocol in its two modes.

usage: conformance_modes.py --runner R [--adapter A] [--corpus DIR]
                            [--area AREA]... [--repeat N] [--out FILE]

Runs the same selection through the runner with --mode oneshot (a process
per case) and --mode persistent (one process per job), for the built-in C
adapter (next to the runner) and the example Python adapter
(conformance/examples/python/adapter.py), with --jobs 1 so the wall time of
a run divided by its cases is the cost of a case.  The best of --repeat runs
counts.  Writes a JSON document (to --out, default stdout) and prints a
table to stderr: ms per case in each mode and the oneshot/persistent ratio.
Nothing here asserts a time: timings are for reading, not for failing.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(runner, corpus, areas, mode, argv):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [runner, "--corpus", corpus, "--jobs", "1", "--mode", mode, "--quiet",
               "--report-json", report]
        for a in areas:
            cmd += ["--area", a]
        cmd += ["--"] + argv
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wall = time.monotonic() - t0
        with open(report, encoding="utf-8") as f:
            rep = json.load(f)
    ran = rep["summary"]["passed"] + rep["summary"]["failed"]
    if p.returncode != 0 or ran == 0:
        sys.exit("conformance_modes.py: %s run of %s failed (exit %d):\n%s"
                 % (mode, argv, p.returncode, p.stdout.decode() + p.stderr.decode()))
    return {"cases": ran, "wall_s": round(wall, 4),
            "ms_per_case": round(wall * 1000.0 / ran, 3)}


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "golden"))
    ap.add_argument("--area", action="append")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    areas = args.area or ["target", "json", "payload"]
    builtin = os.path.join(os.path.dirname(os.path.abspath(args.runner)), "scrollcase-adapter")
    adapters = {
        "c-builtin": [builtin],
        "python-example": [sys.executable,
                           os.path.join(ROOT, "conformance", "examples", "python", "adapter.py")],
    }
    results = []
    for name, adapter in adapters.items():
        row = {"adapter": name, "areas": areas}
        for mode in ("oneshot", "persistent"):
            best = None
            for _ in range(max(1, args.repeat)):
                r = run(args.runner, args.corpus, areas, mode, adapter)
                if best is None or r["wall_s"] < best["wall_s"]:
                    best = r
            row[mode] = best
        row["ratio"] = round(row["oneshot"]["ms_per_case"] /
                             max(row["persistent"]["ms_per_case"], 1e-9), 2)
        results.append(row)
    doc = {"benchmark": "conformance-modes", "jobs": 1, "repeat": args.repeat,
           "results": results}
    text = json.dumps(doc, indent=2) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    sys.stderr.write("%-16s %6s %14s %16s %7s\n" % ("adapter", "cases", "oneshot ms/case",
                                                   "persistent ms/case", "ratio"))
    for r in results:
        sys.stderr.write("%-16s %6d %14.2f %16.2f %7.1f\n" % (
            r["adapter"], r["oneshot"]["cases"], r["oneshot"]["ms_per_case"],
            r["persistent"]["ms_per_case"], r["ratio"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
