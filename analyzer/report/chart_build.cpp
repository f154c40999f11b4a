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

std::string three_significant(double value) { return significant(value, 3); }

std::string precision_label(resource id) {
    std::string text = name(id);
    for (auto& ch : text) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    if (text.rfind("TENSOR_", 0) == 0) text = "tensor " + text.substr(7);
    return text;
}

std::string level_label(resource id) { return id == resource::dram ? "DRAM" : id == resource::l2 ? "L2" : "L1"; }

std::string rate_text(double flops_per_s) { return three_significant(flops_per_s / 1e12) + " TFLOP/s"; }
std::string bandwidth_text(double bytes_per_s) { return format_si(bytes_per_s, "B/s"); }

bool is_memory(resource id) { return info(id).kind == resource_kind::memory; }

double radius(double share, bool lesson) { return lesson ? 7.0 : std::max(2.5, r_max * std::sqrt(share)); }

const resource_use* dominant_precision(const kernel_result& kernel) {
    const resource_use* dominant = nullptr;
    for (const auto& use : kernel.roof.resources)
        // A rate stated in whole percent places no point: the chart draws counted work.
        if (info(use.id).precision && use.work > 0 && use.useful_from != useful_basis::stated_rate &&
            (!dominant || use.work > dominant->work))
            dominant = &use;
    return dominant;
}

std::string ceiling_label(const chart_data& chart, resource id, double peak) {
    if (is_memory(id)) return level_label(id) + " " + bandwidth_text(peak);
    if (id == resource::issue) return "issue (4 per SM per clock) " + three_significant(peak / 1e9) + " G inst/s";
    return precision_label(id) + " " +
           (chart.kind == chart_kind::flops ? rate_text(peak) : three_significant(peak / 1e9) + " G inst/s");
}

std::string ridge_label(const chart_data& chart, double ridge) {
    return "ridge " + three_significant(ridge) + (chart.kind == chart_kind::flops ? " FLOP/B" : " inst/B");
}

const chart_ceiling* find_ceiling(const chart_data& chart, resource id) {
    for (const auto& ce : chart.ceilings)
        if (ce.id == id) return &ce;
    return nullptr;
}

}  // namespace chart_detail

using namespace chart_detail;

double chart_layout::px(double data_x) const { return left + (std::log10(data_x) - x_min) / (x_max - x_min) * plot_w; }

double chart_layout::py(double data_y) const {
    return top + plot_h * (1.0 - (std::log10(data_y) - y_min) / (y_max - y_min));
}

namespace {

// The most decades an axis spans: real kernels span about ten (intensity 1e-3..1e4, rates
// 1e8..1e16); a point beyond falls outside the plot (clipped) rather than flattening the rest.
constexpr double max_decades = 24;

bool positive(const std::optional<double>& value) { return value && std::isfinite(*value) && *value > 0; }

// Each kernel onto the roofline if it has work and DRAM bytes, else onto the memory panel if it
// moved bytes at some level, else into the list of those not drawn, with why.
void place(chart_data& chart, const std::vector<const analysed_kernel*>& kernels,
           const std::vector<std::size_t>& numbers, const std::string& role, std::map<resource, double>& peaks) {
    auto see = [&peaks](resource id, double peak) {
        if (peak > 0) peaks[id] = std::max(peaks[id], peak);
    };
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const analysed_kernel& kernel = *kernels[i];
        const std::size_t number = numbers.empty() ? 0 : numbers[i];
        for (const auto& use : kernel.roof.resources)
            if (info(use.id).precision || use.id == resource::dram) see(use.id, use.peak);
        see(resource::l2, kernel.roof.peak_l2_bytes_per_s.value_or(0.0));
        see(resource::l1, kernel.roof.peak_l1_bytes_per_s.value_or(0.0));
        std::optional<double> work;
        resource what = resource::issue;
        if (chart.kind == chart_kind::flops) {
            if (const resource_use* dominant = dominant_precision(kernel)) work = dominant->work, what = dominant->id;
        } else {
            work = kernel.roof.warp_instructions;
            see(resource::issue, kernel.roof.issue_peak_per_s);
        }
        const bool timed = kernel.roof.placed && kernel.roof.duration_ns > 0;
        if (timed && positive(work) && positive(kernel.roof.bytes_dram)) {
            chart_point point;
            point.kernel = &kernel;
            point.number = number;
            point.precision = what;
            point.role = role;
            point.intensity = *work / *kernel.roof.bytes_dram;
            point.rate = *work / (kernel.roof.duration_ns * 1e-9);
            if (positive(kernel.roof.bytes_l2)) point.intensity_l2 = *work / *kernel.roof.bytes_l2;
            if (positive(kernel.roof.bytes_l1)) point.intensity_l1 = *work / *kernel.roof.bytes_l1;
            chart.points.push_back(point);
        } else if (timed && (positive(kernel.roof.bytes_dram) || positive(kernel.roof.bytes_l2) ||
                             positive(kernel.roof.bytes_l1))) {
            memory_point mem_point;
            mem_point.kernel = &kernel;
            mem_point.number = number;
            mem_point.role = role;
            mem_point.seconds = kernel.roof.duration_ns * 1e-9;
            if (positive(kernel.roof.bytes_dram)) mem_point.dram = *kernel.roof.bytes_dram / mem_point.seconds;
            if (positive(kernel.roof.bytes_l2)) mem_point.l2 = *kernel.roof.bytes_l2 / mem_point.seconds;
            if (positive(kernel.roof.bytes_l1)) mem_point.l1 = *kernel.roof.bytes_l1 / mem_point.seconds;
            chart.memory.push_back(mem_point);
        } else {
            chart.not_drawn.push_back({number, short_name(kernel.group.name),
                                       !kernel.roof.placed
                                           ? "not placed: the capture lacks " + lacking_text(kernel.roof.missing)
                                       : !timed ? "no time"
                                                : "no bytes at any memory level"});
        }
    }
}

// Whole decades around every value given (positive and finite only: a counter of 1e300 or a zero
// clock in a spec must not stretch an axis without end), at most max_decades.
void decades(const std::vector<double>& values, double& lo_d, double& hi_d, double lo_default, double hi_default) {
    double lo = 1e300, hi = 0;
    for (double value : values)
        if (std::isfinite(value) && value > 0) lo = std::min(lo, value), hi = std::max(hi, value);
    if (hi <= 0) lo = lo_default, hi = hi_default;
    lo_d = std::floor(std::log10(lo));
    hi_d = std::max(std::ceil(std::log10(hi)), lo_d + 1);
    lo_d = std::max(lo_d, hi_d - max_decades);
}

// Ceilings and axes from the points, then where each panel goes: widths follow the longest
// ceiling label, so none is clipped.
void finish(chart_data& chart, std::map<resource, double>& peaks) {
    for (resource level : {resource::dram, resource::l2, resource::l1})
        if (peaks.count(level)) chart.ceilings.push_back({level, peaks[level]});
    std::vector<chart_ceiling> work;
    for (const auto& point : chart.points) {
        const resource id = chart.kind == chart_kind::flops ? point.precision : resource::issue;
        if (peaks.count(id) &&
            std::none_of(work.begin(), work.end(), [&](const chart_ceiling& ceiling) { return ceiling.id == id; }))
            work.push_back({id, peaks[id]});
    }
    std::sort(work.begin(), work.end(), [](const chart_ceiling& left, const chart_ceiling& right) {
        return left.peak != right.peak ? left.peak > right.peak : std::string(name(left.id)) < name(right.id);
    });
    chart.ceilings.insert(chart.ceilings.end(), work.begin(), work.end());
    const chart_ceiling* dram = find_ceiling(chart, resource::dram);

    chart.memory_panel = !chart.memory.empty();
    chart.roofline_panel = !chart.points.empty() || !chart.memory_panel;

    // The roofline's range: every point, every level mark and every ridge point.
    std::vector<double> xs, ys;
    for (const auto& point : chart.points) {
        xs.push_back(point.intensity);
        if (point.intensity_l2) xs.push_back(*point.intensity_l2);
        if (point.intensity_l1) xs.push_back(*point.intensity_l1);
        ys.push_back(point.rate);
    }
    for (const auto& ce : work) {
        ys.push_back(ce.peak);
        if (dram) xs.push_back(ce.peak / dram->peak);
    }
    decades(xs, chart.roof.x_min, chart.roof.x_max, 0.1, 100);
    decades(ys, chart.roof.y_min, chart.roof.y_max, 1e9, 1e14);
    // The memory panel's: every kernel's time, every level's rate and ceiling.
    xs.clear(), ys.clear();
    for (const auto& point : chart.memory) {
        xs.push_back(point.seconds);
        for (const auto& level_rate : {point.dram, point.l2, point.l1})
            if (level_rate) ys.push_back(*level_rate);
    }
    for (const auto& ce : chart.ceilings)
        if (is_memory(ce.id)) ys.push_back(ce.peak);
    decades(xs, chart.mem.x_min, chart.mem.x_max, 1e-6, 1e-3);
    decades(ys, chart.mem.y_min, chart.mem.y_max, 1e9, 1e13);

    // Across: the roofline, its ceiling labels, then the memory panel and its ceiling labels.
    double right_edge = 0;
    auto column = [&](bool memory_levels) {
        double column_w = 0;
        for (const auto& ce : chart.ceilings)
            if (is_memory(ce.id) == memory_levels) {
                column_w = std::max(column_w, text_width(ceiling_label(chart, ce.id, ce.peak), ceiling_font));
                if (!memory_levels && dram)
                    column_w = std::max(column_w, text_width(ridge_label(chart, ce.peak / dram->peak), ceiling_font));
            }
        return column_w + 8 + margin;
    };
    if (chart.roofline_panel) {
        chart.roof.left = 80, chart.roof.top = plot_top, chart.roof.plot_h = plot_h;
        // Beside the memory panel, the two share the width by how many kernels each holds.
        const double share = double(chart.points.size()) / double(chart.points.size() + chart.memory.size());
        chart.roof.plot_w = chart.memory_panel ? std::clamp(std::round(820 * share), 440.0, 520.0) : 560;
        right_edge = chart.roof.left + chart.roof.plot_w + column(false);
    }
    if (chart.memory_panel) {
        chart.mem.left = right_edge + 90, chart.mem.top = plot_top, chart.mem.plot_h = plot_h;
        chart.mem.plot_w = chart.roofline_panel ? 820 - chart.roof.plot_w : 560;
        right_edge = chart.mem.left + chart.mem.plot_w + column(true);
    }
    chart.width = std::ceil(std::max(right_edge, text_width(chart.title, 15, true) + 2 * margin));
}

std::vector<std::size_t> ranks(const analysis& analysed) {
    std::vector<std::size_t> numbers(analysed.kernels.size());
    for (std::size_t i = 0; i < numbers.size(); ++i) numbers[i] = i + 1;
    return numbers;
}

}  // namespace

chart_data build_chart(const analysis& analysed) {
    chart_data chart;
    std::vector<const analysed_kernel*> all;
    for (const auto& kernel : analysed.kernels) all.push_back(&kernel);
    // An export without FLOP counters (the details page) still has instruction counts.
    if (std::none_of(all.begin(), all.end(),
                     [](const analysed_kernel* kernel) { return dominant_precision(*kernel) != nullptr; }))
        chart.kind = chart_kind::instructions;
    chart.kernels = analysed.kernels.size();
    chart.title = "Roofline: " + analysed.gpu.name + ", " + std::to_string(analysed.kernels.size()) +
                  (analysed.kernels.size() == 1 ? " kernel" : " kernels");
    std::map<resource, double> peaks;
    place(chart, all, ranks(analysed), "", peaks);
    if (!chart.not_drawn.empty()) chart.title += ", " + std::to_string(chart.not_drawn.size()) + " not drawn";
    finish(chart, peaks);
    return chart;
}

void chart_place(chart_data& chart, const std::vector<const analysed_kernel*>& kernels,
                 const std::vector<std::size_t>& numbers, const std::string& role, std::map<resource, double>& peaks) {
    place(chart, kernels, numbers, role, peaks);
}

void chart_finish(chart_data& chart, std::map<resource, double>& peaks) { finish(chart, peaks); }

}  // namespace roofline
