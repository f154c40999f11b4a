#!/usr/bin/env bash
# Fails when a file of one stage includes a header of a stage it may not reach. The stages form a tree,
# not a tower (docs/architecture.md): base at the root; read and render on base; the kernel pipeline
# (models -> diagnose -> pipeline -> report) on read and render; the timeline beside it, on base, read and
# render only; compare, validate and the command line on top of both.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
stages=(analyzer/base analyzer/read analyzer/render models analyzer/diagnose analyzer/pipeline analyzer/report
        analyzer/timeline analyzer/compare analyzer/validate analyzer/cli)
# What each stage may include, besides itself.
declare -A reaches=(
    [analyzer/base]=""
    [analyzer/read]="analyzer/base"
    [analyzer/render]="analyzer/base"
    [models]="analyzer/base analyzer/read"
    [analyzer/diagnose]="analyzer/base analyzer/read models"
    [analyzer/pipeline]="analyzer/base analyzer/read models analyzer/diagnose"
    [analyzer/report]="analyzer/base analyzer/read analyzer/render models analyzer/diagnose analyzer/pipeline"
    [analyzer/timeline]="analyzer/base analyzer/read analyzer/render"
    [analyzer/compare]="analyzer/base analyzer/read analyzer/render models analyzer/diagnose analyzer/pipeline analyzer/report analyzer/timeline"
    [analyzer/validate]="analyzer/base analyzer/read analyzer/render models analyzer/diagnose analyzer/pipeline analyzer/report analyzer/timeline analyzer/compare"
    [analyzer/cli]="analyzer/base analyzer/read analyzer/render models analyzer/diagnose analyzer/pipeline analyzer/report analyzer/timeline analyzer/compare analyzer/validate"
)
stage_of() {
    local s
    for s in "${stages[@]}"; do
        case "$1" in "$s"/*) echo "$s"; return ;; esac
    done
}
status=0
checked=0
cd "$root"
while IFS= read -r file; do
    own=$(stage_of "$file")
    if [ -z "$own" ]; then
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
        theirs=$(stage_of "$target")
        checked=$((checked + 1))
        [ "$theirs" = "$own" ] && continue
        if [[ " ${reaches[$own]} " != *" $theirs "* ]]; then
            echo "$file:$line: $own includes $target of $theirs, which it may not reach (it reaches: ${reaches[$own]:-nothing})"
            status=1
        fi
    done < <(grep -n '^#include "' "$file" || true)
done < <(find analyzer models -name '*.hpp' -o -name '*.cpp' | sort)
echo "checked $checked includes"
exit $status
