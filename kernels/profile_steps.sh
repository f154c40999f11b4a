#!/usr/bin/env bash
# The device-machine side of the step progressions (kernels/steps.cu: softmax, reduce, transpose; and the
# SGEMM steps of kernels/progressions.cu): builds the runner, checks and times the kernels, times the
# PyTorch library step of each (kernels/steps_lib.py), and profiles both with `ncu --set full`, one
# launch each.
#   kernels/profile_steps.sh OUTDIR                      every stage
#   STEPS_STAGE=own kernels/profile_steps.sh OUTDIR      one stage again
# Stages (comma-separated, default time,own,lib):
#   time   unprofiled: roofline-kernels --reps 21 (steps_timing.txt), steps_lib.py --time (steps_lib_timing.txt)
#   own    ncu --set full over the 17 kernels, --once; raw export (steps_raw.csv)
#   lib    ncu --set full over the library ops, --profile-from-start off; raw export (steps_lib_raw.csv)
# OUTDIR gets at most six files: those four, steps_ncu_stdout.txt (both captures' output) and
# steps_manifest.txt (machine, versions, locale, every command and its exit code). Every ncu call is
# bounded by `timeout` so a slow export cannot lose what came before; the work folder (STEPS_WORK,
# default build-device/steps) keeps the binary, the reports and the manifest between calls. The binary
# is rebuilt when a source under kernels/ is newer than it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${STEPS_WORK:-build-device/steps}
mkdir -p "$work"
work=$(cd "$work" && pwd)
stage=,${STEPS_STAGE:-time,own,lib},
want() { [[ $stage == *",$1,"* ]]; }
command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
manifest=$work/manifest.txt
trap 'cp "$manifest" "$out/steps_manifest.txt"' EXIT

own_cases=(softmax_thread softmax_warp softmax_warp_regs softmax_warp_vec
           sum_interleaved sum_sequential sum_shuffle sum_grid_stride
           xpose_naive xpose_smem xpose_padded xpose_padded_wide
           sgemm_naive_rows sgemm_naive_cols sgemm_tiled16 sgemm_blocked64 sgemm_blocked128)
source "$here/runner_sources.sh"
srcs=("${runner_sources[@]}")
bin=$work/roofline-kernels

{
    echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) stages: ${stage:1:-1}"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1)"
    echo "ncu: $(ncu --version 2>&1 | tail -n 1)"
    echo "nvcc: $(nvcc --version 2>&1 | tail -n 1)"
    echo "torch: $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -n 1)"
    echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset}"
    echo "git: $(git -C "$here" describe --always --dirty 2>/dev/null || echo none)"
} >> "$manifest"

run() {  # label, timeout in s, command...: runs it, records the command and its exit code
    local label=$1 limit=$2
    shift 2
    echo "command ($label): timeout $limit $*" >> "$manifest"
    timeout "$limit" "$@"
    local rc=$?
    echo "exit ($label): $rc" >> "$manifest"
    return $rc
}

export_raw() {  # report name
    run "export $1" 240 ncu -i "$work/$1.ncu-rep" --csv --page raw > "$out/${1}_raw.csv"
    echo "export $1: $(wc -l < "$out/${1}_raw.csv") lines" >> "$manifest"
}

if want time || want own; then
    if [ ! -x "$bin" ] || [ -n "$(find "$here" -maxdepth 1 \( -name '*.cu' -o -name '*.hpp' \) -newer "$bin")" ]; then
        # One object per source, compiled in parallel, then one link.
        flags=(-std=c++17 -O3 -lineinfo -gencode "arch=compute_90a,code=sm_90a")
        echo "build (in $here): nvcc ${flags[*]} -c SRC -o $work/obj/SRC.o for each of ${srcs[*]}; nvcc ... -lcuda -o $bin" >> "$manifest"
        mkdir -p "$work/obj"
        objs=()
        for f in "${srcs[@]}"; do objs+=("$work/obj/$f.o"); done
        (cd "$here" && printf '%s\n' "${srcs[@]}" |
            xargs -P 16 -I{} nvcc "${flags[@]}" -c {} -o "$work/obj/{}.o") >> "$manifest" 2>&1 &&
            nvcc "${flags[@]}" "${objs[@]}" -lcuda -o "$bin" >> "$manifest" 2>&1 ||
            { echo "build failed" >> "$manifest"; exit 1; }
    fi
fi
if want time; then
    run "own timing" 300 "$bin" --reps 21 "${own_cases[@]}" > "$out/steps_timing.txt" 2>&1
    cat "$out/steps_timing.txt"
    run "lib timing" 300 python3 "$here/steps_lib.py" --time > "$out/steps_lib_timing.txt" 2>&1
    cat "$out/steps_lib_timing.txt"
fi
if want own; then
    echo "== own" >> "$out/steps_ncu_stdout.txt"
    run "ncu own" 420 ncu --set full -f -o "$work/steps" "$bin" --once "${own_cases[@]}" \
        >> "$out/steps_ncu_stdout.txt" 2>&1
    tail -n 25 "$out/steps_ncu_stdout.txt"
    export_raw steps
fi
if want lib; then
    echo "== lib" >> "$out/steps_ncu_stdout.txt"
    run "ncu lib" 240 ncu --set full -f --profile-from-start off -o "$work/steps_lib" python3 "$here/steps_lib.py" \
        >> "$out/steps_ncu_stdout.txt" 2>&1
    tail -n 8 "$out/steps_ncu_stdout.txt"
    export_raw steps_lib
fi
exit 0
