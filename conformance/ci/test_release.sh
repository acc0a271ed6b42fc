#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test_release.sh OUTDIR — ctest conformance/release: run conformance/release.sh
# into OUTDIR and check what it made: the checksums verify, the runner links
# none of the box-building libraries and speaks the protocol of VERSION, the
# corpus holds every case of golden/ byte for byte, and the runner from the
# tarball passes the example adapter's areas on the corpus from the tarball.
set -euo pipefail
out=${1:?usage: test_release.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$(tr -d ' \n' <"$root/conformance/VERSION")
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$out"
bash "$root/conformance/release.sh" "$out" >/dev/null
(cd "$out" && sha256sum --check --strict --quiet SHA256SUMS) || fail "SHA256SUMS does not verify"
[ "$(wc -l <"$out/SHA256SUMS")" -eq 2 ] || fail "SHA256SUMS should list two files"

x=$(mktemp -d "${TMPDIR:-/tmp}/sc-release-test-XXXXXX")
trap 'rm -rf "$x"' EXIT
tar -xzf "$out"/scrollcase-conform-"$version"-*.tar.gz -C "$x"
tar -xzf "$out/scrollcase-conformance-corpus-$version.tar.gz" -C "$x"
runner=$(echo "$x"/scrollcase-conform-"$version"-*/bin/scrollcase-conform)
corpus=$x/scrollcase-conformance-corpus-$version
[ -x "$runner" ] || fail "no runner in the tarball"
needed=$(readelf -d "$runner" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
for lib in libcurl libarchive libyaml libsodium libz.so libscrollcase; do
    ! grep -q "^$lib" <<<"$needed" || fail "the released runner links $lib"
done
"$runner" --protocol-json | grep -q "\"protocol\": \"${version%.*}\"" ||
    fail "the released runner does not speak protocol ${version%.*}"
diff -r "$root/golden" "$corpus/golden" >/dev/null || fail "the corpus tarball differs from golden/"
for f in conformance/case.schema.json conformance/README.md conformance/VERSION \
    conformance/CHANGES.md conformance/rules.json conformance/COVERAGE.md \
    docs/format-v3.md docs/errors.md conformance/examples/python/adapter.py; do
    cmp -s "$root/$f" "$corpus/$f" || fail "$f missing or different in the corpus tarball"
done
# every name sorted, fixed owner and time: the corpus tarball is reproducible
tar -tvzf "$out/scrollcase-conformance-corpus-$version.tar.gz" | awk '{print $2, $4, $5}' |
    sort -u | grep -qv '^0/0 2000-01-01 00:00' && fail "corpus tarball has varying owners or times"
"$runner" --corpus "$corpus/golden" --area target --quiet -- \
    /usr/bin/python3 "$corpus/conformance/examples/python/adapter.py" >"$x/run.txt" ||
    { cat "$x/run.txt" >&2; fail "the released runner and corpus do not pass the example adapter"; }
echo "ok release $version: $(cut -c1-12 "$out/SHA256SUMS" | tr '\n' ' ')"
