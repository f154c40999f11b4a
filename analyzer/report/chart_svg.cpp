#include "analyzer/report/chart_svg.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace roofline {
namespace {

// Pixels to the hundredth, data values to six digits: fixed text, so the same chart is the same bytes.
std::string f2(double v) { return fixed(v, 2); }
std::string g6(double v) { return general(v, 6); }
std::string g3(double v) { return general(v, 3); }

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
std::string attr(const char* name, const std::string& value) { return std::string(" ") + name + "=\"" + xml(value) + "\""; }

std::string precision_label(resource id) {
    std::string s = name(id);
    for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (s.rfind("TENSOR_", 0) == 0) s = "tensor " + s.substr(7);
    return s;
}

std::string rate_text(double flops_per_s) { return g3(flops_per_s / 1e12) + " TFLOP/s"; }

}  // namespace

double chart_layout::px(double intensity) const {
    return left + (std::log10(intensity) - x_min) / (x_max - x_min) * (width - left - right);
}

double chart_layout::py(double rate) const { return top + (height - top - bottom) * (1.0 - (std::log10(rate) - y_min) / (y_max - y_min)); }

namespace {

bool is_memory(resource id) { return info(id).kind == resource_kind::memory; }

// The most decades an axis spans: real kernels span about ten (intensity 1e-3..1e4, rates
// 1e8..1e16); a point beyond falls outside the plot (clipped) rather than flattening the rest.
constexpr double max_decades = 24;

const resource_use* dominant_precision(const kernel_result& k) {
    const resource_use* dominant = nullptr;
    for (const auto& r : k.roof.resources)
        if (info(r.id).precision && r.work > 0 && (!dominant || r.work > dominant->work)) dominant = &r;
    return dominant;
}

// One point per kernel that can be drawn; why not, for the rest.
void place(chart_data& c, const std::vector<const analysed_kernel*>& kernels, const std::string& role, std::map<resource, double>& peaks) {
    auto see = [&peaks](resource id, double peak) {
        if (peak > 0) peaks[id] = std::max(peaks[id], peak);
    };
    for (const analysed_kernel* kp : kernels) {
        const analysed_kernel& k = *kp;
        for (const auto& r : k.roof.resources)
            if (info(r.id).precision || r.id == resource::dram) see(r.id, r.peak);
        see(resource::l2, k.roof.peak_l2_bytes_per_s.value_or(0.0));
        see(resource::l1, k.roof.peak_l1_bytes_per_s.value_or(0.0));
        const std::string name = plain_name(k.group.name);
        std::optional<double> work;
        resource what = resource::issue;
        if (c.kind == chart_kind::flops) {
            if (const resource_use* d = dominant_precision(k)) work = d->work, what = d->id;
        } else {
            work = k.roof.warp_instructions;
            see(resource::issue, k.roof.issue_peak_per_s);
        }
        if (!k.roof.placed || !work || !k.roof.bytes_dram || *k.roof.bytes_dram <= 0 || k.roof.duration_ns <= 0) {
            c.not_drawn.push_back(name + (k.roof.placed && !work ? (c.kind == chart_kind::flops ? " (no FLOPs)" : " (no instruction count)")
                                                                 : " (no DRAM bytes or time)"));
            continue;
        }
        chart_point p;
        p.kernel = &k;
        p.precision = what;
        p.role = role;
        p.intensity = *work / *k.roof.bytes_dram;
        p.rate = *work / (k.roof.duration_ns * 1e-9);
        if (k.roof.bytes_l2 && *k.roof.bytes_l2 > 0) p.intensity_l2 = *work / *k.roof.bytes_l2;
        if (k.roof.bytes_l1 && *k.roof.bytes_l1 > 0) p.intensity_l1 = *work / *k.roof.bytes_l1;
        c.points.push_back(p);
    }
}

// Ceilings and axes from the points: DRAM, then the work ceilings the points use, highest first;
// whole decades around every point and ridge point.
void finish(chart_data& c, std::map<resource, double>& peaks) {
    for (resource level : {resource::dram, resource::l2, resource::l1})
        if (peaks.count(level) && (level == resource::dram || peaks.count(resource::dram))) c.ceilings.push_back({level, peaks[level]});
    std::vector<chart_ceiling> work;
    for (const auto& p : c.points) {
        const resource id = c.kind == chart_kind::flops ? p.precision : resource::issue;
        if (peaks.count(id) && std::none_of(work.begin(), work.end(), [&](const chart_ceiling& x) { return x.id == id; }))
            work.push_back({id, peaks[id]});
    }
    std::sort(work.begin(), work.end(), [](const chart_ceiling& x, const chart_ceiling& y) {
        return x.peak != y.peak ? x.peak > y.peak : std::string(name(x.id)) < name(y.id);
    });
    c.ceilings.insert(c.ceilings.end(), work.begin(), work.end());

    // Only positive, finite values span the log axes: a counter of 1e300 or a zero clock in a spec
    // must not stretch them without end.
    double lo_x = 1e300, hi_x = 0, lo_y = 1e300, hi_y = 0;
    auto usable = [](double v) { return std::isfinite(v) && v > 0; };
    auto see_x = [&](double v) {
        if (usable(v)) lo_x = std::min(lo_x, v), hi_x = std::max(hi_x, v);
    };
    auto see_y = [&](double v) {
        if (usable(v)) lo_y = std::min(lo_y, v), hi_y = std::max(hi_y, v);
    };
    for (const auto& p : c.points) {
        see_x(p.intensity);
        if (p.intensity_l2) see_x(*p.intensity_l2);
        if (p.intensity_l1) see_x(*p.intensity_l1);
        see_y(p.rate);
    }
    for (const auto& ce : c.ceilings)
        if (!is_memory(ce.id)) {
            see_y(ce.peak);
            if (peaks.count(resource::dram)) see_x(ce.peak / peaks[resource::dram]);  // the ridge point
        }
    if (hi_x <= 0) lo_x = 0.1, hi_x = 100;
    if (hi_y <= 0) lo_y = 1e9, hi_y = 1e14;
    c.layout.x_min = std::floor(std::log10(lo_x));
    c.layout.x_max = std::max(std::ceil(std::log10(hi_x)), c.layout.x_min + 1);
    c.layout.x_min = std::max(c.layout.x_min, c.layout.x_max - max_decades);
    c.layout.y_min = std::floor(std::log10(lo_y));
    c.layout.y_max = std::max(std::ceil(std::log10(hi_y)), c.layout.y_min + 1);
    c.layout.y_min = std::max(c.layout.y_min, c.layout.y_max - max_decades);
}

}  // namespace

chart_data build_chart(const analysis& a) {
    chart_data c;
    std::vector<const analysed_kernel*> all;
    for (const auto& k : a.kernels) all.push_back(&k);
    // An export without FLOP counters (the details page) still has instruction counts.
    if (std::none_of(all.begin(), all.end(), [](const analysed_kernel* k) { return dominant_precision(*k) != nullptr; }))
        c.kind = chart_kind::instructions;
    std::map<resource, double> peaks;
    place(c, all, "", peaks);
    finish(c, peaks);
    c.title = "Roofline: " + a.gpu.name + ", " + std::to_string(c.points.size()) + " of " + std::to_string(a.kernels.size()) +
              (a.kernels.size() == 1 ? " kernel" : " kernels") + " drawn";
    return c;
}

chart_data build_pair_chart(const std::vector<const analysed_kernel*>& naive, const std::vector<const analysed_kernel*>& fixed,
                            const std::string& title) {
    chart_data c;
    bool all_flops = true;
    for (const auto* k : naive) all_flops = all_flops && dominant_precision(*k);
    for (const auto* k : fixed) all_flops = all_flops && dominant_precision(*k);
    c.kind = all_flops ? chart_kind::flops : chart_kind::instructions;
    std::map<resource, double> peaks;
    place(c, naive, "naive", peaks);
    const std::size_t first_fixed = c.points.size();
    place(c, fixed, "fixed", peaks);
    if (first_fixed < c.points.size())
        for (std::size_t i = 0; i < first_fixed; ++i) c.arrows.push_back({i, first_fixed});
    finish(c, peaks);
    c.title = title;
    return c;
}

std::string render_chart(const analysis& a, const print_options&) { return render_chart_svg(a, build_chart(a)); }

namespace {

// One chart being written: the layout and what every part of it reads. Each part writes one group.
struct svg_chart {
    const analysis& a;
    const chart_data& c;
    const chart_layout& L;
    std::ostringstream o;
    double plot_w, plot_h;
    bool flops;
    const char* per_byte;
    const chart_ceiling* dram;  // the DRAM ceiling, if the chart has one (always first)

    svg_chart(const analysis& an, const chart_data& cd)
        : a(an),
          c(cd),
          L(cd.layout),
          plot_w(L.width - L.left - L.right),
          plot_h(L.height - L.top - L.bottom),
          flops(cd.kind == chart_kind::flops),
          per_byte(flops ? " FLOP/B" : " inst/B"),
          dram(cd.ceilings.empty() || cd.ceilings.front().id != resource::dram ? nullptr : &cd.ceilings.front()) {}

    std::string rate(double v) const { return flops ? rate_text(v) : g3(v / 1e9) + " G inst/s"; }
    std::string label(resource id) const { return id == resource::issue ? std::string("issue (4 per SM per clock)") : precision_label(id); }

    void open() {
        o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f2(L.width) << "\" height=\"" << f2(L.height) << "\" viewBox=\"0 0 "
          << f2(L.width) << " " << f2(L.height) << "\" font-family=\"sans-serif\" font-size=\"12\""
          << " data-plot-left=\"" << f2(L.left) << "\" data-plot-top=\"" << f2(L.top) << "\" data-plot-width=\"" << f2(plot_w)
          << "\" data-plot-height=\"" << f2(plot_h) << "\" data-x-decades=\"" << g6(L.x_min) << " " << g6(L.x_max) << "\" data-y-decades=\""
          << g6(L.y_min) << " " << g6(L.y_max) << "\">\n";
    }
    void frame() {
        o << "<title>Roofline of " << xml(a.input) << " on the " << xml(a.gpu.name) << "</title>\n";
        o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
        o << "<text x=\"" << f2(L.left) << "\" y=\"28\" font-size=\"15\" font-weight=\"bold\">" << xml(c.title) << "</text>\n";
        // Clip everything drawn in the plot to it.
        o << "<defs><clipPath id=\"plot\"><rect x=\"" << f2(L.left) << "\" y=\"" << f2(L.top) << "\" width=\"" << f2(plot_w)
          << "\" height=\"" << f2(plot_h) << "\"/></clipPath>"
          << "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
             "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n";
        o << "<rect x=\"" << f2(L.left) << "\" y=\"" << f2(L.top) << "\" width=\"" << f2(plot_w) << "\" height=\"" << f2(plot_h)
          << "\" fill=\"none\" stroke=\"#999\"/>\n";
        // Decades: grid lines and labels.
        o << "<g class=\"axes\" stroke=\"#e3e3e3\">\n";
        for (double d = L.x_min; d <= L.x_max + 1e-9; d += 1) {
            double x = L.px(std::pow(10.0, d));
            o << "<line x1=\"" << f2(x) << "\" y1=\"" << f2(L.top) << "\" x2=\"" << f2(x) << "\" y2=\"" << f2(L.top + plot_h) << "\"/>"
              << "<text x=\"" << f2(x) << "\" y=\"" << f2(L.top + plot_h + 18)
              << "\" text-anchor=\"middle\" stroke=\"none\" fill=\"#333\">1e" << g6(d) << "</text>\n";
        }
        for (double d = L.y_min; d <= L.y_max + 1e-9; d += 1) {
            double y = L.py(std::pow(10.0, d));
            o << "<line x1=\"" << f2(L.left) << "\" y1=\"" << f2(y) << "\" x2=\"" << f2(L.left + plot_w) << "\" y2=\"" << f2(y) << "\"/>"
              << "<text x=\"" << f2(L.left - 6) << "\" y=\"" << f2(y + 4) << "\" text-anchor=\"end\" stroke=\"none\" fill=\"#333\">1e"
              << g6(d) << "</text>\n";
        }
        o << "</g>\n";
        o << "<text x=\"" << f2(L.left + plot_w / 2) << "\" y=\"" << f2(L.height - 18) << "\" text-anchor=\"middle\">"
          << (flops ? "arithmetic intensity (FLOP" : "instruction intensity (warp instructions")
          << " per DRAM byte; open marks: per L2 and L1 byte)</text>\n";
        o << "<text transform=\"translate(20," << f2(L.top + plot_h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
          << (flops ? "FLOP/s of the dominant precision" : "warp instructions per second") << "</text>\n";
    }
    // Ceilings: min(dram x intensity, peak) per precision; the DRAM slope alone up to the top one.
    void ceilings() {
        const double x_lo = std::pow(10.0, L.x_min), x_hi = std::pow(10.0, L.x_max);
        o << "<g class=\"ceilings\" clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"2\">\n";
        double top = 0;
        for (const auto& ce : c.ceilings)
            if (!is_memory(ce.id)) top = std::max(top, ce.peak);
        // The cache levels: dashed (L2) and dotted (L1) slopes up to the highest compute ceiling.
        for (const auto& ce : c.ceilings) {
            if (ce.id != resource::l2 && ce.id != resource::l1) continue;
            const double x_end = top > 0 ? std::min(top / ce.peak, x_hi) : x_hi;
            o << "<polyline class=\"ceiling\"" << attr("data-id", name(ce.id)) << " data-peak=\"" << g6(ce.peak)
              << "\" stroke=\"#888\" stroke-width=\"1.2\""
              << (ce.id == resource::l2 ? " stroke-dasharray=\"6,4\"" : " stroke-dasharray=\"2,3\"") << " points=\"" << f2(L.px(x_lo))
              << "," << f2(L.py(ce.peak * x_lo)) << " " << f2(L.px(x_end)) << "," << f2(L.py(ce.peak * x_end)) << "\"/>\n";
        }
        for (const auto& ce : c.ceilings) {
            if (is_memory(ce.id)) continue;
            double ridge = dram ? ce.peak / dram->peak : x_lo;
            o << "<polyline class=\"ceiling\"" << attr("data-id", name(ce.id)) << " data-peak=\"" << g6(ce.peak)
              << "\" stroke=\"#444\" points=\"";
            if (dram) o << f2(L.px(x_lo)) << "," << f2(L.py(dram->peak * x_lo)) << " ";
            o << f2(L.px(std::max(ridge, x_lo))) << "," << f2(L.py(ce.peak)) << " " << f2(L.px(x_hi)) << "," << f2(L.py(ce.peak))
              << "\"/>\n";
            if (dram)
                o << "<circle class=\"ridge\"" << attr("data-id", name(ce.id)) << " data-intensity=\"" << g6(ridge) << "\" cx=\""
                  << f2(L.px(ridge)) << "\" cy=\"" << f2(L.py(ce.peak)) << "\" r=\"3\" fill=\"#444\"><title>ridge point of " << label(ce.id)
                  << ": " << g6(ridge) << per_byte << "</title></circle>\n";
        }
        o << "</g>\n<g class=\"ceiling-labels\" font-size=\"11\" fill=\"#222\">\n";
        // Compute ceilings: labelled at the right edge, pushed apart so none overlaps the next.
        double last_y = -1e9;
        for (const auto& ce : c.ceilings) {
            if (is_memory(ce.id)) continue;
            double y = std::max(L.py(ce.peak) + 4, last_y + 26);
            last_y = y;
            o << "<text x=\"" << f2(L.left + plot_w + 8) << "\" y=\"" << f2(y) << "\">" << label(ce.id) << " " << rate(ce.peak);
            if (dram)
                o << "<tspan x=\"" << f2(L.left + plot_w + 8) << "\" dy=\"13\" fill=\"#666\">ridge " << g3(ce.peak / dram->peak) << per_byte
                  << "</tspan>";
            o << "</text>\n";
        }
        // Memory levels: along their slopes, near the left end, where the plot shows them.
        const double angle = -std::atan((plot_h / (L.y_max - L.y_min)) / (plot_w / (L.x_max - L.x_min))) * 180.0 / 3.14159265358979;
        for (const auto& ce : c.ceilings) {
            if (!is_memory(ce.id)) continue;
            const double at = ce.id == resource::dram ? 0.15 : ce.id == resource::l2 ? 0.10 : 0.05;
            const double x0 = std::pow(10.0, L.x_min + at * (L.x_max - L.x_min));
            const double y0 = L.py(ce.peak * x0) - 6;
            if (y0 < L.top + 10 || y0 > L.top + plot_h) continue;
            o << "<text transform=\"translate(" << f2(L.px(x0)) << "," << f2(y0) << ") rotate(" << f2(angle) << ")\""
              << (ce.id == resource::dram ? "" : " fill=\"#666\"") << ">"
              << (ce.id == resource::dram ? "DRAM "
                  : ce.id == resource::l2 ? "L2 "
                                          : "L1 ")
              << g3(ce.peak / 1e12) << " TB/s</text>\n";
        }
        o << "</g>\n";
    }
    void kernels() {
        // Kernels: the hierarchical marks first, then the DRAM points over them, largest first.
        const double r_max = 22.0;
        std::vector<const chart_point*> order;
        for (const auto& p : c.points) order.push_back(&p);
        std::stable_sort(order.begin(), order.end(),
                         [](const chart_point* x, const chart_point* y) { return x->kernel->share > y->kernel->share; });
        o << "<g class=\"kernels\" clip-path=\"url(#plot)\">\n";
        for (const chart_point* p : order) {
            const analysed_kernel& k = *p->kernel;
            const std::string name = short_name(k.group.name);
            const double x = L.px(p->intensity), y = L.py(p->rate);
            // A lesson's chart shows two kernels, not a workload: one size for both.
            const double r = p->role.empty() ? std::max(2.5, r_max * std::sqrt(k.share)) : 7.0;
            const char* colour = bound_hex_colour(k.verdict.bound);
            std::vector<std::pair<std::string, double>> levels;
            if (p->intensity_l2) levels.push_back({"l2", *p->intensity_l2});
            if (p->intensity_l1) levels.push_back({"l1", *p->intensity_l1});
            if (!levels.empty()) {
                double lo = p->intensity, hi = p->intensity;
                for (const auto& [lv, v] : levels) lo = std::min(lo, v), hi = std::max(hi, v);
                o << "<line class=\"hierarchy\" x1=\"" << f2(L.px(lo)) << "\" y1=\"" << f2(y) << "\" x2=\"" << f2(L.px(hi)) << "\" y2=\""
                  << f2(y) << "\" stroke=\"" << colour << "\" stroke-opacity=\"0.5\"/>\n";
                for (const auto& [lv, v] : levels)
                    o << "<circle class=\"level\"" << attr("data-kernel", name) << attr("data-level", lv) << " data-intensity=\"" << g6(v)
                      << "\" cx=\"" << f2(L.px(v)) << "\" cy=\"" << f2(y) << "\" r=\"3\" fill=\"white\" stroke=\"" << colour << "\"><title>"
                      << xml(name) << " at " << (lv == "l2" ? "L2" : "L1") << ": " << g6(v) << per_byte << "</title></circle>\n";
            }
            o << "<circle class=\"kernel\"" << attr("data-kernel", name)
              << attr("data-precision", flops ? roofline::name(p->precision) : "inst") << " data-intensity=\"" << g6(p->intensity)
              << "\" data-rate=\"" << g6(p->rate) << "\" data-share=\"" << g6(k.share) << "\""
              << attr("data-bound", roofline::name(k.verdict.bound)) << " cx=\"" << f2(x) << "\" cy=\"" << f2(y) << "\" r=\"" << f2(r)
              << "\" fill=\"" << colour << "\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.6\"><title>"
              << (p->role.empty() ? "" : p->role + ": ") << xml(name) << ": " << format_duration_ns(k.roof.duration_ns) << " ("
              << format_percent(k.share) << " of the time), " << rate(p->rate) << " "
              << (flops ? precision_label(p->precision) + " " : std::string()) << "at " << g6(p->intensity) << per_byte << ", "
              << format_percent(k.roof.pct_of_roof / 100.0) << " of its roof, " << xml(verdict_text(k.verdict)) << "</title></circle>\n";
        }
        for (const auto& [from, to] : c.arrows) {
            const chart_point& a0 = c.points[from];
            const chart_point& a1 = c.points[to];
            double x0 = L.px(a0.intensity), y0 = L.py(a0.rate), x1 = L.px(a1.intensity), y1 = L.py(a1.rate);
            const double len = std::hypot(x1 - x0, y1 - y0);
            if (len < 20) continue;  // the points nearly coincide: nothing to point at
            const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
            o << "<line class=\"arrow\" x1=\"" << f2(x0 + 9 * ux) << "\" y1=\"" << f2(y0 + 9 * uy) << "\" x2=\"" << f2(x1 - 9 * ux)
              << "\" y2=\"" << f2(y1 - 9 * uy) << "\" stroke=\"#333\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n";
        }
        o << "</g>\n";
    }
    void roles() {
        // A lesson's labels, outside the clip: right of the point, or left of it near the right edge.
        // One label per role: a run of naive kernels (a fusion chain) is named once, on its first point.
        for (std::size_t i = 0; i < c.points.size(); ++i)
            if (const auto& p = c.points[i]; !p.role.empty() && (i == 0 || c.points[i - 1].role != p.role)) {
                std::string names;
                for (std::size_t j = i; j < c.points.size() && c.points[j].role == p.role; ++j)
                    names += (names.empty() ? "" : " + ") + plain_name(c.points[j].kernel->group.name);
                const double x = L.px(p.intensity);
                const bool left_of = x > L.left + 0.7 * plot_w;
                o << "<text class=\"role\" x=\"" << f2(left_of ? x - 10 : x + 10) << "\" y=\"" << f2(L.py(p.rate) - 10)
                  << "\" font-size=\"11\"" << (left_of ? " text-anchor=\"end\"" : "") << ">" << p.role << ": " << xml(names) << "</text>\n";
            }
    }
    void legend() {
        // Legend: colours by bound.
        double ly = L.top + plot_h - 5 * 16;
        o << "<g class=\"legend\" font-size=\"11\">\n";
        for (bound b : all_bounds()) {
            if (b == bound::unknown) continue;  // an unplaced kernel is not drawn
            o << "<circle cx=\"" << f2(L.left + plot_w + 14) << "\" cy=\"" << f2(ly) << "\" r=\"5\" fill=\"" << bound_hex_colour(b)
              << "\"/><text x=\"" << f2(L.left + plot_w + 24) << "\" y=\"" << f2(ly + 4) << "\">" << name(b) << "</text>\n";
            ly += 16;
        }
        o << "</g>\n";
    }
    void not_drawn() {
        if (!c.not_drawn.empty()) {
            o << "<text x=\"" << f2(L.left) << "\" y=\"" << f2(L.height - 4) << "\" font-size=\"10\" fill=\"#555\">Not drawn: ";
            std::string list;
            for (std::size_t i = 0; i < c.not_drawn.size() && i < 3; ++i) list += (i ? ", " : "") + c.not_drawn[i];
            if (c.not_drawn.size() > 3) list += ", and " + std::to_string(c.not_drawn.size() - 3) + " more with no FLOPs or no DRAM bytes";
            o << xml(list) << "</text>\n";
        }
    }
};

}  // namespace

std::string render_chart_svg(const analysis& a, const chart_data& c) {
    svg_chart s(a, c);
    s.open();
    s.frame();
    s.ceilings();
    s.kernels();
    s.roles();
    s.legend();
    s.not_drawn();
    s.o << "</svg>\n";
    return s.o.str();
}

}  // namespace roofline
