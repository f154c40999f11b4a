#!/usr/bin/env python3
"""Builds PyTorch profiler traces of a given size for bench/timeline.sh by repeating the events of a
real trace: copy k of every event is shifted by k spans of the trace (so the copies follow each other
in time, as the steps of a longer run would) and gets correlation and External ids of its own, so
each GPU op still finds its own launching call. The metadata (deviceProperties, ...) is written once.
usage: make_traces.py SOURCE.json[.gz] OUT_DIR MB [MB ...]   -> OUT_DIR/trace_<MB>mb.json
"""
import gzip
import json
import os
import sys

def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)

def main():
    src, out_dir, sizes = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
    doc = load(src)
    events = [e for e in doc["traceEvents"] if isinstance(e.get("ts"), (int, float))]
    t0 = min(e["ts"] for e in events)
    t1 = max(e["ts"] + e.get("dur", 0) for e in events)
    span = (t1 - t0) + 100.0
    max_corr = max([e.get("args", {}).get("correlation", 0) for e in events] + [e.get("id", 0) for e in events
                   if isinstance(e.get("id"), int)] + [0]) + 1
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    meta = [e for e in doc["traceEvents"] if not isinstance(e.get("ts"), (int, float))]
    lines = [json.dumps(e, separators=(", ", ": ")) for e in events]
    once = sum(len(l) + 4 for l in lines)
    for mb in sizes:
        copies = max(1, (mb * 1_000_000) // once)
        path = os.path.join(out_dir, "trace_%dmb.json" % mb)
        with open(path, "w") as f:
            f.write("{\n")
            for k, v in head.items():
                f.write("  %s: %s,\n" % (json.dumps(k), json.dumps(v)))
            f.write('  "traceEvents": [\n')
            first = True
            for e in meta:
                f.write(("" if first else ",\n") + "  " + json.dumps(e))
                first = False
            for k in range(copies):
                for e in events:
                    c = dict(e)
                    c["ts"] = round(e["ts"] + k * span, 3)
                    if "args" in e:
                        a = dict(e["args"])
                        for key in ("correlation", "External id"):
                            if isinstance(a.get(key), int) and a[key] > 0:
                                a[key] += k * max_corr
                        c["args"] = a
                    if isinstance(e.get("id"), int):
                        c["id"] = e["id"] + k * max_corr
                    f.write(("" if first else ",\n") + "  " + json.dumps(c))
                    first = False
            f.write("\n  ]\n}\n")
        print(path, os.path.getsize(path))

if __name__ == "__main__":
    main()
