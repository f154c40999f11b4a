#!/usr/bin/env python3
"""Time per step in a PyTorch profiler trace, with or without ProfilerStep#N markers.

  python3 step_times.py [--steps 5] TRACE.json[.gz] ...

A CUDA-only capture (ProfilerActivity.CUDA alone) has no ProfilerStep#N spans, and a trace's GPU span
covers N step bodies but only N-1 of the idle gaps between steps, so span / N is not the step time.
This measures the period of the step instead: the launch calls that have a GPU op in the trace (the
cuda_runtime / cuda_driver event with the op's correlation id; calls without an op, e.g.
cudaStreamSynchronize, are not counted; ops launched before the capture began are left out) are
taken in time order and cut into N equal groups (N = --steps, the 5 active steps of the schedule; a
remainder, e.g. the final .item() of a fixed variant, goes to the last group). Then
  gpu period = (start of the first GPU op of group N - start of the first GPU op of group 1) / (N-1)
  cpu period = (start of the first call of group N  - start of the first call of group 1) / (N-1)
The gpu period is the traced step time (what the GPU delivers per step); the cpu period differs from
it where the CPU runs ahead of the GPU inside the capture. Where the trace marks ProfilerStep#N, the
mean CPU ProfilerStep span is printed beside them. Plain Python (json, gzip).
"""
import argparse
import gzip
import json


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def periods(path, n_steps):
    ev = load(path).get("traceEvents", [])
    ops = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    calls = {e["args"]["correlation"]: e for e in ev if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")
             and "correlation" in e.get("args", {})}
    first_op = {}
    for o in ops:
        c = o.get("args", {}).get("correlation")
        if c in calls:
            first_op[c] = min(first_op.get(c, float("inf")), float(o["ts"]))
    order = sorted(first_op, key=lambda c: float(calls[c]["ts"]))
    k = len(order) // n_steps
    out = {"launch_calls_with_ops": len(order), "calls_per_step": k}
    if k == 0:
        return out
    starts = [order[j * k] for j in range(n_steps)]
    gpu = [min(first_op[c] for c in order[j * k:(j + 1) * k if j < n_steps - 1 else len(order)]) for j in range(n_steps)]
    out["gpu_period_ms"] = (gpu[-1] - gpu[0]) / (n_steps - 1) / 1e3
    out["cpu_period_ms"] = (float(calls[starts[-1]]["ts"]) - float(calls[starts[0]]["ts"])) / (n_steps - 1) / 1e3
    steps = {}
    for e in ev:
        name = str(e.get("name", ""))
        if e.get("ph") == "X" and name.startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation":
            steps[name] = max(steps.get(name, 0.0), float(e["dur"]))
    out["profiler_steps"] = len(steps)
    if steps:
        out["profiler_step_mean_ms"] = sum(steps.values()) / len(steps) / 1e3
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    for p in a.traces:
        r = periods(p, a.steps)
        line = f"{p}: launch calls with ops {r['launch_calls_with_ops']} ({r['calls_per_step']} a step)"
        if "gpu_period_ms" in r:
            line += f"  gpu period {r['gpu_period_ms']:.3f} ms  cpu period {r['cpu_period_ms']:.3f} ms"
        line += (f"  ProfilerStep mean {r['profiler_step_mean_ms']:.3f} ms" if r.get("profiler_steps")
                 else "  no ProfilerStep#N")
        print(line)


if __name__ == "__main__":
    main()
