#include "analyzer/report/chart_svg.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/chart_labels.hpp"
#include "analyzer/report/chart_parts.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

namespace roofline {

using namespace chart_detail;

namespace {

// Pixels to the hundredth, data values to six digits: fixed text, so the same chart is the same bytes.
std::string coordinate(double pixels) { return decimals(pixels, 2); }
std::string six_significant(double value) { return significant(value, 6); }

// Text and attribute values are escaped here, in the writer, never at a call site.
std::string xml(const std::string& text) {
    std::string escaped;
    for (char ch : text) {
        switch (ch) {
            case '&':
                escaped += "&amp;";
                break;
            case '<':
                escaped += "&lt;";
                break;
            case '>':
                escaped += "&gt;";
                break;
            case '"':
                escaped += "&quot;";
                break;
            default:  // XML holds no control characters: a name with them shows '?'
                escaped += (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ? '?' : ch;
        }
    }
    return escaped;
}

// One attribute: name="value", the value escaped.
std::string attr(const char* name, const std::string& value) {
    return std::string(" ") + name + "=\"" + xml(value) + "\"";
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

// One chart being written: the layout and what every part of it reads. Each part writes one group.
struct svg_chart {
    const analysis& analysed;
    const chart_data& chart;
    std::ostringstream svg;
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

    // Every kernel on the memory panel does no floating-point work (rather than lacking DRAM bytes).
    bool memory_without_flops() const {
        return flops && std::none_of(chart.memory.begin(), chart.memory.end(), [](const memory_point& point) {
                   return dominant_precision(*point.kernel) != nullptr;
               });
    }
    void plot_frame(const chart_layout& layout, const char* clip) {
        svg << "<defs><clipPath id=\"" << clip << "\"><rect x=\"" << coordinate(layout.left) << "\" y=\""
            << coordinate(layout.top) << "\" width=\"" << coordinate(layout.plot_w) << "\" height=\""
            << coordinate(layout.plot_h) << "\"/></clipPath></defs>\n";
        svg << "<rect x=\"" << coordinate(layout.left) << "\" y=\"" << coordinate(layout.top) << "\" width=\""
            << coordinate(layout.plot_w) << "\" height=\"" << coordinate(layout.plot_h)
            << "\" fill=\"none\" stroke=\"#999\"/>\n";
    }
    void grid(const chart_layout& layout, const std::function<std::string(double)>& x_text,
              const std::function<std::string(double)>& y_text) {
        svg << "<g class=\"axes\" stroke=\"#e3e3e3\">\n";
        for (double decade = layout.x_min; decade <= layout.x_max + 1e-9; decade += 1) {
            double x_px = layout.px(std::pow(10.0, decade));
            svg << "<line x1=\"" << coordinate(x_px) << "\" y1=\"" << coordinate(layout.top) << "\" x2=\""
                << coordinate(x_px) << "\" y2=\"" << coordinate(layout.top + layout.plot_h) << "\"/>"
                << "<text x=\"" << coordinate(x_px) << "\" y=\"" << coordinate(layout.top + layout.plot_h + 18)
                << "\" text-anchor=\"middle\" stroke=\"none\" fill=\"#333\">" << xml(x_text(decade)) << "</text>\n";
        }
        for (double decade = layout.y_min; decade <= layout.y_max + 1e-9; decade += 1) {
            double y_px = layout.py(std::pow(10.0, decade));
            svg << "<line x1=\"" << coordinate(layout.left) << "\" y1=\"" << coordinate(y_px) << "\" x2=\""
                << coordinate(layout.left + layout.plot_w) << "\" y2=\"" << coordinate(y_px) << "\"/>"
                << "<text x=\"" << coordinate(layout.left - 6) << "\" y=\"" << coordinate(y_px + 4)
                << "\" text-anchor=\"end\" stroke=\"none\" fill=\"#333\">" << xml(y_text(decade)) << "</text>\n";
        }
        svg << "</g>\n";
    }
    void axis_titles(const chart_layout& layout, const std::string& x_title, const std::string& y_title,
                     const std::string& panel_title) {
        svg << "<text class=\"panel-title\" x=\"" << coordinate(layout.left) << "\" y=\"" << coordinate(panel_title_y)
            << "\" font-weight=\"bold\">" << xml(panel_title) << "</text>\n";
        svg << "<text x=\"" << coordinate(layout.left + layout.plot_w / 2) << "\" y=\""
            << coordinate(layout.top + layout.plot_h + 36) << "\" text-anchor=\"middle\">" << xml(x_title)
            << "</text>\n";
        svg << "<text transform=\"translate(" << coordinate(layout.left - 66) << ","
            << coordinate(layout.top + layout.plot_h / 2) << ") rotate(-90)\" text-anchor=\"middle\">" << xml(y_title)
            << "</text>\n";
    }

    void open() {
        svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << coordinate(chart.width) << "\" height=\""
            << coordinate(chart.height) << "\" viewBox=\"0 0 " << coordinate(chart.width) << " "
            << coordinate(chart.height) << "\" font-family=\"sans-serif\" font-size=\"12\""
            << " data-kernels=\"" << chart.kernels << "\" data-label-size=\"" << six_significant(chart.label_size)
            << "\">\n";
        if (chart.svg_title.empty())
            svg << "<title>Roofline of " << xml(analysed.input) << " on the " << xml(analysed.gpu.name) << "</title>\n";
        else
            svg << "<title>" << xml(chart.svg_title) << "</title>\n";
        svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
        svg << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
               "markerHeight=\"7\" orient=\"auto\">"
               "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n";
        svg << "<text x=\"" << coordinate(margin) << "\" y=\"" << coordinate(title_y)
            << "\" font-size=\"15\" font-weight=\"bold\">" << xml(chart.title) << "</text>\n";
    }

    // ---- the roofline panel ----
    void roofline() {
        const chart_layout& layout = chart.roof;
        svg << "<g class=\"panel\" data-panel=\"roofline\" data-plot-left=\"" << coordinate(layout.left)
            << "\" data-plot-top=\"" << coordinate(layout.top) << "\" data-plot-width=\"" << coordinate(layout.plot_w)
            << "\" data-plot-height=\"" << coordinate(layout.plot_h) << "\" data-x-decades=\""
            << six_significant(layout.x_min) << " " << six_significant(layout.x_max) << "\" data-y-decades=\""
            << six_significant(layout.y_min) << " " << six_significant(layout.y_max) << "\">\n";
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
        roof_kernels();
        roles();
        svg << "</g>\n";
    }
    // Ceilings: min(dram x intensity, peak) per precision; the DRAM slope alone up to the top one.
    void roof_ceilings() {
        const chart_layout& layout = chart.roof;
        const double x_lo = std::pow(10.0, layout.x_min), x_hi = std::pow(10.0, layout.x_max);
        svg << "<g class=\"ceilings\" clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"2\">\n";
        double top = 0;
        for (const auto& ce : chart.ceilings)
            if (!is_memory(ce.id)) top = std::max(top, ce.peak);
        // The cache levels: dashed (L2) and dotted (L1) slopes up to the highest compute ceiling.
        for (const auto& ce : chart.ceilings) {
            if (ce.id != resource::l2 && ce.id != resource::l1) continue;
            const double x_end = top > 0 ? std::min(top / ce.peak, x_hi) : x_hi;
            svg << "<polyline class=\"ceiling\"" << attr("data-id", name(ce.id)) << " data-peak=\""
                << six_significant(ce.peak) << "\" stroke=\"#888\" stroke-width=\"1.2\""
                << (ce.id == resource::l2 ? " stroke-dasharray=\"6,4\"" : " stroke-dasharray=\"2,3\"") << " points=\""
                << coordinate(layout.px(x_lo)) << "," << coordinate(layout.py(ce.peak * x_lo)) << " "
                << coordinate(layout.px(x_end)) << "," << coordinate(layout.py(ce.peak * x_end)) << "\"/>\n";
        }
        for (const auto& ce : chart.ceilings) {
            if (is_memory(ce.id)) continue;
            double ridge = dram ? ce.peak / dram->peak : x_lo;
            svg << "<polyline class=\"ceiling\"" << attr("data-id", name(ce.id)) << " data-peak=\""
                << six_significant(ce.peak) << "\" stroke=\"#444\" points=\"";
            if (dram) svg << coordinate(layout.px(x_lo)) << "," << coordinate(layout.py(dram->peak * x_lo)) << " ";
            svg << coordinate(layout.px(std::max(ridge, x_lo))) << "," << coordinate(layout.py(ce.peak)) << " "
                << coordinate(layout.px(x_hi)) << "," << coordinate(layout.py(ce.peak)) << "\"/>\n";
            if (dram)
                svg << "<circle class=\"ridge\"" << attr("data-id", name(ce.id)) << " data-intensity=\""
                    << six_significant(ridge) << "\" cx=\"" << coordinate(layout.px(ridge)) << "\" cy=\""
                    << coordinate(layout.py(ce.peak)) << "\" r=\"3\" fill=\"#444\"><title>ridge point of "
                    << label(ce.id) << ": " << six_significant(ridge) << per_byte << "</title></circle>\n";
        }
        if (dram && top == 0)  // the DRAM slope on its own, where no work ceiling draws it
            svg << "<polyline class=\"ceiling\" data-id=\"dram\" data-peak=\"" << six_significant(dram->peak)
                << "\" stroke=\"#444\" points=\"" << coordinate(layout.px(x_lo)) << ","
                << coordinate(layout.py(dram->peak * x_lo)) << " " << coordinate(layout.px(x_hi)) << ","
                << coordinate(layout.py(dram->peak * x_hi)) << "\"/>\n";
        svg << "</g>\n<g class=\"ceiling-labels\" font-size=\"" << six_significant(ceiling_font)
            << "\" fill=\"#222\">\n";
        // Compute ceilings: labelled right of the plot, pushed apart so none overlaps the next
        // (the column is as wide as the longest label: finish() measured it).
        double last_y = -1e9;
        const double label_x = layout.left + layout.plot_w + 8;
        for (const auto& ce : chart.ceilings) {
            if (is_memory(ce.id)) continue;
            double label_y = std::max(layout.py(ce.peak) + 4, last_y + 26);
            last_y = label_y;
            svg << "<text x=\"" << coordinate(label_x) << "\" y=\"" << coordinate(label_y) << "\">"
                << xml(ceiling_label(chart, ce.id, ce.peak));
            if (dram)
                svg << "<tspan x=\"" << coordinate(label_x) << "\" dy=\"13\" fill=\"#666\">"
                    << xml(ridge_label(chart, ce.peak / dram->peak)) << "</tspan>";
            svg << "</text>\n";
        }
        // Memory levels: along their slopes, near the left end, where the plot shows them.
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
            svg << "<text class=\"slope-label\" transform=\"translate(" << coordinate(layout.px(x0)) << ","
                << coordinate(y0) << ") rotate(" << coordinate(angle) << ")\""
                << (ce.id == resource::dram ? "" : " fill=\"#666\"") << ">" << xml(text) << "</text>\n";
            // Keep number labels off it: obstacles along its length, at the middle of its glyphs.
            const double rad = angle * 3.14159265358979 / 180.0, text_w = text_width(text, ceiling_font);
            for (double along = 0; along <= text_w; along += 5)
                slope_obstacles.push_back({layout.px(x0) + along * std::cos(rad) + 4 * std::sin(rad),
                                           y0 + along * std::sin(rad) - 4 * std::cos(rad), 5, ""});
        }
        svg << "</g>\n";
    }
    // An arrow between two marks, clear of both; none where they nearly coincide (nothing to point at).
    void arrow(double x0, double y0, double x1, double y1) {
        const double len = std::hypot(x1 - x0, y1 - y0);
        if (len < 20) return;
        const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
        svg << "<line class=\"arrow\" x1=\"" << coordinate(x0 + 9 * ux) << "\" y1=\"" << coordinate(y0 + 9 * uy)
            << "\" x2=\"" << coordinate(x1 - 9 * ux) << "\" y2=\"" << coordinate(y1 - 9 * uy)
            << "\" stroke=\"#333\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n";
    }
    // The kernels' title: what a reader hovering a point sees.
    std::string kernel_title(const analysed_kernel& kernel, std::size_t number, const std::string& role) const {
        return (role.empty() ? "" : role + ": ") + numbered(number, short_name(kernel.group.name)) + ": " +
               format_duration_ns(kernel.roof.duration_ns) + " (" + format_percent(kernel.share) + " of the time), ";
    }
    void roof_kernels() {
        const chart_layout& layout = chart.roof;
        // The hierarchical marks first, then the DRAM points over them, largest first.
        std::vector<const chart_point*> order;
        for (const auto& point : chart.points) order.push_back(&point);
        std::stable_sort(order.begin(), order.end(), [](const chart_point* left, const chart_point* right) {
            return left->kernel->share > right->kernel->share;
        });
        svg << "<g class=\"kernels\" clip-path=\"url(#plot)\">\n";
        for (const chart_point* point : order) {
            const analysed_kernel& kernel = *point->kernel;
            saw(kernel);
            const std::string name = short_name(kernel.group.name);
            const double x_px = layout.px(point->intensity), y_px = layout.py(point->rate);
            const double radius_px = radius(kernel.share, !point->role.empty());
            std::vector<std::pair<std::string, double>> levels;
            if (point->intensity_l2) levels.push_back({"l2", *point->intensity_l2});
            if (point->intensity_l1) levels.push_back({"l1", *point->intensity_l1});
            if (!levels.empty()) {
                level_marks = true;
                double lo = point->intensity, hi = point->intensity;
                for (const auto& [lv, level_intensity] : levels)
                    lo = std::min(lo, level_intensity), hi = std::max(hi, level_intensity);
                svg << "<line class=\"hierarchy\" x1=\"" << coordinate(layout.px(lo)) << "\" y1=\"" << coordinate(y_px)
                    << "\" x2=\"" << coordinate(layout.px(hi)) << "\" y2=\"" << coordinate(y_px) << "\" stroke=\""
                    << colour(kernel) << "\" stroke-opacity=\"0.5\"/>\n";
                for (const auto& [lv, level_intensity] : levels)
                    svg << "<circle class=\"level\"" << attr("data-kernel", name) << attr("data-level", lv)
                        << " data-intensity=\"" << six_significant(level_intensity) << "\" cx=\""
                        << coordinate(layout.px(level_intensity)) << "\" cy=\"" << coordinate(y_px)
                        << "\" r=\"3\" fill=\"white\" stroke=\"" << colour(kernel) << "\"><title>"
                        << xml(numbered(point->number, name)) << " at " << (lv == "l2" ? "L2" : "L1") << ": "
                        << six_significant(level_intensity) << per_byte << "</title></circle>\n";
            }
            svg << "<circle class=\"kernel\" data-panel=\"roofline\" data-number=\"" << point->number << "\""
                << attr("data-kernel", name)
                << attr("data-precision", flops ? roofline::name(point->precision) : "inst") << " data-intensity=\""
                << six_significant(point->intensity) << "\" data-rate=\"" << six_significant(point->rate)
                << "\" data-share=\"" << six_significant(kernel.share) << "\""
                << attr("data-bound", roofline::name(kernel.verdict.bound)) << " cx=\"" << coordinate(x_px)
                << "\" cy=\"" << coordinate(y_px) << "\" r=\"" << coordinate(radius_px) << "\" fill=\""
                << colour(kernel) << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"><title>"
                << xml(kernel_title(kernel, point->number, point->role.empty() ? point->side : point->role))
                << rate(point->rate) << " " << (flops ? precision_label(point->precision) + " " : std::string())
                << "at " << six_significant(point->intensity) << per_byte << ", "
                << format_percent(kernel.roof.pct_of_roof / 100.0) << " of its roof, "
                << xml(verdict_text(kernel.verdict)) << "</title></circle>\n";
        }
        for (const auto& [from, to] : chart.arrows)
            arrow(layout.px(chart.points[from].intensity), layout.py(chart.points[from].rate),
                  layout.px(chart.points[to].intensity), layout.py(chart.points[to].rate));
        svg << "</g>\n";
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
        svg << "<g class=\"labels\" font-size=\"" << six_significant(chart.label_size)
            << "\" font-weight=\"bold\" fill=\"#111\" stroke=\"white\" "
               "stroke-width=\"3\" paint-order=\"stroke\" stroke-linejoin=\"round\">\n";
        for (std::size_t j = 0; j < order.size(); ++j) {
            const auto& place = places[j];
            const std::size_t number = numbers[order[j]];
            if (!place.placed) {
                unlabelled.push_back(number);
                continue;
            }
            if (place.leader)
                svg << "<line class=\"leader\" x1=\"" << coordinate(place.lx0) << "\" y1=\"" << coordinate(place.ly0)
                    << "\" x2=\"" << coordinate(place.lx1) << "\" y2=\"" << coordinate(place.ly1)
                    << "\" stroke=\"#777\" stroke-width=\"0.8\"/>\n";
            svg << "<text class=\"label\" data-number=\"" << number << "\" x=\"" << coordinate(place.text_x)
                << "\" y=\"" << coordinate(place.text_y) << "\">" << number << "</text>\n";
        }
        svg << "</g>\n";
    }
    void roles() {
        // A lesson's labels: right of the point, or left of it where the text would leave the chart.
        // One label per role: a run of naive kernels (a fusion chain) is named once, on its first point.
        const chart_layout& layout = chart.roof;
        for (std::size_t i = 0; i < chart.points.size(); ++i)
            if (const auto& point = chart.points[i];
                !point.role.empty() && (i == 0 || chart.points[i - 1].role != point.role)) {
                std::string names;
                for (std::size_t j = i; j < chart.points.size() && chart.points[j].role == point.role; ++j)
                    names += (names.empty() ? "" : " + ") + plain_name(chart.points[j].kernel->group.name);
                const std::string text = point.role + ": " + names;
                const double x_px = layout.px(point.intensity);
                const bool left_of =
                    x_px > layout.left + 0.7 * layout.plot_w || x_px + 10 + text_width(text, 11) > chart.width - 4;
                svg << "<text class=\"role\" x=\"" << coordinate(left_of ? x_px - 10 : x_px + 10) << "\" y=\""
                    << coordinate(layout.py(point.rate) - 10) << "\" font-size=\"11\""
                    << (left_of ? " text-anchor=\"end\"" : "") << ">" << xml(text) << "</text>\n";
            }
    }

    // ---- the memory panel ----
    void memory() {
        const chart_layout& layout = chart.mem;
        svg << "<g class=\"panel\" data-panel=\"memory\" data-plot-left=\"" << coordinate(layout.left)
            << "\" data-plot-top=\"" << coordinate(layout.top) << "\" data-plot-width=\"" << coordinate(layout.plot_w)
            << "\" data-plot-height=\"" << coordinate(layout.plot_h) << "\" data-x-decades=\""
            << six_significant(layout.x_min) << " " << six_significant(layout.x_max) << "\" data-y-decades=\""
            << six_significant(layout.y_min) << " " << six_significant(layout.y_max) << "\">\n";
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
        // The ceilings: one horizontal line per level, as on the roofline: DRAM solid, L2 dashed, L1 dotted.
        svg << "<g class=\"ceilings\" clip-path=\"url(#memory-plot)\" fill=\"none\">\n";
        for (const auto& ce : chart.ceilings) {
            if (!is_memory(ce.id)) continue;
            svg << "<line class=\"ceiling\" data-panel=\"memory\"" << attr("data-id", name(ce.id)) << " data-peak=\""
                << six_significant(ce.peak) << "\" x1=\"" << coordinate(layout.left) << "\" y1=\""
                << coordinate(layout.py(ce.peak)) << "\" x2=\"" << coordinate(layout.left + layout.plot_w) << "\" y2=\""
                << coordinate(layout.py(ce.peak)) << "\""
                << (ce.id == resource::dram ? " stroke=\"#444\" stroke-width=\"2\""
                    : ce.id == resource::l2 ? " stroke=\"#888\" stroke-width=\"1.2\" stroke-dasharray=\"6,4\""
                                            : " stroke=\"#888\" stroke-width=\"1.2\" stroke-dasharray=\"2,3\"")
                << "/>\n";
        }
        svg << "</g>\n<g class=\"ceiling-labels\" font-size=\"" << six_significant(ceiling_font)
            << "\" fill=\"#222\">\n";
        double last_y = 1e9;  // from the bottom up: DRAM is the lowest
        for (auto it = chart.ceilings.begin(); it != chart.ceilings.end(); ++it) {
            if (!is_memory(it->id)) continue;
            const double label_y = std::min(layout.py(it->peak) + 4, last_y - 14);
            last_y = label_y;
            svg << "<text x=\"" << coordinate(layout.left + layout.plot_w + 8) << "\" y=\"" << coordinate(label_y)
                << "\"" << (it->id == resource::dram ? "" : " fill=\"#666\"") << ">"
                << xml(ceiling_label(chart, it->id, it->peak)) << "</text>\n";
        }
        svg << "</g>\n";
        // The kernels: the open level marks and the line joining them first, then the filled marks, largest first.
        std::vector<const memory_point*> order;
        for (const auto& point : chart.memory) order.push_back(&point);
        std::stable_sort(order.begin(), order.end(), [](const memory_point* left, const memory_point* right) {
            return left->kernel->share > right->kernel->share;
        });
        svg << "<g class=\"kernels\" clip-path=\"url(#memory-plot)\">\n";
        std::vector<label_point> pts, marks;
        std::vector<std::size_t> numbers;
        for (const memory_point* point : order) {
            const analysed_kernel& kernel = *point->kernel;
            saw(kernel);
            const std::string name = short_name(kernel.group.name);
            const double x_px = layout.px(point->seconds), y_px = layout.py(point->main());
            const double radius_px = radius(kernel.share, !point->role.empty());
            std::vector<std::pair<std::string, double>> levels;
            if (point->dram && point->l2) levels.push_back({"l2", *point->l2});
            if ((point->dram || point->l2) && point->l1) levels.push_back({"l1", *point->l1});
            if (!levels.empty()) {
                level_marks = true;
                double lo = point->main(), hi = point->main();
                for (const auto& [lv, level_rate] : levels)
                    lo = std::min(lo, level_rate), hi = std::max(hi, level_rate);
                svg << "<line class=\"hierarchy\" x1=\"" << coordinate(x_px) << "\" y1=\"" << coordinate(layout.py(lo))
                    << "\" x2=\"" << coordinate(x_px) << "\" y2=\"" << coordinate(layout.py(hi)) << "\" stroke=\""
                    << colour(kernel) << "\" stroke-opacity=\"0.5\"/>\n";
                for (const auto& [lv, level_rate] : levels) {
                    svg << "<circle class=\"level\" data-panel=\"memory\"" << attr("data-kernel", name)
                        << attr("data-level", lv) << " data-rate=\"" << six_significant(level_rate) << "\" cx=\""
                        << coordinate(x_px) << "\" cy=\"" << coordinate(layout.py(level_rate))
                        << "\" r=\"3\" fill=\"white\" stroke=\"" << colour(kernel) << "\"><title>"
                        << xml(numbered(point->number, name)) << " at " << (lv == "l2" ? "L2" : "L1") << ": "
                        << bandwidth_text(level_rate) << "</title></circle>\n";
                    marks.push_back({x_px, layout.py(level_rate), 3, ""});
                }
            }
            const char* level = point->dram ? "dram" : point->l2 ? "l2" : "l1";
            const chart_ceiling* ceiling = find_ceiling(chart, point->dram ? resource::dram
                                                               : point->l2 ? resource::l2
                                                                           : resource::l1);
            svg << "<circle class=\"kernel\" data-panel=\"memory\" data-number=\"" << point->number << "\""
                << attr("data-kernel", name) << " data-level=\"" << level << "\" data-seconds=\""
                << six_significant(point->seconds) << "\" data-rate=\"" << six_significant(point->main())
                << "\" data-share=\"" << six_significant(kernel.share) << "\""
                << attr("data-bound", roofline::name(kernel.verdict.bound)) << " cx=\"" << coordinate(x_px)
                << "\" cy=\"" << coordinate(y_px) << "\" r=\"" << coordinate(radius_px) << "\" fill=\""
                << colour(kernel) << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"><title>"
                << xml(kernel_title(kernel, point->number, point->role.empty() ? point->side : point->role))
                << (point->dram ? "DRAM "
                    : point->l2 ? "L2 "
                                : "L1 ")
                << bandwidth_text(point->main());
            if (ceiling) svg << " (" << format_percent(point->main() / ceiling->peak) << " of its ceiling)";
            svg << ", " << xml(verdict_text(kernel.verdict)) << "</title></circle>\n";
        }
        for (const auto& [from, to] : chart.memory_arrows)
            arrow(layout.px(chart.memory[from].seconds), layout.py(chart.memory[from].main()),
                  layout.px(chart.memory[to].seconds), layout.py(chart.memory[to].main()));
        svg << "</g>\n";
        for (const auto& point : chart.memory) {
            pts.push_back({layout.px(point.seconds), layout.py(point.main()),
                           radius(point.kernel->share, !point.role.empty()), std::to_string(point.number)});
            numbers.push_back(point.labelled ? point.number : 0);
        }
        pts.insert(pts.end(), marks.begin(), marks.end());
        labels(layout, pts, numbers);
        svg << "</g>\n";
    }

    // ---- below the panels: the legend and the caption ----
    void legend(double baseline) {
        // What is drawn, nothing more: the bounds of the kernels on the chart, the open marks if any.
        svg << "<g class=\"legend\" font-size=\"11\">\n";
        double x_px = margin;
        for (bound bound_kind : all_bounds()) {
            if (std::find(drawn_bounds.begin(), drawn_bounds.end(), bound_kind) == drawn_bounds.end()) continue;
            svg << "<circle class=\"legend-entry\"" << attr("data-bound", name(bound_kind)) << " cx=\""
                << coordinate(x_px + 5) << "\" cy=\"" << coordinate(baseline - 4) << "\" r=\"5\" fill=\""
                << bound_hex_colour(bound_kind)
                << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"/><text x=\"" << coordinate(x_px + 14)
                << "\" y=\"" << coordinate(baseline) << "\">" << xml(std::string(name(bound_kind)) + " bound")
                << "</text>\n";
            x_px += 14 + text_width(std::string(name(bound_kind)) + " bound", 11) + 16;
        }
        if (level_marks) {
            const std::string text = "the same kernel at L2 and L1";
            svg << "<circle class=\"legend-entry\" data-mark=\"level\" cx=\"" << coordinate(x_px + 5) << "\" cy=\""
                << coordinate(baseline - 4) << "\" r=\"3\" fill=\"white\" stroke=\"#555\"/><text x=\""
                << coordinate(x_px + 14) << "\" y=\"" << coordinate(baseline) << "\">" << text << "</text>\n";
        }
        svg << "</g>\n";
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
        if (!unlabelled.empty()) {
            std::vector<std::size_t> sorted_numbers = unlabelled;
            std::sort(sorted_numbers.begin(), sorted_numbers.end());
            out.push_back("Drawn but not numbered, for want of room: " + number_ranges(sorted_numbers) +
                          " (each point's tooltip names its kernel).");
        }
        return out;
    }
    std::string body() {
        if (chart.roofline_panel) roofline();
        if (chart.memory_panel) memory();
        return svg.str();
    }
};

}  // namespace

std::string render_chart_svg(const analysis& analysed, const chart_data& chart) {
    // The panels first (they decide what the legend and caption say), then the frame around them.
    svg_chart writer(analysed, chart);
    const std::string panels = writer.body();
    writer.svg.str("");
    const double legend_y = plot_top + plot_h + 62;
    std::vector<std::string> lines;
    for (const auto& para : writer.caption_text())
        for (auto& line : wrap(para, chart.width - 2 * margin, caption_font)) lines.push_back(line);
    chart_data sized = chart;
    sized.height = std::ceil(legend_y + 22 + caption_line * double(lines.size()) + 6);
    svg_chart frame(analysed, sized);
    frame.open();
    frame.svg << panels;
    frame.drawn_bounds = writer.drawn_bounds;
    frame.level_marks = writer.level_marks;
    frame.legend(legend_y);
    frame.svg << "<g class=\"caption\" font-size=\"" << six_significant(caption_font) << "\" fill=\"#333\"";
    if (!chart.not_drawn.empty()) {
        frame.svg << " data-not-drawn=\"";
        for (std::size_t i = 0; i < chart.not_drawn.size(); ++i)
            frame.svg << (i ? " " : "") << chart.not_drawn[i].number;
        frame.svg << "\"";
    }
    if (!writer.unlabelled.empty()) {
        std::vector<std::size_t> sorted_numbers = writer.unlabelled;
        std::sort(sorted_numbers.begin(), sorted_numbers.end());
        frame.svg << " data-unlabelled=\"";
        for (std::size_t i = 0; i < sorted_numbers.size(); ++i) frame.svg << (i ? " " : "") << sorted_numbers[i];
        frame.svg << "\"";
    }
    frame.svg << ">\n";
    double line_y = legend_y + 22;
    for (const auto& line : lines) {
        frame.svg << "<text x=\"" << coordinate(margin) << "\" y=\"" << coordinate(line_y) << "\">" << xml(line)
                  << "</text>\n";
        line_y += caption_line;
    }
    frame.svg << "</g>\n</svg>\n";
    return frame.svg.str();
}

}  // namespace roofline
