#!/usr/bin/env bash
# Builds the validation kernels, checks and times every one, profiles each once with
# `ncu --set full`, profiles cuBLAS (through PyTorch) on the tensor pair's problem, and exports
# raw and details pages in auto and base units. On the device machine:
#   kernels/profile.sh OUTDIR
# OUTDIR receives pairs_*.csv, cublas_ref_*.csv, runner_timing.txt and manifest.txt.
# ROOFLINE_PROFILE_STAGE picks the steps, a comma-separated list of
#   timing   the timed correctness checks (runner_timing.txt)
#   capture  ncu --set full over every kernel, into the work folder
#   export   the four pages of that capture (pairs_*.csv)
#   cublas   profile and export cuBLAS on the tensor pair's problem (cublas_ref_*.csv)
#   forms    every other CSV form, for the reader's fixtures (torch_ops_*, *_lc_c, *_instances, ...)
# default "timing,capture,export,cublas". ROOFLINE_PROFILE_WORK names the work folder (the binary,
# the .ncu-rep files and the manifest in progress); keep it inside the checkout, and a second call
# on the same warm machine goes on where the first stopped: the H100 pairs run of 2026-11-22
# needed 9.5 minutes in one call and lost its details export, so capture and export now fit in two.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
work=${ROOFLINE_PROFILE_WORK:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
# sm_90a: the tensor pair's wgmma kernel needs the Hopper-specific target (H100, H200).
arch=${ROOFLINE_CUDA_ARCH:-90a}
stage=,${ROOFLINE_PROFILE_STAGE:-timing,capture,export,cublas},
want() { [[ $stage == *",$1,"* ]]; }
source "$here/runner_sources.sh"
sources=("${runner_sources[@]}")

[ -f "$work/manifest.txt" ] || "$here/machine_manifest.sh" > "$work/manifest.txt"
echo "stages run on $(date -u +%Y-%m-%dT%H:%M:%SZ): ${stage:1:-1}" >> "$work/manifest.txt"

[ -x "$work/roofline-kernels" ] || (cd "$here" && nvcc -std=c++20 -O3 -lineinfo -gencode "arch=compute_$arch,code=sm_$arch" "${sources[@]}" -lcuda -o "$work/roofline-kernels") || exit 1
"$work/roofline-kernels" --list > "$out/kernels_list.txt"
if want timing; then
    # Correctness and timing outside the profiler; a wrong result is recorded, and the run goes on.
    "$work/roofline-kernels" all > "$out/runner_timing.txt" 2>&1
    echo "runner exit code: $?" >> "$out/runner_timing.txt"
    cat "$out/runner_timing.txt"
fi
export_report() {  # report name
    local r="$work/$1.ncu-rep"
    ncu -i "$r" --csv --page raw > "$out/${1}_raw.csv"
    ncu -i "$r" --csv --page raw --print-units base > "$out/${1}_raw_base.csv"
    ncu -i "$r" --csv --page details > "$out/${1}_details.csv"
    ncu -i "$r" --csv --page details --print-units base > "$out/${1}_details_base.csv"
}

if want capture; then
    cmd="ncu --set full -f -o $work/pairs $work/roofline-kernels --once all"
    echo "command (pairs): $cmd" >> "$work/manifest.txt"
    $cmd > "$work/ncu_pairs_stdout.txt" 2>&1
    cp "$work/ncu_pairs_stdout.txt" "$out/"
fi
want export && export_report pairs  # raw first: the analyzer's main input
if want cublas; then
    cmd="ncu --set full -f --profile-from-start off -o $work/cublas_ref python3 $here/torch_ops.py matmul_fp16"
    echo "command (cublas_ref): $cmd" >> "$work/manifest.txt"
    $cmd > "$out/ncu_cublas_ref_stdout.txt" 2>&1
    export_report cublas_ref
fi

if want forms; then
    cmd="ncu --set full --profile-from-start off -o $work/torch_ops python3 $here/torch_ops.py"
    echo "command (torch_ops): $cmd" >> "$work/manifest.txt"
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
    echo "command (live): $live" >> "$work/manifest.txt"
    $live > "$out/live_metrics_stdout.txt" 2>&1
fi
cp "$work/manifest.txt" "$out/manifest.txt"
tail -n 3 "$out"/ncu_*_stdout.txt 2>/dev/null
exit 0
