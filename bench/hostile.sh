#!/usr/bin/env bash
# Issue 35's kill and race checks, measured (not a test: it takes minutes and depends on timing):
#  - 80 runs per signal (SIGTERM, SIGINT, SIGHUP, SIGKILL) of `roofline analyze` writing an HTML report of a
#    30 MB capture, each killed at a random moment of its run: the temporary files left beside the output
#    (none may remain for the signals a process can catch; SIGKILL's have random names, and the next run
#    must succeed all the same);
#  - 50 races of two runs writing the same new file without -f: how many times both succeed (must be 0).
# Appends a section to bench/RESULTS-hostile.md.
# usage: bench/hostile.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$(realpath "$build/roofline")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/make_inputs.py "$work" 30 >/dev/null
input=$work/raw_distinct_30mb.csv
out=$work/out
mkdir -p "$out"
start=$(date +%s.%N)
"$bin" analyze "$input" -o "$out/timing.html" -f 2>/dev/null
run_s=$(echo "$(date +%s.%N) - $start" | bc)
rows=""
for sig in TERM INT HUP KILL; do
    rm -f "$out"/*
    died=0
    for i in $(seq 1 80); do
        "$bin" analyze "$input" -o "$out/report.html" -f 2>/dev/null &
        pid=$!
        sleep "$(awk -v s="$run_s" -v r="$RANDOM" 'BEGIN { printf "%.3f", s * r / 32767 }')"
        kill -s "$sig" "$pid" 2>/dev/null && died=$((died + 1))
        wait "$pid" 2>/dev/null
    done
    left=$(find "$out" -name '*.tmp-*' | wc -l)
    next=ok
    "$bin" analyze "$input" -o "$out/report.html" -f 2>/dev/null || next=FAILED
    rows+="| SIG$sig | 80 | $died | $left | $next |"$'\n'
done
both=0
for i in $(seq 1 50); do
    rm -f "$out/race.md"
    "$bin" analyze examples/h100/kernels_raw.csv -o "$out/race.md" 2>/dev/null &
    a=$!
    "$bin" analyze examples/h100/kernels_raw.csv -o "$out/race.md" 2>/dev/null &
    b=$!
    wait "$a"; ra=$?
    wait "$b"; rb=$?
    [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] && both=$((both + 1))
done
{
    echo
    echo "## $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
    echo
    echo "\`bench/hostile.sh $build\` on $(nproc) cores. One run writes a ${run_s%???????} s report; each kill lands at a"
    echo "random moment of a run (before the process was done: 'killed' counts the kills that found it running)."
    echo
    echo "| signal | runs | killed | temporary files left | the next run |"
    echo "|---|---|---|---|---|"
    printf '%s' "$rows"
    echo
    echo "Two runs writing the same new file without -f, 50 times: both succeeded $both times."
} >> bench/RESULTS-hostile.md
tail -12 bench/RESULTS-hostile.md
