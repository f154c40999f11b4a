// The HTML report: one self-contained page (no network: styles, script and the chart are inline).
// Its text is the markdown report rendered (markdown_html.hpp), so the two say the same; on top of it
// the roofline chart sits inline where the markdown links it, a panel shows the kernel under the
// pointer (its numbers and its findings; a click pins it), and every table sorts by a click on a
// column's header. The kernels' data for the panel is a JSON block in the page, read by the script.
#include "analyzer/report/html_page.hpp"
#include "analyzer/report/markdown_html.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include "analyzer/base/format.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace roofline {
namespace {

// The name the markdown gives the chart, recognised again when the image line is rendered.
constexpr const char* inline_chart = "roofline-chart.svg";

const char* const style = R"css(
body { font: 15px/1.45 system-ui, sans-serif; color: #1b1b1b; margin: 0; }
main { max-width: 1280px; margin: 0 auto; padding: 8px 24px 48px; }
h1 { font-size: 1.5em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.4em; }
code { font: 0.9em ui-monospace, monospace; background: #f2f2f2; padding: 0 3px; border-radius: 3px;
       overflow-wrap: anywhere; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; position: sticky; top: 0; }
table.sortable th { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \25B2"; } th[aria-sort=descending]::after { content: " \25BC"; }
details { margin: 8px 0; } summary { cursor: pointer; color: #333; }
figure.chart { margin: 16px 0; display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
figure.chart svg { max-width: 100%; height: auto; }
figure.chart .kernel { cursor: pointer; }
figure.chart .kernel.picked { stroke: #000; stroke-width: 2.5; }
#kernel-panel { flex: 1 1 280px; max-width: 420px; border: 1px solid #ccc; border-radius: 4px; padding: 8px 12px;
                font-size: 0.92em; }
#kernel-panel h4 { margin: 0 0 4px; }
#kernel-panel dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 6px 0; }
#kernel-panel dt { color: #555; }
)css";

// The analyze report's panel: reads the kernels' JSON and draws the kernel under the pointer with
// textContent only (no data becomes markup); links the summary's numbers to the kernels' sections.
const char* const panel_script = R"js(
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("roofline-kernels").textContent);
  var byNumber = {};
  data.kernels.forEach(function (k) { byNumber[String(k.number)] = k; });
  var panel = document.getElementById("kernel-panel");
  var pinned = null;
  function add(parent, tag, text) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function show(k) {
    if (!panel || !k) return;
    panel.replaceChildren();
    add(panel, "h4", k.number + ". " + k.label);
    var dl = add(panel, "dl");
    [["time", k.time + " (" + k.share + " of the workload)"], ["bound / limiter", k.verdict], ["achieved", k.achieved],
     ["% of roof", k.roof], ["launches", String(k.launches)]].forEach(function (r) {
      add(dl, "dt", r[0]);
      add(dl, "dd", r[1]);
    });
    if (k.findings.length === 0) add(panel, "p", "No finding.");
    else {
      add(panel, "div", "Findings:");
      var ul = add(panel, "ul");
      k.findings.forEach(function (f) {
        var li = add(ul, "li");
        add(li, "strong", f.id);
        li.appendChild(document.createTextNode((f.speedup ? " (est. " + f.speedup + ")" : "") + ": " + f.title + "."));
        if (f.fix) add(li, "div", "Fix: " + f.fix);
      });
    }
    var a = add(panel, "a", "Evidence, formula and tree path: section " + k.number);
    a.href = "#kernel-" + k.number;
  }
  document.querySelectorAll("figure.chart .kernel").forEach(function (el) {
    var k = byNumber[el.getAttribute("data-number")];
    el.addEventListener("mouseenter", function () { if (!pinned) show(k); });
    el.addEventListener("click", function () {
      if (pinned) pinned.classList.remove("picked");
      pinned = pinned === el ? null : el;
      if (pinned) pinned.classList.add("picked");
      show(k);
    });
  });
  document.querySelectorAll("table.kernels tbody tr").forEach(function (tr) {
    var cell = tr.cells[0], a = document.createElement("a");
    a.href = "#kernel-" + cell.textContent;
    a.textContent = cell.textContent;
    cell.replaceChildren(a);
  });
})();
)js";

// Every page: tables sort by a click on a column's header, by numbers with their units (1.81 ms,
// 74.3 GB/s, 33.0x, 34.5%) where both cells have one, as text otherwise. Runs last, and marks the page
// ready (data-ready="yes" on <html>: the browser test reads it).
const char* const sort_script = R"js(
(function () {
  "use strict";
  var scale = { n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
  function key(text) {
    var m = /^\s*(-?\d[\d,]*(?:\.\d+)?)\s*([numkMGTP])?(s\b)?/.exec(text);
    if (!m) return null;
    var v = parseFloat(m[1].replace(/,/g, ""));
    if (m[2] && (m[3] || "kMGTP".indexOf(m[2]) >= 0)) v *= scale[m[2]];
    return v;
  }
  function compare(a, b) {
    var x = key(a), y = key(b);
    if (x !== null && y !== null) return x - y;
    if (x !== null) return -1;
    if (y !== null) return 1;
    return a.localeCompare(b);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      th.title = "sort by " + th.textContent;
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r, s) {
          var c = compare(r.cells[column].textContent, s.cells[column].textContent);
          return ascending ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.documentElement.setAttribute("data-ready", "yes");
})();
)js";

// The kernels as the panel shows them: the summary's cells and each finding with its estimate.
std::string kernels_json(const analysis& a, const std::vector<std::string>& labels) {
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        nlohmann::ordered_json findings = nlohmann::ordered_json::array();
        for (const auto& f : k.diagnosis.findings) {
            const std::vector<std::string> fixes = finding_fixes(f);
            findings.push_back({{"id", std::string(f.id)},
                                {"title", finding_title(f)},
                                {"speedup", f.est_speedup ? format_number(*f.est_speedup) + "x" : std::string()},
                                {"fix", fixes.empty() ? std::string() : fixes.front()}});
        }
        kernels.push_back({{"number", i + 1},
                           {"label", labels[i]},
                           {"name", k.group.name},
                           {"launches", k.group.launches},
                           {"time", format_duration_ns(k.roof.duration_ns)},
                           {"share", format_percent(k.share)},
                           {"verdict", verdict_text(k.verdict)},
                           {"achieved", achieved_text(k)},
                           {"roof", roof_pct_text(k)},
                           {"findings", std::move(findings)}});
    }
    // Names are bytes from the capture: invalid UTF-8 becomes U+FFFD, and '<' is escaped so that no
    // name can close the <script> block.
    const std::string text = nlohmann::ordered_json{{"kernels", std::move(kernels)}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size());
    for (char c : text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
    return out;
}

// "kernel-3" for "3. name" (the kernel sections), a slug of the words otherwise.
std::string heading_id(int level, const std::string& text) {
    const std::size_t dot = text.find(". ");
    if (level == 3 && dot != std::string::npos && dot > 0 && text.find_first_not_of("0123456789") == dot)
        return "kernel-" + text.substr(0, dot);
    if (level != 2) return "";
    std::string id;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            id += char(std::tolower(static_cast<unsigned char>(c)));
        else if (!id.empty() && id.back() != '-')
            id += '-';
    }
    while (!id.empty() && id.back() == '-') id.pop_back();
    return id;
}

}  // namespace

void write_html_page(std::ostream& out, const std::string& title,
                     const std::function<void(std::ostream&)>& write_markdown, const markdown_html_hooks& hooks,
                     const std::string& extra) {
    out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" "
           "content=\"roofline\">\n"
        << "<title>" << html_escape(title) << "</title>\n<style>" << style << "</style>\n</head>\n<body>\n<main>\n";
    markdown_html_hooks with_defaults = hooks;
    if (!with_defaults.heading_id) with_defaults.heading_id = heading_id;
    if (!with_defaults.table_class)
        with_defaults.table_class = [](const std::vector<std::string>&) { return std::string("sortable"); };
    {
        // The markdown, converted line by line as it is written.
        markdown_html_stream html(out, with_defaults);
        write_markdown(html);
        html.finish();
    }
    out << "</main>\n" << extra << "<script>" << sort_script << "</script>\n</body>\n</html>\n";
}

std::string markdown_page(const std::string& title, const std::string& markdown, const markdown_html_hooks& hooks) {
    std::string heading = title;
    if (heading.empty()) {
        const std::size_t at = markdown.rfind("# ", 0) == 0 ? 0 : markdown.find("\n# ");
        if (at != std::string::npos) {
            const std::size_t from = at == 0 ? 2 : at + 3;
            for (char c : markdown.substr(from, markdown.find('\n', from) - from))
                if (c != '`') heading += c;
        }
    }
    std::ostringstream out;
    write_html_page(
        out, heading, [&](std::ostream& o) { o << markdown; }, hooks);
    return out.str();
}

void write_html(const analysis& a, const print_options& options, std::ostream& out) {
    markdown_html_hooks hooks;
    hooks.image = [&](const std::string& alt, const std::string& src) -> std::string {
        if (src != inline_chart) return "";
        return "<figure class=\"chart\" aria-label=\"" + html_escape(alt) + "\">\n" + render_chart(a, options) +
               "<aside id=\"kernel-panel\"><p>Point at a kernel on the chart to see its numbers and findings; click to "
               "keep it.</p></aside>\n"
               "</figure>\n";
    };
    hooks.table_class = [](const std::vector<std::string>& header) -> std::string {
        return header.size() > 1 && header[0] == "#" && header[1] == "kernel" ? "sortable kernels" : "sortable";
    };
    print_options markdown_options = options;
    markdown_options.chart_file = inline_chart;
    const std::string data = "<script type=\"application/json\" id=\"roofline-kernels\">" +
                             kernels_json(a, kernel_labels(a)) + "</script>\n<script>" + panel_script + "</script>\n";
    write_html_page(
        out, "Roofline report: " + a.input, [&](std::ostream& o) { write_markdown(a, markdown_options, o); }, hooks,
        data);
}

std::string render_html(const analysis& a, const print_options& options) {
    std::ostringstream o;
    write_html(a, options, o);
    return o.str();
}

}  // namespace roofline
