#!/usr/bin/env bash
# Installs the Debian packages a build needs (only those missing), then configures and builds into
# build/. Used by quickstart.sh and test.sh; safe to run again.
#   setup.sh tool   the roofline binary alone: no tests, no CUDA kernels, no Chromium (quickstart.sh)
#   setup.sh test   everything: the tests, Chromium for the chart test, the CUDA kernels where nvcc exists (test.sh)
#   setup.sh fuzz   only the packages: clang and its libFuzzer runtime, for tests/fuzz/run.sh (which builds)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-tool}

packages=(cmake make ninja-build g++ libeigen3-dev libboost-program-options-dev nlohmann-json3-dev libfmt-dev zlib1g-dev libsqlite3-dev)
# doctest: the tests; chromium: only the test that renders the SVG chart to PNG uses it.
[ "$what" = tool ] || packages+=(doctest-dev chromium)
# clang with libFuzzer and its sanitizer runtimes (Debian's default clang; GCC has no libFuzzer).
[ "$what" != fuzz ] || packages+=(clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$what" != fuzz ] || exit 0

if [ "$what" = tool ]; then
    # Only the binary: the tests and kernels stay off, and a build/ the test command configured is
    # left as it is (its binary is the same). A fresh one is a unity build without debug info: each
    # stage compiles as one or two translation units, about half the CPU time of RelWithDebInfo file
    # by file (on 2 shared cores: 265 s of CPU against 135 s; 47 s wall on 2 idle cores), with Ninja
    # (installed above; Make where it is missing).
    if [ ! -f build/CMakeCache.txt ]; then
        generator=()
        command -v ninja >/dev/null && generator=(-G Ninja)
        # -O2 as RelWithDebInfo: GCC 12's -O3 adds a false -Wrestrict warning in table.cpp, and time.
        cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON \
              -DROOFLINE_BUILD_TESTS=OFF -DROOFLINE_BUILD_KERNELS=OFF >/dev/null
    fi
    # The binary and its bash completion: the install the quickstart prints needs both.
    if ! cmake --build build -j "$(nproc)" --target roofline roofline_completion; then
        # Two files' private names can meet in one unity translation unit (CI's sanitized build is
        # a unity build to catch it); the binary still builds file by file.
        echo "setup: the unity build failed; building file by file" >&2
        cmake -S . -B build -DCMAKE_UNITY_BUILD=OFF >/dev/null
        cmake --build build -j "$(nproc)" --target roofline roofline_completion
    fi
    exit 0
fi

# The CUDA validation kernels build wherever nvcc exists (they run only on a GPU machine).
kernels=(-DROOFLINE_BUILD_KERNELS=OFF)
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
[ -z "$nvcc" ] || kernels=(-DROOFLINE_BUILD_KERNELS=ON "-DCMAKE_CUDA_COMPILER=$nvcc")

# File by file (the tests' files share helper names), with debug info for the reports of a crash.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=OFF -DROOFLINE_BUILD_TESTS=ON "${kernels[@]}" >/dev/null
cmake --build build -j "$(nproc)"
