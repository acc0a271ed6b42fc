#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# inspect_bench.sh INSPECT_TIME SOURCE_DIR — archive inspection against name
# length (docs/format-v3.md 15.2 allows 65,535-byte names).  Two archives
# with the same total name bytes: "long" holds six entries whose paths are
# 65,535 bytes ("a/" repeated, sharing every prefix), "short" the same bytes
# as ~16-byte paths in 500 directories.  Prints the best of three inspection
# times of each and the ratio long/short, and one JSON line.  Linear
# inspection keeps the ratio near 1 (or below: fewer entries); a check that
# rehashes every '/'-prefix makes it grow with the name length.
set -eu
inspect_time=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$src/fixtures" "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import zipfmt as zf
out = sys.argv[2]
stem = "a/" * 32766
longs = [stem + "f%d" % i + "x" * (65535 - len(stem) - len("f%d" % i)) for i in range(6)]
assert all(len(p) == 65535 for p in longs)
total = sum(len(p) for p in longs)
shorts, n = [], 0
while n < total:
    p = "d%03d/f%09d" % (len(shorts) % 500, len(shorts))
    shorts.append(p)
    n += len(p)
open(out + "/long.zip", "wb").write(zf.assemble([zf.LocalSpec(p, b"") for p in longs]))
open(out + "/short.zip", "wb").write(zf.assemble([zf.LocalSpec(p, b"") for p in shorts], zip64="auto"))
PY
"$inspect_time" "${SC_BENCH_RUNS:-3}" "$tmp/long.zip" "$tmp/short.zip" >"$tmp/times"
awk '{ n[NR] = $2; t[NR] = $3 } END {
    printf "%-8s %10s %12s\n", "archive", "entries", "seconds";
    printf "%-8s %10d %12.6f\n", "long", n[1], t[1];
    printf "%-8s %10d %12.6f\n", "short", n[2], t[2];
    r = t[2] > 0 ? t[1] / t[2] : 0;
    printf "ratio long/short: %.2f\n", r;
    printf "{\"long_seconds\": %.6f, \"short_seconds\": %.6f, \"ratio\": %.3f}\n", t[1], t[2], r
}' "$tmp/times"
