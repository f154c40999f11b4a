#!/usr/bin/env bash
# Installs the Debian packages the engine needs (only those missing), then configures and
# builds into build/ (with the CUDA kernels where nvcc exists). Used by quickstart.sh and test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: only the test that renders the SVG chart to PNG uses it.
packages=(cmake make g++ libeigen3-dev libboost-program-options-dev nlohmann-json3-dev doctest-dev chromium)
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

# The CUDA validation kernels build wherever nvcc exists (they run only on a GPU machine).
kernels=(-DROOFLINE_BUILD_KERNELS=OFF)
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
[ -z "$nvcc" ] || kernels=(-DROOFLINE_BUILD_KERNELS=ON "-DCMAKE_CUDA_COMPILER=$nvcc")

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${kernels[@]}" >/dev/null
cmake --build build -j "$(nproc)"
