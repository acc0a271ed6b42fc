#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# lock_install_cli_test.sh SCROLLCASE SOURCE_DIR — the native lock installer
# end to end (format-v3 20.2 "From the lock"; `scrollcase env-install` and
# `scrollcase build` without a prefix).  A channel of real packages
# (fixtures/lockinstall.py: cph-made .conda and .tar.bz2 from
# fixtures/condapkg.py, wheels from fixtures/wheelgen.py) is served by
# fixtures/http_server.py on 127.0.0.1, named by v7 and v6 locks under a
# fake host that --channel-mirror points at the server.  Checked: the
# installed tree (conda-meta, clobber winner, noarch entry point, wheel,
# link-script note); the same bytes from v6 and v7, with 1 or 4 jobs, a cold,
# warm or partly filled cache, another TZ, locale and umask; --offline; a
# file:// lock and --channel-dir with no server; every refusal before any
# request; a download cut short resumed with a Range request; a wrong sha256
# and a package for another subdir leaving no
# directory; an install killed mid-download leaving none, and one ended by
# SIGINT, SIGTERM or SIGHUP while linking leaving neither sibling; a build from the
# lock recording provenance {source: lock}.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

py=/usr/bin/python3
if ! "$py" -c 'import zstandard' 2>/dev/null || ! command -v cph >/dev/null || ! command -v git >/dev/null; then
    echo "SKIP: python3-zstandard, cph (conda-package-handling) and git are needed"
    exit 0
fi

fake=https://conda.example.invalid/chan
fx=$tmp/fx
mkdir -p "$fx"
"$py" "$src/fixtures/lockinstall.py" "$fx" "$fake" || {
    echo "FAIL fixtures: lockinstall.py"
    exit 1
}

"$py" "$src/fixtures/http_server.py" "$fx/channel" "$tmp/http.log" >"$tmp/port" &
server_pid=$!
for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.1; done
port=$(head -n1 "$tmp/port")
base=http://127.0.0.1:$port
requests() { wc -l <"$tmp/http.log"; }
mirror=(--channel-mirror "$fake=$base")

# ---- a workspace whose scroll is the lock under test -----------------------------
ws=$tmp/ws
sd=$ws/scrolls/lock-box/linux-x86_64-cpu
mkdir -p "$sd"
cat >"$sd/scroll.json" <<'SCROLL'
{
  "schemaVersion": 3,
  "boxId": "lock-box",
  "modelId": "lock",
  "runtimeId": "cpython",
  "version": "1.0.0",
  "sourceRevision": "test",
  "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
  "pythonVersion": "3.11",
  "pixiVersion": "0.40.0",
  "assetBaseUrl": "https://boxes.example.test/",
  "selfTest": {"imports": ["json"]}
}
SCROLL
printf '[workspace]\nname = "lock-box"\n' >"$sd/pixi.toml"
printf '.scrollcase/\n' >"$ws/.gitignore"
use_lock() { cp "$1" "$sd/pixi.lock"; }
use_lock "$fx/v7.lock"
git -C "$ws" init -q
git -C "$ws" add -A
git -C "$ws" -c user.name=t -c user.email=t@t commit -q -m scroll
cd "$ws" || exit 1
export SCROLLCASE_CACHE=$tmp/cache

# A digest of a tree: every path, its kind, mode, bytes or link target.
tree_digest() { # DIR
    "$py" - "$1" <<'PY'
import hashlib, os, stat, sys
root = sys.argv[1]
h = hashlib.sha256()
for d, dirs, files in os.walk(root):
    dirs.sort()
    for n in sorted(dirs + files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, root)
        if stat.S_ISLNK(st.st_mode):
            h.update(b"L %s %s\n" % (rel.encode(), os.readlink(p).encode()))
        elif stat.S_ISDIR(st.st_mode):
            h.update(b"D %s %o\n" % (rel.encode(), stat.S_IMODE(st.st_mode)))
        else:
            with open(p, "rb") as f:
                h.update(b"F %s %o %s\n" % (rel.encode(), stat.S_IMODE(st.st_mode),
                                             hashlib.sha256(f.read()).hexdigest().encode()))
print(h.hexdigest())
PY
}
# no directory, staging or scratch directory left at DIR
nothing_at() { # DIR
    local parent base
    parent=$(dirname "$1") base=$(basename "$1")
    [[ ! -e $1 && ! -e $parent/.$base.scrollcase-staging && ! -e $parent/.$base.scrollcase-packages ]]
}

# ---- a cold install over HTTP through the mirror ---------------------------------
check install-cold 0 "$sc" env-install lock-box/linux-x86_64-cpu --into "$tmp/e1" "${mirror[@]}" --jobs 1
# the steps count packages, not files (sc_progress_event.unit), on the one line
# each leaves: 10 fetched, 8 extracted (the conda packages), 10 linked
expect_in install-cold-download-line "$tmp/err" "scrollcase: download: 10 packages, "
expect_in install-cold-extract-line "$tmp/err" "scrollcase: extract: 8 packages, "
expect_in install-cold-link-line "$tmp/err" "scrollcase: link: 10 packages in "
expect_in install-summary "$tmp/out" "Installed 8 conda packages and 2 wheels"
expect install-fetched-every-package test "$(requests)" -eq 10
expect_in install-link-script-note "$tmp/err" "hooks-1.0-0 has pre/post-link scripts; they were not run"
expect install-link-script-not-run test ! -e "$tmp/e1/hooks-ran"
expect install-link-script-kept test -x "$tmp/e1/bin/.hooks-post-link.sh"
expect_in install-clobber-note "$tmp/err" "share/clob.txt is written by clob-a-1.0-0 and by clob-c-1.0-0"
expect_in clobber-winner-is-last-in-dependency-order "$tmp/e1/share/clob.txt" "from clob-c"
expect_in conda-meta-canonical "$tmp/e1/conda-meta/good-1.0-0.json" '"name": "good"'
expect_in conda-meta-licence-from-lock "$tmp/e1/conda-meta/legacy-1.0-0.json" '"license": "BSD-3-Clause"'
expect_in conda-meta-licence-from-index "$tmp/e1/conda-meta/good-1.0-0.json" '"license": "MIT"'
expect noarch-python-into-site-packages test -f "$tmp/e1/lib/python3.11/site-packages/npkg/__init__.py"
expect_in entry-point-relocatable "$tmp/e1/bin/ntool" "'''exec' \"\$(CDPATH= cd -- \"\$(dirname -- \"\$0\")\" && pwd)/python\""
expect wheel-installed test -f "$tmp/e1/lib/python3.11/site-packages/demo_pkg-1.0.dist-info/RECORD"
expect placeholder-kept grep -q /opt/anaconda1anaconda2anaconda3 "$tmp/e1/etc/good.conf"
expect no-build-path-in-tree bash -c "! grep -rqF -- '$tmp' '$tmp/e1'"
# the interpreter stand-in is the host's python3: site-packages comes by PYTHONPATH
check entry-point-runs 0 env PYTHONPATH="$tmp/e1/lib/python3.11/site-packages" "$tmp/e1/bin/ntool"
expect_in entry-point-output "$tmp/out" "npkg main"
d1=$(tree_digest "$tmp/e1")

# ---- determinism: warm cache, 4 jobs, another TZ/locale/umask; partly filled; v6 --
: >"$tmp/http.log"
check install-warm 0 env TZ=Asia/Kolkata LC_ALL=C.UTF-8 bash -c \
    'umask 077; exec "$@"' _ "$sc" env-install lock-box/linux-x86_64-cpu --into "$tmp/e2" "${mirror[@]}" --jobs 4
expect warm-cache-no-request test "$(requests)" -eq 0
expect same-bytes-warm-4-jobs-tz-locale-umask test "$(tree_digest "$tmp/e2")" = "$d1"
ls "$SCROLLCASE_CACHE" | sort | awk 'NR % 2 == 0' | while read -r f; do rm -f "$SCROLLCASE_CACHE/$f"; done
: >"$tmp/http.log"
check install-partly-cached 0 "$sc" env-install --into "$tmp/e3" "${mirror[@]}" --jobs 3
expect partly-cached-fetched-only-missing test "$(requests)" -eq 5
expect same-bytes-partly-cached test "$(tree_digest "$tmp/e3")" = "$d1"
use_lock "$fx/v6.lock"
rm -rf "$SCROLLCASE_CACHE"
check install-v6 0 "$sc" env-install --into "$tmp/e4" "${mirror[@]}"
expect same-bytes-v6-lock test "$(tree_digest "$tmp/e4")" = "$d1"
use_lock "$fx/v7.lock"

check into-with-trailing-slash 0 "$sc" env-install --into "$tmp/e10/" --offline
expect same-bytes-into-with-trailing-slash test "$(tree_digest "$tmp/e10")" = "$d1"

# ---- offline ----------------------------------------------------------------------
check offline-warm 0 "$sc" env-install --into "$tmp/e5" --offline
expect same-bytes-offline test "$(tree_digest "$tmp/e5")" = "$d1"
: >"$tmp/http.log"
check offline-cold 1 env SCROLLCASE_CACHE="$tmp/empty-cache" "$sc" env-install --into "$tmp/e6" --offline "${mirror[@]}"
expect_in offline-cold-code "$tmp/err" "error[asset-not-cached]"
expect_in offline-cold-names-package "$tmp/err" "clob-a-1.0-0"
expect offline-cold-no-request test "$(requests)" -eq 0
expect offline-cold-leaves-nothing nothing_at "$tmp/e6"

# ---- file:// URLs and a local channel directory, no server involved --------------
use_lock "$fx/file.lock"
check file-urls 0 env SCROLLCASE_CACHE="$tmp/cache-file" "$sc" env-install --into "$tmp/e7"
expect same-bytes-file-urls test "$(tree_digest "$tmp/e7")" = "$d1"
use_lock "$fx/v7.lock"
: >"$tmp/http.log"
check channel-dir 0 env SCROLLCASE_CACHE="$tmp/cache-dir" "$sc" env-install --into "$tmp/e8" --channel-dir "$fx/channel" --offline
expect channel-dir-no-request test "$(requests)" -eq 0
expect same-bytes-channel-dir test "$(tree_digest "$tmp/e8")" = "$d1"
check mirror-to-directory 0 env SCROLLCASE_CACHE="$tmp/cache-mdir" "$sc" env-install --into "$tmp/e9" --channel-mirror "$fake=$fx/channel"
expect same-bytes-mirror-to-directory test "$(tree_digest "$tmp/e9")" = "$d1"

# ---- refusals: before any request, nothing left -----------------------------------
refusal() { # WHY CODE TEXT
    use_lock "$fx/refuse-$1.lock"
    : >"$tmp/http.log"
    check "refuse-$1" 1 env SCROLLCASE_CACHE="$tmp/cache-refuse" "$sc" env-install --into "$tmp/r" "${mirror[@]}"
    expect_in "refuse-$1-code" "$tmp/err" "error[$2]"
    expect_in "refuse-$1-names-it" "$tmp/err" "$3"
    expect "refuse-$1-before-download" test "$(requests)" -eq 0
    expect "refuse-$1-leaves-nothing" nothing_at "$tmp/r"
}
refusal sdist unsupported-lock-package "pillow 9.0.1"
refusal git unsupported-lock-package "git checkout"
refusal path unsupported-lock-package "mypkg"
refusal editable unsupported-lock-package "editable"
refusal conda-source unsupported-lock-package "conda_source"
refusal no-sha256 unsupported-lock-package "nosha"
refusal no-platform lock-platform-missing "linux-64"
refusal wheel-platform wheel-incompatible "fast"

# ---- hostile bytes: nothing left --------------------------------------------------
use_lock "$fx/bad-sha256.lock"
check wrong-sha256 1 env SCROLLCASE_CACHE="$tmp/cache-bad" "$sc" env-install --into "$tmp/b1" "${mirror[@]}"
expect_in wrong-sha256-code "$tmp/err" "error[asset-hash]"
expect wrong-sha256-leaves-nothing nothing_at "$tmp/b1"
expect wrong-sha256-only-python-cached test "$(ls "$tmp/cache-bad" | wc -l)" -eq 1
use_lock "$fx/drop.lock"
: >"$tmp/http.log"
check truncated-download-resumed 0 env SCROLLCASE_CACHE="$tmp/cache-drop" "$sc" env-install --into "$tmp/b3" "${mirror[@]}"
expect_in truncated-download-range-request "$tmp/http.log" '"range": "bytes=300-"'
expect truncated-download-installed test -f "$tmp/b3/share/good/README"
use_lock "$fx/subdir.lock"
check other-subdir 1 env SCROLLCASE_CACHE="$tmp/cache-bad" "$sc" env-install --into "$tmp/b2" "${mirror[@]}"
expect_in other-subdir-code "$tmp/err" "error[package-subdir]"
expect other-subdir-leaves-nothing nothing_at "$tmp/b2"
use_lock "$fx/v7.lock"

# ---- interrupted: a server that accepts and never answers, the installer killed --
"$py" -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept())' >"$tmp/mute.port" &
mute_pid=$!
for _ in $(seq 100); do [[ -s $tmp/mute.port ]] && break; sleep 0.1; done
mute=http://127.0.0.1:$(head -n1 "$tmp/mute.port")
SCROLLCASE_CACHE=$tmp/cache-kill "$sc" env-install --into "$tmp/k1" --channel-mirror "$fake=$mute" \
    --channel-dir "$fx/channel/linux-64" >/dev/null 2>&1 &
victim=$!
sleep 2
kill -TERM "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
kill "$mute_pid" 2>/dev/null
expect interrupted-leaves-no-environment test ! -e "$tmp/k1"
mkdir -p "$tmp/.k1.scrollcase-staging/bin" "$tmp/.k1.scrollcase-packages/0"
check rerun-after-interruption 0 "$sc" env-install --into "$tmp/k1" "${mirror[@]}"
expect rerun-same-bytes test "$(tree_digest "$tmp/k1")" = "$d1"
expect rerun-no-leftover-staging test ! -e "$tmp/.k1.scrollcase-staging"
expect rerun-no-leftover-scratch test ! -e "$tmp/.k1.scrollcase-packages"

# ---- interrupted while linking: SIGINT, SIGTERM and SIGHUP, held at the moment the
# staging directory is registered (cleanup.h's SCROLLCASE_TEST_HOLD), when every
# package is extracted into the scratch sibling: the command ends by the signal and
# neither sibling nor the environment is left
for sig in INT TERM HUP; do
    mkdir -p "$tmp/sig-$sig"
    check "interrupted-linking-$sig" 0 "$py" - "$sc" "$tmp/sig-$sig/env" "$sig" "$base" "$fake" <<'PY'
import os, signal, socket, subprocess, sys
sc, into, name, base, fake = sys.argv[1:]
sig = getattr(signal, "SIG" + name)
ours, theirs = socket.socketpair()
env = dict(os.environ, SCROLLCASE_TEST_HOLD="scrollcase-staging:%d" % theirs.fileno())
p = subprocess.Popen([sc, "env-install", "--into", into, "--channel-mirror", fake + "=" + base],
                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     pass_fds=(theirs.fileno(),))
theirs.close()
ours.settimeout(120)
where = b""
while not where.endswith(b"\n"):
    got = ours.recv(4096)
    if not got:
        break
    where += got
if not where.endswith(b"\n"):
    p.kill()
    sys.exit("never held at the staging directory: %r" % p.communicate()[1][-300:])
parent = os.path.dirname(into)
held = sorted(os.listdir(parent))
p.send_signal(sig)
ours.sendall(b"go")
_, err = p.communicate(timeout=120)
if ".env.scrollcase-packages" not in held:
    sys.exit("the scratch directory did not exist while held: %s" % held)
if p.returncode != -sig:
    sys.exit("exit %s, not by SIG%s: %s" % (p.returncode, name, err.decode()[-300:]))
left = os.listdir(parent)
if left:
    sys.exit("left after SIG%s: %s" % (name, left))
PY
done

# ---- usage ------------------------------------------------------------------------
check usage-no-into 2 "$sc" env-install
check usage-bad-mirror 2 "$sc" env-install --into "$tmp/u" --channel-mirror nonsense
check usage-existing-into 1 "$sc" env-install --into "$tmp/e1"
expect_in usage-existing-into-code "$tmp/err" "error[existing-destination]"
check json-ok 0 "$sc" env-install --into "$tmp/j1" --offline --json --progress-fd 3 3>"$tmp/events"
# progress events: download, extract, link in that order, each from 0 to a finished
# event whose packages done are the plan's (10 fetched, 8 extracted, 10 linked)
"$py" - "$tmp/events" >"$tmp/events.check" 2>&1 <<'PY'
import json, sys
steps, last = [], {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") != "progress":
        continue
    if not steps or steps[-1] != e["step"]:
        steps.append(e["step"])
    if e["finished"]:
        last[e["step"]] = (e["filesDone"], e["filesTotal"])
print(steps, last)
ok = steps == ["download", "extract", "link"] and last == {
    "download": (10, 10), "extract": (8, 8), "link": (10, 10)}
sys.exit(0 if ok else 1)
PY
rc=$?
expect progress-events-in-order test "$rc" -eq 0
((rc == 0)) || sed 's/^/  | /' "$tmp/events.check"
expect_in json-ok-installer "$tmp/out" '"installer": "scrollcase '
expect_in json-ok-link-scripts "$tmp/out" '"hooks-1.0-0"'

# ---- a build from the lock: the default road ---------------------------------------
check keygen 0 "$sc" keygen
use_lock "$fx/refuse-wheel-platform.lock"
check refuse-build-before-git 1 "$sc" build lock-box/linux-x86_64-cpu "${mirror[@]}"
expect_in refuse-build-code "$tmp/err" "error[wheel-incompatible]"
expect refuse-build-nothing-built test ! -e "$ws/.scrollcase/build/lock-box"
use_lock "$fx/v7.lock"
check build-from-lock 0 "$sc" build lock-box/linux-x86_64-cpu "${mirror[@]}" --json
release=$(find "$ws/.scrollcase/dist" -name '*.release.json' | head -n1)
"$py" - "$release" "$sd/pixi.lock" >"$tmp/prov" <<'PY'
import base64, hashlib, json, sys
env = json.load(open(sys.argv[1]))
doc = json.loads(base64.b64decode(env["payloadBase64"]))
e = doc["provenance"]["environment"]
lock = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
print(e["source"], e["lockSha256"] == lock, e["installer"].startswith("scrollcase "), sorted(e))
PY
expect_in build-provenance-lock "$tmp/prov" "lock True True ['installer', 'lockSha256', 'source']"
box_venv=$(find "$ws/.scrollcase/build" -type d -name venv | head -n1)
expect same-bytes-in-the-box test "$(tree_digest "${box_venv:-$tmp/none}")" = "$d1"
check build-verifies 0 "$sc" verify "$release" --trust "$ws/.scrollcase/keys/signing-public.json" --self-test
check build-pixi-options-not-with-the-native-road 2 "$sc" build lock-box/linux-x86_64-cpu --environment-from lock --pixi /bin/true
check build-pixi-option-chooses-the-pixi-road 1 "$sc" build lock-box/linux-x86_64-cpu --pixi "$tmp/no-pixi"
expect_in build-pixi-road-looks-for-pixi "$tmp/err" "error[tool-missing]"
check build-prefix-and-road 2 "$sc" build lock-box/linux-x86_64-cpu --environment-prefix "$tmp" --environment-from lock

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
