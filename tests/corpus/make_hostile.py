#!/usr/bin/env python3
"""Writes the hostile inputs of tests/corpus from pass_trimmed_raw.csv and a cut of
examples/h100/kernels_summary.csv: each breaks one thing on purpose (README.md lists them). Run it
from anywhere; it rewrites only the files it makes. The .expected messages are written by hand
after reading what the engine says."""
import pathlib

here = pathlib.Path(__file__).resolve().parent
base = (here / "pass_trimmed_raw.csv").read_text().splitlines()
header, units, row0, row1 = base[0], base[1], base[2], base[3]
summary = (here.parent.parent / "examples/h100/kernels_summary.csv").read_text().splitlines()[:60]


def fields(line):
    return line[1:-1].split('","')


def join(cells):
    return '"' + '","'.join(cells) + '"'


def with_cell(line, index, value):
    c = fields(line)
    c[index] = value
    return join(c)


def write(name, lines, raw=None):
    path = here / name
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text("\n".join(lines) + "\n")


DUR, DRAM_W, BLOCK, NAME = 11, 13, 7, 4

write("fail_units_row_missing.csv", [header, row0, row1])
shifted = fields(units)
write("fail_units_row_shifted.csv", [header, join([""] + shifted[:-1]), row0, row1])
write("pass_bom.csv", [], raw=("\ufeff" + "\n".join(base) + "\n").encode())
write("pass_crlf.csv", [], raw=("\r\n".join(base) + "\r\n").encode())
write("fail_negative_duration.csv", [header, units, with_cell(row0, DUR, "-0.182336"), row1])
write("pass_negative_zero.csv", [header, units, with_cell(row0, DRAM_W, "-0"), row1])
write("fail_number_out_of_range.csv", [header, units, with_cell(row0, DUR, "1e309"), row1])
write("fail_infinite_after_units.csv", [header, units, with_cell(row0, DUR, "1e303"), row1])
write("pass_huge_duration.csv", [header, units, with_cell(row0, DUR, "1e290"), row1])
write("pass_nan_value.csv", [header, units, with_cell(row0, DRAM_W, "nan"), row1])
write("fail_binary_garbage.csv", [], raw=bytes((i * 131 + 7) % 256 for i in range(4096)))
write("fail_quote_never_closed.csv", [header, units, row0, row1, '"2","631","roofline-kernels","127.0.0.1","never closed(int)', "more text"])
write("pass_quotes_and_newlines_in_name.csv",
      [header, units, with_cell(row0, NAME, 'my ""quoted"" kernel with a `tick` and\na line break(int)'), row1])
dup = fields(header)
dup[DRAM_W] = dup[DRAM_W - 1]
write("fail_duplicate_header.csv", [join(dup), units, row0, row1])
write("pass_control_characters_in_name.csv", [header, units, with_cell(row0, NAME, "evil\x1b[31m_red\x07(int)"), row1])
write("pass_invalid_utf8_name.csv", [], raw=("\n".join([header, units, with_cell(row0, NAME, "bad_\udcff_name(int)"), row1]) + "\n")
      .encode("utf-8", "surrogateescape"))
write("fail_block_size_malformed.csv", [header, units, with_cell(row0, BLOCK, "(256, 1)"), row1])
write("fail_column_short_summary.csv", summary[:5] + [summary[5].rsplit(",", 4)[0]] + summary[6:])
write("fail_invocations_fraction.csv", [summary[0]] + [s.replace('","0","9.0","1","', '","0","9.0","1.5","') for s in summary[1:]])
write("fail_invocations_huge.csv", [summary[0]] + [s.replace('","0","9.0","1","', '","0","9.0","1e19","') for s in summary[1:]])
# Two GPU models in one file (device 0 an H100, device 1 an H200): never folded into one analysis.
DEVICE, DISPLAY = 9, 23
h200_row = with_cell(with_cell(row1, DEVICE, "1"), DISPLAY, "NVIDIA H200")
write("fail_two_gpu_models.csv", [header, units, row0, h200_row])
