#include "analyzer/report/metric_plan_text.hpp"

#include "analyzer/render/table.hpp"

#include <map>
#include <set>
#include <sstream>

namespace roofline {
namespace {

std::string plan_joined(const std::vector<std::string>& v, const char* separator) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : separator) + x;
    return s;
}

std::string chip_title(const diagnose::metric_plan& p) {
    const chip& c = *p.for_chip;
    return c.id + " (CC " + plan_joined(c.compute_capabilities, ", ") + ": " + c.gpus + ")";
}

std::string plan_counts(const diagnose::metric_plan& plan) {
    const std::size_t required = plan.required_count(), all = plan.ncu_names().size();
    return std::to_string(all) + " metrics: " + std::to_string(required) + " required by the model, " +
           std::to_string(all - required) +
           " optional (no model code reads them; at most the rule nodes listed with them need them)";
}

// "CC_80" items of a Filter, one per chip.
std::string filter_items(const std::set<const chip*>& on, const char* indent) {
    std::string s = std::string(indent) + "Filter {\n";
    for (const auto& c : chips())
        if (on.count(&c))
            s += std::string(indent) + "  Items {\n" + indent + "    MinArch: " + c.ncu_arch + "\n" + indent +
                 "    MaxArch: " + c.ncu_arch + "\n" + indent + "  }\n";
    return s + indent + "}\n";
}

}  // namespace

std::string metric_plan_list(const std::vector<diagnose::metric_plan>& plans) {
    if (plans.size() == 1) return diagnose::metrics_argument(plans.front()) + "\n";
    std::string s;
    for (const auto& p : plans) s += "# " + chip_title(p) + "\n" + diagnose::metrics_argument(p) + "\n";
    return s;
}

std::string metric_plan_section(const std::vector<diagnose::metric_plan>& plans) {
    // Which chips collect each name, and what each name is needed for.
    std::map<std::string, std::set<const chip*>> chips_of;
    std::map<std::string, bool> required;
    std::map<std::string, std::set<std::string>> needed_by;
    std::map<std::string, const diagnose::planned_metric*> derived;
    for (const auto& p : plans) {
        for (const auto& m : p.metrics)
            for (const auto& n : m.names) {
                chips_of[n].insert(p.for_chip);
                required[n] = required[n] || m.required;
                needed_by[n].insert(m.needed_by.begin(), m.needed_by.end());
            }
        for (const auto& m : p.section_only) derived.emplace(m.id, &m);
    }
    std::ostringstream o;
    o << "# The metrics `roofline analyze` reads, written by `roofline metrics --format section`, for";
    for (const auto& p : plans) o << "\n#   " << chip_title(p) << ": " << plan_counts(p);
    o << ".\n# Use: mkdir -p DIR && roofline metrics --format section -o DIR/" << plan_section_id << ".section\n"
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
            o << "  # optional: "
              << (by.empty() ? std::string("no rule node reads it alone")
                             : plan_joined(std::vector<std::string>(by.begin(), by.end()), ", "))
              << "\n";
        o << "  Metrics {\n    Label: \"" << name << "\"\n    Name: \"" << name << "\"\n"
          << filter_items(on, "    ") << "  }\n";
    }
    o << "}\n";
    if (!derived.empty()) {
        // ncu computes these from SASS-level source metrics; ncu's SourceCounters section defines them the
        // same way, but --section-folder hides it.
        std::set<std::string> inputs;
        for (const auto& [id, m] : derived)
            if (const metric_entry* e = find_metric(id); e && e->source)
                inputs.insert(e->source->inputs.begin(), e->source->inputs.end());
        o << "SourceMetrics {\n";
        for (const auto& n : inputs) o << "  Metrics {\n    Label: \"" << n << "\"\n    Name: \"" << n << "\"\n  }\n";
        for (const auto& [id, m] : derived)
            o << "  Metrics {\n    Label: \"" << id << "\"\n    Name: \"" << id << "\"\n  }\n";
        o << "}\nMetricDefinitions {\n";
        for (const auto& [id, m] : derived)
            if (const metric_entry* e = find_metric(id); e && e->source)
                o << "  MetricDefinitions {\n    Name: \"" << id << "\"\n    Expression: \"" << e->source->expression
                  << "\"\n  }\n";
        o << "}\n";
    }
    return o.str();
}

std::string metric_plan_markdown(const std::vector<diagnose::metric_plan>& plans) {
    std::ostringstream o;
    o << "# The metrics the engine reads\n\nFound by running the model (on the GPUs of each chip) and every rule node "
         "over a kernel that holds "
      << "every quantity the chip counts, recording what each reads. A name per chip: the catalogue's id where the "
         "chip counts it under "
      << "that name, the chip's own counters otherwise (their sum), `0` where the chip has no such unit.\n\n";
    for (const auto& p : plans) o << "- " << chip_title(p) << ", run on " << p.gpu << ": " << plan_counts(p) << ".\n";
    std::vector<std::string> head = {"metric", "need", "rule nodes that read it"};
    for (const auto& p : plans) head.push_back(p.for_chip->id);
    // Every quantity any plan reads, with its row per chip.
    struct row {
        bool required = false;
        std::set<std::string> by;
        std::map<const chip*, std::string> names;
    };
    std::map<std::string, row> rows;
    auto add = [&](const diagnose::metric_plan& p, const diagnose::planned_metric& m, const std::string& cell) {
        row& r = rows[m.id];
        r.required = r.required || m.required;
        r.by.insert(m.needed_by.begin(), m.needed_by.end());
        r.names[p.for_chip] = cell;
    };
    for (const auto& p : plans) {
        for (const auto& m : p.metrics)
            add(p, m, m.names == std::vector<std::string>{m.id} ? "id" : code_span(plan_joined(m.names, " + ")));
        for (const auto& m : p.section_only) add(p, m, "section");
        for (const auto& m : p.unavailable) add(p, m, "no counter");
    }
    table t(head);
    for (const auto& [id, r] : rows) {
        std::vector<std::string> cells = {code_span(id), r.required ? "required" : "optional",
                                          plan_joined(std::vector<std::string>(r.by.begin(), r.by.end()), ", ")};
        for (const auto& p : plans) {
            auto it = r.names.find(p.for_chip);
            std::string cell = it != r.names.end() ? it->second : "";
            if (cell.empty())
                if (const metric_entry* m = find_metric(id); m && m->form_on(p.for_chip).what == chip_form::kind::zero)
                    cell = "0";
            cells.push_back(cell);
        }
        t.row(cells);
    }
    o << "\n" << t.markdown();
    o << "\n`id`: collected under the catalogue's id; `section`: derived by ncu from SASS-level source metrics, which "
         "only a section file "
         "defines (`roofline metrics --format section` writes one that does; with `--metrics`, add ";
    std::set<std::string> sections;
    for (const auto& p : plans) sections.insert(p.sections.begin(), p.sections.end());
    for (const auto& s : sections) o << "`--section " << s << "` ";
    o << "); `no counter`: the chip has the unit but no counter for it, so the engine says what it cannot decide "
         "there; `0`: the "
         "chip has no such unit.\n";
    return o.str();
}

}  // namespace roofline
