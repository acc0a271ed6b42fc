#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# author_cli_test.sh SCROLLCASE SOURCE_DIR — end-to-end checks of the
# authoring commands (docs/cli.md): init, new scroll, add/remove, edit
# scroll, refresh.  Happy paths and the main refusals, exit statuses 0/1/2,
# error codes on stderr, files on disk.  `add asset` and `refresh
# --check-assets` run against fixtures/http_server.py on 127.0.0.1 (skipped,
# visibly, without python3).  Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

same() { # NAME FILE1 FILE2
    if cmp -s "$2" "$3"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $1: $2 and $3 differ"
    fi
}

ws=$tmp/ws
mkdir -p "$ws"
cd "$ws" || exit 1
T=linux-x86_64-cpu
S=scrolls/demo/$T/scroll.json
P=scrolls/demo/$T/pixi.toml

# ---- init
check init 0 "$sc" init
expect_in init-config scrollcase.config.json '"toolchain": ".scrollcase/toolchain"'
expect_in init-gitignore .gitignore ".scrollcase/"
check init-again 0 "$sc" init --json
expect_in init-again-json "$tmp/out" '"config": false'
[[ $(grep -c '^\.scrollcase/$' .gitignore) == 1 ]] && passed=$((passed + 1)) ||
    { failed=$((failed + 1)); echo "FAIL gitignore-once"; }
check init-example 0 "$sc" init --example --pixi-version 0.50.0
expect_in init-example-pin scrolls/example-box/*/scroll.json '"pixiVersion": "0.50.0"'
check init-positional 2 "$sc" init demo
check init-help 0 "$sc" init --help
expect_in init-help-text "$tmp/out" "Downloads nothing"

# ---- new scroll
check new-missing-box 2 "$sc" new scroll --target $T --source-revision abc
expect_in new-missing-box-flag "$tmp/err" "--box-id"
check new-missing-rev 2 "$sc" new scroll --box-id demo --target $T
expect_in new-missing-rev-flag "$tmp/err" "--source-revision"
check new-bad-target 1 "$sc" new scroll --box-id demo --target linux-x86_64-tpu --source-revision abc
expect_in new-bad-target-code "$tmp/err" "error[unsupported-target]"
check new 0 "$sc" new scroll --box-id demo --target $T --source-revision abc \
    --execution script --script app/main.py --python-version 3.11
expect_in new-scroll "$S" '"script": "app/main.py"'
expect_in new-pixi "$P" 'python = "3.11.*"'
expect_in new-pixi-platform "$P" 'platforms = ["linux-64"]'
check new-exists 1 "$sc" new scroll --box-id demo --target $T --source-revision xyz
expect_in new-exists-code "$tmp/err" "error[scroll-exists]"
expect_in new-exists-kept "$S" '"sourceRevision": "abc"'
check new-subcommand 2 "$sc" new box

# ---- add / remove
echo "model bytes" >model.bin
ln -s model.bin link.bin
check add-file 0 "$sc" add file demo model.bin --to weights/model.bin
expect_in add-file-entry "$S" '"relativePath": "weights/model.bin"'
expect_in add-file-pin "$S" "\"sha256\": \"$(sha256sum model.bin | cut -d' ' -f1)\""
check add-file-link 2 "$sc" add file demo link.bin
check add-file-missing 1 "$sc" add file demo nope.bin
expect_in add-file-missing-code "$tmp/err" "error[local-file-missing]"
check add-env 0 "$sc" add env demo HF_HUB_OFFLINE=1
expect_in add-env-value "$S" '"HF_HUB_OFFLINE": "1"'
check add-import 0 "$sc" add import demo email.mime
check add-import-bad 2 "$sc" add import demo 1x
check add-dep 0 "$sc" add dep demo numpy --version '>=1.26'
expect_in add-dep-line "$P" 'numpy = ">=1.26"'
check add-dep-bad 2 "$sc" add dep demo NumPy
check add-kind 2 "$sc" add thing demo x
check add-no-value 2 "$sc" add env demo
check remove-dep 0 "$sc" remove dep demo numpy
expect_not_in remove-dep-gone "$P" "numpy"
# TOML 1.0 beyond one-line pairs (a multi-line task holding "[dependencies]",
# an array of tables): add and remove edit [dependencies] in place, and the
# rest of the file comes back byte for byte
cat >>"$P" <<'TOML'

[tasks]
serve = """
python -m app \
  --port 8000
[dependencies]
"""
[[tool.matrix]]
python = "3.12"
TOML
cp "$P" "$tmp/pixi.before"
check add-dep-full-toml 0 "$sc" add dep demo zlib --version 1.3
expect_in add-dep-full-toml-line "$P" 'zlib = "1.3"'
expect add-dep-full-toml-place [ "$(grep -n 'zlib = ' "$P" | cut -d: -f1)" -lt "$(grep -n '^\[tasks\]' "$P" | cut -d: -f1)" ]
check remove-dep-full-toml 0 "$sc" remove dep demo zlib
expect remove-dep-full-toml-bytes cmp -s "$P" "$tmp/pixi.before"
# add dep --from-requirements is one staged edit: all or nothing (issue 24)
cp "$P" "$tmp/pixi.keep"
printf '\n[dependencies.scipy]\nversion = "1.0"\n' >>"$P"
cp "$P" "$tmp/pixi.before"
printf 'numpy>=1.26\npandas\nscipy\n' >"$tmp/req.txt"
check add-deps-all-or-nothing 1 "$sc" add dep demo --from-requirements "$tmp/req.txt"
expect_in add-deps-all-or-nothing-code "$tmp/err" "error[invalid-pixi-toml]"
expect add-deps-all-or-nothing-untouched cmp -s "$P" "$tmp/pixi.before"
cp "$tmp/pixi.keep" "$P"
truncate -s $((64 * 1024 * 1024 + 1)) "$P" # 19.2: over 1 MiB is invalid-pixi-toml, not io-error
check add-dep-huge-toml 1 "$sc" add dep demo numpy
expect_in add-dep-huge-toml-code "$tmp/err" "error[invalid-pixi-toml]"
cp "$tmp/pixi.keep" "$P"
# ... and linear: 50,000 lines are one edit (bench/requirements_scaling.py has the ratio)
awk 'BEGIN { for (i = 0; i < 50000; i++) printf "p%d\n", i }' >"$tmp/req50k.txt"
check add-deps-50000 0 "$sc" add dep demo --from-requirements "$tmp/req50k.txt"
expect add-deps-50000-all test "$(grep -c '^p[0-9]* = "\*"$' "$P")" = 50000
expect add-deps-50000-last test "$(grep -c '^p49999 = "\*"$' "$P")" = 1
cp "$tmp/pixi.keep" "$P"
check remove-env 0 "$sc" remove env demo HF_HUB_OFFLINE
expect_not_in remove-env-gone "$S" "environment"
check remove-import 0 "$sc" remove import demo email.mime
check remove-last-import 1 "$sc" remove import demo json
expect_in remove-last-import-code "$tmp/err" "error[invalid-scroll]"
check remove-nothing 2 "$sc" remove env demo NOPE
check remove-to 2 "$sc" remove file demo x --to y

# ---- several targets
check new-second 0 "$sc" new scroll --box-id demo --target linux-x86_64-cuda12.4 --source-revision abc
check add-needs-target 2 "$sc" add import demo yaml
expect_in add-needs-target-text "$tmp/err" "--target"
check add-all 0 "$sc" add import demo yaml --target all
expect_in add-all-cuda scrolls/demo/linux-x86_64-cuda12.4/scroll.json '"yaml"'
check add-one 0 "$sc" add import demo cupy --target linux-x86_64-cuda12.4
expect_not_in add-one-cpu "$S" "cupy"

# ---- edit scroll
check edit 0 "$sc" edit scroll demo --field version --value ' 2.0.0 ' --target $T
expect_in edit-value "$S" '"version": "2.0.0"'
cp "$S" "$tmp/before.json"
check edit-invalid 1 "$sc" edit scroll demo --field weights --value on-demand --target $T
expect_in edit-invalid-code "$tmp/err" "error[invalid-scroll]"
same edit-rolled-back "$tmp/before.json" "$S"
check edit-not-editable 2 "$sc" edit scroll demo --field boxId --value x --target $T
check edit-no-value 2 "$sc" edit scroll demo --field version --target $T

# ---- refresh
check refresh-clean 0 "$sc" refresh demo
echo "new bytes" >model.bin
cp "$S" "$tmp/before.json"
check refresh-drift 1 "$sc" refresh demo
expect_in refresh-drift-code "$tmp/err" "error[local-file-mismatch]"
same refresh-drift-unchanged "$tmp/before.json" "$S"
check refresh-json 1 "$sc" refresh demo --json
expect_in refresh-json-report "$tmp/out" '"repinned": false'
check refresh-repin 0 "$sc" refresh demo --repin
expect_in refresh-repin-pin "$S" "\"sha256\": \"$(sha256sum model.bin | cut -d' ' -f1)\""
check refresh-after 0 "$sc" refresh demo
check remove-file 0 "$sc" remove file demo weights/model.bin --target $T
expect_not_in remove-file-gone "$S" "weights/model.bin"

# ---- assets over loopback HTTP
if [[ -x /usr/bin/python3 && -f $src/fixtures/http_server.py ]]; then
    mkdir -p "$tmp/www/m"
    printf 'asset body' >"$tmp/www/m/weights.safetensors"
    /usr/bin/python3 "$src/fixtures/http_server.py" "$tmp/www" "$tmp/http.log" >"$tmp/port" &
    server_pid=$!
    for _ in $(seq 50); do [[ -s $tmp/port ]] && break; sleep 0.1; done
    port=$(head -n1 "$tmp/port")
    url=http://127.0.0.1:$port/m/weights.safetensors
    check add-asset 0 "$sc" add asset demo "$url" --target $T
    expect_in add-asset-path "$S" '"relativePath": "model-cache/demo/weights.safetensors"'
    expect_in add-asset-size "$S" '"sizeBytes": 10'
    expect_in add-asset-pin "$S" "\"sha256\": \"$(printf 'asset body' | sha256sum | cut -d' ' -f1)\""
    check add-asset-404 1 "$sc" add asset demo "http://127.0.0.1:$port/m/none.bin" --target $T
    expect_in add-asset-404-code "$tmp/err" "error[download-failed]"
    # a body that never ends is bounded while it streams (20.3; default 64 GiB)
    cp "$S" "$tmp/scroll-before"
    mkdir -p "$tmp/asset-tmp"
    check add-asset-endless 1 env TMPDIR="$tmp/asset-tmp" "$sc" add asset demo \
        "http://127.0.0.1:$port/m/endless.bin?endless=1" --target $T --max-size 100000
    expect_in add-asset-endless-code "$tmp/err" "error[asset-size]"
    expect_in add-asset-endless-bound "$tmp/err" "more than 100000 bytes"
    expect add-asset-endless-unchanged cmp -s "$S" "$tmp/scroll-before"
    expect add-asset-endless-tmp-empty test -z "$(ls -A "$tmp/asset-tmp")"
    check add-asset-max-size-zero 2 "$sc" add asset demo "$url" --target $T --max-size 0
    expect_in add-asset-max-size-zero-says "$tmp/err" "--max-size takes a whole number of bytes"
    requests=$(wc -l <"$tmp/http.log")
    check refresh-no-network 0 "$sc" refresh demo
    [[ $(wc -l <"$tmp/http.log") == "$requests" ]] && passed=$((passed + 1)) ||
        { failed=$((failed + 1)); echo "FAIL refresh-no-network: a request was made"; }
    printf 'changed body!' >"$tmp/www/m/weights.safetensors"
    check refresh-assets-drift 1 "$sc" refresh demo --check-assets
    expect_in refresh-assets-code "$tmp/err" "error[asset-size]"
    check refresh-assets-repin 0 "$sc" refresh demo --check-assets --repin
    expect_in refresh-assets-size "$S" '"sizeBytes": 13'
    check remove-asset 0 "$sc" remove asset demo "$url" --target $T
    expect_not_in remove-asset-gone "$S" "weights.safetensors"
else
    echo "SKIP assets: /usr/bin/python3 or fixtures/http_server.py missing"
fi

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
