#!/usr/bin/env python3
"""planted.json as `nsys stats --format csv` reports: cuda_gpu_trace (planted_gpu_trace.csv) and
cuda_api_trace (planted_api_trace.csv), in the columns /work/shared/timeline/FORMATS.md section 4 records
from nsys 2024+ (built to that layout: nsys cannot run on the machines this project has). The GPU trace
starts with the "Processing [...]" line nsys prints before a report on stdout.
usage: make_planted_nsys_csv.py planted.json OUT_DIR"""
import csv
import json
import os
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
out = sys.argv[2]
ns = lambda us: int(round(us * 1000))
rows, api = [], []
for e in events:
    if e.get("ph") != "X":
        continue
    cat, a = e.get("cat"), e.get("args", {})
    start, dur = ns(e["ts"]), ns(e["ts"] + e["dur"]) - ns(e["ts"])
    device = "NVIDIA H100 80GB HBM3 (0)"
    if cat == "kernel":
        g, b = a["grid"], a["block"]
        rows.append([start, dur, a["correlation"], g[0], g[1], g[2], b[0], b[1], b[2], a["registers per thread"],
                     "0.000", "0.000", "", "", "", "", device, 1, "", a["stream"], e["name"]])
    elif cat == "gpu_memcpy":
        src, dst = e["name"].split("(")[1].rstrip(")").split(" -> ")
        label = "Host-to-Device" if "HtoD" in e["name"] else "Device-to-Host"
        mb = a["bytes"] / 1e6
        rows.append([start, dur, a["correlation"], "", "", "", "", "", "", "", "", "", "%.3f" % mb,
                     "%.3f" % (a["bytes"] * (1000000000 // dur) / 1e6), src, dst, device, 1, "", a["stream"],
                     "[CUDA memcpy %s]" % label])
    elif cat == "cuda_runtime":
        api.append([start, dur, e["name"], 0, a.get("correlation", 0), 717, 100, 0, "python3"])
rows.sort(key=lambda r: r[0])
api.sort(key=lambda r: r[0])
with open(os.path.join(out, "planted_gpu_trace.csv"), "w", newline="") as f:
    f.write("Processing [planted.sqlite] with [/opt/nvidia/nsight-systems/reports/cuda_gpu_trace.py]... \n\n")
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd",
                "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MB/s)", "SrcMemKd", "DstMemKd", "Device",
                "Ctx", "GreenCtx", "Strm", "Name"])
    w.writerows(rows)
with open(os.path.join(out, "planted_api_trace.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["Start (ns)", "Duration (ns)", "Name", "Result", "CorrID", "Pid", "Tid", "T-Pri", "Thread Name"])
    w.writerows(api)
