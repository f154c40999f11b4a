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
# No installed header includes Boost (the command line's library, which does, is not installed).
if grep -rln '#include <boost' "$work/prefix/include"; then echo "FAIL: installed headers include Boost"; exit 1; fi
# The installed binary reads nothing from the source tree: no path to a data folder of it in its data
# (the pair definitions, specs and rule trees are compiled in; a Debug or sanitized build still names
# its own .cpp files, for assertions and sanitizer reports), and it runs on a copy of a capture folder
# from a folder outside the tree.
objcopy -O binary --only-section=.rodata "$work/prefix/bin/roofline" "$work/rodata"
if tr '\0' '\n' < "$work/rodata" | grep -qxF "$src"; then echo "FAIL: the binary carries the source tree's path $src"; exit 1; fi
for data in kernels hwspecs rules examples docs; do
    if grep -qF "$src/$data" "$work/rodata"; then echo "FAIL: the binary names $src/$data"; exit 1; fi
done
mkdir -p "$work/run" && cp -r "$src/examples/h100" "$work/run/h100"
(cd "$work/run" && "$work/prefix/bin/roofline" pairs h100 > pairs.md && grep -q speedup pairs.md) ||
    { echo "FAIL: the installed binary's pairs without the source tree"; exit 1; }
cmake -S "$src/tests/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null
(cd "$work/run" && "$work/build/consumer" h100/kernels_raw.csv)
