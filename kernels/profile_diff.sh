#!/usr/bin/env bash
# The captures behind `roofline diff`'s tests and noise floor (examples/h100/diff/). On the device
# machine: kernels/profile_diff.sh OUTDIR
#   before.csv, before_again.csv  the "before" build profiled twice (--set full): same binary, so every
#                                 difference between them is ncu's run-to-run spread
#   after.csv                     the "after" build (transpose fixed) profiled once (--set full)
#   timing_N.csv                  the before build, gpu__time_duration.sum only, N = 1..5 (the spread
#                                 over more runs, one pass each)
# All exported with --page raw (auto units) in the locale the machine has; manifest.txt records the
# machine, versions and every command.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
work=$(mktemp -d)
"$here/machine_manifest.sh" > "$out/manifest.txt"
run() { echo "command: $*" >> "$out/manifest.txt"; "$@"; }
for fixed in 0 1; do
    name=$([ $fixed = 0 ] && echo before || echo after)
    run nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -DFIXED=$fixed "$here/diff_demo.cu" -o "$work/diff_$name" || exit 1
    "$work/diff_$name" >> "$out/manifest.txt" 2>&1 || { echo "diff_$name failed its checks" >> "$out/manifest.txt"; exit 1; }
done
capture() {  # report-name binary
    run ncu --set full -f -o "$work/$1" "$work/$2" > "$work/ncu_$1.txt" 2>&1
    cp "$work/ncu_$1.txt" "$out/ncu_$1_stdout.txt"
    run ncu -i "$work/$1.ncu-rep" --csv --page raw > "$out/$1.csv"
}
capture before diff_before
capture before_again diff_before
capture after diff_after
for i in 1 2 3 4 5; do
    run ncu --metrics gpu__time_duration.sum --csv "$work/diff_before" 2>/dev/null | grep -v '^diff_demo' > "$out/timing_$i.csv"
done
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out/manifest.txt"
