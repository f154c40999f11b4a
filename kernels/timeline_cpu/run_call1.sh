#!/bin/bash
# Call 1 (one GPU): workloads A-D. Usage from the repository root:
#   bash kernels/timeline_cpu/run_call1.sh WORKDIR OUTDIR
# Each workload is its own process bounded by `timeout`; results are packed into OUTDIR/call1_N.tar.
set -u
D=$1
O=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/traces" "$O"
export PYTHONUNBUFFERED=1
bash "$HERE/manifest.sh" "bash kernels/timeline_cpu/run_call1.sh $D \$OUT" > "$D/manifest_call1.txt" 2>&1
head -12 "$D/manifest_call1.txt"
declare -A T=([A]=130 [B]=75 [C]=130 [D]=75)
for w in A B C D; do
    echo "### $(date -u +%H:%M:%S) timeout ${T[$w]} python3 kernels/timeline_cpu/cpu_workloads.py $w $D" | tee -a "$D/log_call1.txt"
    timeout -k 5 "${T[$w]}" python3 "$HERE/cpu_workloads.py" "$w" "$D" 2>&1 | tee -a "$D/log_call1.txt"
    echo "### workload $w exit ${PIPESTATUS[0]} at $(date -u +%H:%M:%S)" | tee -a "$D/log_call1.txt"
done
echo "date_utc_end: $(date -u '+%Y-%m-%d %H:%M:%S')" >> "$D/manifest_call1.txt"
ls -laR "$D" | tee -a "$D/log_call1.txt"
python3 "$HERE/pack.py" "$D" "$O" call1
