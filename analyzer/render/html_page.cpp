// The page shell every command's HTML shares: one self-contained page (no network) with the house style
// and the script that sorts every table.
#include "analyzer/render/html_page.hpp"

#include <cctype>
#include <sstream>

namespace roofline {
namespace {

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

// "kernel-3" for "3. name" (the kernel sections), a slug of the words otherwise.
}  // namespace

std::string page_heading_id(int level, const std::string& text) {
    const std::size_t dot = text.find(". ");
    if (level == 3 && dot != std::string::npos && dot > 0 && text.find_first_not_of("0123456789") == dot)
        return "kernel-" + text.substr(0, dot);
    if (level != 2) return "";
    std::string id;
    for (char ch : text) {
        if (std::isalnum(static_cast<unsigned char>(ch)))
            id += char(std::tolower(static_cast<unsigned char>(ch)));
        else if (!id.empty() && id.back() != '-')
            id += '-';
    }
    while (!id.empty() && id.back() == '-') id.pop_back();
    return id;
}

void write_page_shell(std::ostream& out, const std::string& title, const std::function<void(std::ostream&)>& write_body,
                      const std::string& extra) {
    out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" "
           "content=\"roofline\">\n"
        << "<title>" << html_escape(title) << "</title>\n<style>" << style << "</style>\n</head>\n<body>\n<main>\n";
    write_body(out);
    out << "</main>\n" << extra << "<script>" << sort_script << "</script>\n</body>\n</html>\n";
}

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += ch;
        }
    }
    return out;
}

}  // namespace roofline
