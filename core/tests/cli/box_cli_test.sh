#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# box_cli_test.sh SCROLLCASE SOURCE_DIR — scrollcase verify, prepare, attach
# and run end to end: a box is built with fixtures/zipfmt.py (the canonical
# archive model), its release signed with `scrollcase keygen` and `scrollcase
# sign`, then checked, extracted, adopted and run.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in
use_tmp_root # every check: nothing left in $tmproot

for cmd in verify prepare attach run; do
    check "help-$cmd" 0 "$sc" "$cmd" --help
done
# without --trust, verify uses the workspace's public key (upstream's default)
check verify-default-trust 1 "$sc" --project-root "$tmp" verify "$tmp/none.json"
expect_in verify-default-trust-file "$tmp/err" "$tmp/.scrollcase/keys/signing-public.json"

# ---- build the box ---------------------------------------------------------
# The interpreter stands in for Python: for -c it succeeds; for a script it
# prints its arguments and exits with the status the box's script names.
cat >"$tmp/interpreter" <<'SH'
#!/bin/sh
if [ "$1" = "-c" ]; then exit 0; fi
shift
echo "args:$*" "home:$HF_HOME" "cwd:$(pwd)"
case "$*" in *die*) kill -TERM $$ ;; esac
exit 5
SH
# one conda-meta record, for verify --audit
/usr/bin/python3 "$src/fixtures/testbox.py" "$tmp" --interpreter "$tmp/interpreter" \
    --file 'venv/conda-meta/python-3.11.9-h0_cpython.json={"name": "python", "version": "3.11.9", "build": "h0_cpython", "subdir": "linux-64"}
' \
    --env HF_HOME=model-cache --default-arg=--default --bad-size || exit 1
mkdir -p "$tmp/rel"
check keygen 0 "$sc" --keys-dir "$tmp/keys" keygen
check sign 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/release.json" --out "$tmp/rel/release.signed.json"
check sign-bad 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/release-bad-size.json" --out "$tmp/bad.signed.json"
trust=$tmp/keys/signing-public.json
rel=$tmp/rel/release.signed.json
zip=$tmp/cli-box.zip

# ---- verify ----------------------------------------------------------------
check verify 0 "$sc" verify "$rel" --trust "$trust" --archive "$zip"
expect_in verify-line "$tmp/out" "ok cli-box 1.0.0 linux-x86_64-cpu: 5 entries, execution python-script"
check verify-json 0 "$sc" verify "$rel" --trust "$trust" --archive "$zip" --json
expect_in verify-json-status "$tmp/out" '"status": "verified"'
check verify-default-archive-missing 1 "$sc" verify "$rel" --trust "$trust"
expect_in verify-default-archive-code "$tmp/err" "error[archive-not-found]"
cp "$zip" "$tmp/rel/cli-box.zip"
check verify-default-archive 0 "$sc" verify "$rel" --trust "$trust"
check verify-self-test 0 "$sc" verify "$rel" --trust "$trust" --archive "$zip" --self-test \
    --temporary-directory "$tmproot"
expect_in verify-self-test-line "$tmp/out" "self-test passed"
printf 'x' >>"$tmp/rel/cli-box.zip"
check verify-size 1 "$sc" verify "$rel" --trust "$trust"
expect_in verify-size-code "$tmp/err" "error[archive-size]"
printf '{"keys":[]}' >"$tmp/empty-trust.json"
check verify-untrusted 1 "$sc" verify "$rel" --trust "$tmp/empty-trust.json" --archive "$zip"
expect_in verify-untrusted-code "$tmp/err" "error[invalid-signature]"
cat >"$tmp/revocations.json" <<'JSON'
{"schemaVersion": 3, "kind": "scrollcase.box.revocations", "updatedAt": "2026-02-01T00:00:00Z",
 "revocations": [{"boxId": "cli-box", "version": "1.0.0", "reason": "bad weights",
                  "revokedAt": "2026-02-01T00:00:00Z"}]}
JSON
check sign-revocations 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/revocations.json" --out "$tmp/revocations.signed.json"
check verify-revoked 1 "$sc" verify "$rel" --trust "$trust" --archive "$zip" --revocations "$tmp/revocations.signed.json"
expect_in verify-revoked-code "$tmp/err" "error[revoked-release]"

# ---- prepare ---------------------------------------------------------------
check prepare 0 "$sc" prepare "$rel" "$tmp/boxes/one" --trust "$trust" --archive "$zip"
expect_in prepare-line "$tmp/out" "prepared $tmp/boxes/one"
expect prepare-tree test -x "$tmp/boxes/one/venv/bin/python"
check prepare-existing 1 "$sc" prepare "$rel" "$tmp/boxes/one" --trust "$trust" --archive "$zip"
expect_in prepare-existing-code "$tmp/err" "error[existing-destination]"
check prepare-json 0 "$sc" prepare "$rel" "$tmp/boxes/two" --trust "$trust" --archive "$zip" --json
expect_in prepare-json-status "$tmp/out" '"status": "prepared"'
check prepare-size 1 "$sc" prepare "$tmp/bad.signed.json" "$tmp/boxes/three" --trust "$trust" --archive "$zip"
expect_in prepare-size-code "$tmp/err" "error[installed-size-mismatch]"
expect prepare-size-nothing-left test ! -e "$tmp/boxes/three"
expect prepare-no-stage test -z "$(ls -A "$tmp/boxes" | grep scrollcase-prepare)"

# ---- verify --audit ----------------------------------------------------------
check verify-audit 0 "$sc" verify "$rel" --trust "$trust" --archive "$zip" --audit \
    --temporary-directory "$tmproot" --json
expect_in verify-audit-json "$tmp/out" '"errors": 0'
expect verify-audit-cleaned test -z "$(ls -A "$tmproot")"

# ---- verify --extracted, attach ----------------------------------------------
check verify-extracted 0 "$sc" verify "$rel" --trust "$trust" --extracted "$tmp/boxes/one"
check verify-extracted-audit 0 "$sc" verify "$rel" --trust "$trust" --extracted "$tmp/boxes/one" --audit
check prepare-audit 0 "$sc" prepare "$rel" "$tmp/boxes/audit" --trust "$trust" --archive "$zip"
# an unlisted record is invisible to the payload check but not to the audit
printf '{"name": "numpy", "version": "2.1.0", "build": "py311h0", "subdir": "osx-arm64"}\n' \
    >"$tmp/boxes/audit/venv/conda-meta/numpy-2.1.0-py311h0.json"
check verify-extracted-audit-foreign 1 "$sc" verify "$rel" --trust "$trust" \
    --extracted "$tmp/boxes/audit" --audit
expect_in verify-extracted-audit-code "$tmp/err" "error[audit-failed]"
expect_in verify-extracted-audit-finding "$tmp/err" "numpy"
echo changed >"$tmp/boxes/two/app/main.py"
check verify-extracted-changed 1 "$sc" verify "$rel" --trust "$trust" --extracted "$tmp/boxes/two"
expect_in verify-extracted-code "$tmp/err" "error[payload-mismatch]"
check attach 0 "$sc" attach "$rel" "$tmp/boxes/one" --trust "$trust" --env-report
expect_in attach-line "$tmp/out" "attached $tmp/boxes/one"
expect_in attach-report "$tmp/err" "HF_HOME"
check attach-root 1 "$sc" attach "$rel" "$tmp/boxes/none" --trust "$trust"
expect_in attach-root-code "$tmp/err" "error[attach-root]"

# ---- run ---------------------------------------------------------------------
mkdir -p "$tmp/runs"
check run-temporary 5 "$sc" run "$rel" --trust "$trust" --archive "$zip" \
    --temporary-directory "$tmp/runs" -- "a b" c
expect_in run-args "$tmp/out" "args:--default a b c home:model-cache"
expect run-temporary-cleaned test -z "$(ls -A "$tmp/runs")"
check run-prepared 5 "$sc" run "$rel" --trust "$trust" --prepared "$tmp/boxes/one" --env HF_HOME=mine -- x
expect_in run-prepared-args "$tmp/out" "args:--default x home:model-cache cwd:$tmp/boxes/one"
bash -c '"$@"; echo "status $?" >"'"$tmp"'/sig"' _ "$sc" run "$rel" --trust "$trust" --archive "$zip" \
    --temporary-directory "$tmp/runs" -- die >/dev/null 2>&1
expect_in run-signal-reraised "$tmp/sig" "status 143"
expect run-signal-cleaned test -z "$(ls -A "$tmp/runs")"
check run-bad-env 2 "$sc" run "$rel" --trust "$trust" --archive "$zip" --env NOEQUALS

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
