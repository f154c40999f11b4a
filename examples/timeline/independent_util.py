#!/usr/bin/env python3
"""Independent check of GPU busy time / utilisation / idle gaps in Kineto (PyTorch profiler) Chrome
traces, for validating `roofline timeline`. Plain Python (json, gzip), float64 microseconds as in
the trace; nothing is rounded.

  python3 independent_util.py TRACE.json[.gz] ...

Per trace and per device (GPU events: cat kernel, gpu_memcpy, gpu_memset, ph X; pid = device):
  whole trace : span = first op start .. last op end; busy = union of [ts, ts+dur) over all streams;
                util = busy / span; sum_dur = plain sum of durations (> busy when streams overlap);
                gaps = idle intervals between merged busy intervals, counted when longer than 10 us.
  steps       : the same restricted to the window [first ProfilerStep#N CPU span start, last
                ProfilerStep#N CPU span end] (the profiled steps; intervals clipped to it);
                lead/tail = idle from the window start to the first busy instant and from the last
                busy instant to the window end (reported apart, not in the gap count).
  launched    : the GPU ops whose runtime launch call lies inside that CPU window (by correlation):
                gpu_window = their first start .. last end, busy/util/gaps of all ops inside it
                (the useful view when the CPU runs ahead of the GPU, e.g. pageable fixed).
  per step    : each ProfilerStep#N CPU span: its length, GPU busy inside it, util; then each GPU-side
                ProfilerStep#N span (cat gpu_user_annotation on the device) likewise.
  no steps    : a trace without ProfilerStep#N spans (captured with ProfilerActivity.CUDA alone) says
                so; its steps view is the whole GPU span (the 'whole' line), and its launched view
                takes the ops whose launch call is in the trace.
  memcpy/memset names with count, total duration, bytes.
"""
import gzip
import json
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
GAP_US = 10.0


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def merge(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def clip(merged, lo, hi):
    out = []
    for s, e in merged:
        s2, e2 = max(s, lo), min(e, hi)
        if e2 > s2:
            out.append([s2, e2])
    return out


def gaps_of(merged):
    return [b[0] - a[1] for a, b in zip(merged, merged[1:])]


def fmt_gaps(g):
    big = [x for x in g if x > GAP_US]
    small = [x for x in g if x <= GAP_US]
    return (f"gaps>10us n={len(big)} total={sum(big):.3f} us"
            f"{' max=%.3f' % max(big) if big else ''}; gaps<=10us n={len(small)} total={sum(small):.3f} us")


def launched_view(label, merged, launched, steps=0):
    """Busy time and gaps over the window from the first to the last of `launched` (GPU ops whose launch
    call is in the trace); with `steps`, the window's mean per step too."""
    if not launched:
        return
    l2 = min(float(e["ts"]) for e in launched)
    h2 = max(float(e["ts"]) + float(e["dur"]) for e in launched)
    m4 = clip(merged, l2, h2)
    b4 = sum(y - x for x, y in m4)
    per_step = f" mean_step={(h2 - l2) / steps:.3f} us" if steps else ""
    print(f"   {label}: n={len(launched)} gpu_window={h2 - l2:.3f} us busy={b4:.3f} us "
          f"util={100 * b4 / (h2 - l2):.2f}%{per_step}")
    print(f"          {fmt_gaps(gaps_of(m4))}")


def analyse(path):
    t = load(path)
    ev = t.get("traceEvents", [])
    print(f"== {path}")
    print(f"   cupti_version={t.get('cupti_version')} cuda_driver_version={t.get('cuda_driver_version')} "
          f"cuda_runtime_version={t.get('cuda_runtime_version')}")
    dev_ops = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in GPU_CATS and isinstance(e.get("pid"), int):
            dev_ops.setdefault(e["pid"], []).append(e)
    steps = {}
    for e in ev:
        n = str(e.get("name", ""))
        if e.get("ph") == "X" and n.startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation":
            s, d = float(e["ts"]), float(e["dur"])
            if n not in steps or d > steps[n][1] - steps[n][0]:
                steps[n] = (s, s + d)
    step_list = sorted(steps.items(), key=lambda kv: kv[1][0])
    corr_ts = {e["args"]["correlation"]: float(e["ts"]) for e in ev
               if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")
               and "correlation" in e.get("args", {})}
    if not dev_ops:
        print("   no GPU ops")
    for dev in sorted(dev_ops):
        ops = dev_ops[dev]
        iv = [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in ops]
        merged = merge(iv)
        span = merged[-1][1] - merged[0][0]
        busy = sum(e - s for s, e in merged)
        sumdur = sum(e - s for s, e in iv)
        counts = {c: sum(1 for e in ops if e["cat"] == c) for c in GPU_CATS}
        streams = sorted({e.get("tid") for e in ops}, key=str)
        print(f"-- device {dev}: ops={len(ops)} (kernel {counts['kernel']}, memcpy {counts['gpu_memcpy']}, "
              f"memset {counts['gpu_memset']}) streams={streams}")
        print(f"   whole: span={span:.3f} us busy={busy:.3f} us util={100 * busy / span:.2f}% "
              f"sum_dur={sumdur:.3f} us (sum/busy={sumdur / busy:.3f})")
        print(f"          {fmt_gaps(gaps_of(merged))}")
        if step_list:
            lo, hi = step_list[0][1][0], step_list[-1][1][1]
            m2 = clip(merged, lo, hi)
            b2 = sum(e - s for s, e in m2)
            w = hi - lo
            lead = (m2[0][0] - lo) if m2 else w
            tail = (hi - m2[-1][1]) if m2 else 0.0
            print(f"   steps {step_list[0][0]}..{step_list[-1][0]}: window={w:.3f} us busy={b2:.3f} us "
                  f"util={100 * b2 / w:.2f}% lead_idle={lead:.3f} us tail_idle={tail:.3f} us "
                  f"mean_step={w / len(step_list):.3f} us")
            print(f"          {fmt_gaps(gaps_of(m2))}")
            for name, (s, e) in step_list:
                m3 = clip(merged, s, e)
                b3 = sum(y - x for x, y in m3)
                g3 = [x for x in gaps_of(m3) if x > GAP_US]
                print(f"     {name:16s} cpu_span={e - s:12.3f} us gpu_busy={b3:12.3f} us util={100 * b3 / (e - s):6.2f}% "
                      f"gaps>10us n={len(g3)} total={sum(g3):.3f} us")
            # GPU work launched inside the profiled steps (by correlation with the runtime call), for
            # traces where the CPU runs ahead of the GPU and the CPU step window misses the GPU work
            launched_view("ops launched in steps", merged,
                          [e for e in ops if e.get("args", {}).get("correlation") in corr_ts
                           and lo <= corr_ts[e["args"]["correlation"]] <= hi], len(step_list))
        else:
            # A capture without the CPU activity (torch.profiler with ProfilerActivity.CUDA alone) has no
            # ProfilerStep#N spans: the steps view falls back to the whole GPU span (the 'whole' line).
            print("   no ProfilerStep#N spans: steps view = the whole GPU span (the 'whole' line above)")
        # The launched view keeps the window from the first to the last op whose launch call is in the
        # trace (not the work launched before the capture began and still running when it did).
        launched_view("ops launched in the trace", merged,
                      [e for e in ops if e.get("args", {}).get("correlation") in corr_ts])
        gsteps = sorted(((float(e["ts"]), float(e["ts"]) + float(e["dur"]), f'{e["name"]} s{e.get("tid")}') for e in ev
                         if e.get("ph") == "X" and e.get("cat") == "gpu_user_annotation" and e.get("pid") == dev
                         and str(e.get("name", "")).startswith("ProfilerStep#")))
        for s, e, name in gsteps:
            m5 = clip(merged, s, e)
            b5 = sum(y - x for x, y in m5)
            g5 = [x for x in gaps_of(m5) if x > GAP_US]
            print(f"     gpu {name:16s} gpu_span={e - s:12.3f} us gpu_busy={b5:12.3f} us util={100 * b5 / (e - s):6.2f}% "
                  f"gaps>10us n={len(g5)} total={sum(g5):.3f} us")
        mm = {}
        for e in ops:
            if e["cat"] != "kernel":
                r = mm.setdefault(e["name"], [0, 0.0, 0])
                r[0] += 1
                r[1] += float(e["dur"])
                r[2] += int(e.get("args", {}).get("bytes", 0) or 0)
        for n, (c, d, b) in sorted(mm.items()):
            print(f"   {n}: n={c} total_dur={d:.3f} us bytes={b}")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for p in sys.argv[1:]:
        analyse(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
