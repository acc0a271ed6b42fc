#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# env_cli_test.sh SCROLLCASE SOURCE_DIR FAKE_GPU_DIR — scrollcase doctor and
# scrollcase lock end to end: exit statuses, check lines and remedies, the
# two CUDA verdicts against the fake driver libraries of the unit tests and
# against none, and lock against the scripted pixi stand-in.  Runs in a
# temporary copy of examples/workspace made a git checkout.  Prints
# "N passed, N failed".
set -u
sc=$1
src=$2
fake=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pixi=$src/fixtures/standin/pixi
cpack=$src/fixtures/standin/conda-pack

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

ws=$tmp/ws
cp -r "$src/examples/workspace" "$ws"
cd "$ws" || exit 1
unset SCROLLCASE_PIXI SCROLLCASE_CONDA_PACK SCROLLCASE_LIBCUDA SCROLLCASE_LIBNVML CUDA_HOME
export SCROLLCASE_CUDA_HOME=$tmp/no-toolkit
tools=(--pixi "$pixi" --conda-pack "$cpack")

# --- doctor: every check runs, each failure has a remedy, exit 1 ---------------
check doctor-no-git-no-keys 1 "$sc" doctor "${tools[@]}"
expect_in doctor-workspace "$tmp/out" "✓ workspace   config $ws/scrollcase.config.json"
expect_in doctor-scrolls "$tmp/out" "✓ scrolls     $ws/scrolls"
expect_in doctor-git-fails "$tmp/out" "✗ git"
expect_in doctor-keys-fails "$tmp/out" "✗ keys"
expect_in doctor-keys-remedy "$tmp/out" "remedy: run \`scrollcase keygen\`"
expect_in doctor-pixi-not-checked "$tmp/out" "✓ pixi        not checked"
expect_in doctor-conda-pack "$tmp/out" "✓ conda-pack  $cpack"
expect_in doctor-summary "$tmp/out" "Some checks failed; see the remedies above."
expect_not_in doctor-no-cuda-lines "$tmp/out" "can run CUDA"

git init -q . && git add -A && git -c user.email=t@example.invalid -c user.name=t commit -qm init
"$sc" keygen >/dev/null 2>&1
check doctor-all-pass 0 "$sc" doctor "${tools[@]}" --pixi-version 0.40.0
expect_in doctor-git-head "$tmp/out" "✓ git         HEAD $(git rev-parse HEAD | cut -c1-12)"
expect_in doctor-pixi-version "$tmp/out" "✓ pixi        pixi 0.40.0 at $pixi"
expect_in doctor-keys-ok "$tmp/out" "✓ keys        signing key"
expect_not_in doctor-no-failure-line "$tmp/out" "Some checks failed"
# The libraries loaded on first use (libraries.h) are loaded by the check.
expect_in doctor-libcurl "$tmp/out" "✓ libcurl     libcurl.so."
expect_in doctor-libarchive "$tmp/out" "✓ libarchive  libarchive.so."
# A library by libcurl's soname that is not libcurl, first on the loader's
# path: that check fails, naming the missing function and the package.
curl_so=$(sed -n 's/^✓ libcurl     \(libcurl\.so\.[0-9]*\),.*/\1/p' "$tmp/out")
mkdir -p "$tmp/notcurl"
echo 'int scrollcase_test_not_curl(void) { return 0; }' >"$tmp/notcurl/notcurl.c"
if cc -shared -fPIC -Wl,-soname,"$curl_so" -o "$tmp/notcurl/$curl_so" "$tmp/notcurl/notcurl.c"; then
    check doctor-libcurl-not-curl 1 env LD_LIBRARY_PATH="$tmp/notcurl" \
        "$sc" doctor "${tools[@]}" --pixi-version 0.40.0
    expect_in doctor-libcurl-not-curl-line "$tmp/out" "✗ libcurl     $curl_so has no curl_global_init"
    expect_in doctor-libcurl-not-curl-remedy "$tmp/out" "remedy: install it: \`apt-get install libcurl4\`"
    expect_in doctor-libcurl-not-curl-archive-ok "$tmp/out" "✓ libarchive"
    check doctor-libcurl-not-curl-json 1 env LD_LIBRARY_PATH="$tmp/notcurl" \
        "$sc" doctor "${tools[@]}" --pixi-version 0.40.0 --json
    expect_in doctor-libcurl-not-curl-json-code "$tmp/out" '"code": "doctor-failed"'
    expect_in doctor-libcurl-not-curl-json-name "$tmp/out" '"name": "libcurl"'
else
    expect doctor-libcurl-not-curl-compiled false
fi

check doctor-pixi-mismatch 1 "$sc" doctor "${tools[@]}" --pixi-version 0.41.0
expect_in doctor-pixi-mismatch-line "$tmp/out" "Scroll requires pixi 0.41.0, found 0.40.0."
check doctor-scroll-pin 0 "$sc" doctor "${tools[@]}" --scroll hello-box/linux-x86_64-cpu
check doctor-scroll-pin-mismatch 1 env SCROLLCASE_STANDIN_PIXI_VERSION=0.39.0 \
    "$sc" doctor "${tools[@]}" --scroll hello-box/linux-x86_64-cpu
expect_in doctor-scroll-pin-mismatch-line "$tmp/out" "found 0.39.0"
check doctor-conda-pack-missing 1 "$sc" doctor --pixi "$pixi" --conda-pack "$tmp/nothing"
expect_in doctor-conda-pack-remedy "$tmp/out" "pixi global install conda-pack==0.9.2"
check doctor-json 1 "$sc" doctor --pixi "$pixi" --conda-pack "$tmp/nothing" --json
expect_in doctor-json-ok "$tmp/out" '"ok": false'
expect_in doctor-json-failed "$tmp/out" '"status": "failed"'
check doctor-unknown-target 2 "$sc" doctor "${tools[@]}" --target linux-x86_64-nothing
# A prefix build needs no conda-pack: missing, it is a warning unless the
# lock's tools were asked for (--pixi-version, --pixi or --conda-pack).
mkdir -p "$tmp/gitonly"
ln -sf "$(command -v git)" "$tmp/gitonly/git"
check doctor-conda-pack-not-needed 0 env PATH="$tmp/gitonly" SCROLLCASE_CONDA_PACK= "$sc" doctor
expect_in doctor-conda-pack-warning "$tmp/out" "⚠ conda-pack"
expect_in doctor-conda-pack-prefix-remedy "$tmp/out" "a build from a prefix does not use it"
expect_not_in doctor-no-install-toolchain "$tmp/out" "install-toolchain"
check doctor-conda-pack-asked 1 env PATH="$tmp/gitonly" SCROLLCASE_CONDA_PACK= "$sc" doctor \
    --pixi-version 0.40.0 --pixi "$pixi"
expect_in doctor-conda-pack-asked-fails "$tmp/out" "✗ conda-pack"
expect_not_in doctor-pixi-remedy-exists "$tmp/out" "install-toolchain"

# --- doctor on CUDA: run and compile told apart -------------------------------
# PATH holds git and nothing else (this host's own nvcc or nvidia-smi must not count)
mkdir -p "$tmp/pathbin"
ln -s "$(command -v git)" "$tmp/pathbin/git"
cuda_env=(env PATH="$tmp/pathbin" SCROLLCASE_LIBCUDA="$fake/fake_cuda_ok.so" SCROLLCASE_LIBNVML="$fake/fake_nvml.so")
check doctor-cuda-driver 0 "${cuda_env[@]}" "$sc" doctor "${tools[@]}" \
    --scroll vision-box/linux-x86_64-cuda12.4
expect_in doctor-cuda-libcuda "$tmp/out" "✓ libcuda     2 GPU(s), driver supports CUDA 12.4"
expect_in doctor-cuda-driver-version "$tmp/out" "✓ driver      NVIDIA driver"
expect_in doctor-cuda-can-run "$tmp/out" "can run CUDA: yes"
expect_in doctor-cuda-no-nvcc "$tmp/out" "⚠ nvcc"
expect_in doctor-cuda-cannot-compile "$tmp/out" "can compile CUDA: no (no nvcc, no cuda_runtime.h in a toolkit)"

# a toolkit: nvcc and headers; headers only inside a Python package do not count
mkdir -p "$tmp/toolkit/bin" "$tmp/toolkit/include" "$tmp/site/nvidia/cuda_runtime/include"
printf '#!/bin/sh\necho nvcc\n' >"$tmp/toolkit/bin/nvcc"
chmod 755 "$tmp/toolkit/bin/nvcc"
touch "$tmp/site/nvidia/cuda_runtime/include/cuda_runtime.h"
check doctor-cuda-nvcc-no-headers 0 env SCROLLCASE_CUDA_HOME="$tmp/toolkit" "${cuda_env[@]}" \
    "$sc" doctor "${tools[@]}" --target linux-x86_64-cuda12.4
expect_in doctor-cuda-nvcc-found "$tmp/out" "✓ nvcc        $tmp/toolkit/bin/nvcc"
expect_in doctor-cuda-headers-missing "$tmp/out" "can compile CUDA: no (no cuda_runtime.h in a toolkit)"
touch "$tmp/toolkit/include/cuda_runtime.h"
check doctor-cuda-toolkit 0 env SCROLLCASE_CUDA_HOME="$tmp/toolkit" "${cuda_env[@]}" \
    "$sc" doctor "${tools[@]}" --target linux-x86_64-cuda12.4
expect_in doctor-cuda-can-compile "$tmp/out" "can compile CUDA: yes"

# compile without a driver: the toolkit alone does not run CUDA
check doctor-cuda-no-driver 1 env PATH="$tmp/pathbin" SCROLLCASE_CUDA_HOME="$tmp/toolkit" \
    SCROLLCASE_LIBCUDA=/nonexistent/libcuda.so.1 SCROLLCASE_LIBNVML=/nonexistent/libnvidia-ml.so.1 \
    "$sc" doctor "${tools[@]}" --target linux-x86_64-cuda12.4
expect_in doctor-cuda-no-driver-run "$tmp/out" "can run CUDA: no (no usable CUDA driver: no-driver)"
expect_in doctor-cuda-no-driver-compile "$tmp/out" "can compile CUDA: yes"
expect_in doctor-cuda-no-driver-remedy "$tmp/out" "remedy: install the NVIDIA driver"
# a driver too old for the target's CUDA
check doctor-cuda-old-driver 1 "${cuda_env[@]}" "$sc" doctor "${tools[@]}" \
    --target linux-x86_64-cuda12.8
expect_in doctor-cuda-old-driver-why "$tmp/out" "can run CUDA: no (the driver supports CUDA 12.4, the target needs 12.8)"
check doctor-cuda-json 1 "${cuda_env[@]}" "$sc" doctor "${tools[@]}" --target linux-x86_64-cuda12.8 --json
expect_in doctor-cuda-json-canrun "$tmp/out" '"canRun": false'

# --- lock --------------------------------------------------------------------
d=scrolls/hello-box/linux-x86_64-cpu
printf '[workspace]\nname = "hello-box"\n' >"$d/pixi.toml"
check lock-standin 0 "$sc" lock hello-box/linux-x86_64-cpu --pixi "$pixi"
expect_in lock-updated "$tmp/out" "Updated $ws/$d/pixi.lock"
expect_in lock-written "$d/pixi.lock" "stand-in lock of a manifest with sha256 $(sha256sum "$d/pixi.toml" | cut -c1-64)"
rm "$d/pixi.lock"
check lock-box-shorthand 0 "$sc" lock hello-box --pixi "$pixi"
expect_in lock-box-shorthand-written "$d/pixi.lock" "version: 6"
check lock-env-pixi 0 env SCROLLCASE_PIXI="$pixi" "$sc" lock hello-box
check lock-version-mismatch 1 env SCROLLCASE_STANDIN_PIXI_VERSION=0.39.0 "$sc" lock hello-box --pixi "$pixi"
expect_in lock-version-mismatch-code "$tmp/err" "error[tool-version-mismatch]"
check lock-pixi-missing 1 "$sc" lock hello-box --pixi "$tmp/nothing"
expect_in lock-pixi-missing-code "$tmp/err" "error[tool-missing]"
check lock-pixi-fails 1 env SCROLLCASE_STANDIN_PIXI_FAIL=1 "$sc" lock hello-box --pixi "$pixi"
expect_in lock-pixi-fails-code "$tmp/err" "pixi lock exited with 3"
check lock-ambiguous 2 "$sc" lock vision-box --pixi "$pixi"
check lock-no-manifest 1 "$sc" lock vision-box/linux-x86_64-cpu --pixi "$pixi"
expect_in lock-no-manifest-code "$tmp/err" "error[invalid-pixi-toml]"
check lock-extra-arg 2 "$sc" lock a b

# --- every tool run has a deadline (20.2; SCROLLCASE_TOOL_TIMEOUT in tests) -------
printf '#!/bin/sh\necho $$ >"%s/silent.pid"\nexec sleep 600\n' "$tmp" >"$tmp/silent-pixi"
chmod 755 "$tmp/silent-pixi"
check doctor-pixi-silent 1 env SCROLLCASE_TOOL_TIMEOUT=1 "$sc" doctor --pixi "$tmp/silent-pixi" \
    --conda-pack "$cpack" --pixi-version 0.40.0
expect_in doctor-pixi-silent-missing "$tmp/out" "✗ pixi        pixi 0.40.0 is required (\`pixi --version\` gave no answer in time)"
expect doctor-pixi-silent-ended test ! -d "/proc/$(cat "$tmp/silent.pid")"
check lock-pixi-silent 1 env SCROLLCASE_TOOL_TIMEOUT=1 "$sc" lock hello-box --pixi "$tmp/silent-pixi"
expect_in lock-pixi-silent-code "$tmp/err" "error[tool-missing]"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
