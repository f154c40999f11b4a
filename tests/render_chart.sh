#!/usr/bin/env bash
# Renders the charts `roofline analyze -o` writes in headless Chromium (Debian's chromium, installed
# by scripts/setup.sh): the H100 pairs capture, the shipped 8-kernel capture and 40 kernels made from
# it. Before rendering, checks every kernel is drawn once and labelled with its number (the SVG's
# data- attributes); in the browser, checks every line of text lies inside the chart as laid out
# with the real font; then checks the PNG: the size the SVG asks for, and not blank (it must compress
# to at least 4x the bytes of a blank page of the same size).
# Then loads the HTML reports (`-o report.html`) of the same captures: no console message at all (errors,
# exceptions, warnings), nothing fetched from elsewhere, the page's script ran, every kernel is on the
# chart, in the sortable summary table (linked to its section) and has a section; pointing at a kernel
# on the chart shows its name and findings, and a click on a column header sorts the table.
#   tests/render_chart.sh ROOFLINE SOURCE_DIR [KEEP_DIR]   (KEEP_DIR: where to leave chart_8.png, chart_40.png)
set -euo pipefail
roofline=$1
src=$2
keep=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "render_chart: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
fail() { echo "render_chart: $*" >&2; exit 1; }

# N kernels from the committed capture: its rows again and again, each copy's kernels renamed
# (copy_vec4_2, fma_chain_2<float>, ...) so each is a kernel of its own (tests/test_chart.cpp does the same).
repeat_kernels() {  # N CSV
    awk -v n="$1" 'BEGIN { FS = OFS = "\",\"" }
        NR <= 2 { print; next }
        { rows[++m] = $0; if (!($5 in k)) k[$5] = nk++; of[m] = k[$5] }
        END {
            id = 0
            for (c = 0; c * nk < n; c++)
                for (r = 1; r <= m; r++) {
                    if (c * nk + of[r] >= n) continue
                    $0 = rows[r]
                    $1 = "\"" id++
                    if (c) {
                        s = $5; head = substr(s, 1, index(s, "(") - 1); from = 1
                        while ((i = index(substr(head, from), "::")) > 0) from += i + 1
                        rest = substr(s, from); j = match(rest, /[<(]/)
                        $5 = substr(s, 1, from - 1) substr(rest, 1, j - 1) "_" (c + 1) substr(rest, j)
                    }
                    print
                }
        }' "$2"
}

shoot() {  # svg png width height
    HOME="$work" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$3,$4" --screenshot="$2" "file://$1" >/dev/null 2>&1 || true
    [ -s "$2" ] || fail "chromium wrote no $2"
}
# PNG: 8-byte signature, then the IHDR chunk: width and height as big-endian 32-bit at bytes 16 and 20.
be32() { od -An -tu1 -j "$2" -N4 "$1" | awk '{print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4}'; }

check() {  # CSV NAME [all-labelled]
    local csv=$1 name=$2 svg="$work/$2.svg"
    "$roofline" analyze "$csv" -o "$work/$name.md"
    grep -q '!\[Roofline chart' "$work/$name.md" || fail "$name.md does not link the chart"
    # Every kernel of the summary drawn once; labelled with its number (or, where asked, listed as not labelled).
    n=$(sed -n '1s/^<svg[^>]* data-kernels="\([0-9]*\)".*/\1/p' "$svg")
    [ -n "$n" ] || fail "$name: no data-kernels on the chart's <svg>"
    [ "$n" -gt 0 ] || fail "$name: no kernels"
    drawn=$(grep -o 'class="kernel" data-panel="[a-z]*" data-number="[0-9]*"' "$svg" | sed 's/.*data-number="//; s/"//' | sort -n | tr '\n' ' ')
    labelled=$(grep -o 'class="label" data-number="[0-9]*"' "$svg" | sed 's/.*data-number="//; s/"//' | sort -n | tr '\n' ' ')
    unlabelled=$(grep -o 'data-unlabelled="[0-9 ]*"' "$svg" | sed 's/.*="//; s/"//' | tr ' ' '\n' | sort -n | tr '\n' ' ' || true)
    want=$(seq 1 "$n" | tr '\n' ' ')
    [ "$drawn" = "$want" ] || fail "$name: kernels drawn: $drawn; expected $want"
    if [ "${3:-}" = all-labelled ]; then
        [ "$labelled" = "$want" ] || fail "$name: kernels labelled: $labelled; expected $want"
    else
        [ "$(printf '%s\n' $labelled $unlabelled | sort -n | tr '\n' ' ')" = "$want" ] || fail "$name: kernels neither labelled nor listed"
    fi
    width=$(sed -n '1s/^<svg[^>]* width="\([0-9]*\)\.[0-9]*".*/\1/p' "$svg")
    height=$(sed -n '1s/^<svg[^>]* height="\([0-9]*\)\.[0-9]*".*/\1/p' "$svg")
    [ -n "$width" ] && [ -n "$height" ] || fail "no size on $name's <svg>"

    # In the browser, with the real font: every line of text inside the chart.
    { printf '<!doctype html><html><body style="margin:0">'
      cat "$svg"
      printf '%s\n' '<script>' \
        'const svg = document.querySelector("svg"), w = svg.width.baseVal.value, h = svg.height.baseVal.value, out = [];' \
        'for (const t of svg.querySelectorAll("text")) { const r = t.getBoundingClientRect();' \
        '  if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5) out.push(t.textContent + " at " + [r.left, r.top, r.right, r.bottom].map(Math.round)); }' \
        'document.body.insertAdjacentHTML("beforeend", "<pre id=result>" + (out.length ? "OUTSIDE: " + out.join("; ") : "TEXT INSIDE") + "</pre>");' \
        '</script></body></html>'; } > "$work/$name.html"
    HOME="$work" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/$name.html" > "$work/$name.dom" 2>/dev/null || true
    # (the script's own text is in the dump too: match the element it writes, quoted as the DOM serialises it)
    grep -q '<pre id="result">TEXT INSIDE</pre>' "$work/$name.dom" ||
        fail "$name: text outside the chart: $(grep -o '<pre id="result">[^<]*' "$work/$name.dom" || echo 'no result from chromium')"

    printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="100%%" height="100%%" fill="white"/></svg>\n' \
        "$width" "$height" > "$work/blank.svg"
    shoot "$svg" "$work/$name.png" "$width" "$height"
    shoot "$work/blank.svg" "$work/blank.png" "$width" "$height"
    [ "$(head -c 8 "$work/$name.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$name: not a PNG"
    got_w=$(be32 "$work/$name.png" 16)
    got_h=$(be32 "$work/$name.png" 20)
    chart_bytes=$(stat -c %s "$work/$name.png")
    blank_bytes=$(stat -c %s "$work/blank.png")
    echo "render_chart: $name: ${got_w}x${got_h} PNG, $chart_bytes bytes (blank page: $blank_bytes bytes), ${n} kernels drawn, $(echo $labelled | wc -w) numbered"
    [ "$got_w" = "$width" ] && [ "$got_h" = "$height" ] || fail "$name: expected ${width}x${height}"
    [ "$chart_bytes" -ge $((4 * blank_bytes)) ] || fail "$name: the chart renders (nearly) blank"
    [ -z "$keep" ] || cp "$work/$name.png" "$keep/$name.png"
}

check_html() {  # CSV NAME
    local csv=$1 name=$2 page="$work/$2.html"
    "$roofline" analyze "$csv" -o "$page" 2>/dev/null
    # Self-contained: no <link>, no src or href that leaves the page (the SVG namespace is a name, not a fetch).
    if grep -Eqi '<link|(src|href)="(https?:|//)' "$page"; then fail "$name.html refers to something outside it"; fi
    n=$(sed -n 's/.*<svg[^>]* data-kernels="\([0-9]*\)".*/\1/p' "$page" | head -1)
    [ -n "$n" ] || fail "$name.html: no chart with data-kernels"
    want=$(seq 1 "$n" | tr '\n' ' ')
    HOME="$work" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom \
        "file://$page" > "$work/$name.dom" 2> "$work/$name.log" || true
    if grep -q ':CONSOLE' "$work/$name.log"; then fail "$name.html: console messages: $(grep ':CONSOLE' "$work/$name.log" | head -5)"; fi
    grep -q '<html lang="en" data-ready="yes"' "$work/$name.dom" || fail "$name.html: the page's script did not run to its end"
    numbers() { grep -o "$1" "$work/$name.dom" | grep -o '[0-9]*' | sort -n | uniq | tr '\n' ' '; }
    [ "$(numbers 'class="kernel" data-panel="[a-z]*" data-number="[0-9]*"')" = "$want" ] || fail "$name.html: kernels on the chart differ from 1..$n"
    [ "$(numbers '<td><a href="#kernel-[0-9]*">')" = "$want" ] || fail "$name.html: the summary table does not link every kernel"
    [ "$(numbers '<h3 id="kernel-[0-9]*"')" = "$want" ] || fail "$name.html: not every kernel has its section"
    # Interaction, in a copy with a checking script after the page's own.
    sed 's|</body>|<script src="check.js"></script></body>|' "$page" > "$work/$name-check.html"
    printf '%s\n' \
      'const out = [], dot = document.querySelector("figure.chart .kernel[data-number=\"1\"]");' \
      'dot.dispatchEvent(new MouseEvent("mouseenter"));' \
      'const panel = document.getElementById("kernel-panel").textContent;' \
      'const first = JSON.parse(document.getElementById("roofline-kernels").textContent).kernels[0];' \
      'if (!panel.includes(first.label)) out.push("panel lacks " + first.label);' \
      'for (const f of first.findings) if (!panel.includes(f.id)) out.push("panel lacks finding " + f.id);' \
      'const table = document.querySelector("table.kernels"), th = [...table.tHead.rows[0].cells].find(c => c.textContent === "launches");' \
      'th.click();' \
      'const v = [...table.tBodies[0].rows].map(r => Number(r.cells[th.cellIndex].textContent));' \
      'if (v.some((x, i) => i > 0 && v[i - 1] > x)) out.push("launches not ascending after a click: " + v);' \
      'th.click();' \
      'const w = [...table.tBodies[0].rows].map(r => Number(r.cells[th.cellIndex].textContent));' \
      'if (w.some((x, i) => i > 0 && w[i - 1] < x)) out.push("launches not descending after a second click: " + w);' \
      'document.body.insertAdjacentHTML("beforeend", "<pre id=check>" + (out.length ? "FAILED: " + out.join("; ") : "INTERACTION OK") + "</pre>");' \
      > "$work/check.js"
    HOME="$work" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --allow-file-access-from-files \
        --dump-dom "file://$work/$name-check.html" > "$work/$name-check.dom" 2> "$work/$name-check.log" || true
    grep -q '<pre id="check">INTERACTION OK</pre>' "$work/$name-check.dom" ||
        fail "$name.html: $(grep -o '<pre id="check">[^<]*' "$work/$name-check.dom" || grep ':CONSOLE' "$work/$name-check.log" | head -3 || echo 'no result from chromium')"
    echo "render_chart: $name.html: $n kernels on the chart, in the table and in sections; no console message; panel and sorting work"
}

check "$src/examples/h100/pairs_raw.csv" pairs
check "$src/examples/h100/kernels_raw.csv" chart_8 all-labelled
repeat_kernels 40 "$src/examples/h100/kernels_raw.csv" > "$work/kernels_40.csv"
check "$work/kernels_40.csv" chart_40 all-labelled
check_html "$src/examples/h100/kernels_raw.csv" report_8
check_html "$work/kernels_40.csv" report_40
check_html "$src/examples/h100/pairs_raw.csv" report_pairs

# roofline timeline: the SVG renders at its size and is not blank; the HTML page holds it, has no
# console message, fetches nothing, and every gap of the trace is on the chart.
check_timeline() {  # TRACE NAME
    local trace=$1 name=$2 svg="$work/$2.svg" page="$work/$2.html"
    "$roofline" timeline "$trace" -o "$svg" 2>/dev/null
    "$roofline" timeline "$trace" -o "$page" 2>/dev/null
    want=$("$roofline" timeline "$trace" --format json | tr -d ' \n' | grep -o '"gaps":{"count":[0-9]*' | head -1 | grep -o '[0-9]*$')
    [ -n "$want" ] || fail "$name: no gap count in the JSON"
    width=$(sed -n '1s/^<svg[^>]* width="\([0-9]*\)\.[0-9]*".*/\1/p' "$svg")
    height=$(sed -n '1s/^<svg[^>]* height="\([0-9]*\)\.[0-9]*".*/\1/p' "$svg")
    gaps=$(sed -n '1s/^<svg[^>]* data-gaps="\([0-9]*\)".*/\1/p' "$svg")
    [ "$gaps" = "$want" ] || fail "$name.svg: data-gaps=$gaps, the JSON counts $want"
    printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="100%%" height="100%%" fill="white"/></svg>\n' \
        "$width" "$height" > "$work/blank.svg"
    shoot "$svg" "$work/$name.png" "$width" "$height"
    shoot "$work/blank.svg" "$work/blank.png" "$width" "$height"
    [ "$(be32 "$work/$name.png" 16)" = "$width" ] && [ "$(be32 "$work/$name.png" 20)" = "$height" ] || fail "$name.png: not ${width}x${height}"
    [ "$(stat -c %s "$work/$name.png")" -ge $((4 * $(stat -c %s "$work/blank.png"))) ] || fail "$name: the timeline renders (nearly) blank"
    if grep -Eqi '<link|(src|href)="(https?:|//)' "$page"; then fail "$name.html refers to something outside it"; fi
    HOME="$work" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom \
        "file://$page" > "$work/$name.dom" 2> "$work/$name.log" || true
    if grep -q ':CONSOLE' "$work/$name.log"; then fail "$name.html: console messages: $(grep ':CONSOLE' "$work/$name.log" | head -5)"; fi
    grep -q '<html lang="en" data-ready="yes"' "$work/$name.dom" || fail "$name.html: the page's script did not run to its end"
    grep -q "<figure class=\"timeline\"><svg[^>]* data-gaps=\"$want\"" "$work/$name.dom" || fail "$name.html: no timeline with $want gaps"
    # Every finding is an item of the findings' ordered list, none inside the one before it.
    findings=$("$roofline" timeline "$trace" | grep -cE '^[0-9]+\. \*\*')
    items=$(grep -Pzo '(<ol>\n|</ul>\n</li>\n|</li>\n)<li><strong>[a-z-]+</strong>: ' "$page" | tr '\0' '\n' | grep -c '<li><strong>' || true)
    [ "$findings" -gt 0 ] && [ "$items" -ge "$findings" ] || fail "$name.html: $items findings are list items, the report has $findings"
    [ -z "$keep" ] || cp "$work/$name.png" "$keep/$name.png"
    echo "render_chart: $name: ${width}x${height} timeline, $want gaps drawn; the HTML page holds it, no console message"
}
check_timeline "$src/tests/data/timeline/planted.json" timeline_planted
check_timeline "$src/examples/timeline_cpu/traces/A_data_nw0.json.gz" timeline_loader
