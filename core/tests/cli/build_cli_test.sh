#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build_cli_test.sh SCROLLCASE SOURCE_DIR — scrollcase build end to end: a
# workspace in a fresh git repository, a hand-made relocatable prefix whose
# venv/bin/python is a /bin/sh launcher of /usr/bin/python3, a key from
# `scrollcase keygen`; the box is built, published into the dist tree, then
# verified, prepared and run with the consumer commands.  Prints
# "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

if ! command -v git >/dev/null || [[ ! -x /usr/bin/python3 ]]; then
    echo "SKIP: git and /usr/bin/python3 are needed to build a box"
    exit 0
fi

# ---- the prefix: venv/bin/python launches the host's python ------------------
prefix=$tmp/prefix
mkdir -p "$prefix/bin" "$prefix/lib/python3/site-packages"
printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' >"$prefix/bin/python"
chmod 755 "$prefix/bin/python"
printf 'VALUE = 42\n' >"$prefix/lib/python3/site-packages/boxmod.py"

# ---- the workspace -------------------------------------------------------------
ws=$tmp/ws
scroll_dir=$ws/scrolls/hello-box/linux-x86_64-cpu
mkdir -p "$scroll_dir" "$ws/app"
cp "$src/examples/workspace/app/hello.py" "$ws/app/hello.py"
printf '.scrollcase/\n' >"$ws/.gitignore"
cat >"$scroll_dir/scroll.json" <<EOF
{
  "schemaVersion": 3,
  "boxId": "hello-box",
  "modelId": "hello",
  "runtimeId": "cpython",
  "version": "1.0.0",
  "sourceRevision": "test",
  "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
  "pythonVersion": "3.11",
  "pixiVersion": "0.40.0",
  "assetBaseUrl": "https://boxes.example.test/",
  "environment": {"HELLO_GREETING": "hello from a built box"},
  "localFiles": [{"sourcePath": "app/hello.py", "relativePath": "app/hello.py",
                  "sha256": "$(sha256sum "$ws/app/hello.py" | cut -d' ' -f1)"}],
  "selfTest": {"imports": ["json"], "files": ["app/hello.py"],
               "pythonCode": "import os; assert os.path.isfile('box.json')"},
  "execution": {"kind": "python-script", "script": "app/hello.py",
                "defaultArgs": ["--name", "world"]}
}
EOF
git -C "$ws" init -q
git -C "$ws" -c user.name=t -c user.email=t@t add -A
GIT_COMMITTER_DATE='2024-02-29T23:30:00+05:00' git -C "$ws" -c user.name=t \
    -c user.email=t@t commit -q -m one
cd "$ws" || exit 1

check keygen 0 "$sc" keygen
trust=$ws/.scrollcase/keys/signing-public.json

# ---- refusals before anything is written ----------------------------------------
check refuse-channel 2 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --channel weekly
expect_in refuse-channel-code "$tmp/err" "error[usage]"
check refuse-weights 2 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --weights lazy
check refuse-on-demand 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --weights on-demand
expect_in refuse-on-demand-code "$tmp/err" "error[invalid-scroll]"
check refuse-prefix 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$tmp/none"
expect_in refuse-prefix-code "$tmp/err" "error[io-error]"
check refuse-no-lock 1 "$sc" build hello-box/linux-x86_64-cpu
expect_in refuse-no-lock-code "$tmp/err" "error[missing-lock]"
check refuse-key-id 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --key-id someone-else
expect_in refuse-key-id-code "$tmp/err" "error[invalid-key]"
expect nothing-written test ! -e "$ws/.scrollcase/build"
expect nothing-published test ! -e "$ws/.scrollcase/dist"

# ---- the build ---------------------------------------------------------------------
check build 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" --json
expect_in build-json "$tmp/out" '"builtAt": "2024-02-29T18:30:00Z"'
expect_in build-progress "$tmp/err" '{"event":"step","step":"self-test"'
dist=$ws/.scrollcase/dist
rel=$(ls "$dist"/boxes/hello-box/1.0.0/linux-x86_64-cpu/*.release.json)
zip=$(ls "$dist"/boxes/hello-box/1.0.0/linux-x86_64-cpu/*.zip)
expect archive-named-by-hash test "$(basename "$zip" .zip)" = "$(sha256sum "$zip" | cut -d' ' -f1)"
expect release-named-by-hash test "$(basename "$rel" .release.json)" = \
    "$(sha256sum "$rel" | cut -d' ' -f1)"
expect channel-file test -f "$dist/channels/hello-box/beta/linux-x86_64-cpu.json"
check verify-document 0 "$sc" verify-document "$rel" --trust "$trust" --expect release
check verify-channel 0 "$sc" verify-document "$dist/channels/hello-box/beta/linux-x86_64-cpu.json" \
    --trust "$trust" --expect channel
check verify 0 "$sc" verify "$rel" --trust "$trust"
check prepare 0 "$sc" prepare "$rel" "$tmp/prepared" --trust "$trust"
expect prepared-launcher test -x "$tmp/prepared/venv/bin/python"
check run 0 "$sc" run "$rel" --trust "$trust" --prepared "$tmp/prepared" -- --name tester
expect_in run-output "$tmp/out" "hello from a built box, tester!"

# ---- rebuild: byte-identical --------------------------------------------------------
first_zip=$(sha256sum "$zip" | cut -d' ' -f1)
first_rel=$(basename "$rel")
check rebuild 0 env TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 bash -c 'umask 077; exec "$@"' _ \
    "$sc" build hello-box --target linux-x86_64-cpu --environment-prefix "$prefix"
expect rebuild-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first_zip"
expect rebuild-same-release test -f "$dist/boxes/hello-box/1.0.0/linux-x86_64-cpu/$first_rel"
# ---- worker threads: the same bytes with 1 and 7 ----------------------------------
check jobs-1 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" --jobs 1
expect jobs-1-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first_zip"
check jobs-7 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" --jobs 7
expect jobs-7-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first_zip"
check jobs-zero 2 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" --jobs 0
expect_in jobs-zero-message "$tmp/err" "--jobs takes a whole number"

# ---- dirty trees ---------------------------------------------------------------------
echo scratch >"$ws/untracked.txt"
check dirty 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix"
expect_in dirty-code "$tmp/err" "error[dirty-source-tree]"
check dirty-allowed 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --allow-dirty --channel nightly
expect nightly-channel test -f "$dist/channels/hello-box/nightly/linux-x86_64-cpu.json"

# ---- an external signer ------------------------------------------------------------
rm -f "$ws/untracked.txt"
cat >"$tmp/signer.sh" <<EOF
#!/bin/sh
cat >"$tmp/payload.json" || exit 1
"$sc" --keys-dir "$ws/.scrollcase/keys" sign "$tmp/payload.json" --out "$tmp/payload.signed" \
    >/dev/null || exit 1
cat "$tmp/payload.signed"
EOF
chmod 755 "$tmp/signer.sh"
rm -rf "$dist"
check signer 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --signer-command "$tmp/signer.sh" --public-key "$trust"
expect signer-same-release test -f "$dist/boxes/hello-box/1.0.0/linux-x86_64-cpu/$first_rel"
check signer-verify 0 "$sc" verify "$dist/boxes/hello-box/1.0.0/linux-x86_64-cpu/$first_rel" \
    --trust "$trust"
check signer-missing 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --signer-command "$tmp/no-signer" --public-key "$trust"
expect_in signer-missing-code "$tmp/err" "error[signer-failed]"

# ---- --private-key (upstream's): a pair kept outside the keys directory ------------
ci=$tmp/ci-secrets
check ci-keygen 0 "$sc" keygen --key-id ci-2026 --private-key "$ci/release.pem" \
    --public-key "$ci/release.json"
rm -rf "$dist"
# its private key with the keys directory's public file: not one pair, nothing built
check private-key-other-pair 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --private-key "$ci/release.pem"
expect_in private-key-other-pair-code "$tmp/err" "error[invalid-key]"
expect_in private-key-other-pair-remedy "$tmp/err" "--public-key FILE"
expect private-key-other-pair-nothing test ! -e "$dist"
check private-key-missing 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --private-key "$ci/none.pem" --public-key "$ci/release.json"
expect_in private-key-missing-code "$tmp/err" "error[io-error]"
expect_in private-key-missing-names "$tmp/err" "$ci/none.pem"
expect_in private-key-missing-remedy "$tmp/err" "scrollcase keygen"
printf 'not a key\n' >"$tmp/bad.pem"
check private-key-malformed 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --private-key "$tmp/bad.pem" --public-key "$ci/release.json"
expect_in private-key-malformed-code "$tmp/err" "error[invalid-key]"
mkfifo "$tmp/fifo.pem"
check private-key-fifo 1 timeout 20 "$sc" build hello-box/linux-x86_64-cpu \
    --environment-prefix "$prefix" --private-key "$tmp/fifo.pem" --public-key "$ci/release.json"
expect_in private-key-fifo-code "$tmp/err" "error[io-error]"
check private-key-with-signer 2 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --private-key "$ci/release.pem" --signer-command "$tmp/signer.sh"
expect_in private-key-with-signer-says "$tmp/err" "--private-key is for local signing"
expect private-key-refusals-nothing test ! -e "$dist"
# the pair given: the box is signed by ci-2026 (a relative --private-key, from the current directory)
cp "$ci/release.pem" "$ws/.scrollcase/ci.pem"
check private-key-build 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --private-key .scrollcase/ci.pem --public-key "$ci/release.json" --key-id ci-2026 --json
ci_rel=$(ls "$dist"/boxes/hello-box/1.0.0/linux-x86_64-cpu/*.release.json)
check private-key-verifies 0 "$sc" verify "$ci_rel" --trust "$ci/release.json" --json
expect private-key-signed-by python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["signingKeyIds"] == ["ci-2026"]' "$tmp/out"
check private-key-not-workspace-key 1 "$sc" verify "$ci_rel" --trust "$trust"
check private-key-prepare 0 "$sc" prepare "$ci_rel" "$tmp/ci-prepared" --trust "$ci/release.json"

# ---- localFiles links (20.3): followed inside the project, refused leaving it ----------
local_source() { # SOURCE_PATH: the scroll's one localFiles entry reads it
    python3 - "$scroll_dir/scroll.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["localFiles"] = [{"sourcePath": sys.argv[2], "relativePath": "app/hello.py"}]
open(sys.argv[1], "w").write(json.dumps(d, indent=2) + "\n")
PY
}
cp "$scroll_dir/scroll.json" "$tmp/scroll.keep"
ln -s hello.py "$ws/app/linked.py"
printf 'print("not in the project")\n' >"$tmp/outside.py"
ln -s "$tmp/outside.py" "$ws/app/outside.py"
ln -s ../.. "$ws/app/up" # a directory link leaving the project
ln -s nowhere.py "$ws/app/dangling.py"
local_source app/linked.py
check local-link-inside 0 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --allow-dirty --channel nightly
local_source app/outside.py
check local-link-outside 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --allow-dirty --channel nightly
expect_in local-link-outside-code "$tmp/err" "error[unsafe-path]"
expect_in local-link-outside-says "$tmp/err" "is a link that leaves the project (to $tmp/outside.py)"
local_source app/up/outside.py # app/up is $tmp
check local-link-dir-outside 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --allow-dirty --channel nightly
expect_in local-link-dir-outside-code "$tmp/err" "error[unsafe-path]"
local_source app/dangling.py
check local-link-dangling 1 "$sc" build hello-box/linux-x86_64-cpu --environment-prefix "$prefix" \
    --allow-dirty --channel nightly
expect_in local-link-dangling-code "$tmp/err" "error[local-file-missing]"
cp "$tmp/scroll.keep" "$scroll_dir/scroll.json"
rm "$ws/app/linked.py" "$ws/app/outside.py" "$ws/app/up" "$ws/app/dangling.py"

check help 0 "$sc" build --help
expect_in help-usage "$tmp/out" "usage: scrollcase build"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
