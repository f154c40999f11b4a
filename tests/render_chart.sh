#!/usr/bin/env bash
# Renders the chart `roofline analyze -o` writes for the H100 pairs capture in headless Chromium
# (Debian's chromium, installed by scripts/setup.sh) and checks the PNG: the size the SVG asks for,
# and not blank: it must compress to at least 4x the bytes of a blank page of the same size.
#   tests/render_chart.sh ROOFLINE SOURCE_DIR [KEEP_PNG]
set -euo pipefail
roofline=$1
src=$2
keep=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "render_chart: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

"$roofline" analyze "$src/examples/h100/pairs_raw.csv" -o "$work/report.md"
grep -q '!\[Roofline chart' "$work/report.md" || { echo "render_chart: report.md does not link the chart" >&2; exit 1; }
width=$(sed -n '1s/^<svg[^>]* width="\([0-9]*\)\.[0-9]*".*/\1/p' "$work/report.svg")
height=$(sed -n '1s/^<svg[^>]* height="\([0-9]*\)\.[0-9]*".*/\1/p' "$work/report.svg")
[ -n "$width" ] && [ -n "$height" ] || { echo "render_chart: no size on the chart's <svg>" >&2; exit 1; }
printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="100%%" height="100%%" fill="white"/></svg>\n' \
    "$width" "$height" > "$work/blank.svg"

shoot() {  # svg png
    HOME="$work" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$width,$height" --screenshot="$2" "file://$1" >/dev/null 2>&1 || true
    [ -s "$2" ] || { echo "render_chart: chromium wrote no $2" >&2; exit 1; }
}
shoot "$work/report.svg" "$work/chart.png"
shoot "$work/blank.svg" "$work/blank.png"

# PNG: 8-byte signature, then the IHDR chunk: width and height as big-endian 32-bit at bytes 16 and 20.
be32() { od -An -tu1 -j "$2" -N4 "$1" | awk '{print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4}'; }
[ "$(head -c 8 "$work/chart.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "render_chart: not a PNG" >&2; exit 1; }
got_w=$(be32 "$work/chart.png" 16)
got_h=$(be32 "$work/chart.png" 20)
chart_bytes=$(stat -c %s "$work/chart.png")
blank_bytes=$(stat -c %s "$work/blank.png")
echo "render_chart: ${got_w}x${got_h} PNG, $chart_bytes bytes (blank page: $blank_bytes bytes)"
[ "$got_w" = "$width" ] && [ "$got_h" = "$height" ] || { echo "render_chart: expected ${width}x${height}" >&2; exit 1; }
[ "$chart_bytes" -ge $((4 * blank_bytes)) ] || { echo "render_chart: the chart renders (nearly) blank" >&2; exit 1; }
[ -z "$keep" ] || cp "$work/chart.png" "$keep"
