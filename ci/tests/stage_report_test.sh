#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stage_report_test.sh — ci/stage-report against a real ctest run, not a
# log written by hand: a throw-away CMake project with a test that passes,
# one that always fails and one that fails only on its first try, run with
# the options ci/test gives ctest (--output-on-failure, --repeat
# until-pass:2).  failure_excerpt must hold the failing test's own output
# and the FAILED list and nothing of the others; flaky_excerpt, over a run
# without the failing test, must name the flaky test with its first
# failure's output, and say nothing over a clean run.
# Prints "N passed, N failed".
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
cmake=${SC_CMAKE:-cmake} ctest=${SC_CTEST:-ctest} # the build's own, from CTest
source "$src/core/tests/cli/lib.sh" # expect, expect_in, expect_not_in
source "$src/ci/stage-report"

mkdir -p "$tmp/p"
cat >"$tmp/p/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(stage_report_toy NONE)
enable_testing()
add_test(NAME toy/passes COMMAND sh -c "echo quiet-pass-output")
add_test(NAME toy/fails COMMAND sh -c "echo broken-test-output; exit 3")
# fails on its first run in a build directory, passes after
add_test(NAME toy/flaky COMMAND sh -c
  "if [ -e first-run-done ]; then echo second-try-ok; else touch first-run-done; echo flaky-first-failure; exit 1; fi")
CM
"$cmake" -S "$tmp/p" -B "$tmp/b" >/dev/null 2>&1 || { echo "FAIL cmake configure"; exit 1; }
cd "$tmp/b" || exit 1

"$ctest" --output-on-failure --no-tests=error -j2 --repeat until-pass:2 >"$tmp/failing.log" 2>&1
expect ctest-failing-exit test $? -ne 0
failure_excerpt "$tmp/failing.log" >"$tmp/out"
expect_in failure-has-output "$tmp/out" "broken-test-output"
expect_in failure-has-status "$tmp/out" "toy/fails"
expect_in failure-has-list "$tmp/out" "The following tests FAILED"
expect_in failure-has-count "$tmp/out" "tests failed out of 3"
expect_not_in failure-no-pass-output "$tmp/out" "quiet-pass-output"
expect_not_in failure-no-second-try "$tmp/out" "second-try-ok"

rm -f first-run-done
"$ctest" --output-on-failure --no-tests=error -j2 --repeat until-pass:2 -E toy/fails \
    >"$tmp/flaky.log" 2>&1
expect ctest-flaky-passes test $? -eq 0
flaky_excerpt "$tmp/flaky.log" >"$tmp/out"
expect_in flaky-named "$tmp/out" "toy/flaky"
expect_in flaky-first-failure "$tmp/out" "flaky-first-failure"
expect_not_in flaky-no-pass-output "$tmp/out" "quiet-pass-output"
expect_not_in flaky-no-second-try "$tmp/out" "second-try-ok"

"$ctest" --output-on-failure --no-tests=error -j2 --repeat until-pass:2 -R toy/passes \
    >"$tmp/clean.log" 2>&1
expect ctest-clean-passes test $? -eq 0
flaky_excerpt "$tmp/clean.log" >"$tmp/out"
expect flaky-silent-on-clean test ! -s "$tmp/out"

# a log that is not ctest's: its tail
seq 1 100 >"$tmp/plain.log"
failure_excerpt "$tmp/plain.log" >"$tmp/out"
expect plain-tail-40 test "$(wc -l <"$tmp/out")" -eq 40
expect_in plain-tail-last "$tmp/out" "100"

echo "$passed passed, $failed failed"
((failed == 0))
