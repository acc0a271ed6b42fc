#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# audit_cli_test.sh SCROLLCASE SOURCE_DIR — end-to-end checks of
# `scrollcase audit cuda` (docs/format-v3.md 19.7): exit statuses 0/1/2, the
# audit-failed line, --json, a scroll given by reference and by directory,
# over pixi files taken from the golden audit cases.  Prints "N passed, N failed".
set -u
sc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # check, expect, expect_in, expect_not_in

golden=$src/golden/audit
ws=$tmp/ws
t=$ws/scrolls/demo/linux-x86_64-cuda12.4
mkdir -p "$t"
cp "$golden/audit-scroll-input/scrolls/demo/linux-x86_64-cuda12.4/scroll.json" "$t/"
cp "$golden/audit-clean-conda-cuda12-4/pixi.toml" "$golden/audit-clean-conda-cuda12-4/pixi.lock" "$t/"

check clean-by-reference 0 "$sc" audit cuda demo/linux-x86_64-cuda12.4 --project-root "$ws"
expect_in clean-summary "$tmp/out" "linux-x86_64-cuda12.4: 0 error(s), 0 warning(s)"
check clean-by-directory 0 "$sc" audit cuda "$t"
check clean-by-file 0 "$sc" audit cuda "$t/scroll.json"

cp "$golden/audit-conda-cpu-build/pixi.lock" "$t/"
check cpu-build-fails 1 "$sc" audit cuda demo/linux-x86_64-cuda12.4 --project-root "$ws"
expect_in cpu-build-line "$tmp/out" "conda-cpu-build pytorch:"
expect_in cpu-build-error "$tmp/err" "scrollcase: error[audit-failed]:"
check cpu-build-json 1 "$sc" audit cuda "$t" --json
expect_in cpu-build-json-code "$tmp/out" '"code": "conda-cpu-build"'
expect_in cpu-build-json-errors "$tmp/out" '"errors": 1'

cp "$golden/audit-cuda-version-not-locked/pixi.lock" "$t/"
check warnings-pass 0 "$sc" audit cuda "$t"
expect_in warnings-line "$tmp/out" "cuda-version-not-locked cuda-version:"

cp "$golden/audit-invalid-lock-yaml/pixi.lock" "$t/"
check invalid-lock 1 "$sc" audit cuda "$t"
expect_in invalid-lock-code "$tmp/err" "error[invalid-lock]"
# a size cap is the format's refusal, not io-error (19.2; issue 24): a lock over
# 64 MiB is invalid-lock, a manifest over 1 MiB invalid-pixi-toml (sparse files)
truncate -s $((64 * 1024 * 1024 + 1)) "$t/pixi.lock"
check lock-over-64-mib 1 "$sc" audit cuda "$t"
expect_in lock-over-64-mib-code "$tmp/err" "error[invalid-lock]"
cp "$t/pixi.toml" "$tmp/pixi.toml.keep"
truncate -s $((64 * 1024 * 1024 + 1)) "$t/pixi.toml"
check toml-over-64-mib 1 "$sc" audit cuda "$t"
expect_in toml-over-64-mib-code "$tmp/err" "error[invalid-pixi-toml]"
cp "$tmp/pixi.toml.keep" "$t/pixi.toml"
rm "$t/pixi.lock"
check missing-lock 1 "$sc" audit cuda "$t"
expect_in missing-lock-code "$tmp/err" "error[io-error]"

check usage-no-subcommand 2 "$sc" audit
check usage-no-scroll 2 "$sc" audit cuda
check usage-extra 2 "$sc" audit cuda a/b c
check usage-option 2 "$sc" audit cuda a/b --bogus
check not-found 1 "$sc" audit cuda demo/linux-x86_64-cpu --project-root "$ws"
expect_in not-found-code "$tmp/err" "error[scroll-not-found]"
check help 0 "$sc" audit --help
expect_in help-text "$tmp/out" "usage: scrollcase audit cuda SCROLL"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
