#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gpu_ci_test.sh MODE SOURCE_DIR BUILD_DIR WORK_DIR — ci/gpu and ci/gpu-bundle
# on a host without a GPU (on a GPU host ci/gpu itself is the check: skipped):
#   checkout  ci/gpu with this build's programs: exit 0, every GPU step
#             skipped visibly with the probe's reason, the other steps run,
#             the evidence folder holds what they wrote; a failing step
#             (a probe that answers nonsense) makes it exit 1
#   bundle    ci/gpu-bundle packs this build within 64 MiB with every library
#             resolved inside the bundle; ci/gpu --bundle runs from the
#             .tar.gz with LD_LIBRARY_PATH cleared, with the same skips
# Exit 77 = skipped, with the reason on stdout.  Prints "N passed, N failed".
set -u
mode=$1 src=$2 build=$3 work=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in, expect_not_in
sc=$build/core/scrollcase
gpu_steps=(ctest-gpu workload-cuda box verify compat prepare run)

finish() {
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit $?
}

if "$sc" gpu probe >/dev/null 2>&1; then
    echo "SKIP: this host has a usable GPU; run ci/gpu itself there"
    exit 77
fi
mkdir -p "$work"
rc=0
prefix=$(bash "$src/fixtures/debian_prefix.sh" "$work/debian-prefix" 2>"$tmp/prefix.err") || rc=$?
if ((rc == 3)); then
    echo "SKIP: no CPython prefix from Debian's packages can be made here: $(tail -n 1 "$tmp/prefix.err")"
    exit 77
fi
((rc == 0)) || { echo "FAIL prefix"; cat "$tmp/prefix.err"; exit 1; }
reason=$("$sc" gpu probe --json 2>/dev/null | /usr/bin/python3 -c \
    'import json,sys; d=json.load(sys.stdin); g=d.get("gpu", d); print("gpu probe: %s, %s" % (g["status"], g["reason"]))')

# evidence NAME DIR PROGRAMS: what a GPU-less run leaves behind.
evidence() {
    local name=$1 ev=$2 programs=$3
    for s in "${gpu_steps[@]}"; do
        expect_in "$name-skip-$s" "$tmp/out" "---- ci/gpu: $s: skipped (no usable GPU: $reason)"
    done
    for s in probe doctor scroll workload-refusal; do
        expect_in "$name-ran-$s" "$tmp/out" "---- ci/gpu: $s: ok"
    done
    for f in probe.json doctor.json audit-cuda.json summary.json timings.json ci-gpu.log; do
        expect "$name-evidence-$f" test -s "$ev/$f"
    done
    /usr/bin/python3 - "$ev" "$programs" "${gpu_steps[@]}" >"$tmp/summary.check" 2>&1 <<'PY'
import json, os, sys
ev, programs, gpu_steps = sys.argv[1], sys.argv[2], sys.argv[3:]
s = json.load(open(os.path.join(ev, "summary.json")))
t = json.load(open(os.path.join(ev, "timings.json")))
p = json.load(open(os.path.join(ev, "probe.json")))
problems = []
def want(what, ok):
    if not ok:
        problems.append(what)
want("ok", s["ok"] is True)
want("no gpu", s["gpu"]["available"] is False and s["gpu"]["reason"].startswith("gpu probe: "))
want("programs " + programs, s["programs"] == programs)
steps = {x["name"]: x for x in s["steps"]}
for name in gpu_steps:
    want(name + " skipped", steps[name]["status"] == "skipped" and steps[name]["kind"] == "gpu")
for name in ("probe", "doctor", "scroll", "workload-refusal", "workload-cpu"):
    want(name + " not failed", steps[name]["status"] in ("ok", "skipped"))
want("timings of every step", sorted(t) == sorted(steps))
want("probe absent", p["status"] in ("absent", "unprobed"))
if steps["workload-cpu"]["status"] == "ok":
    v = json.load(open(os.path.join(ev, "workload-cpu.json")))
    want("cpu vector", v["accelerator"] == "cpu" and len(v["values"]) == 4096)
for x in problems:
    print("summary:", x)
sys.exit(1 if problems else 0)
PY
    local rc=$?
    expect "$name-summary" test "$rc" -eq 0
    ((rc == 0)) || sed 's/^/  | /' "$tmp/summary.check"
}

case $mode in
checkout)
    check ci-gpu 0 bash "$src/ci/gpu" --build-dir "$build" --evidence "$tmp/ev" --python-prefix "$prefix"
    evidence checkout "$tmp/ev" checkout
    # Any failing step fails the run: here the probe answers nonsense.
    mkdir -p "$tmp/fake/core"
    printf '#!/bin/sh\nif [ "$1" = gpu ]; then echo "not json"; exit 0; fi\nexec "%s" "$@"\n' "$sc" \
        >"$tmp/fake/core/scrollcase"
    chmod +x "$tmp/fake/core/scrollcase"
    check ci-gpu-failing-step 1 bash "$src/ci/gpu" --build-dir "$tmp/fake" --evidence "$tmp/ev-bad" \
        --python-prefix "$prefix"
    expect_in failing-step-line "$tmp/out" "---- ci/gpu: probe: failed"
    expect_in failing-step-count "$tmp/out" "ci/gpu: 1 step(s) failed"
    expect_in failing-step-summary "$tmp/ev-bad/summary.json" '"ok": false'
    check usage 2 bash "$src/ci/gpu" --bundle x --build-dir y
    finish ;;
bundle)
    check gpu-bundle 0 bash "$src/ci/gpu-bundle" --build-dir "$build" --python-prefix "$prefix" "$tmp/bundle"
    cat "$tmp/err"
    expect bundle-tarball test -s "$tmp/bundle.tar.gz"
    expect bundle-within-64MiB test "$(stat -c %s "$tmp/bundle.tar.gz")" -le $((64 * 1024 * 1024))
    expect bundle-manifest test -s "$tmp/bundle/BUNDLE.json"
    expect bundle-python test -x "$tmp/bundle/python/bin/python"
    # The programs load the bundle's libraries, not this host's.
    check bundle-libraries 0 /lib64/ld-linux-x86-64.so.2 --list --library-path "$tmp/bundle/lib" \
        "$tmp/bundle/libexec/scrollcase"
    expect_in bundle-sodium "$tmp/out" "libsodium.so.23 => $tmp/bundle/lib/libsodium.so.23"
    # libcurl and libarchive are loaded on first use (dlopen), not linked:
    expect_not_in bundle-curl-not-linked "$tmp/out" "libcurl"
    expect bundle-curl test -f "$tmp/bundle/lib/libcurl.so.4"
    expect bundle-archive test -f "$tmp/bundle/lib/libarchive.so.13"
    check bundle-curl-libraries 0 /lib64/ld-linux-x86-64.so.2 --list --library-path "$tmp/bundle/lib" \
        "$tmp/bundle/lib/libcurl.so.4"
    expect_in bundle-curl-nghttp2 "$tmp/out" "libnghttp2.so.14 => $tmp/bundle/lib/libnghttp2.so.14"
    check bundle-starts 0 env -u LD_LIBRARY_PATH "$tmp/bundle/bin/scrollcase" help
    # ... and the bundled scrollcase, downloading, loads the bundle's libcurl:
    # an install from a loopback server that answers 404 (not retried).
    mkdir -p "$tmp/www"
    /usr/bin/python3 "$src/fixtures/http_server.py" "$tmp/www" "$tmp/http.log" >"$tmp/port" &
    server=$!
    for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.1; done
    trust=$(ls "$src"/golden/consumer/*/trust.json | head -n1)
    rm -f "$tmp"/ld.*
    check bundle-download 1 env -u LD_LIBRARY_PATH LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld" \
        "$tmp/bundle/bin/scrollcase" install "http://127.0.0.1:$(head -n1 "$tmp/port")/none.json" \
        "$tmp/installed" --trust "$trust"
    kill "$server" 2>/dev/null
    expect_in bundle-download-code "$tmp/err" "error[download-failed]"
    cat "$tmp"/ld.* >"$tmp/loaded" 2>/dev/null
    # (the launcher's --library-path is $here/../lib)
    expect_in bundle-download-loads-its-curl "$tmp/loaded" "calling init: $tmp/bundle/bin/../lib/libcurl.so.4"
    mv "$tmp/bundle" "$tmp/bundle-unpacked-copy" # ci/gpu must use the tarball
    check ci-gpu-bundle 0 env -u LD_LIBRARY_PATH bash "$src/ci/gpu" --bundle "$tmp/bundle.tar.gz" \
        --evidence "$tmp/ev"
    evidence bundle "$tmp/ev" bundle
    expect_in bundle-programs "$tmp/ev/ci-gpu.log" "programs from the bundle"
    finish ;;
*)
    echo "unknown mode $mode"; exit 2 ;;
esac
