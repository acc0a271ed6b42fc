#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# upstream_cli_test.sh SCROLLCASE SOURCE_DIR — upstream's (v2) spellings
# that v3 accepts as aliases (docs/cli.md "Upstream's spellings"), the
# default --trust of verify and run, and `add dep --from-requirements`.
# Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

# ---- spellings ------------------------------------------------------------------
check version-v 0 "$sc" -v
expect_in version-v-text "$tmp/out" "scrollcase "
for cmd in "verify r" "prepare r d" "attach r d" "run r" "compat r" "verify-document r" \
    "channel resolve c --install-id i"; do
    # shellcheck disable=SC2086
    check "public-key-is-trust $cmd" 0 "$sc" help --parse-only -- $cmd --public-key k.json
done
check public-key-is-still-signer 0 "$sc" help --parse-only -- sign f.json --signer-command s \
    --public-key k.json
check public-key-listed 0 "$sc" help verify
expect_in public-key-listed-text "$tmp/out" "(also --public-key)"
check execution-values 0 "$sc" help --parse-only -- new scroll --execution python-module
check execution-library-only 0 "$sc" help --parse-only -- new scroll --execution library-only
check execution-other 2 "$sc" help --parse-only -- new scroll --execution python-binary

ws=$tmp/ws
mkdir -p "$ws/app"
cd "$ws" || exit 1
echo 'print("hi")' >app/main.py
check init-no-example 0 "$sc" init --no-example --no-install-toolchain
expect init-no-example-none test ! -e "$ws/scrolls/example-box"
check init-contradiction 2 "$sc" init --example --no-example
check init-no-templates 0 "$sc" help --parse-only -- init --no-templates
T=linux-x86_64-cpu
S=$ws/scrolls/demo/$T/scroll.json
P=$ws/scrolls/demo/$T/pixi.toml
check new-upstream 0 "$sc" new scroll --box-id demo --target $T --source-revision abc \
    --execution python-script --script app/main.py --runtime-id cpython --scroll-version 2.1.0
expect_in new-runtime-id "$S" '"runtimeId": "cpython"'
expect_in new-scroll-version "$S" '"scrollVersion": "2.1.0"'
expect_in new-execution "$S" '"kind": "python-script"'

# ---- new scroll --default-args, --generate-script (upstream's) -------------------------
G=$ws/scrolls/gen/$T/scroll.json
check new-generate 0 "$sc" new scroll --box-id gen --target $T --source-revision abc \
    --execution python-script --generate-script --default-args '["--port", "8080"]'
expect_in new-generate-says "$tmp/out" "wrote $ws/box-entrypoints/gen/$T/entrypoint.py"
expect new-generate-script test -f "$ws/box-entrypoints/gen/$T/entrypoint.py"
expect new-generate-runs /usr/bin/python3 "$ws/box-entrypoints/gen/$T/entrypoint.py" x
expect_in new-generate-source "$G" "\"sourcePath\": \"box-entrypoints/gen/$T/entrypoint.py\""
expect_in new-generate-script-member "$G" '"script": "entrypoint.py"'
expect_in new-generate-default-args "$G" '"--port",'
check new-generate-loads 0 "$sc" scroll check gen/$T
check new-generate-again 1 "$sc" new scroll --box-id gen2 --target $T --source-revision abc \
    --execution script --generate-script --generated-script-path "box-entrypoints/gen/$T/entrypoint.py"
expect_in new-generate-again-code "$tmp/err" "error[scroll-exists]"
expect new-generate-again-nothing test ! -e "$ws/scrolls/gen2"
check new-script-destination 0 "$sc" new scroll --box-id dest --target $T --source-revision abc \
    --execution script --generate-script --generated-script-path src/serve.py \
    --script-destination bin/serve.py
expect_in new-script-destination-member "$ws/scrolls/dest/$T/scroll.json" '"script": "bin/serve.py"'
expect new-script-destination-source test -f "$ws/src/serve.py"
check new-script-destination-twice 2 "$sc" new scroll --box-id dest2 --target $T \
    --source-revision abc --execution script --script a.py --script-destination b.py
check new-default-args-not-json 2 "$sc" new scroll --box-id da --target $T --source-revision abc \
    --execution module --module m --default-args --port
expect_in new-default-args-not-json-says "$tmp/err" "--default-args --port is not a JSON array"
check new-default-args-no-execution 2 "$sc" new scroll --box-id da --target $T \
    --source-revision abc --default-args '[]'
check new-generate-module 2 "$sc" new scroll --box-id da --target $T --source-revision abc \
    --execution module --module m --generate-script
check new-generated-path-alone 2 "$sc" new scroll --box-id da --target $T --source-revision abc \
    --execution script --script a.py --generated-script-path a.py
check new-generated-path-unsafe 1 "$sc" new scroll --box-id da --target $T --source-revision abc \
    --execution script --generate-script --generated-script-path ../a.py
expect_in new-generated-path-unsafe-code "$tmp/err" "error[unsafe-path]"
expect new-default-args-refused-nothing test ! -e "$ws/scrolls/da" -a ! -e "$tmp/a.py"

# ---- new scroll --min-* (upstream's host constraints) -> compatibility ----------------
C=linux-x86_64-cuda12.4
SC=$ws/scrolls/floors/$C/scroll.json
check new-min-flags 0 "$sc" new scroll --box-id floors --target $C --source-revision abc \
    --min-host-app-version 1.4 --max-host-app-version-exclusive 2 \
    --min-nvidia-driver-version 550.54.14 --min-ram-gb 24
expect_in new-min-host "$SC" '"minHostAppVersion": "1.4"'
expect_in new-max-host "$SC" '"maxHostAppVersionExclusive": "2"'
expect_in new-min-driver "$SC" '"minNvidiaDriverVersion": "550.54.14"'
expect_in new-min-ram "$SC" '"minRamGb": 24'
check new-min-flags-load 0 "$sc" scroll check floors/$C --json
expect_in new-min-flags-effective "$tmp/out" '"minRamGb": 24'
check new-min-not-dotted 2 "$sc" new scroll --box-id floors2 --target $T --source-revision abc \
    --min-host-app-version 1.0-beta
expect_in new-min-not-dotted-says "$tmp/err" "--min-host-app-version 1.0-beta is not a dotted version"
expect new-min-not-dotted-nothing test ! -e "$ws/scrolls/floors2"
check new-min-driver-cpu 2 "$sc" new scroll --box-id floors2 --target $T --source-revision abc \
    --min-nvidia-driver-version 550
check new-min-macos-linux 2 "$sc" new scroll --box-id floors2 --target $T --source-revision abc \
    --min-macos-version 14
check new-min-ram-zero 2 "$sc" new scroll --box-id floors2 --target $T --source-revision abc \
    --min-ram-gb 0
check new-max-below-min 2 "$sc" new scroll --box-id floors2 --target $T --source-revision abc \
    --min-host-app-version 2 --max-host-app-version-exclusive 1.9
expect new-min-refused-nothing test ! -e "$ws/scrolls/floors2"

# ---- keygen --private-key / --public-key (where keygen writes) -------------------------
kd=$tmp/keys-elsewhere
check keygen-paths 0 "$sc" keygen --private-key "$kd/secret/release.pem" \
    --public-key "$kd/trust/release.json" --key-id release-2026
expect_in keygen-paths-says "$tmp/out" "private key: $kd/secret/release.pem"
expect keygen-paths-private-0600 test "$(stat -c %a "$kd/secret/release.pem")" = 600
expect keygen-paths-dir-0700 test "$(stat -c %a "$kd/secret")" = 700
expect keygen-paths-public-0644 test "$(stat -c %a "$kd/trust/release.json")" = 644
expect keygen-paths-not-in-keys-dir test ! -e "$ws/.scrollcase/keys/signing-private.pem"
expect_in keygen-paths-key-id "$kd/trust/release.json" '"keyId": "release-2026"'
# the pair written is one pair that signs and verifies (the public file is a trust file)
echo '{}' >"$tmp/empty.json"
check keygen-paths-public-is-trust 1 "$sc" verify-document "$tmp/empty.json" \
    --trust "$kd/trust/release.json"
expect_not_in keygen-paths-trust-loads "$tmp/err" "invalid-trust-file"
cp "$kd/secret/release.pem" "$tmp/before.pem"
check keygen-paths-exists 1 "$sc" keygen --private-key "$kd/secret/release.pem" \
    --public-key "$kd/trust/other.json"
expect_in keygen-paths-exists-code "$tmp/err" "error[key-exists]"
expect_in keygen-paths-exists-remedy "$tmp/err" "scrollcase keygen --force"
expect keygen-paths-exists-nothing test ! -e "$kd/trust/other.json"
check keygen-paths-public-exists 1 "$sc" keygen --private-key "$kd/secret/new.pem" \
    --public-key "$kd/trust/release.json"
expect_in keygen-paths-public-exists-code "$tmp/err" "error[key-exists]"
expect keygen-paths-public-exists-nothing test ! -e "$kd/secret/new.pem"
check keygen-paths-same-file 2 "$sc" keygen --private-key "$kd/same" --public-key "$kd/./same"
expect keygen-paths-same-nothing test ! -e "$kd/same"
long=$(printf 'n%.0s' {1..250}) # the temporary file beside it cannot be named
check keygen-paths-second-fails 1 "$sc" keygen --private-key "$kd/fresh/p.pem" \
    --public-key "$kd/fresh2/$long"
expect keygen-paths-second-fails-nothing test ! -e "$kd/fresh" -a ! -e "$kd/fresh2"
expect_in keygen-paths-second-fails-says "$tmp/err" "give a name of at most 243 bytes"
check keygen-paths-force-fails 1 "$sc" keygen --force --private-key "$kd/secret/release.pem" \
    --public-key "$kd/trust/$long"
expect keygen-paths-force-fails-old-back cmp -s "$tmp/before.pem" "$kd/secret/release.pem"
expect keygen-paths-force-fails-clean test "$(ls -A "$kd/secret")" = release.pem
check keygen-paths-force 0 "$sc" keygen --force --private-key "$kd/secret/release.pem" \
    --public-key "$kd/trust/release.json"
expect keygen-paths-force-replaced test "$(cat "$tmp/before.pem")" != "$(cat "$kd/secret/release.pem")"
check keygen-public-only 0 "$sc" keygen --public-key "$kd/only-public.json" --json
expect_in keygen-public-only-private "$tmp/out" \
    "\"privateKeyPath\": \"$ws/.scrollcase/keys/signing-private.pem\""

# ---- sign --private-key (upstream's): sign with the key at FILE -----------------------
cat >"$tmp/channel.json" <<'JSON'
{"schemaVersion": 3, "kind": "scrollcase.box.channel", "channel": "beta", "boxId": "hello-box",
 "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
 "updatedAt": "2026-11-29T00:00:00Z", "cohortSalt": "3e9fe864d2bc307ed272ead85cd3f2b2",
 "releases": [{"version": "1.0.0", "releaseManifestUrl": "https://example.invalid/b.release.json",
               "rolloutPercentage": 100}]}
JSON
check sign-private-key 0 "$sc" sign "$tmp/channel.json" --out "$tmp/ch.signed.json" \
    --private-key "$kd/secret/release.pem" --public-key "$kd/trust/release.json"
kid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["keyId"])' "$kd/trust/release.json")
check sign-private-key-verifies 0 "$sc" verify-document "$tmp/ch.signed.json" \
    --trust "$kd/trust/release.json" --expect channel
expect_in sign-private-key-signed-by "$tmp/out" "signed-by $kid"
check sign-private-key-not-other-trust 1 "$sc" verify-document "$tmp/ch.signed.json" \
    --trust "$kd/only-public.json"
# a relative FILE is taken from the current directory; the keys directory's private file
# (from keygen-public-only) is not the one used
(cd "$kd/secret" && "$sc" --project-root "$ws" sign "$tmp/channel.json" --out "$tmp/rel.signed.json" \
    --private-key release.pem --public-key ../trust/release.json >"$tmp/out" 2>"$tmp/err")
expect sign-private-key-relative test -s "$tmp/rel.signed.json"
check sign-private-key-relative-verifies 0 "$sc" verify-document "$tmp/rel.signed.json" \
    --trust "$kd/trust/release.json"
# the keys directory's public file with another pair's private key
mkdir -p "$tmp/kd2" && cp "$kd/trust/release.json" "$tmp/kd2/signing-public.json"
check sign-private-key-other-pair 1 "$sc" --keys-dir "$tmp/kd2" sign "$tmp/channel.json" \
    --out "$tmp/x.signed.json" --private-key "$ws/.scrollcase/keys/signing-private.pem"
expect_in sign-private-key-other-pair-code "$tmp/err" "error[invalid-key]"
check sign-private-key-missing 1 "$sc" sign "$tmp/channel.json" --out "$tmp/x.signed.json" \
    --private-key "$kd/none.pem" --public-key "$kd/trust/release.json"
expect_in sign-private-key-missing-code "$tmp/err" "error[io-error]"
expect_in sign-private-key-missing-remedy "$tmp/err" "scrollcase keygen"
printf -- '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' >"$tmp/bad.pem"
check sign-private-key-malformed 1 "$sc" sign "$tmp/channel.json" --out "$tmp/x.signed.json" \
    --private-key "$tmp/bad.pem" --public-key "$kd/trust/release.json"
expect_in sign-private-key-malformed-code "$tmp/err" "error[invalid-key]"
mkfifo "$tmp/fifo.pem"
check sign-private-key-fifo 1 timeout 20 "$sc" sign "$tmp/channel.json" --out "$tmp/x.signed.json" \
    --private-key "$tmp/fifo.pem" --public-key "$kd/trust/release.json"
expect_in sign-private-key-fifo-code "$tmp/err" "error[io-error]"
check sign-private-key-with-signer 2 "$sc" sign "$tmp/channel.json" --private-key p.pem \
    --signer-command /bin/cat
expect_in sign-private-key-with-signer-says "$tmp/err" "--private-key is for local signing"
expect sign-private-key-refusals-nothing test ! -e "$tmp/x.signed.json"
check build-takes-private-key 0 "$sc" help --parse-only -- build --private-key p.pem
check build-private-key-not-with-signer 2 "$sc" build --private-key p.pem --signer-command s

# ---- add dep --from-requirements ---------------------------------------------------
cat >requirements.txt <<'REQ'
# the app
NumPy >= 1.24, < 2
torch==2.3.1 ; python_version >= "3.10"
uvicorn[standard]
-r more.txt
git+https://example.invalid/pkg.git
REQ
check from-requirements 0 "$sc" add dep demo --from-requirements requirements.txt
expect_in req-numpy "$P" 'numpy = ">=1.24,<2"'
expect_in req-torch "$P" 'pytorch = "==2.3.1"'
expect_in req-uvicorn "$P" 'uvicorn = "*"'
expect_not_in req-no-git "$P" 'git'
expect_in req-renamed "$tmp/err" "torch is pytorch on conda-forge"
expect_in req-skipped-option "$tmp/err" "skipped -r more.txt"
expect_in req-skipped-url "$tmp/err" "skipped git+https://example.invalid/pkg.git"
expect_in req-skipped-extras "$tmp/err" "skipped uvicorn[standard]"
expect_in req-added "$tmp/out" 'added dep pytorch = "==2.3.1"'
printf -- '-e .\n' >empty.txt
check from-requirements-nothing 2 "$sc" add dep demo --from-requirements empty.txt
expect_in from-requirements-nothing-says "$tmp/err" "names no dependency"
check from-requirements-missing 1 "$sc" add dep demo --from-requirements none.txt
expect_in from-requirements-missing-code "$tmp/err" "error[io-error]"
check from-requirements-not-dep 2 "$sc" help --parse-only -- add env demo A=1 \
    --from-requirements requirements.txt
check dep-needs-name 2 "$sc" add dep demo

# ---- --trust defaults to the workspace's public key in verify and run ---------------
check verify-default-trust 1 "$sc" verify "$tmp/none.release.json"
expect_in verify-default-trust-file "$tmp/err" "$ws/.scrollcase/keys/signing-public.json"
check run-default-trust 1 "$sc" run "$tmp/none.release.json"
expect_in run-default-trust-file "$tmp/err" "$ws/.scrollcase/keys/signing-public.json"
check prepare-still-needs-trust 2 "$sc" prepare "$tmp/none.release.json" "$tmp/d"

# ---- docs/cli.md's table of upstream's spellings agrees with the option table ----------
"$sc" help --commands-json >"$tmp/commands.json"
check upstream-table-agrees 0 python3 "$src/core/tests/cli/upstream_table.py" "$tmp/commands.json" \
    "$src/docs/cli.md"

echo "$passed passed, $failed failed"
((failed == 0))
