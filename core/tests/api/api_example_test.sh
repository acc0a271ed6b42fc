#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# api_example_test.sh CC CXX SCROLLCASE SOURCE_DIR LIBDIR INCLUDE_DIR...
#
# The example of docs/api.md (its ```c block) and ci/package-test/hello.cpp,
# compiled warning-free against the built library, verify, prepare and run a
# small signed box (ci/package-test/make_box.sh); their refusals are the
# library's codes.  Prints "N passed, N failed".
set -u
cc=$1 cxx=$2 sc=$3 src=$4 libdir=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in

incs=()
for d in "$@"; do incs+=("-I$d"); done
awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$src/docs/api.md" >"$tmp/embed.c"
expect example-extracted test -s "$tmp/embed.c"
check compile-c 0 "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "${incs[@]}" \
    "$tmp/embed.c" -o "$tmp/embed" -L"$libdir" -lscrollcase ${SC_ABI_LINK_FLAGS:-}
check compile-cxx 0 "$cxx" -std=c++11 -Wall -Wextra -Wpedantic -Werror "${incs[@]}" \
    "$src/ci/package-test/hello.cpp" -o "$tmp/hello" -L"$libdir" -lscrollcase ${SC_ABI_LINK_FLAGS:-}
export LD_LIBRARY_PATH=$libdir

check make-box 0 bash "$src/ci/package-test/make_box.sh" "$sc" "$src" "$tmp/box"
rel=$tmp/box/release.signed.json zip=$tmp/box/demo-box.zip trust=$tmp/box/keys/signing-public.json
check example-runs 0 "$tmp/embed" "$rel" "$zip" "$trust" "$tmp/dest" one two
expect_in example-version "$tmp/out" "libscrollcase 0."
expect_in example-verified "$tmp/out" "verified demo-box 1.0.0 linux-x86_64-cpu: 4 entries"
expect_in example-prepared "$tmp/out" "prepared $tmp/dest"
expect_in example-ran "$tmp/out" "hello from the demo box: one two"
expect_in example-status "$tmp/out" "the box exited with status 0"
expect example-tree test -x "$tmp/dest/venv/bin/python"
check example-existing-destination 1 "$tmp/embed" "$rel" "$zip" "$trust" "$tmp/dest"
expect_in example-existing-code "$tmp/err" "error[existing-destination]"
printf '{"keys":[]}' >"$tmp/empty-trust.json"
check example-untrusted 1 "$tmp/embed" "$rel" "$zip" "$tmp/empty-trust.json" "$tmp/dest2"
expect_in example-untrusted-code "$tmp/err" "error[invalid-signature]"
expect example-untrusted-nothing test ! -e "$tmp/dest2"
check cxx-runs 0 "$tmp/hello" "$rel" "$zip" "$trust" "$tmp/dest3"
expect_in cxx-verified "$tmp/out" "c++: verified demo-box 1.0.0 linux-x86_64-cpu"
expect_in cxx-prepared "$tmp/out" "c++: prepared $tmp/dest3 (prepared)"
printf 'x' >>"$zip"
check cxx-tampered 1 "$tmp/hello" "$rel" "$zip" "$trust" "$tmp/dest4"
expect_in cxx-tampered-code "$tmp/err" "error[archive-size]"

echo "$passed passed, $failed failed"
((failed == 0))
