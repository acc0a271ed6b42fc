# SPDX-License-Identifier: Apache-2.0
# lib.sh — the assertions every CLI end-to-end script shares (sourced, not
# run).  The script sets $tmp (a scratch directory) and passed=0 failed=0,
# and prints "$passed passed, $failed failed" at the end.

# Consumer scripts call use_tmp_root once: TMPDIR becomes $tmp/tmproot (pass
# it as --temporary-directory too), and from then on every check also
# asserts that the command left nothing in it, on success and on failure.
use_tmp_root() {
    tmproot=$tmp/tmproot
    mkdir -p "$tmproot"
    export TMPDIR=$tmproot
}

check() { # NAME EXPECTED_STATUS COMMAND...: run it, stdout/stderr to $tmp/out, $tmp/err
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [[ $got == "$want" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name: exit $got, expected $want"
        sed 's/^/  | /' "$tmp/out" "$tmp/err"
    fi
    if [[ -n ${tmproot:-} && -n $(ls -A "$tmproot" 2>/dev/null) ]]; then
        failed=$((failed + 1))
        echo "FAIL $name: left behind in the temporary root: $(ls -A "$tmproot" | head -n 3)"
        chmod -R u+w "$tmproot" 2>/dev/null
        rm -rf "${tmproot:?}"/* "$tmproot"/.[!.]* 2>/dev/null
    fi
}

# A size as the CLI shows it to people (sc_progress_human_size): "N bytes"
# under 1 KiB, else "1.5 MiB (1572864 bytes)" — the rounded size, the exact
# bytes beside it.
human_size() { # BYTES
    awk -v n="$1" 'BEGIN {
        if (n < 1024) { printf "%d bytes", n; exit }
        split("KiB MiB GiB TiB PiB EiB", u, " ")
        v = n / 1024; i = 1
        while (v >= 1024 && i < 6) { v /= 1024; i++ }
        printf "%.1f %s (%d bytes)", v, u[i], n
    }'
}

# A size as people see it in progress lines and receipts (sc_progress_short_size):
# "N B" under 1 KiB, else "1.5 MiB" — no exact count beside it.
short_size() { # BYTES
    awk -v n="$1" 'BEGIN {
        if (n < 1024) { printf "%d B", n; exit }
        split("KiB MiB GiB TiB PiB EiB", u, " ")
        v = n / 1024; i = 1
        while (v >= 1024 && i < 6) { v /= 1024; i++ }
        printf "%.1f %s", v, u[i]
    }'
}

expect_in() { # NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $1: \"$3\" not in $(basename "$2")"
        sed 's/^/  | /' "$2"
    fi
}

expect_not_in() { # NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then
        failed=$((failed + 1))
        echo "FAIL $1: \"$3\" unexpectedly in $(basename "$2")"
        sed 's/^/  | /' "$2"
    else
        passed=$((passed + 1))
    fi
}

expect() { # NAME CONDITION...
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name: $*"
    fi
}
