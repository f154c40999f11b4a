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
std::string coordinate(double v) { return decimals(v, 2); }
std::string six_significant(double v) { return significant(v, 6); }

// Text and attribute values are escaped here, in the writer, never at a call site.
std::string xml(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
            case '&':
                o += "&amp;";
                break;
            case '<':
                o += "&lt;";
                break;
            case '>':
                o += "&gt;";
                break;
            case '"':
                o += "&quot;";
                break;
            default:  // XML holds no control characters: a name with them shows '?'
                o += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
        }
    }
    return o;
}

// One attribute: name="value", the value escaped.
std::string attr(const char* name, const std::string& value) {
    return std::string(" ") + name + "=\"" + xml(value) + "\"";
}

// A decade as people say it: 1e-5 s is "10 µs", 1e12 B/s is "1 TB/s".
std::string decade_text(double d, const char* unit) {
    static const char* prefixes[] = {"p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
    const int e = int(std::lround(d));
    const int group = int(std::floor(e / 3.0));
    if (group < -4 || group > 6) return "1e" + std::to_string(e) + " " + unit;
    const int within = e - 3 * group;
    return std::string(within == 0 ? "1" : within == 1 ? "10" : "100") + " " + prefixes[group + 4] + unit;
}

// "1-3, 5, 8-9": a sorted list of numbers, runs joined.
std::string number_ranges(const std::vector<std::size_t>& n) {
    std::string s;
    for (std::size_t i = 0; i < n.size();) {
        std::size_t j = i;
        while (j + 1 < n.size() && n[j + 1] == n[j] + 1) ++j;
        s += (s.empty() ? "" : ", ") + std::to_string(n[i]) +
             (j > i ? (j == i + 1 ? ", " : "-") + std::to_string(n[j]) : "");
        i = j + 1;
    }
    return s;
}

}  // namespace

std::string render_chart(const analysis& a, const print_options&) { return render_chart_svg(a, build_chart(a)); }

namespace {

// Greedy word wrap at an estimated width.
std::vector<std::string> wrap(const std::string& text, double width, double font_size) {
    std::vector<std::string> lines;
    std::string line, word;
    std::istringstream in(text);
    while (in >> word) {
        // A word wider than the line (a long name without spaces) is cut where it fills one.
        while (text_width(word, font_size) > width && word.size() > 1) {
            std::size_t n = 1;
            while (n < word.size() && text_width(word.substr(0, n + 1), font_size) <= width) ++n;
            while (n > 1 && (static_cast<unsigned char>(word[n]) & 0xC0) == 0x80)
                --n;  // never inside a UTF-8 character
            if (!line.empty()) lines.push_back(line), line.clear();
            lines.push_back(word.substr(0, n));
            word = word.substr(n);
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
    const analysis& a;
    const chart_data& c;
    std::ostringstream o;
    bool flops;
    const char* per_byte;
    const chart_ceiling* dram;  // the DRAM ceiling, if the chart has one
    std::vector<std::size_t> unlabelled;
    std::vector<label_point> slope_obstacles;  // where the roofline's memory-level labels lie
    std::vector<bound> drawn_bounds;
    bool level_marks = false;

    svg_chart(const analysis& an, const chart_data& cd)
        : a(an),
          c(cd),
          flops(cd.kind == chart_kind::flops),
          per_byte(flops ? " FLOP/B" : " inst/B"),
          dram(find_ceiling(cd, resource::dram)) {}

    std::string rate(double v) const { return flops ? rate_text(v) : three_significant(v / 1e9) + " G inst/s"; }
    std::string label(resource id) const {
        return id == resource::issue ? std::string("issue (4 per SM per clock)") : precision_label(id);
    }
    const char* colour(const analysed_kernel& k) const { return bound_hex_colour(k.verdict.bound); }
    void saw(const analysed_kernel& k) {
        if (std::find(drawn_bounds.begin(), drawn_bounds.end(), k.verdict.bound) == drawn_bounds.end())
            drawn_bounds.push_back(k.verdict.bound);
    }
    std::string numbered(std::size_t number, const std::string& name) const {
        return number ? std::to_string(number) + ". " + name : name;
    }

    // Every kernel on the memory panel does no floating-point work (rather than lacking DRAM bytes).
    bool memory_without_flops() const {
        return flops && std::none_of(c.memory.begin(), c.memory.end(),
                                     [](const memory_point& m) { return dominant_precision(*m.kernel) != nullptr; });
    }
    void plot_frame(const chart_layout& L, const char* clip) {
        o << "<defs><clipPath id=\"" << clip << "\"><rect x=\"" << coordinate(L.left) << "\" y=\"" << coordinate(L.top)
          << "\" width=\"" << coordinate(L.plot_w) << "\" height=\"" << coordinate(L.plot_h)
          << "\"/></clipPath></defs>\n";
        o << "<rect x=\"" << coordinate(L.left) << "\" y=\"" << coordinate(L.top) << "\" width=\""
          << coordinate(L.plot_w) << "\" height=\"" << coordinate(L.plot_h) << "\" fill=\"none\" stroke=\"#999\"/>\n";
    }
    void grid(const chart_layout& L, const std::function<std::string(double)>& x_text,
              const std::function<std::string(double)>& y_text) {
        o << "<g class=\"axes\" stroke=\"#e3e3e3\">\n";
        for (double d = L.x_min; d <= L.x_max + 1e-9; d += 1) {
            double x = L.px(std::pow(10.0, d));
            o << "<line x1=\"" << coordinate(x) << "\" y1=\"" << coordinate(L.top) << "\" x2=\"" << coordinate(x)
              << "\" y2=\"" << coordinate(L.top + L.plot_h) << "\"/>"
              << "<text x=\"" << coordinate(x) << "\" y=\"" << coordinate(L.top + L.plot_h + 18)
              << "\" text-anchor=\"middle\" stroke=\"none\" fill=\"#333\">" << xml(x_text(d)) << "</text>\n";
        }
        for (double d = L.y_min; d <= L.y_max + 1e-9; d += 1) {
            double y = L.py(std::pow(10.0, d));
            o << "<line x1=\"" << coordinate(L.left) << "\" y1=\"" << coordinate(y) << "\" x2=\""
              << coordinate(L.left + L.plot_w) << "\" y2=\"" << coordinate(y) << "\"/>"
              << "<text x=\"" << coordinate(L.left - 6) << "\" y=\"" << coordinate(y + 4)
              << "\" text-anchor=\"end\" stroke=\"none\" fill=\"#333\">" << xml(y_text(d)) << "</text>\n";
        }
        o << "</g>\n";
    }
    void axis_titles(const chart_layout& L, const std::string& x_title, const std::string& y_title,
                     const std::string& panel_title) {
        o << "<text class=\"panel-title\" x=\"" << coordinate(L.left) << "\" y=\"" << coordinate(panel_title_y)
          << "\" font-weight=\"bold\">" << xml(panel_title) << "</text>\n";
        o << "<text x=\"" << coordinate(L.left + L.plot_w / 2) << "\" y=\"" << coordinate(L.top + L.plot_h + 36)
          << "\" text-anchor=\"middle\">" << xml(x_title) << "</text>\n";
        o << "<text transform=\"translate(" << coordinate(L.left - 66) << "," << coordinate(L.top + L.plot_h / 2)
          << ") rotate(-90)\" text-anchor=\"middle\">" << xml(y_title) << "</text>\n";
    }

    void open() {
        o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << coordinate(c.width) << "\" height=\""
          << coordinate(c.height) << "\" viewBox=\"0 0 " << coordinate(c.width) << " " << coordinate(c.height)
          << "\" font-family=\"sans-serif\" font-size=\"12\""
          << " data-kernels=\"" << c.kernels << "\" data-label-size=\"" << six_significant(c.label_size) << "\">\n";
        if (c.svg_title.empty())
            o << "<title>Roofline of " << xml(a.input) << " on the " << xml(a.gpu.name) << "</title>\n";
        else
            o << "<title>" << xml(c.svg_title) << "</title>\n";
        o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
        o << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
             "markerHeight=\"7\" orient=\"auto\">"
             "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n";
        o << "<text x=\"" << coordinate(margin) << "\" y=\"" << coordinate(title_y)
          << "\" font-size=\"15\" font-weight=\"bold\">" << xml(c.title) << "</text>\n";
    }

    // ---- the roofline panel ----
    void roofline() {
        const chart_layout& L = c.roof;
        o << "<g class=\"panel\" data-panel=\"roofline\" data-plot-left=\"" << coordinate(L.left)
          << "\" data-plot-top=\"" << coordinate(L.top) << "\" data-plot-width=\"" << coordinate(L.plot_w)
          << "\" data-plot-height=\"" << coordinate(L.plot_h) << "\" data-x-decades=\"" << six_significant(L.x_min)
          << " " << six_significant(L.x_max) << "\" data-y-decades=\"" << six_significant(L.y_min) << " "
          << six_significant(L.y_max) << "\">\n";
        plot_frame(L, "plot");
        grid(
            L, [](double d) { return "1e" + six_significant(d); }, [](double d) { return "1e" + six_significant(d); });
        // A diff draws a kernel twice (base and new) and labels it once: count the labelled marks.
        const std::size_t n = std::size_t(
            std::count_if(c.points.begin(), c.points.end(), [](const chart_point& p) { return p.labelled; }));
        axis_titles(L,
                    flops ? "arithmetic intensity (FLOP per DRAM byte; open marks: per L2, L1 byte)"
                          : "warp instructions per DRAM byte (open marks: per L2, L1 byte)",
                    flops ? "FLOP/s of the dominant precision" : "warp instructions per second",
                    flops ? "Roofline: " + std::to_string(n) + (n == 1 ? " kernel that does" : " kernels that do") +
                                " floating-point work"
                          : "Instruction roofline: " + std::to_string(n) + (n == 1 ? " kernel" : " kernels"));
        roof_ceilings();
        roof_kernels();
        roles();
        o << "</g>\n";
    }
    // Ceilings: min(dram x intensity, peak) per precision; the DRAM slope alone up to the top one.
    void roof_ceilings() {
        const chart_layout& L = c.roof;
        const double x_lo = std::pow(10.0, L.x_min), x_hi = std::pow(10.0, L.x_max);
        o << "<g class=\"ceilings\" clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"2\">\n";
        double top = 0;
        for (const auto& ce : c.ceilings)
            if (!is_memory(ce.id)) top = std::max(top, ce.peak);
        // The cache levels: dashed (L2) and dotted (L1) slopes up to the highest compute ceiling.
        for (const auto& ce : c.ceilings) {
            if (ce.id != resource::l2 && ce.id != resource::l1) continue;
            const double x_end = top > 0 ? std::min(top / ce.peak, x_hi) : x_hi;
            o << "<polyline class=\"ceiling\"" << attr("data-id", name(ce.id)) << " data-peak=\""
              << six_significant(ce.peak) << "\" stroke=\"#888\" stroke-width=\"1.2\""
              << (ce.id == resource::l2 ? " stroke-dasharray=\"6,4\"" : " stroke-dasharray=\"2,3\"") << " points=\""
              << coordinate(L.px(x_lo)) << "," << coordinate(L.py(ce.peak * x_lo)) << " " << coordinate(L.px(x_end))
              << "," << coordinate(L.py(ce.peak * x_end)) << "\"/>\n";
        }
        for (const auto& ce : c.ceilings) {
            if (is_memory(ce.id)) continue;
            double ridge = dram ? ce.peak / dram->peak : x_lo;
            o << "<polyline class=\"ceiling\"" << attr("data-id", name(ce.id)) << " data-peak=\""
              << six_significant(ce.peak) << "\" stroke=\"#444\" points=\"";
            if (dram) o << coordinate(L.px(x_lo)) << "," << coordinate(L.py(dram->peak * x_lo)) << " ";
            o << coordinate(L.px(std::max(ridge, x_lo))) << "," << coordinate(L.py(ce.peak)) << " "
              << coordinate(L.px(x_hi)) << "," << coordinate(L.py(ce.peak)) << "\"/>\n";
            if (dram)
                o << "<circle class=\"ridge\"" << attr("data-id", name(ce.id)) << " data-intensity=\""
                  << six_significant(ridge) << "\" cx=\"" << coordinate(L.px(ridge)) << "\" cy=\""
                  << coordinate(L.py(ce.peak)) << "\" r=\"3\" fill=\"#444\"><title>ridge point of " << label(ce.id)
                  << ": " << six_significant(ridge) << per_byte << "</title></circle>\n";
        }
        if (dram && top == 0)  // the DRAM slope on its own, where no work ceiling draws it
            o << "<polyline class=\"ceiling\" data-id=\"dram\" data-peak=\"" << six_significant(dram->peak)
              << "\" stroke=\"#444\" points=\"" << coordinate(L.px(x_lo)) << "," << coordinate(L.py(dram->peak * x_lo))
              << " " << coordinate(L.px(x_hi)) << "," << coordinate(L.py(dram->peak * x_hi)) << "\"/>\n";
        o << "</g>\n<g class=\"ceiling-labels\" font-size=\"" << six_significant(ceiling_font) << "\" fill=\"#222\">\n";
        // Compute ceilings: labelled right of the plot, pushed apart so none overlaps the next
        // (the column is as wide as the longest label: finish() measured it).
        double last_y = -1e9;
        const double x = L.left + L.plot_w + 8;
        for (const auto& ce : c.ceilings) {
            if (is_memory(ce.id)) continue;
            double y = std::max(L.py(ce.peak) + 4, last_y + 26);
            last_y = y;
            o << "<text x=\"" << coordinate(x) << "\" y=\"" << coordinate(y) << "\">"
              << xml(ceiling_label(c, ce.id, ce.peak));
            if (dram)
                o << "<tspan x=\"" << coordinate(x) << "\" dy=\"13\" fill=\"#666\">"
                  << xml(ridge_label(c, ce.peak / dram->peak)) << "</tspan>";
            o << "</text>\n";
        }
        // Memory levels: along their slopes, near the left end, where the plot shows them.
        const double angle =
            -std::atan((L.plot_h / (L.y_max - L.y_min)) / (L.plot_w / (L.x_max - L.x_min))) * 180.0 / 3.14159265358979;
        for (const auto& ce : c.ceilings) {
            if (!is_memory(ce.id)) continue;
            // All at one x: the slopes are parallel, so their labels stand apart by the lines' distance.
            const double at = 0.12;
            const double x0 = std::pow(10.0, L.x_min + at * (L.x_max - L.x_min));
            const double y0 = L.py(ce.peak * x0) - 4;
            if (y0 < L.top + 10 || y0 > L.top + L.plot_h) continue;
            const std::string text = level_label(ce.id) + " " + three_significant(ce.peak / 1e12) + " TB/s";
            o << "<text class=\"slope-label\" transform=\"translate(" << coordinate(L.px(x0)) << "," << coordinate(y0)
              << ") rotate(" << coordinate(angle) << ")\"" << (ce.id == resource::dram ? "" : " fill=\"#666\"") << ">"
              << xml(text) << "</text>\n";
            // Keep number labels off it: obstacles along its length, at the middle of its glyphs.
            const double rad = angle * 3.14159265358979 / 180.0, w = text_width(text, ceiling_font);
            for (double t = 0; t <= w; t += 5)
                slope_obstacles.push_back({L.px(x0) + t * std::cos(rad) + 4 * std::sin(rad),
                                           y0 + t * std::sin(rad) - 4 * std::cos(rad), 5, ""});
        }
        o << "</g>\n";
    }
    // An arrow between two marks, clear of both; none where they nearly coincide (nothing to point at).
    void arrow(double x0, double y0, double x1, double y1) {
        const double len = std::hypot(x1 - x0, y1 - y0);
        if (len < 20) return;
        const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
        o << "<line class=\"arrow\" x1=\"" << coordinate(x0 + 9 * ux) << "\" y1=\"" << coordinate(y0 + 9 * uy)
          << "\" x2=\"" << coordinate(x1 - 9 * ux) << "\" y2=\"" << coordinate(y1 - 9 * uy)
          << "\" stroke=\"#333\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n";
    }
    // The kernels' title: what a reader hovering a point sees.
    std::string kernel_title(const analysed_kernel& k, std::size_t number, const std::string& role) const {
        return (role.empty() ? "" : role + ": ") + numbered(number, short_name(k.group.name)) + ": " +
               format_duration_ns(k.roof.duration_ns) + " (" + format_percent(k.share) + " of the time), ";
    }
    void roof_kernels() {
        const chart_layout& L = c.roof;
        // The hierarchical marks first, then the DRAM points over them, largest first.
        std::vector<const chart_point*> order;
        for (const auto& p : c.points) order.push_back(&p);
        std::stable_sort(order.begin(), order.end(), [](const chart_point* x, const chart_point* y) {
            return x->kernel->share > y->kernel->share;
        });
        o << "<g class=\"kernels\" clip-path=\"url(#plot)\">\n";
        for (const chart_point* p : order) {
            const analysed_kernel& k = *p->kernel;
            saw(k);
            const std::string name = short_name(k.group.name);
            const double x = L.px(p->intensity), y = L.py(p->rate);
            const double r = radius(k.share, !p->role.empty());
            std::vector<std::pair<std::string, double>> levels;
            if (p->intensity_l2) levels.push_back({"l2", *p->intensity_l2});
            if (p->intensity_l1) levels.push_back({"l1", *p->intensity_l1});
            if (!levels.empty()) {
                level_marks = true;
                double lo = p->intensity, hi = p->intensity;
                for (const auto& [lv, v] : levels) lo = std::min(lo, v), hi = std::max(hi, v);
                o << "<line class=\"hierarchy\" x1=\"" << coordinate(L.px(lo)) << "\" y1=\"" << coordinate(y)
                  << "\" x2=\"" << coordinate(L.px(hi)) << "\" y2=\"" << coordinate(y) << "\" stroke=\"" << colour(k)
                  << "\" stroke-opacity=\"0.5\"/>\n";
                for (const auto& [lv, v] : levels)
                    o << "<circle class=\"level\"" << attr("data-kernel", name) << attr("data-level", lv)
                      << " data-intensity=\"" << six_significant(v) << "\" cx=\"" << coordinate(L.px(v)) << "\" cy=\""
                      << coordinate(y) << "\" r=\"3\" fill=\"white\" stroke=\"" << colour(k) << "\"><title>"
                      << xml(numbered(p->number, name)) << " at " << (lv == "l2" ? "L2" : "L1") << ": "
                      << six_significant(v) << per_byte << "</title></circle>\n";
            }
            o << "<circle class=\"kernel\" data-panel=\"roofline\" data-number=\"" << p->number << "\""
              << attr("data-kernel", name) << attr("data-precision", flops ? roofline::name(p->precision) : "inst")
              << " data-intensity=\"" << six_significant(p->intensity) << "\" data-rate=\"" << six_significant(p->rate)
              << "\" data-share=\"" << six_significant(k.share) << "\""
              << attr("data-bound", roofline::name(k.verdict.bound)) << " cx=\"" << coordinate(x) << "\" cy=\""
              << coordinate(y) << "\" r=\"" << coordinate(r) << "\" fill=\"" << colour(k)
              << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"><title>"
              << xml(kernel_title(k, p->number, p->role.empty() ? p->side : p->role)) << rate(p->rate) << " "
              << (flops ? precision_label(p->precision) + " " : std::string()) << "at " << six_significant(p->intensity)
              << per_byte << ", " << format_percent(k.roof.pct_of_roof / 100.0) << " of its roof, "
              << xml(verdict_text(k.verdict)) << "</title></circle>\n";
        }
        for (const auto& [from, to] : c.arrows)
            arrow(L.px(c.points[from].intensity), L.py(c.points[from].rate), L.px(c.points[to].intensity),
                  L.py(c.points[to].rate));
        o << "</g>\n";
        std::vector<label_point> pts;
        std::vector<std::size_t> numbers;
        for (const auto& p : c.points) {
            pts.push_back(
                {L.px(p.intensity), L.py(p.rate), radius(p.kernel->share, !p.role.empty()), std::to_string(p.number)});
            numbers.push_back(p.labelled ? p.number : 0);
        }
        for (const auto& p : c.points)  // the level marks: in the way of a label, never labelled
            for (const auto& v : {p.intensity_l2, p.intensity_l1})
                if (v) pts.push_back({L.px(*v), L.py(p.rate), 3, ""});
        pts.insert(pts.end(), slope_obstacles.begin(), slope_obstacles.end());
        labels(L, pts, numbers);
    }
    // Number labels, most time first (the summary's order); those with no room are listed in the caption.
    void labels(const chart_layout& L, std::vector<label_point> pts, const std::vector<std::size_t>& numbers) {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (i < numbers.size() && numbers[i]) order.push_back(i);
        if (order.empty()) return;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t x, std::size_t y) { return numbers[x] < numbers[y]; });
        // Labels first in that order, then the obstacles (empty text) the placer skips.
        std::vector<label_point> sorted;
        for (std::size_t i : order) sorted.push_back(pts[i]);
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (!(i < numbers.size() && numbers[i])) sorted.push_back(pts[i]);
        const auto places =
            place_labels(sorted, {L.left, L.top, L.left + L.plot_w, L.top + L.plot_h}, c.label_size, true);
        o << "<g class=\"labels\" font-size=\"" << six_significant(c.label_size)
          << "\" font-weight=\"bold\" fill=\"#111\" stroke=\"white\" "
             "stroke-width=\"3\" paint-order=\"stroke\" stroke-linejoin=\"round\">\n";
        for (std::size_t j = 0; j < order.size(); ++j) {
            const auto& l = places[j];
            const std::size_t number = numbers[order[j]];
            if (!l.placed) {
                unlabelled.push_back(number);
                continue;
            }
            if (l.leader)
                o << "<line class=\"leader\" x1=\"" << coordinate(l.lx0) << "\" y1=\"" << coordinate(l.ly0)
                  << "\" x2=\"" << coordinate(l.lx1) << "\" y2=\"" << coordinate(l.ly1)
                  << "\" stroke=\"#777\" stroke-width=\"0.8\"/>\n";
            o << "<text class=\"label\" data-number=\"" << number << "\" x=\"" << coordinate(l.x) << "\" y=\""
              << coordinate(l.y) << "\">" << number << "</text>\n";
        }
        o << "</g>\n";
    }
    void roles() {
        // A lesson's labels: right of the point, or left of it where the text would leave the chart.
        // One label per role: a run of naive kernels (a fusion chain) is named once, on its first point.
        const chart_layout& L = c.roof;
        for (std::size_t i = 0; i < c.points.size(); ++i)
            if (const auto& p = c.points[i]; !p.role.empty() && (i == 0 || c.points[i - 1].role != p.role)) {
                std::string names;
                for (std::size_t j = i; j < c.points.size() && c.points[j].role == p.role; ++j)
                    names += (names.empty() ? "" : " + ") + plain_name(c.points[j].kernel->group.name);
                const std::string text = p.role + ": " + names;
                const double x = L.px(p.intensity);
                const bool left_of = x > L.left + 0.7 * L.plot_w || x + 10 + text_width(text, 11) > c.width - 4;
                o << "<text class=\"role\" x=\"" << coordinate(left_of ? x - 10 : x + 10) << "\" y=\""
                  << coordinate(L.py(p.rate) - 10) << "\" font-size=\"11\"" << (left_of ? " text-anchor=\"end\"" : "")
                  << ">" << xml(text) << "</text>\n";
            }
    }

    // ---- the memory panel ----
    void memory() {
        const chart_layout& L = c.mem;
        o << "<g class=\"panel\" data-panel=\"memory\" data-plot-left=\"" << coordinate(L.left) << "\" data-plot-top=\""
          << coordinate(L.top) << "\" data-plot-width=\"" << coordinate(L.plot_w) << "\" data-plot-height=\""
          << coordinate(L.plot_h) << "\" data-x-decades=\"" << six_significant(L.x_min) << " "
          << six_significant(L.x_max) << "\" data-y-decades=\"" << six_significant(L.y_min) << " "
          << six_significant(L.y_max) << "\">\n";
        plot_frame(L, "memory-plot");
        grid(
            L, [](double d) { return decade_text(d, "s"); }, [](double d) { return decade_text(d, "B/s"); });
        const std::size_t n = std::size_t(
            std::count_if(c.memory.begin(), c.memory.end(), [](const memory_point& m) { return m.labelled; }));
        const bool no_flops = memory_without_flops();
        axis_titles(L, "the kernel's total time", "bytes per second moved",
                    "Memory: " + std::to_string(n) + (n == 1 ? " kernel" : " kernels") +
                        (no_flops ? " without FLOPs" : " off the roofline"));
        // The ceilings: one horizontal line per level, as on the roofline: DRAM solid, L2 dashed, L1 dotted.
        o << "<g class=\"ceilings\" clip-path=\"url(#memory-plot)\" fill=\"none\">\n";
        for (const auto& ce : c.ceilings) {
            if (!is_memory(ce.id)) continue;
            o << "<line class=\"ceiling\" data-panel=\"memory\"" << attr("data-id", name(ce.id)) << " data-peak=\""
              << six_significant(ce.peak) << "\" x1=\"" << coordinate(L.left) << "\" y1=\"" << coordinate(L.py(ce.peak))
              << "\" x2=\"" << coordinate(L.left + L.plot_w) << "\" y2=\"" << coordinate(L.py(ce.peak)) << "\""
              << (ce.id == resource::dram ? " stroke=\"#444\" stroke-width=\"2\""
                  : ce.id == resource::l2 ? " stroke=\"#888\" stroke-width=\"1.2\" stroke-dasharray=\"6,4\""
                                          : " stroke=\"#888\" stroke-width=\"1.2\" stroke-dasharray=\"2,3\"")
              << "/>\n";
        }
        o << "</g>\n<g class=\"ceiling-labels\" font-size=\"" << six_significant(ceiling_font) << "\" fill=\"#222\">\n";
        double last_y = 1e9;  // from the bottom up: DRAM is the lowest
        for (auto it = c.ceilings.begin(); it != c.ceilings.end(); ++it) {
            if (!is_memory(it->id)) continue;
            const double y = std::min(L.py(it->peak) + 4, last_y - 14);
            last_y = y;
            o << "<text x=\"" << coordinate(L.left + L.plot_w + 8) << "\" y=\"" << coordinate(y) << "\""
              << (it->id == resource::dram ? "" : " fill=\"#666\"") << ">" << xml(ceiling_label(c, it->id, it->peak))
              << "</text>\n";
        }
        o << "</g>\n";
        // The kernels: the open level marks and the line joining them first, then the filled marks, largest first.
        std::vector<const memory_point*> order;
        for (const auto& m : c.memory) order.push_back(&m);
        std::stable_sort(order.begin(), order.end(), [](const memory_point* x, const memory_point* y) {
            return x->kernel->share > y->kernel->share;
        });
        o << "<g class=\"kernels\" clip-path=\"url(#memory-plot)\">\n";
        std::vector<label_point> pts, marks;
        std::vector<std::size_t> numbers;
        for (const memory_point* m : order) {
            const analysed_kernel& k = *m->kernel;
            saw(k);
            const std::string name = short_name(k.group.name);
            const double x = L.px(m->seconds), y = L.py(m->main());
            const double r = radius(k.share, !m->role.empty());
            std::vector<std::pair<std::string, double>> levels;
            if (m->dram && m->l2) levels.push_back({"l2", *m->l2});
            if ((m->dram || m->l2) && m->l1) levels.push_back({"l1", *m->l1});
            if (!levels.empty()) {
                level_marks = true;
                double lo = m->main(), hi = m->main();
                for (const auto& [lv, v] : levels) lo = std::min(lo, v), hi = std::max(hi, v);
                o << "<line class=\"hierarchy\" x1=\"" << coordinate(x) << "\" y1=\"" << coordinate(L.py(lo))
                  << "\" x2=\"" << coordinate(x) << "\" y2=\"" << coordinate(L.py(hi)) << "\" stroke=\"" << colour(k)
                  << "\" stroke-opacity=\"0.5\"/>\n";
                for (const auto& [lv, v] : levels) {
                    o << "<circle class=\"level\" data-panel=\"memory\"" << attr("data-kernel", name)
                      << attr("data-level", lv) << " data-rate=\"" << six_significant(v) << "\" cx=\"" << coordinate(x)
                      << "\" cy=\"" << coordinate(L.py(v)) << "\" r=\"3\" fill=\"white\" stroke=\"" << colour(k)
                      << "\"><title>" << xml(numbered(m->number, name)) << " at " << (lv == "l2" ? "L2" : "L1") << ": "
                      << bandwidth_text(v) << "</title></circle>\n";
                    marks.push_back({x, L.py(v), 3, ""});
                }
            }
            const char* level = m->dram ? "dram" : m->l2 ? "l2" : "l1";
            const chart_ceiling* ceiling = find_ceiling(c, m->dram ? resource::dram
                                                           : m->l2 ? resource::l2
                                                                   : resource::l1);
            o << "<circle class=\"kernel\" data-panel=\"memory\" data-number=\"" << m->number << "\""
              << attr("data-kernel", name) << " data-level=\"" << level << "\" data-seconds=\""
              << six_significant(m->seconds) << "\" data-rate=\"" << six_significant(m->main()) << "\" data-share=\""
              << six_significant(k.share) << "\"" << attr("data-bound", roofline::name(k.verdict.bound)) << " cx=\""
              << coordinate(x) << "\" cy=\"" << coordinate(y) << "\" r=\"" << coordinate(r) << "\" fill=\"" << colour(k)
              << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"><title>"
              << xml(kernel_title(k, m->number, m->role.empty() ? m->side : m->role))
              << (m->dram ? "DRAM "
                  : m->l2 ? "L2 "
                          : "L1 ")
              << bandwidth_text(m->main());
            if (ceiling) o << " (" << format_percent(m->main() / ceiling->peak) << " of its ceiling)";
            o << ", " << xml(verdict_text(k.verdict)) << "</title></circle>\n";
        }
        for (const auto& [from, to] : c.memory_arrows)
            arrow(L.px(c.memory[from].seconds), L.py(c.memory[from].main()), L.px(c.memory[to].seconds),
                  L.py(c.memory[to].main()));
        o << "</g>\n";
        for (const auto& m : c.memory) {
            pts.push_back(
                {L.px(m.seconds), L.py(m.main()), radius(m.kernel->share, !m.role.empty()), std::to_string(m.number)});
            numbers.push_back(m.labelled ? m.number : 0);
        }
        pts.insert(pts.end(), marks.begin(), marks.end());
        labels(L, pts, numbers);
        o << "</g>\n";
    }

    // ---- below the panels: the legend and the caption ----
    void legend(double y) {
        // What is drawn, nothing more: the bounds of the kernels on the chart, the open marks if any.
        o << "<g class=\"legend\" font-size=\"11\">\n";
        double x = margin;
        for (bound b : all_bounds()) {
            if (std::find(drawn_bounds.begin(), drawn_bounds.end(), b) == drawn_bounds.end()) continue;
            o << "<circle class=\"legend-entry\"" << attr("data-bound", name(b)) << " cx=\"" << coordinate(x + 5)
              << "\" cy=\"" << coordinate(y - 4) << "\" r=\"5\" fill=\"" << bound_hex_colour(b)
              << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"/><text x=\"" << coordinate(x + 14)
              << "\" y=\"" << coordinate(y) << "\">" << xml(std::string(name(b)) + " bound") << "</text>\n";
            x += 14 + text_width(std::string(name(b)) + " bound", 11) + 16;
        }
        if (level_marks) {
            const std::string text = "the same kernel at L2 and L1";
            o << "<circle class=\"legend-entry\" data-mark=\"level\" cx=\"" << coordinate(x + 5) << "\" cy=\""
              << coordinate(y - 4) << "\" r=\"3\" fill=\"white\" stroke=\"#555\"/><text x=\"" << coordinate(x + 14)
              << "\" y=\"" << coordinate(y) << "\">" << text << "</text>\n";
        }
        o << "</g>\n";
    }
    std::vector<std::string> caption_text() const {
        std::vector<std::string> out;
        const bool lesson =
            std::any_of(c.points.begin(), c.points.end(), [](const chart_point& p) { return !p.role.empty(); });
        if (!c.caption.empty())
            out.push_back(c.caption);
        else if (!lesson)
            out.push_back(
                "Each kernel is drawn once, numbered by its row in the report's summary table (1 takes the most time); "
                "a mark's "
                "area is its share of the time, its colour the kernel's bound.");
        if (c.roofline_panel && c.memory_panel)
            out.push_back(std::string("Left: the roofline of the kernels ") +
                          (flops ? "that do floating-point work" : "with an instruction count") +
                          ", at their work per DRAM byte, under the DRAM slope and each ceiling. Right: the kernels "
                          "the roofline cannot "
                          "place (" +
                          (flops ? "no FLOPs: copies, transposes; or no DRAM bytes" : "no DRAM bytes") +
                          "), at their total time and the bytes per second they moved, under each level's ceiling.");
        else if (c.memory_panel)
            out.push_back(std::string(memory_without_flops()
                                          ? "No kernel here does floating-point work"
                                          : "No kernel here has the DRAM bytes a roofline divides its work by") +
                          ": each is drawn at its total time and the bytes per second it moved at DRAM, L2 and L1, "
                          "under each level's "
                          "ceiling.");
        if (!c.not_drawn.empty()) {
            std::string s = "Not drawn: ";
            for (std::size_t i = 0; i < c.not_drawn.size(); ++i)
                s += (i ? "; " : "") + numbered(c.not_drawn[i].number, c.not_drawn[i].name) + " (" +
                     c.not_drawn[i].why + ")";
            out.push_back(s + ".");
        }
        if (!unlabelled.empty()) {
            std::vector<std::size_t> n = unlabelled;
            std::sort(n.begin(), n.end());
            out.push_back("Drawn but not numbered, for want of room: " + number_ranges(n) +
                          " (each point's tooltip names its kernel).");
        }
        return out;
    }
    std::string body() {
        if (c.roofline_panel) roofline();
        if (c.memory_panel) memory();
        return o.str();
    }
};

}  // namespace

std::string render_chart_svg(const analysis& a, const chart_data& c) {
    // The panels first (they decide what the legend and caption say), then the frame around them.
    svg_chart s(a, c);
    const std::string panels = s.body();
    s.o.str("");
    const double legend_y = plot_top + plot_h + 62;
    std::vector<std::string> lines;
    for (const auto& para : s.caption_text())
        for (auto& l : wrap(para, c.width - 2 * margin, caption_font)) lines.push_back(l);
    chart_data sized = c;
    sized.height = std::ceil(legend_y + 22 + caption_line * double(lines.size()) + 6);
    svg_chart frame(a, sized);
    frame.open();
    frame.o << panels;
    frame.drawn_bounds = s.drawn_bounds;
    frame.level_marks = s.level_marks;
    frame.legend(legend_y);
    frame.o << "<g class=\"caption\" font-size=\"" << six_significant(caption_font) << "\" fill=\"#333\"";
    if (!c.not_drawn.empty()) {
        frame.o << " data-not-drawn=\"";
        for (std::size_t i = 0; i < c.not_drawn.size(); ++i) frame.o << (i ? " " : "") << c.not_drawn[i].number;
        frame.o << "\"";
    }
    if (!s.unlabelled.empty()) {
        std::vector<std::size_t> n = s.unlabelled;
        std::sort(n.begin(), n.end());
        frame.o << " data-unlabelled=\"";
        for (std::size_t i = 0; i < n.size(); ++i) frame.o << (i ? " " : "") << n[i];
        frame.o << "\"";
    }
    frame.o << ">\n";
    double y = legend_y + 22;
    for (const auto& l : lines) {
        frame.o << "<text x=\"" << coordinate(margin) << "\" y=\"" << coordinate(y) << "\">" << xml(l) << "</text>\n";
        y += caption_line;
    }
    frame.o << "</g>\n</svg>\n";
    return frame.o.str();
}

}  // namespace roofline
