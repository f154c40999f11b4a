#!/usr/bin/env bash
# Fails when a file of one stage includes a header of a stage above its own. The stages, lowest
# first (docs/architecture.md): each may include its own headers and those of the stages before it.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
stages=(analyzer/base analyzer/read models analyzer/diagnose analyzer/pipeline analyzer/report analyzer/timeline analyzer/compare analyzer/validate analyzer/cli)
rank_of() {
    local i
    for i in "${!stages[@]}"; do
        case "$1" in "${stages[$i]}"/*) echo "$i"; return ;; esac
    done
    echo -1
}
status=0
checked=0
cd "$root"
while IFS= read -r file; do
    own=$(rank_of "$file")
    if [ "$own" -lt 0 ]; then
        echo "$file: not in any stage folder (${stages[*]})"
        status=1
        continue
    fi
    while IFS=: read -r line include; do
        target=$(sed -n 's/^#include "\(.*\)"/\1/p' <<<"$include")
        [ -n "$target" ] || continue
        if [ ! -f "$target" ]; then
            echo "$file:$line: includes \"$target\", which is not a path from the repository root"
            status=1
            continue
        fi
        theirs=$(rank_of "$target")
        checked=$((checked + 1))
        if [ "$theirs" -gt "$own" ]; then
            echo "$file:$line: ${stages[$own]} includes $target of ${stages[$theirs]}, a stage above it"
            status=1
        fi
    done < <(grep -n '^#include "' "$file" || true)
done < <(find analyzer models -name '*.hpp' -o -name '*.cpp' | sort)
echo "checked $checked includes"
exit $status
