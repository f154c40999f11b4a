// The HTML report: one self-contained page (no network: styles, script and the chart are inline).
// Its text is the markdown report's document printed as HTML (render/document.hpp), so the two say the
// same, word for word; on top of it
// the roofline chart sits inline where the markdown links it, a panel shows the kernel under the
// pointer (its numbers and its findings; a click pins it), and every table sorts by a click on a
// column's header. The kernels' data for the panel is a JSON block in the page, read by the script.
#include "analyzer/render/html_page.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include "analyzer/base/format.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace roofline {
namespace {

// The name the markdown gives the chart, recognised again when the image line is rendered.
constexpr const char* inline_chart = "roofline-chart.svg";

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

// The kernels as the panel shows them: the summary's cells and each finding with its estimate.
std::string kernels_json(const analysis& analysed, const std::vector<std::string>& labels) {
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < analysed.kernels.size(); ++i) {
        const auto& kernel = analysed.kernels[i];
        nlohmann::ordered_json findings = nlohmann::ordered_json::array();
        for (const auto& kernel_finding : kernel.diagnosis.findings) {
            const std::vector<std::string> fixes = finding_fixes(kernel_finding);
            findings.push_back(
                {{"id", std::string(kernel_finding.id)},
                 {"title", finding_title(kernel_finding)},
                 {"speedup",
                  kernel_finding.est_speedup ? format_number(*kernel_finding.est_speedup) + "x" : std::string()},
                 {"fix", fixes.empty() ? std::string() : fixes.front()}});
        }
        kernels.push_back({{"number", i + 1},
                           {"label", labels[i]},
                           {"name", kernel.group.name},
                           {"launches", kernel.group.launches},
                           {"time", format_duration_ns(kernel.roof.duration_ns)},
                           {"share", format_percent(kernel.share)},
                           {"verdict", verdict_text(kernel.verdict)},
                           {"achieved", achieved_text(kernel)},
                           {"roof", roof_pct_text(kernel)},
                           {"findings", std::move(findings)}});
    }
    // Names are bytes from the capture: invalid UTF-8 becomes U+FFFD, and '<' is escaped so that no
    // name can close the <script> block.
    const std::string text = nlohmann::ordered_json{{"kernels", std::move(kernels)}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size());
    for (char ch : text) out += ch == '<' ? std::string("\\u003c") : std::string(1, ch);
    return out;
}
}  // namespace

void write_html(const analysis& analysed, const print_options& options, std::ostream& out) {
    print_options markdown_options = options;
    markdown_options.chart_file = inline_chart;
    const std::string data = "<script type=\"application/json\" id=\"roofline-kernels\">" +
                             kernels_json(analysed, kernel_labels(analysed)) + "</script>\n<script>" + panel_script +
                             "</script>\n";
    write_page_shell(
        out, "Roofline report: " + analysed.input,
        [&](std::ostream& body) {
            write_report_html_body(
                analysed, markdown_options,
                [&](const std::string& alt) {
                    return "<figure class=\"chart\" aria-label=\"" + html_escape(alt) + "\">\n" +
                           render_chart(analysed, options) +
                           "<aside id=\"kernel-panel\"><p>Point at a kernel on the chart to see its numbers and "
                           "findings; click to keep it.</p></aside>\n</figure>\n";
                },
                body);
        },
        data);
}

std::string render_html(const analysis& analysed, const print_options& options) {
    std::ostringstream html;
    write_html(analysed, options, html);
    return html.str();
}

}  // namespace roofline
