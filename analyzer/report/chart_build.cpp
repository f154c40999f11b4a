// Where each kernel goes on the chart (the roofline, the memory panel, or the list of those not
// drawn), the ceilings, the axes' decades and the panels' sizes.
#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/chart_labels.hpp"
#include "analyzer/report/chart_parts.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline {
namespace chart_detail {

std::string three_significant(double v) { return significant(v, 3); }

std::string precision_label(resource id) {
    std::string s = name(id);
    for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (s.rfind("TENSOR_", 0) == 0) s = "tensor " + s.substr(7);
    return s;
}

std::string level_label(resource id) { return id == resource::dram ? "DRAM" : id == resource::l2 ? "L2" : "L1"; }

std::string rate_text(double flops_per_s) { return three_significant(flops_per_s / 1e12) + " TFLOP/s"; }
std::string bandwidth_text(double bytes_per_s) { return format_si(bytes_per_s, "B/s"); }

bool is_memory(resource id) { return info(id).kind == resource_kind::memory; }

double radius(double share, bool lesson) { return lesson ? 7.0 : std::max(2.5, r_max * std::sqrt(share)); }

const resource_use* dominant_precision(const kernel_result& k) {
    const resource_use* dominant = nullptr;
    for (const auto& r : k.roof.resources)
        // A rate stated in whole percent places no point: the chart draws counted work.
        if (info(r.id).precision && r.work > 0 && r.useful_from != useful_basis::stated_rate &&
            (!dominant || r.work > dominant->work))
            dominant = &r;
    return dominant;
}

std::string ceiling_label(const chart_data& c, resource id, double peak) {
    if (is_memory(id)) return level_label(id) + " " + bandwidth_text(peak);
    if (id == resource::issue) return "issue (4 per SM per clock) " + three_significant(peak / 1e9) + " G inst/s";
    return precision_label(id) + " " +
           (c.kind == chart_kind::flops ? rate_text(peak) : three_significant(peak / 1e9) + " G inst/s");
}

std::string ridge_label(const chart_data& c, double ridge) {
    return "ridge " + three_significant(ridge) + (c.kind == chart_kind::flops ? " FLOP/B" : " inst/B");
}

const chart_ceiling* find_ceiling(const chart_data& c, resource id) {
    for (const auto& ce : c.ceilings)
        if (ce.id == id) return &ce;
    return nullptr;
}

}  // namespace chart_detail

using namespace chart_detail;

double chart_layout::px(double x) const { return left + (std::log10(x) - x_min) / (x_max - x_min) * plot_w; }

double chart_layout::py(double y) const { return top + plot_h * (1.0 - (std::log10(y) - y_min) / (y_max - y_min)); }

namespace {

// The most decades an axis spans: real kernels span about ten (intensity 1e-3..1e4, rates
// 1e8..1e16); a point beyond falls outside the plot (clipped) rather than flattening the rest.
constexpr double max_decades = 24;

bool positive(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0; }

// Each kernel onto the roofline if it has work and DRAM bytes, else onto the memory panel if it
// moved bytes at some level, else into the list of those not drawn, with why.
void place(chart_data& c, const std::vector<const analysed_kernel*>& kernels, const std::vector<std::size_t>& numbers,
           const std::string& role, std::map<resource, double>& peaks) {
    auto see = [&peaks](resource id, double peak) {
        if (peak > 0) peaks[id] = std::max(peaks[id], peak);
    };
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const analysed_kernel& k = *kernels[i];
        const std::size_t number = numbers.empty() ? 0 : numbers[i];
        for (const auto& r : k.roof.resources)
            if (info(r.id).precision || r.id == resource::dram) see(r.id, r.peak);
        see(resource::l2, k.roof.peak_l2_bytes_per_s.value_or(0.0));
        see(resource::l1, k.roof.peak_l1_bytes_per_s.value_or(0.0));
        std::optional<double> work;
        resource what = resource::issue;
        if (c.kind == chart_kind::flops) {
            if (const resource_use* d = dominant_precision(k)) work = d->work, what = d->id;
        } else {
            work = k.roof.warp_instructions;
            see(resource::issue, k.roof.issue_peak_per_s);
        }
        const bool timed = k.roof.placed && k.roof.duration_ns > 0;
        if (timed && positive(work) && positive(k.roof.bytes_dram)) {
            chart_point p;
            p.kernel = &k;
            p.number = number;
            p.precision = what;
            p.role = role;
            p.intensity = *work / *k.roof.bytes_dram;
            p.rate = *work / (k.roof.duration_ns * 1e-9);
            if (positive(k.roof.bytes_l2)) p.intensity_l2 = *work / *k.roof.bytes_l2;
            if (positive(k.roof.bytes_l1)) p.intensity_l1 = *work / *k.roof.bytes_l1;
            c.points.push_back(p);
        } else if (timed && (positive(k.roof.bytes_dram) || positive(k.roof.bytes_l2) || positive(k.roof.bytes_l1))) {
            memory_point m;
            m.kernel = &k;
            m.number = number;
            m.role = role;
            m.seconds = k.roof.duration_ns * 1e-9;
            if (positive(k.roof.bytes_dram)) m.dram = *k.roof.bytes_dram / m.seconds;
            if (positive(k.roof.bytes_l2)) m.l2 = *k.roof.bytes_l2 / m.seconds;
            if (positive(k.roof.bytes_l1)) m.l1 = *k.roof.bytes_l1 / m.seconds;
            c.memory.push_back(m);
        } else {
            c.not_drawn.push_back({number, short_name(k.group.name),
                                   !k.roof.placed ? "not placed: the capture lacks " + lacking_text(k.roof.missing)
                                   : !timed       ? "no time"
                                                  : "no bytes at any memory level"});
        }
    }
}

// Whole decades around every value given (positive and finite only: a counter of 1e300 or a zero
// clock in a spec must not stretch an axis without end), at most max_decades.
void decades(const std::vector<double>& values, double& lo_d, double& hi_d, double lo_default, double hi_default) {
    double lo = 1e300, hi = 0;
    for (double v : values)
        if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    if (hi <= 0) lo = lo_default, hi = hi_default;
    lo_d = std::floor(std::log10(lo));
    hi_d = std::max(std::ceil(std::log10(hi)), lo_d + 1);
    lo_d = std::max(lo_d, hi_d - max_decades);
}

// Ceilings and axes from the points, then where each panel goes: widths follow the longest
// ceiling label, so none is clipped.
void finish(chart_data& c, std::map<resource, double>& peaks) {
    for (resource level : {resource::dram, resource::l2, resource::l1})
        if (peaks.count(level)) c.ceilings.push_back({level, peaks[level]});
    std::vector<chart_ceiling> work;
    for (const auto& p : c.points) {
        const resource id = c.kind == chart_kind::flops ? p.precision : resource::issue;
        if (peaks.count(id) &&
            std::none_of(work.begin(), work.end(), [&](const chart_ceiling& x) { return x.id == id; }))
            work.push_back({id, peaks[id]});
    }
    std::sort(work.begin(), work.end(), [](const chart_ceiling& x, const chart_ceiling& y) {
        return x.peak != y.peak ? x.peak > y.peak : std::string(name(x.id)) < name(y.id);
    });
    c.ceilings.insert(c.ceilings.end(), work.begin(), work.end());
    const chart_ceiling* dram = find_ceiling(c, resource::dram);

    c.memory_panel = !c.memory.empty();
    c.roofline_panel = !c.points.empty() || !c.memory_panel;

    // The roofline's range: every point, every level mark and every ridge point.
    std::vector<double> xs, ys;
    for (const auto& p : c.points) {
        xs.push_back(p.intensity);
        if (p.intensity_l2) xs.push_back(*p.intensity_l2);
        if (p.intensity_l1) xs.push_back(*p.intensity_l1);
        ys.push_back(p.rate);
    }
    for (const auto& ce : work) {
        ys.push_back(ce.peak);
        if (dram) xs.push_back(ce.peak / dram->peak);
    }
    decades(xs, c.roof.x_min, c.roof.x_max, 0.1, 100);
    decades(ys, c.roof.y_min, c.roof.y_max, 1e9, 1e14);
    // The memory panel's: every kernel's time, every level's rate and ceiling.
    xs.clear(), ys.clear();
    for (const auto& m : c.memory) {
        xs.push_back(m.seconds);
        for (const auto& v : {m.dram, m.l2, m.l1})
            if (v) ys.push_back(*v);
    }
    for (const auto& ce : c.ceilings)
        if (is_memory(ce.id)) ys.push_back(ce.peak);
    decades(xs, c.mem.x_min, c.mem.x_max, 1e-6, 1e-3);
    decades(ys, c.mem.y_min, c.mem.y_max, 1e9, 1e13);

    // Across: the roofline, its ceiling labels, then the memory panel and its ceiling labels.
    double x = 0;
    auto column = [&](bool memory_levels) {
        double w = 0;
        for (const auto& ce : c.ceilings)
            if (is_memory(ce.id) == memory_levels) {
                w = std::max(w, text_width(ceiling_label(c, ce.id, ce.peak), ceiling_font));
                if (!memory_levels && dram)
                    w = std::max(w, text_width(ridge_label(c, ce.peak / dram->peak), ceiling_font));
            }
        return w + 8 + margin;
    };
    if (c.roofline_panel) {
        c.roof.left = 80, c.roof.top = plot_top, c.roof.plot_h = plot_h;
        // Beside the memory panel, the two share the width by how many kernels each holds.
        const double share = double(c.points.size()) / double(c.points.size() + c.memory.size());
        c.roof.plot_w = c.memory_panel ? std::clamp(std::round(820 * share), 440.0, 520.0) : 560;
        x = c.roof.left + c.roof.plot_w + column(false);
    }
    if (c.memory_panel) {
        c.mem.left = x + 90, c.mem.top = plot_top, c.mem.plot_h = plot_h;
        c.mem.plot_w = c.roofline_panel ? 820 - c.roof.plot_w : 560;
        x = c.mem.left + c.mem.plot_w + column(true);
    }
    c.width = std::ceil(std::max(x, text_width(c.title, 15, true) + 2 * margin));
}

std::vector<std::size_t> ranks(const analysis& a) {
    std::vector<std::size_t> n(a.kernels.size());
    for (std::size_t i = 0; i < n.size(); ++i) n[i] = i + 1;
    return n;
}

}  // namespace

chart_data build_chart(const analysis& a) {
    chart_data c;
    std::vector<const analysed_kernel*> all;
    for (const auto& k : a.kernels) all.push_back(&k);
    // An export without FLOP counters (the details page) still has instruction counts.
    if (std::none_of(all.begin(), all.end(),
                     [](const analysed_kernel* k) { return dominant_precision(*k) != nullptr; }))
        c.kind = chart_kind::instructions;
    c.kernels = a.kernels.size();
    c.title = "Roofline: " + a.gpu.name + ", " + std::to_string(a.kernels.size()) +
              (a.kernels.size() == 1 ? " kernel" : " kernels");
    std::map<resource, double> peaks;
    place(c, all, ranks(a), "", peaks);
    if (!c.not_drawn.empty()) c.title += ", " + std::to_string(c.not_drawn.size()) + " not drawn";
    finish(c, peaks);
    return c;
}

void chart_place(chart_data& c, const std::vector<const analysed_kernel*>& kernels,
                 const std::vector<std::size_t>& numbers, const std::string& role, std::map<resource, double>& peaks) {
    place(c, kernels, numbers, role, peaks);
}

void chart_finish(chart_data& c, std::map<resource, double>& peaks) { finish(c, peaks); }

}  // namespace roofline
