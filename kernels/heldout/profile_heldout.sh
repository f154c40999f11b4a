#!/usr/bin/env bash
# The device-machine side of examples/heldout, heldout_vision, heldout_decode and heldout_moe: `ncu --set full` of the first
# launches of one training step of mini_gpt.py (or HO_SCRIPT), exported as the raw and the details page of the
# same report.
#   kernels/heldout/profile_heldout.sh OUTDIR
# Bounded: ncu stops after HO_LAUNCHES launches (--launch-count, --kill yes) and within HO_BUDGET seconds.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
work=$(mktemp -d)
launches=${HO_LAUNCHES:-90}
script=${HO_SCRIPT:-mini_gpt.py}
budget=${HO_BUDGET:-420}
man=$out/manifest.txt
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader)"
    echo "ncu: $(ncu --version | tail -n 1)"
    echo "versions: $(python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' 2>&1)"
    echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset} LC_NUMERIC=${LC_NUMERIC:-unset}"
} >> "$man"
cmd="ncu --set full --profile-from-start off --launch-count $launches --kill yes -f -o $work/step python3 $here/$script"
echo "command: $cmd" >> "$man"
PYTHONUNBUFFERED=1 timeout "$budget" $cmd > "$out/ncu_stdout.txt" 2>&1
echo "ncu exit: $? at ${SECONDS}s" >> "$man"
if [ -f "$work/step.ncu-rep" ]; then
    timeout 90 ncu -i "$work/step.ncu-rep" --csv --page raw > "$out/step_raw.csv" 2>> "$out/export.err"
    echo "export raw: $? ($(wc -l < "$out/step_raw.csv") lines) at ${SECONDS}s" >> "$man"
    timeout 90 ncu -i "$work/step.ncu-rep" --csv --page details > "$out/step_details.csv" 2>> "$out/export.err"
    echo "export details: $? ($(wc -l < "$out/step_details.csv") lines) at ${SECONDS}s" >> "$man"
fi
rm -rf "$work"
tail -n 8 "$man"
