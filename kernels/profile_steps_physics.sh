#!/usr/bin/env bash
# The device-machine side of the physics step progressions (kernels/steps_physics.cu: block counts of one
# grid-stride sum, row sums of squares, a 16,384^2 transpose's bank conflicts, WMMA and mma.sync GEMMs with
# 1-4 cp.async stages): builds the runner, checks and times the kernels, and profiles them with
# `ncu --set full`, one launch each.
#   kernels/profile_steps_physics.sh OUTDIR                           every stage
#   STEPS_STAGE=own kernels/profile_steps_physics.sh OUTDIR           one stage again
# Stages (comma-separated, default time,own):
#   time   unprofiled: roofline-kernels --reps 21 (steps_physics_timing.txt)
#   own    ncu --set full over the 18 kernels, --once; raw export (steps_physics_raw.csv)
#   wgmma  (not in the default) the GEMM chains' last step, the fix tensor-underused names: the eight GEMM
#          steps and wgmma_tma (kernels/pairs_wgmma.cu, TMA + wgmma, the same 4,096^3 FP16 product) timed
#          in one runner call (steps_physics_gemm_timing.txt), and wgmma_tma under ncu --set full
#          (steps_physics_wgmma_raw.csv)
# OUTDIR gets at most five files: those two, steps_physics_ncu_stdout.txt (the capture's output),
# steps_physics_sass_counts.txt (opcode counts per kernel from cuobjdump -sass, where cuobjdump exists)
# and steps_physics_manifest.txt (machine, versions, locale, every command and its exit code). Every ncu
# call is bounded by `timeout` so a slow export cannot lose what came before; the work folder
# (STEPS_WORK, default build-device/steps_physics) keeps the binary, the report and the manifest between
# calls. The binary is rebuilt when a source under kernels/ is newer than it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${STEPS_WORK:-build-device/steps_physics}
mkdir -p "$work"
work=$(cd "$work" && pwd)
stage=,${STEPS_STAGE:-time,own},
want() { [[ $stage == *",$1,"* ]]; }
command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
manifest=$work/manifest.txt
trap 'cp "$manifest" "$out/steps_physics_manifest.txt"' EXIT

own_cases=(phys_reduce_b32 phys_reduce_b64 phys_reduce_b128 phys_reduce_b1024 phys_reduce_b4096
           phys_rows_thread phys_rows_warp phys_rows_block
           phys_xpose_smem phys_xpose_padded
           phys_wmma_s1 phys_wmma_s2 phys_wmma_s3 phys_wmma_s4
           phys_mma_s1 phys_mma_s2 phys_mma_s3 phys_mma_s4)
source "$here/runner_sources.sh"
srcs=("${runner_sources[@]}")
bin=$work/roofline-kernels

{
    echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) stages: ${stage:1:-1}"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1)"
    echo "ncu: $(ncu --version 2>&1 | tail -n 1)"
    echo "nvcc: $(nvcc --version 2>&1 | tail -n 1)"
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

if want time || want own || want wgmma; then
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
            { echo "build failed" >> "$manifest"; tail -n 30 "$manifest"; exit 1; }
    fi
    if command -v cuobjdump > /dev/null; then
        # Opcode counts (first dot-separated part) of each phys_ kernel's SASS.
        echo "command (sass counts): cuobjdump -sass $work/obj/steps_physics.cu.o | opcode count per function" >> "$manifest"
        cuobjdump -sass "$work/obj/steps_physics.cu.o" | awk '
            /Function : / { match($0, /phys_[a-z0-9_]+/); f = substr($0, RSTART, RLENGTH); next }
            f != "" && /\/\*[0-9a-f]+\*\// {
                line = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line); sub(/^@!?U?P[T0-9]+[ \t]+/, "", line)
                split(line, w, /[ .;]/); if (w[1] ~ /^[A-Z]/) n[f " " w[1]]++ }
            END { for (k in n) print k, n[k] }' | sort > "$out/steps_physics_sass_counts.txt"
    fi
fi
if want time; then
    run "own timing" 300 "$bin" --reps 21 "${own_cases[@]}" > "$out/steps_physics_timing.txt" 2>&1
    cat "$out/steps_physics_timing.txt"
fi
if want own; then
    echo "== own" >> "$out/steps_physics_ncu_stdout.txt"
    run "ncu own" 420 ncu --set full -f -o "$work/steps_physics" "$bin" --once "${own_cases[@]}" \
        >> "$out/steps_physics_ncu_stdout.txt" 2>&1
    tail -n 25 "$out/steps_physics_ncu_stdout.txt"
    export_raw steps_physics
fi
if want wgmma; then
    gemm_cases=(phys_wmma_s1 phys_wmma_s2 phys_wmma_s3 phys_wmma_s4 phys_mma_s1 phys_mma_s2 phys_mma_s3 phys_mma_s4
                wgmma_tma)
    run "gemm timing" 300 "$bin" --reps 21 "${gemm_cases[@]}" > "$out/steps_physics_gemm_timing.txt" 2>&1
    cat "$out/steps_physics_gemm_timing.txt"
    echo "== wgmma" >> "$out/steps_physics_ncu_stdout.txt"
    run "ncu wgmma" 240 ncu --set full -f -o "$work/steps_physics_wgmma" "$bin" --once wgmma_tma \
        >> "$out/steps_physics_ncu_stdout.txt" 2>&1
    tail -n 8 "$out/steps_physics_ncu_stdout.txt"
    export_raw steps_physics_wgmma
fi
exit 0
