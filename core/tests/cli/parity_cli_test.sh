#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# parity_cli_test.sh SCROLLCASE SOURCE_DIR FAKE_GPU_DIR — end-to-end checks of
# scrollcase parity compare, gpu probe and compat: exit statuses (compat's
# 0/2/3/1 included), the error line, over real files in a temporary
# directory.  The GPU probe runs against this host (no GPU expected) and
# against the fake driver libraries of the unit tests.  Prints
# "N passed, N failed".
set -u
sc=$1
src=$2
fake=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

p=$src/golden/parity
c=$src/golden/compat

# ---- parity compare ----
check parity-pass 0 "$sc" parity compare "$p/parity-pass-bit-patterns-float32/reference.json" \
    "$p/parity-pass-bit-patterns-float32/candidate.json" --absolute 1e-4 --relative 1e-3 --minimum-cosine 0.9999
expect_in parity-pass-line "$tmp/out" "parity passed: 64 values"
check parity-json 0 "$sc" parity compare "$p/parity-pass-bit-patterns-float32/reference.json" \
    "$p/parity-pass-bit-patterns-float32/candidate.json" --absolute=1e-4 --json
expect_in parity-json-count "$tmp/out" '"valueCount": 64'
check parity-breach 1 "$sc" parity compare "$p/parity-drift-absolute-breach/reference.json" \
    "$p/parity-drift-absolute-breach/candidate.json" --absolute 1e-4
expect_in parity-breach-code "$tmp/err" "error[parity-breach]: parity reference vs candidate: maximum absolute error"
check parity-nan 1 "$sc" parity compare "$p/parity-non-finite-nan-float32-candidate/reference.json" \
    "$p/parity-non-finite-nan-float32-candidate/candidate.json" --absolute 1
expect_in parity-nan-code "$tmp/err" "error[parity-non-finite]"
check parity-length 1 "$sc" parity compare "$p/parity-length-mismatch/reference.json" \
    "$p/parity-length-mismatch/candidate.json" --absolute 1
expect_in parity-length-code "$tmp/err" "error[parity-length-mismatch]"
check parity-no-tolerance 1 "$sc" parity compare "$p/parity-length-mismatch/reference.json" \
    "$p/parity-length-mismatch/reference.json"
expect_in parity-no-tolerance-code "$tmp/err" "error[invalid-tolerance]"
check parity-bad-tolerance 1 "$sc" parity compare "$p/parity-length-mismatch/reference.json" \
    "$p/parity-length-mismatch/reference.json" --relative NaN
check parity-missing-file 1 "$sc" parity compare "$tmp/none.json" "$tmp/none.json" --absolute 1
expect_in parity-missing-code "$tmp/err" "error[io-error]"
check parity-usage 2 "$sc" parity compare "$tmp/one.json" --absolute 1
check parity-usage-sub 2 "$sc" parity diff a b --absolute 1
check parity-help 0 "$sc" help parity

# ---- gpu probe ----
check gpu-none 1 env SCROLLCASE_LIBCUDA="$tmp/no-libcuda.so.1" "$sc" gpu probe
expect_in gpu-none-code "$tmp/err" "error[accelerator-unavailable]: no usable NVIDIA GPU (no-driver)"
check gpu-none-json 1 env SCROLLCASE_LIBCUDA="$tmp/no-libcuda.so.1" "$sc" gpu probe --json
expect_in gpu-none-json-status "$tmp/out" '"status": "absent"'
check gpu-fake 0 env SCROLLCASE_LIBCUDA="$fake/fake_cuda_ok.so" SCROLLCASE_LIBNVML="$fake/fake_nvml.so" "$sc" gpu probe
expect_in gpu-fake-line "$tmp/out" "driver 550.54.15, CUDA 12.4, 2 GPU(s)"
check gpu-fake-json 0 env SCROLLCASE_LIBCUDA="$fake/fake_cuda_ok.so" SCROLLCASE_LIBNVML="$fake/fake_nvml.so" "$sc" gpu probe --json
expect_in gpu-fake-json-cc "$tmp/out" '"computeCapability": "8.6"'
check gpu-symbol 1 env SCROLLCASE_LIBCUDA="$fake/fake_cuda_no_symbol.so" "$sc" gpu probe
expect_in gpu-symbol-reason "$tmp/err" "(symbol-missing)"
check gpu-usage 2 "$sc" gpu list

# ---- compat: a signed release, injected and live facts ----
check keygen 0 "$sc" --keys-dir "$tmp/keys" keygen
for rel in supported-cuda supported-cpu-no-gpu; do
    check "sign-$rel" 0 "$sc" --keys-dir "$tmp/keys" sign "$c/compat-$rel/release.json" --out "$tmp/$rel.signed.json"
done
trust=$tmp/keys/signing-public.json
check compat-supported 0 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-facts "$c/compat-supported-cuda/host.json"
expect_in compat-supported-line "$tmp/out" "supported"
check compat-refused 2 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-facts "$c/compat-refused-driver-old/host.json"
expect_in compat-refused-line "$tmp/err" "error[host-incompatible]: compatibility.minNvidiaDriverVersion: host nvidiaDriverVersion is 535.104.05, required >= 550.54"
expect_in compat-refused-out "$tmp/out" "refused compatibility.minNvidiaDriverVersion"
check compat-refused-json 2 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-facts "$c/compat-refused-many/host.json" --json
expect_in compat-refused-json-verdict "$tmp/out" '"verdict": "refused"'
check compat-pending 3 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-facts "$c/compat-pending-probe/host.json"
expect_in compat-pending-line "$tmp/out" "pending-probe"
check compat-app-version 2 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-facts "$c/compat-supported-cuda/host.json" --host-app-version 2.1
expect_in compat-app-version-line "$tmp/err" "maxHostAppVersionExclusive"
check compat-bad-facts 1 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-facts "$c/compat-facts-unknown-member/host.json"
expect_in compat-bad-facts-code "$tmp/err" "error[invalid-host-facts]"
check compat-unsigned 1 "$sc" compat "$c/compat-supported-cuda/release.json" --trust "$trust" --host-facts "$c/compat-supported-cuda/host.json"
expect_in compat-unsigned-code "$tmp/err" "error[invalid-envelope]"
check compat-no-trust 1 "$sc" compat "$tmp/supported-cuda.signed.json"
expect_in compat-no-trust-code "$tmp/err" "error[usage]"
check compat-bad-option 1 "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --bogus
# Live facts on this host: a CPU release for linux x86_64 needs no GPU.
if [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]]; then
    check compat-live-cpu 0 env SCROLLCASE_LIBCUDA="$tmp/no-libcuda.so.1" "$sc" compat "$tmp/supported-cpu-no-gpu.signed.json" --trust "$trust" --host-app-version 1.0.0
    check compat-live-cuda-no-gpu 2 env SCROLLCASE_LIBCUDA="$tmp/no-libcuda.so.1" "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-app-version 1.0.0
    expect_in compat-live-cuda-no-gpu-line "$tmp/out" "refused target.accelerator: gpuCount is 0"
    check compat-live-unprobed 3 env SCROLLCASE_LIBCUDA="$fake/fake_cuda_no_symbol.so" "$sc" compat "$tmp/supported-cuda.signed.json" --trust "$trust" --host-app-version 1.0.0
fi
check compat-help 0 "$sc" help compat

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
