#!/usr/bin/env bash
# Installs the build into a fresh prefix, then configures, builds and runs tests/consumer against it
# with find_package(roofline). Usage: install_and_consume.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The binary lands in PREFIX/bin (PATH's /usr/local/bin with the default prefix) and runs from there.
[ -x "$work/prefix/bin/roofline" ] || { echo "FAIL: no bin/roofline in the install"; exit 1; }
PATH="$work/prefix/bin:$PATH" roofline --version
cmake -S "$src/tests/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer" "$src/examples/h100/kernels_raw.csv"
