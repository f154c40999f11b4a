// Walks the rule trees over one kernel: the path with the value of every condition (the
// teaching view), the findings of the nodes that fired, and the counters a node lacked.
#pragma once

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/diagnosis.hpp"
#include "analyzer/diagnose/rule_tree.hpp"
#include "models/kernel_result.hpp"

#include <string>
#include <vector>

namespace roofline::diagnose {

// The metrics the evidence of the catch-all finding "unexplained" reads: every stall reason ncu
// samples and the latency they divide.
const std::vector<std::string>& catch_all_metrics();

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& kernel, const gpu_spec& spec);
// Ranks a kernel's findings by the time each saves alone (those without an estimate last, in tree
// order), drops near-roof where another finding promises more than 1.25x, and gives each its
// share of the combined saving. diagnose() calls it; so does anything that adds a finding later.
// Findings whose fix would leave the time within run-to-run noise go to the notes: not opportunities.
void drop_gainless(diagnosis& kernel_diagnosis);
void settle_findings(diagnosis& kernel_diagnosis, const kernel_result& kernel, const gpu_spec& spec);
// What collects the metrics of `missing` (catalogue ids) on chip `target_chip` (nullptr: a chip the catalogue
// does not know, asked for by the ids): the chip's own names of each for --metrics, and --section for
// the derived__ metrics only a section defines. Quantities the chip has no counter for cannot be
// collected at all: they are `uncollectable`, and stay unknown on this GPU.
struct collect_flags {
    std::vector<std::string> metrics;        // sorted, each once
    std::vector<std::string> sections;       // stock sections (SourceCounters)
    std::vector<std::string> uncollectable;  // catalogue ids
    bool empty() const { return metrics.empty() && sections.empty(); }
    // "--metrics a,b --section S", or "" where nothing can be collected.
    std::string text() const;
};
collect_flags ncu_flags_for(const std::vector<std::string>& missing, const chip* target_chip);

}  // namespace roofline::diagnose
