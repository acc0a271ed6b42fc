#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# inspect_cli_test.sh SCROLLCASE SOURCE_DIR PYTHON — scrollcase inspect and
# scrollcase diff against golden outputs: two fixed boxes
# (inspect_box.py), their releases signed with a key of a fixed keyId, then
# inspect (release, archive, human and --json) and diff (releases, archives)
# compared byte for byte with core/tests/cli/golden/; every --json document
# is also validated against docs/schema/cli/{inspect,diff}.schema.json, and
# the failures (no --trust, a bad signature, a broken archive, a release
# against an archive) give their codes.  SC_UPDATE_GOLDEN=1 rewrites the
# golden files instead of comparing.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
py=${3:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
golden=$src/core/tests/cli/golden

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in
use_tmp_root

mkdir -p "$tmp/v1" "$tmp/v2"
"$py" "$src/core/tests/cli/inspect_box.py" "$src/fixtures" "$tmp/v1" 1 || exit 1
"$py" "$src/core/tests/cli/inspect_box.py" "$src/fixtures" "$tmp/v2" 2 || exit 1
cd "$tmp" || exit 1 # relative paths: the outputs name them
check keygen 0 "$sc" --keys-dir keys keygen --key-id ibox-key
check sign-1 0 "$sc" --keys-dir keys sign v1/release.json --out v1/release.signed.json
check sign-2 0 "$sc" --keys-dir keys sign v2/release.json --out v2/release.signed.json
trust=keys/signing-public.json

golden_check() { # NAME FILE: $tmp/out against golden/FILE
    if [[ -n ${SC_UPDATE_GOLDEN:-} ]]; then
        cp "$tmp/out" "$golden/$2"
    fi
    if cmp -s "$tmp/out" "$golden/$2"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $1: output differs from golden/$2"
        diff -u "$golden/$2" "$tmp/out" | head -n 40 | sed 's/^/  | /'
    fi
}

schema_check() { # NAME SCHEMA: $tmp/out is one document valid against it
    if "$py" - "$src/docs/schema/cli/$2.schema.json" "$tmp/out" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.loads(open(sys.argv[2]).read())
jsonschema.Draft202012Validator(schema).validate(doc)
PY
    then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: not valid against $2"; fi
}

# ---- inspect ----------------------------------------------------------------
check inspect-help 0 "$sc" inspect --help
check inspect-release 0 "$sc" inspect v1/release.signed.json --trust "$trust"
golden_check inspect-release inspect-release.txt
check inspect-release-json 0 "$sc" inspect v1/release.signed.json --trust "$trust" --json
golden_check inspect-release-json inspect-release.json
schema_check inspect-release-json inspect
check inspect-archive 0 "$sc" inspect v2/box.zip
golden_check inspect-archive inspect-archive.txt
check inspect-archive-json 0 "$sc" inspect v2/box.zip --json
golden_check inspect-archive-json inspect-archive.json
schema_check inspect-archive-json inspect
# the archive named, or missing: the release alone, said so
cp v1/box.zip other.zip
check inspect-archive-option 0 "$sc" inspect v1/release.signed.json --trust "$trust" --archive other.zip
expect_in inspect-archive-option "$tmp/out" "archive        other.zip"
expect_in inspect-archive-option-matches "$tmp/out" "matches the release"
check inspect-wrong-archive 0 "$sc" inspect v1/release.signed.json --trust "$trust" --archive v2/box.zip --json
expect_in inspect-wrong-archive "$tmp/out" '"archiveMatchesRelease": false'
mkdir lone && cp v1/release.signed.json lone/
check inspect-release-alone 0 "$sc" inspect lone/release.signed.json --trust "$trust" --json
expect_in inspect-release-alone "$tmp/out" '"archive": null'
schema_check inspect-release-alone inspect
# failures
check inspect-release-needs-trust 2 "$sc" inspect v1/release.signed.json
expect_in inspect-release-needs-trust "$tmp/err" "error[usage]"
"$sc" --keys-dir other-keys keygen --key-id other >/dev/null 2>&1
check inspect-untrusted 1 "$sc" inspect v1/release.signed.json --trust other-keys/signing-public.json --json
expect_in inspect-untrusted "$tmp/out" '"ok": false'
schema_check inspect-untrusted inspect
check inspect-missing 1 "$sc" inspect nothing.zip --json
expect_in inspect-missing "$tmp/out" '"code": "archive-not-found"'
schema_check inspect-missing inspect
head -c 100 v1/box.zip > broken.zip
check inspect-broken-archive 1 "$sc" inspect broken.zip --json
expect_in inspect-broken-archive "$tmp/out" '"code": "invalid-archive"'
schema_check inspect-broken-archive inspect
check inspect-no-extraction 0 "$sc" inspect v1/box.zip
expect inspect-wrote-nothing test -z "$(find . -newer broken.zip -not -name out -not -name err -not -path . | head -n 1)"

# ---- diff ---------------------------------------------------------------------
check diff-releases 0 "$sc" diff v1/release.signed.json v2/release.signed.json --trust "$trust"
golden_check diff-releases diff-releases.txt
check diff-releases-json 0 "$sc" diff v1/release.signed.json v2/release.signed.json --trust "$trust" --json
golden_check diff-releases-json diff-releases.json
schema_check diff-releases-json diff
check diff-archives-json 0 "$sc" diff v1/box.zip v2/box.zip --json
golden_check diff-archives-json diff-archives.json
schema_check diff-archives-json diff
check diff-same 0 "$sc" diff v1/box.zip other.zip --json
expect_in diff-same "$tmp/out" '"identical": true'
check diff-same-text 0 "$sc" diff v1/release.signed.json v1/release.signed.json --trust "$trust"
expect_in diff-same-text "$tmp/out" "identical"
expect_not_in diff-same-text "$tmp/out" "different"
check diff-kinds 2 "$sc" diff v1/release.signed.json v2/box.zip --trust "$trust" --json
expect_in diff-kinds "$tmp/out" '"code": "usage"'
schema_check diff-kinds diff
check diff-one-operand 2 "$sc" diff v1/box.zip
check diff-broken 1 "$sc" diff v1/box.zip broken.zip

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
