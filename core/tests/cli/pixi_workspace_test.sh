#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pixi_workspace_test.sh SCROLLCASE SOURCE_DIR WORK_DIR — a v2 workspace shaped
# like upstream Scrollcase's examples, end to end (issue 11):
#
#   examples/hello-pixi/scroll.json               the base (schemaVersion 2)
#   examples/hello-pixi/<target>/scroll.json      three targets: linux, macOS,
#                                                 Windows (extends ../scroll.json,
#                                                 condaDependencyLicenseAudit)
#   examples/hello-pixi/<target>/pixi.toml
#   examples/hello-pixi/<target>/pixi.lock        format 7, seeded (fixtures/lockgen.py)
#   examples/hello-pixi/<target>/conda-licenses.json   schema 2 (dependencyLockSha256)
#   examples/hello-pixi/shared/entrypoint.py
#
# Every file is generated here; nothing is copied from upstream.  The script
# migrates the box (scrolls and inventories), checks every target, runs
# `audit` (refused by name before the migration), `audit --write`, `audit`,
# `audit cuda`, builds the linux target from the Debian CPython prefix
# (fixtures/debian_prefix.sh) -- refused while the prefix has no conda-meta,
# built once a conda-meta matching the lock is laid into a copy of it --
# verifies, prepares and runs the box.
#
# Exit 77 (a skip, with the reason) when the prefix cannot be made; the steps
# before the build need no prefix and run first, so a skip is reported only
# after them.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
work=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
py=/usr/bin/python3
box=hello-pixi
linux=$box/linux-x86_64-cpu
targets="linux-x86_64-cpu macos-aarch64-metal windows-x86_64-cpu"

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

finish() {
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit $?
}

# ---- the workspace -----------------------------------------------------------
ws=$tmp/ws
ex=$ws/examples/$box
mkdir -p "$ex/shared"
cat >"$ex/shared/entrypoint.py" <<'PY'
import sys

name = sys.argv[sys.argv.index("--name") + 1] if "--name" in sys.argv else "world"
print("hello, %s, from %s" % (name, sys.executable))
PY
"$py" - "$ex" "$box" <<'PY'
import hashlib, json, sys
ex, box = sys.argv[1], sys.argv[2]
entry = open(ex + "/shared/entrypoint.py", "rb").read()
base = {
    "$schema": "https://scrollcase.dev/schema/v2/scroll.schema.json",
    "schemaVersion": 2, "scrollVersion": "1.0.0", "boxId": box, "modelId": "none",
    "runtimeId": "cpython", "version": "1.0.0", "sourceRevision": "0123456789abcdef",
    "compatibility": {"minHostAppVersion": "1.0.0", "minRamGb": 1},
    "pythonVersion": "3.11.*", "pixiVersion": "0.73.0",
    "environment": {"PYTHONDONTWRITEBYTECODE": "1"},
    "assetBaseUrl": "https://assets.example.invalid/boxes",
    "localFiles": [{"sourcePath": "examples/%s/shared/entrypoint.py" % box,
                    "relativePath": "entrypoint.py", "sha256": hashlib.sha256(entry).hexdigest()}],
    "weights": "embed",
    "selfTest": {"imports": ["json", "hashlib"], "files": ["entrypoint.py"],
                 "pythonCode": "import json\nassert json.loads('[1]') == [1]\nprint('self-test ok')\n"},
    "execution": {"kind": "python-script", "script": "entrypoint.py", "defaultArgs": []},
}
json.dump(base, open(ex + "/scroll.json", "w"), indent=2)
targets = {"linux-x86_64-cpu": ("linux", "x86_64", "cpu", "linux-64"),
           "macos-aarch64-metal": ("macos", "aarch64", "metal", "osx-arm64"),
           "windows-x86_64-cpu": ("windows", "x86_64", "cpu", "win-64")}
for tid, (plat, arch, acc, subdir) in targets.items():
    import os
    os.makedirs("%s/%s" % (ex, tid), exist_ok=True)
    frag = {"extends": "../scroll.json", "target": {"platform": plat, "arch": arch, "accelerator": acc},
            "condaDependencyLicenseAudit": "examples/%s/%s/conda-licenses.json" % (box, tid)}
    json.dump(frag, open("%s/%s/scroll.json" % (ex, tid), "w"), indent=2)
    open("%s/%s/pixi.toml" % (ex, tid), "w").write(
        "# Environment for the %s box (%s).\n\n[workspace]\nname = \"%s\"\n"
        "version = \"1.0.0\"\nchannels = [\"conda-forge\"]\nplatforms = [\"%s\"]\n\n"
        "[dependencies]\npython = \"3.11.*\"\nnumpy = \">=1.26,<3\"\n" % (box, tid, box, subdir))

PY
for t in $targets; do
    case $t in
    linux*) plat=linux-64 ;;
    macos*) plat=osx-arm64 ;;
    *) plat=win-64 ;;
    esac
    check "lockgen-$t" 0 "$py" "$src/fixtures/lockgen.py" --seed "$box" --platform "$plat" \
        --conda 180 --pypi 0 --python 3.11.9 -o "$ex/$t/pixi.lock" \
        --inventory-v2 "$ex/$t/conda-licenses.json" --target-id "$t"
done
expect lock-is-v7 test "$(head -1 "$ex/linux-x86_64-cpu/pixi.lock")" = "version: 7"
expect_in inventory-is-v2 "$ex/linux-x86_64-cpu/conda-licenses.json" '"dependencyLockSha256"'

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t \
    GIT_COMMITTER_EMAIL=t@example.invalid GIT_AUTHOR_DATE="2026-03-04T05:06:07Z" \
    GIT_COMMITTER_DATE="2026-03-04T05:06:07Z" GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
commit() {
    git -C "$ws" add -A >/dev/null 2>&1 && git -C "$ws" commit -q -m "$1" >/dev/null 2>&1
}
printf '.scrollcase/\n' >"$ws/.gitignore"
git -C "$ws" init -q >/dev/null 2>&1
expect git-commit commit v2

S=("$sc" --project-root "$ws" --scrolls-dir "$ws/examples")

# ---- before the migration: refused by name ---------------------------------
check v2-scroll-refused 1 "${S[@]}" scroll check "$linux"
expect_in v2-scroll-code "$tmp/out" "error[deprecated-schema-version]"

# ---- migrate: the scrolls and their inventories ----------------------------
cp "$ex/linux-x86_64-cpu/conda-licenses.json" "$tmp/inventory-v2.json"
check migrate-dry-run 0 "${S[@]}" migrate "$box" --dry-run --json
expect_in dry-run-lists-inventory "$tmp/out" "examples/$box/linux-x86_64-cpu/conda-licenses.json"
expect_in dry-run-wrote-nothing "$ex/linux-x86_64-cpu/conda-licenses.json" '"dependencyLockSha256"'
check migrate 0 "${S[@]}" migrate "$box"
expect_in migrate-base "$tmp/out" "migrated $ws/examples/$box/scroll.json"
for t in $targets; do
    expect_in "migrate-$t" "$tmp/out" "migrated licence inventory $ws/examples/$box/$t/conda-licenses.json"
    expect_in "inventory-$t-v3" "$ex/$t/conda-licenses.json" '"lockSha256"'
    expect_not_in "inventory-$t-renamed" "$ex/$t/conda-licenses.json" "dependencyLockSha256"
done
check migrate-again 0 "${S[@]}" migrate "$box"
expect_in migrate-idempotent "$tmp/out" "nothing to migrate"
# A schema-2 inventory beside v3 scrolls: audit refuses it by name with the
# way out, and migrate converts it alone.
cp "$tmp/inventory-v2.json" "$ex/linux-x86_64-cpu/conda-licenses.json"
check audit-v2-inventory 1 "${S[@]}" audit "$linux"
expect_in audit-v2-inventory-code "$tmp/err" "error[deprecated-schema-version]"
expect_in audit-v2-inventory-remedy "$tmp/err" "scrollcase migrate REF"
check migrate-inventory-alone 0 "${S[@]}" migrate "$linux"
expect_in migrate-inventory-alone-line "$tmp/out" "migrated licence inventory"
expect_not_in migrate-inventory-alone-scrolls "$tmp/out" "scroll.json"
expect git-commit-migrated commit migrated

# ---- scroll check ------------------------------------------------------------
for t in $targets; do
    check "scroll-check-$t" 0 "${S[@]}" scroll check "$box/$t"
done

# ---- audit: the inventories of v7 locks --------------------------------------
for t in $targets; do
    check "audit-$t" 0 "${S[@]}" audit "$box/$t"
done
check audit-write 0 "${S[@]}" audit "$linux" --write
check audit-after-write 0 "${S[@]}" audit "$linux" --json
expect_in audit-json-lock "$tmp/out" '"lockSha256"'
expect git-clean test -z "$(git -C "$ws" status --porcelain)" # --write rewrote the same bytes
for t in $targets; do
    check "audit-cuda-$t" 0 "${S[@]}" audit cuda "$box/$t"
done

# A changed lock is found by the audit, naming lockSha256.
cp "$ex/linux-x86_64-cpu/pixi.lock" "$tmp/lock.keep"
printf '# touched\n' >>"$ex/linux-x86_64-cpu/pixi.lock"
check audit-stale 1 "${S[@]}" audit "$linux"
expect_in audit-stale-names "$tmp/err" "lockSha256"
cp "$tmp/lock.keep" "$ex/linux-x86_64-cpu/pixi.lock"

# ---- build the linux target from the Debian prefix -------------------------
mkdir -p "$work"
rc=0
prefix=$(bash "$src/fixtures/debian_prefix.sh" "$work/debian-prefix" 2>"$tmp/prefix.err") || rc=$?
if ((rc == 3)); then
    echo "$passed passed before the build; SKIP the build: no CPython prefix from Debian's packages:"
    sed 's/^/  | /' "$tmp/prefix.err"
    ((failed == 0)) || finish
    exit 77
fi
if ((rc != 0)); then
    echo "FAIL prefix: fixtures/debian_prefix.sh exited $rc"
    sed 's/^/  | /' "$tmp/prefix.err"
    failed=$((failed + 1))
    finish
fi
keys=$tmp/keys
check keygen 0 "$sc" --keys-dir "$keys" keygen
trust=$keys/signing-public.json
B=("${S[@]}" --keys-dir "$keys" --build-dir "$tmp/build" --out-dir "$tmp/dist")

# The Debian prefix has no conda-meta: the lock does not describe it, so the
# licence inventory cannot ship -- refused before anything is copied.
check build-prefix-undescribed 1 "${B[@]}" build "$linux" --environment-prefix "$prefix"
expect_in build-prefix-undescribed-code "$tmp/err" "error[lock-payload-mismatch]"
expect build-left-nothing test ! -e "$tmp/build/$box-linux-x86_64-cpu"

# A copy of the prefix with the conda-meta a pixi install of this lock leaves.
cp -R "$prefix" "$tmp/prefix"
"$py" - "$ex/linux-x86_64-cpu/pixi.lock" "$tmp/prefix/conda-meta" "$src/fixtures" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[3])
import auditref
lock = auditref.read_lock(open(sys.argv[1], "rb").read())
os.makedirs(sys.argv[2], exist_ok=True)
for p in auditref.find_platform(lock, "default", "linux-64"):
    if p["kind"] != "conda":
        continue
    rec = {"name": p["name"], "version": p["version"], "build": p["build"],
           "subdir": p["subdir"], "sha256": p["sha256"], "license": p["license"]}
    with open(os.path.join(sys.argv[2], "%s-%s-%s.json" % (p["name"], p["version"], p["build"])), "w") as f:
        json.dump(rec, f, indent=2)
PY
check build 0 "${B[@]}" build "$linux" --environment-prefix "$tmp/prefix"
object=$tmp/dist/boxes/$box/1.0.0/linux-x86_64-cpu
shopt -s nullglob
releases=("$object"/*.release.json)
shopt -u nullglob
expect one-release test "${#releases[@]}" -eq 1
((${#releases[@]} == 1)) || finish
release=${releases[0]}
payload=$tmp/build/$box-linux-x86_64-cpu/payload
expect notices-shipped cmp -s "$payload/THIRD_PARTY_NOTICES/conda-distributions.json" \
    "$ex/linux-x86_64-cpu/conda-licenses.json"

# ---- verify, prepare, run ----------------------------------------------------
check verify 0 "$sc" verify "$release" --trust "$trust"
expect_in verify-line "$tmp/out" "ok $box 1.0.0 linux-x86_64-cpu"
prepared=$tmp/boxes/hello
check prepare 0 "$sc" prepare "$release" "$prepared" --trust "$trust"
check run 0 "$sc" run "$release" --trust "$trust" --prepared "$prepared" -- --name pixi
expect_in run-prints "$tmp/out" "hello, pixi, from $prepared/venv/bin/python"
finish
