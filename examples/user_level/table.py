#!/usr/bin/env python3
"""The user_level table: per kernel of each capture, its labelled and engine origin, the labelled
acceptable first findings and the engine's first finding, the first fix (its first words), and per pair
the first finding's estimate against the measured unprofiled speedup of the op (MANIFEST.md).

    python3 examples/user_level/table.py build-dev/roofline > examples/user_level/RESULTS.md
"""
import json, re, subprocess, sys, os

here = os.path.dirname(os.path.abspath(__file__))
binary = sys.argv[1]
labels = json.load(open(os.path.join(here, "labels.json")))["labels"]
kmap = json.load(open(os.path.join(here, "kernel_map.json")))["kernels"]
# Unprofiled medians (ms) from MANIFEST.md's table: op -> (naive, fixed).
measured = {}
for line in open(os.path.join(here, "MANIFEST.md")):
    m = re.match(r"\| (\w+) \(.*?\| ([\d.]+) \| ([\d.]+) \|", line)
    if m:
        measured[m.group(1)] = (float(m.group(2)), float(m.group(3)))
# The engine calls FlashAttention and memory-efficient attention one kind, "attention".
same_origin = {"flash_attention": "attention"}

def analyse(report):
    out = subprocess.run([binary, "analyze", os.path.join(here, report), "--format", "json"],
                         capture_output=True, text=True, check=True)
    return {(k["name"], tuple(k["grid_size"] or []), tuple(k["block_size"] or [])): k
            for k in json.loads(out.stdout)["kernels"]}

reports = {r: analyse(r) for r in sorted({e["report"] for e in kmap})}
print("| op | variant | kernel | origin (label / engine) | first finding (label: acceptable / engine) | first fix, first words | est. / measured |")
print("|---|---|---|---|---|---|---|")
agree_origin = agree_first = rows = 0
for e in kmap:
    ks = reports[e["report"]]
    grid = tuple(int(x) for x in re.findall(r"\d+", e["grid"]))
    block = tuple(int(x) for x in re.findall(r"\d+", e["block"]))
    k = ks.get((e["kernel"], grid, block))
    if k is None:
        continue
    lab = next((l for l in labels if l["op"] == e["op"] and l["variant"] == e["variant"]
                and re.search(l["kernel_pattern"], e["kernel"])), None)
    findings = [f for f in k["findings"] if f.get("source") != "ncu"]
    first = findings[0] if findings else None
    fix = (first["fixes"][0] if first and first["fixes"] else "-")
    fix = (fix[:90] + "...") if len(fix) > 90 else fix
    origin = k["origin"]["kind"]
    lab_origin = same_origin.get(lab["origin"], lab["origin"]) if lab else "-"
    rows += 1
    agree_origin += lab is not None and lab_origin == origin
    agree_first += lab is not None and first is not None and first["id"] in lab["first_findings"]
    est = ""
    if e["variant"] == "naive" and first and first.get("est_speedup") and e["op"] in measured:
        n, f = measured[e["op"]]
        est = f"{first['est_speedup']:.2f}x / {n / f:.2f}x (op)"
    short = k["short_name"].replace("|", "\\|")
    print(f"| {e['op']} | {e['variant']} | `{short}` | {lab_origin} / {origin} | "
          f"{', '.join(lab['first_findings']) if lab else '-'} / {first['id'] if first else '-'}"
          f"{' (provisional)' if k.get('first_finding_provisional') else ''} | {fix} | {est} |")
print()
print(f"{rows} kernels: origin as labelled on {agree_origin}, first finding among the labelled ones on {agree_first}.")
