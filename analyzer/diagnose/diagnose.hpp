// Walks the rule trees over one kernel: the path with the value of every condition (the
// teaching view), the findings of the nodes that fired, and the counters a node lacked.
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"
#include "analyzer/diagnose/rule_tree.hpp"
#include "models/kernel_result.hpp"

#include <string>
#include <vector>

namespace roofline::rules {

// The catch-all finding of a kernel no tree explains.
inline constexpr const char* unexplained_title = "No rule explains this kernel's time";

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& kernel, const gpu_spec& spec);
// Ranks a kernel's findings by the time each saves alone (those without an estimate last, in tree
// order), drops near-roof where another finding promises more than 1.25x, and gives each its
// share of the combined saving. diagnose() calls it; so does anything that adds a finding later.
void settle_findings(diagnosis& d, const kernel_result& kernel, const gpu_spec& spec);
// "--metrics a,b" for the metric ids in `missing` (derived names need --set full).
std::string ncu_flags_for(const std::vector<std::string>& missing);

}  // namespace roofline::rules
