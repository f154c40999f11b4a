#!/usr/bin/env bash
# The device-machine side of examples/user_level: unprofiled timings and kernel lists of
# user_ops.py, a PyTorch profiler trace of three naive ops, and `ncu --set full` captures (one launch
# of every kernel of every op and variant), each exported as the raw and the details page.
#   kernels/user_level/profile_user_level.sh OUTDIR
# Reports: gemm (lm-head and TF32 pairs), sdpa (four backends), elem (eager chain, layouts, conv).
# Every ncu call is bounded by `timeout`, cut to what is left of UL_BUDGET seconds (default 540), so a
# slow capture cannot lose what came before. Small files are packed into OUTDIR/user_level.tar.gz.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
work=${UL_WORK:-build-device/user_level}
mkdir -p "$work"
work=$(cd "$work" && pwd)
budget=${UL_BUDGET:-540}
stages=,${UL_STAGES:-time,elem,gemm,sdpa},
want() { [[ $stages == *",$1,"* ]]; }
man=$work/manifest.txt
left() { echo $((budget - SECONDS)); }
cap() {  # planned seconds -> min(planned, left - reserve), at least 1
    local t=$1 l=$(( $(left) - ${2:-20} ))
    (( l < t )) && t=$l
    (( t < 1 )) && t=1
    echo "$t"
}

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ) stages: ${stages:1:-1}"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv,noheader)"
    echo "ncu: $(ncu --version | tail -n 1)"
    echo "python: $(command -v python3) $(python3 --version 2>&1)"
    echo "versions: $(python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "triton", triton.__version__)' 2>&1)"
    echo "cublas: $(python3 -c 'import importlib.metadata as m; print(m.version("nvidia-cublas"))' 2>&1 | tail -n 1)"
    echo "locale: LANG=${LANG:-unset} LC_ALL=${LC_ALL:-unset} LC_NUMERIC=${LC_NUMERIC:-unset}"
} >> "$man"

if want time; then
    echo "command (time): python3 user_ops.py --time --trace $out/trace_naive.json.gz" >> "$man"
    (cd "$here" && PYTHONUNBUFFERED=1 timeout "$(cap 200)" python3 user_ops.py --time --trace "$out/trace_naive.json.gz") \
        > "$work/timing.txt" 2>&1
    echo "time exit: $? at ${SECONDS}s" >> "$man"
    grep -v "^    kernel" "$work/timing.txt" | tail -n 40
fi

export_rep() {  # report name
    timeout "$(cap 60 5)" ncu -i "$work/$1.ncu-rep" --csv --page raw > "$work/${1}_raw.csv" 2> "$work/${1}_export.err"
    echo "export $1 raw: $? ($(wc -l < "$work/${1}_raw.csv") lines) at ${SECONDS}s" >> "$man"
    timeout "$(cap 60 5)" ncu -i "$work/$1.ncu-rep" --csv --page details > "$work/${1}_details.csv" 2>> "$work/${1}_export.err"
    echo "export $1 details: $? ($(wc -l < "$work/${1}_details.csv") lines) at ${SECONDS}s" >> "$man"
}

capture() {  # report name, planned seconds, ops
    local cmd="ncu --set full --profile-from-start off -f -o $work/$1 python3 $here/user_ops.py --profile $3"
    echo "command ($1): $cmd" >> "$man"
    PYTHONUNBUFFERED=1 timeout "$(cap "$2" 40)" $cmd > "$work/ncu_${1}_stdout.txt" 2>&1
    echo "ncu $1 exit: $? at ${SECONDS}s" >> "$man"
    tail -n 4 "$work/ncu_${1}_stdout.txt"
    [ -f "$work/$1.ncu-rep" ] && export_rep "$1"
}

want elem && capture elem 170 eager_chain,noncontig,noncontig_scalar,misaligned,channels_last
if [ -f "$work/elem.ncu-rep" ]; then
    timeout "$(cap 60 5)" ncu -i "$work/elem.ncu-rep" --csv --page raw --print-kernel-base mangled > "$work/elem_raw_mangled.csv" 2>> "$work/elem_export.err"
    echo "export elem raw mangled: $? at ${SECONDS}s" >> "$man"
fi
want gemm && capture gemm 150 lmhead_bf16,lmhead_fp32,gemm_tf32
want sdpa && capture sdpa 170 sdpa

ls -la "$work" >> "$man"
cp "$man" "$out/manifest.txt"
(cd "$work" && tar czf "$out/user_level.tar.gz" manifest.txt timing.txt ./*_raw.csv ./*_raw_mangled.csv ./*_details.csv \
    ./ncu_*_stdout.txt ./*_export.err 2>/dev/null)
for r in elem gemm sdpa; do  # reports come back whole where they fit (16 MiB a file)
    [ -f "$work/$r.ncu-rep" ] && [ "$(stat -c %s "$work/$r.ncu-rep")" -lt 16000000 ] && cp "$work/$r.ncu-rep" "$out/"
done
ls -la "$out"
grep "^|" "$work/timing.txt"
exit 0
