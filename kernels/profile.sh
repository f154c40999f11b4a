#!/usr/bin/env bash
# Builds the validation kernels, checks and times every one, profiles each once with
# `ncu --set full`, profiles cuBLAS (through PyTorch) on the tensor pair's problem, and exports
# raw and details pages in auto and base units. One call on the device machine:
#   kernels/profile.sh OUTDIR
# OUTDIR receives pairs_*.csv, cublas_ref_*.csv, runner_timing.txt and manifest.txt.
# ROOFLINE_PROFILE_STAGE=timing runs only the build and the timed checks, =profile only the build,
# ncu and the exports: two calls when one does not fit the device machine's 10-minute limit (the
# H100 pairs run of 2026-11-22 needed 9.5 minutes on a slow start and lost its details export).
# ROOFLINE_PROFILE_ALL_FORMS=1 also profiles torch_ops.py and writes every other CSV form
# (metric instances, summary, session, LC_ALL=C, a live --metrics run): how examples/h100's
# kernels_*/torch_ops_*/live_* reader fixtures were made.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
work=$(mktemp -d)
arch=${ROOFLINE_CUDA_ARCH:-90}
sources=(runner.cu memory_cases.cu compute_cases.cu launch_cases.cu pairs_memory.cu pairs_sync.cu pairs_compute.cu
         pairs_tensor.cu pairs_occupancy.cu sweep_cases.cu)

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
    echo "ncu: $(ncu --version | tail -n 1)"
    echo "nvcc: $(nvcc --version | tail -n 1)"
    echo "torch: $(python3 -c 'import torch; print(torch.__version__)')"
    echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset}"
} > "$out/manifest.txt"

(cd "$here" && nvcc -std=c++20 -O3 -lineinfo -gencode "arch=compute_$arch,code=sm_$arch" "${sources[@]}" -o "$work/roofline-kernels") || exit 1
"$work/roofline-kernels" --list > "$out/kernels_list.txt"
stage=${ROOFLINE_PROFILE_STAGE:-all}
if [ "$stage" != profile ]; then
    # Correctness and timing outside the profiler; a wrong result is recorded, and the run goes on.
    "$work/roofline-kernels" all > "$out/runner_timing.txt" 2>&1
    echo "runner exit code: $?" >> "$out/runner_timing.txt"
    cat "$out/runner_timing.txt"
fi
[ "$stage" = timing ] && exit 0

export_report() {  # report name
    local r="$work/$1.ncu-rep"
    ncu -i "$r" --csv --page raw > "$out/${1}_raw.csv"
    ncu -i "$r" --csv --page raw --print-units base > "$out/${1}_raw_base.csv"
    ncu -i "$r" --csv --page details > "$out/${1}_details.csv"
    ncu -i "$r" --csv --page details --print-units base > "$out/${1}_details_base.csv"
}

cmd="ncu --set full -o $work/pairs $work/roofline-kernels --once all"
echo "command (pairs): $cmd" >> "$out/manifest.txt"
$cmd > "$out/ncu_pairs_stdout.txt" 2>&1
export_report pairs  # raw first: the analyzer's main input
cmd="ncu --set full --profile-from-start off -o $work/cublas_ref python3 $here/torch_ops.py matmul_fp16"
echo "command (cublas_ref): $cmd" >> "$out/manifest.txt"
$cmd > "$out/ncu_cublas_ref_stdout.txt" 2>&1
export_report cublas_ref

if [ "${ROOFLINE_PROFILE_ALL_FORMS:-0}" = 1 ]; then
    cmd="ncu --set full --profile-from-start off -o $work/torch_ops python3 $here/torch_ops.py"
    echo "command (torch_ops): $cmd" >> "$out/manifest.txt"
    $cmd > "$out/ncu_torch_stdout.txt" 2>&1
    export_report torch_ops
    r="$work/pairs.ncu-rep"
    LC_ALL=C ncu -i "$r" --csv --page raw > "$out/pairs_raw_lc_c.csv"
    LC_ALL=C ncu -i "$r" --csv --page details > "$out/pairs_details_lc_c.csv"
    ncu -i "$r" --csv --page raw --print-metric-instances values > "$out/pairs_raw_instances.csv"
    ncu -i "$r" --csv --page details --print-metric-instances details > "$out/pairs_details_instances.csv"
    ncu -i "$r" --csv --print-summary per-kernel > "$out/pairs_summary.csv"
    ncu -i "$r" --csv --page session > "$out/pairs_session.csv"
    live="ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size $work/roofline-kernels --once copy_vec4 tiny_add_chain"
    echo "command (live): $live" >> "$out/manifest.txt"
    $live > "$out/live_metrics_stdout.txt" 2>&1
fi
tail -n 3 "$out"/ncu_*_stdout.txt
