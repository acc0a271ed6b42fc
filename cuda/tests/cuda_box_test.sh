#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cuda_box_test.sh MODE SCROLLCASE SOURCE_DIR WORK_DIR [GEMM] — the CUDA demo
# box (examples/workspace/scrolls/cuda-box/linux-x86_64-cuda13.0) without
# building it (building belongs to ci/gpu, on a GPU):
#   scroll   the scroll passes `scroll check` and `audit cuda`; its lock is the
#            one fixtures/cuda_box_lock.py writes from this host's toolkit
#            (skipped, with the reason, when the toolkit keeps no records)
#   cpu      the box's own Python and its CUDA libraries (a prefix of links
#            to this host's toolkit): the CPU parity run prints the same bits
#            as scrollcase-parity-gemm's CPU run; every CUDA run -- parity,
#            self-test, the program -- on a host without a usable device
#            refuses with accelerator-unavailable and prints no values
#   gpu      (GPU hosts only) the self-test passes, the box's cpu and cuda
#            parity runs agree within the scroll's tolerances under
#            `scrollcase parity compare`, and the box's cuda values agree
#            with scrollcase-parity-gemm's
# Exit 77 = skipped, with the reason on stdout.  Prints "N passed, N failed".
set -u
mode=$1 sc=$2 src=$3 work=$4 gemm=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ws=$src/examples/workspace
ref=cuda-box/linux-x86_64-cuda13.0
scroll_dir=$ws/scrolls/$ref
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in, expect_not_in

finish() {
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit $?
}
skip() { echo "SKIP: $*"; exit 77; }
has_gpu() { "$sc" gpu probe >/dev/null 2>&1; }

# The box's interpreter: the Debian CPython prefix with lib/cuda linked to
# this host's toolkit (fixtures/cuda_prefix.sh --link).
make_prefix() {
    mkdir -p "$work"
    local rc=0 python=${SC_CUDA_BOX_PYTHON_PREFIX:-$work/debian-prefix}
    # SC_CUDA_BOX_PYTHON_PREFIX: a Debian CPython prefix made elsewhere (ci/gpu
    # passes the bundle's on a machine without apt).
    if [[ -z ${SC_CUDA_BOX_PYTHON_PREFIX:-} ]]; then
        bash "$src/fixtures/debian_prefix.sh" "$python" >/dev/null 2>"$tmp/prefix.err" || rc=$?
    fi
    if ((rc == 3)); then
        skip "no CPython prefix from Debian's packages can be made here: $(tail -n 1 "$tmp/prefix.err")"
    fi
    ((rc == 0)) || { echo "FAIL prefix: debian_prefix.sh exited $rc"; cat "$tmp/prefix.err"; exit 1; }
    rc=0
    prefix=$(bash "$src/fixtures/cuda_prefix.sh" --link --python-prefix "$python" \
        "$work/cuda-prefix" 2>"$tmp/prefix.err") || rc=$?
    ((rc == 3)) && skip "$(tail -n 1 "$tmp/prefix.err")"
    ((rc == 0)) || { echo "FAIL prefix: cuda_prefix.sh exited $rc"; cat "$tmp/prefix.err"; exit 1; }
    # The payload as the builder lays it out (the scroll's localFiles).
    payload=$tmp/payload
    mkdir -p "$payload/cuda_box"
    cp "$ws"/app/cuda_box/*.py "$payload/cuda_box/"
    cp "$ws/app/cuda_parity.py" "$payload/"
    py=$prefix/bin/python
}

# box NAME STATUS VISIBLE ARGS... — run the box's Python in the payload root
# with CUDA_VISIBLE_DEVICES=VISIBLE ("-" for unset) and a clean environment.
box() {
    local name=$1 want=$2 visible=$3
    shift 3
    local envv=(env -i PATH=/usr/bin:/bin LC_ALL=C PYTHONDONTWRITEBYTECODE=1)
    [[ -n ${LD_LIBRARY_PATH:-} ]] && envv+=("LD_LIBRARY_PATH=$LD_LIBRARY_PATH")
    [[ $visible != - ]] && envv+=("CUDA_VISIBLE_DEVICES=$visible")
    check "$name" "$want" bash -c 'cd "$1" && shift && exec "$@"' _ "$payload" "${envv[@]}" "$py" "$@"
}

refused() { # NAME: the last run refused by name and printed nothing
    expect_in "$1-code" "$tmp/err" "error[accelerator-unavailable]"
    expect "$1-no-values" test ! -s "$tmp/out"
}

case $mode in
scroll)
    check scroll-check 0 "$sc" --project-root "$ws" scroll check "$ref"
    check audit-cuda 0 "$sc" --project-root "$ws" audit cuda "$ref" --json
    expect_in audit-no-errors "$tmp/out" '"errors": 0'
    # Targeted: the box is for CUDA 13.0 with the documented minimum driver.
    check effective 0 "$sc" --project-root "$ws" scroll check "$ref" --json
    expect_in target-cuda "$tmp/out" '"cudaVersion": "13.0"'
    expect_in min-driver "$tmp/out" '"minNvidiaDriverVersion": "580.65.06"'
    expect parity-cpu-cuda /usr/bin/python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["scrolls"][0]["scroll"]
p = s["parity"]
assert p["accelerators"] == ["cpu", "cuda"], p
assert p["tolerances"] == {"absolute": 0.0001, "minimumCosine": 0.99999}, p
assert "cuda_box.selftest" in s["selfTest"]["imports"], s["selfTest"]
' "$tmp/out"
    rc=0
    /usr/bin/python3 "$src/fixtures/cuda_box_lock.py" --check "$scroll_dir/pixi.lock" 2>"$tmp/lock.err" || rc=$?
    if ((rc == 3)); then
        echo "note: this host's toolkit keeps no records; the lock is not compared: $(cat "$tmp/lock.err")"
    else
        expect lock-matches-toolkit test "$rc" -eq 0
        ((rc == 0)) || cat "$tmp/lock.err"
    fi
    # A lock that names another CUDA major is caught by the same audit.
    cp -R "$ws" "$tmp/ws"
    sed -i 's/manylinux_2_27_x86_64/macosx_11_0_arm64/' "$tmp/ws/scrolls/$ref/pixi.lock"
    check audit-wrong-platform 1 "$sc" --project-root "$tmp/ws" audit cuda "$ref"
    expect_in audit-wrong-platform-code "$tmp/out" "wheel-platform-mismatch"
    finish ;;
cpu)
    [[ -n $gemm ]] || skip "scrollcase-parity-gemm was not built (no CUDA toolkit)"
    make_prefix
    box cpu-parity 0 "" cuda_parity.py
    cp "$tmp/out" "$tmp/box-cpu.json"
    check gemm-cpu 0 env CUDA_VISIBLE_DEVICES= "$gemm"
    cp "$tmp/out" "$tmp/gemm-cpu.json"
    # The same inputs (the box's cuRAND) and the same binary32 arithmetic.
    check cpu-same-bits 0 "$sc" parity compare "$tmp/gemm-cpu.json" "$tmp/box-cpu.json" \
        --absolute 1e-300 --json
    expect_in cpu-zero-error "$tmp/out" '"maximumAbsoluteError": 0'
    expect_in cpu-value-count "$tmp/out" '"valueCount": 4096'
    box cpu-program 0 "" -m cuda_box
    expect_in cpu-program-accelerator "$tmp/out" '"accelerator": "cpu"'
    if has_gpu; then
        echo "note: this host has a usable GPU; the refusals are checked with CUDA_VISIBLE_DEVICES=-1"
        hidden=(-1)
    else
        hidden=(0 - -1)
    fi
    for v in "${hidden[@]}"; do
        box "cuda-parity-refused[$v]" 1 "$v" cuda_parity.py
        refused "cuda-parity-refused[$v]"
        box "self-test-refused[$v]" 1 "$v" -c 'import ctypes, cuda_box.selftest'
        refused "self-test-refused[$v]"
        box "program-refused[$v]" 1 "$v" -m cuda_box
        refused "program-refused[$v]"
    done
    # The self-test never passes on the CPU, even when asked to use it.
    box self-test-no-cpu 1 "" -c 'import cuda_box.selftest'
    refused self-test-no-cpu
    finish ;;
gpu)
    has_gpu || skip "no usable NVIDIA GPU on this host ($("$sc" gpu probe 2>&1 | tail -n 1))"
    [[ -n $gemm ]] || skip "scrollcase-parity-gemm was not built (no CUDA toolkit)"
    make_prefix
    box self-test 0 0 -c 'import ctypes, cuda_box.selftest'
    expect_in self-test-device "$tmp/err" '"computeCapability"'
    box cpu-parity 0 "" cuda_parity.py
    cp "$tmp/out" "$tmp/box-cpu.json"
    box cuda-parity 0 0 cuda_parity.py
    cp "$tmp/out" "$tmp/box-cuda.json"
    expect_in cuda-accelerator "$tmp/box-cuda.json" '"accelerator": "cuda"'
    check box-parity 0 "$sc" parity compare "$tmp/box-cpu.json" "$tmp/box-cuda.json" \
        --absolute 0.0001 --minimum-cosine 0.99999
    check gemm-cuda 0 env CUDA_VISIBLE_DEVICES=0 "$gemm"
    cp "$tmp/out" "$tmp/gemm-cuda.json"
    check box-vs-workload 0 "$sc" parity compare "$tmp/gemm-cuda.json" "$tmp/box-cuda.json" \
        --absolute 0.0001 --minimum-cosine 0.99999
    finish ;;
*)
    echo "unknown mode $mode"; exit 2 ;;
esac
