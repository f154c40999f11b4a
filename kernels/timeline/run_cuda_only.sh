#!/bin/bash
# Like run_all.sh, but every capture records the CUDA activity alone (workloads.py --activities cuda:
# torch.profiler with ProfilerActivity.CUDA only: kernels, copies, memsets and CUDA runtime calls, no CPU
# operators, no ProfilerStep#N), then runs examples/timeline/independent_util.py over the traces.
# Usage (from the repository root): bash kernels/timeline/run_cuda_only.sh OUTDIR
# Each run is bounded by `timeout 100`; the whole script should take 2-4 minutes.
# run_log.txt has each run's one-line summary with the profiler's repeated UserWarning ("Profiler clears
# events at the end of each cycle") left out; run_log_raw.txt has everything.
set -u
D=$1
mkdir -p "$D"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export PYTHONUNBUFFERED=1
{
    date -u
    nvidia-smi
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    python3 -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "numpy", numpy.__version__, torch.cuda.get_device_name(0))'
    python3 --version
    nproc
    lscpu | head -20
} > "$D/machine.txt" 2>&1
run() {  # CASE VARIANT OUTDIR [extra args]
    timeout 100 python3 "$HERE/workloads.py" "$@" --activities cuda > "$D/.run.out" 2>&1
    echo "exit $? : workloads.py $* --activities cuda" >> "$D/run_log_raw.txt"
    cat "$D/.run.out" >> "$D/run_log_raw.txt"
    grep -v -e 'Profiler clears events at the end of each cycle' -e '^ *warn(' -e '^ *warnings.warn(' -e '^ *_warn_once(' "$D/.run.out" | tee -a "$D/run_log.txt"
    rm -f "$D/.run.out"
}
for c in sync pageable cpu_data tiny_kernels two_stream; do
    for v in naive fixed; do
        run $c $v "$D"
    done
done
# CUDA-graph replays must show their kernels; if the fixed tiny_kernels trace has none, capture again
# with CUPTI initialised before the graph capture.
n=$(python3 -c "import json;print(json.load(open('$D/tiny_kernels_fixed.facts.json'))['event_counts'].get('kernel',0))" 2>/dev/null || echo 0)
if [ "${n:-0}" -lt 100 ]; then
    echo "tiny_kernels fixed trace has $n kernels: rerun with --cupti-warm" | tee -a "$D/run_log.txt"
    mkdir -p "$D/cupti_warm"
    run tiny_kernels fixed "$D/cupti_warm" --cupti-warm
fi
python3 "$ROOT/examples/timeline/independent_util.py" "$D"/*.json.gz > "$D/independent_util.txt" 2>&1
ls -la "$D" >> "$D/run_log.txt"
