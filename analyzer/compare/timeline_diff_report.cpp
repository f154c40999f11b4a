// `roofline diff` of two traces: markdown (and the HTML page), terminal and JSON.
#include "analyzer/base/format.hpp"
#include "analyzer/compare/timeline_diff.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/table.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace roofline::timeline {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string duration(double ns) { return format_duration_ns(ns); }
std::string change(const std::optional<double>& pct) { return pct ? signed_decimals(*pct, 1) + "%" : "-"; }
doc::phrase name_of(const std::string& kernel) { return doc::phrase().code(printable(short_name(kernel))); }

std::string idle_of(const device_timeline* device, gap_cause cause) {
    return device ? duration(double(device->total(cause).total_ns)) + " (" +
                        std::to_string(device->total(cause).count) + ")"
                  : "-";
}

std::string first_finding(const trace_side& side, std::int32_t device) {
    for (const auto& trace_finding : side.findings)
        if (trace_finding.device == device)
            return std::string(finding_id(trace_finding.kind)) +
                   (trace_finding.est_speedup ? " (up to " + format_times(*trace_finding.est_speedup) + ")" : "");
    return "-";
}

}  // namespace

static doc::document timeline_diff_document(const timeline_diff& diff) {
    doc::document page;
    page.add_heading(
        1, doc::phrase("Timeline diff: ").code(diff.base.source->file).words(" -> ").code(diff.next.source->file));
    page.add_paragraph(diff.per_step ? "Times are per step: each device's span over the steps its trace marks (" +
                                           std::to_string(diff.base.model.steps.count) + " and " +
                                           std::to_string(diff.next.model.steps.count) + ")."
                                     : std::string("Times are each device's span: the traces do not both mark steps."));
    for (const auto& device_diff : diff.devices) {
        page.add_heading(2, "GPU " + std::to_string(device_diff.device));
        if (!device_diff.base || !device_diff.next) {
            page.add_paragraph(std::string("Only in the ") + (device_diff.base ? "base" : "new") + " trace.");
            continue;
        }
        doc::table_block summary{{"", "before", "after", "change"}, {}};
        summary.rows.push_back({diff.per_step ? "time per step" : "span", duration(device_diff.base_step_ns),
                                duration(device_diff.next_step_ns), change(device_diff.change_pct)});
        summary.rows.push_back(
            {"GPU busy", format_percent(device_diff.base->utilisation()),
             format_percent(device_diff.next->utilisation()),
             signed_decimals((device_diff.next->utilisation() - device_diff.base->utilisation()) * 100.0, 1) +
                 " points"});
        for (gap_cause cause : all_causes)
            if (device_diff.base->total(cause).count + device_diff.next->total(cause).count > 0)
                summary.rows.push_back({std::string("idle: ") + cause_name(cause) + " (gaps)",
                                        idle_of(device_diff.base, cause), idle_of(device_diff.next, cause), ""});
        auto launches = [](const device_timeline& device) {
            std::size_t total_launches = 0;
            for (const auto& kernel : device.kernel_totals) total_launches += kernel.launches;
            return std::to_string(total_launches);
        };
        summary.rows.push_back({diff.per_step ? "kernels the steps launched" : "kernels launched",
                                launches(*device_diff.base), launches(*device_diff.next), ""});
        summary.rows.push_back({"first finding", first_finding(diff.base, device_diff.device),
                                first_finding(diff.next, device_diff.device), ""});
        page.add_table(std::move(summary));
        if (!device_diff.appeared.empty() || !device_diff.gone.empty()) {
            doc::table_block changed_table{{"kernel", "", "GPU time", "launches"}, {}};
            for (const auto& kernel : device_diff.gone)
                changed_table.rows.push_back({name_of(kernel.name), "went away", duration(double(kernel.base_ns)),
                                              std::to_string(kernel.base_launches)});
            for (const auto& kernel : device_diff.appeared)
                changed_table.rows.push_back({name_of(kernel.name), "appeared", duration(double(kernel.next_ns)),
                                              std::to_string(kernel.next_launches)});
            page.add_paragraph("Kernels that appeared or went away:");
            page.add_table(std::move(changed_table));
        }
        if (!device_diff.moved.empty()) {
            doc::table_block moved_table{{"kernel", "GPU time before", "after", "launches before", "after"}, {}};
            for (const auto& kernel : device_diff.moved)
                moved_table.rows.push_back({name_of(kernel.name), duration(double(kernel.base_ns)),
                                            duration(double(kernel.next_ns)), std::to_string(kernel.base_launches),
                                            std::to_string(kernel.next_launches)});
            page.add_paragraph("Kernels on both sides whose GPU time moved most:");
            page.add_table(std::move(moved_table));
        }
    }
    if (diff.fail_if_slower_pct) {
        std::vector<doc::phrase> failures(diff.gate_failures.begin(), diff.gate_failures.end());
        page.add_list(std::move(failures), "Gate (--fail-if-slower " + significant(*diff.fail_if_slower_pct, 6) +
                                               "%): " + (diff.gate_failed() ? "failed" : "passed") + ".");
    }
    return page;
}

std::string timeline_diff_markdown(const timeline_diff& diff) {
    // A blank line ends the report where no gate lines do (as it always has).
    return doc::markdown(timeline_diff_document(diff)) + (diff.fail_if_slower_pct ? "" : "\n");
}

std::string timeline_diff_html(const timeline_diff& diff) { return doc::html_page(timeline_diff_document(diff)); }

std::string timeline_diff_terminal(const timeline_diff& diff) {
    std::ostringstream out;
    out << diff.base.source->file << " -> " << diff.next.source->file << "\n";
    for (const auto& device_diff : diff.devices) {
        if (!device_diff.base || !device_diff.next) continue;
        out << "GPU " << device_diff.device << ": " << (diff.per_step ? "per step " : "span ")
            << duration(device_diff.base_step_ns) << " -> " << duration(device_diff.next_step_ns) << " ("
            << change(device_diff.change_pct) << "), busy " << format_percent(device_diff.base->utilisation()) << " -> "
            << format_percent(device_diff.next->utilisation()) << ", " << device_diff.appeared.size()
            << " kernels appeared, " << device_diff.gone.size() << " went away\n";
    }
    for (const auto& failure : diff.gate_failures) out << "gate failed: " << failure << "\n";
    return out.str();
}

std::string timeline_diff_json(const timeline_diff& diff) {
    ordered_json out;
    out["schema"] = "roofline-timeline-diff/1";
    out["base"] = diff.base.source->file;
    out["new"] = diff.next.source->file;
    out["per_step"] = diff.per_step;
    ordered_json devices = ordered_json::array();
    auto side = [](const device_timeline* device, double step) {
        if (!device) return ordered_json(nullptr);
        ordered_json by_cause = ordered_json::object();
        for (gap_cause cause : all_causes)
            by_cause[cause_name(cause)] = {{"count", device->total(cause).count},
                                           {"total_ns", device->total(cause).total_ns}};
        return ordered_json{{"time_ns", std::llround(step)},
                            {"busy_ns", device->busy_ns},
                            {"utilisation", json_number<ordered_json>(device->utilisation())},
                            {"kernels", device->kernels},
                            {"gaps_by_cause", by_cause}};
    };
    auto kernels = [](const std::vector<kernel_change>& changes) {
        ordered_json rows = ordered_json::array();
        for (const auto& kernel : changes)
            rows.push_back({{"name", kernel.name},
                            {"base_ns", kernel.base_ns},
                            {"new_ns", kernel.next_ns},
                            {"base_launches", kernel.base_launches},
                            {"new_launches", kernel.next_launches}});
        return rows;
    };
    for (const auto& device_diff : diff.devices) {
        ordered_json entry = {{"device", device_diff.device},
                              {"base", side(device_diff.base, device_diff.base_step_ns)},
                              {"new", side(device_diff.next, device_diff.next_step_ns)}};
        entry["change_pct"] =
            device_diff.change_pct ? json_number<ordered_json>(*device_diff.change_pct) : ordered_json(nullptr);
        entry["appeared"] = kernels(device_diff.appeared);
        entry["gone"] = kernels(device_diff.gone);
        entry["moved"] = kernels(device_diff.moved);
        devices.push_back(std::move(entry));
    }
    out["devices"] = devices;
    out["gate"] = diff.fail_if_slower_pct ? ordered_json{{"fail_if_slower_pct", *diff.fail_if_slower_pct},
                                                         {"failed", diff.gate_failed()},
                                                         {"failures", diff.gate_failures}}
                                          : ordered_json(nullptr);
    return json_text(out);
}

}  // namespace roofline::timeline
