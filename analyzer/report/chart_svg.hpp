// The chart of an analysis as a self-contained SVG (no script, no external file), every kernel on
// it once, numbered by its row in the report's summary table:
// - the roofline panel: log-log axes with labelled decades, the DRAM ceiling and one ceiling per
//   precision the workload uses, each with its value and ridge point; each kernel that does
//   floating-point work a point at its DRAM arithmetic intensity and achieved rate of its dominant
//   precision, and the same kernel at its L2 and L1 intensity, joined (the hierarchical view);
// - the memory panel, beside it, for the kernels the roofline cannot place (no FLOPs: copies,
//   transposes; or no DRAM bytes): each at its total time and the bytes per second it moved at
//   DRAM, L2 and L1, under each level's ceiling.
// A point's area is its share of the time, its colour its bound; labels are set clear of every
// point and of each other, and any that find no room are listed in the caption. The layout
// numbers are exposed as data-* attributes so tests can check every point to the pixel. Pure: the
// same analysis gives the same bytes.
#pragma once

#include "analyzer/pipeline/analysis.hpp"
#include "models/resources.hpp"

#include <optional>
#include <map>
#include <string>
#include <vector>

namespace roofline {

struct chart_point {
    const analysed_kernel* kernel = nullptr;
    std::size_t number = 0;  // its row in the summary table (1: the most time); 0 on a lesson's chart
    resource precision =
        resource::issue;     // the dominant precision (fp32, tensor_bf16, ...); issue on an instruction chart
    double intensity = 0.0;  // its work per DRAM byte
    double rate = 0.0;       // its work per second
    std::optional<double> intensity_l2, intensity_l1;
    std::string role;  // on a lesson's chart: "naive" or "fixed"
    std::string side;  // on a diff's chart: "base" or "new", its tooltip's prefix (the mark keeps its size by share)
    bool labelled =
        true;  // false: the number shows only in the tooltip (a diff's base point: its new point carries the label)
};

// A kernel on the memory panel: its total time and the bytes per second it moved at each level.
struct memory_point {
    const analysed_kernel* kernel = nullptr;
    std::size_t number = 0;
    double seconds = 0.0;
    std::optional<double> dram, l2, l1;  // bytes/s, where the level moved any
    std::string role;
    std::string side;
    bool labelled = true;
    double main() const { return dram ? *dram : l2 ? *l2 : *l1; }  // the filled mark: DRAM, else the nearest level
};

struct not_drawn_kernel {
    std::size_t number = 0;
    std::string name, why;
};

struct chart_ceiling {
    resource id;        // dram, l2, l1, fp32, ..., issue
    double peak = 0.0;  // bytes/s for memory levels, work/s for the others: the highest over the chart's kernels
};

// FLOP chart: work = the dominant precision's FLOPs. Instruction chart (an export with no FLOP
// counters at all, like the details page): work = warp instructions (smsp__inst_executed.sum),
// under the issue ceiling of 4 warp instructions per clock per SM (one per scheduler) and DRAM.
enum class chart_kind { flops, instructions };

// One panel's plot area in pixels and its data range in decades, both axes logarithmic.
struct chart_layout {
    double left = 0, top = 0, plot_w = 0, plot_h = 0;
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
    double px(double data_x) const;
    double py(double data_y) const;
};

struct chart_data {
    chart_kind kind = chart_kind::flops;
    std::string title;
    std::size_t kernels = 0;                                  // in the analysis (or the lesson)
    std::vector<chart_point> points;                          // the roofline panel
    std::vector<memory_point> memory;                         // the memory panel
    std::vector<std::pair<std::size_t, std::size_t>> arrows;  // from point, to point (a lesson's naive -> fixed)
    std::vector<std::pair<std::size_t, std::size_t>>
        memory_arrows;      // from memory point, to memory point (a diff's base -> new)
    std::string svg_title;  // the SVG's <title>; "" for "Roofline of INPUT on the GPU"
    std::string
        caption;  // the caption's first paragraph; "" for the report's (each kernel drawn once, numbered by its row)
    std::vector<chart_ceiling> ceilings;      // dram, l2, l1, then the work ceilings by peak
    std::vector<not_drawn_kernel> not_drawn;  // no time, or no bytes at any level
    // The panels drawn: the roofline unless only the memory panel has points; memory when it has any.
    bool roofline_panel = true, memory_panel = false;
    chart_layout roof, mem;
    double width = 0, height = 0;
    double label_size = 10;  // the number labels' font size
};

// The report's chart: every kernel of the analysis; an instruction chart when the export counts no
// FLOPs at all (the details page).
chart_data build_chart(const analysis& analysed);
// The builders' two steps, for the charts the later stages draw (a lesson's in validate/, a diff's in
// compare/): each kernel onto the roofline if it has work and DRAM bytes, else onto the memory panel,
// else into the list of those not drawn (numbers: each kernel's label, {} for 1, 2, ...; role: the
// points' role, "" for none; peaks: the ceilings seen so far); then the ceilings, axes and panels.
void chart_place(chart_data& chart, const std::vector<const analysed_kernel*>& kernels,
                 const std::vector<std::size_t>& numbers, const std::string& role, std::map<resource, double>& peaks);
void chart_finish(chart_data& chart, std::map<resource, double>& peaks);
std::string render_chart_svg(const analysis& analysed, const chart_data& chart);

}  // namespace roofline
