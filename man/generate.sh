#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# generate.sh SCROLLCASE CONFORM SOURCE_DIR OUT_DIR PYTHON — the man pages and
# completions (gen_docs.py) from the option tables the two programs print:
# `scrollcase help --commands-json` and `scrollcase-conform --options-json`.
# OUT_DIR is replaced as a whole; the tables used are kept in it
# (commands.json, conform.json) for the tests.
set -euo pipefail
sc=$1 conform=$2 src=$3 out=$4 py=$5
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
if ! "$sc" help --commands-json >"$tmp/commands.json"; then
    echo "man/generate.sh: $sc help --commands-json failed" >&2
    exit 1
fi
if ! "$conform" --options-json >"$tmp/conform.json"; then
    echo "man/generate.sh: $conform --options-json failed" >&2
    exit 1
fi
"$py" "$src/gen_docs.py" --commands "$tmp/commands.json" --conform "$tmp/conform.json" \
    --format-page "$src/scrollcase-format.5" --out "$tmp"
rm -rf "$out"
mv "$tmp" "$out"
