#include "analyzer/report/chart_svg.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/render/svg_writer.hpp"
#include "analyzer/report/chart_labels.hpp"
#include "analyzer/report/chart_parts.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <utility>

namespace roofline {

using namespace chart_detail;

namespace {

// Pixels to the hundredth, data values to six digits: fixed text, so the same chart is the same bytes.
std::string coordinate(double pixels) { return decimals(pixels, 2); }
std::string six_significant(double value) { return significant(value, 6); }

// The chart's writer: a measure an attribute is given is a pixel coordinate (data values come as text).
svg_writer chart_writer() { return svg_writer(coordinate, svg_escaping::xml); }

// "translate(x,y)": where a rotated text stands.
std::string translate(double x_px, double y_px) {
    return "translate(" + coordinate(x_px) + "," + coordinate(y_px) + ")";
}
// "x,y": one vertex of a polyline's points.
std::string vertex(double x_px, double y_px) { return coordinate(x_px) + "," + coordinate(y_px); }
// "low high": a panel's range in decades.
std::string decade_range(double low, double high) { return six_significant(low) + " " + six_significant(high); }
// "1 5 8": numbers apart by spaces, a data-* list.
std::string spaced_numbers(const std::vector<std::size_t>& numbers) {
    std::string text;
    for (std::size_t i = 0; i < numbers.size(); ++i) text += (i ? " " : "") + std::to_string(numbers[i]);
    return text;
}

// A decade as people say it: 1e-5 s is "10 µs", 1e12 B/s is "1 TB/s".
std::string decade_text(double decade, const char* unit) {
    static const char* prefixes[] = {"p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
    const int exponent = int(std::lround(decade));
    const int group = int(std::floor(exponent / 3.0));
    if (group < -4 || group > 6) return "1e" + std::to_string(exponent) + " " + unit;
    const int within = exponent - 3 * group;
    return std::string(within == 0 ? "1" : within == 1 ? "10" : "100") + " " + prefixes[group + 4] + unit;
}

// "1-3, 5, 8-9": a sorted list of numbers, runs joined.
std::string number_ranges(const std::vector<std::size_t>& numbers) {
    std::string text;
    for (std::size_t i = 0; i < numbers.size();) {
        std::size_t run_end = i;
        while (run_end + 1 < numbers.size() && numbers[run_end + 1] == numbers[run_end] + 1) ++run_end;
        text += (text.empty() ? "" : ", ") + std::to_string(numbers[i]) +
                (run_end > i ? (run_end == i + 1 ? ", " : "-") + std::to_string(numbers[run_end]) : "");
        i = run_end + 1;
    }
    return text;
}

}  // namespace

std::string render_chart(const analysis& analysed, const print_options&) {
    return render_chart_svg(analysed, build_chart(analysed));
}

namespace {

// Greedy word wrap at an estimated width.
std::vector<std::string> wrap(const std::string& text, double width, double font_size) {
    std::vector<std::string> lines;
    std::string line, word;
    std::istringstream in(text);
    while (in >> word) {
        // A word wider than the line (a long name without spaces) is cut where it fills one.
        while (text_width(word, font_size) > width && word.size() > 1) {
            std::size_t cut = 1;
            while (cut < word.size() && text_width(word.substr(0, cut + 1), font_size) <= width) ++cut;
            while (cut > 1 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80)
                --cut;  // never inside a UTF-8 character
            if (!line.empty()) lines.push_back(line), line.clear();
            lines.push_back(word.substr(0, cut));
            word = word.substr(cut);
        }
        const std::string longer = line.empty() ? word : line + " " + word;
        if (!line.empty() && text_width(longer, font_size) > width) {
            lines.push_back(line);
            line = word;
        } else {
            line = longer;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

// A memory level's line, as on both panels: DRAM solid, L2 dashed, L1 dotted.
void add_level_stroke(svg_attributes& attributes, resource level) {
    if (level == resource::dram) {
        attributes.insert(attributes.end(), {{"stroke", "#444"}, {"stroke-width", "2"}});
        return;
    }
    attributes.insert(
        attributes.end(),
        {{"stroke", "#888"}, {"stroke-width", "1.2"}, {"stroke-dasharray", level == resource::l2 ? "6,4" : "2,3"}});
}

// One chart being written: the layout and what every part of it reads. Each part writes one group.
struct svg_chart {
    const analysis& analysed;
    const chart_data& chart;
    svg_writer svg = chart_writer();
    bool flops;
    const char* per_byte;
    const chart_ceiling* dram;  // the DRAM ceiling, if the chart has one
    std::vector<std::size_t> unlabelled;
    std::vector<label_point> slope_obstacles;  // where the roofline's memory-level labels lie
    std::vector<bound> drawn_bounds;
    bool level_marks = false;

    svg_chart(const analysis& an, const chart_data& cd)
        : analysed(an),
          chart(cd),
          flops(cd.kind == chart_kind::flops),
          per_byte(flops ? " FLOP/B" : " inst/B"),
          dram(find_ceiling(cd, resource::dram)) {}

    std::string rate(double per_second) const {
        return flops ? rate_text(per_second) : three_significant(per_second / 1e9) + " G inst/s";
    }
    std::string label(resource id) const {
        return id == resource::issue ? std::string("issue (4 per SM per clock)") : precision_label(id);
    }
    const char* colour(const analysed_kernel& kernel) const { return bound_hex_colour(kernel.verdict.bound); }
    void saw(const analysed_kernel& kernel) {
        if (std::find(drawn_bounds.begin(), drawn_bounds.end(), kernel.verdict.bound) == drawn_bounds.end())
            drawn_bounds.push_back(kernel.verdict.bound);
    }
    std::string numbered(std::size_t number, const std::string& name) const {
        return number ? std::to_string(number) + ". " + name : name;
    }
    std::vector<std::size_t> sorted_unlabelled() const {
        std::vector<std::size_t> sorted_numbers = unlabelled;
        std::sort(sorted_numbers.begin(), sorted_numbers.end());
        return sorted_numbers;
    }

    // Every kernel on the memory panel does no floating-point work (rather than lacking DRAM bytes).
    bool memory_without_flops() const {
        return flops && std::none_of(chart.memory.begin(), chart.memory.end(), [](const memory_point& point) {
                   return dominant_precision(*point.kernel) != nullptr;
               });
    }

    // ---- what both panels draw ----
    void open_panel(const chart_layout& layout, const char* panel) {
        svg.open("g", {{"class", "panel"},
                       {"data-panel", panel},
                       {"data-plot-left", layout.left},
                       {"data-plot-top", layout.top},
                       {"data-plot-width", layout.plot_w},
                       {"data-plot-height", layout.plot_h},
                       {"data-x-decades", decade_range(layout.x_min, layout.x_max)},
                       {"data-y-decades", decade_range(layout.y_min, layout.y_max)}});
        svg.newline();
    }
    // The element open closed, and the line ended.
    void close_line() {
        svg.close();
        svg.newline();
    }
    void plot_frame(const chart_layout& layout, const char* clip) {
        svg_attributes area = {
            {"x", layout.left}, {"y", layout.top}, {"width", layout.plot_w}, {"height", layout.plot_h}};
        svg.open("defs");
        svg.open("clipPath", {{"id", clip}});
        svg.leaf("rect", area);
        svg.close();
        svg.close();
        svg.newline();
        area.insert(area.end(), {{"fill", "none"}, {"stroke", "#999"}});
        svg.leaf("rect", area);
        svg.newline();
    }
    void grid(const chart_layout& layout, const std::function<std::string(double)>& x_text,
              const std::function<std::string(double)>& y_text) {
        svg.open("g", {{"class", "axes"}, {"stroke", "#e3e3e3"}});
        svg.newline();
        for (double decade = layout.x_min; decade <= layout.x_max + 1e-9; decade += 1) {
            const double x_px = layout.px(std::pow(10.0, decade));
            svg.leaf("line", {{"x1", x_px}, {"y1", layout.top}, {"x2", x_px}, {"y2", layout.top + layout.plot_h}});
            tick_label(x_px, layout.top + layout.plot_h + 18, "middle", x_text(decade));
        }
        for (double decade = layout.y_min; decade <= layout.y_max + 1e-9; decade += 1) {
            const double y_px = layout.py(std::pow(10.0, decade));
            svg.leaf("line", {{"x1", layout.left}, {"y1", y_px}, {"x2", layout.left + layout.plot_w}, {"y2", y_px}});
            tick_label(layout.left - 6, y_px + 4, "end", y_text(decade));
        }
        close_line();
    }
    void tick_label(double x_px, double y_px, const char* anchor, const std::string& text) {
        svg.text_element(
            "text", {{"x", x_px}, {"y", y_px}, {"text-anchor", anchor}, {"stroke", "none"}, {"fill", "#333"}}, text);
        svg.newline();
    }
    void axis_titles(const chart_layout& layout, const std::string& x_title, const std::string& y_title,
                     const std::string& panel_title) {
        svg.text_element("text",
                         {{"class", "panel-title"}, {"x", layout.left}, {"y", panel_title_y}, {"font-weight", "bold"}},
                         panel_title);
        svg.newline();
        svg.text_element(
            "text",
            {{"x", layout.left + layout.plot_w / 2}, {"y", layout.top + layout.plot_h + 36}, {"text-anchor", "middle"}},
            x_title);
        svg.newline();
        svg.text_element("text",
                         {{"transform", translate(layout.left - 66, layout.top + layout.plot_h / 2) + " rotate(-90)"},
                          {"text-anchor", "middle"}},
                         y_title);
        svg.newline();
    }
    void open_ceiling_labels() {
        svg.open("g", {{"class", "ceiling-labels"}, {"font-size", six_significant(ceiling_font)}, {"fill", "#222"}});
        svg.newline();
    }
    // An arrow between two marks, clear of both; none where they nearly coincide (nothing to point at).
    void arrow(double x0, double y0, double x1, double y1) {
        const double len = std::hypot(x1 - x0, y1 - y0);
        if (len < 20) return;
        const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
        svg.leaf("line", {{"class", "arrow"},
                          {"x1", x0 + 9 * ux},
                          {"y1", y0 + 9 * uy},
                          {"x2", x1 - 9 * ux},
                          {"y2", y1 - 9 * uy},
                          {"stroke", "#333"},
                          {"stroke-width", "1.5"},
                          {"marker-end", "url(#arrow)"}});
        svg.newline();
    }
    // The line joining a kernel's mark to its open level marks.
    void hierarchy_line(double x1, double y1, double x2, double y2, const analysed_kernel& kernel) {
        svg.leaf("line", {{"class", "hierarchy"},
                          {"x1", x1},
                          {"y1", y1},
                          {"x2", x2},
                          {"y2", y2},
                          {"stroke", colour(kernel)},
                          {"stroke-opacity", "0.5"}});
        svg.newline();
    }
    // The kernels' title: what a reader hovering a point sees.
    std::string kernel_title(const analysed_kernel& kernel, std::size_t number, const std::string& role) const {
        return (role.empty() ? "" : role + ": ") + numbered(number, short_name(kernel.group.name)) + ": " +
               format_duration_ns(kernel.roof.duration_ns) + " (" + format_percent(kernel.share) + " of the time), ";
    }
    // Number labels, most time first (the summary's order); those with no room are listed in the caption.
    void labels(const chart_layout& layout, std::vector<label_point> pts, const std::vector<std::size_t>& numbers) {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (i < numbers.size() && numbers[i]) order.push_back(i);
        if (order.empty()) return;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t left, std::size_t right) { return numbers[left] < numbers[right]; });
        // Labels first in that order, then the obstacles (empty text) the placer skips.
        std::vector<label_point> sorted;
        for (std::size_t i : order) sorted.push_back(pts[i]);
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (!(i < numbers.size() && numbers[i])) sorted.push_back(pts[i]);
        const auto places =
            place_labels(sorted, {layout.left, layout.top, layout.left + layout.plot_w, layout.top + layout.plot_h},
                         chart.label_size, true);
        svg.open("g", {{"class", "labels"},
                       {"font-size", six_significant(chart.label_size)},
                       {"font-weight", "bold"},
                       {"fill", "#111"},
                       {"stroke", "white"},
                       {"stroke-width", "3"},
                       {"paint-order", "stroke"},
                       {"stroke-linejoin", "round"}});
        svg.newline();
        for (std::size_t j = 0; j < order.size(); ++j) {
            const std::size_t number = numbers[order[j]];
            if (places[j].placed)
                number_label(places[j], number);
            else
                unlabelled.push_back(number);
        }
        close_line();
    }
    void number_label(const label_place& place, std::size_t number) {
        if (place.leader) {
            svg.leaf("line", {{"class", "leader"},
                              {"x1", place.lx0},
                              {"y1", place.ly0},
                              {"x2", place.lx1},
                              {"y2", place.ly1},
                              {"stroke", "#777"},
                              {"stroke-width", "0.8"}});
            svg.newline();
        }
        svg.text_element("text",
                         {{"class", "label"}, {"data-number", number}, {"x", place.text_x}, {"y", place.text_y}},
                         std::to_string(number));
        svg.newline();
    }

    // ---- the frame: the head, the legend and the caption ----
    void open(double height) {
        svg.open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                         {"width", chart.width},
                         {"height", height},
                         {"viewBox", "0 0 " + coordinate(chart.width) + " " + coordinate(height)},
                         {"font-family", "sans-serif"},
                         {"font-size", "12"},
                         {"data-kernels", chart.kernels},
                         {"data-label-size", six_significant(chart.label_size)}});
        svg.newline();
        svg.text_element("title", {},
                         chart.svg_title.empty() ? "Roofline of " + analysed.input + " on the " + analysed.gpu.name
                                                 : chart.svg_title);
        svg.newline();
        svg.leaf("rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
        svg.newline();
        svg.open("defs");
        svg.open("marker", {{"id", "arrow"},
                            {"viewBox", "0 0 10 10"},
                            {"refX", "9"},
                            {"refY", "5"},
                            {"markerWidth", "7"},
                            {"markerHeight", "7"},
                            {"orient", "auto"}});
        svg.leaf("path", {{"d", "M0,0 L10,5 L0,10 z"}, {"fill", "#333"}});
        svg.close();
        close_line();
        svg.text_element("text", {{"x", margin}, {"y", title_y}, {"font-size", "15"}, {"font-weight", "bold"}},
                         chart.title);
        svg.newline();
    }
    void legend(double baseline) {
        // What is drawn, nothing more: the bounds of the kernels on the chart, the open marks if any.
        svg.open("g", {{"class", "legend"}, {"font-size", "11"}});
        svg.newline();
        double x_px = margin;
        for (bound bound_kind : all_bounds()) {
            if (std::find(drawn_bounds.begin(), drawn_bounds.end(), bound_kind) == drawn_bounds.end()) continue;
            const std::string text = std::string(name(bound_kind)) + " bound";
            svg.leaf("circle", {{"class", "legend-entry"},
                                {"data-bound", name(bound_kind)},
                                {"cx", x_px + 5},
                                {"cy", baseline - 4},
                                {"r", "5"},
                                {"fill", bound_hex_colour(bound_kind)},
                                {"fill-opacity", "0.75"},
                                {"stroke", "#222"},
                                {"stroke-width", "0.6"}});
            legend_text(x_px, baseline, text);
            x_px += 14 + text_width(text, 11) + 16;
        }
        if (level_marks) {
            svg.leaf("circle", {{"class", "legend-entry"},
                                {"data-mark", "level"},
                                {"cx", x_px + 5},
                                {"cy", baseline - 4},
                                {"r", "3"},
                                {"fill", "white"},
                                {"stroke", "#555"}});
            legend_text(x_px, baseline, "the same kernel at L2 and L1");
        }
        close_line();
    }
    void legend_text(double x_px, double baseline, const std::string& text) {
        svg.text_element("text", {{"x", x_px + 14}, {"y", baseline}}, text);
        svg.newline();
    }
    std::vector<std::string> caption_text() const {
        std::vector<std::string> out;
        const bool lesson = std::any_of(chart.points.begin(), chart.points.end(),
                                        [](const chart_point& point) { return !point.role.empty(); });
        if (!chart.caption.empty())
            out.push_back(chart.caption);
        else if (!lesson)
            out.push_back(
                "Each kernel is drawn once, numbered by its row in the report's summary table (1 takes the most time); "
                "a mark's "
                "area is its share of the time, its colour the kernel's bound.");
        if (chart.roofline_panel && chart.memory_panel)
            out.push_back(std::string("Left: the roofline of the kernels ") +
                          (flops ? "that do floating-point work" : "with an instruction count") +
                          ", at their work per DRAM byte, under the DRAM slope and each ceiling. Right: the kernels "
                          "the roofline cannot "
                          "place (" +
                          (flops ? "no FLOPs: copies, transposes; or no DRAM bytes" : "no DRAM bytes") +
                          "), at their total time and the bytes per second they moved, under each level's ceiling.");
        else if (chart.memory_panel)
            out.push_back(std::string(memory_without_flops()
                                          ? "No kernel here does floating-point work"
                                          : "No kernel here has the DRAM bytes a roofline divides its work by") +
                          ": each is drawn at its total time and the bytes per second it moved at DRAM, L2 and L1, "
                          "under each level's "
                          "ceiling.");
        if (!chart.not_drawn.empty()) {
            std::string text = "Not drawn: ";
            for (std::size_t i = 0; i < chart.not_drawn.size(); ++i)
                text += (i ? "; " : "") + numbered(chart.not_drawn[i].number, chart.not_drawn[i].name) + " (" +
                        chart.not_drawn[i].why + ")";
            out.push_back(text + ".");
        }
        if (!unlabelled.empty())
            out.push_back("Drawn but not numbered, for want of room: " + number_ranges(sorted_unlabelled()) +
                          " (each point's tooltip names its kernel).");
        return out;
    }
    // The caption's paragraphs, wrapped to the chart's width.
    std::vector<std::string> caption_lines() const {
        std::vector<std::string> lines;
        for (const auto& para : caption_text())
            for (auto& line : wrap(para, chart.width - 2 * margin, caption_font)) lines.push_back(line);
        return lines;
    }
    void caption(const std::vector<std::string>& lines, double first_baseline) {
        svg_attributes attributes = {
            {"class", "caption"}, {"font-size", six_significant(caption_font)}, {"fill", "#333"}};
        if (!chart.not_drawn.empty()) {
            std::vector<std::size_t> not_drawn;
            for (const auto& kernel : chart.not_drawn) not_drawn.push_back(kernel.number);
            attributes.push_back({"data-not-drawn", spaced_numbers(not_drawn)});
        }
        if (!unlabelled.empty()) attributes.push_back({"data-unlabelled", spaced_numbers(sorted_unlabelled())});
        svg.open("g", attributes);
        svg.newline();
        double line_y = first_baseline;
        for (const auto& line : lines) {
            svg.text_element("text", {{"x", margin}, {"y", line_y}}, line);
            svg.newline();
            line_y += caption_line;
        }
        close_line();
    }

    // ---- the roofline panel ----
    void roofline() {
        const chart_layout& layout = chart.roof;
        open_panel(layout, "roofline");
        plot_frame(layout, "plot");
        grid(
            layout, [](double decade) { return "1e" + six_significant(decade); },
            [](double decade) { return "1e" + six_significant(decade); });
        // A diff draws a kernel twice (base and new) and labels it once: count the labelled marks.
        const std::size_t labelled_count = std::size_t(std::count_if(
            chart.points.begin(), chart.points.end(), [](const chart_point& point) { return point.labelled; }));
        axis_titles(layout,
                    flops ? "arithmetic intensity (FLOP per DRAM byte; open marks: per L2, L1 byte)"
                          : "warp instructions per DRAM byte (open marks: per L2, L1 byte)",
                    flops ? "FLOP/s of the dominant precision" : "warp instructions per second",
                    flops
                        ? "Roofline: " + std::to_string(labelled_count) +
                              (labelled_count == 1 ? " kernel that does" : " kernels that do") + " floating-point work"
                        : "Instruction roofline: " + std::to_string(labelled_count) +
                              (labelled_count == 1 ? " kernel" : " kernels"));
        roof_ceilings();
        roof_ceiling_labels();
        roof_kernels();
        roles();
        close_line();
    }
    // Ceilings: min(dram x intensity, peak) per precision; the DRAM slope alone up to the top one.
    void roof_ceilings() {
        svg.open("g", {{"class", "ceilings"}, {"clip-path", "url(#plot)"}, {"fill", "none"}, {"stroke-width", "2"}});
        svg.newline();
        double top = 0;
        for (const auto& ce : chart.ceilings)
            if (!is_memory(ce.id)) top = std::max(top, ce.peak);
        cache_slopes(top);
        for (const auto& ce : chart.ceilings)
            if (!is_memory(ce.id)) work_ceiling(ce);
        if (dram && top == 0) dram_slope();  // the DRAM slope on its own, where no work ceiling draws it
        close_line();
    }
    // The cache levels: dashed (L2) and dotted (L1) slopes up to the highest compute ceiling.
    void cache_slopes(double top) {
        const chart_layout& layout = chart.roof;
        const double x_lo = std::pow(10.0, layout.x_min), x_hi = std::pow(10.0, layout.x_max);
        for (const auto& ce : chart.ceilings) {
            if (ce.id != resource::l2 && ce.id != resource::l1) continue;
            const double x_end = top > 0 ? std::min(top / ce.peak, x_hi) : x_hi;
            svg_attributes attributes = {
                {"class", "ceiling"}, {"data-id", name(ce.id)}, {"data-peak", six_significant(ce.peak)}};
            add_level_stroke(attributes, ce.id);
            attributes.push_back({"points", vertex(layout.px(x_lo), layout.py(ce.peak * x_lo)) + " " +
                                                vertex(layout.px(x_end), layout.py(ce.peak * x_end))});
            svg.leaf("polyline", attributes);
            svg.newline();
        }
    }
    // One work ceiling: up the DRAM slope to its ridge point, then flat; the ridge point marked.
    void work_ceiling(const chart_ceiling& ce) {
        const chart_layout& layout = chart.roof;
        const double x_lo = std::pow(10.0, layout.x_min), x_hi = std::pow(10.0, layout.x_max);
        const double ridge = dram ? ce.peak / dram->peak : x_lo;
        std::string points = dram ? vertex(layout.px(x_lo), layout.py(dram->peak * x_lo)) + " " : "";
        points += vertex(layout.px(std::max(ridge, x_lo)), layout.py(ce.peak)) + " " +
                  vertex(layout.px(x_hi), layout.py(ce.peak));
        svg.leaf("polyline", {{"class", "ceiling"},
                              {"data-id", name(ce.id)},
                              {"data-peak", six_significant(ce.peak)},
                              {"stroke", "#444"},
                              {"points", points}});
        svg.newline();
        if (!dram) return;
        svg.titled("circle",
                   {{"class", "ridge"},
                    {"data-id", name(ce.id)},
                    {"data-intensity", six_significant(ridge)},
                    {"cx", layout.px(ridge)},
                    {"cy", layout.py(ce.peak)},
                    {"r", "3"},
                    {"fill", "#444"}},
                   "ridge point of " + label(ce.id) + ": " + six_significant(ridge) + per_byte);
        svg.newline();
    }
    void dram_slope() {
        const chart_layout& layout = chart.roof;
        const double x_lo = std::pow(10.0, layout.x_min), x_hi = std::pow(10.0, layout.x_max);
        svg.leaf("polyline", {{"class", "ceiling"},
                              {"data-id", "dram"},
                              {"data-peak", six_significant(dram->peak)},
                              {"stroke", "#444"},
                              {"points", vertex(layout.px(x_lo), layout.py(dram->peak * x_lo)) + " " +
                                             vertex(layout.px(x_hi), layout.py(dram->peak * x_hi))}});
        svg.newline();
    }
    void roof_ceiling_labels() {
        open_ceiling_labels();
        work_ceiling_labels();
        slope_labels();
        close_line();
    }
    // Compute ceilings: labelled right of the plot, pushed apart so none overlaps the next
    // (the column is as wide as the longest label: finish() measured it).
    void work_ceiling_labels() {
        const chart_layout& layout = chart.roof;
        double last_y = -1e9;
        const double label_x = layout.left + layout.plot_w + 8;
        for (const auto& ce : chart.ceilings) {
            if (is_memory(ce.id)) continue;
            const double label_y = std::max(layout.py(ce.peak) + 4, last_y + 26);
            last_y = label_y;
            svg.open("text", {{"x", label_x}, {"y", label_y}});
            svg.text(ceiling_label(chart, ce.id, ce.peak));
            if (dram)
                svg.text_element("tspan", {{"x", label_x}, {"dy", "13"}, {"fill", "#666"}},
                                 ridge_label(chart, ce.peak / dram->peak));
            close_line();
        }
    }
    // Memory levels: along their slopes, near the left end, where the plot shows them.
    void slope_labels() {
        const chart_layout& layout = chart.roof;
        const double angle = -std::atan((layout.plot_h / (layout.y_max - layout.y_min)) /
                                        (layout.plot_w / (layout.x_max - layout.x_min))) *
                             180.0 / 3.14159265358979;
        for (const auto& ce : chart.ceilings) {
            if (!is_memory(ce.id)) continue;
            // All at one x: the slopes are parallel, so their labels stand apart by the lines' distance.
            const double at = 0.12;
            const double x0 = std::pow(10.0, layout.x_min + at * (layout.x_max - layout.x_min));
            const double y0 = layout.py(ce.peak * x0) - 4;
            if (y0 < layout.top + 10 || y0 > layout.top + layout.plot_h) continue;
            const std::string text = level_label(ce.id) + " " + three_significant(ce.peak / 1e12) + " TB/s";
            svg_attributes attributes = {
                {"class", "slope-label"},
                {"transform", translate(layout.px(x0), y0) + " rotate(" + coordinate(angle) + ")"}};
            if (ce.id != resource::dram) attributes.push_back({"fill", "#666"});
            svg.text_element("text", attributes, text);
            svg.newline();
            // Keep number labels off it: obstacles along its length, at the middle of its glyphs.
            const double rad = angle * 3.14159265358979 / 180.0, text_w = text_width(text, ceiling_font);
            for (double along = 0; along <= text_w; along += 5)
                slope_obstacles.push_back({layout.px(x0) + along * std::cos(rad) + 4 * std::sin(rad),
                                           y0 + along * std::sin(rad) - 4 * std::cos(rad), 5, ""});
        }
    }
    void roof_kernels() {
        const chart_layout& layout = chart.roof;
        // The hierarchical marks first, then the DRAM points over them, largest first.
        std::vector<const chart_point*> order;
        for (const auto& point : chart.points) order.push_back(&point);
        std::stable_sort(order.begin(), order.end(), [](const chart_point* left, const chart_point* right) {
            return left->kernel->share > right->kernel->share;
        });
        svg.open("g", {{"class", "kernels"}, {"clip-path", "url(#plot)"}});
        svg.newline();
        for (const chart_point* point : order) roof_kernel(*point);
        for (const auto& [from, to] : chart.arrows)
            arrow(layout.px(chart.points[from].intensity), layout.py(chart.points[from].rate),
                  layout.px(chart.points[to].intensity), layout.py(chart.points[to].rate));
        close_line();
        std::vector<label_point> pts;
        std::vector<std::size_t> numbers;
        for (const auto& point : chart.points) {
            pts.push_back({layout.px(point.intensity), layout.py(point.rate),
                           radius(point.kernel->share, !point.role.empty()), std::to_string(point.number)});
            numbers.push_back(point.labelled ? point.number : 0);
        }
        for (const auto& point : chart.points)  // the level marks: in the way of a label, never labelled
            for (const auto& level_intensity : {point.intensity_l2, point.intensity_l1})
                if (level_intensity) pts.push_back({layout.px(*level_intensity), layout.py(point.rate), 3, ""});
        pts.insert(pts.end(), slope_obstacles.begin(), slope_obstacles.end());
        labels(layout, pts, numbers);
    }
    // One kernel on the roofline: its open marks at L2 and L1 and the line joining them, then its mark.
    // A kernel's dot on either panel: the attributes that say which point it is, then its share and verdict,
    // its place, and the style every dot shares (a lesson's named points drawn larger).
    svg_attributes kernel_dot(svg_attributes identity, const analysed_kernel& kernel, bool has_role, double x_px,
                              double y_px) {
        svg_attributes common = {{"data-share", six_significant(kernel.share)},
                                 {"data-bound", roofline::name(kernel.verdict.bound)},
                                 {"cx", x_px},
                                 {"cy", y_px},
                                 {"r", radius(kernel.share, has_role)},
                                 {"fill", colour(kernel)},
                                 {"fill-opacity", "0.75"},
                                 {"stroke", "#222"},
                                 {"stroke-width", "0.6"}};
        identity.insert(identity.end(), common.begin(), common.end());
        return identity;
    }

    void roof_kernel(const chart_point& point) {
        const chart_layout& layout = chart.roof;
        const analysed_kernel& kernel = *point.kernel;
        saw(kernel);
        const std::string kernel_name = short_name(kernel.group.name);
        const double x_px = layout.px(point.intensity), y_px = layout.py(point.rate);
        std::vector<std::pair<std::string, double>> levels;
        if (point.intensity_l2) levels.push_back({"l2", *point.intensity_l2});
        if (point.intensity_l1) levels.push_back({"l1", *point.intensity_l1});
        if (!levels.empty()) {
            level_marks = true;
            double lo = point.intensity, hi = point.intensity;
            for (const auto& [level, level_intensity] : levels)
                lo = std::min(lo, level_intensity), hi = std::max(hi, level_intensity);
            hierarchy_line(layout.px(lo), y_px, layout.px(hi), y_px, kernel);
            for (const auto& [level, level_intensity] : levels) {
                svg.titled("circle",
                           {{"class", "level"},
                            {"data-kernel", kernel_name},
                            {"data-level", level},
                            {"data-intensity", six_significant(level_intensity)},
                            {"cx", layout.px(level_intensity)},
                            {"cy", y_px},
                            {"r", "3"},
                            {"fill", "white"},
                            {"stroke", colour(kernel)}},
                           numbered(point.number, kernel_name) + " at " + (level == "l2" ? "L2" : "L1") + ": " +
                               six_significant(level_intensity) + per_byte);
                svg.newline();
            }
        }
        svg.titled("circle",
                   kernel_dot({{"class", "kernel"},
                               {"data-panel", "roofline"},
                               {"data-number", point.number},
                               {"data-kernel", kernel_name},
                               {"data-precision", flops ? roofline::name(point.precision) : "inst"},
                               {"data-intensity", six_significant(point.intensity)},
                               {"data-rate", six_significant(point.rate)}},
                              kernel, !point.role.empty(), x_px, y_px),
                   kernel_title(kernel, point.number, point.role.empty() ? point.side : point.role) + rate(point.rate) +
                       " " + (flops ? precision_label(point.precision) + " " : std::string()) + "at " +
                       six_significant(point.intensity) + per_byte + ", " +
                       format_percent(kernel.roof.pct_of_roof / 100.0) + " of its roof, " +
                       verdict_text(kernel.verdict));
        svg.newline();
    }
    void roles() {
        // A lesson's labels: right of the point, or left of it where the text would leave the chart.
        // One label per role: a run of naive kernels (a fusion chain) is named once, on its first point.
        for (std::size_t i = 0; i < chart.points.size(); ++i)
            if (const auto& point = chart.points[i];
                !point.role.empty() && (i == 0 || chart.points[i - 1].role != point.role))
                role_label(i);
    }
    void role_label(std::size_t first) {
        const chart_layout& layout = chart.roof;
        const chart_point& point = chart.points[first];
        std::string names;
        for (std::size_t j = first; j < chart.points.size() && chart.points[j].role == point.role; ++j)
            names += (names.empty() ? "" : " + ") + plain_name(chart.points[j].kernel->group.name);
        const std::string text = point.role + ": " + names;
        const double x_px = layout.px(point.intensity);
        const bool left_of =
            x_px > layout.left + 0.7 * layout.plot_w || x_px + 10 + text_width(text, 11) > chart.width - 4;
        svg_attributes attributes = {{"class", "role"},
                                     {"x", left_of ? x_px - 10 : x_px + 10},
                                     {"y", layout.py(point.rate) - 10},
                                     {"font-size", "11"}};
        if (left_of) attributes.push_back({"text-anchor", "end"});
        svg.text_element("text", attributes, text);
        svg.newline();
    }

    // ---- the memory panel ----
    void memory() {
        const chart_layout& layout = chart.mem;
        open_panel(layout, "memory");
        plot_frame(layout, "memory-plot");
        grid(
            layout, [](double decade) { return decade_text(decade, "s"); },
            [](double decade) { return decade_text(decade, "B/s"); });
        const std::size_t labelled_count = std::size_t(std::count_if(
            chart.memory.begin(), chart.memory.end(), [](const memory_point& point) { return point.labelled; }));
        const bool no_flops = memory_without_flops();
        axis_titles(layout, "the kernel's total time", "bytes per second moved",
                    "Memory: " + std::to_string(labelled_count) + (labelled_count == 1 ? " kernel" : " kernels") +
                        (no_flops ? " without FLOPs" : " off the roofline"));
        memory_ceilings();
        memory_ceiling_labels();
        memory_kernels();
        close_line();
    }
    // The ceilings: one horizontal line per level, as on the roofline: DRAM solid, L2 dashed, L1 dotted.
    void memory_ceilings() {
        const chart_layout& layout = chart.mem;
        svg.open("g", {{"class", "ceilings"}, {"clip-path", "url(#memory-plot)"}, {"fill", "none"}});
        svg.newline();
        for (const auto& ce : chart.ceilings) {
            if (!is_memory(ce.id)) continue;
            svg_attributes attributes = {{"class", "ceiling"},
                                         {"data-panel", "memory"},
                                         {"data-id", name(ce.id)},
                                         {"data-peak", six_significant(ce.peak)},
                                         {"x1", layout.left},
                                         {"y1", layout.py(ce.peak)},
                                         {"x2", layout.left + layout.plot_w},
                                         {"y2", layout.py(ce.peak)}};
            add_level_stroke(attributes, ce.id);
            svg.leaf("line", attributes);
            svg.newline();
        }
        close_line();
    }
    void memory_ceiling_labels() {
        const chart_layout& layout = chart.mem;
        open_ceiling_labels();
        double last_y = 1e9;  // from the bottom up: DRAM is the lowest
        for (const auto& ce : chart.ceilings) {
            if (!is_memory(ce.id)) continue;
            const double label_y = std::min(layout.py(ce.peak) + 4, last_y - 14);
            last_y = label_y;
            svg_attributes attributes = {{"x", layout.left + layout.plot_w + 8}, {"y", label_y}};
            if (ce.id != resource::dram) attributes.push_back({"fill", "#666"});
            svg.text_element("text", attributes, ceiling_label(chart, ce.id, ce.peak));
            svg.newline();
        }
        close_line();
    }
    // The kernels: the open level marks and the line joining them first, then the filled marks, largest first.
    void memory_kernels() {
        const chart_layout& layout = chart.mem;
        std::vector<const memory_point*> order;
        for (const auto& point : chart.memory) order.push_back(&point);
        std::stable_sort(order.begin(), order.end(), [](const memory_point* left, const memory_point* right) {
            return left->kernel->share > right->kernel->share;
        });
        svg.open("g", {{"class", "kernels"}, {"clip-path", "url(#memory-plot)"}});
        svg.newline();
        std::vector<label_point> pts, marks;
        std::vector<std::size_t> numbers;
        for (const memory_point* point : order) memory_kernel(*point, marks);
        for (const auto& [from, to] : chart.memory_arrows)
            arrow(layout.px(chart.memory[from].seconds), layout.py(chart.memory[from].main()),
                  layout.px(chart.memory[to].seconds), layout.py(chart.memory[to].main()));
        close_line();
        for (const auto& point : chart.memory) {
            pts.push_back({layout.px(point.seconds), layout.py(point.main()),
                           radius(point.kernel->share, !point.role.empty()), std::to_string(point.number)});
            numbers.push_back(point.labelled ? point.number : 0);
        }
        pts.insert(pts.end(), marks.begin(), marks.end());
        labels(layout, pts, numbers);
    }
    // One kernel on the memory panel: its open marks at L2 and L1 (kept in `marks`, obstacles to the labels), the
    // line joining them, then its mark.
    void memory_kernel(const memory_point& point, std::vector<label_point>& marks) {
        const chart_layout& layout = chart.mem;
        const analysed_kernel& kernel = *point.kernel;
        saw(kernel);
        const std::string kernel_name = short_name(kernel.group.name);
        const double x_px = layout.px(point.seconds), y_px = layout.py(point.main());
        std::vector<std::pair<std::string, double>> levels;
        if (point.dram && point.l2) levels.push_back({"l2", *point.l2});
        if ((point.dram || point.l2) && point.l1) levels.push_back({"l1", *point.l1});
        if (!levels.empty()) {
            level_marks = true;
            double lo = point.main(), hi = point.main();
            for (const auto& [level, level_rate] : levels) lo = std::min(lo, level_rate), hi = std::max(hi, level_rate);
            hierarchy_line(x_px, layout.py(lo), x_px, layout.py(hi), kernel);
            for (const auto& [level, level_rate] : levels) {
                svg.titled("circle",
                           {{"class", "level"},
                            {"data-panel", "memory"},
                            {"data-kernel", kernel_name},
                            {"data-level", level},
                            {"data-rate", six_significant(level_rate)},
                            {"cx", x_px},
                            {"cy", layout.py(level_rate)},
                            {"r", "3"},
                            {"fill", "white"},
                            {"stroke", colour(kernel)}},
                           numbered(point.number, kernel_name) + " at " + (level == "l2" ? "L2" : "L1") + ": " +
                               bandwidth_text(level_rate));
                svg.newline();
                marks.push_back({x_px, layout.py(level_rate), 3, ""});
            }
        }
        const resource level = point.dram ? resource::dram : point.l2 ? resource::l2 : resource::l1;
        const chart_ceiling* ceiling = find_ceiling(chart, level);
        svg.titled(
            "circle",
            kernel_dot({{"class", "kernel"},
                        {"data-panel", "memory"},
                        {"data-number", point.number},
                        {"data-kernel", kernel_name},
                        {"data-level", name(level)},
                        {"data-seconds", six_significant(point.seconds)},
                        {"data-rate", six_significant(point.main())}},
                       kernel, !point.role.empty(), x_px, y_px),
            kernel_title(kernel, point.number, point.role.empty() ? point.side : point.role) + level_label(level) +
                " " + bandwidth_text(point.main()) +
                (ceiling ? " (" + format_percent(point.main() / ceiling->peak) + " of its ceiling)" : std::string()) +
                ", " + verdict_text(kernel.verdict));
        svg.newline();
    }

    // The panels, set aside: they decide what the legend and the caption say, and so the chart's height.
    svg_writer panels() {
        if (chart.roofline_panel) roofline();
        if (chart.memory_panel) memory();
        return std::exchange(svg, chart_writer());
    }
};

}  // namespace

// One writer, one pass: the panels first, then the frame around them (the head, which needs the height the
// caption sets), the panels appended whole, the legend and the caption.
std::string render_chart_svg(const analysis& analysed, const chart_data& chart) {
    svg_chart writer(analysed, chart);
    const svg_writer panels = writer.panels();
    const std::vector<std::string> lines = writer.caption_lines();
    const double legend_y = plot_top + plot_h + 62;
    writer.open(std::ceil(legend_y + 22 + caption_line * double(lines.size()) + 6));
    writer.svg.append(panels);
    writer.legend(legend_y);
    writer.caption(lines, legend_y + 22);
    writer.close_line();
    return writer.svg.str();
}

}  // namespace roofline
