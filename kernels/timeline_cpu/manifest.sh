#!/bin/bash
# Machine and software facts for the manifest: bash manifest.sh "COMMAND LINE"
echo "date_utc: $(date -u '+%Y-%m-%d %H:%M:%S')"
echo "command: $1"
echo "--- nvidia-smi --query-gpu=name,driver_version --format=csv"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
echo "--- torch"
python3 -c 'import torch, numpy, platform; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "numpy", numpy.__version__, "python", platform.python_version(), "gpus", torch.cuda.device_count(), torch.cuda.get_device_name(0)); print("nccl", torch.cuda.nccl.version())'
echo "--- cpu"
nproc
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket' || true
echo "--- env"
env | grep -E '^(NCCL_|TORCH_SYMM|NVSHMEM_|OMP_)' || true
if [ "$(nvidia-smi -L | wc -l)" -gt 1 ]; then echo "--- nvidia-smi topo -m"; nvidia-smi topo -m; fi
echo "--- nvidia-smi"
nvidia-smi
