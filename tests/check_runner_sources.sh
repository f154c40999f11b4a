#!/usr/bin/env bash
# The device scripts build the runner from kernels/runner_sources.sh; CMake from kernels/CMakeLists.txt.
# Fails when the two lists differ (a case file added to one and not the other fails to link on the device).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
source "$root/kernels/runner_sources.sh"
scripts=$(printf '%s\n' "${runner_sources[@]}" | sort)
cmake=$(grep -o '[a-z_0-9]*\.cu' "$root/kernels/CMakeLists.txt" | sort -u)
if [ "$scripts" != "$cmake" ]; then
    echo "kernels/runner_sources.sh and kernels/CMakeLists.txt list different sources:"
    diff <(echo "$scripts") <(echo "$cmake") || true
    exit 1
fi
echo "$(echo "$scripts" | wc -l) sources in both"
