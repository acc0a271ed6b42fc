#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# spdx_lines.sh SOURCE_DIR — every source file of the project starts with its
# licence line (the rule of README.md, "Licence lines"):
#
#   C, C++, CUDA (.c .h .cc .cpp .hpp .cu .cuh, and .h.in templates):
#       line 1 is   /* SPDX-License-Identifier: Apache-2.0 */
#   shell, Python, CMake, YAML, pkg-config and every file with a #! line
#   (.sh .py .cmake CMakeLists.txt .yml .yaml .pc.in, debian/rules):
#       line 1 is   # SPDX-License-Identifier: Apache-2.0
#       or line 2, when line 1 is the #! line
#
# Not checked, because they are data a program reads byte for byte or a
# format with no comments: golden/ (the conformance corpus),
# conformance/selftest/corpus/, fuzz/corpora/, examples/ (sample workspaces
# and documents that boxes are built from), JSON, Markdown, and the LICENSE,
# NOTICE and VERSION files.  The files are git's (tracked and untracked, not
# ignored) when SOURCE_DIR is a git work tree, else every file under it
# except build/.
set -u
src=$1
cd "$src" || exit 2
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list() { git ls-files -z --cached --others --exclude-standard; }
else
    list() { find . -path ./build -prune -o -path ./.git -prune -o -type f -printf '%P\0'; }
fi
c_line='/* SPDX-License-Identifier: Apache-2.0 */'
hash_line='# SPDX-License-Identifier: Apache-2.0'
checked=0 failed=0
while IFS= read -r -d '' f; do
    [[ -f $f ]] || continue # deleted but still tracked
    case $f in
    golden/* | conformance/selftest/corpus/* | fuzz/corpora/* | examples/*) continue ;;
    esac
    kind=
    case $f in
    *.c | *.h | *.cc | *.cpp | *.hpp | *.cu | *.cuh | *.h.in) kind=c ;;
    *.sh | *.py | *.cmake | CMakeLists.txt | */CMakeLists.txt | *.yml | *.yaml | *.pc.in | debian/rules) kind=hash ;;
    *)
        IFS= read -r first <"$f" 2>/dev/null || first=
        [[ $first == '#!'* ]] && kind=hash
        ;;
    esac
    [[ -n $kind ]] || continue
    checked=$((checked + 1))
    l1=$(sed -n 1p "$f") l2=$(sed -n 2p "$f")
    if [[ $kind == c ]]; then
        [[ $l1 == "$c_line" ]] && continue
    else
        [[ $l1 == "$hash_line" ]] && continue
        [[ $l1 == '#!'* && $l2 == "$hash_line" ]] && continue
    fi
    want=$hash_line
    [[ $kind == c ]] && want=$c_line
    echo "FAIL: $f: does not start with: $want"
    failed=$((failed + 1))
done < <(list)
echo "$checked files checked, $failed without an SPDX line"
((checked > 0 && failed == 0))
