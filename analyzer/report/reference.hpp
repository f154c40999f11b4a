// The reference pages the CLI prints about the engine itself, from the tables it runs on: the
// rule trees (a list, or one tree with its mermaid diagram), the metric catalogue (docs/metrics.md)
// and the GPU specs it knows.
#pragma once

#include "analyzer/diagnose/rule_tree.hpp"
#include "models/gpu_spec.hpp"

#include <string>
#include <vector>

namespace roofline {

std::string rule_trees_markdown(const std::vector<diagnose::rule_tree>& trees);
std::string rule_tree_markdown(const diagnose::rule_tree& tree);
std::string metric_catalogue_markdown();
std::string gpu_specs_markdown(const std::vector<gpu_spec>& specs);
// The same as JSON, for scripts: every figure with its source and whether it is estimated; every node
// with its condition, finding, estimate and fixes as written.
std::string gpu_specs_json(const std::vector<gpu_spec>& specs);
std::string rule_trees_json(const std::vector<diagnose::rule_tree>& trees);

}  // namespace roofline
