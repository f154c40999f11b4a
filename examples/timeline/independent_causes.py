#!/usr/bin/env python3
"""Independent reference classification of GPU idle gaps (> 10 us) in Kineto Chrome traces, written
from the cause definitions of `roofline timeline`'s brief, not from its code. Plain Python (json, gzip),
float64 microseconds.

  python3 independent_causes.py TRACE.json[.gz] ... [--list N]

For each device: busy = union of kernel / gpu_memcpy / gpu_memset intervals over all streams; a gap is
the idle time between two merged busy intervals, counted when > 10 us, over the whole trace (first op
start .. last op end). The op ending the gap is the first op to start at the end of the gap; its
launching call is the cuda_runtime / cuda_driver event with the same args.correlation (for graph
replays, the cudaGraphLaunch). Causes, first match wins:
  pageable  the last op to end before the gap is a "Memcpy ... (Pageable ...)" (the host was blocked in
            the pageable copy and its stream sync, and launches the next op only after it returns), or
            the op ending the gap is a pageable memcpy whose call started before the gap (the staging
            delayed it); a pageable memcpy issued after the GPU went idle falls through to host;
  sync      a synchronising call (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize,
            cudaMemcpy/cudaMemset without Async) on the launching thread returned inside
            [gap start, launch call start];
  host      the launch call started at or after the gap start (the GPU was already idle when it was
            issued), or started before it but returned after it (a launch call slower than the GPU
            work queued before it, e.g. cudaGraphLaunch under the profiler): flagged "host(slow call)";
  memset    the op ending the gap is a memset launched before the gap started;
  other     anything else (launched before the gap start, no sync: cross-stream waits, ...).
Prints per device: count and total per cause, the share of the span, and the N largest gaps.
"""
import gzip
import json
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
SYNC_NAMES = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
              "cudaMemset", "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize")
GAP_US = 10.0


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def classify(path, nlist):
    ev = load(path)["traceEvents"]
    X = [e for e in ev if e.get("ph") == "X"]
    launch = {}
    syncs = {}
    for e in X:
        if e.get("cat") in ("cuda_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                launch[c] = e
            if e["name"] in SYNC_NAMES:
                syncs.setdefault((e["pid"], e["tid"]), []).append(float(e["ts"]) + float(e["dur"]))
    devs = {}
    for e in X:
        if e.get("cat") in GPU_CATS and isinstance(e.get("pid"), int):
            devs.setdefault(e["pid"], []).append(e)
    print(f"== {path}")
    for dev in sorted(devs):
        ops = sorted(devs[dev], key=lambda e: (float(e["ts"]), float(e["ts"]) + float(e["dur"])))
        first = float(ops[0]["ts"])
        end, last_op = None, None
        gaps = []
        for e in ops:
            s, t = float(e["ts"]), float(e["ts"]) + float(e["dur"])
            if end is not None and s - end > GAP_US:
                gaps.append((end, s, last_op, e))
            if end is None or t > end:
                end, last_op = t, e
        span = end - first
        rows = []
        for g0, g1, before, after in gaps:
            l = launch.get(after.get("args", {}).get("correlation"))
            ls = float(l["ts"]) if l else None
            le = ls + float(l["dur"]) if l else None
            pageable = "Pageable" in before["name"] or (
                "Pageable" in after["name"] and ls is not None and ls < g0)
            sync_hit = False
            if l is not None:
                for t in syncs.get((l["pid"], l["tid"]), []):
                    if g0 <= t <= ls:
                        sync_hit = True
                        break
            if pageable:
                cause = "pageable"
            elif sync_hit:
                cause = "sync"
            elif ls is not None and ls >= g0:
                cause = "host"
            elif le is not None and le > g0:
                cause = "host(slow call)"
            elif after.get("cat") == "gpu_memset":
                cause = "memset"
            else:
                cause = "other"
            rows.append((g1 - g0, g0, cause, after["name"], l["name"] if l else None,
                         (ls - g0) if ls is not None else None))
        tot = {}
        for d, _, c, *_ in rows:
            n, s = tot.get(c, (0, 0.0))
            tot[c] = (n + 1, s + d)
        idle = sum(d for d, *_ in rows)
        print(f"-- device {dev}: span={span:.3f} us gaps>10us n={len(rows)} total={idle:.3f} us "
              f"({100 * idle / span:.2f}% of span)")
        for c, (n, s) in sorted(tot.items(), key=lambda kv: -kv[1][1]):
            print(f"   {c:16s} n={n:5d} total={s:12.3f} us  {100 * s / span:6.2f}% of span  "
                  f"{100 * s / idle:6.2f}% of gap time")
        for d, g0, c, name, lname, dl in sorted(rows, reverse=True)[:nlist]:
            dls = f"{dl:+.1f}" if dl is not None else "?"
            print(f"     {d:10.3f} us at {g0:.3f}: {c:16s} ends at {name[:48]!r} launched by {lname} "
                  f"(call start - gap start = {dls} us)")


def main():
    args = sys.argv[1:]
    nlist = 5
    if "--list" in args:
        i = args.index("--list")
        nlist = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        print(__doc__)
        return 2
    for p in args:
        classify(p, nlist)
    return 0


if __name__ == "__main__":
    sys.exit(main())
