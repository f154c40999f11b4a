#!/usr/bin/env python3
"""HolisticTraceAnalysis 0.5.0's critical path beside roofline's on the same single-rank traces (issue 34):
HTA's CPGraph over the ProfilerStep instances of the trace, its edges summed by `bound_by`
(cpu_bound, gpu_compute_bound, gpu_kernel_kernel_overhead, gpu_kernel_launch_overhead), against roofline's
devices[].critical_path (on the GPU, on the CPU, waiting). HTA installed as ../shared/timeline/HTA.md says.

    HTA_DISABLE_NS_ROUNDING=1 /tmp/hta-venv/bin/python examples/timeline_cpu/hta_critical_path.py build-dev/roofline
"""
import json, os, shutil, subprocess, sys, tempfile, warnings

warnings.filterwarnings("ignore")
from hta.trace_analysis import TraceAnalysis

B = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
print("| trace | HTA: cpu_bound | gpu_compute_bound | kernel-kernel gaps | launch overhead | roofline: on the CPU | on the GPU | waiting |")
print("|---|---|---|---|---|---|---|---|")
for name in ("A_data_nw0", "B_decode_eager", "C_adam_foreach_false", "D_sync_naive", "D_sync_fixed"):
    path = os.path.join(here, "traces", name + ".json.gz")
    ours = json.loads(subprocess.run([B, "timeline", path, "--format", "json"], capture_output=True, text=True,
                                     check=True).stdout)["devices"][0]["critical_path"]
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(path, d)
        try:
            a = TraceAnalysis(trace_dir=d)
            steps = sorted(int(s.split("#")[1]) for s in a.t.symbol_table.sym_table if s.startswith("ProfilerStep#"))
            graph, ok = a.critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=(0, len(steps) - 1))
            df = graph.get_critical_path_breakdown() if ok else None
        except Exception as e:  # reported, not hidden
            df, ok = None, False
            print("| %s | HTA failed: %s |" % (name, type(e).__name__))
            continue
    if df is None:
        print("| %s | HTA: no critical path |" % name)
        continue
    total = df["duration"].sum()
    share = lambda k: 100.0 * df[df["bound_by"] == k]["duration"].sum() / total
    t = ours["total_ns"]
    print("| %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |" % (
        name, share("cpu_bound"), share("gpu_compute_bound"), share("gpu_kernel_kernel_overhead"),
        share("gpu_kernel_launch_overhead"), 100.0 * ours["cpu_ns"] / t, 100.0 * ours["gpu_ns"] / t,
        100.0 * ours["wait_ns"] / t))
