#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# options_cli_test.sh SCROLLCASE SOURCE_DIR PYTHON — the option table as a
# contract: usage errors (one error[usage] line and a hint on stderr, nothing
# on stdout, exit 2), help, `help --parse-only`, and options_table.py (the
# JSON table against its schema and against the parser).
set -u
sc=$1
src=$2
py=${3:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage_shape() { # NAME: $tmp/out empty, $tmp/err two lines: the error and the hint
    expect "$1-no-stdout" test ! -s "$tmp/out"
    expect "$1-two-lines" test "$(wc -l <"$tmp/err")" -eq 2
    expect "$1-error-line" grep -q '^scrollcase: error\[usage\]: ' "$tmp/err"
    expect "$1-hint-line" grep -q '^scrollcase: hint: see `scrollcase help' "$tmp/err"
}

check no-command 2 "$sc"
usage_shape no-command
check unknown-command 2 "$sc" frobnicate
usage_shape unknown-command
check unknown-option 2 "$sc" verify r.json --trust t --bogus
usage_shape unknown-option
expect_in unknown-option-hint "$tmp/err" 'scrollcase help verify'
check foreign-option 2 "$sc" keygen --trust t
usage_shape foreign-option
expect_in foreign-option-says "$tmp/err" "keygen does not take --trust"
check bad-choice 2 "$sc" build --channel weekly
usage_shape bad-choice
expect_in bad-choice-lists "$tmp/err" "--channel takes nightly, beta or stable, not weekly"
check twice 2 "$sc" sign f.json --out a --out b
usage_shape twice
check missing-operand 2 "$sc" prepare r.json
usage_shape missing-operand
expect_in missing-operand-names "$tmp/err" "prepare needs DEST"
check extra-operand 2 "$sc" target-id a b
usage_shape extra-operand
check no-value 2 "$sc" verify r.json --trust
usage_shape no-value
check flag-value 2 "$sc" keygen --force=yes
usage_shape flag-value
check incomplete 2 "$sc" parity diff a b
usage_shape incomplete
expect_in incomplete-lists "$tmp/err" "parity takes one of: compare"
expect_in incomplete-hint "$tmp/err" '`scrollcase help parity`'

# help: the program's, a command's, a group of commands', help's own
check help 0 "$sc" --help
expect_in help-groups "$tmp/out" "Using boxes:"
expect_in help-lists-verify "$tmp/out" "verify RELEASE"
check help-help 0 "$sc" help help
expect_in help-help-usage "$tmp/out" "usage: scrollcase help [COMMAND...]"
check help-word 0 "$sc" help audit
expect_in help-word-audit "$tmp/out" "usage: scrollcase audit SCROLL"
expect_in help-word-cuda "$tmp/out" "usage: scrollcase audit cuda SCROLL"
check help-prefix 0 "$sc" add --help
expect_in help-prefix-dep "$tmp/out" "usage: scrollcase add dep BOX [NAME]"
check help-unknown 2 "$sc" help frobnicate
usage_shape help-unknown
check help-short 0 "$sc" verify -h
expect_in help-short-text "$tmp/out" "usage: scrollcase verify RELEASE"

# --parse-only: nothing runs, 0 when the line parses, 2 otherwise
check parse-ok 0 "$sc" help --parse-only -- prepare "$tmp/nothing.json" "$tmp/dest" --trust "$tmp/t"
expect parse-ok-silent test ! -s "$tmp/out" -a ! -s "$tmp/err"
expect parse-ok-nothing-made test ! -e "$tmp/dest"
check parse-workspace 0 "$sc" help --parse-only -- --project-root "$tmp" scroll check
check parse-run-rest 0 "$sc" help --parse-only -- run r.json --trust t -- --anything -x
check parse-version 0 "$sc" help --parse-only -- --version
check parse-help 0 "$sc" help --parse-only -- verify --help
check parse-bad 2 "$sc" help --parse-only -- verify r.json --bogus
usage_shape parse-bad
check parse-compat-bad 2 "$sc" help --parse-only -- compat r.json --bogus
check parse-empty 2 "$sc" help --parse-only --
usage_shape parse-empty
check parse-no-dashes 2 "$sc" help --parse-only verify

# the table
check commands-json 0 "$sc" help --commands-json
expect commands-json-parses "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"
check table "0" "$py" "$(dirname "${BASH_SOURCE[0]}")/options_table.py" "$sc" \
    "$src/docs/schema/cli/commands.schema.json" "$src/docs/cli.md"
tail -1 "$tmp/out"

echo "$passed passed, $failed failed"
((failed == 0))
