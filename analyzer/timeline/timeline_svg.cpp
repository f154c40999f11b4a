#include "analyzer/timeline/timeline_svg.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/render/svg_writer.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace roofline::timeline {
namespace {

constexpr double width = 1100, left = 130, right = 20, lane_height = 16, lane_gap = 4, top = 50;
constexpr double plot = width - left - right;

const char* cause_colour(gap_cause cause) {
    switch (cause) {
        case gap_cause::sync:
            return "#d62728";
        case gap_cause::host:
            return "#ff7f0e";
        case gap_cause::pageable:
            return "#9467bd";
        case gap_cause::memset:
            return "#8c564b";
        case gap_cause::other:
            return "#7f7f7f";
    }
    return "#7f7f7f";
}

// What a lane's shape is: NCCL's kernels are told apart from the compute (communication is the
// exposed-communication finding's business).
enum class shape_kind { kernel, nccl, copy, memset };

shape_kind shape_of(const gpu_op& op) {
    if (op.kind == op_kind::memcpy) return shape_kind::copy;
    if (op.kind == op_kind::memset) return shape_kind::memset;
    return op.communication ? shape_kind::nccl : shape_kind::kernel;
}

// Each shape's colour and words, in shape_kind's order.
struct shape_words {
    const char *colour, *one, *many;
};
constexpr shape_words shapes[] = {{"#1f77b4", "kernel", "kernels"},
                                  {"#e377c2", "NCCL kernel", "NCCL kernels"},
                                  {"#2ca02c", "copy", "copies"},
                                  {"#bcbd22", "memset", "memsets"}};
const shape_words& words_of(shape_kind kind) { return shapes[static_cast<int>(kind)]; }

std::string num(double value) { return decimals(value, 1); }

// One row's ops, drawn to scale. Ops that overlap or touch are one span; each pixel column a span covers
// whole is painted solid, one it covers in part with that share as opacity (every span in it added up), so a
// lane's painted area is its busy time however short its ops. Memory grows with the spans (at most the ops),
// never with the plot's width times the rows: a trace of many streams costs what its ops cost.
class pixel_row {
public:
    // In start order: the model sorts the ops by device and start.
    void add(double x0, double x1, std::int64_t ns) {
        x0 = std::clamp(x0 - left, 0.0, plot);
        x1 = std::clamp(x1 - left, x0, plot);
        if (!spans_.empty() && x0 <= spans_.back().x1) {
            span& last_span = spans_.back();
            last_span.x1 = std::max(last_span.x1, x1);
            ++last_span.ops;
            last_span.busy_ns += double(ns);
        } else {
            spans_.push_back({x0, x1, 1, double(ns)});
        }
    }
    // draw_run(x, width, opacity, ops, busy_ns): a span's ops and time go with its first piece.
    template <class Draw>
    void draw(Draw draw_run) const {
        long pixel = -1;
        double cover = 0.0;
        std::size_t ops = 0;
        double busy = 0.0;
        auto flush = [&] {
            if (pixel >= 0 && cover > 0.0) draw_run(left + double(pixel), 1.0, std::min(1.0, cover), ops, busy);
            pixel = -1, cover = 0.0, ops = 0, busy = 0.0;
        };
        auto part = [&](long at_pixel, double share) {
            if (at_pixel != pixel) flush(), pixel = at_pixel;
            cover += share;
        };
        for (const span& busy_span : spans_) {
            const long first_px = long(busy_span.x0), last_px = long(busy_span.x1);
            part(first_px, (first_px == last_px ? busy_span.x1 : double(first_px + 1)) - busy_span.x0);
            ops += busy_span.ops, busy += busy_span.busy_ns;
            if (first_px == last_px) continue;
            if (last_px > first_px + 1) {
                flush();
                draw_run(left + double(first_px + 1), double(last_px - first_px - 1), 1.0, 0, 0.0);
            }
            if (busy_span.x1 > double(last_px)) part(last_px, busy_span.x1 - double(last_px));
        }
        flush();
    }

private:
    struct span {
        double x0, x1;  // plot coordinates
        std::size_t ops;
        double busy_ns;  // a tooltip's figure: a double, so no sum of a file's durations can overflow
    };
    std::vector<span> spans_;
};

// A run of a device's idle gaps of one cause that fall on the same pixels: one shape, its tooltip their count
// and sum.
struct gap_run {
    long from_px, to_px;
    std::size_t count;
    std::int64_t total_ns, first_ns;
};

// The timeline being drawn: the time scale, and the parts written apart (they come out in another order than
// they are worked out: the axis and the step lines reach down as far as the rows go).
class timeline_drawing {
public:
    explicit timeline_drawing(const timeline_model& timeline) : model(timeline), tr(*timeline.source) {
        origin = model.devices.front().first_ns, end = model.devices.front().last_ns;
        for (const auto& gpu : model.devices) origin = std::min(origin, gpu.first_ns), end = std::max(end, gpu.last_ns);
        scale = plot / double(std::max<std::int64_t>(1, end - origin));
    }

    std::string svg() {
        rows();
        step_lines();
        time_axis();
        legend_keys();
        return whole();
    }

private:
    using lane_rows = std::map<std::pair<std::int32_t, std::int64_t>, std::map<shape_kind, pixel_row>>;

    const timeline_model& model;
    const trace& tr;
    std::int64_t origin = 0, end = 0;
    double scale = 0;
    double y_px = top;  // where the next row goes
    std::size_t lane_count = 0, gap_count = 0;
    std::set<shape_kind> kinds_present;
    std::set<gap_cause> causes_present;
    svg_writer body = timeline_writer(), steps = timeline_writer(), axis = timeline_writer(),
               legend = timeline_writer();

    static svg_writer timeline_writer() { return svg_writer(num, svg_escaping::html); }
    double x_px(std::int64_t ns) const { return left + double(ns - origin) * scale; }
    std::string since_origin(std::int64_t ns) const { return format_duration_ns(double(ns - origin)); }

    // One lane per (device, stream) and per kind of op, and one gap row per device and cause.
    void rows() {
        lane_rows lanes;
        for (const auto& op : tr.ops) {
            lanes[{op.device, op.stream}][shape_of(op)].add(x_px(op.start_ns), x_px(op.end_ns),
                                                            op.end_ns - op.start_ns);
            kinds_present.insert(shape_of(op));
        }
        for (const auto& gpu : model.devices) {
            body.text_element("text", {{"class", "device"}, {"x", 8}, {"y", y_px + 12}, {"font-weight", "bold"}},
                              "GPU " + std::to_string(gpu.device));
            body.newline();
            y_px += lane_height + lane_gap;
            for (const auto& [key, kinds] : lanes)
                if (key.first == gpu.device) lane(gpu.device, key.second, kinds);
            gap_row(gpu);
            y_px += lane_height + 2 * lane_gap + 8;
        }
    }
    void lane(std::int32_t device, std::int64_t stream, const std::map<shape_kind, pixel_row>& kinds) {
        ++lane_count;
        body.open("g", {{"class", "lane"}, {"data-device", device}, {"data-stream", stream}});
        body.text_element("text", {{"x", 16}, {"y", y_px + 12}}, "stream " + std::to_string(stream));
        for (const auto& [kind, row] : kinds)
            row.draw([&, kind = kind](double run_x, double run_width, double opacity, std::size_t starts, double busy) {
                busy_run(kind, run_x, run_width, opacity, starts, busy);
            });
        body.close();
        body.newline();
        y_px += lane_height + lane_gap;
    }
    // A piece of a lane's busy time: its ops and their time in its tooltip, where they start in it.
    void busy_run(shape_kind kind, double run_x, double run_width, double opacity, std::size_t starts, double busy) {
        svg_attributes attributes = {
            {"x", run_x}, {"y", y_px}, {"width", run_width}, {"height", lane_height}, {"fill", words_of(kind).colour}};
        if (opacity < 1.0) attributes.push_back({"fill-opacity", decimals(opacity, 2)});
        body.open("rect", attributes);
        if (starts > 0)
            body.text_element("title", {},
                              std::to_string(starts) + " " + (starts == 1 ? words_of(kind).one : words_of(kind).many) +
                                  " from here, " + format_duration_ns(busy) + " of GPU time");
        body.close();
    }
    void gap_row(const device_timeline& gpu) {
        body.open("g", {{"class", "gaps"}, {"data-device", gpu.device}});
        body.text_element("text", {{"x", 16}, {"y", y_px + 12}}, "idle gaps");
        for (const auto& [cause, cause_runs] : gap_runs(gpu))
            for (const auto& run : cause_runs)
                body.titled("rect",
                            {{"class", "gap"},
                             {"data-cause", cause_name(cause)},
                             {"data-count", run.count},
                             {"x", run.from_px},
                             {"y", y_px},
                             {"width", run.to_px - run.from_px},
                             {"height", lane_height},
                             {"fill", cause_colour(cause)}},
                            std::string(cause_name(cause)) + ": " +
                                (run.count == 1 ? std::string("a gap of ") : std::to_string(run.count) + " gaps, ") +
                                format_duration_ns(double(run.total_ns)) + " idle, from +" +
                                since_origin(run.first_ns));
        body.close();
        body.newline();
    }
    std::map<gap_cause, std::vector<gap_run>> gap_runs(const device_timeline& gpu) {
        std::map<gap_cause, std::vector<gap_run>> runs;
        for (const auto& gap : gpu.gaps) {
            ++gap_count;
            causes_present.insert(gap.cause);
            const long from_px = long(x_px(gap.start_ns)),
                       to_px = std::max(long(x_px(gap.end_ns) + 0.999), from_px + 1);
            auto& cause_runs = runs[gap.cause];
            if (!cause_runs.empty() && from_px <= cause_runs.back().to_px) {
                cause_runs.back().to_px = std::max(cause_runs.back().to_px, to_px);
                ++cause_runs.back().count;
                cause_runs.back().total_ns += gap.length();
            } else {
                cause_runs.push_back({from_px, to_px, 1, gap.length(), gap.start_ns});
            }
        }
        return runs;
    }
    // Step boundaries: where the GPU work each marked step launched begins (the CPU runs ahead of the GPU,
    // so a step's CPU range says little about when its kernels ran).
    void step_lines() {
        if (tr.steps.empty()) return;
        const std::vector<std::int64_t> first_op = first_op_of_steps();
        for (std::size_t i = 0; i < tr.steps.size(); ++i) {
            if (first_op[i] == std::numeric_limits<std::int64_t>::max() || first_op[i] < origin || first_op[i] > end)
                continue;
            const double step_x = x_px(first_op[i]);
            steps.titled("line",
                         {{"class", "step"},
                          {"x1", step_x},
                          {"y1", top - 4},
                          {"x2", step_x},
                          {"y2", y_px},
                          {"stroke", "#555"},
                          {"stroke-dasharray", "3,3"}},
                         tr.name(tr.steps[i].name) + ": its GPU work begins at +" + since_origin(first_op[i]));
            steps.newline();
        }
    }
    // Each step's first op: ops are matched to their launch call by the correlation id, and the call to the
    // step whose CPU range holds its start. The int64 maximum for a step that launched none.
    std::vector<std::int64_t> first_op_of_steps() const {
        std::unordered_map<std::int64_t, std::int64_t> launched_at;  // correlation -> the launch call's start
        for (const auto& call : tr.calls)
            if (call.correlation >= 0) launched_at.emplace(call.correlation, call.start_ns);
        std::vector<std::int64_t> first_op(tr.steps.size(), std::numeric_limits<std::int64_t>::max());
        for (const auto& op : tr.ops) {
            const auto launch_it = launched_at.find(op.correlation);
            if (launch_it == launched_at.end()) continue;
            // The steps are in time order (trace.hpp): the last one to start at or before the call.
            const auto after =
                std::upper_bound(tr.steps.begin(), tr.steps.end(), launch_it->second,
                                 [](std::int64_t at, const cpu_range& step_range) { return at < step_range.start_ns; });
            if (after == tr.steps.begin()) continue;
            const auto step_index = std::size_t(after - tr.steps.begin()) - 1;
            if (launch_it->second <= tr.steps[step_index].end_ns)
                first_op[step_index] = std::min(first_op[step_index], op.start_ns);
        }
        return first_op;
    }
    // The time axis: five ticks over the span. The last label ends at its tick, inside the picture.
    void time_axis() {
        for (int i = 0; i <= 5; ++i) {
            const double tick_x = left + plot * i / 5.0;
            axis.leaf("line", {{"x1", tick_x}, {"y1", top - 6}, {"x2", tick_x}, {"y2", y_px}, {"stroke", "#ddd"}});
            axis.text_element("text", {{"x", tick_x}, {"y", top - 10}, {"text-anchor", i == 5 ? "end" : "middle"}},
                              "+" + format_duration_ns(double(end - origin) * i / 5.0));
            axis.newline();
        }
    }
    // What the picture holds, only.
    void legend_keys() {
        double key_x = left;
        const double key_y = y_px + 6;
        auto key = [&](const char* colour, const std::string& label) {
            legend.leaf("rect", {{"x", key_x}, {"y", key_y}, {"width", "12"}, {"height", "12"}, {"fill", colour}});
            legend.text_element("text", {{"x", key_x + 16}, {"y", key_y + 10}}, label);
            key_x += 24 + 7.0 * double(label.size());
        };
        for (shape_kind kind : {shape_kind::kernel, shape_kind::nccl, shape_kind::copy, shape_kind::memset})
            if (kinds_present.count(kind)) key(words_of(kind).colour, words_of(kind).one);
        for (gap_cause cause : all_causes)
            if (causes_present.count(cause)) key(cause_colour(cause), std::string(cause_name(cause)) + " gap");
        if (steps.empty()) return;
        legend.leaf("line", {{"x1", key_x + 6},
                             {"y1", key_y},
                             {"x2", key_x + 6},
                             {"y2", key_y + 12},
                             {"stroke", "#555"},
                             {"stroke-dasharray", "3,3"}});
        legend.text_element("text", {{"x", key_x + 16}, {"y", key_y + 10}}, "a step's GPU work begins");
    }
    // The picture: its head, then the axis, the rows, the step lines and the legend.
    std::string whole() const {
        const double height = y_px + 6 + 24;
        svg_writer out = timeline_writer();
        out.open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                         {"width", width},
                         {"height", height},
                         {"viewBox", "0 0 " + num(width) + " " + num(height)},
                         {"font-family", "sans-serif"},
                         {"font-size", "11"},
                         {"data-devices", model.devices.size()},
                         {"data-lanes", lane_count},
                         {"data-gaps", gap_count}});
        out.newline();
        out.leaf("rect", {{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
        out.newline();
        out.text_element("text", {{"x", 8}, {"y", 18}, {"font-size", "13"}},
                         "Timeline of " + tr.file + ": busy time per stream, idle gaps over " +
                             format_duration_ns(double(model.min_gap_ns)) + " by cause");
        out.newline();
        for (const svg_writer* part : {&axis, &body, &steps, &legend}) out.append(*part);
        out.newline();
        out.close();
        out.newline();
        return out.str();
    }
};

}  // namespace

std::string timeline_svg(const timeline_model& model) { return timeline_drawing(model).svg(); }

}  // namespace roofline::timeline
