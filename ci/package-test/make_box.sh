#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make_box.sh SCROLLCASE SOURCE_DIR OUT — a small signed box for the tests of
# the embedding example and of the installed packages:
#   OUT/demo-box.zip              the archive (fixtures/testbox.py)
#   OUT/release.signed.json       its release, signed with `SCROLLCASE sign`
#   OUT/keys/signing-public.json  the trust file (`SCROLLCASE keygen`)
# The box's interpreter is a shell script standing in for Python: for -c (the
# self-test) it exits 0; for the box's script it prints "hello from the
# demo box:" and its arguments, and exits 0.
set -euo pipefail
sc=$1 src=$2 out=$3
mkdir -p "$out"
cat >"$out/interpreter" <<'SH'
#!/bin/sh
if [ "$1" = "-c" ]; then exit 0; fi
shift
echo "hello from the demo box:" "$@"
exit 0
SH
/usr/bin/python3 "$src/fixtures/testbox.py" "$out" --name demo-box --interpreter "$out/interpreter"
"$sc" --keys-dir "$out/keys" keygen >/dev/null
"$sc" --keys-dir "$out/keys" sign "$out/release.json" --out "$out/release.signed.json" >/dev/null
