#include "analyzer/report/report.hpp"

namespace roofline {
namespace {

void write_terminal(const analysis& analysed, const print_options& options, std::ostream& out) {
    out << render_terminal(analysed, options);
}
void write_chart(const analysis& analysed, const print_options& options, std::ostream& out) {
    out << render_chart(analysed, options);
}

}  // namespace

const std::vector<report_format>& report_formats() {
    static const std::vector<report_format> formats = {
        {"markdown", "the full report: summary, opportunities, each kernel's roofline, findings and rule paths", ".md",
         render_markdown, write_markdown},
        {"json", "the same as data (schema roofline-report/3, docs/report-json.md)", ".json", render_json, write_json},
        {"terminal", "a compact table of the top kernels and opportunities", ".txt", render_terminal, write_terminal},
        {"html",
         "the full report as one self-contained page: the chart inline (point at a kernel for its numbers and "
         "findings), "
         "tables sortable",
         ".html", render_html, write_html},
        {"svg", "the roofline chart of every kernel", ".svg", render_chart, write_chart},
    };
    return formats;
}

const report_format* find_report_format(std::string_view name) {
    for (const auto& entry : report_formats())
        if (name == entry.name) return &entry;
    return nullptr;
}

std::string report_format_names() {
    std::string names;
    for (const auto& entry : report_formats()) names += (names.empty() ? "" : ", ") + std::string(entry.name);
    return names;
}

}  // namespace roofline
