#!/usr/bin/env python3
"""The labelled CPU-attribution traces against the engine (issue 34): per trace, the planted category
(LABELS.md), the share of host-gap time that falls in a named category, the first finding, its estimate on
the trace alone and against the naive run's measured step (--step-time), and the measured gain of the fix
(timing_call*.json). DataLoader worker counts: the loader floor against each measured step. Ranks: the
straggler and its estimate against the measured fast/slow steps.

    python3 examples/timeline_cpu/validate.py build-dev/roofline
"""
import json, os, subprocess, sys

B = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
timing = {}
for f in ("timing_call1.json", "timing_call2.json"):
    timing.update({k: v["median_ms"] for k, v in json.load(open(os.path.join(here, f))).items()})
T = lambda n: os.path.join(here, "traces", n)

def run(args):
    out = subprocess.run([B, "timeline"] + args + ["--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)

# trace, planted category (LABELS.md), the finding id that names it, the naive and fixed timings of its fix
cases = [
    ("A_data_nw0", "data_loading", "data-loading-gaps", "A_data_nw0", "A_data_nw8"),
    ("A_data_nw4", "data_loading", "data-loading-gaps", "A_data_nw4", "A_data_nw8"),
    ("B_decode_eager", "dispatch", "dispatch-gaps", "B_decode_eager", "B_decode_graph"),
    ("C_adam_foreach_false", "optimizer", "optimizer-gaps", "C_adam_foreach_false", "C_adam_fused"),
    ("D_sync_naive", "sync", "sync-gaps", "D_sync_naive", "D_sync_fixed"),
]
print("| trace | planted | named share of host-gap time | category shares | first finding | est (trace) | est (--step-time) | measured fix | est / measured |")
print("|---|---|---|---|---|---|---|---|---|")
for trace, planted, fid, naive, fixed in cases:
    d = run([T(trace + ".json.gz"), "--step-time", "%.4fms" % timing[naive]])
    dev = d["devices"][0]
    cats = dev["cpu"]["by_category"]
    total = sum(v["ns"] for v in cats.values())
    named = sum(v["ns"] for k, v in cats.items() if k != "unknown")
    shares = ", ".join("%s %.0f%%" % (k, 100 * v["ns"] / total) for k, v in
                       sorted(cats.items(), key=lambda kv: -kv[1]["ns"]) if v["ns"] > 0.01 * total)
    first = d["findings"][0]
    est = first["est_speedup"]
    est_m = first.get("against_measured_step", {}).get("est_speedup")
    # The loader's finding gives the step at each worker count: the fix measured is 8 workers.
    for w in first.get("loader", {}).get("with_workers", []):
        if "nw%d" % w["workers"] in fixed:
            est_m = timing[naive] / (w["step_ns"] / 1e6)
    measured = timing[naive] / timing[fixed]
    print("| %s | %s | %.1f%% | %s | %s%s | %.2fx | %s | %.2fx (%s -> %s) | %s |" % (
        trace, planted, 100 * named / total, shares, first["id"], "" if first["id"] == fid else " (planted: %s)" % fid,
        est, "%.2fx" % est_m if est_m else "-", measured, naive, fixed,
        "%.2f" % (est_m / measured) if est_m else "-"))
# The loader's floor at each measured worker count, from the in-process trace.
d = run([T("A_data_nw0.json.gz"), "--step-time", "%.4fms" % timing["A_data_nw0"]])
loader = d["findings"][0].get("loader", {})
print("\nDataLoader floor from A_data_nw0 (loader %.1f ms a batch against the measured step, rest %.2f ms):\n" % (
    loader.get("measured_per_batch_ns", 0) / 1e6, loader.get("rest_per_step_ns", 0) / 1e6))
print("| workers | predicted step | measured step | predicted / measured |")
print("|---|---|---|---|")
for w in loader.get("with_workers", []):
    key = "A_data_nw%d" % w["workers"]
    if key in timing:
        print("| %d | %.1f ms | %.1f ms | %.2f |" % (w["workers"], w["step_ns"] / 1e6, timing[key],
                                                    w["step_ns"] / 1e6 / timing[key]))
print("\n| ranks | straggler (planted: rank 1) | others' exposed wait a step | est | measured (slow -> fast) | est / measured |")
print("|---|---|---|---|---|---|")
for run_dir, slow, fast in (("ddp2_slow", "ddp2_slow", "ddp2_fast"), ("ddp4_slow", "ddp4_slow", "ddp4_fast")):
    d = run([T(run_dir)])
    s = d["straggler"]
    measured = timing[slow] / timing[fast]
    print("| %s | rank %s (last at %d of %d) | %.1f ms | %.2fx | %.2fx | %.2f |" % (
        run_dir, s["rank"], s["arrived_last"], d["collectives"], s["others_wait_per_step_ns"] / 1e6,
        s["est_speedup"], measured, s["est_speedup"] / measured))
