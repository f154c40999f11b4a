#!/usr/bin/env bash
# The device-machine side of examples/wild: builds this project's progression and failure-class
# kernels, checks and times them, dumps their SASS, checks the tensor-pipe counters against it, and
# profiles them and the library ops of wild_ops.py with `ncu --set full`, one launch each.
#   WILD_STAGE=own,time kernels/wild/profile_wild.sh OUTDIR      then
#   WILD_STAGE=lib_a ...   WILD_STAGE=lib_b ...   WILD_STAGE=lib_c ...
# Stages (comma-separated):
#   own     build, check and time the own kernels; SASS; counter check; ncu capture + raw export
#   time    wild_ops.py --time: unprofiled medians and the kernels each op launches
#   lib_a   ncu over the GEMM, attention and convolution ops
#   lib_b   ncu over the elementwise, reduction and torch.compile ops
#   lib_c   ncu over the index, sort, scan and histogram ops (PyTorch and CuPy)
#   own2    rebuild, check, time and profile the kernels added after the first capture (own2_raw.csv)
# Every ncu call is bounded by `timeout` so a slow export cannot lose what came before; the work
# folder (WILD_WORK, default build-device/wild) keeps the binary and reports between calls.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernels=$(cd "$here/.." && pwd)
out=$1
mkdir -p "$out"
work=${WILD_WORK:-build-device/wild}
mkdir -p "$work"
work=$(cd "$work" && pwd)
stage=,${WILD_STAGE:-own,time},
want() { [[ $stage == *",$1,"* ]]; }
own_cases=(rowsum_thread rowsum_warp rowsum_warp_vec sgemm_naive_rows sgemm_naive_cols sgemm_tiled16 sgemm_blocked64
           sincos_reduce permute_divmod axpy_once)

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ) stages: ${stage:1:-1}"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader)"
    echo "ncu: $(ncu --version | tail -n 1)"
    echo "nvcc: $(nvcc --version | tail -n 1)"
    echo "torch: $(python3 -c 'import torch, triton, cupy; print(torch.__version__, "triton", triton.__version__, "cupy", cupy.__version__)' 2>&1)"
    echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset}"
} >> "$work/manifest.txt"

export_raw() {  # report name
    timeout 240 ncu -i "$work/$1.ncu-rep" --csv --page raw > "$out/${1}_raw.csv"
    echo "export $1: $? ($(wc -l < "$out/${1}_raw.csv") lines)" >> "$work/manifest.txt"
}

capture_lib() {  # report name, groups
    local cmd="ncu --set full -f --profile-from-start off -o $work/$1 python3 $here/wild_ops.py --groups $2"
    echo "command ($1): $cmd" >> "$work/manifest.txt"
    timeout 480 $cmd > "$out/ncu_${1}_stdout.txt" 2>&1
    echo "ncu $1 exit: $?" >> "$work/manifest.txt"
    export_raw "$1"
    tail -n 5 "$out/ncu_${1}_stdout.txt"
}

if want own; then
    srcs=(runner.cu memory_cases.cu compute_cases.cu launch_cases.cu pairs_memory.cu pairs_sync.cu pairs_compute.cu
          pairs_tensor.cu pairs_wgmma.cu pairs_occupancy.cu sweep_cases.cu progressions.cu steps.cu failure_cases.cu)
    [ -x "$work/roofline-kernels" ] || (cd "$kernels" && nvcc -std=c++17 -O3 -lineinfo \
        -gencode arch=compute_90a,code=sm_90a "${srcs[@]}" -lcuda -o "$work/roofline-kernels") || exit 1
    "$work/roofline-kernels" --reps 21 "${own_cases[@]}" > "$out/own_timing.txt" 2>&1
    echo "runner exit code: $?" >> "$out/own_timing.txt"
    cat "$out/own_timing.txt"
    # SASS of every kernel in the binary, and the instructions the counters are checked against.
    cuobjdump -sass "$work/roofline-kernels" > "$work/own.sass"
    python3 "$here/sass_counts.py" "$work/own.sass" > "$out/own_sass_counts.txt"
    cat "$out/own_sass_counts.txt"
    checks=sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__ops_path_tensor_src_fp16.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_fma_type_fp16.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
    timeout 240 ncu --csv --metrics "$checks" "$work/roofline-kernels" --once sincos_reduce sgemm_blocked64 rowsum_thread wmma_global wgmma_tma \
        > "$out/own_counter_check.csv" 2> "$work/counter_check.err"
    echo "counter check exit: $?" >> "$work/manifest.txt"
    cmd="ncu --set full -f -o $work/own $work/roofline-kernels --once ${own_cases[*]}"
    echo "command (own): $cmd" >> "$work/manifest.txt"
    timeout 360 $cmd > "$out/ncu_own_stdout.txt" 2>&1
    echo "ncu own exit: $?" >> "$work/manifest.txt"
    export_raw own
fi
if want time; then
    (cd "$here" && timeout 300 python3 wild_ops.py --time) > "$out/lib_timing.txt" 2>&1
    echo "lib timing exit: $?" >> "$work/manifest.txt"
    tail -n 70 "$out/lib_timing.txt"
fi
if want own2; then
    srcs=(runner.cu memory_cases.cu compute_cases.cu launch_cases.cu pairs_memory.cu pairs_sync.cu pairs_compute.cu
          pairs_tensor.cu pairs_wgmma.cu pairs_occupancy.cu sweep_cases.cu progressions.cu steps.cu failure_cases.cu)
    (cd "$kernels" && nvcc -std=c++17 -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a "${srcs[@]}" -lcuda -o "$work/roofline-kernels2") || exit 1
    "$work/roofline-kernels2" --reps 21 sgemm_blocked64 sgemm_blocked128 > "$out/own2_timing.txt" 2>&1
    echo "runner exit code: $?" >> "$out/own2_timing.txt"
    cat "$out/own2_timing.txt"
    cuobjdump -sass "$work/roofline-kernels2" | c++filt > "$work/own2.sass"
    python3 "$here/sass_counts.py" "$work/own2.sass" progressions failure_cases > "$out/own2_sass_counts.txt"
    cmd="ncu --set full -f -o $work/own2 $work/roofline-kernels2 --once sgemm_blocked128"
    echo "command (own2): $cmd" >> "$work/manifest.txt"
    timeout 240 $cmd > "$out/ncu_own2_stdout.txt" 2>&1
    echo "ncu own2 exit: $?" >> "$work/manifest.txt"
    export_raw own2
fi
want lib_a && capture_lib lib_a gemm,attention,conv
want lib_b && capture_lib lib_b elementwise,reduction,compiled
want lib_c && capture_lib lib_c index,cupy
cp "$work/manifest.txt" "$out/manifest.txt"
exit 0
