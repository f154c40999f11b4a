// The metric catalogue (analyzer/base/metrics.json, compiled in): every ncu metric id the
// engine reads or a rule may name, with its unit, meaning, pitfalls and the section that collects
// it. Rule files are type-checked against it; `roofline explain` and docs/metrics.md (analyzer/report/reference.hpp) read it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace roofline {

struct metric_entry {
    std::string id;    // exactly as the raw page's header writes it
    std::string unit;  // base unit ("" for counts and ratios)
    std::string meaning;
    std::string pitfall;       // "" when none is known
    std::string collected_by;  // the Nsight Compute section(s)
};

// Metrics the engine reads by prefix, because which exist differs by GPU (one per tensor instruction).
struct metric_family {
    std::string prefix;
    std::string suffix;  // "" for any ending
    std::string example;
    std::string meaning;
    std::string collected_by;
    std::vector<std::string> gh100_members;  // the family's metrics on GH100 (H100, H200), for `roofline metrics`
};

// In id order.
const std::vector<metric_entry>& metric_catalogue();
const metric_entry* find_metric(const std::string& id);
const std::vector<metric_family>& metric_families();
// Whether any stage reads the metric: it is in the catalogue or in one of its families. The kernel
// table keeps only these (a --set full capture has some 2,200 metrics; the engine reads ~160).
bool engine_reads(std::string_view id);
// Catalogue ids a GH100 (H100, H200) does not have (other chips' tensor paths): ncu refuses them in --metrics.
const std::vector<std::string>& absent_on_gh100();
// The stock ncu sections that define the catalogue's derived__ metrics, which --metrics cannot name.
const std::vector<std::string>& gh100_derived_sections();

}  // namespace roofline
