#!/usr/bin/env bash
# Does ncu profile the intended kernel with the filters `roofline timeline` writes from a Kineto trace?
# filters.txt: the --kernel-name of each ncu command `roofline timeline examples/user_level/trace_naive.json.gz
# --top 8` wrote (--kernel-name-base demangled); filter_before.txt: the filter the engine wrote before
# (the trace's own demangled text, escaped and anchored), as a control. For each, ncu profiles one launch
# of the same program (user_ops.py, the three naive ops of the trace) and prints the kernel it matched.
#   kernels/user_level/check_filters.sh OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
log=$out/check_filters.txt
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ) ncu: $(ncu --version | tail -n 1)" > "$log"
i=0
while IFS= read -r f; do
    i=$((i + 1))
    echo "== filter $i: $f" >> "$log"
    (cd "$here" && timeout 90 ncu --kernel-name-base demangled --kernel-name "$f" -c 1 --profile-from-start off \
        --metrics gpu__time_duration.sum --csv python3 user_ops.py --profile lmhead_bf16:naive,eager_chain:naive,noncontig:naive \
        2>&1 | grep -E '^"[0-9]|==PROF==.*(No kernels|Disconnected)|==ERROR==' | sed -E 's/^"([^"]*)","[^"]*","[^"]*","[^"]*","([^"]*)".*/matched: \2/' >> "$log")
    echo "exit: $?" >> "$log"
done < <(cat "$here/filters.txt" "$here/filter_before.txt")
cat "$log"
