// The metric plans (analyzer/diagnose/metric_plan.hpp) as `roofline metrics` writes them: one line for
// `ncu --metrics` per chip, one ncu section file for every chip, or a markdown table of what needs each
// metric.
#pragma once

#include "analyzer/diagnose/metric_plan.hpp"

#include <string>
#include <vector>

namespace roofline {

// The section's Identifier: `ncu --section-folder DIR --section roofline`.
inline constexpr const char* plan_section_id = "roofline";

// One comma-separated line and a newline; with several plans, each line after a `# chip` comment.
std::string metric_plan_list(const std::vector<diagnose::metric_plan>& plans);
// One ncu section file (protocol buffer text format) for the chips of `plans`: every name carries a
// Filter with the compute capabilities it is collected on (ncu's own MinArch / MaxArch), so one file
// collects each chip's own names; the derived__ metrics the plans read from SASS-level source metrics
// are defined in the file itself (SourceMetrics and MetricDefinitions, as ncu's SourceCounters does),
// since --section-folder hides ncu's stock sections.
std::string metric_plan_section(const std::vector<diagnose::metric_plan>& plans);
// Every metric with required/optional and the rule nodes that read it, a column of names per chip;
// then what each chip cannot count.
std::string metric_plan_markdown(const std::vector<diagnose::metric_plan>& plans);

}  // namespace roofline
