#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cuda_binaries_gate_test.sh SCROLLCASE SOURCE_DIR — the CUDA binaries gate
# (docs/format-v3.md 19.10, step 16 of 20.1) through `scrollcase build`, on a
# host without a GPU.  The CUDA demo box's scroll
# (examples/workspace/scrolls/cuda-box/linux-x86_64-cuda13.0) is built from
# hand-made prefixes (venv/bin/python a /bin/sh launcher of /usr/bin/python3):
#   cpu-only   its CUDA libraries swapped for CPU-only ones (cc -shared, no
#              device code, no CUDA soname): cuda-binaries-missing, with and
#              without --no-cuda-audit (which is the lock's, not this gate's)
#   declared   the same with the scroll's run-time declaration: past the gate
#   mismatch   a libcudart.so.12 (cc -shared -Wl,-soname) shipped, needed by
#              another file, or vendored by auditwheel (libcudart-<hash>.so.12),
#              in a cuda13.0 box: cuda-binaries-mismatch naming file and soname
#   toolkit    the box's own four libraries, hard links to this host's CUDA
#              toolkit: past the gate (the GPU gates come later)
# and two small boxes that build all the way here:
#   recorded   a CUDA box whose library nvcc compiled for sm_80 (cubin) and
#              compute_90 (PTX): the signed release records cudaBinaries,
#              `inspect` shows it and `compat` judges GPUs by it
#   cpu-waste  a CPU box shipping a CUDA library: built, with a warning
# Skips (exit 77) without cc, git or /usr/bin/python3; the toolkit and nvcc
# parts say SKIP and go on when those are missing.  Prints "N passed, N failed".
set -u
sc=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in, expect_not_in

for tool in cc git /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is needed"; exit 77; }
done
export LC_ALL=C GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
cuda_home=${SCROLLCASE_CUDA_HOME:-${CUDA_HOME:-/usr/local/cuda}}
ref=cuda-box/linux-x86_64-cuda13.0

# ---- ELF files made here --------------------------------------------------------
printf 'int cpu_gemm(int n) { return n * 2; }\n' >"$tmp/gemm.c"
so() { # so OUT SONAME [cc args...]: a shared object with that soname
    local out=$1 soname=$2
    shift 2
    cc -shared -fPIC -o "$out" "$tmp/gemm.c" -Wl,-soname,"$soname" "$@"
}
mkdir -p "$tmp/elf"
so "$tmp/elf/libopenblas.so.0" libopenblas.so.0
so "$tmp/elf/libcpu_gemm.so" libcpu_gemm.so -L"$tmp/elf" -Wl,--no-as-needed -l:libopenblas.so.0
so "$tmp/elf/libcudart.so.12" libcudart.so.12
so "$tmp/elf/libcudart.so.13" libcudart.so.13
so "$tmp/elf/libcudart-d0da41ae.so.12" libcudart-d0da41ae.so.12 # as auditwheel vendors it
so "$tmp/elf/libapp.so" libapp.so -L"$tmp/elf" -Wl,--no-as-needed -l:libcudart.so.12
readelf -d "$tmp/elf/libapp.so" | grep -q 'NEEDED.*libcudart.so.12' ||
    { echo "FAIL setup: libapp.so does not need libcudart.so.12"; exit 1; }

# prefix NAME FILE...: bin/python launches /usr/bin/python3; the files go to lib/cuda
prefix() {
    local p=$tmp/prefix-$1
    shift
    mkdir -p "$p/bin" "$p/lib/cuda"
    printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' >"$p/bin/python"
    chmod 755 "$p/bin/python"
    local f
    for f in "$@"; do cp "$f" "$p/lib/cuda/"; done
    printf '%s\n' "$p"
}

# ---- the workspace: the demo box's scroll, app and lock ---------------------------
ws=$tmp/ws
mkdir -p "$ws/scrolls/cuda-box"
cp -r "$src/examples/workspace/scrolls/cuda-box/linux-x86_64-cuda13.0" "$ws/scrolls/cuda-box/"
cp -r "$src/examples/workspace/app" "$ws/app"
printf '.scrollcase/\n' >"$ws/.gitignore"
git -C "$ws" init -q
git -C "$ws" add -A
git -C "$ws" commit -q -m one
cd "$ws" || exit 1
check keygen 0 "$sc" keygen

build() { # build PREFIX [options...]: the demo box, stderr kept
    local p=$1
    shift
    "$sc" build "$ref" --environment-prefix "$p" --channel beta "$@"
}

# ---- cpu-only: CPU wheels under a CUDA name -----------------------------------------
cpu=$(prefix cpu "$tmp/elf/libopenblas.so.0" "$tmp/elf/libcpu_gemm.so")
check cpu-only-refused 1 build "$cpu"
expect_in cpu-only-code "$tmp/err" "error[cuda-binaries-missing]"
expect_in cpu-only-names-target "$tmp/err" "linux-x86_64-cuda13.0"
expect_not_in cpu-only-before-any-gpu-gate "$tmp/err" "self-test"
check cpu-only-nothing-published 0 test ! -e "$ws/.scrollcase/dist/boxes"
check cpu-only-no-cuda-audit 1 build "$cpu" --no-cuda-audit
expect_in cpu-only-no-cuda-audit-still-refused "$tmp/err" "error[cuda-binaries-missing]"

# ---- declared: the scroll says its device code is compiled at run time ----------------
scroll=$ws/scrolls/$ref/scroll.json
cp "$scroll" "$tmp/scroll.orig"
/usr/bin/python3 - "$scroll" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["cuda"] = {"deviceCode": "runtime", "reason": "kernels compiled by Triton at first run"}
open(p, "w").write(json.dumps(d, indent=2) + "\n")
EOF
check declared-passes-the-gate 1 build "$cpu" --allow-dirty
expect_not_in declared-no-binaries-code "$tmp/err" "error[cuda-binaries"
expect_in declared-stops-later "$tmp/err" "error[gate-failed]" # its selfTest.files are the CUDA libraries
cp "$tmp/scroll.orig" "$scroll"

# ---- mismatch: a CUDA 12 runtime in a CUDA 13.0 box --------------------------------------
ship12=$(prefix ship12 "$tmp/elf/libcudart.so.12" "$tmp/elf/libopenblas.so.0")
check mismatch-shipped 1 build "$ship12"
expect_in mismatch-shipped-code "$tmp/err" "error[cuda-binaries-mismatch]"
expect_in mismatch-shipped-names-file "$tmp/err" "venv/lib/cuda/libcudart.so.12 ships libcudart.so.12"
need12=$(prefix need12 "$tmp/elf/libapp.so")
check mismatch-needed 1 build "$need12"
expect_in mismatch-needed-code "$tmp/err" "error[cuda-binaries-mismatch]"
expect_in mismatch-needed-names-file "$tmp/err" "venv/lib/cuda/libapp.so needs libcudart.so.12"
vend12=$(prefix vend12 "$tmp/elf/libcudart-d0da41ae.so.12")
check mismatch-vendored 1 build "$vend12"
expect_in mismatch-vendored-code "$tmp/err" "error[cuda-binaries-mismatch]"
expect_in mismatch-vendored-names-file "$tmp/err" "ships libcudart-d0da41ae.so.12, a CUDA 12 library"

# ---- toolkit: the demo box's own libraries pass the gate ------------------------------------
libs=(libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10)
have_toolkit=1
for l in "${libs[@]}"; do [[ -f $cuda_home/lib64/$l ]] || have_toolkit=0; done
real=$tmp/prefix-real
mkdir -p "$real/bin" "$real/lib/cuda"
cp "$tmp/prefix-cpu/bin/python" "$real/bin/python"
if ((have_toolkit)); then
    for l in "${libs[@]}"; do
        ln "$(readlink -f "$cuda_home/lib64/$l")" "$real/lib/cuda/$l" 2>/dev/null || have_toolkit=0
    done
fi
if ((have_toolkit)); then
    check toolkit-past-the-gate 1 build "$real"
    expect_in toolkit-gate-ran "$tmp/err" "cuda-binaries"
    expect_not_in toolkit-not-missing "$tmp/err" "error[cuda-binaries"
    expect_in toolkit-reaches-the-gpu-gates "$tmp/err" "self-test"
else
    echo "SKIP toolkit: no CUDA 13 toolkit with ${libs[*]} on this file system at $cuda_home/lib64"
fi

# ---- recorded: a CUDA box that builds here, its record signed ---------------------------------
nvcc=$cuda_home/bin/nvcc
mk_small_ws() { # mk_small_ws DIR TARGET_JSON TID
    local d=$1 target=$2 tid=$3
    mkdir -p "$d/scrolls/small/$tid"
    cat >"$d/scrolls/small/$tid/scroll.json" <<EOF
{
  "schemaVersion": 3, "boxId": "small", "modelId": "small", "runtimeId": "cpython",
  "version": "1.0.0", "sourceRevision": "test", "target": $target,
  "pythonVersion": "3.11", "pixiVersion": "0.40.0",
  "assetBaseUrl": "https://boxes.example.test/", "selfTest": {"imports": ["json"]}
}
EOF
    printf '.scrollcase/\n' >"$d/.gitignore"
    git -C "$d" init -q && git -C "$d" add -A && git -C "$d" commit -q -m one
}
if [[ -x $nvcc ]]; then
    printf '__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }\n' >"$tmp/k.cu"
    printf 'void launch(float *x) { twice<<<1, 32>>>(x); }\n' >>"$tmp/k.cu"
    "$nvcc" -shared -Xcompiler -fPIC -cudart shared -o "$tmp/elf/libkernel.so" "$tmp/k.cu" \
        -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
    kp=$(prefix kernel "$tmp/elf/libkernel.so")
    mk_small_ws "$tmp/small" '{"platform": "linux", "arch": "x86_64", "accelerator": "cuda", "cudaVersion": "13.0"}' \
        linux-x86_64-cuda13.0
    cd "$tmp/small" || exit 1
    "$sc" keygen >/dev/null 2>&1
    trust=$tmp/small/.scrollcase/keys/signing-public.json
    check recorded-builds 0 "$sc" build small/linux-x86_64-cuda13.0 --environment-prefix "$kp" --no-cuda-audit
    rel=$(find "$tmp/small/.scrollcase/dist" -name '*.release.json' | head -n 1)
    check recorded-inspect 0 "$sc" inspect "$rel" --trust "$trust" --json
    /usr/bin/python3 - "$tmp/out" >"$tmp/record.txt" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def find(o):
    if isinstance(o, dict):
        if "cudaBinaries" in o:
            return o["cudaBinaries"]
        for v in o.values():
            r = find(v)
            if r is not None:
                return r
    return None
print(json.dumps(find(d), sort_keys=True))
EOF
    expect recorded-record test "$(cat "$tmp/record.txt")" = \
        '{"cubins": ["sm_80"], "cudaMajors": [13], "opaqueLibraries": [], "ptx": ["compute_90"]}'
    facts() { # facts CC: a host with one GPU of that compute capability
        printf '{"platform": "linux", "arch": "x86_64", "gpu": {"status": "ok", "driverVersion": "580.65.06", "cudaVersion": "13.0", "devices": [{"name": "GPU", "computeCapability": "%s", "memoryBytes": 1}]}}\n' "$1" >"$tmp/host-$1.json"
        printf '%s\n' "$tmp/host-$1.json"
    }
    check compat-sm70-refused 2 "$sc" compat "$rel" --trust "$trust" --host-facts "$(facts 7.0)"
    expect_in compat-sm70-says "$tmp/err" "no device code for sm_70"
    check compat-sm86-cubin 0 "$sc" compat "$rel" --trust "$trust" --host-facts "$(facts 8.6)"
    expect_not_in compat-sm86-no-note "$tmp/out" "note"
    check compat-sm90-ptx 0 "$sc" compat "$rel" --trust "$trust" --host-facts "$(facts 9.0)"
    expect_in compat-sm90-compiles-ptx "$tmp/out" "first start compiles"
    # the same box rebuilt from a library with only an sm_90a cubin: diff shows
    # the GPU code that changed, and the 8.6 GPU the first build ran on is refused
    "$nvcc" -shared -Xcompiler -fPIC -cudart shared -o "$tmp/elf/libkernel.so" "$tmp/k.cu" \
        -gencode arch=compute_90a,code=sm_90a
    kp90=$(prefix kernel90 "$tmp/elf/libkernel.so")
    check recorded-rebuilds 0 "$sc" build small/linux-x86_64-cuda13.0 --environment-prefix "$kp90" \
        --no-cuda-audit --channel stable
    rel90=$(find "$tmp/small/.scrollcase/dist" -name '*.release.json' ! -path "$rel" | head -n 1)
    check recorded-diff 0 "$sc" diff "$rel" "$rel90" --trust "$trust" --json
    expect_in recorded-diff-names-record "$tmp/out" '"cudaBinaries'
    expect_in recorded-diff-new-arch "$tmp/out" 'sm_90a'
    check compat-sm86-now-refused 2 "$sc" compat "$rel90" --trust "$trust" --host-facts "$(facts 8.6)"
    expect_in compat-sm86-now-says "$tmp/err" "no device code for sm_86"
    check compat-sm90a-exact 0 "$sc" compat "$rel90" --trust "$trust" --host-facts "$(facts 9.0)"
    cd "$ws" || exit 1
else
    echo "SKIP recorded: no nvcc at $nvcc"
fi

# ---- cpu-waste: a CPU box that ships a CUDA library builds, with a warning ----------------------
mk_small_ws "$tmp/cpubox" '{"platform": "linux", "arch": "x86_64", "accelerator": "cpu"}' linux-x86_64-cpu
cd "$tmp/cpubox" || exit 1
"$sc" keygen >/dev/null 2>&1
waste=$(prefix waste "$tmp/elf/libcudart.so.13")
check cpu-waste-builds 0 "$sc" build small/linux-x86_64-cpu --environment-prefix "$waste"
expect_in cpu-waste-warns "$tmp/err" "warning: 1 file(s) carry CUDA device code or ship a CUDA library"
rel=$(find "$tmp/cpubox/.scrollcase/dist" -name '*.release.json' | head -n 1)
check cpu-waste-no-record 1 grep -q cudaBinaries "$rel"

echo "$passed passed, $failed failed"
((failed == 0))
