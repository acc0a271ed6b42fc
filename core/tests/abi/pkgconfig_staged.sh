#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pkgconfig_staged.sh CMAKE BUILD_DIR CC CXX SOURCE_DIR PROJECT_URL
#
# The pkg-config file is relocatable: `cmake --install BUILD --prefix P`
# (the library and its headers), the tree then moved somewhere else, and a C
# and a C++ program compiled and linked with nothing but
# `pkg-config --cflags --libs scrollcase` against the moved tree, then run
# (the library found through pkg-config's libdir).  The file names no
# absolute path of the first prefix, and its URL is the project's address
# (SC_PROJECT_URL in CMakeLists.txt).  Prints "N passed, N failed".
set -u
cmake=$1 build=$2 cc=$3 cxx=$4 src=$5 url=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in

for c in runtime development; do
    check "install-$c" 0 "$cmake" --install "$build" --prefix "$tmp/first" --component "$c"
done
mv "$tmp/first" "$tmp/moved"
pc=$(find "$tmp/moved" -name scrollcase.pc -path '*/pkgconfig/*' | head -n 1)
expect pc-installed test -n "$pc"
[[ -n $pc ]] || { echo "$passed passed, $failed failed"; exit 1; }
expect_not_in pc-no-first-prefix "$pc" "$tmp/first"
expect_not_in pc-no-usr-local "$pc" "/usr/local"
expect_in pc-url "$pc" "URL: $url"

# The staged tree first (the system's directories stay, for the libraries
# of Requires.private); the file found is the staged one.
export PKG_CONFIG_PATH=${pc%/*}
check pkg-config-exists 0 pkg-config --exists scrollcase
expect pc-found-is-staged test "$(pkg-config --variable=pcfiledir scrollcase)" = "${pc%/*}"
read -r -a flags < <(pkg-config --cflags --libs scrollcase)
libdir=$(pkg-config --variable=libdir scrollcase)
moved=$(realpath "$tmp/moved")
expect libdir-in-moved-tree grep -q "^$moved/" < <(realpath "$libdir")
expect header-in-moved-tree test -f "$(pkg-config --variable=includedir scrollcase)/scrollcase/scrollcase.h"

cat >"$tmp/hello.c" <<'C'
#include <scrollcase/scrollcase.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char d[SC_SHA256_LEN];
    char out[2 * SC_SHA256_LEN + 1];
    sc_sha256_ctx ctx;
    sc_error err;
    memset(&err, 0, sizeof err);
    if (sc_sha256_init(&ctx, &err) != SC_OK || sc_sha256_update(&ctx, "abc", 3, &err) != SC_OK ||
        sc_sha256_final(&ctx, d, &err) != SC_OK)
        return 1;
    for (size_t i = 0; i < sizeof d; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[sizeof out - 1] = '\0';
    printf("c: %s %s\n", sc_version(NULL, NULL, NULL), out);
    return 0;
}
C
cat >"$tmp/hello.cpp" <<'CXX'
#include <scrollcase/scrollcase.h>
#include <cstdio>
#include <string>
int main()
{
    std::string v = sc_version(nullptr, nullptr, nullptr);
    std::printf("c++: %s %s %s\n", v.c_str(), SC_VERSION_STRING, sc_code_name(SC_E_INVALID_JSON));
    return v == SC_VERSION_STRING ? 0 : 1;
}
CXX
rpath=-Wl,-rpath,$libdir
check compile-c 0 "$cc" -std=c11 -Wall -Wextra -Werror "$tmp/hello.c" -o "$tmp/hello-c" \
    "${flags[@]}" "$rpath" ${SC_ABI_LINK_FLAGS:-}
check compile-cxx 0 "$cxx" -std=c++11 -Wall -Wextra -Werror "$tmp/hello.cpp" -o "$tmp/hello-cxx" \
    "${flags[@]}" "$rpath" ${SC_ABI_LINK_FLAGS:-}
unset LD_LIBRARY_PATH
check run-c 0 "$tmp/hello-c"
expect_in run-c-output "$tmp/out" "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
check run-cxx 0 "$tmp/hello-cxx"
expect_in run-cxx-output "$tmp/out" "invalid-json"
# the programs ran against the moved tree's library, not another one
expect ldd-moved-tree grep -q "$tmp/moved" < <(ldd "$tmp/hello-cxx")

echo "$passed passed, $failed failed"
((failed == 0))
