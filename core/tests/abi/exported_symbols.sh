#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# exported_symbols.sh SHARED_LIB STATIC_LIB GCC INCLUDE_DIR...
#
# libscrollcase exports exactly its public API:
#  - every symbol the shared library exports (nm -D --defined-only) is a
#    function that a header under INCLUDE_DIR/scrollcase/ declares;
#  - every function those headers declare is exported (so none is declared
#    and left unimplemented);
#  - the library's internal helpers (global symbols of the static library
#    that no public header declares, e.g. check.h's) exist and none leaks.
# The declarations are read by the compiler (declared_functions.sh: gcc
# -aux-info over every public header), not by the version-script generator.
set -u
so=$1 ar=$2 gcc=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

if ! bash "$(dirname "$0")/declared_functions.sh" "$gcc" "$@" >"$tmp/declared"; then
    echo "FAIL: the public headers do not compile together"
    exit 1
fi
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
nm -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/static"
comm -23 "$tmp/static" "$tmp/declared" >"$tmp/internal"

nd=$(wc -l <"$tmp/declared") ne=$(wc -l <"$tmp/exported") ni=$(wc -l <"$tmp/internal")
echo "declared $nd, exported $ne, internal $ni"
if ((nd == 0 || ne == 0)); then
    echo "FAIL: nothing declared or nothing exported"
    fail=1
fi
if ((ni == 0)); then
    echo "FAIL: no internal helper found in $ar: the check cannot see a leak"
    fail=1
fi
if comm -23 "$tmp/exported" "$tmp/declared" | grep .; then
    echo "FAIL: exported above, but no public header declares them"
    fail=1
fi
if comm -13 "$tmp/exported" "$tmp/declared" | grep .; then
    echo "FAIL: declared by a public header above, but not exported (not implemented?)"
    fail=1
fi
if comm -12 "$tmp/exported" "$tmp/internal" | grep .; then
    echo "FAIL: internal helpers above leak from the shared library"
    fail=1
fi
((fail == 0)) && echo "ok: the exports are the public API"
exit $fail
