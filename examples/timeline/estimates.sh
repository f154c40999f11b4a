#!/usr/bin/env bash
# The table of ESTIMATES.md: for every labelled trace, roofline timeline's utilisation beside the
# independent computation (independent_util.py), its first finding and that finding's estimate
# beside the gain measured without the profiler (the *.facts.json medians: naive step / fixed step).
# usage: examples/timeline/estimates.sh ROOFLINE > examples/timeline/ESTIMATES.md
set -euo pipefail
bin=$1
cd "$(dirname "$0")"
python3 - "$bin" <<'PY'
import json, re, subprocess, sys
bin = sys.argv[1]
def util_of(listing, name):
    text = open(listing).read()
    at = text.index("== " + name)
    return float(re.search(r"whole: .*? util=([0-9.]+)%", text[at:]).group(1))
def run(path):
    return json.loads(subprocess.run([bin, "timeline", path, "--format", "json"], check=True, capture_output=True, text=True).stdout)
cases = [("traces", "sync"), ("traces", "pageable"), ("traces", "cpu_data"), ("traces", "tiny_kernels"),
         ("traces", "two_stream"), ("nccl", "nccl", "rank0"), ("nccl", "nccl", "rank1")]
print("# Estimated against measured gain, labelled traces\n")
print("Made by `examples/timeline/estimates.sh build/roofline > examples/timeline/ESTIMATES.md`. Utilisation: roofline's")
print("busy / span against `independent_util.py`'s (whole trace). Estimate: the naive trace's first finding,")
print("`up to` (span / the floor after its fix). Measured: naive / fixed median step time without the profiler")
print("(`*.facts.json`). In band: the estimate within [0.67x, 1.5x] of the measured gain.\n")
print("| trace | utilisation (roofline / independent) | causes of gaps over 10 us | first finding | estimate | measured | estimate / measured |")
print("|---|---|---|---|---|---|---|")
for c in cases:
    folder, case = c[0], c[1]
    suffix = "_" + c[2] if len(c) > 2 else ""
    listing = "independent_util.txt" if folder == "traces" else "nccl/independent_util.txt"
    steps = {}
    for variant in ("naive", "fixed"):
        name = f"{case}_{variant}{suffix}"
        path = f"{folder}/{name}.json.gz"
        j = run(path)
        d = j["devices"][0]
        causes = ", ".join(f"{k} {v['count']}" for k, v in d["gaps"]["by_cause"].items() if v["count"]) or "none"
        steps[variant] = json.load(open(f"{folder}/{name}.facts.json"))["step_ms_median"]
        row = [name, "%.1f%% / %.1f%%" % (100 * d["utilisation"], util_of(listing, folder + "/" + name)), causes]
        if variant == "naive":
            f = j["findings"][0]
            first, est = f["id"], f["est_speedup"]
        else:
            row += ["", "", "", ""]
            fixed_row = row
            continue
        naive_row = row
    measured = steps["naive"] / steps["fixed"]
    naive_row += [first, "%.2fx" % est if est else "-", "%.2fx" % measured, "%.2f" % (est / measured) if est else "-"]
    print("| " + " | ".join(naive_row) + " |")
    print("| " + " | ".join(fixed_row) + " |")
print("""
Notes (see RESULTS.md for the captures themselves):
- Every planted cause is named, and is the first finding, on every naive trace but two_stream's, whose
  gain comes from running two GEMMs side by side: no gap or cause shows it (the split-K GEMMs already fill
  the GPU, so it is 1.11x); the launch-bound finding's 1.06x there is the short gaps between the kernels.
- tiny_kernels is out of the band, above it: under the profiler each eager operator costs about 17 us of
  CPU against 11 us without it, so the trace's host gaps (and the 6.2 ms step) overstate the run's (4.05 ms);
  the floor after the fix (the busy time, 0.368 ms a step) is the CUDA-graph run's measured 0.393 ms within
  7%. The report says so beside every CPU-bound finding.
- NCCL: the floor takes the lone communication as hidden under the lone compute; the measured fix hides
  less (the NCCL kernels slow the GEMMs beside them), so the estimate is high, inside the band.
- The fixed traces keep small host gaps the profiler makes (a graph launch takes ~500 us of CPU under it);
  without the profiler they are not there (RESULTS.md, label 6).""")
PY
