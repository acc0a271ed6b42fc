#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fake-adapter.sh — a stand-in adapter for the runner's self-tests.  It tests
# the runner, not the library: what it does depends only on the case id (the
# name of the --case directory) and on these variables:
#   FAKE_HELLO  ok (default: protocol 2) | v1 (protocol 1) | features |
#               persistent | typo-op | typo-feature | extension | crash | v3 |
#               garbage
#   FAKE_PERSIST_BUG  in persistent mode, for case accept-any: seq (a wrong
#               seq), twolines (two response lines), garbage (not JSON),
#               exit (the adapter exits instead of answering);
#               exit-at-end: every case answered, then exit status 23 at EOF
#   FAKE_STARTS if set, the persistent adapter appends its pid here at start
#   FAKE_LOG    if set, one line "<id> <work dir>" is appended per call
#   FAKE_SLEEP  seconds io/slow sleeps (default 0)
#   FAKE_PIDS   if set, io/slow writes the pid of its background child here
# It checks the calling convention the protocol promises: an absolute --case
# directory, a fresh, empty --work directory, and the runner's own working
# directory as cwd (FAKE_CWD, when set).

if [ "$1" = "--hello" ]; then
    impl='"implementation": {"name": "fake", "version": "0.0.0", "language": "sh"}'
    ops='"operations": ["json-read", "scroll-resolve"]'
    all='"features": ["host-linux-x86_64", "posix-processes", "python3-recorder", "symlinks"]'
    case "${FAKE_HELLO:-ok}" in
    ok) printf '{"protocol": 2, %s, %s, %s}\n' "$impl" "$ops" "$all" ;;
    v1) printf '{"protocol": 1, %s, %s}\n' "$impl" "$ops" ;;
    features) printf '{"protocol": 2, %s, %s, "features": ["symlinks"]}\n' "$impl" "$ops" ;;
    persistent) printf '{"protocol": 2, %s, %s, %s, "persistent": true}\n' "$impl" "$ops" "$all" ;;
    typo-op) printf '{"protocol": 2, %s, "operations": ["json_read", "scroll-resolve"], %s}\n' "$impl" "$all" ;;
    typo-feature) printf '{"protocol": 2, %s, %s, "features": ["symlink"]}\n' "$impl" "$ops" ;;
    extension) printf '{"protocol": 2, %s, "operations": ["json-read", "scroll-resolve", "x-acme-sign"], "features": ["symlinks", "x-acme-hsm"], "x-acme": {"build": "7"}}\n' "$impl" ;;
    crash) echo "hello is broken" >&2; exit 3 ;;
    v3) printf '{"protocol": 3, %s, %s, %s}\n' "$impl" "$ops" "$all" ;;
    garbage) echo "hello there" ;;
    esac
    exit 0
fi
if [ "$1" = "--persistent" ]; then
    exec /usr/bin/python3 "$(dirname "$0")/fake-persistent.py" "$0"
fi

op=$1
shift
dir=
work=
while [ $# -gt 0 ]; do
    case $1 in
    --case) dir=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "fake-adapter: unexpected argument $1" >&2; exit 64 ;;
    esac
done
case $dir in
/*) ;;
*) echo "fake-adapter: --case is not absolute: $dir" >&2; exit 64 ;;
esac
if [ -z "$work" ] || [ ! -d "$work" ] || [ -n "$(ls -A "$work")" ]; then
    echo "fake-adapter: --work is missing, not a directory or not empty" >&2
    exit 64
fi
if [ -n "$FAKE_CWD" ] && [ "$(pwd -P)" != "$FAKE_CWD" ]; then
    echo "fake-adapter: the cwd is not the runner's working directory" >&2
    exit 64
fi
grep -q "\"operation\": \"$op\"" "$dir/case.json" || {
    echo "fake-adapter: called for $op, which case.json does not name" >&2
    exit 64
}
id=$(basename "$dir")
if [ -n "$FAKE_LOG" ]; then
    echo "$id $work" >>"$FAKE_LOG"
fi

accept() { printf '%s\n' "$1"; exit 0; }
reject() { printf '{"error": "%s"}\n' "$1"; echo "rejected: $1" >&2; exit 1; }

case $id in
accept-ok) accept '{"value": {"list": [1.0, 2e0], "n": "1"}}' ;;
accept-any) accept '{"anything": true}' ;;
accept-wrong-output) accept '{"value": {"n": "2", "list": [1, 2]}}' ;;
accept-on-invalid) accept '{}' ;;
acceptable-accepts) accept '{}' ;;
acceptable-rejects) reject invalid-json ;;
reject-ok) reject unsafe-path ;;
reject-on-valid) reject invalid-json ;;
reject-wrong-code) reject invalid-target ;;
reject-unknown-code) reject no-such-code ;;
reject-malformed) echo '{}'; exit 1 ;;
reject-extra-member) echo '{"error": "invalid-json", "message": "x"}'; exit 1 ;;
stdout-not-json) echo 'done'; exit 0 ;;
stdout-array) echo '[]'; exit 0 ;;
segv-on-invalid) echo '{"error": "invalid-json"}'; kill -SEGV $$ ;;
exit3-on-invalid) echo '{"error": "invalid-json"}'; exit 3 ;;
abort-on-valid) echo '{}'; kill -ABRT $$ ;;
exit2) echo "fake-adapter: not supported" >&2; exit 2 ;;
answers-unsupported) printf '{"unsupported": "no json-read here"}\n'; exit 77 ;;
feature-missing) accept '{}' ;;
op-not-offered) echo "fake-adapter: must not be called for $id" >&2; exit 99 ;;
a-b | aa | a-10 | a-9) accept '{}' ;;
big-output)
    # stderr first: a runner that reads stdout to the end before stderr
    # would deadlock here
    yes 'noise on stderr' | head -c 3000000 >&2
    printf '{"big": "'
    yes x | tr -d '\n' | head -c 2000000
    printf '"}\n'
    exit 0
    ;;
nasty-stderr)
    printf 'ctl:\001\002\033[31m bad-utf8:\377\300\200 xml:]]><&"'"'"' nul:\000 end\n' >&2
    reject invalid-target
    ;;
leaves-child)
    # a descendant that keeps stdout open long after the adapter has exited
    sleep 30 &
    accept '{}'
    ;;
slow)
    sleep 120 &
    if [ -n "$FAKE_PIDS" ]; then
        echo $! >"$FAKE_PIDS"
    fi
    sleep "${FAKE_SLEEP:-0}"
    kill $! 2>/dev/null
    accept '{}'
    ;;
*) echo "fake-adapter: no behaviour for $id" >&2; exit 64 ;;
esac
