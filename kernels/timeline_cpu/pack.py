#!/usr/bin/env python3
"""pack.py SRC OUT PREFIX: merge SRC/timing_*.json (and SRC/ddp*/timing.json) into SRC/timing.json, then pack
every file under SRC into tarballs OUT/PREFIX_N.tar of at most 15 MiB each (traces are already gzipped).
Files larger than 15 MiB are left out and listed in SRC/left_out.txt (also packed)."""
import glob
import json
import os
import sys
import tarfile

src, out, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
LIMIT = 15 * 1024 * 1024
timing = {}
for p in sorted(glob.glob(os.path.join(src, "timing_*.json")) + glob.glob(os.path.join(src, "*", "timing.json"))):
    try:
        with open(p) as f:
            timing.update(json.load(f))
    except Exception as e:  # noqa: BLE001
        print("pack: cannot read", p, e)
with open(os.path.join(src, "timing.json"), "w") as f:
    json.dump(timing, f, indent=1)
files = []
for root, _, names in os.walk(src):
    for n in names:
        p = os.path.join(root, n)
        files.append((os.path.getsize(p), os.path.relpath(p, src)))
files.sort(key=lambda t: (-t[0], t[1]))
left = [r for s, r in files if s > LIMIT - 64 * 1024]
if left:
    with open(os.path.join(src, "left_out.txt"), "w") as f:
        f.write("\n".join(left) + "\n")
    files.append((os.path.getsize(os.path.join(src, "left_out.txt")), "left_out.txt"))
bins = []
for s, r in files:
    if r in left:
        continue
    for b in bins:
        if b[0] + s + 4096 <= LIMIT:
            b[0] += s + 4096
            b[1].append(r)
            break
    else:
        bins.append([s + 4096, [r]])
os.makedirs(out, exist_ok=True)
for i, (_, members) in enumerate(bins, 1):
    p = os.path.join(out, f"{prefix}_{i}.tar")
    with tarfile.open(p, "w") as t:
        for r in sorted(members):
            t.add(os.path.join(src, r), arcname=r)
    print(f"pack: {p} {os.path.getsize(p) / 2**20:.2f} MiB, {len(members)} files")
print("pack: left out (too large):", left)
print("pack: timing variants:", ", ".join(f"{k}={v.get('median_ms')}" for k, v in timing.items()))
