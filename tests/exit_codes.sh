#!/usr/bin/env bash
# The exit codes as a user's script sees them: 0 done, 1 a regression gate failed (pairs --check,
# diff --fail-if-slower), 2 bad input or a bad command line (nothing written). 3, an internal error,
# has no input that causes it.
# usage: exit_codes.sh ROOFLINE SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
expect() {  # code, description, command...
    local want=$1 what=$2
    shift 2
    "$@" >/dev/null 2>&1
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"
        fail=1
    else
        echo "ok: $what: exit $got"
    fi
}
expect 0 "a capture analysed" "$bin" analyze "$src/tests/corpus/pass_trimmed_raw.csv" -o "$work/ok.md"
expect 2 "a malformed capture" "$bin" analyze "$src/tests/corpus/fail_column_count.csv" -o "$work/bad.md"
[ -e "$work/bad.md" ] && { echo "FAIL: a report was written for bad input"; fail=1; }
expect 2 "an unknown option" "$bin" analyze "$src/tests/corpus/pass_trimmed_raw.csv" --no-such-option
expect 2 "no command" "$bin"
expect 2 "an unknown command" "$bin" analyse "$src/tests/corpus/pass_trimmed_raw.csv"
ok=$src/tests/corpus/pass_trimmed_raw.csv
expect 2 "--launch-count -1" "$bin" analyze "$ok" --launch-count -1
expect 0 "a prediction" "$bin" predict gemm M=64 N=64 K=64 dtype=bf16 -o "$work/p.json"
expect 2 "a prediction with a misspelt key" "$bin" predict gemm M=64 N=64 K=64 dtype=bf16 batchh=2 -o "$work/bad.json"
[ -e "$work/bad.json" ] && { echo "FAIL: a prediction was written for a bad key"; fail=1; }
expect 2 "--launch-skip abc" "$bin" analyze "$ok" --launch-skip abc
expect 2 "--top 0" "$bin" analyze "$ok" --top 0
expect 2 "an unknown --gpu" "$bin" analyze "$ok" --gpu h100sxm
expect 2 "-o x.json --format markdown" "$bin" analyze "$ok" -o "$work/x.json" --format markdown
[ -e "$work/x.json" ] && { echo "FAIL: a report was written despite the contradiction"; fail=1; }
mkdir "$work/folder"
expect 2 "-o a folder" "$bin" analyze "$ok" -o "$work/folder"
[ -e "$work/folder.svg" ] && { echo "FAIL: -o a folder left folder.svg behind"; fail=1; }
msg=$("$bin" analyze "$ok" -o "$work/folder" 2>&1)
case $msg in *Success*) echo "FAIL: -o a folder says: $msg"; fail=1 ;; esac
expect 0 "-o into a missing folder (made)" "$bin" analyze "$ok" -o "$work/missing/r.md"
[ -f "$work/missing/r.md" ] || { echo "FAIL: -o into a missing folder wrote no file"; fail=1; }
expect 2 "-o onto an existing file without -f" "$bin" analyze "$ok" -o "$work/missing/r.md"
expect 0 "-o onto an existing file with -f" "$bin" analyze "$ok" -o "$work/missing/r.md" -f
printf 'NVIDIA\0\1\2binary' > "$work/rep.ncu-rep"
expect 2 "an .ncu-rep" "$bin" analyze "$work/rep.ncu-rep"
msg=$("$bin" analyze "$work/rep.ncu-rep" 2>&1)
case $msg in *"ncu -i $work/rep.ncu-rep --csv --page raw > $work/rep.csv"*) ;; *) echo "FAIL: .ncu-rep says: $msg"; fail=1 ;; esac
expect 0 "the pairs hold on the H100 capture" "$bin" pairs "$src/examples/h100" --check
# The same capture held to a pairs file whose first expectation is changed: the gate fails.
sed '0,/"expect": "memory\/dram"/s//"expect": "compute\/fp32"/' "$src/kernels/pairs.json" > "$work/pairs.json"
expect 1 "a verdict differs from pairs.json (pairs --check)" "$bin" pairs "$src/examples/h100" --pairs "$work/pairs.json" --check
# diff's gate: one export twice never trips it; the H100 against the H200 is slower by more than 5%
# (the report is written all the same); a second file missing is a usage error.
expect 0 "diff of one export twice (--fail-if-slower 0)" "$bin" diff "$src/examples/h100/kernels_raw.csv" "$src/examples/h100/kernels_raw_lc_c.csv" --fail-if-slower 0 -o "$work/same.md"
expect 1 "diff H200 -> H100 slower than 5% (diff --fail-if-slower)" "$bin" diff "$src/examples/h200/kernels_raw.csv" "$src/examples/h100/kernels_raw.csv" --fail-if-slower 5 -o "$work/slower.md"
[ -e "$work/slower.md" ] && [ -e "$work/slower.svg" ] || { echo "FAIL: diff's gate failed without writing its report"; fail=1; }
expect 2 "diff with one file" "$bin" diff "$ok"
expect 2 "diff --noise -1" "$bin" diff "$ok" "$ok" --noise -1
# Out of memory is the input's size against the machine's limit, not an internal error: exit 2, said so.
# 300,000 kernels of distinct 1,000-character names (300 MB of names to keep) under a 250 MB address space.
awk 'BEGIN { pad = sprintf("%1000s", ""); printf "{\"traceEvents\": ["
    for (i = 0; i < 300000; i++) printf "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}}", (i ? "," : ""), i, pad, i * 10, i
    printf "]}" }' > "$work/names.json"
err=$( (ulimit -v 250000; "$bin" timeline "$work/names.json" --format json >/dev/null) 2>&1 )
got=$?
if echo "$err" | grep -q "Sanitizer"; then
    echo "skip: out of memory: a sanitizer's shadow memory needs more address space than the limit"
elif [ "$got" -eq 2 ] && echo "$err" | grep -q "out of memory"; then
    echo "ok: out of memory: exit 2, said so"
else
    echo "FAIL: out of memory: exit $got: $err"
    fail=1
fi
exit $fail
