// The roofline chart of an analysis as a self-contained SVG (no script, no external file):
// log-log axes with labelled decades, the DRAM ceiling and one ceiling per precision the workload
// uses, each with its value and ridge point; each kernel a point at its DRAM arithmetic intensity
// and achieved rate of its dominant precision, its area proportional to its share of the time,
// coloured by bound, with a hover title; and the same kernel at its L2 and L1 intensity, joined
// (the hierarchical view). The layout numbers are exposed as data-* attributes so tests can check
// every point to the pixel. Pure: the same analysis gives the same bytes.
#pragma once

#include "analysis.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct chart_point {
    const kernel_result* kernel = nullptr;
    std::string precision;   // the dominant precision: fp32, tensor_bf16, ...
    double intensity = 0.0;  // its FLOPs per DRAM byte
    double rate = 0.0;       // its FLOPs per second
    std::optional<double> intensity_l2, intensity_l1;
};

struct chart_ceiling {
    std::string id;       // dram, fp32, ...
    double peak = 0.0;    // bytes/s for dram, FLOP/s for precisions: the highest over the capture's kernels
};

struct chart_layout {
    double width = 900, height = 560, left = 80, right = 200, top = 48, bottom = 64;
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;  // data range, decades
    double px(double intensity) const;
    double py(double rate) const;
};

struct chart_data {
    std::vector<chart_point> points;
    std::vector<chart_ceiling> ceilings;  // dram first, then precisions by peak
    std::vector<std::string> not_drawn;   // kernels without FLOPs or DRAM bytes, with why
    chart_layout layout;
};

chart_data build_chart(const analysis& a);
std::string render_chart_svg(const analysis& a, const chart_data& c);

}  // namespace roofline
