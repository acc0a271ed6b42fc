#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cache_cli_test.sh SCROLLCASE SOURCE_DIR — the asset cache and offline
# builds end to end: a box with one embedded asset served by
# fixtures/http_server.py on 127.0.0.1 (its request log counted) is built
# twice; the second build makes no request.  Then --offline with an empty
# cache (asset-not-cached, nothing fetched), a .part left in the cache by a
# build killed mid-download resumed by the next build (one Range request), a damaged
# entry fetched again, and cache ls / cache gc (--json).  The cache is
# $SCROLLCASE_CACHE under the scratch directory.  Prints "N passed, N failed".
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

if ! command -v git >/dev/null || [[ ! -x /usr/bin/python3 ]]; then
    echo "SKIP: git and /usr/bin/python3 are needed to build a box"
    exit 0
fi

# ---- the asset server ------------------------------------------------------------
mkdir -p "$tmp/www/m"
/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 400)' \
    >"$tmp/www/m/weights.bin"
asset_sha=$(sha256sum "$tmp/www/m/weights.bin" | cut -d' ' -f1)
asset_size=$(stat -c %s "$tmp/www/m/weights.bin")
/usr/bin/python3 "$src/fixtures/http_server.py" "$tmp/www" "$tmp/http.log" >"$tmp/port" &
server_pid=$!
for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.1; done
port=$(head -n1 "$tmp/port")
: >"$tmp/http.log"
requests() { wc -l <"$tmp/http.log"; }

# ---- the prefix and the workspace ------------------------------------------------
prefix=$tmp/prefix
mkdir -p "$prefix/bin"
printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' >"$prefix/bin/python"
chmod 755 "$prefix/bin/python"
ws=$tmp/ws
scroll_dir=$ws/scrolls/cache-box/linux-x86_64-cpu
mkdir -p "$scroll_dir"
printf '.scrollcase/\n' >"$ws/.gitignore"
write_scroll() { # URL
    cat >"$scroll_dir/scroll.json" <<SCROLL
{
  "schemaVersion": 3,
  "boxId": "cache-box",
  "modelId": "cache",
  "runtimeId": "cpython",
  "version": "1.0.0",
  "sourceRevision": "test",
  "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
  "pythonVersion": "3.11",
  "pixiVersion": "0.40.0",
  "assetBaseUrl": "https://boxes.example.test/",
  "weights": "embed",
  "assets": [{"url": "$1", "relativePath": "model-cache/weights.bin",
              "sizeBytes": $asset_size, "sha256": "$asset_sha"}],
  "selfTest": {"imports": ["json"]}
}
SCROLL
    git -C "$ws" add -A
    git -C "$ws" -c user.name=t -c user.email=t@t commit -q -m "scroll $1"
}
git -C "$ws" init -q
url=http://127.0.0.1:$port/m/weights.bin
write_scroll "$url"
cd "$ws" || exit 1
export SCROLLCASE_CACHE=$tmp/cache
check keygen 0 "$sc" keygen

schema_check() { # NAME SCHEMA: $tmp/out is one document valid against it
    if /usr/bin/python3 - "$src/docs/schema/cli/$2.schema.json" "$tmp/out" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(
    json.loads(open(sys.argv[2]).read()))
PY
    then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: not valid against $2"; fi
}

build() { "$sc" build cache-box/linux-x86_64-cpu --environment-prefix "$prefix" "$@"; }

# ---- offline with nothing cached: refused, nothing fetched -----------------------
check offline-empty 1 build --offline
expect_in offline-empty-code "$tmp/err" "error[asset-not-cached]"
expect offline-empty-no-request test "$(requests)" = 0
check offline-empty-json 1 build --offline --json
expect_in offline-empty-json "$tmp/out" '"code": "asset-not-cached"'

# ---- first build fetches once, second fetches nothing ----------------------------
# (LD_DEBUG=files: the dynamic loader lists every object the command loads;
# libcurl is loaded on the first download only, lazylib_internal.h)
loads() { # CMD...: the loader's list of what CMD loaded, in $tmp/loaded
    rm -f "$tmp"/ld.*
    LD_DEBUG=files LD_DEBUG_OUTPUT=$tmp/ld "$@"
    local rc=$?
    cat "$tmp"/ld.* >"$tmp/loaded" 2>/dev/null
    return $rc
}
check build-1 0 loads build
expect_in build-1-loads-libcrypto "$tmp/loaded" "file=libcrypto.so"
expect_in build-1-loads-libcurl "$tmp/loaded" "file=libcurl.so"
expect build-1-one-request test "$(requests)" = 1
expect build-1-cached test -f "$SCROLLCASE_CACHE/$asset_sha"
zip=$(ls "$ws"/.scrollcase/dist/boxes/cache-box/1.0.0/linux-x86_64-cpu/*.zip)
first=$(sha256sum "$zip" | cut -d' ' -f1)
check build-2 0 loads build
expect build-2-no-request test "$(requests)" = 1
# (an asset already in the cache is not a download: libcurl stays unloaded)
expect_in build-2-loads-libcrypto "$tmp/loaded" "file=libcrypto.so"
expect_not_in build-2-loads-no-libcurl "$tmp/loaded" "libcurl"
expect build-2-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first"
check build-offline 0 build --offline
expect build-offline-no-request test "$(requests)" = 1
expect build-offline-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first"
check inspect-asset 0 loads "$sc" inspect "$zip"
expect_in inspect-asset "$tmp/out" "model-cache/weights.bin"
expect_in inspect-loads-libcrypto "$tmp/loaded" "file=libcrypto.so"
expect_not_in inspect-loads-no-libcurl "$tmp/loaded" "libcurl"
expect_not_in inspect-loads-no-libarchive "$tmp/loaded" "libarchive"

# ---- cache ls ----------------------------------------------------------------------
check cache-ls 0 "$sc" cache ls
expect_in cache-ls "$tmp/out" "  $asset_sha $(human_size "$asset_size")"
expect_in cache-ls-total "$tmp/out" ": 1 file(s), $(human_size "$asset_size")"
check cache-ls-json 0 "$sc" cache ls --json
expect_in cache-ls-json "$tmp/out" "\"sizeBytes\": $asset_size"
expect_in cache-ls-json-partial "$tmp/out" '"partial": false'
schema_check cache-ls-json cache-ls

# ---- an interrupted build leaves a .part in the cache; the next build resumes it ---
# (the server sends half the body, then stalls; the build is killed meanwhile)
rm -f "$SCROLLCASE_CACHE/$asset_sha"
write_scroll "$url?stall=30"
build >"$tmp/out" 2>"$tmp/err" &
build_pid=$!
part=$SCROLLCASE_CACHE/$asset_sha.part
for _ in $(seq 200); do [[ -s $part ]] && break; sleep 0.05; done
sleep 0.2
kill -TERM "$build_pid" 2>/dev/null
wait "$build_pid" 2>/dev/null
expect part-kept test -s "$part"
part_size=$(stat -c %s "$part" 2>/dev/null || echo 0)
expect part-is-partial test "$part_size" -lt "$asset_size"
check cache-ls-part 0 "$sc" cache ls --json
expect_in cache-ls-part "$tmp/out" '"partial": true'
schema_check cache-ls-part cache-ls
write_scroll "$url"
: >"$tmp/http.log"
check build-resumed 0 build
expect_in build-resumed-range "$tmp/http.log" "\"range\": \"bytes=$part_size-\""
expect build-resumed-one-request test "$(requests)" = 1
expect build-resumed-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first"
expect part-gone test ! -e "$SCROLLCASE_CACHE/$asset_sha.part"

# ---- a damaged entry is never used: fetched again -----------------------------------
printf 'X' | dd of="$SCROLLCASE_CACHE/$asset_sha" bs=1 seek=10 conv=notrunc status=none
: >"$tmp/http.log"
check build-damaged 0 build
expect build-damaged-refetched test "$(requests)" -ge 1
expect build-damaged-same-archive test "$(sha256sum "$zip" | cut -d' ' -f1)" = "$first"

# ---- cache gc: partials, damaged entries and foreign files go, good ones stay ------
# a damaged entry of 2 KiB, collected by the plain gc: its size for people
damaged=$(printf 'c%.0s' $(seq 64))
head -c 2048 /dev/zero >"$SCROLLCASE_CACHE/$damaged"
check cache-gc-plain 0 "$sc" cache gc
expect_in cache-gc-plain-entry "$tmp/out" "removed $damaged (damaged): 2.0 KiB (2048 bytes)"
expect_in cache-gc-plain-freed "$tmp/out" ": 1 removed, 2.0 KiB (2048 bytes) freed, 1 kept"
printf 'partial' >"$SCROLLCASE_CACHE/$(printf 'a%.0s' $(seq 64)).part"
printf 'wrong' >"$SCROLLCASE_CACHE/$(printf 'b%.0s' $(seq 64))"
printf 'junk' >"$SCROLLCASE_CACHE/notes.txt"
check cache-gc 0 "$sc" cache gc --json
expect_in cache-gc-partial "$tmp/out" '"reason": "partial"'
expect_in cache-gc-damaged "$tmp/out" '"reason": "damaged"'
expect_in cache-gc-foreign "$tmp/out" '"reason": "foreign"'
expect_in cache-gc-kept "$tmp/out" '"kept": 1'
schema_check cache-gc-json cache-gc
expect cache-gc-kept-file test -f "$SCROLLCASE_CACHE/$asset_sha"
expect cache-gc-removed test "$(ls "$SCROLLCASE_CACHE" | wc -l)" = 1
check cache-gc-again 0 "$sc" cache gc
expect_in cache-gc-again "$tmp/out" "0 removed"
check cache-no-home 2 env -u SCROLLCASE_CACHE -u HOME "$sc" cache ls
expect_in cache-no-home "$tmp/err" "error[usage]"
check cache-no-home-json 2 env -u SCROLLCASE_CACHE -u HOME "$sc" cache gc --json
schema_check cache-no-home-json cache-gc
printf 'x' >"$tmp/file-not-dir"
check cache-not-a-directory 1 env SCROLLCASE_CACHE="$tmp/file-not-dir" "$sc" cache ls --json
expect_in cache-not-a-directory "$tmp/out" '"code": "io-error"'
schema_check cache-not-a-directory cache-ls

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
