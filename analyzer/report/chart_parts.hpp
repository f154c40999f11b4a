// What the chart's layout (chart_build.cpp) and its writer (chart_svg.cpp) share: the sizes, the
// labels of ceilings, and which precision a kernel is drawn by. Not for callers outside the chart.
#pragma once

#include "analyzer/report/chart_svg.hpp"

#include <string>

namespace roofline::chart_detail {

// Sizes shared by the layout and the writer.
inline constexpr double r_max = 22.0;  // a kernel with all the time
inline constexpr double title_y = 24, panel_title_y = 46, plot_top = 56, plot_h = 400;
inline constexpr double ceiling_font = 11, caption_font = 11, caption_line = 15, margin = 14;

std::string three_significant(double value);     // three significant digits
std::string precision_label(resource id);        // "FP32", "tensor BF16"
std::string level_label(resource id);            // "DRAM", "L2", "L1"
std::string rate_text(double flops_per_s);       // "54.7 TFLOP/s"
std::string bandwidth_text(double bytes_per_s);  // "3.35 TB/s"
bool is_memory(resource id);
// A point's radius: area proportional to the kernel's share of the time (a lesson's two kernels: one size).
double radius(double share, bool lesson);
// The precision with the most work, or nullptr for a kernel with no FLOPs.
const resource_use* dominant_precision(const kernel_result& kernel);
std::string ceiling_label(const chart_data& chart, resource id, double peak);  // "FP32 54.7 TFLOP/s", "DRAM 3.35 TB/s"
std::string ridge_label(const chart_data& chart, double ridge);                // "ridge 16.3 FLOP/B"
const chart_ceiling* find_ceiling(const chart_data& chart, resource id);       // nullptr where the chart has none

}  // namespace roofline::chart_detail
