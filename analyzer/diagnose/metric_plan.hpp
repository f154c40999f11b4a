// The smallest set of ncu metrics the engine needs on a GH100 (H100, H200), computed by the program,
// not kept by hand: the candidates are what the reader keeps (the metric catalogue and its families,
// analyzer/base/metrics.json), and which of them the model and each rule node need is learnt by
// running the model and every rule node over a kernel that holds all of them, recording each lookup
// (metric_read_log). So the list `roofline metrics` prints cannot drift from the code.
#pragma once

#include "analyzer/diagnose/rule_tree.hpp"
#include "models/gpu_spec.hpp"

#include <string>
#include <vector>

namespace roofline::rules {

struct planned_metric {
    std::string id;
    // Required: the model reads it (the roofline, the classification). Optional: only the diagnosis
    // reads it, so a capture without it is placed all the same and only `needed_by` cannot be evaluated.
    bool required = false;
    // The rule nodes ("tree/node") that read it, directly or through a derived value.
    std::vector<std::string> needed_by;
    std::string collected_by;  // the Nsight Compute section(s) that collect it
};

struct metric_plan {
    // What `ncu --metrics` can collect, in id order.
    std::vector<planned_metric> metrics;
    // ncu's derived__ metrics: defined inside its section files, so --metrics cannot ask for them; a
    // capture gets them only from the sections named in collected_by.
    std::vector<planned_metric> section_only;
    // The stock sections that define them: `--section` beside `--metrics`.
    std::vector<std::string> sections;
    // Catalogue ids a GH100 does not have (other chips' tensor paths), left out.
    std::vector<std::string> absent;
    std::size_t required_count() const;
};

// `trees`: the rule trees whose nodes are planned for (load_rule_trees()); `gh100`: the spec the model
// runs on (h100-sxm).
metric_plan make_metric_plan(const std::vector<rule_tree>& trees, const roofline::gpu_spec& gh100);

// The plan for the shipped rule trees plus *.json in rules_dir, on the shipped h100-sxm spec.
metric_plan make_gh100_metric_plan(const std::string& rules_dir = "");

// The ids of plan.metrics, comma-separated: what `ncu --metrics` takes.
std::string metrics_argument(const metric_plan& plan);

}  // namespace roofline::rules
