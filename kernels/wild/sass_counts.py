"""Static SASS instruction counts per kernel from `cuobjdump -sass`: the instructions the engine's
counters are checked against (HFMA2.MMA, HMMA, HGMMA, FFMA, local loads, 64-bit division calls).

  python3 sass_counts.py FILE.sass [KERNEL_SUBSTRING ...]
"""
import re
import sys
from collections import Counter

WATCH = ["HFMA2.MMA", "HFMA2", "HMMA", "HGMMA", "QGMMA", "IMMA", "DMMA", "FFMA", "FADD", "FMUL", "MUFU", "LDL", "STL",
         "LDG", "STG", "LDS", "STS", "BAR", "CALL", "IMAD", "I2F", "SHFL"]


def main(path, wanted):
    kernel, counts = None, {}
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (.+?)\s*$", line)
        if m:
            kernel = m.group(1)
            counts[kernel] = Counter()
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if kernel and m:
            op = m.group(1)
            base = op.split(".")[0]
            for w in WATCH:
                if op == w or op.startswith(w + ".") or base == w:
                    counts[kernel][w] += 1
    print(f"{'kernel':90s} " + " ".join(f"{w:>9s}" for w in WATCH))
    for k, c in counts.items():
        if wanted and not any(s in k for s in wanted):
            continue
        if not any(c.values()):
            continue
        print(f"{k[:90]:90s} " + " ".join(f"{c[w]:9d}" for w in WATCH))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
