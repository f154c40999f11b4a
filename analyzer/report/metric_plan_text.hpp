// The metric plan (analyzer/diagnose/metric_plan.hpp) as `roofline metrics` writes it: one line for
// `ncu --metrics`, an ncu section file, or a markdown table of what needs each metric.
#pragma once

#include "analyzer/diagnose/metric_plan.hpp"

#include <string>

namespace roofline {

// The section's Identifier: `ncu --section-folder DIR --section roofline`.
inline constexpr const char* plan_section_id = "roofline";

// One comma-separated line and a newline.
std::string metric_plan_list(const rules::metric_plan& plan);
// An ncu section file (protocol buffer text format: Identifier, DisplayName, Description,
// Header { Metrics { Label Name } }), with comments saying which metrics are optional and why.
std::string metric_plan_section(const rules::metric_plan& plan);
// Every metric with required/optional and the rule nodes that read it; then what the plan leaves out.
std::string metric_plan_markdown(const rules::metric_plan& plan);

}  // namespace roofline
