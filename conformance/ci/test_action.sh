#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_action.sh RELEASE_DIR — ctest conformance/action: run the GitHub
# Action's script (conformance/ci/action.sh) the way action.yml does, against
# the example Python adapter: building the runner, downloading a release
# (file:// URL of RELEASE_DIR, made by conformance/release), shards, an
# adapter path with a space, --allow-empty, reports and annotations.
set -euo pipefail
rel=${1:?usage: test_action.sh RELEASE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$(tr -d ' \n' <"$root/conformance/VERSION")
fail() { echo "FAIL: $*" >&2; exit 1; }
t=$(mktemp -d "${TMPDIR:-/tmp}/sc-action-test-XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/dir with space"
cp "$root/conformance/examples/python/adapter.py" "$t/dir with space/adapter.py"

act() { # NAME [VAR=VALUE...]: run the action's script in a clean environment
    local name=$1
    shift
    set +e
    env -i PATH="$PATH" HOME="$t" SC_WORK="$t/work" GITHUB_ACTIONS=true \
        GITHUB_OUTPUT="$t/$name.output" "$@" bash "$root/conformance/ci/action.sh" \
        >"$t/$name.out" 2>"$t/$name.err"
    rc=$?
    set -e
}

# build mode, adapter path with a space (shell-style quoting), three reports
act build SC_ADAPTER="python3 '$t/dir with space/adapter.py'" SC_AREAS="target,json" \
    SC_REPORT_JSON="$t/r/report.json" SC_REPORT_JUNIT="$t/r/junit.xml" SC_REPORT_TAP="$t/r/r.tap" \
    SC_REPORT_HTML="$t/r/page/report.html"
[ "$rc" -eq 0 ] || { cat "$t/build.out" "$t/build.err" >&2; fail "build mode: exit $rc"; }
grep -q '^exit-status=0$' "$t/build.output" || fail "no exit-status output"
n=$(($(ls -d "$root"/golden/target/*/ | wc -l) + $(ls -d "$root"/golden/json/*/ | wc -l)))
grep -q "^::notice title=scrollcase conformance::$n passed, 0 failed, 0 skipped\$" "$t/build.out" ||
    fail "no summary annotation: $(tail -3 "$t/build.out")"
for f in report.json junit.xml r.tap page/report.html; do [ -s "$t/r/$f" ] || fail "report $f missing"; done
grep -q 'id="sc-data"' "$t/r/page/report.html" || fail "report.html is not the report page"
python3 - "$t/r/report.json" "$t/dir with space/adapter.py" "$n" <<'PY' || fail "report content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["adapter"]["command"] == ["python3", sys.argv[2]], d["adapter"]["command"]
assert d["adapter"]["mode"] == "persistent"
assert d["summary"]["passed"] == int(sys.argv[3]) and d["summary"]["failed"] == 0
PY

# failures become annotations and a failing exit status
printf '#!/bin/sh\n[ "$1" = --hello ] && exec python3 %s --hello\necho "{\\"error\\": \\"invalid-json\\"}"; exit 1\n' \
    "'$root/conformance/examples/python/adapter.py'" >"$t/wrong.sh"
act wrong SC_ADAPTER="sh $t/wrong.sh" SC_AREAS=target SC_RUNNER="$t/work/scrollcase-conformance/build/scrollcase-conform" \
    SC_CORPUS="$root/golden"
[ "$rc" -eq 1 ] || fail "a wrong adapter: exit $rc, expected 1"
grep -q '^::error file=.*golden/target/.*/case.json,title=fail target/' "$t/wrong.out" ||
    fail "no ::error annotations"

# an area the port has not started: red, unless allow-empty
act empty SC_ADAPTER="python3 $root/conformance/examples/python/adapter.py" SC_AREAS=manifest \
    SC_RUNNER="$t/work/scrollcase-conformance/build/scrollcase-conform" SC_CORPUS="$root/golden"
[ "$rc" -eq 1 ] || fail "all unsupported: exit $rc, expected 1"
act empty2 SC_ADAPTER="python3 $root/conformance/examples/python/adapter.py" SC_AREAS=manifest \
    SC_RUNNER="$t/work/scrollcase-conformance/build/scrollcase-conform" SC_CORPUS="$root/golden" SC_ALLOW_EMPTY=true
[ "$rc" -eq 0 ] || fail "allow-empty: exit $rc"

# download mode from the release files, two shards that add up
total=0
for i in 1 2; do
    act "shard$i" SC_ADAPTER="python3 $root/conformance/examples/python/adapter.py" \
        SC_RUNNER=download SC_RELEASE_URL="file://$rel" SC_SUITE_VERSION="$version" \
        SC_AREAS=payload SC_SHARD="$i/2" SC_REPORT_JSON="$t/s$i.json"
    [ "$rc" -eq 0 ] || { cat "$t/shard$i.out" "$t/shard$i.err" >&2; fail "download, shard $i/2: exit $rc"; }
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["passed"])' "$t/s$i.json")
    total=$((total + n))
done
want=$(ls -d "$root"/golden/payload/*/ | wc -l)
[ "$total" -eq "$want" ] || fail "shards ran $total cases, the area has $want"
# a tampered download is refused
mkdir -p "$t/bad"
cp "$rel"/* "$t/bad/"
printf 'x' >>"$t/bad/scrollcase-conformance-corpus-$version.tar.gz"
act bad SC_ADAPTER="python3 x.py" SC_RUNNER=download SC_RELEASE_URL="file://$t/bad" \
    SC_WORK="$t/work2"
[ "$rc" -eq 2 ] && grep -q "checksum mismatch" "$t/bad.err" || fail "tampered release: exit $rc"
echo "ok action"
