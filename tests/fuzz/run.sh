#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan+UBSan (float-to-integer overflow included),
# runs each for SECONDS (default 600) on the committed corpus plus seeds from the repository,
# minimises the corpus back into tests/fuzz/corpus/TARGET, and appends a row per target to
# tests/fuzz/RESULTS.md. A crash leaves its input in tests/fuzz/crashes/ and fails the script.
# usage: tests/fuzz/run.sh [--ci] [SECONDS] [TARGET ...]     (targets: reader pipeline spec rules timeline)
#   --ci: as CI runs it (.ci/run): the committed corpus is copied, not rewritten; no row in RESULTS.md;
#   a crash prints its input (hex) and fails. The tree is left as it was.
set -uo pipefail
cd "$(dirname "$0")/../.."
ci=0
if [ "${1:-}" = --ci ]; then ci=1; shift; fi
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(reader pipeline spec rules timeline)
build=build-fuzz
# The commit the targets are built from (the tree may move on while they run).
commit=$(git rev-parse --short HEAD)$(git diff --quiet -- analyzer models rules hwspecs || echo '+changes')
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROOFLINE_FUZZ=ON -DROOFLINE_BUILD_TESTS=OFF \
    -DROOFLINE_SANITIZE=address,undefined,float-cast-overflow >/dev/null || exit 2
cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null || exit 2
seeds() {
    case "$1" in
        # -size -1M would match only empty files (find rounds sizes up to whole MiB): count in KiB.
        # The repository's real captures seed too; libFuzzer reads the first -max_len bytes of each.
        reader | pipeline) find tests/corpus tests/data examples -name '*.csv' -size -1024k | sort ;;
        spec) ls hwspecs/*.json ;;
        rules) ls rules/*.json tests/rules_corpus/*.json ;;
        # Traces: the hand-built ones (Kineto JSON, SQLite, nsys stats CSV) and the real captures under 1 MiB.
        timeline) find tests/data/timeline examples/timeline \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' -o -name '*.csv' \) -size -1024k | sort ;;
    esac
}
status=0
crashes_dir=tests/fuzz/crashes
[ $ci -eq 0 ] || crashes_dir=$(mktemp -d)
mkdir -p "$crashes_dir"
[ $ci -eq 1 ] || [ -f tests/fuzz/RESULTS.md ] || printf '# Fuzzing runs\n\nAppended by `tests/fuzz/run.sh`; one row per target and run.\n\n| date | commit | target | seconds | executions | corpus files | crashes |\n|---|---|---|---|---|---|---|\n' > tests/fuzz/RESULTS.md
for t in "${targets[@]}"; do
    corpus=tests/fuzz/corpus/$t
    if [ $ci -eq 1 ]; then  # a copy: CI grows it and throws it away
        copy=$(mktemp -d)
        [ ! -d "$corpus" ] || cp -r "$corpus/." "$copy/"
        corpus=$copy
    fi
    mkdir -p "$corpus"
    seed_dir=$(mktemp -d)
    while read -r f; do cp "$f" "$seed_dir/"; done < <(seeds "$t")
    log=$(mktemp)
    dict=()
    [ ! -f "tests/fuzz/$t.dict" ] || dict=(-dict="tests/fuzz/$t.dict")
    "$build/tests/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$crashes_dir/$t-" "$corpus" "$seed_dir" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=$(find "$crashes_dir" -name "$t-*" | wc -l)
    if [ $ci -eq 1 ]; then
        echo "fuzz_$t: $secs s, ${execs:-?} executions, $(ls "$corpus" | wc -l) corpus files, $crashes crashes"
        rm -rf "$corpus"
    else
        # Keep the smallest corpus that covers as much.
        minimal=$(mktemp -d)
        "$build/tests/fuzz/fuzz_$t" -set_cover_merge=1 "$minimal" "$corpus" >/dev/null 2>&1 && rm -rf "$corpus" && mv "$minimal" "$corpus"
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(date -u +%Y-%m-%d)" "$commit" "$t" "$secs" "${execs:-?}" \
            "$(ls "$corpus" | wc -l)" "$crashes" >> tests/fuzz/RESULTS.md
    fi
    if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        echo "fuzz_$t: exit $rc, $crashes crash input(s) in $crashes_dir; the log:" >&2
        tail -40 "$log" >&2
        for c in $(find "$crashes_dir" -name "$t-*" | head -3); do
            echo "input $c (first 512 bytes):" >&2
            od -A d -c -N 512 "$c" >&2
        done
        status=1
    fi
    rm -rf "$seed_dir" "$log"
done
[ $ci -eq 1 ] || tail -n $((${#targets[@]} + 1)) tests/fuzz/RESULTS.md
exit $status
