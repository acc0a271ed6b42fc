#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# parity_gemm_test.sh MODE GEMM SCROLLCASE — checks of scrollcase-parity-gemm.
#   hidden-devices     CUDA_VISIBLE_DEVICES=-1: exit 1, accelerator-unavailable
#   no-gpu             (skipped on a GPU host) default environment: the same
#   cpu-deterministic  CUDA_VISIBLE_DEVICES="": 4096 values, same bytes twice
#   gpu-parity         (GPU hosts only) cpu vs cuda under parity compare
# Exit 77 = skipped, with the reason on stdout.
set -u
mode=$1 gemm=$2 sc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

has_gpu() { "$sc" gpu probe >/dev/null 2>&1; }

expect_unavailable() {
    if "$gemm" >"$tmp/out" 2>"$tmp/err"; then
        echo "FAIL: exit 0 without a usable GPU (a silent fallback?)"; cat "$tmp/out"; exit 1
    fi
    grep -qF "error[accelerator-unavailable]" "$tmp/err" || { echo "FAIL: no named reason"; cat "$tmp/err"; exit 1; }
    [[ -s $tmp/out ]] && { echo "FAIL: values printed without an accelerator"; exit 1; }
    cat "$tmp/err"
}

case $mode in
hidden-devices)
    CUDA_VISIBLE_DEVICES=-1 expect_unavailable ;;
no-gpu)
    if has_gpu; then echo "SKIP: this host has a usable GPU; hidden-devices covers the path"; exit 77; fi
    unset CUDA_VISIBLE_DEVICES
    expect_unavailable
    CUDA_VISIBLE_DEVICES=0 expect_unavailable ;;
cpu-deterministic)
    CUDA_VISIBLE_DEVICES= "$gemm" >"$tmp/a.json" || exit 1
    CUDA_VISIBLE_DEVICES= "$gemm" >"$tmp/b.json" || exit 1
    cmp "$tmp/a.json" "$tmp/b.json" || { echo "FAIL: two CPU runs differ"; exit 1; }
    grep -qF '"accelerator": "cpu"' "$tmp/a.json" || { echo "FAIL: not the cpu run"; exit 1; }
    "$sc" parity compare "$tmp/a.json" "$tmp/b.json" --absolute 1e-30 --json >"$tmp/m.json" || exit 1
    grep -qF '"valueCount": 4096' "$tmp/m.json" || { echo "FAIL: value count"; cat "$tmp/m.json"; exit 1; }
    grep -qF '"maximumAbsoluteError": 0' "$tmp/m.json" || { echo "FAIL: not identical"; exit 1; } ;;
gpu-parity)
    if ! has_gpu; then echo "SKIP: no usable NVIDIA GPU on this host ($("$sc" gpu probe 2>&1 | tail -1))"; exit 77; fi
    CUDA_VISIBLE_DEVICES= "$gemm" >"$tmp/cpu.json" || exit 1
    CUDA_VISIBLE_DEVICES=0 "$gemm" >"$tmp/cuda.json" || exit 1
    grep -qF '"accelerator": "cuda"' "$tmp/cuda.json" || { echo "FAIL: not the cuda run"; exit 1; }
    grep -F '"device"' "$tmp/cuda.json"
    "$sc" parity compare "$tmp/cpu.json" "$tmp/cuda.json" --absolute 1e-4 --minimum-cosine 0.99999 ;;
*)
    echo "unknown mode $mode"; exit 2 ;;
esac
