#include "analyzer/timeline/timeline_svg.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/render/html_page.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>
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

}  // namespace

std::string timeline_svg(const timeline_model& model) {
    const trace& tr = *model.source;
    std::int64_t origin = model.devices.front().first_ns, end = model.devices.front().last_ns;
    for (const auto& gpu : model.devices) origin = std::min(origin, gpu.first_ns), end = std::max(end, gpu.last_ns);
    const double scale = plot / double(std::max<std::int64_t>(1, end - origin));
    auto x_px = [&](std::int64_t ns) { return left + double(ns - origin) * scale; };

    // One lane per (device, stream) and per kind of op, and one gap row per device and cause.
    std::map<std::pair<std::int32_t, std::int64_t>, std::map<shape_kind, pixel_row>> lanes;
    std::set<shape_kind> kinds_present;
    for (const auto& op : tr.ops) {
        lanes[{op.device, op.stream}][shape_of(op)].add(x_px(op.start_ns), x_px(op.end_ns), op.end_ns - op.start_ns);
        kinds_present.insert(shape_of(op));
    }
    std::ostringstream body;
    double y_px = top;
    std::size_t lane_count = 0, gap_count = 0;
    std::set<gap_cause> causes_present;
    for (const auto& gpu : model.devices) {
        body << "<text class=\"device\" x=\"8\" y=\"" << num(y_px + 12) << "\" font-weight=\"bold\">GPU " << gpu.device
             << "</text>\n";
        y_px += lane_height + lane_gap;
        for (const auto& [key, kinds] : lanes) {
            if (key.first != gpu.device) continue;
            ++lane_count;
            body << "<g class=\"lane\" data-device=\"" << gpu.device << "\" data-stream=\"" << key.second << "\">"
                 << "<text x=\"16\" y=\"" << num(y_px + 12) << "\">stream " << key.second << "</text>";
            for (const auto& [kind, row] : kinds)
                row.draw([&, kind = kind](double rx, double rw, double opacity, std::size_t starts, double busy) {
                    body << "<rect x=\"" << num(rx) << "\" y=\"" << num(y_px) << "\" width=\"" << num(rw)
                         << "\" height=\"" << num(lane_height) << "\" fill=\"" << words_of(kind).colour << "\"";
                    if (opacity < 1.0) body << " fill-opacity=\"" << decimals(opacity, 2) << "\"";
                    body << ">";
                    if (starts > 0)
                        body << "<title>"
                             << html_escape(std::to_string(starts) + " " +
                                            (starts == 1 ? words_of(kind).one : words_of(kind).many) + " from here, " +
                                            format_duration_ns(busy) + " of GPU time")
                             << "</title>";
                    body << "</rect>";
                });
            body << "</g>\n";
            y_px += lane_height + lane_gap;
        }
        body << "<g class=\"gaps\" data-device=\"" << gpu.device << "\"><text x=\"16\" y=\"" << num(y_px + 12)
             << "\">idle gaps</text>";
        // Gaps of one cause that fall on the same pixels are one shape, its tooltip their count and sum.
        struct run {
            long from_px, to_px;
            std::size_t count;
            std::int64_t total_ns, first_ns;
        };
        std::map<gap_cause, std::vector<run>> runs;
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
        for (const auto& [cause, cause_runs] : runs)
            for (const auto& gap_run : cause_runs)
                body << "<rect class=\"gap\" data-cause=\"" << cause_name(cause) << "\" data-count=\"" << gap_run.count
                     << "\" x=\"" << gap_run.from_px << "\" y=\"" << num(y_px) << "\" width=\""
                     << (gap_run.to_px - gap_run.from_px) << "\" height=\"" << num(lane_height) << "\" fill=\""
                     << cause_colour(cause) << "\"><title>"
                     << html_escape(std::string(cause_name(cause)) + ": " +
                                    (gap_run.count == 1 ? std::string("a gap of ")
                                                        : std::to_string(gap_run.count) + " gaps, ") +
                                    format_duration_ns(double(gap_run.total_ns)) + " idle, from +" +
                                    format_duration_ns(double(gap_run.first_ns - origin)))
                     << "</title></rect>";
        body << "</g>\n";
        y_px += lane_height + 2 * lane_gap + 8;
    }
    // Step boundaries: where the GPU work each marked step launched begins (the CPU runs ahead of the GPU,
    // so a step's CPU range says little about when its kernels ran). Ops are matched to their launch call by
    // the correlation id, and the call to the step whose CPU range holds its start.
    std::ostringstream steps;
    if (!tr.steps.empty()) {
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
        for (std::size_t i = 0; i < tr.steps.size(); ++i) {
            if (first_op[i] == std::numeric_limits<std::int64_t>::max() || first_op[i] < origin || first_op[i] > end)
                continue;
            const double sx = x_px(first_op[i]);
            steps << "<line class=\"step\" x1=\"" << num(sx) << "\" y1=\"" << num(top - 4) << "\" x2=\"" << num(sx)
                  << "\" y2=\"" << num(y_px) << "\" stroke=\"#555\" stroke-dasharray=\"3,3\"><title>"
                  << html_escape(tr.name(tr.steps[i].name) + ": its GPU work begins at +" +
                                 format_duration_ns(double(first_op[i] - origin)))
                  << "</title></line>\n";
        }
    }
    // The time axis: five ticks over the span.
    std::ostringstream axis;
    for (int i = 0; i <= 5; ++i) {
        const double tx = left + plot * i / 5.0;
        // The last label ends at its tick, inside the picture.
        axis << "<line x1=\"" << num(tx) << "\" y1=\"" << num(top - 6) << "\" x2=\"" << num(tx) << "\" y2=\""
             << num(y_px) << "\" stroke=\"#ddd\"/><text x=\"" << num(tx) << "\" y=\"" << num(top - 10)
             << "\" text-anchor=\"" << (i == 5 ? "end" : "middle") << "\">+"
             << format_duration_ns(double(end - origin) * i / 5.0) << "</text>\n";
    }
    std::ostringstream legend;
    double lx = left;
    const double ly = y_px + 6;
    auto key = [&](const char* colour, const std::string& label) {
        legend << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" width=\"12\" height=\"12\" fill=\"" << colour
               << "\"/><text x=\"" << num(lx + 16) << "\" y=\"" << num(ly + 10) << "\">" << html_escape(label)
               << "</text>";
        lx += 24 + 7.0 * double(label.size());
    };
    // What the picture holds, only.
    for (shape_kind kind : {shape_kind::kernel, shape_kind::nccl, shape_kind::copy, shape_kind::memset})
        if (kinds_present.count(kind)) key(words_of(kind).colour, words_of(kind).one);
    for (gap_cause cause : all_causes)
        if (causes_present.count(cause)) key(cause_colour(cause), std::string(cause_name(cause)) + " gap");
    if (!steps.str().empty()) {
        const std::string label = "a step's GPU work begins";
        legend << "<line x1=\"" << num(lx + 6) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 6) << "\" y2=\""
               << num(ly + 12) << "\" stroke=\"#555\" stroke-dasharray=\"3,3\"/><text x=\"" << num(lx + 16) << "\" y=\""
               << num(ly + 10) << "\">" << html_escape(label) << "</text>";
    }
    const double height = ly + 24;
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
        << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\" font-family=\"sans-serif\" font-size=\"11\""
        << " data-devices=\"" << model.devices.size() << "\" data-lanes=\"" << lane_count << "\" data-gaps=\""
        << gap_count
        << "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"8\" y=\"18\" font-size=\"13\">"
        << html_escape("Timeline of " + tr.file + ": busy time per stream, idle gaps over " +
                       format_duration_ns(double(model.min_gap_ns)) + " by cause")
        << "</text>\n"
        << axis.str() << body.str() << steps.str() << legend.str() << "\n</svg>\n";
    return svg.str();
}

}  // namespace roofline::timeline
