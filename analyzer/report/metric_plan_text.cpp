#include "analyzer/report/metric_plan_text.hpp"

#include "analyzer/render/table.hpp"

#include <map>
#include <set>
#include <sstream>

namespace roofline {
namespace {

std::string plan_joined(const std::vector<std::string>& parts, const char* separator) {
    std::string text;
    for (const auto& part : parts) text += (text.empty() ? "" : separator) + part;
    return text;
}

std::string chip_title(const diagnose::metric_plan& plan) {
    const chip& plan_chip = *plan.for_chip;
    return plan_chip.id + " (CC " + plan_joined(plan_chip.compute_capabilities, ", ") + ": " + plan_chip.gpus + ")";
}

std::string plan_counts(const diagnose::metric_plan& plan) {
    const std::size_t required = plan.required_count(), all = plan.ncu_names().size();
    return std::to_string(all) + " metrics: " + std::to_string(required) + " required by the model, " +
           std::to_string(all - required) +
           " optional (no model code reads them; at most the rule nodes listed with them need them)";
}

// "CC_80" items of a Filter, one per chip.
std::string filter_items(const std::set<const chip*>& on, const char* indent) {
    std::string text = std::string(indent) + "Filter {\n";
    for (const auto& chip_entry : chips())
        if (on.count(&chip_entry))
            text += std::string(indent) + "  Items {\n" + indent + "    MinArch: " + chip_entry.ncu_arch + "\n" +
                    indent + "    MaxArch: " + chip_entry.ncu_arch + "\n" + indent + "  }\n";
    return text + indent + "}\n";
}

}  // namespace

std::string metric_plan_list(const std::vector<diagnose::metric_plan>& plans) {
    if (plans.size() == 1) return diagnose::metrics_argument(plans.front()) + "\n";
    std::string text;
    for (const auto& plan : plans) text += "# " + chip_title(plan) + "\n" + diagnose::metrics_argument(plan) + "\n";
    return text;
}

std::string metric_plan_section(const std::vector<diagnose::metric_plan>& plans) {
    // Which chips collect each name, and what each name is needed for.
    std::map<std::string, std::set<const chip*>> chips_of;
    std::map<std::string, bool> required;
    std::map<std::string, std::set<std::string>> needed_by;
    std::map<std::string, const diagnose::planned_metric*> derived;
    for (const auto& plan : plans) {
        for (const auto& metric : plan.metrics)
            for (const auto& ncu_name : metric.names) {
                chips_of[ncu_name].insert(plan.for_chip);
                required[ncu_name] = required[ncu_name] || metric.required;
                needed_by[ncu_name].insert(metric.needed_by.begin(), metric.needed_by.end());
            }
        for (const auto& metric : plan.section_only) derived.emplace(metric.id, &metric);
    }
    std::ostringstream out;
    out << "# The metrics `roofline analyze` reads, written by `roofline metrics --format section`, for";
    for (const auto& plan : plans) out << "\n#   " << chip_title(plan) << ": " << plan_counts(plan);
    out << ".\n# Use: mkdir -p DIR && roofline metrics --format section -o DIR/" << plan_section_id << ".section\n"
        << "#      ncu --section-folder DIR --section " << plan_section_id << " -o rep ./app\n"
        << "# Each name carries the compute capabilities whose chips count the quantity under it (Filter); a GPU of\n"
        << "# another compute capability collects none of them.\n"
        << "Identifier: \"" << plan_section_id << "\"\n"
        << "DisplayName: \"Roofline engine metrics\"\n"
        << "Description: \"Every metric the roofline engine's model and rule trees read (roofline metrics).\"\n"
        << "Metrics {\n";
    for (const auto& [name, on] : chips_of) {
        const auto& by = needed_by[name];
        if (!required[name])
            out << "  # optional: "
                << (by.empty() ? std::string("no rule node reads it alone")
                               : plan_joined(std::vector<std::string>(by.begin(), by.end()), ", "))
                << "\n";
        out << "  Metrics {\n    Label: \"" << name << "\"\n    Name: \"" << name << "\"\n"
            << filter_items(on, "    ") << "  }\n";
    }
    out << "}\n";
    if (!derived.empty()) {
        // ncu computes these from SASS-level source metrics; ncu's SourceCounters section defines them the
        // same way, but --section-folder hides it.
        std::set<std::string> inputs;
        for (const auto& [id, metric] : derived)
            if (const metric_entry* entry = find_metric(id); entry && entry->source)
                inputs.insert(entry->source->inputs.begin(), entry->source->inputs.end());
        out << "SourceMetrics {\n";
        for (const auto& input : inputs)
            out << "  Metrics {\n    Label: \"" << input << "\"\n    Name: \"" << input << "\"\n  }\n";
        for (const auto& [id, metric] : derived)
            out << "  Metrics {\n    Label: \"" << id << "\"\n    Name: \"" << id << "\"\n  }\n";
        out << "}\nMetricDefinitions {\n";
        for (const auto& [id, metric] : derived)
            if (const metric_entry* entry = find_metric(id); entry && entry->source)
                out << "  MetricDefinitions {\n    Name: \"" << id << "\"\n    Expression: \""
                    << entry->source->expression << "\"\n  }\n";
        out << "}\n";
    }
    return out.str();
}

std::string metric_plan_markdown(const std::vector<diagnose::metric_plan>& plans) {
    std::ostringstream out;
    out << "# The metrics the engine reads\n\nFound by running the model (on the GPUs of each chip) and every rule "
           "node "
           "over a kernel that holds "
        << "every quantity the chip counts, recording what each reads. A name per chip: the catalogue's id where the "
           "chip counts it under "
        << "that name, the chip's own counters otherwise (their sum), `0` where the chip has no such unit.\n\n";
    for (const auto& plan : plans)
        out << "- " << chip_title(plan) << ", run on " << plan.gpu << ": " << plan_counts(plan) << ".\n";
    std::vector<std::string> head = {"metric", "need", "rule nodes that read it"};
    for (const auto& plan : plans) head.push_back(plan.for_chip->id);
    // Every quantity any plan reads, with its row per chip.
    struct row {
        bool required = false;
        std::set<std::string> by;
        std::map<const chip*, std::string> names;
    };
    std::map<std::string, row> rows;
    auto add = [&](const diagnose::metric_plan& plan, const diagnose::planned_metric& metric, const std::string& cell) {
        row& metric_row = rows[metric.id];
        metric_row.required = metric_row.required || metric.required;
        metric_row.by.insert(metric.needed_by.begin(), metric.needed_by.end());
        metric_row.names[plan.for_chip] = cell;
    };
    for (const auto& plan : plans) {
        for (const auto& metric : plan.metrics)
            add(plan, metric,
                metric.names == std::vector<std::string>{metric.id} ? "id"
                                                                    : code_span(plan_joined(metric.names, " + ")));
        for (const auto& metric : plan.section_only) add(plan, metric, "section");
        for (const auto& metric : plan.unavailable) add(plan, metric, "no counter");
    }
    table metrics_table(head);
    for (const auto& [id, metric_row] : rows) {
        std::vector<std::string> cells = {
            code_span(id), metric_row.required ? "required" : "optional",
            plan_joined(std::vector<std::string>(metric_row.by.begin(), metric_row.by.end()), ", ")};
        for (const auto& plan : plans) {
            auto it = metric_row.names.find(plan.for_chip);
            std::string cell = it != metric_row.names.end() ? it->second : "";
            if (cell.empty())
                if (const metric_entry* entry = find_metric(id);
                    entry && entry->form_on(plan.for_chip).what == chip_form::kind::zero)
                    cell = "0";
            cells.push_back(cell);
        }
        metrics_table.row(cells);
    }
    out << "\n" << metrics_table.markdown();
    out << "\n`id`: collected under the catalogue's id; `section`: derived by ncu from SASS-level source metrics, "
           "which "
           "only a section file "
           "defines (`roofline metrics --format section` writes one that does; with `--metrics`, add ";
    std::set<std::string> sections;
    for (const auto& plan : plans) sections.insert(plan.sections.begin(), plan.sections.end());
    for (const auto& section : sections) out << "`--section " << section << "` ";
    out << "); `no counter`: the chip has the unit but no counter for it, so the engine says what it cannot decide "
           "there; `0`: the "
           "chip has no such unit.\n";
    return out.str();
}

}  // namespace roofline
