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
    chart_data c;
    bool any_flops = false;
    for (const auto& k : kernels)
        for (const auto* side : {k.base, k.next})
            any_flops = any_flops || (side && chart_detail::dominant_precision(*side));
    c.kind = any_flops ? chart_kind::flops : chart_kind::instructions;
    c.title = title;
    c.caption = caption;
    std::map<resource, double> peaks;
    // Where a kernel's side landed: on the roofline (index into points), the memory panel, or neither.
    struct landed {
        std::optional<std::size_t> point, memory;
    };
    auto put = [&](const analysed_kernel* k, std::size_t number, const char* side, bool labelled) {
        landed at;
        if (!k) return at;
        ++c.kernels;
        const std::size_t points = c.points.size(), memory = c.memory.size(), not_drawn = c.not_drawn.size();
        chart_place(c, {k}, {number}, "", peaks);
        if (c.points.size() > points) {
            c.points.back().side = side, c.points.back().labelled = labelled;
            at.point = points;
        } else if (c.memory.size() > memory) {
            c.memory.back().side = side, c.memory.back().labelled = labelled;
            at.memory = memory;
        } else if (c.not_drawn.size() > not_drawn) {
            c.not_drawn.back().name = std::string(side) + " " + c.not_drawn.back().name;
        }
        return at;
    };
    for (const auto& k : kernels) {
        const landed from = put(k.base, k.number, "base", k.next == nullptr);
        const landed to = put(k.next, k.number, "new", true);
        if (from.point && to.point) c.arrows.push_back({*from.point, *to.point});
        if (from.memory && to.memory) c.memory_arrows.push_back({*from.memory, *to.memory});
    }
    if (!c.not_drawn.empty()) c.title += ", " + std::to_string(c.not_drawn.size()) + " not drawn";
    chart_finish(c, peaks);
    return c;
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

std::string label_of(const kernel_diff& k) {
    return kernel_label(k.any().group.name) + (k.occurrence ? " #" + std::to_string(k.occurrence) : "");
}

std::string shape_text(const kernel_group& g) {
    if (!g.grid_size || !g.block_size) return "n/a";
    return to_string(*g.grid_size) + " x " + to_string(*g.block_size);
}

// "a -> b" for a matched kernel; one side's value for a gone or new one.
std::string both(const kernel_diff& k, const std::function<std::string(const analysed_kernel&)>& f) {
    if (k.base && k.next) {
        const std::string a = f(*k.base), b = f(*k.next);
        return a == b ? a + " (same)" : a + " -> " + b;
    }
    return k.base ? f(*k.base) + " (gone)" : f(*k.next) + " (new)";
}

std::string time_cell(const analysed_kernel* k) {
    return k ? (k->roof.placed ? format_duration_ns(k->roof.duration_ns) : "no time") : "-";
}

std::string ids_text(const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
    return s.empty() ? "-" : s;
}

doc::phrase gpu_words(const analysis& a) { return doc::phrase("the " + a.gpu.name + " (").code(a.gpu.id).words(")"); }

doc::phrase gpu_warning(const capture_diff& d) {
    return doc::phrase("> ")
        .strong("Different GPUs")
        .words(": the base capture ran on ")
        .append(gpu_words(d.base))
        .words(", the new one on ")
        .append(gpu_words(d.next))
        .words(
            ". A diff across GPUs is a projection, not a regression check: the changes below are the two "
            "machines' difference as much as the code's.");
}

doc::phrase noise_words(const capture_diff& d) {
    const bool defaults = d.options.noise_pct == default_noise_pct && d.options.noise_ns == default_noise_ns;
    return doc::phrase().marked(pct_text(d.options.noise_pct) + " of a kernel's time or " +
                                format_duration_ns(d.options.noise_ns) + " per launch, whichever is larger (" +
                                (defaults ? std::string("the defaults")
                                          : "set by `--noise`/`--noise-ns`; the defaults are " +
                                                pct_text(default_noise_pct) + " and " +
                                                format_duration_ns(default_noise_ns)) +
                                ": ncu's run-to-run spread, measured: see docs/diff.md)");
}

doc::phrase gate_words(const capture_diff& d) {
    if (!d.options.fail_if_slower_pct) return doc::phrase().marked("off (`--fail-if-slower PCT` turns it on)");
    doc::phrase s = doc::phrase().code("--fail-if-slower " + significant(*d.options.fail_if_slower_pct, 6));
    if (!d.gate_failed())
        return s.words(": passed: neither the workload total nor any matched kernel got slower by more than " +
                       pct_text(*d.options.fail_if_slower_pct) + " and beyond the noise floor");
    s.words(": ").strong("failed").words(": ");
    for (std::size_t i = 0; i < d.gate_failures.size(); ++i) s.words((i ? "; " : "") + d.gate_failures[i]);
    return s;
}

std::string matching_words(const capture_diff& d) {
    std::string s =
        "kernels are matched by their full name and launch shape (grid and block): " + std::to_string(d.matched) +
        " matched, " + std::to_string(d.gone) + " gone (only in the base), " + std::to_string(d.added) +
        " new (only in the new capture)";
    s += "; several kernels of one name and shape on a side are matched in launch order and numbered #1, #2, ... (" +
         (d.ambiguous_keys == 0 ? std::string("none here")
                                : std::to_string(d.ambiguous_keys) +
                                      (d.ambiguous_keys == 1 ? " name and shape here" : " names and shapes here")) +
         ")";
    return s;
}

doc::phrase side_words(const analysis& a) {
    return doc::phrase().code(a.input).words(
        ": " + a.gpu.name + ", " + count_text(a.kernels.size(), "kernel", "kernels") + ", " +
        count_text(a.launches_kept, "launch", "launches") + ", " + format_duration_ns(a.total_ns) + " of GPU time");
}

std::string total_words(const capture_diff& d) {
    return format_duration_ns(d.base.total_ns) + " -> " + format_duration_ns(d.next.total_ns) + ", " +
           change_text(d.total_change_pct) + " (" + status_text(d.total_status) + ")";
}

ojson optional_number(const std::optional<double>& v) { return v ? json_number<ojson>(*v) : ojson(nullptr); }
ojson dims(const std::optional<launch_dims>& d) {
    return d ? ojson::array({d->xyz[0], d->xyz[1], d->xyz[2]}) : ojson(nullptr);
}

ojson side_json(const analysed_kernel* k) {
    if (!k) return nullptr;
    ojson findings = ojson::array();
    for (const auto& f : k->diagnosis.findings) findings.push_back(f.id);
    const bool placed = k->roof.placed;
    std::optional<double> rate;
    if (placed && k->roof.flops_counted && k->roof.flops > 0) rate = k->roof.flops / (k->roof.duration_ns * 1e-9);
    return {{"time_ns", placed ? json_number<ojson>(k->roof.duration_ns) : ojson(nullptr)},
            {"launches", k->group.launches},
            {"share_of_workload", json_number<ojson>(k->share)},
            {"bound", name(k->verdict.bound)},
            {"limiter", k->verdict.limiter ? ojson(name(*k->verdict.limiter)) : ojson(nullptr)},
            {"share_of_roof", placed ? json_number<ojson>(k->roof.pct_of_roof / 100.0) : ojson(nullptr)},
            {"binding", k->roof.binding ? ojson(name(*k->roof.binding)) : ojson(nullptr)},
            {"intensity_dram", optional_number(k->roof.intensity(resource::dram))},
            {"flops_per_second", optional_number(rate)},
            {"findings", findings}};
}

ojson capture_json(const analysis& a) {
    return {{"file", a.input},
            {"gpu", {{"id", a.gpu.id}, {"name", a.gpu.name}}},
            {"kernels", a.kernels.size()},
            {"launches", a.launches_kept},
            {"total_ns", json_number<ojson>(a.total_ns)}};
}

}  // namespace diff_printing
}  // namespace

namespace {

doc::document diff_document(const capture_diff& d, const std::string& chart_file, const std::string& chart_html) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    doc::document o;
    o.add_heading(1, "Roofline diff: " + d.base.input + " -> " + d.next.input);
    if (!d.same_gpu) o.add_paragraph(gpu_warning(d));
    for (const auto& w : d.comparability) o.add_paragraph("> Warning: " + w + ".");
    o.add_list({doc::phrase("Base: ").append(side_words(d.base)), doc::phrase("New: ").append(side_words(d.next)),
                "Workload total (every kernel's time, matched or not): " + total_words(d),
                doc::phrase("Noise floor: ").append(noise_words(d)).words(": a smaller change is \"within noise\""),
                doc::phrase("Gate: ").append(gate_words(d)), "Matching: " + matching_words(d)});
    if (!chart_file.empty())
        o.add_figure(
            {"Roofline diff: each kernel's move from the base capture to the new one", chart_file, chart_html});
    o.add_heading(2, "Time");
    doc::table_block t{{"#", "kernel", "grid x block", "launches", "base", "new", "change", "status"}, {}};
    for (std::size_t i = 0; i < d.kernels.size(); ++i) {
        const auto& k = d.kernels[i];
        const std::string launches =
            k.base && k.next ? std::to_string(k.base->group.launches) + " -> " + std::to_string(k.next->group.launches)
                             : std::to_string(k.any().group.launches);
        doc::phrase status = k.over_gate ? doc::phrase().strong(std::string(status_text(k.status)) + ": over the gate")
                                         : doc::phrase(status_text(k.status));
        t.rows.push_back({std::to_string(i + 1), label_of(k), shape_text(k.any().group), launches, time_cell(k.base),
                          time_cell(k.next), change_text(k.change_pct), status});
    }
    o.add_table(std::move(t));
    o.add_heading(2, "Roofline movement");
    o.add_paragraph(doc::phrase().marked(
        "Each value as `base -> new` (`(same)` where it did not move); a gone or new kernel shows its one side. "
        "Intensity is FLOP per DRAM byte; achieved is the limiter's rate (the summary of `roofline analyze`)."));
    doc::table_block m{
        {"#", "kernel", "bound / limiter", "% of roof", "intensity", "achieved", "findings appeared", "findings gone"},
        {}};
    for (std::size_t i = 0; i < d.kernels.size(); ++i) {
        const auto& k = d.kernels[i];
        m.rows.push_back({std::to_string(i + 1), label_of(k),
                          both(k, [](const analysed_kernel& x) { return verdict_text(x.verdict); }),
                          both(k, [](const analysed_kernel& x) { return roof_pct_text(x); }),
                          both(k, [](const analysed_kernel& x) { return intensity_text(x.roof, resource::dram); }),
                          both(k, [](const analysed_kernel& x) { return achieved_text(x); }),
                          ids_text(k.findings_appeared), ids_text(k.findings_gone)});
    }
    o.add_table(std::move(m));
    o.add_paragraph(doc::phrase().marked(
        "A finding appeared when the new capture's rule trees report it and the base's do not, by finding id "
        "(`roofline explain ID` says what each means); a gone kernel's findings all went away, a new one's all "
        "appeared."));
    return o;
}

}  // namespace

std::string render_diff_markdown(const capture_diff& d, const std::string& chart_file) {
    return doc::markdown(diff_document(d, chart_file, ""));
}

std::string render_diff_html(const capture_diff& d) {
    return doc::html_page(
        diff_document(d, "diff-chart.svg", "<figure class=\"chart\">\n" + render_diff_chart(d) + "</figure>\n"));
}

std::string render_diff_json(const capture_diff& d) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    ojson kernels = ojson::array();
    for (std::size_t i = 0; i < d.kernels.size(); ++i) {
        const auto& k = d.kernels[i];
        const auto& g = k.any().group;
        kernels.push_back({{"number", i + 1},
                           {"name", g.name},
                           {"grid_size", dims(g.grid_size)},
                           {"block_size", dims(g.block_size)},
                           {"occurrence", k.occurrence ? ojson(k.occurrence) : ojson(nullptr)},
                           {"status", status_text(k.status)},
                           {"change_pct", optional_number(k.change_pct)},
                           {"over_gate", k.over_gate},
                           {"base", side_json(k.base)},
                           {"new", side_json(k.next)},
                           {"findings_appeared", k.findings_appeared},
                           {"findings_gone", k.findings_gone}});
    }
    ojson j = {{"schema", "roofline-diff/1"},
               {"base", capture_json(d.base)},
               {"new", capture_json(d.next)},
               {"same_gpu", d.same_gpu},
               {"comparability_warnings", d.comparability},
               {"noise_pct", json_number<ojson>(d.options.noise_pct)},
               {"noise_ns", json_number<ojson>(d.options.noise_ns)},
               {"total",
                {{"base_ns", json_number<ojson>(d.base.total_ns)},
                 {"new_ns", json_number<ojson>(d.next.total_ns)},
                 {"change_pct", optional_number(d.total_change_pct)},
                 {"status", status_text(d.total_status)},
                 {"over_gate", d.total_over_gate}}},
               {"gate",
                {{"fail_if_slower_pct", optional_number(d.options.fail_if_slower_pct)},
                 {"failed", d.gate_failed()},
                 {"failures", d.gate_failures}}},
               {"matching",
                {{"matched", d.matched}, {"gone", d.gone}, {"new", d.added}, {"ambiguous_keys", d.ambiguous_keys}}},
               {"kernels", kernels}};
    return json_text(j);
}

std::string render_diff_terminal(const capture_diff& d, bool colour, std::size_t width) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    auto paint = [colour](const char* code, const std::string& s) {
        return colour ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
    };
    std::ostringstream o;
    o << paint("1", "roofline diff") << "  " << printable(d.base.input) << " -> " << printable(d.next.input) << "  ("
      << d.base.gpu.name << (d.same_gpu ? "" : " -> " + d.next.gpu.name) << ")\n";
    if (!d.same_gpu)
        o << paint("1;33", "different GPUs:") << " a diff across GPUs is a projection, not a regression check\n";
    for (const auto& w : d.comparability) o << paint("1;33", "warning:") << " " << w << "\n";
    o << "total " << total_words(d) << "; noise floor " << pct_text(d.options.noise_pct) << " or "
      << format_duration_ns(d.options.noise_ns) << " per launch; " << d.matched << " matched, " << d.gone << " gone, "
      << d.added << " new\n\n";
    // # name base new change status verdict: the name takes what the rest leaves.
    constexpr std::size_t rest = 4 + 2 + 9 + 2 + 9 + 2 + 8 + 2 + 13 + 2 + 16;
    const std::size_t name_w = width == 0 ? 34 : std::clamp<std::size_t>(width > rest ? width - rest : 0, 12, 34);
    table t({{"#", align::right, 4, true, 0},
             {"kernel", align::left, name_w, true},
             {"base", align::right, 9, true},
             {"new", align::right, 9, true},
             {"change", align::right, 8, true},
             {"status", align::left, 13, true},
             {"verdict"}});
    for (const auto& k : d.kernels) {
        const auto& v = k.next ? *k.next : *k.base;
        t.row({std::to_string(t.size() + 1), label_of(k), time_cell(k.base), time_cell(k.next),
               change_text(k.change_pct), status_text(k.status),
               k.base && k.next && verdict_text(k.base->verdict) != verdict_text(k.next->verdict)
                   ? verdict_text(k.base->verdict) + " -> " + verdict_text(k.next->verdict)
                   : verdict_text(v.verdict)});
    }
    text_layout layout;
    layout.paint_cell = [&](std::size_t row, std::size_t col, const std::string& cell) {
        if (col != 5) return cell;
        const diff_status status = d.kernels[row].status;
        return paint(status == diff_status::slower ? "31" : status == diff_status::faster ? "32" : "2", cell);
    };
    o << t.text(layout);
    if (d.options.fail_if_slower_pct) {
        o << "\n";
        if (d.gate_failed()) {
            o << paint("1;31", "gate failed") << " (--fail-if-slower " << significant(*d.options.fail_if_slower_pct, 6)
              << "):\n";
            for (const auto& f : d.gate_failures) o << "  " << f << "\n";
        } else {
            o << "gate passed (--fail-if-slower " << significant(*d.options.fail_if_slower_pct, 6) << ")\n";
        }
    }
    return o.str();
}

std::string render_diff_chart(const capture_diff& d) {
    using namespace diff_printing;  // inside: a unity build puts other files' helpers beside these
    std::vector<diff_chart_kernel> rows;
    for (std::size_t i = 0; i < d.kernels.size(); ++i) rows.push_back({d.kernels[i].base, d.kernels[i].next, i + 1});
    const std::string gpus = d.same_gpu ? d.base.gpu.name : d.base.gpu.name + " -> " + d.next.gpu.name;
    const std::string title = "Roofline diff: " + gpus + ", " + count_text(d.kernels.size(), "kernel", "kernels");
    std::string caption =
        "Each arrow runs from a kernel's place in the base capture to its place in the new one; the number, its row in "
        "the diff's "
        "tables, stands at the new point (at the base point of a gone kernel). A mark's area is its share of its own "
        "capture's time, "
        "its colour the kernel's bound in that capture; no arrow where the two points nearly coincide.";
    if (!d.same_gpu)
        caption +=
            " Different GPUs: the ceilings are the higher of the two GPUs' peaks, and the diff is a projection, not a "
            "regression "
            "check.";
    chart_data c = build_diff_chart(rows, title, caption);
    c.svg_title = "Roofline diff of " + d.base.input + " (" + d.base.gpu.name + ") and " + d.next.input + " (" +
                  d.next.gpu.name + ")";
    return render_chart_svg(d.next, c);
}

}  // namespace roofline
