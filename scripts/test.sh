#!/usr/bin/env bash
# The README's second command (and CI's): install what is missing (doctest, Chromium for the chart
# test), build everything (the tests, and the CUDA kernels where nvcc exists), run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
cd build
ctest --output-on-failure -j "$(nproc)"
