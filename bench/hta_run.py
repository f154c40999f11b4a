#!/usr/bin/env python3
"""HolisticTraceAnalysis 0.5.0 on one trace, doing what `roofline timeline` does: parse, then the
temporal breakdown (busy/idle), the idle-time breakdown (its gap causes), the kernel breakdown (top
kernels) and the launch statistics. usage: hta_run.py TRACE_DIR (a folder holding one trace)."""
import sys
import warnings

warnings.filterwarnings("ignore")
from hta.trace_analysis import TraceAnalysis

a = TraceAnalysis(trace_dir=sys.argv[1])
failed = []
for name in ("get_temporal_breakdown", "get_idle_time_breakdown", "get_gpu_kernel_breakdown",
             "get_cuda_kernel_launch_stats"):
    try:
        getattr(a, name)(visualize=False)
    except Exception as e:  # the benchmark measures what ran; a failure is reported, not hidden
        failed.append("%s: %s" % (name, type(e).__name__))
if failed:
    print("HTA failed: " + "; ".join(failed), file=sys.stderr)
    sys.exit(1)
