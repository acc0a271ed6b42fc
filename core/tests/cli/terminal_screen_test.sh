#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# terminal_screen_test.sh SCROLLCASE SOURCE_DIR — what a person sees at a
# terminal: prepare, verify --self-test and run of a small box
# (ci/package-test/make_box.sh) in a real pseudo-terminal (tmux, 100x40),
# and the screen tmux shows once each command has ended.  The live area is
# gone; each step left one line with its totals in human units (no exact
# byte counts, no "- B/s", no ETA, no percentage, no bar); concurrent steps
# (the hash beside the extraction) one line each; the environment report
# is for people, not a JSON object; verify --self-test shows one hash.
# Colour unless NO_COLOR.  Skips (77) when tmux is not installed.
set -u
sc=$1 src=$2
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed (ci/setup installs it)"; exit 77; }
tmp=$(mktemp -d)
sock=sc-screen-$$
trap 'tmux -L "$sock" kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
passed=0 failed=0
source "$src/core/tests/cli/lib.sh" # check, expect, expect_in, expect_not_in

check make-box 0 bash "$src/ci/package-test/make_box.sh" "$sc" "$src" "$tmp/box"
rel=$tmp/box/release.signed.json trust=$tmp/box/keys/signing-public.json zip=$tmp/box/demo-box.zip
# prepare reads an archive a second time when its stamps are within 50 ms
# of its hashing (format-v3 16.2: the stamp cannot vouch for it); the
# screens below are of an archive whose stamps can, so it ages first.
sleep 0.2

# screen NAME ENV COMMAND...: run COMMAND in a fresh tmux session of 100x40
# with ENV (e.g. NO_COLOR=1), wait for it to end, and leave the final screen
# in $tmp/NAME.screen (text) and $tmp/NAME.escapes (with its colours).
screen() {
    local name=$1 env=$2
    shift 2
    local cmd
    printf -v cmd '%q ' "$@"
    rm -f "$tmp/$name.done"
    tmux -L "$sock" -f /dev/null new-session -d -s "$name" -x 100 -y 40 \
        "env $env TERM=xterm-256color $cmd; echo \"exit \$?\" >$tmp/$name.done; sleep 600"
    for _ in $(seq 1 600); do
        [[ -e $tmp/$name.done ]] && break
        sleep 0.1
    done
    sleep 0.2 # the last output reaches the pane
    tmux -L "$sock" capture-pane -p -J -t "$name" >"$tmp/$name.screen"
    tmux -L "$sock" capture-pane -p -J -e -t "$name" >"$tmp/$name.escapes"
    tmux -L "$sock" kill-session -t "$name"
}

human_only() { # NAME: nothing on the final screen but what a person reads
    expect_not_in "$1-no-exact-bytes" "$tmp/$1.screen" "bytes)"
    expect_not_in "$1-no-unknown-rate" "$tmp/$1.screen" "- B/s"
    expect_not_in "$1-no-eta" "$tmp/$1.screen" "ETA"
    expect_not_in "$1-no-percentage" "$tmp/$1.screen" "%"
    expect_not_in "$1-no-bar" "$tmp/$1.screen" "[#"
    expect_not_in "$1-no-live-line" "$tmp/$1.screen" "running for"
    expect_not_in "$1-no-raw-json" "$tmp/$1.screen" '{"'
}

one_line() { # NAME PATTERN: exactly one line of the screen matches
    local n
    n=$(grep -cE -- "$2" "$tmp/$1.screen")
    expect "$1-one-line-$2" test "$n" = 1
    [[ $n == 1 ]] || sed -e "/^$/d" -e "s/^/  | /" "$tmp/$1.screen"
}

size=$(short_size "$(stat -c %s "$zip")")
screen prepare "" "$sc" prepare "$rel" "$tmp/dest" --trust "$trust" --archive "$zip"
expect_in prepare-exit "$tmp/prepare.done" "exit 0"
human_only prepare
one_line prepare "^scrollcase: preparing: .*demo-box.zip \\($size\\) into "
one_line prepare "^scrollcase: hash demo-box.zip: $size (in|within) [0-9.]+ s"
one_line prepare "^scrollcase: extract: [0-9]+ files, [0-9.]+ (B|KiB|MiB) in [0-9.]+ s"
one_line prepare "^prepared $tmp/dest\$"
one_line prepare "^  archive +[0-9a-f]{64}, $size\$"
expect prepare-coloured grep -q $'\e\\[1m\e\\[32mhash' "$tmp/prepare.escapes"

screen nocolour "NO_COLOR=1" "$sc" prepare "$rel" "$tmp/dest2" --trust "$trust" --archive "$zip"
expect_in nocolour-exit "$tmp/nocolour.done" "exit 0"
human_only nocolour
one_line nocolour "^scrollcase: hash demo-box.zip: $size (in|within) "
expect nocolour-no-colour bash -c "! grep -q \$'\\e\\\\[[0-9;]*m' '$tmp/nocolour.escapes'"

# a failure: the error line stays, under the steps, and nothing of the live area
cp "$zip" "$tmp/bad.zip"
printf 'X' | dd of="$tmp/bad.zip" bs=1 seek=100 conv=notrunc status=none
screen failure "" "$sc" prepare "$rel" "$tmp/dest3" --trust "$trust" --archive "$tmp/bad.zip"
expect_in failure-exit "$tmp/failure.done" "exit 1"
human_only failure
one_line failure "^scrollcase: error\\[archive-(hash|changed)\\]: "
expect failure-error-last bash -c "sed '/^\$/d' '$tmp/failure.screen' | tail -n 3 | grep -q 'error\\['"

screen selftest "" "$sc" verify "$rel" --trust "$trust" --archive "$zip" --self-test
expect_in selftest-exit "$tmp/selftest.done" "exit 0"
human_only selftest
one_line selftest "^scrollcase: hash "
one_line selftest "^scrollcase: self-test python: 1 run in "
one_line selftest "^ok demo-box 1.0.0 linux-x86_64-cpu: .*self-test passed\$"

# a small host environment: the full report lists every host variable
screen run "-i PATH=/usr/bin:/bin" "$sc" run "$rel" --trust "$trust" --archive "$zip" --env-report -- one two
expect_in run-exit "$tmp/run.done" "exit 0"
human_only run
one_line run "^scrollcase: environment: [0-9]+ from the release; [0-9]+ listed below, [0-9]+ more not listed\$"
one_line run "^  PATH=<masked>  \\(from host\\)\$"
one_line run "^hello from the demo box: one two\$"

echo "$passed passed, $failed failed"
((failed == 0))
