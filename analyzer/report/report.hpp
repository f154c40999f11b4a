// The report stage's one way out: every format an analysis prints to, behind one interface. Each
// printer is pure: the same analysis gives the same bytes.
#pragma once

#include "analyzer/pipeline/analysis.hpp"

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

struct print_options {
    std::string chart_file;  // markdown: the SVG chart to link from the report ("" for none)
    bool colour = false;     // terminal: ANSI colour
    std::size_t top = 15;    // terminal: kernels shown
    std::size_t width = 0;   // terminal: columns to fit (COLUMNS or the tty's); 0: no limit
};

struct report_format {
    const char* name;  // as --format takes it
    const char* what;  // one line for --help
    const char* extension;
    std::string (*print)(const analysis&, const print_options&);
    // The same bytes, written as they are made: a report of 10,000 kernels is never one string.
    void (*write)(const analysis&, const print_options&, std::ostream&);
};

// markdown, json, terminal, html, svg: in that order.
const std::vector<report_format>& report_formats();
// nullptr for a name no format has.
const report_format* find_report_format(std::string_view name);
// "markdown, json, terminal, html, svg", for messages.
std::string report_format_names();

std::string render_markdown(const analysis& analysed, const print_options& options = {});
void write_markdown(const analysis& analysed, const print_options& options, std::ostream& out);
// The markdown report's document as HTML body elements, kernel section by kernel section (html.cpp puts
// the page around it); `chart_html` gives the markup of the chart figure from its alt text.
void write_report_html_body(const analysis& analysed, const print_options& options,
                            const std::function<std::string(const std::string& alt)>& chart_html, std::ostream& out);
// The terminal view: top kernels and opportunities in a fixed-width table.
std::string render_terminal(const analysis& analysed, const print_options& options = {});
// Labels of at most `width` characters that tell `names` apart (the terminal's kernel column): a name that
// fits is itself, a cut one keeps its start and where it differs, and equal cuts are numbered #1, #2, ...
std::vector<std::string> distinct_labels(const std::vector<std::string>& names, std::size_t width);
// The JSON schema is documented in docs/report-json.md.
std::string render_json(const analysis& analysed, const print_options& options = {});
void write_json(const analysis& analysed, const print_options& options, std::ostream& out);
// One self-contained HTML page: the markdown report rendered, the chart inline and interactive, the
// tables sortable (html.cpp).
std::string render_html(const analysis& analysed, const print_options& options = {});
void write_html(const analysis& analysed, const print_options& options, std::ostream& out);
// The roofline chart of every kernel (chart_svg.hpp).
std::string render_chart(const analysis& analysed, const print_options& options = {});

}  // namespace roofline
