#!/usr/bin/env bash
# Builds the validation kernels, checks and times them, profiles each once with
# `ncu --set full` (plus the PyTorch ops in torch_ops.py), and exports every CSV form the
# analyzer reads. Meant for one call on the device machine:
#   kernels/profile.sh OUTDIR
# OUTDIR receives the exports, the runner's output and manifest.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
work=$(mktemp -d)
arch=${ROOFLINE_CUDA_ARCH:-90}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
    echo "ncu: $(ncu --version | tail -n 1)"
    echo "nvcc: $(nvcc --version | tail -n 1)"
    echo "torch: $(python3 -c 'import torch; print(torch.__version__)')"
    echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset}"
} > "$out/manifest.txt"

nvcc -std=c++20 -O3 -lineinfo -gencode "arch=compute_$arch,code=sm_$arch" \
    "$here"/runner.cu "$here"/memory_cases.cu "$here"/compute_cases.cu "$here"/launch_cases.cu \
    -o "$work/roofline-kernels"
"$work/roofline-kernels" --list > "$out/kernels_list.txt"
# Correctness and timing outside the profiler.
"$work/roofline-kernels" all | tee "$out/runner_timing.txt"

ncu_cmd_kernels="ncu --set full -o $work/kernels $work/roofline-kernels --once all"
ncu_cmd_torch="ncu --set full --profile-from-start off -o $work/torch_ops python3 $here/torch_ops.py"
echo "command (kernels): $ncu_cmd_kernels" >> "$out/manifest.txt"
echo "command (torch): $ncu_cmd_torch" >> "$out/manifest.txt"
$ncu_cmd_kernels > "$out/ncu_kernels_stdout.txt" 2>&1
$ncu_cmd_torch > "$out/ncu_torch_stdout.txt" 2>&1

for rep in kernels torch_ops; do
    r="$work/$rep.ncu-rep"
    ncu -i "$r" --csv --page raw > "$out/${rep}_raw.csv"
    ncu -i "$r" --csv --page raw --print-units base > "$out/${rep}_raw_base.csv"
    ncu -i "$r" --csv --page details > "$out/${rep}_details.csv"
    ncu -i "$r" --csv --page details --print-units base > "$out/${rep}_details_base.csv"
    LC_ALL=C ncu -i "$r" --csv --page raw > "$out/${rep}_raw_lc_c.csv"
    LC_ALL=C ncu -i "$r" --csv --page details > "$out/${rep}_details_lc_c.csv"
done
ncu -i "$work/kernels.ncu-rep" --csv --page raw --print-metric-instances values > "$out/kernels_raw_instances.csv"
ncu -i "$work/kernels.ncu-rep" --csv --page details --print-metric-instances details > "$out/kernels_details_instances.csv"
ncu -i "$work/kernels.ncu-rep" --csv --print-summary per-kernel > "$out/kernels_summary.csv"
ncu -i "$work/kernels.ncu-rep" --csv --page session > "$out/kernels_session.csv"

# A live run: custom metric list, CSV mixed with ==PROF== lines and the program's output,
# one kernel launched eight times.
live="ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size $work/roofline-kernels --once copy_vec4 tiny_add_chain"
echo "command (live): $live" >> "$out/manifest.txt"
$live > "$out/live_metrics_stdout.txt" 2>&1 || true
locale -a > "$out/locales.txt" 2>&1 || true
cp "$work"/*.ncu-rep "$out/"
