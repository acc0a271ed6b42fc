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
# the receipt's sizes for people: rounded, the exact bytes beside them
zip_size=$(stat -c %s "$zip")
installed=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["installedSizeBytes"])' "$tmp/release.json")
expect prepare-sizes-over-1-kib test "$zip_size" -ge 1024 -a "$installed" -ge 1024
expect_in prepare-archive-size "$tmp/out" "$(sha256sum "$zip" | cut -d' ' -f1), $(short_size "$zip_size")"
expect_in prepare-installed-size "$tmp/out" "installed  $(short_size "$installed")"
expect_not_in prepare-no-exact-bytes "$tmp/out" "bytes)"
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
# run --json: standard output is the document; standard error is the box's
# own output (its standard output too) and no progress event, unless
# --progress-fd asks for the events (then they go there, and only there)
check run-json 5 "$sc" run "$rel" --trust "$trust" --archive "$zip" \
    --temporary-directory "$tmp/runs" --json -- j
expect_in run-json-document "$tmp/out" '"exitCode": 5'
expect_in run-json-box-output "$tmp/err" "args:--default j"
expect_not_in run-json-no-events "$tmp/err" '"event"'
expect run-json-stderr-is-the-box test "$(wc -l <"$tmp/err")" = 1
check run-json-progress-fd 5 bash -c '"$@" 3>"$0"' "$tmp/events" "$sc" run "$rel" --trust "$trust" \
    --archive "$zip" --temporary-directory "$tmp/runs" --json --progress-fd 3 -- j
expect_in run-json-progress-fd-events "$tmp/events" '"event":"progress"'
expect_in run-json-progress-fd-box-output "$tmp/err" "args:--default j"
expect_not_in run-json-progress-fd-stderr-clean "$tmp/err" '"event"'
# the environment report for people: a summary line and one line per variable
check run-env-report 5 "$sc" run "$rel" --trust "$trust" --archive "$zip" \
    --temporary-directory "$tmp/runs" --env-report -- e
expect_in run-env-report-summary "$tmp/err" "scrollcase: environment: 1 from the release; "
expect_in run-env-report-variable "$tmp/err" "  HF_HOME=model-cache  (from release)"
expect_not_in run-env-report-no-raw-json "$tmp/err" '{"mode"'
check run-env-report-json 5 "$sc" run "$rel" --trust "$trust" --archive "$zip" \
    --temporary-directory "$tmp/runs" --env-report --json -- e
expect_in run-env-report-json-document "$tmp/out" '"mode": "full"'
expect_not_in run-env-report-json-not-on-stderr "$tmp/err" "scrollcase: environment"
check run-prepared 5 "$sc" run "$rel" --trust "$trust" --prepared "$tmp/boxes/one" --env HF_HOME=mine -- x
expect_in run-prepared-args "$tmp/out" "args:--default x home:model-cache cwd:$tmp/boxes/one"
bash -c '"$@"; echo "status $?" >"'"$tmp"'/sig"' _ "$sc" run "$rel" --trust "$trust" --archive "$zip" \
    --temporary-directory "$tmp/runs" -- die >/dev/null 2>&1
expect_in run-signal-reraised "$tmp/sig" "status 143"
expect run-signal-cleaned test -z "$(ls -A "$tmp/runs")"
check run-bad-env 2 "$sc" run "$rel" --trust "$trust" --archive "$zip" --env NOEQUALS

# ---- --jobs N: the same results with 1, 2 and 7 threads ---------------------------
# A second box: four big files (random bytes, stored) of different sizes and
# many small ones (deflated), so that hashing, reading ahead and extraction
# all have work to split.
/usr/bin/python3 - "$src/fixtures" "$tmp/jobs-src" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[1])
import testbox
rnd = random.Random(17)
extra = {"venv/lib/w%d.bin" % i: rnd.randbytes((i + 1) * 300000) for i in range(4)}
for i in range(60):
    extra["venv/lib/py/m%03d.py" % i] = (b"value_%d = %d\n" % (i, i)) * (i + 1)
extra["venv/lib/zz.py"] = b"last = 1\n"
testbox.make(sys.argv[2], name="jobs-box", extra=extra, compression="deflate")
PY
check jobs-sign 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/jobs-src/release.json" --out "$tmp/jobs.signed.json"
jrel=$tmp/jobs.signed.json
jzip=$tmp/jobs-src/jobs-box.zip
# A tree as text: every path, its kind, mode and size, and every file's SHA-256.
tree_text() {
    (cd "$1" && find . -printf '%P %y %m %s\n' | LC_ALL=C sort &&
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
mkdir -p "$tmp/jobs"
for j in 1 2 7; do
    check "jobs-$j-verify" 0 "$sc" verify "$jrel" --trust "$trust" --archive "$jzip" --jobs "$j" --json
    cp "$tmp/out" "$tmp/jobs/verify-$j.json"
    check "jobs-$j-prepare" 0 "$sc" prepare "$jrel" "$tmp/jobs/tree-$j" --trust "$trust" \
        --archive "$jzip" --jobs "$j" --json
    sed "s|$tmp/jobs/tree-$j|TREE|g" "$tmp/out" >"$tmp/jobs/receipt-$j.json"
    tree_text "$tmp/jobs/tree-$j" >"$tmp/jobs/tree-$j.txt"
    check "jobs-$j-verify-extracted" 0 "$sc" verify "$jrel" --trust "$trust" \
        --extracted "$tmp/jobs/tree-1" --jobs "$j" --json
    cp "$tmp/out" "$tmp/jobs/extracted-$j.json"
    check "jobs-$j-self-test" 0 "$sc" verify "$jrel" --trust "$trust" --archive "$jzip" \
        --self-test --temporary-directory "$tmproot" --jobs "$j"
done
expect jobs-verify-text-has-entries grep -q '"entryCount": 69' "$tmp/jobs/verify-1.json"
expect jobs-tree-listed grep -q 'venv/lib/w3.bin f 644 1200000' "$tmp/jobs/tree-1.txt"
for j in 2 7; do
    expect "jobs-$j-verify-same" cmp -s "$tmp/jobs/verify-1.json" "$tmp/jobs/verify-$j.json"
    expect "jobs-$j-receipt-same" cmp -s "$tmp/jobs/receipt-1.json" "$tmp/jobs/receipt-$j.json"
    expect "jobs-$j-tree-same" cmp -s "$tmp/jobs/tree-1.txt" "$tmp/jobs/tree-$j.txt"
    expect "jobs-$j-extracted-same" cmp -s "$tmp/jobs/extracted-1.json" "$tmp/jobs/extracted-$j.json"
done
# Changed bytes in the biggest file (hashed last, largest first) and in a
# small file later in the list: the first in list order is reported, always.
printf 'X' | dd of="$tmp/jobs/tree-2/venv/lib/w3.bin" bs=1 seek=5 conv=notrunc status=none
printf 'X' | dd of="$tmp/jobs/tree-2/venv/lib/zz.py" bs=1 seek=0 conv=notrunc status=none
for j in 1 2 7; do
    check "jobs-$j-extracted-changed" 1 "$sc" verify "$jrel" --trust "$trust" \
        --extracted "$tmp/jobs/tree-2" --jobs "$j"
    expect_in "jobs-$j-extracted-changed-first" "$tmp/err" "venv/lib/w3.bin has other content"
done
check jobs-zero-verify 2 "$sc" verify "$jrel" --trust "$trust" --archive "$jzip" --jobs 0
expect_in jobs-zero-verify-message "$tmp/err" "--jobs takes a whole number from 1 to 256, not 0"
check jobs-many-prepare 2 "$sc" prepare "$jrel" "$tmp/jobs/none" --trust "$trust" --jobs 257
expect jobs-many-prepare-nothing test ! -e "$tmp/jobs/none"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
