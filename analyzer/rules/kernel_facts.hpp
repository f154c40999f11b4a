// The names a rule can read for one kernel: every metric of its capture (by ncu id) and the
// engine's derived values (roofline, classification, launch shape), with their types.
#pragma once

#include "analyzer/analysis.hpp"
#include "expression.hpp"

#include <string>
#include <vector>

namespace roofline::rules {

// The type of a name for the loader: derived names, util_<resource>, and any ncu metric id.
std::optional<value_type> fact_type(const std::string& name);
// The derived names with a one-line meaning, for `roofline explain` and rules/README.md.
const std::vector<std::pair<std::string, std::string>>& derived_fact_docs();
// A lookup over one analysed kernel on the GPU of `spec` (for the practical fractions).
name_values kernel_facts(const kernel_result& k, const gpu_spec& spec);

}  // namespace roofline::rules
