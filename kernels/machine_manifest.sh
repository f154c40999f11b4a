#!/usr/bin/env bash
# The head of every capture's manifest.txt (the profile_*.sh scripts): when, on which GPU and
# driver, with which ncu, nvcc and PyTorch, in which locale (it decides how ncu writes numbers).
# usage: kernels/machine_manifest.sh > OUTDIR/manifest.txt
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
echo "ncu: $(ncu --version | tail -n 1)"
echo "nvcc: $(nvcc --version | tail -n 1)"
echo "torch: $(python3 -c 'import torch; print(torch.__version__)')"
echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset}"
