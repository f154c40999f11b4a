#!/usr/bin/env bash
# The exit codes as a user's script sees them: 0 done, 1 a regression gate failed, 2 bad input or a
# bad command line (nothing written). 3, an internal error, has no input that causes it.
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
expect 0 "the pairs hold on the H100 capture" "$bin" pairs "$src/examples/h100" --check
# The same capture held to a pairs file whose first expectation is changed: the gate fails.
sed '0,/"expect": "memory\/dram"/s//"expect": "compute\/fp32"/' "$src/kernels/pairs.json" > "$work/pairs.json"
expect 1 "a verdict differs from pairs.json (pairs --check)" "$bin" pairs "$src/examples/h100" --pairs "$work/pairs.json" --check
exit $fail
