#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# conformance/ci/action.sh — the body of the GitHub Action (action.yml) and
# of the GitLab CI template (ci/gitlab/scrollcase-conformance.yml): get a
# runner and a corpus, run the suite against a port's adapter, leave the
# reports.  Everything comes from environment variables, named after the
# action's inputs:
#
#   SC_ADAPTER        the adapter command line, split like a shell would
#                     (quotes allowed, no expansion): "python3 port/adapter.py"
#   SC_XFAIL          expected-failures file (optional)
#   SC_AREAS          areas to run, separated by spaces or commas (optional)
#   SC_SHARD          I/N, I counting from 1 (optional)
#   SC_SUITE_VERSION  run the cases of this suite release; with
#                     SC_RUNNER=download also the release to download
#                     (default: this checkout's conformance/VERSION)
#   SC_RUNNER         build (default: build the runner from this checkout,
#                     conformance/standalone, and use its golden/), download
#                     (the release files from SC_RELEASE_URL), or the path of
#                     an existing scrollcase-conform (corpus: SC_CORPUS)
#   SC_RELEASE_URL    where download finds <name>.tar.gz and SHA256SUMS
#                     (default: this repository's GitHub release of the
#                     suite version; file:// works, for tests)
#   SC_CORPUS         a corpus directory (overrides the one that comes with
#                     the runner)
#   SC_REPORT_JSON, SC_REPORT_JUNIT, SC_REPORT_TAP, SC_REPORT_HTML
#                     report paths (optional)
#   SC_ALLOW_EMPTY    true: a selection that runs nothing passes
#   SC_EXTRA_ARGS     more runner options, shell-split (e.g. "--jobs 4")
#   SC_WORK           where runners and corpora are put (default: RUNNER_TEMP
#                     or TMPDIR)
#
# Under GitHub Actions (GITHUB_ACTIONS=true) failing cases also become
# annotations (::error file=...).  The exit status is the runner's.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "scrollcase conformance: $*" >&2; exit 2; }

# shell-style splitting without evaluation (python3's shlex)
split() {
    python3 -c 'import shlex, sys; sys.stdout.write("\0".join(shlex.split(sys.argv[1])))' "$1"
}

[ -n "${SC_ADAPTER:-}" ] || die "the adapter input (SC_ADAPTER) is required"
adapter=()
while IFS= read -r -d '' w; do adapter+=("$w"); done < <(split "$SC_ADAPTER"; printf '\0')
[ "${#adapter[@]}" -gt 0 ] || die "the adapter command is empty"

version=${SC_SUITE_VERSION:-$(tr -d ' \n' <"$root/conformance/VERSION")}
work=${SC_WORK:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}/scrollcase-conformance
mkdir -p "$work"
corpus=${SC_CORPUS:-}

case ${SC_RUNNER:-build} in
build)
    echo "::group::build scrollcase-conform from $root" 2>/dev/null || true
    cmake -S "$root/conformance/standalone" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >&2
    cmake --build "$work/build" >&2
    echo "::endgroup::" 2>/dev/null || true
    runner=$work/build/scrollcase-conform
    corpus=${corpus:-$root/golden}
    ;;
download)
    os=$(uname -s | tr 'A-Z' 'a-z')
    arch=$(uname -m)
    base=${SC_RELEASE_URL:-https://github.com/${GITHUB_ACTION_REPOSITORY:-scrollcase-c/scrollcase}/releases/download/conformance-v$version}
    rname=scrollcase-conform-$version-$os-$arch
    cname=scrollcase-conformance-corpus-$version
    dl=$work/download-$version
    mkdir -p "$dl"
    for f in SHA256SUMS "$rname.tar.gz" "$cname.tar.gz"; do
        curl --fail --silent --show-error --location --output "$dl/$f" "$base/$f" ||
            die "cannot download $base/$f"
    done
    (cd "$dl" && sha256sum --check --strict SHA256SUMS >&2) || die "checksum mismatch in $base"
    tar -xzf "$dl/$rname.tar.gz" -C "$dl"
    tar -xzf "$dl/$cname.tar.gz" -C "$dl"
    runner=$dl/$rname/bin/scrollcase-conform
    corpus=${corpus:-$dl/$cname/golden}
    ;;
*)
    runner=$SC_RUNNER
    [ -x "$runner" ] || die "SC_RUNNER=$runner is neither build, download nor an executable"
    [ -n "$corpus" ] || die "SC_RUNNER names a runner: give the corpus (SC_CORPUS)"
    ;;
esac

args=(--corpus "$corpus")
if [ -n "${SC_SUITE_VERSION:-}" ]; then
    args+=(--suite-version "$SC_SUITE_VERSION")
fi
for a in ${SC_AREAS//,/ }; do
    args+=(--area "$a")
done
[ -z "${SC_SHARD:-}" ] || args+=(--shard "$SC_SHARD")
[ -z "${SC_XFAIL:-}" ] || args+=(--xfail "$SC_XFAIL")
[ -z "${SC_REPORT_JSON:-}" ] || args+=(--report-json "$SC_REPORT_JSON")
[ -z "${SC_REPORT_JUNIT:-}" ] || args+=(--report-junit "$SC_REPORT_JUNIT")
[ -z "${SC_REPORT_TAP:-}" ] || args+=(--report-tap "$SC_REPORT_TAP")
[ -z "${SC_REPORT_HTML:-}" ] || args+=(--report-html "$SC_REPORT_HTML")
[ "${SC_ALLOW_EMPTY:-false}" != true ] || args+=(--allow-empty)
[ "${GITHUB_ACTIONS:-}" != true ] || args+=(--report-github -)
if [ -n "${SC_EXTRA_ARGS:-}" ]; then
    while IFS= read -r -d '' w; do args+=("$w"); done < <(split "$SC_EXTRA_ARGS"; printf '\0')
fi
for d in "${SC_REPORT_JSON:-}" "${SC_REPORT_JUNIT:-}" "${SC_REPORT_TAP:-}" "${SC_REPORT_HTML:-}"; do
    [ -z "$d" ] || mkdir -p "$(dirname "$d")"
done

set +e
"$runner" "${args[@]}" -- "${adapter[@]}"
rc=$?
set -e
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-status=$rc" >>"$GITHUB_OUTPUT"
fi
exit "$rc"
