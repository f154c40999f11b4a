#!/usr/bin/env bash
# The README's first command: install what is missing, build, and analyse a shipped real
# capture (examples/h100: an H100 profiled with ncu --set full).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/roofline analyze examples/h100/kernels_raw.csv -o build/report.md
echo "quickstart: the report is in $(pwd)/build/report.md, its chart in $(pwd)/build/report.svg"
