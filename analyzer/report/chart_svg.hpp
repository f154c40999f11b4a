// The roofline chart of an analysis as a self-contained SVG (no script, no external file):
// log-log axes with labelled decades, the DRAM ceiling and one ceiling per precision the workload
// uses, each with its value and ridge point; each kernel a point at its DRAM arithmetic intensity
// and achieved rate of its dominant precision, its area proportional to its share of the time,
// coloured by bound, with a hover title; and the same kernel at its L2 and L1 intensity, joined
// (the hierarchical view). The layout numbers are exposed as data-* attributes so tests can check
// every point to the pixel. Pure: the same analysis gives the same bytes.
#pragma once

#include "analyzer/pipeline/analysis.hpp"
#include "models/resources.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct chart_point {
    const analysed_kernel* kernel = nullptr;
    resource precision = resource::issue;  // the dominant precision (fp32, tensor_bf16, ...); issue on an instruction chart
    double intensity = 0.0;                // its work per DRAM byte
    double rate = 0.0;                     // its work per second
    std::optional<double> intensity_l2, intensity_l1;
    std::string role;  // on a lesson's chart: "naive" or "fixed"
};

struct chart_ceiling {
    resource id;        // dram, l2, l1, fp32, ..., issue
    double peak = 0.0;  // bytes/s for dram, work/s for the others: the highest over the chart's kernels
};

// FLOP chart: work = the dominant precision's FLOPs. Instruction chart (for kernels that do no
// floating-point work, like a copy or a gather): work = warp instructions (smsp__inst_executed.sum),
// under the issue ceiling of 4 warp instructions per clock per SM (one per scheduler) and DRAM.
enum class chart_kind { flops, instructions };

struct chart_layout {
    double width = 900, height = 560, left = 80, right = 200, top = 48, bottom = 64;
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;  // data range, decades
    double px(double intensity) const;
    double py(double rate) const;
};

struct chart_data {
    chart_kind kind = chart_kind::flops;
    std::string title;
    std::vector<chart_point> points;
    std::vector<std::pair<std::size_t, std::size_t>> arrows;  // from point, to point (a lesson's naive -> fixed)
    std::vector<chart_ceiling> ceilings;                      // dram first, then precisions by peak
    std::vector<std::string> not_drawn;                       // kernels without FLOPs or DRAM bytes, with why
    chart_layout layout;
};

// The report's chart: every kernel of the analysis with FLOPs and DRAM bytes; an instruction chart
// when the export counts no FLOPs at all (the details page).
chart_data build_chart(const analysis& a);
// A lesson's chart: the naive kernels and the fixed ones, arrows from each naive to the first fixed;
// a FLOP chart when all of them do floating-point work, else an instruction chart.
chart_data build_pair_chart(const std::vector<const analysed_kernel*>& naive, const std::vector<const analysed_kernel*>& fixed,
                            const std::string& title);
std::string render_chart_svg(const analysis& a, const chart_data& c);

}  // namespace roofline
