#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# headers_alone.sh CC CXX SHARED_LIB GCC INCLUDE_DIR...
#
# Every public header (INCLUDE_DIR/scrollcase/*.h, the generated ones too)
# compiles on its own, first of its translation unit, as C11 and as C++11,
# warning-free under -Wall -Wextra -Wpedantic.  Then one C++ program takes the
# address of every function the headers declare and links against the shared
# library: a declaration outside the extern "C" guards would be looked up
# under its C++ (mangled) name and fail to link.
set -u
cc=$1 cxx=$2 so=$3 gcc=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
incs=()
for d in "$@"; do incs+=("-I$d"); done
warn=(-Wall -Wextra -Wpedantic -Werror)
passed=0 failed=0
for d in "$@"; do
    for h in "$d"/scrollcase/*.h; do
        [[ -e $h ]] || continue
        n=${h##*/}
        printf '#include "scrollcase/%s"\n#include "scrollcase/%s"\n' "$n" "$n" >"$tmp/one.c"
        cp "$tmp/one.c" "$tmp/one.cpp"
        if "$cc" -std=c11 "${warn[@]}" "${incs[@]}" -fsyntax-only "$tmp/one.c" 2>"$tmp/err"; then
            passed=$((passed + 1))
        else
            echo "FAIL: $n alone as C:"; cat "$tmp/err"; failed=$((failed + 1))
        fi
        if "$cxx" -std=c++11 "${warn[@]}" "${incs[@]}" -fsyntax-only "$tmp/one.cpp" 2>"$tmp/err"; then
            passed=$((passed + 1))
        else
            echo "FAIL: $n alone as C++:"; cat "$tmp/err"; failed=$((failed + 1))
        fi
    done
done

if ! bash "$(dirname "$0")/declared_functions.sh" "$gcc" "$@" >"$tmp/declared"; then
    echo "FAIL: the public headers do not compile together"
    exit 1
fi
{
    echo '#include "scrollcase/scrollcase.h"'
    echo '#include <cstdio>'
    echo 'int main() {'
    echo '    unsigned long n = 0;'
    while read -r f; do
        echo "    n += reinterpret_cast<void (*)()>(&$f) != nullptr;"
    done <"$tmp/declared"
    echo '    std::printf("%lu\n", n);'
    echo '    return 0;'
    echo '}'
} >"$tmp/all.cpp"
want=$(wc -l <"$tmp/declared")
# SC_ABI_LINK_FLAGS: what a sanitizer build's library needs at link time.
# shellcheck disable=SC2086
if "$cxx" -std=c++11 "${incs[@]}" "$tmp/all.cpp" -o "$tmp/all" "$so" ${SC_ABI_LINK_FLAGS:-} 2>"$tmp/err" &&
    got=$(LD_LIBRARY_PATH=$(dirname "$so") "$tmp/all") && [[ $got == "$want" ]]; then
    passed=$((passed + 1))
else
    echo "FAIL: a C++ program does not link every declared function ($want) with C linkage:"
    grep -m 20 'undefined reference' "$tmp/err" || head -20 "$tmp/err"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
((failed == 0))
