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

std::string idle_of(const device_timeline* d, gap_cause c) {
    return d ? duration(double(d->total(c).total_ns)) + " (" + std::to_string(d->total(c).count) + ")" : "-";
}

std::string first_finding(const trace_side& s, std::int32_t device) {
    for (const auto& f : s.findings)
        if (f.device == device)
            return std::string(finding_id(f.kind)) +
                   (f.est_speedup ? " (up to " + format_times(*f.est_speedup) + ")" : "");
    return "-";
}

}  // namespace

static doc::document timeline_diff_document(const timeline_diff& d) {
    doc::document o;
    o.add_heading(1, doc::phrase("Timeline diff: ").code(d.base.source->file).words(" -> ").code(d.next.source->file));
    o.add_paragraph(d.per_step ? "Times are per step: each device's span over the steps its trace marks (" +
                                     std::to_string(d.base.model.steps.count) + " and " +
                                     std::to_string(d.next.model.steps.count) + ")."
                               : std::string("Times are each device's span: the traces do not both mark steps."));
    for (const auto& c : d.devices) {
        o.add_heading(2, "GPU " + std::to_string(c.device));
        if (!c.base || !c.next) {
            o.add_paragraph(std::string("Only in the ") + (c.base ? "base" : "new") + " trace.");
            continue;
        }
        doc::table_block t{{"", "before", "after", "change"}, {}};
        t.rows.push_back({d.per_step ? "time per step" : "span", duration(c.base_step_ns), duration(c.next_step_ns),
                          change(c.change_pct)});
        t.rows.push_back({"GPU busy", format_percent(c.base->utilisation()), format_percent(c.next->utilisation()),
                          signed_decimals((c.next->utilisation() - c.base->utilisation()) * 100.0, 1) + " points"});
        for (gap_cause g : all_causes)
            if (c.base->total(g).count + c.next->total(g).count > 0)
                t.rows.push_back(
                    {std::string("idle: ") + cause_name(g) + " (gaps)", idle_of(c.base, g), idle_of(c.next, g), ""});
        auto launches = [](const device_timeline& t) {
            std::size_t n = 0;
            for (const auto& k : t.kernel_totals) n += k.launches;
            return std::to_string(n);
        };
        t.rows.push_back(
            {d.per_step ? "kernels the steps launched" : "kernels launched", launches(*c.base), launches(*c.next), ""});
        t.rows.push_back({"first finding", first_finding(d.base, c.device), first_finding(d.next, c.device), ""});
        o.add_table(std::move(t));
        if (!c.appeared.empty() || !c.gone.empty()) {
            doc::table_block k{{"kernel", "", "GPU time", "launches"}, {}};
            for (const auto& x : c.gone)
                k.rows.push_back(
                    {name_of(x.name), "went away", duration(double(x.base_ns)), std::to_string(x.base_launches)});
            for (const auto& x : c.appeared)
                k.rows.push_back(
                    {name_of(x.name), "appeared", duration(double(x.next_ns)), std::to_string(x.next_launches)});
            o.add_paragraph("Kernels that appeared or went away:");
            o.add_table(std::move(k));
        }
        if (!c.moved.empty()) {
            doc::table_block k{{"kernel", "GPU time before", "after", "launches before", "after"}, {}};
            for (const auto& x : c.moved)
                k.rows.push_back({name_of(x.name), duration(double(x.base_ns)), duration(double(x.next_ns)),
                                  std::to_string(x.base_launches), std::to_string(x.next_launches)});
            o.add_paragraph("Kernels on both sides whose GPU time moved most:");
            o.add_table(std::move(k));
        }
    }
    if (d.fail_if_slower_pct) {
        std::vector<doc::phrase> failures(d.gate_failures.begin(), d.gate_failures.end());
        o.add_list(std::move(failures), "Gate (--fail-if-slower " + significant(*d.fail_if_slower_pct, 6) +
                                            "%): " + (d.gate_failed() ? "failed" : "passed") + ".");
    }
    return o;
}

std::string timeline_diff_markdown(const timeline_diff& d) {
    // A blank line ends the report where no gate lines do (as it always has).
    return doc::markdown(timeline_diff_document(d)) + (d.fail_if_slower_pct ? "" : "\n");
}

std::string timeline_diff_html(const timeline_diff& d) { return doc::html_page(timeline_diff_document(d)); }

std::string timeline_diff_terminal(const timeline_diff& d) {
    std::ostringstream o;
    o << d.base.source->file << " -> " << d.next.source->file << "\n";
    for (const auto& c : d.devices) {
        if (!c.base || !c.next) continue;
        o << "GPU " << c.device << ": " << (d.per_step ? "per step " : "span ") << duration(c.base_step_ns) << " -> "
          << duration(c.next_step_ns) << " (" << change(c.change_pct) << "), busy "
          << format_percent(c.base->utilisation()) << " -> " << format_percent(c.next->utilisation()) << ", "
          << c.appeared.size() << " kernels appeared, " << c.gone.size() << " went away\n";
    }
    for (const auto& f : d.gate_failures) o << "gate failed: " << f << "\n";
    return o.str();
}

std::string timeline_diff_json(const timeline_diff& d) {
    ordered_json j;
    j["schema"] = "roofline-timeline-diff/1";
    j["base"] = d.base.source->file;
    j["new"] = d.next.source->file;
    j["per_step"] = d.per_step;
    ordered_json devices = ordered_json::array();
    auto side = [](const device_timeline* t, double step) {
        if (!t) return ordered_json(nullptr);
        ordered_json by_cause = ordered_json::object();
        for (gap_cause g : all_causes)
            by_cause[cause_name(g)] = {{"count", t->total(g).count}, {"total_ns", t->total(g).total_ns}};
        return ordered_json{{"time_ns", std::llround(step)},
                            {"busy_ns", t->busy_ns},
                            {"utilisation", json_number<ordered_json>(t->utilisation())},
                            {"kernels", t->kernels},
                            {"gaps_by_cause", by_cause}};
    };
    auto kernels = [](const std::vector<kernel_change>& v) {
        ordered_json a = ordered_json::array();
        for (const auto& k : v)
            a.push_back({{"name", k.name},
                         {"base_ns", k.base_ns},
                         {"new_ns", k.next_ns},
                         {"base_launches", k.base_launches},
                         {"new_launches", k.next_launches}});
        return a;
    };
    for (const auto& c : d.devices) {
        ordered_json e = {
            {"device", c.device}, {"base", side(c.base, c.base_step_ns)}, {"new", side(c.next, c.next_step_ns)}};
        e["change_pct"] = c.change_pct ? json_number<ordered_json>(*c.change_pct) : ordered_json(nullptr);
        e["appeared"] = kernels(c.appeared);
        e["gone"] = kernels(c.gone);
        e["moved"] = kernels(c.moved);
        devices.push_back(std::move(e));
    }
    j["devices"] = devices;
    j["gate"] = d.fail_if_slower_pct ? ordered_json{{"fail_if_slower_pct", *d.fail_if_slower_pct},
                                                    {"failed", d.gate_failed()},
                                                    {"failures", d.gate_failures}}
                                     : ordered_json(nullptr);
    return json_text(j);
}

}  // namespace roofline::timeline
