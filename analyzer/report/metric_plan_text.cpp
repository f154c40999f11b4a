#include "analyzer/report/metric_plan_text.hpp"

#include "analyzer/report/table.hpp"

#include <sstream>

namespace roofline {
namespace {

std::string plan_joined(const std::vector<std::string>& v, const char* separator) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : separator) + x;
    return s;
}

std::string plan_counts(const rules::metric_plan& plan) {
    const std::size_t required = plan.required_count();
    return std::to_string(plan.metrics.size()) + " metrics: " + std::to_string(required) + " required by the model, " +
           std::to_string(plan.metrics.size() - required) + " optional (no model code reads them; at most the rule nodes listed with them need them)";
}

}  // namespace

std::string metric_plan_list(const rules::metric_plan& plan) { return rules::metrics_argument(plan) + "\n"; }

std::string metric_plan_section(const rules::metric_plan& plan) {
    std::ostringstream o;
    o << "# The metrics `roofline analyze` reads on a GH100 (H100, H200), written by `roofline metrics --format section`.\n"
      << "# Use: ncu --section-folder DIR --section " << plan_section_id << " -o rep ./app\n"
      << "# " << plan_counts(plan) << ".\n";
    if (!plan.section_only.empty()) {
        o << "# Not here: ncu's derived__ metrics, which only its own section files define (stock sections " << plan_joined(plan.sections, ", ")
          << "; or --set full):\n";
        for (const auto& m : plan.section_only) o << "#   " << m.id << " (" << m.collected_by << ")\n";
    }
    o << "Identifier: \"" << plan_section_id << "\"\n"
      << "DisplayName: \"Roofline engine metrics\"\n"
      << "Description: \"Every metric the roofline engine's model and rule trees read (roofline metrics).\"\n"
      << "Header {\n";
    for (const auto& m : plan.metrics) {
        if (!m.required) o << "  # optional: " << (m.needed_by.empty() ? std::string("no rule node reads it alone") : plan_joined(m.needed_by, ", ")) << "\n";
        o << "  Metrics {\n    Label: \"" << m.id << "\"\n    Name: \"" << m.id << "\"\n  }\n";
    }
    o << "}\n";
    return o.str();
}

std::string metric_plan_markdown(const rules::metric_plan& plan) {
    std::ostringstream o;
    o << "# The metrics the engine reads on a GH100 (H100, H200)\n\n"
      << plan_counts(plan) << ". Found by running the model and every rule node over a kernel that holds every metric the reader "
      << "keeps (the metric catalogue), recording what each reads. `roofline metrics` prints the list for `ncu --metrics`.\n\n";
    table t({"metric", "need", "rule nodes that read it", "collected by"});
    for (const auto& m : plan.metrics)
        t.row({code(m.id), m.required ? "required" : "optional", m.needed_by.empty() ? "" : plan_joined(m.needed_by, ", "), m.collected_by});
    o << t.markdown();
    if (!plan.section_only.empty()) {
        o << "\nOnly ncu's own section files define these (`derived__`), so `--metrics` cannot collect them; the stock sections "
          << plan_joined(plan.sections, " and ") << " (`--section`, beside `--metrics`) or `--set full` do:\n\n";
        table d({"metric", "need", "rule nodes that read it", "collected by"});
        for (const auto& m : plan.section_only)
            d.row({code(m.id), m.required ? "required" : "optional", m.needed_by.empty() ? "" : plan_joined(m.needed_by, ", "), m.collected_by});
        o << d.markdown();
    }
    if (!plan.absent.empty()) {
        o << "\nLeft out: catalogue metrics a GH100 does not have (other chips' tensor paths), which ncu would refuse:";
        for (const auto& id : plan.absent) o << " " << code(id);
        o << ".\n";
    }
    return o.str();
}

}  // namespace roofline
