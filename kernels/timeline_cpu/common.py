"""Shared helpers for the CPU-attribution validation workloads (kernels/timeline_cpu/).

timing:  time_variant(step, ...) -> list of ms/step, one per repeat (torch.cuda.synchronize() before and
         after each repeat; the optional finish() runs inside the timed region).
capture: capture(step, path_gz, active) -> torch.profiler with CPU + CUDA activities,
         schedule(wait=1, warmup=2, active=N, repeat=1), with_stack=True, record_shapes=False,
         prof.step() once per step (so the trace holds ProfilerStep#3..#(2+N)), exported as .json and
         gzipped (mtime 0) to path_gz. If the gzipped trace exceeds MAX_GZ, it is captured again with
         fewer active steps (never fewer than 2).
"""
import gzip
import json
import os
import shutil
import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule

MAX_GZ = int(11.5 * 1024 * 1024)


def log(*a):
    print(*a, flush=True)


def sync():
    torch.cuda.synchronize()


def time_variant(step, warmup=5, steps=20, repeats=3, finish=None):
    for _ in range(warmup):
        step()
    if finish is not None:
        finish()
    sync()
    runs = []
    for _ in range(repeats):
        sync()
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        if finish is not None:
            finish()
        sync()
        runs.append((time.perf_counter() - t0) * 1e3 / steps)
    return runs


def entry(runs, **params):
    return {"ms_per_step_runs": [round(x, 4) for x in runs],
            "median_ms": round(statistics.median(runs), 4),
            "params": params}


def trace_summary(path_gz):
    try:
        with gzip.open(path_gz, "rt") as f:
            t = json.load(f)
        events = t if isinstance(t, list) else t.get("traceEvents", [])
        cats = {}
        steps = set()
        for e in events:
            c = e.get("cat")
            cats[c] = cats.get(c, 0) + 1
            n = str(e.get("name", ""))
            if n.startswith("ProfilerStep#") and c == "user_annotation":
                steps.add(n)
        return {"event_counts": cats, "profiler_steps": sorted(steps),
                "has_distributedInfo": isinstance(t, dict) and "distributedInfo" in t}
    except Exception as ex:  # noqa: BLE001
        return {"error": repr(ex)}


def capture(step, path_gz, active=5, finish_last=None, min_active=2):
    """Profile 1 + 2 + active steps; returns a dict of facts about the trace."""
    path_json = path_gz[:-3] if path_gz.endswith(".gz") else path_gz + ".json"
    while True:
        def ready(p, pj=path_json):
            p.export_chrome_trace(pj)

        sync()
        n = 1 + 2 + active
        t0 = time.perf_counter()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     schedule=schedule(wait=1, warmup=2, active=active, repeat=1),
                     on_trace_ready=ready, with_stack=True, record_shapes=False) as prof:
            for i in range(n):
                step()
                if i == n - 1 and finish_last is not None:
                    finish_last()
                prof.step()
        sync()
        wall = time.perf_counter() - t0
        with open(path_json, "rb") as fi, gzip.GzipFile(path_gz, "wb", mtime=0) as fo:
            shutil.copyfileobj(fi, fo)
        raw = os.path.getsize(path_json)
        os.remove(path_json)
        gz = os.path.getsize(path_gz)
        log(f"  trace {os.path.basename(path_gz)}: active={active} json={raw / 2**20:.1f} MiB "
            f"gz={gz / 2**20:.2f} MiB capture_wall={wall:.1f}s")
        if gz <= MAX_GZ or active <= min_active:
            break
        os.remove(path_gz)
        active = max(min_active, active // 2)
        log(f"  trace too large, capturing again with active={active}")
    facts = {"trace": os.path.basename(path_gz), "active_steps": active, "json_bytes": raw,
             "gz_bytes": gz, "capture_wall_s": round(wall, 2), "too_large": gz > MAX_GZ}
    facts.update(trace_summary(path_gz))
    return facts


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
