// The diff's printers: markdown (with the chart beside it), JSON (docs/diff.md) and the terminal
// view, and the chart itself. Pure: the same diff gives the same bytes.
#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/report/chart_parts.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"
#include "analyzer/compare/diff.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <map>
#include <sstream>

namespace roofline {
namespace {

// A diff's chart: each kernel of the base capture and of the new one, numbered by its row in the
// diff's table (the label at its new point, or its only one), an arrow from its base point to its
// new point where both lie on one panel; a FLOP chart unless no kernel of either does floating-point work.
struct diff_chart_kernel {
    const analysed_kernel* base = nullptr;  // nullptr: only in the new capture
    const analysed_kernel* next = nullptr;  // nullptr: only in the base capture
    std::size_t number = 0;
};
chart_data build_diff_chart(const std::vector<diff_chart_kernel>& kernels, const std::string& title,
                            const std::string& caption) {
    chart_data chart;
    bool any_flops = false;
    for (const auto& entry : kernels)
        for (const auto* side : {entry.base, entry.next})
            any_flops = any_flops || (side && chart_detail::dominant_precision(*side));
    chart.kind = any_flops ? chart_kind::flops : chart_kind::instructions;
    chart.title = title;
    chart.caption = caption;
    std::map<resource, double> peaks;
    // Where a kernel's side landed: on the roofline (index into points), the memory panel, or neither.
    struct landed {
        std::optional<std::size_t> point, memory;
    };
    auto put = [&](const analysed_kernel* kernel, std::size_t number, const char* side, bool labelled) {
        landed at;
        if (!kernel) return at;
        ++chart.kernels;
        const std::size_t points = chart.points.size(), memory = chart.memory.size(),
                          not_drawn = chart.not_drawn.size();
        chart_place(chart, {kernel}, {number}, "", peaks);
        if (chart.points.size() > points) {
            chart.points.back().side = side, chart.points.back().labelled = labelled;
            at.point = points;
        } else if (chart.memory.size() > memory) {
            chart.memory.back().side = side, chart.memory.back().labelled = labelled;
            at.memory = memory;
        } else if (chart.not_drawn.size() > not_drawn) {
            chart.not_drawn.back().name = std::string(side) + " " + chart.not_drawn.back().name;
        }
        return at;
    };
    for (const auto& entry : kernels) {
        const landed from = put(entry.base, entry.number, "base", entry.next == nullptr);
        const landed to = put(entry.next, entry.number, "new", true);
        if (from.point && to.point) chart.arrows.push_back({*from.point, *to.point});
        if (from.memory && to.memory) chart.memory_arrows.push_back({*from.memory, *to.memory});
    }
    if (!chart.not_drawn.empty()) chart.title += ", " + std::to_string(chart.not_drawn.size()) + " not drawn";
    chart_finish(chart, peaks);
    return chart;
}

namespace diff_printing {  // a name of its own: a unity build puts this file beside others

using ojson = nlohmann::ordered_json;

// "+12.3%", "-4.0%", "0.0%": a change in percent, signed.
std::string change_text(const std::optional<double>& pct) {
    if (!pct) return "-";
    if (*pct == 0.0) return "0.0%";
    return signed_decimals(*pct, std::fabs(*pct) < 0.1 ? 2 : 1) + "%";
}

std::string pct_text(double pct) { return significant(pct, 3) + "%"; }

std::string label_of(const kernel_diff& entry) {
    return kernel_label(entry.any().group.name) + (entry.occurrence ? " #" + std::to_string(entry.occurrence) : "");
}

std::string shape_text(const kernel_group& group) {
    if (!group.grid_size || !group.block_size) return "n/a";
    return to_string(*group.grid_size) + " x " + to_string(*group.block_size);
}

// "a -> b" for a matched kernel; one side's value for a gone or new one.
std::string both(const kernel_diff& entry, const std::function<std::string(const analysed_kernel&)>& text_of) {
    if (entry.base && entry.next) {
        const std::string before = text_of(*entry.base), after = text_of(*entry.next);
        return before == after ? before + " (same)" : before + " -> " + after;
    }
    return entry.base ? text_of(*entry.base) + " (gone)" : text_of(*entry.next) + " (new)";
}

std::string time_cell(const analysed_kernel* kernel) {
    return kernel ? (kernel->roof.placed ? format_duration_ns(kernel->roof.duration_ns) : "no time") : "-";
}

std::string ids_text(const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
    return out.empty() ? "-" : out;
}

doc::phrase gpu_words(const analysis& capture) {
    return doc::phrase("the " + capture.gpu.name + " (").code(capture.gpu.id).words(")");
}

doc::phrase gpu_warning(const capture_diff& diff) {
    return doc::phrase("> ")
        .strong("Different GPUs")
        .words(": the base capture ran on ")
        .append(gpu_words(diff.base))
        .words(", the new one on ")
        .append(gpu_words(diff.next))
        .words(
            ". A diff across GPUs is a projection, not a regression check: the changes below are the two "
            "machines' difference as much as the code's.");
}

doc::phrase noise_words(const capture_diff& diff) {
    const bool defaults = diff.options.noise_pct == default_noise_pct && diff.options.noise_ns == default_noise_ns;
    return doc::phrase().marked(pct_text(diff.options.noise_pct) + " of a kernel's time or " +
                                format_duration_ns(diff.options.noise_ns) + " per launch, whichever is larger (" +
                                (defaults ? std::string("the defaults")
                                          : "set by `--noise`/`--noise-ns`; the defaults are " +
                                                pct_text(default_noise_pct) + " and " +
                                                format_duration_ns(default_noise_ns)) +
                                ": ncu's run-to-run spread, measured: see docs/diff.md)");
}

doc::phrase gate_words(const capture_diff& diff) {
    if (!diff.options.fail_if_slower_pct) return doc::phrase().marked("off (`--fail-if-slower PCT` turns it on)");
    doc::phrase out = doc::phrase().code("--fail-if-slower " + significant(*diff.options.fail_if_slower_pct, 6));
    if (!diff.gate_failed())
        return out.words(": passed: neither the workload total nor any matched kernel got slower by more than " +
                         pct_text(*diff.options.fail_if_slower_pct) + " and beyond the noise floor");
    out.words(": ").strong("failed").words(": ");
    for (std::size_t i = 0; i < diff.gate_failures.size(); ++i) out.words((i ? "; " : "") + diff.gate_failures[i]);
    return out;
}

std::string matching_words(const capture_diff& diff) {
    std::string out =
        "kernels are matched by their full name and launch shape (grid and block): " + std::to_string(diff.matched) +
        " matched, " + std::to_string(diff.gone) + " gone (only in the base), " + std::to_string(diff.added) +
        " new (only in the new capture)";
    out += "; several kernels of one name and shape on a side are matched in launch order and numbered #1, #2, ... (" +
           (diff.ambiguous_keys == 0
                ? std::string("none here")
                : std::to_string(diff.ambiguous_keys) +
                      (diff.ambiguous_keys == 1 ? " name and shape here" : " names and shapes here")) +
           ")";
    return out;
}

doc::phrase side_words(const analysis& capture) {
    return doc::phrase()
        .code(capture.input)
        .words(": " + capture.gpu.name + ", " + count_text(capture.kernels.size(), "kernel", "kernels") + ", " +
               count_text(capture.launches_kept, "launch", "launches") + ", " + format_duration_ns(capture.total_ns) +
               " of GPU time");
}

std::string total_words(const capture_diff& diff) {
    return format_duration_ns(diff.base.total_ns) + " -> " + format_duration_ns(diff.next.total_ns) + ", " +
           change_text(diff.total_change_pct) + " (" + status_text(diff.total_status) + ")";
}

ojson optional_number(const std::optional<double>& value) {
    return value ? json_number<ojson>(*value) : ojson(nullptr);
}
ojson dims(const std::optional<launch_dims>& shape) {
    return shape ? ojson::array({shape->xyz[0], shape->xyz[1], shape->xyz[2]}) : ojson(nullptr);
}

ojson side_json(const analysed_kernel* kernel) {
    if (!kernel) return nullptr;
    ojson findings = ojson::array();
    for (const auto& kernel_finding : kernel->diagnosis.findings) findings.push_back(kernel_finding.id);
    const bool placed = kernel->roof.placed;
    std::optional<double> rate;
    if (placed && kernel->roof.flops_counted && kernel->roof.flops > 0)
        rate = kernel->roof.flops / (kernel->roof.duration_ns * 1e-9);
    return {{"time_ns", placed ? json_number<ojson>(kernel->roof.duration_ns) : ojson(nullptr)},
            {"launches", kernel->group.launches},
            {"share_of_workload", json_number<ojson>(kernel->share)},
            {"bound", name(kernel->verdict.bound)},
            {"limiter", kernel->verdict.limiter ? ojson(name(*kernel->verdict.limiter)) : ojson(nullptr)},
            {"share_of_roof", placed ? json_number<ojson>(kernel->roof.pct_of_roof / 100.0) : ojson(nullptr)},
            {"binding", kernel->roof.binding ? ojson(name(*kernel->roof.binding)) : ojson(nullptr)},
            {"intensity_dram", optional_number(kernel->roof.intensity(resource::dram))},
            {"flops_per_second", optional_number(rate)},
            {"findings", findings}};
}

ojson capture_json(const analysis& capture) {
    return {{"file", capture.input},
            {"gpu", {{"id", capture.gpu.id}, {"name", capture.gpu.name}}},
            {"kernels", capture.kernels.size()},
            {"launches", capture.launches_kept},
            {"total_ns", json_number<ojson>(capture.total_ns)}};
}

}  // namespace diff_printing
}  // namespace

namespace {

doc::document diff_document(const capture_diff& diff, const std::string& chart_file, const std::string& chart_html) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    doc::document page;
    page.add_heading(1, "Roofline diff: " + diff.base.input + " -> " + diff.next.input);
    if (!diff.same_gpu) page.add_paragraph(gpu_warning(diff));
    for (const auto& warning : diff.comparability) page.add_paragraph("> Warning: " + warning + ".");
    page.add_list(
        {doc::phrase("Base: ").append(side_words(diff.base)), doc::phrase("New: ").append(side_words(diff.next)),
         "Workload total (every kernel's time, matched or not): " + total_words(diff),
         doc::phrase("Noise floor: ").append(noise_words(diff)).words(": a smaller change is \"within noise\""),
         doc::phrase("Gate: ").append(gate_words(diff)), "Matching: " + matching_words(diff)});
    if (!chart_file.empty())
        page.add_figure(
            {"Roofline diff: each kernel's move from the base capture to the new one", chart_file, chart_html});
    page.add_heading(2, "Time");
    doc::table_block time_table{{"#", "kernel", "grid x block", "launches", "base", "new", "change", "status"}, {}};
    for (std::size_t i = 0; i < diff.kernels.size(); ++i) {
        const auto& entry = diff.kernels[i];
        const std::string launches = entry.base && entry.next ? std::to_string(entry.base->group.launches) + " -> " +
                                                                    std::to_string(entry.next->group.launches)
                                                              : std::to_string(entry.any().group.launches);
        doc::phrase status = entry.over_gate
                                 ? doc::phrase().strong(std::string(status_text(entry.status)) + ": over the gate")
                                 : doc::phrase(status_text(entry.status));
        time_table.rows.push_back({std::to_string(i + 1), label_of(entry), shape_text(entry.any().group), launches,
                                   time_cell(entry.base), time_cell(entry.next), change_text(entry.change_pct),
                                   status});
    }
    page.add_table(std::move(time_table));
    page.add_heading(2, "Roofline movement");
    page.add_paragraph(doc::phrase().marked(
        "Each value as `base -> new` (`(same)` where it did not move); a gone or new kernel shows its one side. "
        "Intensity is FLOP per DRAM byte; achieved is the limiter's rate (the summary of `roofline analyze`)."));
    doc::table_block movement_table{
        {"#", "kernel", "bound / limiter", "% of roof", "intensity", "achieved", "findings appeared", "findings gone"},
        {}};
    for (std::size_t i = 0; i < diff.kernels.size(); ++i) {
        const auto& entry = diff.kernels[i];
        movement_table.rows.push_back(
            {std::to_string(i + 1), label_of(entry),
             both(entry, [](const analysed_kernel& kernel) { return verdict_text(kernel.verdict); }),
             both(entry, [](const analysed_kernel& kernel) { return roof_pct_text(kernel); }),
             both(entry, [](const analysed_kernel& kernel) { return intensity_text(kernel.roof, resource::dram); }),
             both(entry, [](const analysed_kernel& kernel) { return achieved_text(kernel); }),
             ids_text(entry.findings_appeared), ids_text(entry.findings_gone)});
    }
    page.add_table(std::move(movement_table));
    page.add_paragraph(doc::phrase().marked(
        "A finding appeared when the new capture's rule trees report it and the base's do not, by finding id "
        "(`roofline explain ID` says what each means); a gone kernel's findings all went away, a new one's all "
        "appeared."));
    return page;
}

}  // namespace

std::string render_diff_markdown(const capture_diff& diff, const std::string& chart_file) {
    return doc::markdown(diff_document(diff, chart_file, ""));
}

std::string render_diff_html(const capture_diff& diff) {
    return doc::html_page(
        diff_document(diff, "diff-chart.svg", "<figure class=\"chart\">\n" + render_diff_chart(diff) + "</figure>\n"));
}

std::string render_diff_json(const capture_diff& diff) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    ojson kernels = ojson::array();
    for (std::size_t i = 0; i < diff.kernels.size(); ++i) {
        const auto& entry = diff.kernels[i];
        const auto& group = entry.any().group;
        kernels.push_back({{"number", i + 1},
                           {"name", group.name},
                           {"grid_size", dims(group.grid_size)},
                           {"block_size", dims(group.block_size)},
                           {"occurrence", entry.occurrence ? ojson(entry.occurrence) : ojson(nullptr)},
                           {"status", status_text(entry.status)},
                           {"change_pct", optional_number(entry.change_pct)},
                           {"over_gate", entry.over_gate},
                           {"base", side_json(entry.base)},
                           {"new", side_json(entry.next)},
                           {"findings_appeared", entry.findings_appeared},
                           {"findings_gone", entry.findings_gone}});
    }
    ojson out = {{"schema", "roofline-diff/1"},
                 {"base", capture_json(diff.base)},
                 {"new", capture_json(diff.next)},
                 {"same_gpu", diff.same_gpu},
                 {"comparability_warnings", diff.comparability},
                 {"noise_pct", json_number<ojson>(diff.options.noise_pct)},
                 {"noise_ns", json_number<ojson>(diff.options.noise_ns)},
                 {"total",
                  {{"base_ns", json_number<ojson>(diff.base.total_ns)},
                   {"new_ns", json_number<ojson>(diff.next.total_ns)},
                   {"change_pct", optional_number(diff.total_change_pct)},
                   {"status", status_text(diff.total_status)},
                   {"over_gate", diff.total_over_gate}}},
                 {"gate",
                  {{"fail_if_slower_pct", optional_number(diff.options.fail_if_slower_pct)},
                   {"failed", diff.gate_failed()},
                   {"failures", diff.gate_failures}}},
                 {"matching",
                  {{"matched", diff.matched},
                   {"gone", diff.gone},
                   {"new", diff.added},
                   {"ambiguous_keys", diff.ambiguous_keys}}},
                 {"kernels", kernels}};
    return json_text(out);
}

std::string render_diff_terminal(const capture_diff& diff, bool colour, std::size_t width) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    auto paint = [colour](const char* code, const std::string& text) {
        return colour ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
    };
    std::ostringstream out;
    out << paint("1", "roofline diff") << "  " << printable(diff.base.input) << " -> " << printable(diff.next.input)
        << "  (" << diff.base.gpu.name << (diff.same_gpu ? "" : " -> " + diff.next.gpu.name) << ")\n";
    if (!diff.same_gpu)
        out << paint("1;33", "different GPUs:") << " a diff across GPUs is a projection, not a regression check\n";
    for (const auto& warning : diff.comparability) out << paint("1;33", "warning:") << " " << warning << "\n";
    out << "total " << total_words(diff) << "; noise floor " << pct_text(diff.options.noise_pct) << " or "
        << format_duration_ns(diff.options.noise_ns) << " per launch; " << diff.matched << " matched, " << diff.gone
        << " gone, " << diff.added << " new\n\n";
    // # name base new change status verdict: the name takes what the rest leaves.
    constexpr std::size_t rest = 4 + 2 + 9 + 2 + 9 + 2 + 8 + 2 + 13 + 2 + 16;
    const std::size_t name_w = width == 0 ? 34 : std::clamp<std::size_t>(width > rest ? width - rest : 0, 12, 34);
    table summary({{"#", align::right, 4, true, 0},
                   {"kernel", align::left, name_w, true},
                   {"base", align::right, 9, true},
                   {"new", align::right, 9, true},
                   {"change", align::right, 8, true},
                   {"status", align::left, 13, true},
                   {"verdict"}});
    for (const auto& entry : diff.kernels) {
        const auto& latest = entry.next ? *entry.next : *entry.base;
        summary.row({std::to_string(summary.size() + 1), label_of(entry), time_cell(entry.base), time_cell(entry.next),
                     change_text(entry.change_pct), status_text(entry.status),
                     entry.base && entry.next && verdict_text(entry.base->verdict) != verdict_text(entry.next->verdict)
                         ? verdict_text(entry.base->verdict) + " -> " + verdict_text(entry.next->verdict)
                         : verdict_text(latest.verdict)});
    }
    text_layout layout;
    layout.paint_cell = [&](std::size_t row, std::size_t col, const std::string& cell) {
        if (col != 5) return cell;
        const diff_status status = diff.kernels[row].status;
        return paint(status == diff_status::slower ? "31" : status == diff_status::faster ? "32" : "2", cell);
    };
    out << summary.text(layout);
    if (diff.options.fail_if_slower_pct) {
        out << "\n";
        if (diff.gate_failed()) {
            out << paint("1;31", "gate failed") << " (--fail-if-slower "
                << significant(*diff.options.fail_if_slower_pct, 6) << "):\n";
            for (const auto& failure : diff.gate_failures) out << "  " << failure << "\n";
        } else {
            out << "gate passed (--fail-if-slower " << significant(*diff.options.fail_if_slower_pct, 6) << ")\n";
        }
    }
    return out.str();
}

std::string render_diff_chart(const capture_diff& diff) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    std::vector<diff_chart_kernel> rows;
    for (std::size_t i = 0; i < diff.kernels.size(); ++i)
        rows.push_back({diff.kernels[i].base, diff.kernels[i].next, i + 1});
    const std::string gpus = diff.same_gpu ? diff.base.gpu.name : diff.base.gpu.name + " -> " + diff.next.gpu.name;
    const std::string title = "Roofline diff: " + gpus + ", " + count_text(diff.kernels.size(), "kernel", "kernels");
    std::string caption =
        "Each arrow runs from a kernel's place in the base capture to its place in the new one; the number, its row in "
        "the diff's "
        "tables, stands at the new point (at the base point of a gone kernel). A mark's area is its share of its own "
        "capture's time, "
        "its colour the kernel's bound in that capture; no arrow where the two points nearly coincide.";
    if (!diff.same_gpu)
        caption +=
            " Different GPUs: the ceilings are the higher of the two GPUs' peaks, and the diff is a projection, not a "
            "regression "
            "check.";
    chart_data chart = build_diff_chart(rows, title, caption);
    chart.svg_title = "Roofline diff of " + diff.base.input + " (" + diff.base.gpu.name + ") and " + diff.next.input +
                      " (" + diff.next.gpu.name + ")";
    return render_chart_svg(diff.next, chart);
}

}  // namespace roofline
