#!/usr/bin/env python3
"""Independent check of `roofline timeline`'s small-grids figure, from the Kineto trace JSON alone (json, gzip;
nothing from the tool). For validating `devices[i].small_grids` of `roofline timeline --format json`.

  python3 idle_sm.py TRACE.json[.gz] ...

Per device (GPU ops: cat kernel / gpu_memcpy / gpu_memset, ph X, pid = device; SM count: the
deviceProperties entry whose id is that device, field numSms):
  blocks  = args.grid[0] * args.grid[1] * args.grid[2] of each kernel;
  NCCL kernels (name contains "nccl", any case) are left out;
  small   = kernels with blocks < numSms;
  idle_sm = sum over the small ones of dur x (1 - blocks / numSms);
  span    = first op start .. last op end.
Two kernel sets are reported:
  all       every GPU op in the trace;
  launched  the ops from the first one (by start time) whose correlation id is that of a CUDA runtime /
            driver call in the trace onward (work launched before the trace began and running before it is
            left out, which is what the tool's report says it does: "Left out: N ops ... launched before the
            trace began").
Durations and timestamps are the trace's microseconds (float64); figures are printed in ns. Also prints, per
kernel name, launches, blocks, summed duration and idle SM time, and the share of the span.
"""
import collections
import gzip
import json
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
CALL_CATS = ("cuda_runtime", "cuda_driver")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def blocks_of(e):
    g = (e.get("args") or {}).get("grid")
    if not isinstance(g, list) or len(g) != 3:
        return None
    n = 1
    for x in g:
        n *= int(x)
    return n if n >= 1 else None


def figures(ops, sms):
    span_us = max(o["ts"] + o["dur"] for o in ops) - min(o["ts"] for o in ops)
    kernels = [o for o in ops if o.get("cat") == "kernel"]
    known = small = 0
    small_dur = idle = 0.0
    per_name = collections.OrderedDict()
    for k in kernels:
        if "nccl" in k["name"].lower():
            continue
        b = blocks_of(k)
        if b is None:
            continue
        known += 1
        if b < sms:
            small += 1
            small_dur += k["dur"]
            i = k["dur"] * (1.0 - b / sms)
            idle += i
            r = per_name.setdefault((k["name"], b), [0, 0.0, 0.0])
            r[0] += 1
            r[1] += k["dur"]
            r[2] += i
        else:
            r = per_name.setdefault((k["name"], b), [0, 0.0, 0.0])
            r[0] += 1
            r[1] += k["dur"]
    return {"ops": len(ops), "kernels": len(kernels), "grids_known": known, "small": small,
            "small_dur_ns": small_dur * 1e3, "idle_sm_ns": idle * 1e3, "span_ns": span_us * 1e3,
            "share": idle / span_us if span_us > 0 else 0.0, "per_name": per_name}


def analyse(path):
    t = load(path)
    ev = t.get("traceEvents", [])
    sms_of = {d.get("id"): d.get("numSms") for d in t.get("deviceProperties", [])}
    calls = {(e.get("args") or {}).get("correlation") for e in ev
             if e.get("ph") == "X" and e.get("cat") in CALL_CATS}
    calls.discard(None)
    by_dev = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in GPU_CATS and isinstance(e.get("pid"), int):
            by_dev[e["pid"]].append(e)
    print(f"== {path}")
    for dev, ops in sorted(by_dev.items()):
        ops.sort(key=lambda o: (o["ts"], o["ts"] + o["dur"]))
        sms = sms_of.get(dev)
        if not sms:
            print(f"  device {dev}: no numSms in deviceProperties: grids' fill unknown")
            continue
        first = next((i for i, o in enumerate(ops) if (o.get("args") or {}).get("correlation") in calls), 0)
        for label, sel in (("all", ops), ("launched", ops[first:])):
            f = figures(sel, sms)
            print(f"  device {dev} numSms={sms} [{label}] ops={f['ops']} kernels={f['kernels']} "
                  f"grids_known={f['grids_known']} small={f['small']} small_dur_ns={f['small_dur_ns']:.0f} "
                  f"idle_sm_ns={f['idle_sm_ns']:.0f} span_ns={f['span_ns']:.0f} share={100 * f['share']:.2f}%")
            if label == "launched":
                print(f"    left out before the first op launched in the trace: {first} ops")
                for (name, b), (n, dur, idle) in sorted(f["per_name"].items(), key=lambda kv: -kv[1][1]):
                    print(f"    {n:4d} x blocks={b:6d} dur={dur:10.3f} us idle_sm={idle:9.3f} us  {name[:80]}")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        analyse(p)
