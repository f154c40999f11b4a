#!/usr/bin/env bash
# The reader's benchmark (bench/README.md): builds inputs from committed captures, then measures
# `roofline analyze` end to end (wall, CPU, MB/s, peak RSS) beside pandas read_csv and wc -l on the
# same files, and writes bench/RESULTS.md. Not a test: run it by hand on an idle machine.
# usage: bench/run.sh [BUILD_DIR] [MB ...]     (default: build, 200)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sizes=("${@:-200}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # command...: "wall-s user-s sys-s peak-RSS-KiB"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >/dev/null 2>&1 || true
    tail -1 "$work/time.txt"
}
median3() {  # command...: measure's line of the run with the median wall time of three
    for _ in 1 2 3; do measure "$@"; done | sort -n | sed -n 2p
}
py=$(command -v /usr/bin/python3 || command -v python3)  # Debian's, where python3-pandas installs
{
    echo "# Reader benchmark"
    echo
    echo "Made by \`bench/run.sh $build ${sizes[*]}\` on $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet -- . ':!bench/RESULTS.md' || echo ' (with uncommitted changes)')."
    echo "Machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/{print $2}') GiB; $(uname -sr)."
    echo "Inputs: \`bench/make_inputs.py\` repeats rows of \`examples/h100/kernels_raw.csv\` (raw page, 2,238 columns)"
    echo "and \`kernels_details.csv\`; \"distinct\" gives every launch a kernel name of its own."
    echo "\`--threads 1\` rows parse on one thread; the others on one per core (raw pages only: a details page is read on one)."
    echo "CPU s is user + system time over all threads. roofline rows: the run with the median wall time of three; pandas and wc: one run."
    echo
    echo "| input | MiB | tool | wall s | CPU s | MiB/s (wall) | peak RSS MiB |"
    echo "|---|---|---|---|---|---|---|"
    for mb in "${sizes[@]}"; do
        python3 bench/make_inputs.py "$work" "$mb" >/dev/null
        sync  # the inputs' write-back would otherwise run during the first measurements
        for f in raw_${mb}mb raw_distinct_${mb}mb details_${mb}mb; do
            path="$work/$f.csv"
            [ -f "$path" ] || continue
            size=$(stat -c %s "$path")
            row() {
                read -r wall user sys rss <<<"$2"
                awk -v f="$f" -v t="$1" -v s="$size" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" \
                    'BEGIN { printf "| %s | %.0f | %s | %.2f | %.2f | %.1f | %.1f |\n", f, s / 1048576, t, w, u + y, s / 1048576 / (w > 0 ? w : 0.01), r / 1024 }'
            }
            row "roofline analyze --threads 1 (json)" "$(median3 "$build/roofline" analyze "$path" --threads 1 --format json -o "$work/out.json" -f)"
            row "roofline analyze (json)" "$(median3 "$build/roofline" analyze "$path" --format json -o "$work/out.json" -f)"
            row "roofline analyze (markdown + chart)" "$(median3 "$build/roofline" analyze "$path" -o "$work/out.md" -f)"
            if "$py" -c "import pandas" 2>/dev/null; then
                skip=$([ "${f#details}" = "$f" ] && echo "skiprows=[1]," || echo "")
                row "pandas read_csv" "$(measure "$py" -c "import pandas; pandas.read_csv('$path', $skip low_memory=False)")"
            fi
            row "wc -l" "$(measure wc -l "$path")"
        done
        rm -f "$work"/*.csv
    done
} > bench/RESULTS.md
cat bench/RESULTS.md
