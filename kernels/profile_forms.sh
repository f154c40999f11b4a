#!/usr/bin/env bash
# The captures of examples/h200/forms: one program captured in every form a user hands over, to hold
# the engine to "the same answer, or it says what it lacks" (issue 22). On the device machine:
#   kernels/profile_forms.sh OUTDIR STAGES
# STAGES, comma-separated:
#   check    the section file `roofline metrics --format section` wrote (examples/h200/forms/sections/)
#            loads, and a capture with it holds every metric of the H100 plan (sections_check.txt)
#   kernels  kernels/ (a subset of the runner, one launch each): --set full (raw and details pages),
#            the section file, and the four sections profiling guides recommend (raw and details);
#            diff_demo with the section file twice (the same program captured twice)
#   layer    kernels/transformer_layer.py: --set full (raw, details), the section file twice, and the
#            program without ncu (its own wall time, to take out of the profiling times)
# Every ncu run is bounded by `timeout`, and its wall time and replay passes are in timing.txt.
# ROOFLINE_DEVBIN: a folder with roofline-kernels and diff_before already built for sm_90a (else built here).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
stages=,${2:-check,kernels,layer},
want() { [[ $stages == *",$1,"* ]]; }
mkdir -p "$out/csv"
sections=$here/../examples/h200/forms/sections
work=$(mktemp -d)
bin=${ROOFLINE_DEVBIN:-$work}
[ -f "$out/manifest.txt" ] || "$here/machine_manifest.sh" > "$out/manifest.txt"
echo "stages: ${stages:1:-1} at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out/manifest.txt"
if [ ! -x "$bin/roofline-kernels" ]; then
    source "$here/runner_sources.sh"
    sources=("${runner_sources[@]}")
    (cd "$here" && nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a "${sources[@]}" -lcuda -o "$bin/roofline-kernels") || exit 1
    nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -DFIXED=0 "$here/diff_demo.cu" -o "$bin/diff_before" || exit 1
fi
subset=(copy_vec4 transpose_naive transpose_unpadded aos_strided reduce_naive branch_divergent sgemm_smem_tiled
        sgemm_register_blocked poly_fp64 bins_local_array wmma_global wmma_staged gather_smem_limited tiny_add_chain)
plan=(--section-folder "$sections" --section roofline)
guide=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy)

# name limit ncu-arguments... : one capture, its wall time, its passes per kernel and its raw export.
capture() {
    local name=$1 limit=$2
    shift 2
    echo "command ($name): ncu $*" >> "$out/manifest.txt"
    local t0 t1 rc
    t0=$(date +%s.%N)
    timeout "$limit" ncu -f -o "$work/$name" "$@" > "$out/ncu_${name}_stdout.txt" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    local passes
    passes=$(grep -o '[0-9]* pass' "$out/ncu_${name}_stdout.txt" | sort | uniq -c | tr -s ' \n' ' ')
    echo "$name: exit $rc, wall $(awk "BEGIN { print $t1 - $t0 }") s, kernels profiled $(grep -c '==PROF== Profiling' "$out/ncu_${name}_stdout.txt"), passes:$passes" \
        >> "$out/timing.txt"
    [ -f "$work/$name.ncu-rep" ] && ncu -i "$work/$name.ncu-rep" --csv --page raw > "$out/csv/${name}_raw.csv"
}
details() { ncu -i "$work/$1.ncu-rep" --csv --page details > "$out/csv/${1}_details.csv"; }
# The program alone, for the wall time ncu adds.
bare() {
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > "$out/${name}_stdout.txt" 2>&1
    local rc=$?
    t1=$(date +%s.%N)
    echo "$name (no ncu): exit $rc, wall $(awk "BEGIN { print $t1 - $t0 }") s" >> "$out/timing.txt"
}

if want check; then
    {
        echo "== ncu --list-sections with the section folder"
        ncu --section-folder "$sections" --list-sections 2>&1
        echo "== one launch of diff_demo's transpose with the section file"
        timeout 60 ncu --section-folder "$sections" --section roofline -k regex:transpose -c 1 --csv --page raw "$bin/diff_before" 2>&1 |
            grep -v '^diff_demo' > "$work/check.csv"
        echo "exit ${PIPESTATUS[0]}"
        head -c 600 "$work/check.csv"
        echo
        echo "== columns: $(head -n 1 "$work/check.csv" | tr ',' '\n' | wc -l)"
        head -n 1 "$work/check.csv" | tr ',' '\n' | grep -c derived__ | sed 's/^/derived__ columns: /'
        head -n 1 "$work/check.csv" | tr ',' '\n' | grep derived__
    } > "$out/sections_check.txt" 2>&1
    cp "$work/check.csv" "$out/csv/check_raw.csv"
fi

if want kernels; then
    capture kernels_full 300 --set full "$bin/roofline-kernels" --once "${subset[@]}"
    details kernels_full
    capture kernels_plan 240 "${plan[@]}" "$bin/roofline-kernels" --once "${subset[@]}"
    capture kernels_guide 180 "${guide[@]}" "$bin/roofline-kernels" --once "${subset[@]}"
    details kernels_guide
    capture demo_plan 120 "${plan[@]}" "$bin/diff_before"
    capture demo_plan_again 120 "${plan[@]}" "$bin/diff_before"
    bare kernels "$bin/roofline-kernels" --once "${subset[@]}"
fi

if want layer; then
    bare layer python3 "$here/transformer_layer.py"
    capture layer_full 300 --set full --profile-from-start off python3 "$here/transformer_layer.py"
    details layer_full
    capture layer_plan 200 "${plan[@]}" --profile-from-start off python3 "$here/transformer_layer.py"
    capture layer_plan_again 200 "${plan[@]}" --profile-from-start off python3 "$here/transformer_layer.py"
fi
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out/manifest.txt"
