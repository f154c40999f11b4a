#!/usr/bin/env bash
# roofline timeline over the ranks of one job, beside HolisticTraceAnalysis 0.5.0 on the same folder
# (bench/README.md, "Ranks"): 8 traces of MB megabytes (default 100), made by bench/make_traces.py from
# the two ranks of the real NCCL run in examples/timeline/nccl (rank r from rank r % 2's trace, its
# distributedInfo rank set to r), then `roofline timeline DIR --format json` and HTA's parse + temporal,
# idle-time, kernel and launch breakdowns of the folder (bench/hta_run.py), each with /usr/bin/time; then
# roofline alone on 64 ranks (the 8 files linked 8 times each): memory stays that of the traces read at
# once. Appends to bench/RESULTS-ranks.md.
# usage: bench/ranks.sh [BUILD_DIR] [MB]     (default: build 100)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mb=${2:-100}
venv=${HTA_VENV:-/tmp/hta-venv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # command...: "wall-s user-s sys-s peak-RSS-KiB"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" ||
        { echo "failed: $*" >&2; tail -3 "$work/err.txt" >&2; }
    tail -1 "$work/time.txt"
}
row() {  # what ranks MB tool measurement
    read -r wall user sys rss <<<"$5"
    awk -v f="$1" -v n="$2" -v m="$3" -v t="$4" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" \
        'BEGIN { printf "| %s | %d | %.0f | %s | %.2f | %.2f | %.1f | %.0f |\n", f, n, m, t, w, u + y, w * 1000 / m, r / 1024 }'
}
mkdir -p "$work/src" "$work/ranks8" "$work/ranks64"
for r in 0 1; do
    python3 bench/make_traces.py "examples/timeline/nccl/nccl_naive_rank$r.json.gz" "$work/src" "$mb" >/dev/null
    mv "$work/src/trace_${mb}mb.json" "$work/src/rank$r.json"
done
for r in 0 1 2 3 4 5 6 7; do
    sed -E "s/(\"distributedInfo\": \{[^}]*\"rank\": )[0-9]+/\1$r/" "$work/src/rank$((r % 2)).json" > "$work/ranks8/rank$r.json"
done
for r in $(seq 0 63); do ln -s "$work/ranks8/rank$((r % 8)).json" "$work/ranks64/rank$(printf %02d "$r").json"; done
total8=$(du -m --apparent-size -c "$work"/ranks8/*.json | tail -1 | cut -f1)
{
    echo
    echo "## $(date -u +%Y-%m-%d): 8 and 64 ranks of ${mb} MB, commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
    echo
    echo "Made by \`bench/ranks.sh $build $mb\`. Machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/{print $2}') GiB."
    echo "roofline: \`roofline timeline DIR --format json\` (each rank read, modelled and summarised in its own thread,"
    echo "at most min(8, cores) at a time; the straggler compared across them). HTA 0.5.0: \`TraceAnalysis(trace_dir=DIR)\`"
    echo "then its four breakdowns (\`bench/hta_run.py\`), HTA_DISABLE_NS_ROUNDING=1. MB: all ranks' traces together."
    echo
    echo "| input | ranks | MB | tool | wall s | CPU s | ms/MB | peak RSS MiB |"
    echo "|---|---|---|---|---|---|---|---|"
    row ranks8 8 "$total8" "roofline timeline (json)" "$(measure "$build/roofline" timeline "$work/ranks8" --format json)"
    grep -o '"straggler": [^}]*' "$work/out.txt" | head -1 | sed 's/^/<!-- /; s/$/ -->/' >&2 || true
    if [ -x "$venv/bin/python" ]; then
        row ranks8 8 "$total8" "HTA 0.5.0 (parse + 4 analyses)" \
            "$(HTA_DISABLE_NS_ROUNDING=1 measure "$venv/bin/python" bench/hta_run.py "$work/ranks8")"
    else
        echo "| ranks8 | 8 | $total8 | HTA: not installed at $venv | | | | |"
    fi
    row ranks64 64 "$((total8 * 8))" "roofline timeline (json)" "$(measure "$build/roofline" timeline "$work/ranks64" --format json)"
} >> bench/RESULTS-ranks.md
tail -8 bench/RESULTS-ranks.md
