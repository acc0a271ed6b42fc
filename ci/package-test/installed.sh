#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# installed.sh SOURCE_DIR VERSION — checks of an INSTALLED scrollcase (the
# Debian packages, or `cmake --install` into /usr), using the installed paths
# alone: /usr/bin programs, the library the dynamic linker finds, headers,
# pkg-config file and CMake package under /usr, the corpus under
# /usr/share/scrollcase.  From SOURCE_DIR it takes only the consumers' source
# (docs/api.md's example, hello.cpp, CMakeLists.txt) and make_box.sh.
# Prints "N passed, N failed".
set -u
src=$1 version=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in
source "$src/ci/lazy-libraries"     # sc_lazy_sonames, sc_soname_path
unset LD_LIBRARY_PATH SCROLLCASE_CORPUS
export PATH=/usr/bin:/bin
here=$src/ci/package-test

check version 0 /usr/bin/scrollcase --version
expect_in version-line "$tmp/out" "scrollcase $version "
check pkg-config-version 0 pkg-config --modversion scrollcase
expect_in pkg-config-version-is "$tmp/out" "$version"
expect shared-library test -e "/usr/lib/$(gcc -print-multiarch)/libscrollcase.so.${version%%.*}"
# libcurl and libarchive are loaded on first use (dlopen), so dpkg-shlibdeps
# cannot see them: libscrollcase0 must depend on their packages by hand.
lib=/usr/lib/$(gcc -print-multiarch)/libscrollcase.so.${version%%.*}
lib_a=/usr/lib/$(gcc -print-multiarch)/libscrollcase.a
depends=$(dpkg-query -W -f='${Depends}' libscrollcase0)
lazy=$(sc_lazy_sonames "$lib")
expect lazy-sonames-found test "$(echo "$lazy" | wc -w)" = 2
for so in $lazy; do
    path=$(sc_soname_path "$so")
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n1 | cut -d: -f1)
    expect "lazy-$so-depended-on" grep -qE "(^|, )$pkg( |,|$)" <<<"$depends"
done
check man-page 0 man -w scrollcase-verify
expect_in man-page-path "$tmp/out" /usr/share/man/man1/scrollcase-verify.1
check man-format 0 man -w 5 scrollcase-format
check bash-completion 0 bash -c '. /usr/share/bash-completion/bash_completion;
    _completion_loader scrollcase; complete -p scrollcase'
expect_in bash-completion-function "$tmp/out" "_scrollcase scrollcase"

# The installed runner over the installed corpus (its default), the
# installed adapter (next to it).
start=$SECONDS
check conformance 0 /usr/bin/scrollcase-conform
expect_in conformance-summary "$tmp/out" " 0 failed"
echo "conformance over the installed corpus: $((SECONDS - start)) s"
sed -n '$p' "$tmp/out"

# The consumers: C (docs/api.md's example) and C++, through pkg-config and
# through find_package.
awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$src/docs/api.md" >"$tmp/embed.c"
check pc-c 0 sh -c "cc -std=c11 -Wall -Wextra -Werror -o '$tmp/embed-pc' '$tmp/embed.c' \$(pkg-config --cflags --libs scrollcase)"
check pc-cxx 0 sh -c "c++ -std=c++11 -Wall -Wextra -Werror -o '$tmp/hello-pc' '$here/hello.cpp' \$(pkg-config --cflags --libs scrollcase)"
# The static library, with what `pkg-config --static` says it needs (libcurl
# and libarchive are not among them: they are loaded on first use).
check pc-static 0 sh -c "cc -std=c11 -Wall -Wextra -Werror -o '$tmp/embed-static' '$tmp/embed.c' \
    $lib_a \$(pkg-config --cflags --static --libs scrollcase)"
check ldd-embed-static 0 ldd "$tmp/embed-static"
expect_not_in static-links-no-shared-scrollcase "$tmp/out" "libscrollcase.so"
check cmake-configure 0 cmake -S "$here" -B "$tmp/cmake" -DSC_EXAMPLE_C="$tmp/embed.c"
check cmake-build 0 cmake --build "$tmp/cmake"
for p in "$tmp/embed-pc" "$tmp/hello-pc" "$tmp/cmake/embed-cmake" "$tmp/cmake/hello-cmake"; do
    check "ldd-${p##*/}" 0 ldd "$p"
    # The system's copy (/lib is /usr/lib on a merged-/usr system).
    expect "links-installed-${p##*/}" grep -qE "libscrollcase\.so\.${version%%.*} => (/usr)?/lib/" "$tmp/out"
done

check make-box 0 bash "$here/make_box.sh" /usr/bin/scrollcase "$src" "$tmp/box"
rel=$tmp/box/release.signed.json zip=$tmp/box/demo-box.zip trust=$tmp/box/keys/signing-public.json
check scrollcase-verify 0 /usr/bin/scrollcase verify "$rel" --trust "$trust" --archive "$zip"
n=0
for p in embed-pc cmake/embed-cmake embed-static; do
    n=$((n + 1))
    check "c-$n-runs" 0 "$tmp/$p" "$rel" "$zip" "$trust" "$tmp/dest-c$n" installed
    expect_in "c-$n-verified" "$tmp/out" "verified demo-box 1.0.0 linux-x86_64-cpu"
    expect_in "c-$n-prepared" "$tmp/out" "prepared $tmp/dest-c$n"
    expect_in "c-$n-ran" "$tmp/out" "hello from the demo box: installed"
done
for p in hello-pc cmake/hello-cmake; do
    n=$((n + 1))
    check "cxx-$n-runs" 0 "$tmp/$p" "$rel" "$zip" "$trust" "$tmp/dest-cxx$n"
    expect_in "cxx-$n-verified" "$tmp/out" "c++: verified demo-box 1.0.0 linux-x86_64-cpu with libscrollcase $version"
    expect_in "cxx-$n-prepared" "$tmp/out" "c++: prepared $tmp/dest-cxx$n (prepared)"
done

echo "$passed passed, $failed failed"
((failed == 0))
