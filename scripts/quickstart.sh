#!/usr/bin/env bash
# The README's first command: install what is missing, build the roofline binary alone (no tests,
# no CUDA kernels, no Chromium), and analyse a shipped real capture (examples/h100: an H100
# profiled with ncu --set full). scripts/test.sh builds and runs the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh tool
build/roofline analyze examples/h100/kernels_raw.csv --format terminal
build/roofline analyze examples/h100/kernels_raw.csv -o build/report.md -f
cat <<DONE

quickstart: the binary is $(pwd)/build/roofline; the full report is build/report.md, its chart build/report.svg.
Put roofline on the PATH with: sudo cmake --install build   (into /usr/local/bin)
                           or: cmake --install build --prefix ~/.local   (into ~/.local/bin)
DONE
