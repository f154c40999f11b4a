// What walking the rule trees over one kernel gives: the path with the value of every
// condition (the teaching view), the findings of the nodes that fired, and what was missing.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace roofline::rules {

struct evidence_value {
    std::string expression;
    std::optional<double> value;
};

struct visited_node {
    std::string tree, node, title;
    int depth = 0;
    enum class outcome { fired, not_fired, cannot_evaluate } result = outcome::not_fired;
    std::vector<evidence_value> values;  // the condition's names with their values
    std::vector<std::string> missing;    // names the capture lacks
};

struct finding {
    std::string id, tree, node, title, explain;
    std::vector<evidence_value> evidence;
    std::vector<std::string> fixes;
    std::string fixed_time_formula;           // the rule's estimate, as written
    std::optional<double> est_time_after_ns;  // what the kernel would take with the fix in
    std::optional<double> est_speedup;        // duration / time after (>= 1)
    std::optional<double> est_time_saved_ns;  // duration - time after (>= 0)
};

struct diagnosis {
    std::vector<visited_node> path;
    std::vector<finding> findings;  // ranked: by time saved, then those without an estimate in tree order
    std::vector<std::string> missing_metrics;  // over the whole walk, for the ncu flags to collect them
};

}  // namespace roofline::rules
