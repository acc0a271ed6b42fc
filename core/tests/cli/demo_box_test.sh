#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo_box_test.sh SCROLLCASE SOURCE_DIR WORK_DIR — the real box, end to end:
# the example hello-box (examples/workspace, linux-x86_64-cpu) is built by
# `scrollcase build` from a relocatable CPython prefix made of Debian's own
# packages (fixtures/debian_prefix.sh), signed with a fresh key, verified,
# self-tested, prepared and run -- the real interpreter prints -- and then
# built again under another time zone, locale and umask, from a copy of the
# prefix at another path, to the byte-identical archive and release.  Then the
# same interpreter, packed as a conda package in a channel with a lock naming
# it, is built from the lock by the native installer (format-v3 20.2), run,
# and rebuilt byte for byte.
#
# The workspace is copied into a git repository of its own, committed at a
# fixed date, so the build sees a clean tree whatever state the checkout is in.
# The prefix is kept in WORK_DIR/debian-prefix between runs (the script is
# idempotent; its .debs are cached in $SCROLLCASE_DEB_CACHE).
#
# Exit 77 (a skip, with the reason on stdout) when the prefix cannot be made:
# no apt-get/dpkg, or neither the network nor the cache has the packages.
# Prints "N passed, N failed".
set -u
sc=$1
src=$2
work=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ref=hello-box/linux-x86_64-cpu

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

finish() {
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit $?
}

# ---- the prefix ------------------------------------------------------------
mkdir -p "$work"
rc=0
prefix=$(bash "$src/fixtures/debian_prefix.sh" "$work/debian-prefix" 2>"$tmp/prefix.err") || rc=$?
if ((rc == 3)); then
    echo "SKIP: no CPython prefix from Debian's packages can be made here:"
    sed 's/^/  | /' "$tmp/prefix.err"
    exit 77
fi
if ((rc != 0)); then
    echo "FAIL prefix: fixtures/debian_prefix.sh exited $rc"
    sed 's/^/  | /' "$tmp/prefix.err"
    failed=$((failed + 1))
    finish
fi
expect prefix-interpreter test -x "$prefix/bin/python"

# ---- a clean git checkout of the example workspace -------------------------
ws=$tmp/ws
cp -R "$src/examples/workspace" "$ws"
rm -rf "$ws/.scrollcase"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid \
    GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.invalid \
    GIT_AUTHOR_DATE="2026-01-02T03:04:05Z" GIT_COMMITTER_DATE="2026-01-02T03:04:05Z" \
    GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
if ! { git -C "$ws" init -q && git -C "$ws" add -A &&
    git -C "$ws" commit -q -m "hello-box"; } >"$tmp/git.log" 2>&1; then
    echo "FAIL git: cannot make the example checkout"
    sed 's/^/  | /' "$tmp/git.log"
    failed=$((failed + 1))
    finish
fi
head=$(git -C "$ws" rev-parse HEAD)

keys=$tmp/keys
check keygen 0 "$sc" --keys-dir "$keys" keygen
trust=$keys/signing-public.json

# build NAME BUILD_DIR DIST_DIR PREFIX — one `scrollcase build` of the box.
build() {
    check "$1" 0 "$sc" --project-root "$ws" --keys-dir "$keys" \
        --build-dir "$2" --out-dir "$3" build "$ref" --environment-prefix "$4"
}

# ---- build -----------------------------------------------------------------
build build "$tmp/build1" "$tmp/dist1" "$prefix"
cp "$tmp/out" "$tmp/build.out"
object=$tmp/dist1/boxes/hello-box/1.0.0/linux-x86_64-cpu
shopt -s nullglob
releases=("$object"/*.release.json)
archives=("$object"/*.zip)
shopt -u nullglob
expect one-release test "${#releases[@]}" -eq 1
expect one-archive test "${#archives[@]}" -eq 1
if ((${#releases[@]} != 1 || ${#archives[@]} != 1)); then
    find "$tmp/dist1" 2>&1 | sed "s/^/  | /"
    finish
fi
release=${releases[0]}
archive=${archives[0]}
channel=$tmp/dist1/channels/hello-box/beta/linux-x86_64-cpu.json

# Content addresses: the archive is named by its SHA-256, the release by the
# SHA-256 of its file.
expect archive-named-by-digest test "$(basename "$archive" .zip)" = \
    "$(sha256sum <"$archive" | cut -d' ' -f1)"
expect release-named-by-digest test "$(basename "$release" .release.json)" = \
    "$(sha256sum <"$release" | cut -d' ' -f1)"

# The signed release: provenance from the commit and the prefix.
/usr/bin/python3 - "$release" "$head" >"$tmp/release.check" 2>&1 <<'PY'
import base64, json, sys
envelope = json.load(open(sys.argv[1]))
release = json.loads(base64.b64decode(envelope["payloadBase64"]))
prov = release["provenance"]
problems = []
def want(what, ok):
    if not ok:
        problems.append(what)
want("boxId hello-box", release["boxId"] == "hello-box")
want("pythonEntryPoint venv/bin/python", release["pythonEntryPoint"] == "venv/bin/python")
want("builderRevision is HEAD", prov["builderRevision"] == sys.argv[2])
want("a clean tree", prov["sourceTreeDirty"] is False)
want("builtAt is the commit time", prov["builtAt"] == "2026-01-02T03:04:05Z")
want("environment from the prefix", prov["environment"].get("source") == "prefix")
want("prefixDigest", len(prov["environment"].get("prefixDigest", "")) == 64)
want("pythonVersion 3.11", prov["pythonVersion"] == "3.11")
want("execution hello.py", release.get("execution", {}).get("script") == "app/hello.py")
for p in problems:
    print("release:", p)
print(json.dumps(prov, indent=1))
sys.exit(1 if problems else 0)
PY
rc=$?
expect release-provenance test "$rc" -eq 0
((rc == 0)) || sed 's/^/  | /' "$tmp/release.check"

# The archive holds the interpreter, its standard library and the program.
/usr/bin/python3 - "$archive" >"$tmp/archive.check" 2>&1 <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["box.json", "payload-digest.v1", "app/hello.py", "venv/bin/python",
        "venv/lib/python3.11/os.py", "venv/lib/python3.11/json/__init__.py"]
missing = [n for n in need if n not in names]
dynload = [n for n in names if n.startswith("venv/lib/python3.11/lib-dynload/")]
print("missing:", missing, "lib-dynload entries:", len(dynload))
sys.exit(1 if missing or not dynload else 0)
PY
rc=$?
expect archive-contents test "$rc" -eq 0
((rc == 0)) || sed 's/^/  | /' "$tmp/archive.check"

# ---- verify ----------------------------------------------------------------
use_tmp_root # from here every check: nothing left in $tmproot (self-test, temporary run)
check verify 0 "$sc" verify "$release" --trust "$trust"
expect_in verify-line "$tmp/out" "ok hello-box 1.0.0 linux-x86_64-cpu"
check verify-archive 0 "$sc" verify "$release" --trust "$trust" --archive "$archive"
check verify-channel 0 "$sc" verify-document "$channel" --trust "$trust" --expect channel
check channel-serves-release 0 "$sc" channel resolve "$channel" --install-id demo-1 --trust "$trust"
expect_in channel-version "$tmp/out" "1.0.0"
check verify-self-test 0 "$sc" verify "$release" --trust "$trust" --self-test
check other-keygen 0 "$sc" --keys-dir "$tmp/other-keys" keygen
check verify-untrusted-key 1 "$sc" verify "$release" --trust "$tmp/other-keys/signing-public.json"
expect_in verify-untrusted-code "$tmp/err" "error[invalid-signature]"

# ---- prepare and run: the real CPython prints ------------------------------
prepared=$tmp/boxes/hello
check prepare 0 "$sc" prepare "$release" "$prepared" --trust "$trust"
expect prepared-interpreter test -x "$prepared/venv/bin/python"
check verify-extracted 0 "$sc" verify "$release" --trust "$trust" --extracted "$prepared"
check run-prepared 0 "$sc" run "$release" --trust "$trust" --prepared "$prepared" -- --name tester
expect_in run-greeting "$tmp/out" "hello from a box, tester!"
expect_in run-python "$tmp/out" "python 3.11."
expect_in run-own-interpreter "$tmp/out" "at $prepared/venv/bin/python"
expect_in run-arguments "$tmp/out" 'arguments ["--name", "world", "--name", "tester"]'
check run-archive 0 "$sc" run "$release" --trust "$trust" -- --name archive
expect_in run-archive-greeting "$tmp/out" "hello from a box, archive!"
expect_in run-archive-default-args "$tmp/out" 'arguments ["--name", "world", "--name", "archive"]'
check run-default-args 0 "$sc" run "$release" --trust "$trust" --prepared "$prepared"
expect_in run-default-greeting "$tmp/out" "hello from a box, world!"

# A prepared box moved elsewhere still runs: its interpreter finds its prefix.
mv "$prepared" "$tmp/moved"
check run-moved 0 "$sc" run "$release" --trust "$trust" --prepared "$tmp/moved" -- --name moved
expect_in run-moved-greeting "$tmp/out" "hello from a box, moved!"
expect_in run-moved-interpreter "$tmp/out" "at $tmp/moved/venv/bin/python"

# A changed program is caught.
printf 'print("tampered")\n' >"$tmp/moved/app/hello.py"
check verify-tampered 1 "$sc" verify "$release" --trust "$trust" --extracted "$tmp/moved"
expect_in verify-tampered-code "$tmp/err" "error[payload-mismatch]"

# ---- rebuild: byte-identical -----------------------------------------------
# Another build and dist directory, a copy of the prefix at another path,
# another time zone, locale and umask.
cp -a "$prefix" "$tmp/prefix-copy"
(
    export TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 LANG=C.UTF-8
    umask 077
    build rebuild "$tmp/build2" "$tmp/dist2" "$tmp/prefix-copy"
    echo "$passed $failed" >"$tmp/counts"
)
read -r passed failed <"$tmp/counts"
object2=$tmp/dist2/boxes/hello-box/1.0.0/linux-x86_64-cpu
expect rebuild-same-archive cmp -s "$archive" "$object2/$(basename "$archive")"
expect rebuild-same-release cmp -s "$release" "$object2/$(basename "$release")"
expect rebuild-same-channel cmp -s "$channel" "$tmp/dist2/channels/hello-box/beta/linux-x86_64-cpu.json"

# ---- from the lock: the same interpreter as a real conda package ------------
# fixtures/python_package.py packs the prefix with cph and writes a lock naming
# it (and a wheel) under a fake URL; --channel-mirror points that URL at the
# channel directory.  The box is built with no prefix and no pixi, verified,
# prepared and run; the wheel is importable from the interpreter (Debian's
# CPython reads dist-packages: the package's .pth bridges to site-packages);
# a second build with a cold cache, another TZ, locale and umask gives the
# same archive.
if command -v cph >/dev/null; then
    fake=https://conda.example.invalid/demo
    whl=$(/usr/bin/python3 "$src/fixtures/wheelgen.py" "$tmp" pure --name hello-extra --version 1.0)
    sd=$ws/scrolls/$ref
    printf '[workspace]\nname = "hello-box"\nplatforms = ["linux-64"]\n' >"$sd/pixi.toml"
    check python-package 0 /usr/bin/python3 "$src/fixtures/python_package.py" "$prefix" \
        "$tmp/channel" --lock "$sd/pixi.lock" --base-url "$fake" --wheel "$whl"
    git -C "$ws" add -A && git -C "$ws" commit -q -m "the lock" >/dev/null 2>&1
    lock_build() { # NAME BUILD_DIR DIST_DIR CACHE
        check "$1" 0 env SCROLLCASE_CACHE="$4" "$sc" --project-root "$ws" --keys-dir "$keys" \
            --build-dir "$2" --out-dir "$3" build "$ref" --channel-mirror "$fake=$tmp/channel"
    }
    lock_build lock-build "$tmp/build3" "$tmp/dist3" "$tmp/cache3"
    object3=$tmp/dist3/boxes/hello-box/1.0.0/linux-x86_64-cpu
    lrelease=$(find "$object3" -name '*.release.json' | head -n1)
    larchive=$(find "$object3" -name '*.zip' | head -n1)
    /usr/bin/python3 - "${lrelease:-/nonexistent}" "$sd/pixi.lock" >"$tmp/lock.check" 2>&1 <<'PY'
import base64, hashlib, json, sys
release = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payloadBase64"]))
e = release["provenance"]["environment"]
lock = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
ok = e.get("source") == "lock" and e.get("lockSha256") == lock and \
    e.get("installer", "").startswith("scrollcase ")
print(json.dumps(e))
sys.exit(0 if ok else 1)
PY
    rc=$?
    expect lock-release-provenance test "$rc" -eq 0
    ((rc == 0)) || sed 's/^/  | /' "$tmp/lock.check"
    check lock-verify-self-test 0 "$sc" verify "$lrelease" --trust "$trust" --self-test
    check lock-prepare 0 "$sc" prepare "$lrelease" "$tmp/lock-box" --trust "$trust"
    check lock-conda-meta 0 test -f "$tmp/lock-box/venv/conda-meta/python-3.11.2-debian12_0.json"
    check lock-run 0 "$sc" run "$lrelease" --trust "$trust" --prepared "$tmp/lock-box" -- --name lock
    expect_in lock-run-greeting "$tmp/out" "hello from a box, lock!"
    expect_in lock-run-own-interpreter "$tmp/out" "at $tmp/lock-box/venv/bin/python"
    check lock-wheel-importable 0 "$tmp/lock-box/venv/bin/python" -c \
        'import hello_extra, sys; assert hello_extra.__file__.startswith(sys.prefix + "/lib/python3.11/site-packages/"), hello_extra.__file__'
    (
        export TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 LANG=C.UTF-8
        umask 077
        lock_build lock-rebuild "$tmp/build4" "$tmp/dist4" "$tmp/cache4"
        echo "$passed $failed" >"$tmp/counts"
    )
    read -r passed failed <"$tmp/counts"
    expect lock-rebuild-same-archive cmp -s "${larchive:-/nonexistent}" \
        "$tmp/dist4/boxes/hello-box/1.0.0/linux-x86_64-cpu/$(basename "${larchive:-x}")"
else
    echo "note: cph (conda-package-handling) is not installed: the build from the lock is not tested"
fi

finish
