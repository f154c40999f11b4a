// A diagnosis tree, loaded from rules/*.json: nodes with a condition over metrics and derived
// values, the evidence to show, a plain-words explanation, fixes, an optional finding id, and
// children walked only when the node fires. See rules/README.md for the format.
#pragma once

#include "expression.hpp"

#include <string>
#include <vector>

namespace roofline::rules {

struct fix {
    std::string text;
    std::optional<expression> when;  // applies only where this holds
};

struct rule_node {
    std::string id;
    std::string title;
    expression when;
    std::vector<expression> evidence;
    std::string explain;
    std::string finding;  // public finding id ("" for inner nodes that only route)
    // The kernel's time once the fix is in (ns): the floor on the roof that binds after it, at the
    // practical share of that roof. Absent: the finding carries no estimate.
    std::optional<expression> fixed_time;
    std::vector<fix> fixes;
    std::vector<rule_node> children;
};

struct rule_tree {
    std::string id;
    std::string title;
    std::string description;
    std::string file;
    std::vector<rule_node> roots;
};

// Throws input_error (bad_rule) naming the file, the node and the column in the expression.
rule_tree parse_rule_tree(const std::string& json_text, const std::string& file);
// The shipped trees (compiled in), plus *.json in extra_dir; the same id: the extra file wins.
std::vector<rule_tree> load_rule_trees(const std::string& extra_dir = "");

}  // namespace roofline::rules
