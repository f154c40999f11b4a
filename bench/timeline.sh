#!/usr/bin/env bash
# roofline timeline against HolisticTraceAnalysis 0.5.0 on the same traces, side by side in one run
# (bench/README.md, "Timeline"): traces of MB megabytes made by repeating a real labelled trace
# (bench/make_traces.py), then for each, one at a time: `roofline timeline FILE --format json`
# (parse + analysis + report) and HTA's parse + temporal, idle-time, kernel and launch breakdowns
# (bench/hta_run.py), each with /usr/bin/time (wall, CPU, peak RSS). Writes bench/RESULTS-timeline.md.
# HTA is installed as ../shared/timeline/HTA.md says, into HTA_VENV (default /tmp/hta-venv).
# usage: bench/timeline.sh [BUILD_DIR] [MB ...]     (default: build, 10 100 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sizes=("${@:-10 100 1000}")
read -r -a sizes <<< "${sizes[*]}"
venv=${HTA_VENV:-/tmp/hta-venv}
source_trace=examples/timeline/traces/tiny_kernels_naive.json.gz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # command...: "wall-s user-s sys-s peak-RSS-KiB"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >/dev/null 2>&1 || echo "failed: $*" >&2
    tail -1 "$work/time.txt"
}
row() {  # input MB tool measurement
    read -r wall user sys rss <<<"$4"
    awk -v f="$1" -v m="$2" -v t="$3" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" \
        'BEGIN { printf "| %s | %.0f | %s | %.2f | %.2f | %.1f | %.0f |\n", f, m, t, w, u + y, w * 1000 / m, r / 1024 }'
}
{
    echo "# Timeline benchmark: roofline timeline against HolisticTraceAnalysis"
    echo
    echo "Made by \`bench/timeline.sh $build ${sizes[*]}\` on $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet -- . ':!bench/RESULTS-timeline.md' || echo ' (with uncommitted changes)')."
    echo "Machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/{print $2}') GiB; $(uname -sr)."
    echo "Inputs: \`bench/make_traces.py\` repeats the events of \`$source_trace\` (a real PyTorch profiler trace of"
    echo "1809 tiny kernels, their launches and CPU operators), each copy shifted by the trace's span with ids of its own."
    echo "roofline: \`roofline timeline FILE --format json\` (parse, model, findings, JSON; one thread). HTA 0.5.0"
    echo "(Debian's Python 3.11, pandas 1.5): \`TraceAnalysis(trace_dir)\` (parse) then get_temporal_breakdown,"
    echo "get_idle_time_breakdown, get_gpu_kernel_breakdown and get_cuda_kernel_launch_stats (\`bench/hta_run.py\`)."
    echo "HTA runs with HTA_DISABLE_NS_ROUNDING=1: with its default rounding to whole microseconds,"
    echo "get_idle_time_breakdown fails an assertion on this trace (non_compute_time >= 0)."
    echo "One run each, one at a time. ms/MB: wall milliseconds per MB of trace."
    echo
    echo "| input | MB | tool | wall s | CPU s | ms/MB | peak RSS MiB |"
    echo "|---|---|---|---|---|---|---|"
    for mb in "${sizes[@]}"; do
        python3 bench/make_traces.py "$source_trace" "$work" "$mb" >/dev/null
        path="$work/trace_${mb}mb.json"
        real_mb=$(awk -v s="$(stat -c %s "$path")" 'BEGIN { print s / 1e6 }')
        mkdir -p "$work/hta" && mv "$path" "$work/hta/" && path="$work/hta/trace_${mb}mb.json"
        sync
        row "trace_${mb}mb" "$real_mb" "roofline timeline (json)" "$(measure "$build/roofline" timeline "$path" --format json -o "$work/out.json" -f)"
        if [ -x "$venv/bin/python" ]; then
            # HTA rounds timestamps to whole microseconds by default; on this trace's sub-microsecond kernels
            # its get_idle_time_breakdown then fails an assertion (non_compute_time >= 0). With nanosecond
            # timestamps, as roofline reads them, all four analyses run.
            row "trace_${mb}mb" "$real_mb" "HTA 0.5.0 (parse + 4 analyses, ns timestamps)" \
                "$(HTA_DISABLE_NS_ROUNDING=1 measure "$venv/bin/python" bench/hta_run.py "$work/hta")"
        fi
        rm -rf "$work/hta" "$work"/*.json
    done
} > bench/RESULTS-timeline.md
cat bench/RESULTS-timeline.md
