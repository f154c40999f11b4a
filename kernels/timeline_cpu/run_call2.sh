#!/bin/bash
# Call 2 (4 GPUs): workload E, DDP with K=2 and K=4 ranks, rank 1 slowed or not. Usage from the repo root:
#   bash kernels/timeline_cpu/run_call2.sh WORKDIR OUTDIR
# Traces: ddp2_slow, ddp4_slow, ddp2_fast (rank{R}.json.gz per rank). Packed into OUTDIR/call2_N.tar.
set -u
D=$1
O=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D" "$O"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
bash "$HERE/manifest.sh" "bash kernels/timeline_cpu/run_call2.sh $D \$OUT" > "$D/manifest_call2.txt" 2>&1
head -12 "$D/manifest_call2.txt"
for run in "2 slow --trace" "2 fast --trace" "4 slow --trace" "4 fast"; do
    set -- $run
    K=$1; v=$2; fl=${3:-}
    cmd="python3 -m torch.distributed.run --standalone --nproc_per_node $K kernels/timeline_cpu/ddp_straggler.py $v $D/ddp${K}_$v $fl"
    echo "### $(date -u +%H:%M:%S) timeout 110 $cmd" | tee -a "$D/log_call2.txt"
    timeout -k 10 110 python3 -m torch.distributed.run --standalone --nproc_per_node "$K" \
        "$HERE/ddp_straggler.py" "$v" "$D/ddp${K}_$v" $fl 2>&1 | tee -a "$D/log_call2.txt"
    echo "### ddp${K}_$v exit ${PIPESTATUS[0]} at $(date -u +%H:%M:%S)" | tee -a "$D/log_call2.txt"
done
echo "date_utc_end: $(date -u '+%Y-%m-%d %H:%M:%S')" >> "$D/manifest_call2.txt"
ls -laR "$D" | tee -a "$D/log_call2.txt"
python3 "$HERE/pack.py" "$D" "$O" call2
