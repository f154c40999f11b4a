// `roofline explain NAME`: what a finding, a derived value, a metric the model reads, a stall
// reason or an error code means, from the same tables the engine runs on.
#pragma once

#include "analyzer/diagnose/rule_tree.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

// Markdown text for `name`, or nullopt when nothing of that name is known.
std::optional<std::string> explain(const std::string& name, const std::vector<diagnose::rule_tree>& trees);

}  // namespace roofline
