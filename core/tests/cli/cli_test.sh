#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli_test.sh SCROLLCASE SOURCE_DIR — end-to-end checks of the scrollcase
# command: exit statuses, the error line, and one run of each command over
# real files in a temporary directory.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

# usage errors exit 2 with the usage code
check usage-unknown-command 2 "$sc" frobnicate
expect_in usage-line "$tmp/err" "scrollcase: error[usage]:"
check usage-unknown-option 2 "$sc" scroll check --bogus
check version 0 "$sc" --version
check help 0 "$sc" --help
for cmd in scroll target-id migrate keygen sign verify-document channel; do
    check "help-$cmd" 0 "$sc" "$cmd" --help
done

# scroll check over the example workspace
check scroll-check-examples 0 "$sc" --project-root "$src/examples/workspace" scroll check
expect_in scroll-check-lists "$tmp/out" "ok   vision-box/linux-x86_64-cuda12.4"
check scroll-check-json 0 "$sc" --project-root "$src/examples/workspace" scroll check hello-box/linux-x86_64-cpu --json
expect_in scroll-check-effective "$tmp/out" '"scrollId": "hello-box-linux-x86_64-cpu"'
check scroll-check-missing 1 "$sc" --project-root "$src/examples/workspace" scroll check nobox
expect_in scroll-check-code "$tmp/err" "error[scroll-not-found]"

# target-id
check target-id 0 "$sc" target-id "$src/examples/targets/linux-x86_64-cuda12.4.json"
expect_in target-id-value "$tmp/out" "linux-x86_64-cuda12.4"
printf '{"platform":"linux","arch":"aarch64","accelerator":"cpu"}' >"$tmp/t.json"
check target-id-unsupported 1 "$sc" target-id "$tmp/t.json"
expect_in target-id-code "$tmp/err" "error[unsupported-target]"

# migrate: a v2 scroll is refused by name, migrated, then accepted
cp -r "$src/examples/v2-workspace" "$tmp/v2"
check migrate-before 1 "$sc" --project-root "$tmp/v2" scroll check
expect_in migrate-before-code "$tmp/out" "deprecated-schema-version"
check migrate 0 "$sc" --project-root "$tmp/v2" migrate legacy-box
check migrate-after 0 "$sc" --project-root "$tmp/v2" scroll check
check migrate-again 0 "$sc" --project-root "$tmp/v2" migrate legacy-box
expect_in migrate-nothing "$tmp/out" "nothing to migrate"

# keys, signing, verification and cohort selection
check keygen 0 "$sc" --keys-dir "$tmp/keys" keygen
check keygen-refuses 1 "$sc" --keys-dir "$tmp/keys" keygen
expect_in keygen-code "$tmp/err" "error[key-exists]"
cat >"$tmp/channel.json" <<'JSON'
{
  "schemaVersion": 3,
  "kind": "scrollcase.box.channel",
  "channel": "beta",
  "boxId": "hello-box",
  "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
  "updatedAt": "2026-11-29T00:00:00Z",
  "cohortSalt": "3e9fe864d2bc307ed272ead85cd3f2b2",
  "releases": [
    {"version": "1.1.0", "releaseManifestUrl": "https://example.invalid/a.release.json", "rolloutPercentage": 30},
    {"version": "1.0.0", "releaseManifestUrl": "https://example.invalid/b.release.json", "rolloutPercentage": 100}
  ]
}
JSON
check sign 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/channel.json" --out "$tmp/channel.signed.json"
check verify 0 "$sc" verify-document "$tmp/channel.signed.json" --trust "$tmp/keys/signing-public.json" --expect channel
check verify-wrong-type 1 "$sc" verify-document "$tmp/channel.signed.json" --trust "$tmp/keys/signing-public.json" --expect release
expect_in verify-wrong-type-code "$tmp/err" "error[invalid-manifest]"
# buckets (SHA-256 of salt, 0x00, id; big-endian; mod 10000): d -> 2752, a -> 8319
check channel-resolve-in-rollout 0 "$sc" channel resolve "$tmp/channel.signed.json" --install-id d --trust "$tmp/keys/signing-public.json"
expect_in channel-resolve-first "$tmp/out" "serve 1.1.0 https://example.invalid/a.release.json (bucket 2752, release #0)"
check channel-resolve-outside 0 "$sc" channel resolve "$tmp/channel.signed.json" --install-id a --trust "$tmp/keys/signing-public.json" --json
expect_in channel-resolve-json "$tmp/out" '"bucket": 8319'
sed 's/"rolloutPercentage": 100/"rolloutPercentage": 50/' "$tmp/channel.json" >"$tmp/partial.json"
check sign-partial 0 "$sc" --keys-dir "$tmp/keys" sign "$tmp/partial.json" --out "$tmp/partial.signed.json"
check channel-resolve-none 1 "$sc" channel resolve "$tmp/partial.signed.json" --install-id a --trust "$tmp/keys/signing-public.json"
expect_in channel-resolve-none-code "$tmp/err" "error[no-release-for-cohort]"
printf '{"keys": []}' >"$tmp/empty-trust.json"
check channel-resolve-untrusted 1 "$sc" channel resolve "$tmp/channel.signed.json" --install-id a --trust "$tmp/empty-trust.json"
expect_in channel-resolve-untrusted-code "$tmp/err" "error[invalid-signature]"

echo "$passed passed, $failed failed"
((failed == 0))
