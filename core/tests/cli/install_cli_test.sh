#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install_cli_test.sh SCROLLCASE SOURCE_DIR PYTHON — scrollcase install end
# to end against fixtures/http_server.py on 127.0.0.1: a fixed box
# (inspect_box.py) with its signed release and a signed channel naming it;
# installed from the channel and from the release (the second install takes
# the archive from the cache: no archive request), then with faults injected
# on the archive (a dropped connection resumed with Range, a 503 retried, a
# stall, a 404, a wrong size) and refusals (untrusted key, existing
# destination, a channel without --install-id).  Nothing is left at DEST on a
# failure.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
py=${3:-/usr/bin/python3}
tmp=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in
use_tmp_root

www=$tmp/www
mkdir -p "$www"
"$py" "$src/fixtures/http_server.py" "$www" "$tmp/http.log" >"$tmp/port" &
server_pid=$!
for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.1; done
port=$(head -n1 "$tmp/port")
base=http://127.0.0.1:$port
: >"$tmp/http.log"
archive_requests() { grep -c '"path": "/box.zip"' "$tmp/http.log"; }

# ---- what is published: the box, releases (one per archive.url), a channel ----------
"$py" "$src/core/tests/cli/inspect_box.py" "$src/fixtures" "$www" 1 box.zip || exit 1
mkdir -p "$tmp/v2"
"$py" "$src/core/tests/cli/inspect_box.py" "$src/fixtures" "$tmp/v2" 2 || exit 1
cp "$tmp/v2/box.zip" "$www/other.zip"
check keygen 0 "$sc" --keys-dir "$tmp/keys" keygen --key-id ibox-key
trust=$tmp/keys/signing-public.json
variant() { # NAME ARCHIVE_URL: $www/NAME.json, release.json with that archive.url, signed
    "$py" - "$www/release.json" "$2" "$tmp/$1.unsigned.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["archive"]["url"] = sys.argv[2]
open(sys.argv[3], "w").write(json.dumps(r, indent=2) + "\n")
PY
    "$sc" --keys-dir "$tmp/keys" sign "$tmp/$1.unsigned.json" --out "$www/$1.json" >/dev/null
}
check sign-release 0 "$sc" --keys-dir "$tmp/keys" sign "$www/release.json" --out "$www/release.signed.json"
variant drop "$base/box.zip?drop=700&times=1"
variant status "box.zip?status=503&times=1"
variant stall "/box.zip?stall=1"
variant missing "missing.zip"
variant wrong-size "other.zip"
# A channel names its release by content address (format-v3 11, 16.7).
addr() { sha256sum "$1" | cut -d' ' -f1; }
rel1=$(addr "$www/release.signed.json").release.json
cp "$www/release.signed.json" "$www/$rel1"
channel_to() { # NAME RELEASE_MANIFEST_URL VERSION: $www/NAME.json, signed
    "$py" - "$tmp/$1.unsigned.json" "$2" "$3" <<'PY'
import json, sys
ch = {"schemaVersion": 3, "kind": "scrollcase.box.channel", "channel": "beta", "boxId": "ibox",
      "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
      "updatedAt": "2026-01-01T00:00:00Z", "cohortSalt": "0123456789abcdef0123456789abcdef",
      "releases": [{"version": sys.argv[3], "releaseManifestUrl": sys.argv[2],
                    "rolloutPercentage": 100}]}
open(sys.argv[1], "w").write(json.dumps(ch, indent=2) + "\n")
PY
    "$sc" --keys-dir "$tmp/keys" sign "$tmp/$1.unsigned.json" --out "$www/$1.json" >/dev/null
}
channel_to channel "$rel1" 1.0.0
expect sign-channel test -s "$www/channel.json"
# what a mirror or an attacker holding old files could serve instead
mkdir -p "$www/swapped" "$www/older"
cp "$www/drop.json" "$www/swapped/$rel1" # validly signed, same box and version, other bytes
channel_to channel-swapped "swapped/$rel1" 1.0.0
channel_to channel-no-address release.signed.json 1.0.0
"$py" - "$tmp/v2/release.json" "$tmp/v2.unsigned.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["archive"]["url"] = "other.zip"
open(sys.argv[2], "w").write(json.dumps(r, indent=2) + "\n")
PY
"$sc" --keys-dir "$tmp/keys" sign "$tmp/v2.unsigned.json" --out "$tmp/v2.signed.json" >/dev/null
rel2=$(addr "$tmp/v2.signed.json").release.json
cp "$tmp/v2.signed.json" "$www/older/$rel2"
channel_to channel-other-version "older/$rel2" 1.0.0 # its release is 1.1.0
export SCROLLCASE_CACHE=$tmp/cache

# ---- from the channel, then from the release: the archive comes from the cache -------
check help 0 "$sc" install --help
check from-channel 0 "$sc" install "$base/channel.json" "$tmp/d1" --trust "$trust" --install-id host-1
expect_in from-channel "$tmp/out" "installed $tmp/d1"
expect_in from-channel-archive-size "$tmp/out" ", $(short_size "$(stat -c %s "$www/box.zip")"), cached at "
expect from-channel-tree test -x "$tmp/d1/venv/bin/python"
expect from-channel-one-archive-request test "$(archive_requests)" = 1
check from-release-json 0 "$sc" install "$base/release.signed.json" "$tmp/d2" --trust "$trust" --json
expect_in from-release-json "$tmp/out" '"status": "prepared"'
expect from-release-cached test "$(archive_requests)" = 1
schema_check() { # NAME: $tmp/out is one document valid against install.schema.json
    if "$py" - "$src/docs/schema/cli/install.schema.json" "$tmp/out" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(
    json.loads(open(sys.argv[2]).read()))
PY
    then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: not valid against install"; fi
}
schema_check from-release-json

# ---- faults on the archive, each with an empty cache ---------------------------------
fresh() { export SCROLLCASE_CACHE=$tmp/cache-$1; : >"$tmp/http.log"; }
fresh drop
check drop-resumed 0 "$sc" install "$base/drop.json" "$tmp/d-drop" --trust "$trust"
expect_in drop-range "$tmp/http.log" '"range": "bytes=700-"'
expect drop-tree test -x "$tmp/d-drop/venv/bin/python"
fresh status
check status-retried 0 "$sc" install "$base/status.json" "$tmp/d-status" --trust "$trust"
expect status-two-requests test "$(archive_requests)" = 2
fresh stall
check stall-completes 0 "$sc" install "$base/stall.json" "$tmp/d-stall" --trust "$trust"
expect stall-tree test -x "$tmp/d-stall/venv/bin/python"
fresh missing
check missing-404 1 "$sc" install "$base/missing.json" "$tmp/d-missing" --trust "$trust" --json
expect_in missing-404-code "$tmp/out" '"code": "download-failed"'
schema_check missing-404-json
expect missing-nothing-at-dest test ! -e "$tmp/d-missing"
fresh wrong-size
check wrong-size 1 "$sc" install "$base/wrong-size.json" "$tmp/d-wrong" --trust "$trust"
expect_in wrong-size-code "$tmp/err" "error[asset-size]"
expect wrong-size-nothing-at-dest test ! -e "$tmp/d-wrong"

# ---- refusals -------------------------------------------------------------------------
"$sc" --keys-dir "$tmp/other-keys" keygen --key-id other >/dev/null 2>&1
: >"$tmp/http.log"
check untrusted 1 "$sc" install "$base/release.signed.json" "$tmp/d-untrusted" \
    --trust "$tmp/other-keys/signing-public.json"
expect untrusted-no-archive-request test "$(archive_requests)" = 0
expect untrusted-nothing-at-dest test ! -e "$tmp/d-untrusted"
check existing-destination 1 "$sc" install "$base/release.signed.json" "$tmp/d1" --trust "$trust"
expect_in existing-destination "$tmp/err" "error[existing-destination]"
check channel-needs-install-id 2 "$sc" install "$base/channel.json" "$tmp/d-x" --trust "$trust"
expect_in channel-needs-install-id "$tmp/err" "--install-id"
check needs-trust 2 "$sc" install "$base/channel.json" "$tmp/d-x"
check not-a-document 1 "$sc" install "$base/box.zip" "$tmp/d-x" --trust "$trust"
expect not-a-document-nothing-at-dest test ! -e "$tmp/d-x"
# a document that streams for ever stops at 64 MiB, the most a document may be
check endless-document 1 "$sc" install "$base/doc.json?endless=1" "$tmp/d-x" --trust "$trust"
expect_in endless-document-code "$tmp/err" "error[download-failed]"
expect_in endless-document-says "$tmp/err" "sends more than 67108864 bytes, the most a channel or release document may be"
expect endless-document-nothing-at-dest test ! -e "$tmp/d-x"

# ---- a channel is bound to its release (format-v3 16.7) ---------------------------------
for ch in channel-swapped channel-no-address channel-other-version; do
    : >"$tmp/http.log"
    check "$ch" 1 "$sc" install "$base/$ch.json" "$tmp/d-$ch" --trust "$trust" --install-id host-1
    expect_in "$ch-code" "$tmp/err" "error[channel-release-mismatch]"
    expect "$ch-no-archive-request" test "$(archive_requests)" = 0
    expect "$ch-nothing-at-dest" test ! -e "$tmp/d-$ch"
done
expect_in channel-other-version-says "$tmp/err" "version 1.0.0; the release it leads to is version 1.1.0"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
