#!/usr/bin/env python3
"""Builds the benchmark's inputs by repeating rows of committed H100 captures (bench/README.md).
usage: make_inputs.py OUT_DIR [MB]   (MB: size of the large inputs, default 200)"""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
mb = int(sys.argv[2]) if len(sys.argv) > 2 else 200


def raw(name, target, distinct):
    lines = (root / "examples/h100/kernels_raw.csv").read_text().splitlines()
    head, units, rows = lines[0], lines[1], lines[2:]
    with open(out / name, "w") as f:
        f.write(head + "\n" + units + "\n")
        size, i = 0, 0
        while size < target:
            cells = rows[i % len(rows)].split('","')
            cells[0] = '"' + str(i)
            if distinct:  # every launch its own kernel, as in captures of large models
                cells[4] = cells[4].replace("(", "_instance_%d(" % i, 1)
            line = '","'.join(cells)
            f.write(line + "\n")
            size += len(line) + 1
            i += 1
    return i


def details(name, target):
    lines = (root / "examples/h100/kernels_details.csv").read_text().splitlines()
    head, rows = lines[0], lines[1:]
    by_id = {}
    for r in rows:
        by_id.setdefault(r.split('","', 1)[0], []).append(r)
    launches = list(by_id.values())
    with open(out / name, "w") as f:
        f.write(head + "\n")
        size, i = 0, 0
        while size < target:
            for r in launches[i % len(launches)]:
                line = '"' + str(i) + '","' + r.split('","', 1)[1]
                f.write(line + "\n")
                size += len(line) + 1
            i += 1
    return i


print("raw", raw("raw_%dmb.csv" % mb, mb << 20, False), "launches")
if mb <= 200:  # the many-kernel case at the size the issue sets; 2 GB of it adds nothing but time
    print("raw distinct", raw("raw_distinct_%dmb.csv" % mb, mb << 20, True), "launches")
print("details", details("details_%dmb.csv" % mb, mb << 20), "launches")
