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

ojson optional_name(const std::optional<resource>& resource_id) {
    return resource_id ? ojson(name(*resource_id)) : ojson(nullptr);
}
std::string name_or_dash(const std::optional<resource>& resource_id) { return resource_id ? name(*resource_id) : "-"; }

std::string speedup_text(const kernel_projection& projection) {
    return projection.projected_ns > 0 ? format_times(projection.measured_ns / projection.projected_ns) : "-";
}

std::string floor_text(double ns, const std::optional<resource>& resource_id) {
    return ns > 0 ? format_duration_ns(ns) + " (" + name_or_dash(resource_id) + ")" : "-";
}

const resource_projection* find(const kernel_projection& projection, const std::optional<resource>& resource_id) {
    if (!resource_id) return nullptr;
    for (const auto& candidate : projection.resources)
        if (candidate.id == *resource_id) return &candidate;
    return nullptr;
}

std::string counts_text(const workload_projection& workload) {
    std::size_t counts[3] = {0, 0, 0};
    for (const auto& projection : workload.kernels) ++counts[static_cast<int>(projection.kind)];
    return count_text(counts[0], "kernel", "kernels") + " scaled, " + std::to_string(counts[1]) +
           " projected unchanged (far from every roof), " + std::to_string(counts[2]) +
           " kept as measured (cannot be projected)";
}

doc::document document_of(const analysis& capture, const workload_projection& workload) {
    const auto labels = kernel_labels(capture);
    doc::document page;
    page.add_heading(1, doc::phrase()
                            .code(capture.input)
                            .words(" projected from the " + workload.source_gpu + " onto the " + workload.target_gpu));
    page.add_paragraph(
        "Workload: " + format_duration_ns(workload.measured_ns) + " measured on the " + workload.source_gpu + ", " +
        format_duration_ns(workload.projected_ns) + " projected on the " + workload.target_gpu + " (" +
        (workload.projected_ns > 0 ? format_times(workload.measured_ns / workload.projected_ns) : std::string("-")) +
        "); " + counts_text(workload) + ".");
    page.add_heading(2, "Assumptions");
    page.add_list(std::vector<doc::phrase>(workload.assumptions.begin(), workload.assumptions.end()));
    page.add_heading(2, "Kernels");
    doc::table_block kernel_rows{{"kernel", "launches", "verdict on the source", "measured", "basis", "on the source",
                                  "on the target", "peak ratio", "projected", "speedup", "projection"},
                                 {}};
    for (std::size_t i = 0; i < workload.kernels.size(); ++i) {
        const auto& projection = workload.kernels[i];
        const resource_projection* target_resource = find(projection, projection.target_binding);
        const bool by_floor = projection.basis == projection_basis::floor;
        const bool scaled = projection.kind == projection_kind::scaled;
        kernel_rows.rows.push_back(
            {doc::phrase().code(labels[i]), std::to_string(projection.launches),
             verdict_text(capture.kernels[i].verdict), format_duration_ns(projection.measured_ns),
             scaled ? name(projection.basis) : "-",
             scaled ? floor_text(by_floor ? projection.source_floor_ns : projection.source_busy_ns,
                                 projection.source_binding)
                    : "-",
             scaled ? floor_text(by_floor ? projection.target_floor_ns : projection.target_busy_ns,
                                 projection.target_binding)
                    : "-",
             target_resource && scaled
                 ? format_times(target_resource->peak_ratio) + (target_resource->peak_assumed ? " (assumed)" : "")
                 : "-",
             format_duration_ns(projection.projected_ns), speedup_text(projection),
             std::string(name(projection.kind)) +
                 (projection.binding_changes && projection.kind == projection_kind::scaled ? ", bound changes" : "")});
    }
    page.add_table(std::move(kernel_rows));
    page.add_heading(2, "How each kernel was projected");
    std::vector<doc::phrase> how;
    for (std::size_t i = 0; i < workload.kernels.size(); ++i) {
        const auto& projection = workload.kernels[i];
        std::string line = ": " + projection.why;
        if (projection.kind == projection_kind::scaled && projection.binding_changes && projection.source_binding &&
            projection.target_binding)
            line += std::string("; the floor moves from ") + name(*projection.source_binding) + " to " +
                    name(*projection.target_binding);
        if (const resource_projection* target_resource = find(projection, projection.target_binding);
            target_resource && projection.kind == projection_kind::scaled)
            line += std::string("; ") + name(target_resource->id) + " peak ratio " + target_resource->peak_basis;
        how.push_back(doc::phrase().code(labels[i]).words(line + "."));
    }
    page.add_list(std::move(how));
    return page;
}

std::string markdown(const analysis& capture, const workload_projection& workload) {
    return doc::markdown(document_of(capture, workload));
}

std::string json(const analysis& capture, const workload_projection& workload) {
    const auto labels = kernel_labels(capture);
    ojson out;
    out["input"] = capture.input;
    out["source_gpu"] = capture.gpu.id;
    out["source_gpu_name"] = workload.source_gpu;
    out["target_gpu_name"] = workload.target_gpu;
    out["assumptions"] = workload.assumptions;
    out["measured_ns"] = json_number<ojson>(workload.measured_ns);
    out["projected_ns"] = json_number<ojson>(workload.projected_ns);
    ojson ks = ojson::array();
    for (std::size_t i = 0; i < workload.kernels.size(); ++i) {
        const auto& projection = workload.kernels[i];
        ojson res = ojson::array();
        for (const auto& per_resource : projection.resources)
            res.push_back({{"id", name(per_resource.id)},
                           {"peak_ratio", json_number<ojson>(per_resource.peak_ratio)},
                           {"peak_basis", per_resource.peak_basis},
                           {"peak_assumed", per_resource.peak_assumed},
                           {"source_practical", json_number<ojson>(per_resource.source_practical)},
                           {"target_practical", json_number<ojson>(per_resource.target_practical)},
                           {"source_floor_ns", json_number<ojson>(per_resource.source_floor_ns)},
                           {"target_floor_ns", json_number<ojson>(per_resource.target_floor_ns)},
                           {"source_busy_ns", json_number<ojson>(per_resource.source_busy_ns)},
                           {"target_busy_ns", json_number<ojson>(per_resource.target_busy_ns)}});
        ks.push_back(
            {{"name", projection.kernel},
             {"label", labels[i]},
             {"launches", projection.launches},
             {"source_bound", name(projection.source_bound)},
             {"measured_ns", json_number<ojson>(projection.measured_ns)},
             {"projected_ns", json_number<ojson>(projection.projected_ns)},
             {"projection", name(projection.kind)},
             {"why", projection.why},
             {"source_sm_clock_hz",
              projection.source_sm_clock_hz > 0 ? json_number<ojson>(projection.source_sm_clock_hz) : ojson(nullptr)},
             {"target_sm_clock_hz",
              projection.target_sm_clock_hz > 0 ? json_number<ojson>(projection.target_sm_clock_hz) : ojson(nullptr)},
             {"source_floor_ns",
              projection.source_floor_ns > 0 ? json_number<ojson>(projection.source_floor_ns) : ojson(nullptr)},
             {"target_floor_ns",
              projection.target_floor_ns > 0 ? json_number<ojson>(projection.target_floor_ns) : ojson(nullptr)},
             {"source_binding", optional_name(projection.source_binding)},
             {"target_binding", optional_name(projection.target_binding)},
             {"source_busy_ns",
              projection.source_busy_ns > 0 ? json_number<ojson>(projection.source_busy_ns) : ojson(nullptr)},
             {"target_busy_ns",
              projection.target_busy_ns > 0 ? json_number<ojson>(projection.target_busy_ns) : ojson(nullptr)},
             {"basis", name(projection.basis)},
             {"binding_changes", projection.binding_changes},
             {"resources", res}});
    }
    out["kernels"] = ks;
    return json_text(out);
}

std::string terminal(const analysis& capture, const workload_projection& workload) {
    const auto labels = kernel_labels(capture);
    table summary({{"kernel", align::left, 0, false, 0},
                   {"measured", align::right, 9},
                   {"projected", align::right, 9},
                   {"speedup", align::right, 7},
                   {"binding", align::left, 15},
                   {"projection"}});
    for (std::size_t i = 0; i < workload.kernels.size(); ++i) {
        const auto& projection = workload.kernels[i];
        const std::string binding =
            projection.kind == projection_kind::scaled
                ? name_or_dash(projection.source_binding) +
                      (projection.binding_changes ? " -> " + name_or_dash(projection.target_binding) : "")
                : "-";
        summary.row({labels[i], format_duration_ns(projection.measured_ns), format_duration_ns(projection.projected_ns),
                     speedup_text(projection), binding,
                     std::string(name(projection.kind)) + (projection.kind == projection_kind::unchanged
                                                               ? " (" + std::string(name(projection.source_bound)) + ")"
                                                           : projection.kind == projection_kind::scaled
                                                               ? " (" + std::string(name(projection.basis)) + ")"
                                                               : "")});
    }
    summary.row({"total", format_duration_ns(workload.measured_ns), format_duration_ns(workload.projected_ns),
                 workload.projected_ns > 0 ? format_times(workload.measured_ns / workload.projected_ns) : "-", "", ""});
    std::ostringstream out;
    out << capture.input << ": " << workload.source_gpu << " -> " << workload.target_gpu << "\n"
        << summary.text() << "\nassumptions:\n";
    for (const auto& assumption : workload.assumptions) out << "- " << assumption << "\n";
    return out.str();
}

}  // namespace

workload_projection project_analysis(const analysis& capture, const gpu_spec& target,
                                     const projection_options& options) {
    std::vector<kernel_projection> ks;
    ks.reserve(capture.kernels.size());
    for (const auto& kernel : capture.kernels) ks.push_back(project_kernel(kernel, capture.gpu, target, options));
    return project_workload(std::move(ks), capture.gpu, target, options);
}

const std::vector<printer<projection_view>>& projection_printers() {
    static const std::vector<printer<projection_view>> table = {
        {"markdown", [](const projection_view& view) { return markdown(view.capture, view.workload); }},
        {"json", [](const projection_view& view) { return json(view.capture, view.workload); }},
        {"terminal", [](const projection_view& view) { return terminal(view.capture, view.workload); }},
        {"html", [](const projection_view& view) { return doc::html_page(document_of(view.capture, view.workload)); }}};
    return table;
}

const std::vector<std::string>& projection_format_names() {
    static const std::vector<std::string> names = printer_names(projection_printers());
    return names;
}

std::string render_projection(const analysis& capture, const workload_projection& workload, const std::string& format) {
    return print_as(projection_printers(), format, projection_view{capture, workload});
}

}  // namespace roofline
