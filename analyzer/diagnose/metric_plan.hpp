// The smallest set of ncu metrics the engine needs on one chip, computed by the program, not kept by
// hand: the candidates are the catalogue's quantities as that chip counts them (analyzer/base/metrics.json,
// `on`), and which of them the model and each rule node need is learnt by running the model (on a GPU of
// that chip) and every rule node over a kernel that holds all of them, recording each lookup
// (metric_read_log). So the list `roofline metrics` prints cannot drift from the code, and every name in it
// is the chip's own (tests/test_metric_names.cpp holds them to ncu's listing for the chip).
#pragma once

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/rule_tree.hpp"
#include "models/gpu_spec.hpp"

#include <string>
#include <vector>

namespace roofline::diagnose {

struct planned_metric {
    std::string id;                  // the catalogue quantity (Hopper's name)
    std::vector<std::string> names;  // what to collect on this chip: the id, or the chip's counters for it
    // Required: the model reads it (the roofline, the classification). Optional: only the diagnosis
    // reads it, so a capture without it is placed all the same and only `needed_by` cannot be evaluated.
    bool required = false;
    // The rule nodes ("tree/node") that read it, directly or through a derived value.
    std::vector<std::string> needed_by;
    std::string collected_by;  // the Nsight Compute section(s) that collect it
};

struct metric_plan {
    const chip* for_chip = nullptr;
    std::string gpu;  // the spec the model ran on
    // What `ncu --metrics` can collect on this chip, in id order.
    std::vector<planned_metric> metrics;
    // Derived from SASS-level source metrics (ncu's MetricDefinitions): a section file defines them
    // (`roofline metrics --format section` writes one that does), so --metrics cannot ask for them.
    std::vector<planned_metric> section_only;
    // The stock sections that define them: `--section` beside `--metrics`.
    std::vector<std::string> sections;
    // Quantities the engine reads that this chip has no counter for: unknown on it, whatever is collected.
    std::vector<planned_metric> unavailable;
    // The names of ncu_names() that a required quantity is collected under.
    std::size_t required_count() const;
    // Every name of `metrics`, sorted, each once: what `ncu --metrics` takes.
    std::vector<std::string> ncu_names() const;
};

// `trees`: the rule trees whose nodes are planned for (load_rule_trees()); `gpu`: the spec the model
// runs on, whose compute capability chooses the chip. Throws input_error for a GPU of a compute
// capability whose counter names the catalogue does not know.
metric_plan make_metric_plan(const std::vector<rule_tree>& trees, const roofline::gpu_spec& gpu);

// The plan of the shipped rule trees plus *.json in rules_dir for one shipped GPU (`roofline gpus`),
// by id or name; throws input_error for an unknown id.
metric_plan make_metric_plan_for(const std::string& gpu, const std::string& rules_dir = "");
// One plan per chip the catalogue knows, each on its first shipped GPU, in chip order.
std::vector<metric_plan> make_metric_plans(const std::string& rules_dir = "");

// The names of plan.metrics, comma-separated: what `ncu --metrics` takes.
std::string metrics_argument(const metric_plan& plan);

}  // namespace roofline::diagnose
