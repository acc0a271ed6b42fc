#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/requirements_scaling.py SCROLLCASE — `add dep --from-requirements`
against the length of the file: the median wall time of N and 4N lines
(p0, p1, ... without a version) into a fresh scroll, and their ratio.  A
linear edit gives about 4; issue 24 measured 13 before the edit was one.
Ratios only: nothing here asserts a time."""

import os
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(sc, lines):
    with tempfile.TemporaryDirectory() as d:
        def call(*argv):
            subprocess.run([sc] + list(argv), cwd=d, check=True, capture_output=True)
        call("init")
        call("new", "scroll", "--box-id", "demo", "--target", "linux-x86_64-cpu",
             "--source-revision", "abc", "--execution", "script", "--script", "app/main.py",
             "--python-version", "3.11")
        with open(d + "/req.txt", "w") as f:
            f.writelines("p%d\n" % i for i in range(lines))
        t0 = time.monotonic()
        call("add", "dep", "demo", "--from-requirements", "req.txt")
        return time.monotonic() - t0


def main():
    sc = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "scrollcase"
    n, rounds = 12500, 5
    small = statistics.median(run_once(sc, n) for _ in range(rounds))
    large = statistics.median(run_once(sc, 4 * n) for _ in range(rounds))
    print("%d lines: %.3f s; %d lines: %.3f s; ratio %.1f (linear: 4)"
          % (n, small, 4 * n, large, large / small))


if __name__ == "__main__":
    main()
