#!/usr/bin/env bash
# README examples are tests: every `roofline ...` command written in README.md and docs/*.md (inline
# or on its own line in a code block) that names only files of the repository runs as written, from a
# copy of the repository root, and exits 0. Commands with placeholders (FILE, DIR, [--opt], A|B, ...)
# or the files of a user's own program (report.csv, before.csv) are the syntax, not an example: skipped,
# and counted.
# usage: readme_examples.sh ROOFLINE SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in examples hwspecs rules kernels tests docs README.md; do cp -a "$src/$d" "$work/"; done
cd "$work" || exit 2
# Inline `roofline ...` spans, and lines of code blocks that start with roofline (or $ roofline).
examples=$(cd "$src" && {
    grep -ho '`roofline [^`]*`' README.md docs/*.md | sed 's/^`//; s/`$//'
    awk '/^```/ { inside = !inside; next } inside && /^(\$ )?roofline / { sub(/^\$ /, ""); print }' README.md docs/*.md
} | sort -u)
ran=0 skipped=0 fail=0
while IFS= read -r line; do
    [ -n "$line" ] || continue
    # Placeholders: a word in capitals (FILE, DIR, GPU, OP, BASE.csv, KEY=VALUE), brackets, alternatives, ellipses.
    if grep -Eq '(^| )[A-Z][A-Z_]+([.=][A-Za-z._]*)?( |$)|\[|\||\.\.\.' <<< "$line"; then skipped=$((skipped + 1)); continue; fi
    read -r -a words <<< "$line"
    # A command that needs an input, named without one (`roofline analyze --format json`, a heading), is a
    # reference to the command, not an example.
    case ${words[1]:-} in
        analyze | diff | project | calibrate | lessons | pairs | predict | triage | timeline)
            positional=0
            # Its input: a file or folder of the repository, or predict's KEY=VALUE.
            for w in "${words[@]:2}"; do if [ -e "$w" ] || [[ $w == *=* ]]; then positional=1; fi; done
            if [ $positional -eq 0 ] && [ "${words[2]:-}" != "--help" ]; then skipped=$((skipped + 1)); continue; fi
            ;;
    esac
    # Every input it names must be a file or folder of the repository (outputs after -o / --spec-out are made).
    missing=""
    prev=""
    for w in "${words[@]:2}"; do
        w=${w//\'/}
        case $prev in -o | --output | --spec-out) prev=$w; continue ;; esac
        case $w in
            *.csv | *.json | *.txt | */*) [ -e "$w" ] || missing="$w" ;;
        esac
        prev=$w
    done
    if [ -n "$missing" ]; then skipped=$((skipped + 1)); continue; fi
    ran=$((ran + 1))
    eval "\"$bin\" ${line#roofline }" > "$work/out.txt" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL (exit $rc): $line"
        sed -n '1,5p' "$work/out.txt"
        fail=1
    else
        echo "ok: $line"
    fi
done <<< "$examples"
echo "$ran examples ran, $skipped skipped (placeholders, or files of the user's own program)"
[ "$ran" -ge 10 ] || { echo "FAIL: fewer than 10 examples ran: the extraction broke"; fail=1; }
exit $fail
