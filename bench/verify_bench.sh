#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# verify_bench.sh SCROLLCASE MAKE_BOX [BYTES] — time `scrollcase verify` and
# `sha256sum` over the same archive: a box whose payload is BYTES (default
# 1 GiB) of random bytes, stored.  Each is run three times after one warm-up
# read (page cache warm for both); the best time counts.  Prints a table and
# one JSON line: {"bytes", "verify_MBps", "sha256sum_MBps", "ratio"}.
set -eu
sc=$1
make_box=$2
bytes=${3:-1073741824}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "building a box with a $bytes-byte random payload in $tmp ..." >&2
size=$("$make_box" "$tmp" "$bytes")
"$sc" --keys-dir "$tmp/keys" keygen >/dev/null
"$sc" --keys-dir "$tmp/keys" sign "$tmp/release.json" --out "$tmp/release.signed.json" >/dev/null
trust=$tmp/keys/signing-public.json

now() { date +%s.%N; }
best() { # COMMAND... -> best wall seconds of three runs
    local b=
    for _ in 1 2 3; do
        local t0 t1
        t0=$(now)
        "$@" >/dev/null 2>&1
        t1=$(now)
        b=$(awk -v a="$t1" -v z="$t0" -v b="$b" 'BEGIN { d = a - z; if (b == "" || d < b) b = d; printf "%.4f", b }')
    done
    echo "$b"
}
cat "$tmp/box.zip" >/dev/null # warm the cache for both
"$sc" verify "$tmp/release.signed.json" --trust "$trust" --archive "$tmp/box.zip"
tv=$(best "$sc" verify "$tmp/release.signed.json" --trust "$trust" --archive "$tmp/box.zip")
ts=$(best sha256sum "$tmp/box.zip")
awk -v n="$size" -v tv="$tv" -v ts="$ts" 'BEGIN {
    mv = n / tv / 1e6; ms = n / ts / 1e6;
    printf "%-22s %12s %10s %10s\n", "command", "bytes", "seconds", "MB/s";
    printf "%-22s %12d %10.3f %10.1f\n", "scrollcase verify", n, tv, mv;
    printf "%-22s %12d %10.3f %10.1f\n", "sha256sum", n, ts, ms;
    printf "{\"bytes\":%d,\"verify_MBps\":%.1f,\"sha256sum_MBps\":%.1f,\"ratio\":%.3f}\n", n, mv, ms, mv / ms;
}'
