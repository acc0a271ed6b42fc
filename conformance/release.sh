#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# conformance/release.sh OUTDIR — make the release files of the conformance
# suite, for ports that take the suite without the rest of scrollcase:
#
#   scrollcase-conformance-corpus-<V>.tar.gz   golden/, the case schema, the
#       suite README, VERSION and CHANGES, the rule inventory (rules.json) and
#       its coverage table (COVERAGE.md), docs/format-v3.md and docs/errors.md, the
#       example Python adapter; packed deterministically (sorted names, fixed
#       times and owners, gzip -n), so the same tree gives the same bytes
#   scrollcase-conform-<V>-<os>-<arch>.tar.gz  bin/scrollcase-conform built by
#       conformance/standalone (libcrypto only: none of the box-building
#       libraries, which the script checks in the binary's DT_NEEDED list)
#   SHA256SUMS                                 sha256sum of both, `sha256sum -c`
#
# <V> is conformance/VERSION.  Needs cmake, a C compiler, libcrypto's headers,
# GNU tar, gzip, sha256sum and readelf.  Exit 0, or 1 with a message.
set -euo pipefail

out=${1:?usage: conformance/release.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
version=$(tr -d ' \n' <"$here/VERSION")
os=$(uname -s | tr 'A-Z' 'a-z')
arch=$(uname -m)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sc-conform-release-XXXXXX")
trap 'rm -rf "$work"' EXIT

pack() { # DIR NAME TARBALL: NAME (a directory under DIR) as a deterministic tar.gz
    (cd "$1" && tar --sort=name --mtime='2000-01-01 00:00:00Z' --owner=0 --group=0 \
        --numeric-owner --mode='u+rwX,go+rX,go-w' --format=gnu -cf - "$2") |
        gzip -n -9 >"$3"
}

# ---- the runner, without the box-building dependencies -------------------
cmake -S "$here/standalone" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; echo "release.sh: configuring the runner failed" >&2; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; echo "release.sh: building the runner failed" >&2; exit 1; }
bin=$work/build/scrollcase-conform
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
for lib in libcurl libarchive libyaml libsodium libz.so libscrollcase; do
    if grep -q "^$lib" <<<"$needed"; then
        echo "release.sh: the runner links $lib, a box-building dependency" >&2
        exit 1
    fi
done
got=$("$bin" --protocol-json | sed -n 's/.*"protocol": "\(.*\)".*/\1/p')
if [ "$got" != "${version%.*}" ]; then
    echo "release.sh: the runner speaks protocol '$got', VERSION $version says ${version%.*}" >&2
    exit 1
fi
rname=scrollcase-conform-$version-$os-$arch
mkdir -p "$work/$rname/bin"
cp "$bin" "$work/$rname/bin/"
strip "$work/$rname/bin/scrollcase-conform" 2>/dev/null || true
cp "$here/README.md" "$here/VERSION" "$work/$rname/"
[ -f "$root/LICENSE" ] && cp "$root/LICENSE" "$work/$rname/"
pack "$work" "$rname" "$out/$rname.tar.gz"

# ---- the corpus ----------------------------------------------------------
cname=scrollcase-conformance-corpus-$version
c=$work/$cname
mkdir -p "$c/conformance/examples" "$c/docs"
cp -R "$root/golden" "$c/golden"
cp "$here/README.md" "$here/VERSION" "$here/case.schema.json" "$here/CHANGES.md" \
    "$here/rules.json" "$here/COVERAGE.md" "$c/conformance/"
cp -R "$here/examples/python" "$c/conformance/examples/python"
find "$c" -name __pycache__ -prune -exec rm -rf {} +
cp "$root/docs/format-v3.md" "$root/docs/errors.md" "$c/docs/"
[ -f "$root/LICENSE" ] && cp "$root/LICENSE" "$c/"
pack "$work" "$cname" "$out/$cname.tar.gz"

(cd "$out" && sha256sum "$cname.tar.gz" "$rname.tar.gz" >SHA256SUMS)
echo "$out/$cname.tar.gz"
echo "$out/$rname.tar.gz"
echo "$out/SHA256SUMS"
