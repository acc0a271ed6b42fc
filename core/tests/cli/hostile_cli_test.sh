#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hostile_cli_test.sh SCROLLCASE SOURCE_DIR — the consumer commands against
# hostile inputs (issue 14): every file a command reads, given as a FIFO, a
# socket, a device, a directory or a link to a FIFO, is refused with its code
# and never blocks (each command runs under `timeout`; 124 would be a hang);
# deep trees; nothing is left in the temporary root afterwards.
# Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in
use_tmp_root # every check: nothing left in $tmproot

T() { timeout 120 "$@"; } # a hang becomes exit 124, never a stuck test

mkdir -p "$tmp/rel" "$tmp/kinds" "$tmproot"
/usr/bin/python3 "$src/fixtures/testbox.py" "$tmp" --default-arg=--default || exit 1
check keygen 0 "$sc" --keys-dir "$tmp/keys" keygen
check sign 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/release.json" --out "$tmp/rel/release.signed.json"
trust=$tmp/keys/signing-public.json
rel=$tmp/rel/release.signed.json
zip=$tmp/cli-box.zip
check verify-baseline 0 T "$sc" verify "$rel" --trust "$trust" --archive "$zip"

# ---- every kind of non-regular file, for every file a command reads ------------------
k=$tmp/kinds
mkfifo "$k/fifo"
/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$k/socket"
mkdir "$k/dir"
ln -s fifo "$k/link"
kinds=(fifo socket dir link /dev/null /dev/zero)
path_of() { [[ $1 == /* ]] && echo "$1" || echo "$k/$1"; }

for kind in "${kinds[@]}"; do
    p=$(path_of "$kind")
    n=${kind//\//_}
    # the archive (16.1 step 4): archive-not-found
    check "verify-archive-$n" 1 T "$sc" verify "$rel" --trust "$trust" --archive "$p"
    expect_in "verify-archive-$n-code" "$tmp/err" "error[archive-not-found]"
    check "prepare-archive-$n" 1 T "$sc" prepare "$rel" "$tmp/dest-$n" --trust "$trust" --archive "$p"
    expect_in "prepare-archive-$n-code" "$tmp/err" "error[archive-not-found]"
    expect "prepare-archive-$n-nothing" test ! -e "$tmp/dest-$n"
    check "run-archive-$n" 1 T "$sc" run "$rel" --trust "$trust" --archive "$p" \
        --temporary-directory "$tmproot"
    expect_in "run-archive-$n-code" "$tmp/err" "error[archive-not-found]"
    # the release and the revocations document: io-error; the trust file (8.3,
    # 16.1 step 1): invalid-trust-file
    for cmd in verify attach; do
        args=("$tmp/boxdir")
        [[ $cmd == verify ]] && args=(--archive "$zip")
        check "$cmd-release-$n" 1 T "$sc" "$cmd" "$p" "${args[@]}" --trust "$trust"
        expect_in "$cmd-release-$n-code" "$tmp/err" "error[io-error]"
        check "$cmd-trust-$n" 1 T "$sc" "$cmd" "$rel" "${args[@]}" --trust "$p"
        expect_in "$cmd-trust-$n-code" "$tmp/err" "error[invalid-trust-file]"
    done
    check "verify-revocations-$n" 1 T "$sc" verify "$rel" --trust "$trust" --archive "$zip" \
        --revocations "$p"
    expect_in "verify-revocations-$n-code" "$tmp/err" "error[io-error]"
    check "prepare-release-$n" 1 T "$sc" prepare "$p" "$tmp/dest-$n" --trust "$trust" --archive "$zip"
    expect_in "prepare-release-$n-code" "$tmp/err" "error[io-error]"
    check "verify-document-$n" 1 T "$sc" verify-document "$p" --trust "$trust"
    expect_in "verify-document-$n-code" "$tmp/err" "error[io-error]"
    check "target-id-$n" 1 T "$sc" target-id "$p"
    check "sign-$n" 1 T "$sc" --keys-dir "$tmp/keys" sign "$p" --out "$tmp/signed-$n.json"
    expect "sign-$n-nothing" test ! -e "$tmp/signed-$n.json"
    check "compat-host-facts-$n" 1 T "$sc" compat "$rel" --trust "$trust" --host-facts "$p"
    check "parity-$n" 1 T "$sc" parity compare "$p" "$p"
done

# the default archive beside the release (16.1) as a FIFO: archive-not-found, no hang
mkdir -p "$tmp/fiforel"
cp "$rel" "$tmp/fiforel/release.signed.json"
mkfifo "$tmp/fiforel/cli-box.zip"
check verify-default-archive-fifo 1 T "$sc" verify "$tmp/fiforel/release.signed.json" --trust "$trust"
expect_in verify-default-archive-fifo-code "$tmp/err" "error[archive-not-found]"
check prepare-default-archive-fifo 1 T "$sc" prepare "$tmp/fiforel/release.signed.json" \
    "$tmp/dest-default" --trust "$trust"
expect_in prepare-default-archive-fifo-code "$tmp/err" "error[archive-not-found]"

# the private key (keys directory): a FIFO in its place never blocks
mkdir -p "$tmp/fifokeys"
cp "$tmp/keys/signing-public.json" "$tmp/fifokeys/"
mkfifo "$tmp/fifokeys/signing-private.pem"
check sign-private-key-fifo 1 T "$sc" --keys-dir "$tmp/fifokeys" sign "$tmp/release.json" \
    --out "$tmp/signed-fifo.json"
expect "sign-private-key-fifo-nothing" test ! -e "$tmp/signed-fifo.json"

# ---- a stray FIFO and socket in a prepared tree: attach ignores them (16.3), as run --prepared does
check prepare-for-attach 0 T "$sc" prepare "$rel" "$tmp/stray" --trust "$trust" --archive "$zip"
mkfifo "$tmp/stray/app/stray-fifo"
/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/stray/stray-socket"
check attach-stray-special 0 T "$sc" attach "$rel" "$tmp/stray" --trust "$trust"
check run-prepared-stray-special 5 T "$sc" run "$rel" --trust "$trust" --prepared "$tmp/stray"
check verify-extracted-stray-special 0 T "$sc" verify "$rel" --trust "$trust" --extracted "$tmp/stray"

# ---- paths that are not UTF-8, with --json (docs/cli.md "Paths in JSON output") ----------
# refused up front with unsafe-path: nothing installed, exit 1, one JSON document
# that parses; never invalid-json (which is for input), never exit 0 after an error.
bad=$tmp/$'d\xff'
json_ok() { /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["ok"] is False and d["error"]["code"] == sys.argv[2] else 1)' "$tmp/out" "$1"; }
check json-prepare-non-utf8 1 T "$sc" prepare "$rel" "$bad" --trust "$trust" --archive "$zip" --json
expect_in json-prepare-non-utf8-code "$tmp/err" "error[unsafe-path]"
expect json-prepare-non-utf8-document json_ok unsafe-path
expect json-prepare-non-utf8-nothing test ! -e "$bad"
check prepare-non-utf8-plain 0 T "$sc" prepare "$rel" "$bad" --trust "$trust" --archive "$zip"
check json-attach-non-utf8 1 T "$sc" attach "$rel" "$bad" --trust "$trust" --json
expect_in json-attach-non-utf8-code "$tmp/err" "error[unsafe-path]"
expect json-attach-non-utf8-document json_ok unsafe-path
check attach-non-utf8-plain 0 T "$sc" attach "$rel" "$bad" --trust "$trust"
badzip=$tmp/$'z\xfe'.zip
cp "$zip" "$badzip"
check json-verify-non-utf8-archive 1 T "$sc" verify "$rel" --trust "$trust" --archive "$badzip" --json
expect_in json-verify-non-utf8-archive-code "$tmp/err" "error[unsafe-path]"
expect_not_in json-verify-non-utf8-not-invalid-json "$tmp/err" "invalid-json"
expect json-verify-non-utf8-document json_ok unsafe-path
check verify-non-utf8-archive-plain 0 T "$sc" verify "$rel" --trust "$trust" --archive "$badzip"
# a failure naming a non-UTF-8 path still writes its JSON document (the path quoted)
check json-verify-non-utf8-missing 1 T "$sc" verify "$bad/nothing.json" --trust "$trust" --json
expect json-verify-non-utf8-missing-document json_ok unsafe-path
rm -rf "$bad"

# ---- a destination basename of 240 bytes (legal; 16.2 step 4 names its stage by hash) ---
long=$(printf 'b%.0s' $(seq 240))
mkdir -p "$tmp/longdest"
lhash=$(printf '%s' "$long" | sha256sum | cut -d' ' -f1)
dead=$(bash -c 'echo $$')
mkdir -p "$tmp/longdest/.scrollcase-prepare-sha256-$lhash-$dead-abcdef/payload"
check prepare-long-basename 0 T "$sc" prepare "$rel" "$tmp/longdest/$long" --trust "$trust" --archive "$zip"
expect prepare-long-basename-tree test -x "$tmp/longdest/$long/venv/bin/python"
expect prepare-long-basename-swept test "$(ls -A "$tmp/longdest")" = "$long"

# ---- a 10,000-deep valid tree (issue 14) ---------------------------------------------------
# Extracted, walked (post-walk, logical size), verified and removed at any
# depth and path length, with one descriptor per level nowhere: `ulimit -n 64`.
mkdir -p "$tmp/deep/rel" "$tmp/deep/dest"
/usr/bin/python3 "$src/fixtures/testbox.py" "$tmp/deep" --default-arg=--default --deep 10000 --bad-size || exit 1
check deep-sign 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/deep/release.json" --out "$tmp/deep/rel/r.json"
check deep-sign-bad 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/deep/release-bad-size.json" \
    --out "$tmp/deep/rel/bad.json"
deep=$tmp/deep/cli-box.zip
check deep-verify 0 T "$sc" verify "$tmp/deep/rel/r.json" --trust "$trust" --archive "$deep"
check deep-prepare-64-fds 0 T bash -c 'ulimit -n 64 && exec "$@"' _ "$sc" prepare \
    "$tmp/deep/rel/r.json" "$tmp/deep/dest/box" --trust "$trust" --archive "$deep"
expect deep-prepared-leaf test -n "$(cd "$tmp/deep/dest/box" && find . -name leaf.txt)"
check deep-verify-extracted 0 T bash -c 'ulimit -n 64 && exec "$@"' _ "$sc" verify \
    "$tmp/deep/rel/r.json" --trust "$trust" --extracted "$tmp/deep/dest/box"
rm -rf "$tmp/deep/dest/box"
# a failed prepare of the deep tree leaves neither destination nor stage
check deep-prepare-size 1 T "$sc" prepare "$tmp/deep/rel/bad.json" "$tmp/deep/dest/bad" \
    --trust "$trust" --archive "$deep"
expect_in deep-prepare-size-code "$tmp/err" "error[installed-size-mismatch]"
expect deep-prepare-size-nothing-left test -z "$(ls -A "$tmp/deep/dest")"
# The rest with a 1,000-deep box (past the old 200-level limit, and quicker).
mkdir -p "$tmp/mid/rel"
/usr/bin/python3 "$src/fixtures/testbox.py" "$tmp/mid" --default-arg=--default --deep 1000 --bad-size || exit 1
check mid-sign 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/mid/release.json" --out "$tmp/mid/rel/r.json"
check mid-sign-bad 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/mid/release-bad-size.json" \
    --out "$tmp/mid/rel/bad.json"
deep=$tmp/mid/cli-box.zip
# a stale stage of a dead process, 1,000 deep, is swept by the next prepare (16.2 step 4)
dead=$(bash -c 'echo $$')
stale="$tmp/deep/dest/.scrollcase-prepare-box-$dead-abcdef"
mkdir -p "$stale"
(cd "$stale" && /usr/bin/python3 -c '
import os
for _ in range(1000):
    os.mkdir("d"); os.chdir("d")
open("f", "w").close()')
check deep-prepare-sweeps 0 T "$sc" prepare "$tmp/mid/rel/r.json" "$tmp/deep/dest/box" \
    --trust "$trust" --archive "$deep"
expect deep-stale-stage-swept test ! -e "$stale"
rm -rf "$tmp/deep/dest/box"
# verify --self-test and a temporary run, 1,000 deep: nothing left, success or failure
check deep-self-test 0 T "$sc" verify "$tmp/mid/rel/r.json" --trust "$trust" --archive "$deep" \
    --self-test --temporary-directory "$tmproot"
expect deep-self-test-cleaned test -z "$(ls -A "$tmproot")"
check deep-self-test-fails 1 T "$sc" verify "$tmp/mid/rel/bad.json" --trust "$trust" \
    --archive "$deep" --self-test --temporary-directory "$tmproot"
expect deep-self-test-fails-cleaned test -z "$(ls -A "$tmproot")"
check deep-run-temporary 5 T "$sc" run "$tmp/mid/rel/r.json" --trust "$trust" --archive "$deep" \
    --temporary-directory "$tmproot" -- x
expect deep-run-cleaned test -z "$(ls -A "$tmproot")"
check deep-run-fails 1 T "$sc" run "$tmp/mid/rel/bad.json" --trust "$trust" --archive "$deep" \
    --temporary-directory "$tmproot" -- x
expect deep-run-fails-cleaned test -z "$(ls -A "$tmproot")"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
