#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# declared_functions.sh GCC INCLUDE_DIR... — print, sorted, the name of every
# function that a header under INCLUDE_DIR/scrollcase/ declares (static
# functions in headers excepted), as gcc reads the declarations (-aux-info
# over all those headers).  Fails when they do not compile together.
set -eu
gcc=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
incs=()
: >"$tmp/tu.c"
for d in "$@"; do
    incs+=("-I$d")
    for h in "$d"/scrollcase/*.h; do
        [[ -e $h ]] && printf '#include "scrollcase/%s"\n' "${h##*/}" >>"$tmp/tu.c"
    done
done
"$gcc" -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE "${incs[@]}" \
    -aux-info "$tmp/aux" -c "$tmp/tu.c" -o "$tmp/tu.o"
# Lines: /* DIR/scrollcase/x.h:12:NC */ extern int sc_f (int);
for d in "$@"; do
    grep -F "/* $d/scrollcase/" "$tmp/aux" || true
done | sed -E 's|^/\* [^ ]+ \*/ ||' | { grep -v '^static ' || true; } |
    sed -E 's/^[^(]*[^A-Za-z0-9_(]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' | sort -u
