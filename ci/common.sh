# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts in ci/ (not run on its own).  Puts the shell in the
# repository root and settles what every stage shares: which tools, how many
# jobs, how each build directory is configured.

sc_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$sc_root"

# Debian's tools first.  A developer machine may put a pyenv python3 (without
# Debian's python3-jsonschema) or a /usr/local cmake ahead of them on PATH;
# CI's fresh Debian machine has only Debian's, and these scripts behave the
# same on both.
export PATH="/usr/bin:/bin:$PATH"
SC_PYTHON=/usr/bin/python3

sc_jobs=$(nproc 2>/dev/null || echo 2)

# Options valgrind gets in `ctest -T memcheck`.  Traced children: the
# conformance runner starts one adapter process per case, and those must be
# checked as well; interpreters and system tools are skipped.  The error exit
# status is 99, not 1, because 1 is what an adapter returns for a clean
# rejection: a leak on a rejection path would otherwise look like a pass.
# ci/valgrind-wrapper also fails a test whose process tree logged any error.
SC_MEMCHECK_OPTIONS="--leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 --track-fds=no --trace-children=yes --trace-children-skip=*/python3*,/bin/*,/usr/bin/*,*/venv/bin/*,*/venv/Scripts/*,*/standin/*,*/bin/git"

# The normal CI build (build/ci): warnings are errors, debug information (so
# valgrind reports have line numbers), memcheck configured.
sc_configure_ci() {
    cmake -S . -B build/ci \
        -DCMAKE_BUILD_TYPE=Debug \
        -DSC_WERROR=ON \
        -DPython3_EXECUTABLE="$SC_PYTHON" \
        -DMEMORYCHECK_COMMAND="$sc_root/ci/valgrind-wrapper" \
        -DMEMORYCHECK_TYPE=Valgrind \
        -DMEMORYCHECK_COMMAND_OPTIONS="$SC_MEMCHECK_OPTIONS" \
        --no-warn-unused-cli
}

sc_build() {
    cmake --build "$1" --parallel "$sc_jobs"
}

# Print a stage banner.
sc_banner() {
    printf '\n==== %s ====\n' "$*"
}

# Seconds as "1m23s".
sc_duration() {
    printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}
