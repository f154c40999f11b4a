#!/usr/bin/env python3
"""HolisticTraceAnalysis 0.5.0 on one trace, doing what `roofline timeline` does: parse, then the
temporal breakdown (busy/idle), the idle-time breakdown (its gap causes), the kernel breakdown (top
kernels) and the launch statistics. usage: hta_run.py TRACE_DIR (a folder holding one trace)."""
import sys
import warnings

warnings.filterwarnings("ignore")
from hta.trace_analysis import TraceAnalysis

a = TraceAnalysis(trace_dir=sys.argv[1])
a.get_temporal_breakdown(visualize=False)
a.get_idle_time_breakdown(visualize=False)
a.get_gpu_kernel_breakdown(visualize=False)
a.get_cuda_kernel_launch_stats(visualize=False)
