#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# license_cli_test.sh SCROLLCASE SOURCE_DIR — end-to-end checks of
# `scrollcase audit SCROLL` (licences; docs/format-v3.md 10.7, 20.4): the
# summary, --json, --write (to the declared file, or to a new file that the
# scroll then declares), the check against the reviewed file (match,
# mismatch after the lock changed, missing), UNKNOWN licences, a missing
# lock, --target with a box id, and that `audit cuda` still works.
# Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

ws=$tmp/ws
t=$ws/scrolls/demo/linux-x86_64-cpu
mkdir -p "$t"
cat >"$t/scroll.json" <<'JSON'
{
  "schemaVersion": 3,
  "boxId": "demo",
  "modelId": "demo-model",
  "runtimeId": "plain",
  "version": "1.0.0",
  "sourceRevision": "3f2a9c0d5e6b7a8190a1b2c3d4e5f60718293a4b",
  "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
  "pythonVersion": "3.12",
  "pixiVersion": "0.40.0",
  "selfTest": {"imports": ["json"]}
}
JSON
cf=https://conda.anaconda.org/conda-forge
write_lock() { # ZLIB_LICENSE
    cat >"$t/pixi.lock" <<LOCK
version: 6
environments:
  default:
    channels:
    - url: $cf/
    packages:
      linux-64:
      - conda: $cf/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
      - conda: $cf/linux-64/python-3.12.7-hc5c86c4_0_cpython.conda
      - conda: $cf/linux-64/openssl-3.3.2-hb9d3cd8_0.conda
packages:
- conda: $cf/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
  license: $1
- conda: $cf/linux-64/python-3.12.7-hc5c86c4_0_cpython.conda
  license: Python-2.0
- conda: $cf/linux-64/openssl-3.3.2-hb9d3cd8_0.conda
  license: Apache-2.0
LOCK
}
write_lock Zlib
cd "$ws"

check undeclared 0 "$sc" audit demo/linux-x86_64-cpu
expect_in summary "$tmp/out" "3 packages for demo-linux-x86_64-cpu (linux-x86_64-cpu)"
expect_in per-licence "$tmp/out" "      1  Apache-2.0"
expect_in undeclared-note "$tmp/out" "No reviewed audit declared"

check json 0 "$sc" audit demo/linux-x86_64-cpu --json
expect_in json-kind "$tmp/out" '"kind": "scrollcase.box.dependency-license-audit"'
expect_in json-first "$tmp/out" '"name": "openssl"'
check namespace 0 "$sc" audit demo/linux-x86_64-cpu --json --namespace org.example
expect_in namespace-kind "$tmp/out" '"kind": "org.example.dependency-license-audit"'

check box-and-target 0 "$sc" audit demo --target linux-x86_64-cpu
check box-single-target 0 "$sc" audit demo
check by-directory 0 "$sc" audit "$t"

# the inventory and its declaration are one edit: when the re-read of the box
# refuses the declaration (here another target of the box is broken), the
# inventory file is not left behind either
mkdir -p "$ws/scrolls/demo/linux-aarch64-cpu"
echo '{}' >"$ws/scrolls/demo/linux-aarch64-cpu/scroll.json"
cp "$t/scroll.json" "$tmp/scroll.before"
check write-undone 1 "$sc" audit demo/linux-x86_64-cpu --write
expect write-undone-no-file test ! -e "$t/conda-licenses.json"
expect write-undone-scroll-kept cmp -s "$t/scroll.json" "$tmp/scroll.before"
rm -r "$ws/scrolls/demo/linux-aarch64-cpu"

check write-undeclared 0 "$sc" audit demo/linux-x86_64-cpu --write
expect_in write-line "$tmp/out" "and declared it in the scroll"
expect_in declared "$t/scroll.json" '"condaDependencyLicenseAudit": "scrolls/demo/linux-x86_64-cpu/conda-licenses.json"'
expect_in written "$t/conda-licenses.json" '"declaredLicense": "Zlib"'

check matches 0 "$sc" audit demo/linux-x86_64-cpu
expect_in matches-line "$tmp/out" "Matches the reviewed audit"

write_lock MIT
check changed-lock 1 "$sc" audit demo/linux-x86_64-cpu
expect_in changed-code "$tmp/err" "error[license-audit-mismatch]"
expect_in changed-field "$tmp/err" "lockSha256"
check rewrite 0 "$sc" audit demo/linux-x86_64-cpu --write
expect_in rewritten "$t/conda-licenses.json" '"declaredLicense": "MIT"'
check matches-again 0 "$sc" audit demo/linux-x86_64-cpu

rm "$t/conda-licenses.json"
check reviewed-missing 1 "$sc" audit demo/linux-x86_64-cpu
expect_in reviewed-missing-code "$tmp/err" "error[license-audit-mismatch]"

write_lock UNKNOWN
check unknown-licence 1 "$sc" audit demo/linux-x86_64-cpu --write
expect_in unknown-code "$tmp/err" "error[license-audit-mismatch]"
expect_in unknown-names "$tmp/err" "zlib"

rm "$t/pixi.lock"
check missing-lock 1 "$sc" audit demo/linux-x86_64-cpu
expect_in missing-lock-code "$tmp/err" "error[missing-lock]"

check usage-extra 2 "$sc" audit demo/linux-x86_64-cpu extra
check usage-target-with-ref 2 "$sc" audit demo/linux-x86_64-cpu --target linux-x86_64-cpu
check cuda-rejects-write 2 "$sc" audit cuda demo/linux-x86_64-cpu --write
check not-found 1 "$sc" audit demo/linux-x86_64-cuda12.4
expect_in not-found-code "$tmp/err" "error[scroll-not-found]"
check help 0 "$sc" audit --help
expect_in help-text "$tmp/out" "usage: scrollcase audit SCROLL"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
