#include "analyzer/compare/projection_report.hpp"

#include "analyzer/render/json_number.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace roofline {
namespace {

using ojson = nlohmann::ordered_json;

ojson optional_name(const std::optional<resource>& r) { return r ? ojson(name(*r)) : ojson(nullptr); }
std::string name_or_dash(const std::optional<resource>& r) { return r ? name(*r) : "-"; }

std::string speedup_text(const kernel_projection& k) {
    return k.projected_ns > 0 ? format_times(k.measured_ns / k.projected_ns) : "-";
}

std::string floor_text(double ns, const std::optional<resource>& r) {
    return ns > 0 ? format_duration_ns(ns) + " (" + name_or_dash(r) + ")" : "-";
}

const resource_projection* find(const kernel_projection& k, const std::optional<resource>& r) {
    if (!r) return nullptr;
    for (const auto& x : k.resources)
        if (x.id == *r) return &x;
    return nullptr;
}

std::string counts_text(const workload_projection& w) {
    std::size_t n[3] = {0, 0, 0};
    for (const auto& k : w.kernels) ++n[static_cast<int>(k.kind)];
    return count_text(n[0], "kernel", "kernels") + " scaled, " + std::to_string(n[1]) +
           " projected unchanged (far from every roof), " + std::to_string(n[2]) +
           " kept as measured (cannot be projected)";
}

doc::document document_of(const analysis& a, const workload_projection& w) {
    const auto labels = kernel_labels(a);
    doc::document d;
    d.add_heading(
        1, doc::phrase().code(a.input).words(" projected from the " + w.source_gpu + " onto the " + w.target_gpu));
    d.add_paragraph("Workload: " + format_duration_ns(w.measured_ns) + " measured on the " + w.source_gpu + ", " +
                    format_duration_ns(w.projected_ns) + " projected on the " + w.target_gpu + " (" +
                    (w.projected_ns > 0 ? format_times(w.measured_ns / w.projected_ns) : std::string("-")) + "); " +
                    counts_text(w) + ".");
    d.add_heading(2, "Assumptions");
    d.add_list(std::vector<doc::phrase>(w.assumptions.begin(), w.assumptions.end()));
    d.add_heading(2, "Kernels");
    doc::table_block t{{"kernel", "launches", "verdict on the source", "measured", "basis", "on the source",
                        "on the target", "peak ratio", "projected", "speedup", "projection"},
                       {}};
    for (std::size_t i = 0; i < w.kernels.size(); ++i) {
        const auto& k = w.kernels[i];
        const resource_projection* b = find(k, k.target_binding);
        const bool by_floor = k.basis == projection_basis::floor;
        const bool scaled = k.kind == projection_kind::scaled;
        t.rows.push_back({doc::phrase().code(labels[i]), std::to_string(k.launches), verdict_text(a.kernels[i].verdict),
                          format_duration_ns(k.measured_ns), scaled ? name(k.basis) : "-",
                          scaled ? floor_text(by_floor ? k.source_floor_ns : k.source_busy_ns, k.source_binding) : "-",
                          scaled ? floor_text(by_floor ? k.target_floor_ns : k.target_busy_ns, k.target_binding) : "-",
                          b && scaled ? format_times(b->peak_ratio) + (b->peak_assumed ? " (assumed)" : "") : "-",
                          format_duration_ns(k.projected_ns), speedup_text(k),
                          std::string(name(k.kind)) +
                              (k.binding_changes && k.kind == projection_kind::scaled ? ", bound changes" : "")});
    }
    d.add_table(std::move(t));
    d.add_heading(2, "How each kernel was projected");
    std::vector<doc::phrase> how;
    for (std::size_t i = 0; i < w.kernels.size(); ++i) {
        const auto& k = w.kernels[i];
        std::string line = ": " + k.why;
        if (k.kind == projection_kind::scaled && k.binding_changes && k.source_binding && k.target_binding)
            line += std::string("; the floor moves from ") + name(*k.source_binding) + " to " + name(*k.target_binding);
        if (const resource_projection* b = find(k, k.target_binding); b && k.kind == projection_kind::scaled)
            line += std::string("; ") + name(b->id) + " peak ratio " + b->peak_basis;
        how.push_back(doc::phrase().code(labels[i]).words(line + "."));
    }
    d.add_list(std::move(how));
    return d;
}

std::string markdown(const analysis& a, const workload_projection& w) { return doc::markdown(document_of(a, w)); }

std::string json(const analysis& a, const workload_projection& w) {
    const auto labels = kernel_labels(a);
    ojson j;
    j["input"] = a.input;
    j["source_gpu"] = a.gpu.id;
    j["source_gpu_name"] = w.source_gpu;
    j["target_gpu_name"] = w.target_gpu;
    j["assumptions"] = w.assumptions;
    j["measured_ns"] = json_number<ojson>(w.measured_ns);
    j["projected_ns"] = json_number<ojson>(w.projected_ns);
    ojson ks = ojson::array();
    for (std::size_t i = 0; i < w.kernels.size(); ++i) {
        const auto& k = w.kernels[i];
        ojson res = ojson::array();
        for (const auto& r : k.resources)
            res.push_back({{"id", name(r.id)},
                           {"peak_ratio", json_number<ojson>(r.peak_ratio)},
                           {"peak_basis", r.peak_basis},
                           {"peak_assumed", r.peak_assumed},
                           {"source_practical", json_number<ojson>(r.source_practical)},
                           {"target_practical", json_number<ojson>(r.target_practical)},
                           {"source_floor_ns", json_number<ojson>(r.source_floor_ns)},
                           {"target_floor_ns", json_number<ojson>(r.target_floor_ns)},
                           {"source_busy_ns", json_number<ojson>(r.source_busy_ns)},
                           {"target_busy_ns", json_number<ojson>(r.target_busy_ns)}});
        ks.push_back(
            {{"name", k.kernel},
             {"label", labels[i]},
             {"launches", k.launches},
             {"source_bound", name(k.source_bound)},
             {"measured_ns", json_number<ojson>(k.measured_ns)},
             {"projected_ns", json_number<ojson>(k.projected_ns)},
             {"projection", name(k.kind)},
             {"why", k.why},
             {"source_sm_clock_hz",
              k.source_sm_clock_hz > 0 ? json_number<ojson>(k.source_sm_clock_hz) : ojson(nullptr)},
             {"target_sm_clock_hz",
              k.target_sm_clock_hz > 0 ? json_number<ojson>(k.target_sm_clock_hz) : ojson(nullptr)},
             {"source_floor_ns", k.source_floor_ns > 0 ? json_number<ojson>(k.source_floor_ns) : ojson(nullptr)},
             {"target_floor_ns", k.target_floor_ns > 0 ? json_number<ojson>(k.target_floor_ns) : ojson(nullptr)},
             {"source_binding", optional_name(k.source_binding)},
             {"target_binding", optional_name(k.target_binding)},
             {"source_busy_ns", k.source_busy_ns > 0 ? json_number<ojson>(k.source_busy_ns) : ojson(nullptr)},
             {"target_busy_ns", k.target_busy_ns > 0 ? json_number<ojson>(k.target_busy_ns) : ojson(nullptr)},
             {"basis", name(k.basis)},
             {"binding_changes", k.binding_changes},
             {"resources", res}});
    }
    j["kernels"] = ks;
    return json_text(j);
}

std::string terminal(const analysis& a, const workload_projection& w) {
    const auto labels = kernel_labels(a);
    table t({{"kernel", align::left, 0, false, 0},
             {"measured", align::right, 9},
             {"projected", align::right, 9},
             {"speedup", align::right, 7},
             {"binding", align::left, 15},
             {"projection"}});
    for (std::size_t i = 0; i < w.kernels.size(); ++i) {
        const auto& k = w.kernels[i];
        const std::string binding =
            k.kind == projection_kind::scaled
                ? name_or_dash(k.source_binding) + (k.binding_changes ? " -> " + name_or_dash(k.target_binding) : "")
                : "-";
        t.row({labels[i], format_duration_ns(k.measured_ns), format_duration_ns(k.projected_ns), speedup_text(k),
               binding,
               std::string(name(k.kind)) +
                   (k.kind == projection_kind::unchanged ? " (" + std::string(name(k.source_bound)) + ")"
                    : k.kind == projection_kind::scaled  ? " (" + std::string(name(k.basis)) + ")"
                                                         : "")});
    }
    t.row({"total", format_duration_ns(w.measured_ns), format_duration_ns(w.projected_ns),
           w.projected_ns > 0 ? format_times(w.measured_ns / w.projected_ns) : "-", "", ""});
    std::ostringstream out;
    out << a.input << ": " << w.source_gpu << " -> " << w.target_gpu << "\n" << t.text() << "\nassumptions:\n";
    for (const auto& s : w.assumptions) out << "- " << s << "\n";
    return out.str();
}

}  // namespace

workload_projection project_analysis(const analysis& a, const gpu_spec& target, const projection_options& o) {
    std::vector<kernel_projection> ks;
    ks.reserve(a.kernels.size());
    for (const auto& k : a.kernels) ks.push_back(project_kernel(k, a.gpu, target, o));
    return project_workload(std::move(ks), a.gpu, target, o);
}

const std::vector<std::string>& projection_format_names() {
    static const std::vector<std::string> names = {"markdown", "json", "terminal", "html"};
    return names;
}

std::string render_projection(const analysis& a, const workload_projection& w, const std::string& format) {
    if (format == "markdown") return markdown(a, w);
    if (format == "json") return json(a, w);
    if (format == "terminal") return terminal(a, w);
    if (format == "html") return doc::html_page(document_of(a, w));
    throw std::invalid_argument("no projection format \"" + format + "\"");
}

}  // namespace roofline
