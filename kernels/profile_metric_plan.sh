#!/usr/bin/env bash
# The replay cost and the equivalence of `roofline metrics` (examples/h100/metric_plan/). On the
# device machine: kernels/profile_metric_plan.sh OUTDIR. metrics.txt (the whole plan) and
# required.txt (the metrics the model itself reads) are written beforehand by `roofline metrics` and
# committed beside the captures.
#   derived_sources.txt   which of ncu's own section files define the derived__ metrics the engine
#                         reads (--metrics cannot name them; a section that defines them must run)
#   passes.txt            replay passes per kernel of diff_demo under each way of collecting
#   plan_demo.csv         diff_demo (before build) with the plan: --metrics plus the sections found
#                         above; its --set full twin is examples/h100/diff/before.csv
#   plan_torch.csv        kernels/torch_ops.py with the plan; twin examples/h100/torch_ops_raw.csv
#   plan_pairs.csv        roofline-kernels --once all with the plan; twin examples/h100/pairs_raw.csv
#   ncu_*_stdout.txt      ncu's own lines
# It reproduces the 2026-11-22 plan committed in that folder, not today's: the current plan and its
# costs are measured by kernels/profile_forms.sh (examples/h200/forms/).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plan=$here/../examples/h100/metric_plan
out=$1
mkdir -p "$out"
work=$(mktemp -d)
metrics=$(cat "$plan/metrics.txt")
required=$(cat "$plan/required.txt")
"$here/machine_manifest.sh" > "$out/manifest.txt"

# Where ncu defines the derived__ metrics: every file of its sections folder that names one
# (SourceCounters.section and SpeedOfLight_Hierarchical*RooflineChart.section in ncu 2025.3.1;
# analyzer/base/metrics.json records it as gh100.derived_sections).
secdir=$(dirname "$(find / -iname 'SpeedOfLight.section' 2>/dev/null | head -n 1)")
echo "sections folder: $secdir" >> "$out/manifest.txt"
for d in derived__l1tex__lsu_writeback_bytes_mem_lgds derived__lts__lts2xbar_bytes derived__memory_l1_wavefronts_shared_excessive \
         derived__memory_l2_theoretical_sectors_global_excessive; do
    echo "== $d" >> "$out/derived_sources.txt"
    grep -l "$d" "$secdir"/* >> "$out/derived_sources.txt" 2>/dev/null
done
section_flags=(--section SpeedOfLight_HierarchicalSingleRooflineChart --section SourceCounters)
echo "sections that define them, as the plan names them: ${section_flags[*]}" >> "$out/manifest.txt"

# The runner builds (a minute) while the small program is measured.
source "$here/runner_sources.sh"
sources=("${runner_sources[@]}")
(cd "$here" && nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a "${sources[@]}" -lcuda -o "$work/roofline-kernels" 2>/dev/null) &
runner_build=$!
nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -DFIXED=0 "$here/diff_demo.cu" -o "$work/diff_before" || exit 1
passes() {  # label ncu-arguments...
    local label=$1; shift
    timeout 120 ncu "$@" -f -o "$work/p" "$work/diff_before" > "$work/p.txt" 2>&1
    local rc=$?
    echo "$label: $(grep -o '[0-9]* passes' "$work/p.txt" | sort | uniq -c | tr -s ' \n' ' ;') (ncu exit $rc)" >> "$out/passes.txt"
    grep -i "error\|warn" "$work/p.txt" | head -n 3 >> "$out/passes.txt"
}
passes "required.txt (--metrics, the model's own)" --metrics "$required"
passes "metrics.txt (--metrics, the whole plan)" --metrics "$metrics"
passes "--section SourceCounters alone" --section SourceCounters
passes "--section SpeedOfLight_HierarchicalSingleRooflineChart alone" --section SpeedOfLight_HierarchicalSingleRooflineChart
passes "metrics.txt + those sections (the plan)" --metrics "$metrics" "${section_flags[@]}"
passes "required.txt + those sections" --metrics "$required" "${section_flags[@]}"

with_plan() {  # name limit command...
    local name=$1 limit=$2; shift 2
    echo "command ($name): ncu --metrics \"\$(cat metrics.txt)\" ${section_flags[*]} -o $name $*" >> "$out/manifest.txt"
    timeout "$limit" ncu --metrics "$metrics" "${section_flags[@]}" -f -o "$work/$name" "$@" > "$out/ncu_${name}_stdout.txt" 2>&1
    echo "exit code ($name): $?" >> "$out/manifest.txt"
    ncu -i "$work/$name.ncu-rep" --csv --page raw > "$out/$name.csv"
}
with_plan plan_demo 120 "$work/diff_before"
with_plan plan_torch 180 --profile-from-start off python3 "$here/torch_ops.py"
wait "$runner_build" || exit 1
with_plan plan_pairs 270 "$work/roofline-kernels" --once all
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out/manifest.txt"
