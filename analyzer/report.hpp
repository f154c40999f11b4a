// Renders an analysis. Both renderers are pure: same analysis, same bytes.
#pragma once

#include "analysis.hpp"

#include <string>

namespace roofline {

std::string render_markdown(const analysis& a);
// The JSON schema is documented in docs/report-json.md.
std::string render_json(const analysis& a);

// What the summary's "achieved" column shows: the binding resource's rate.
std::string achieved_text(const kernel_result& k);
// "memory / dram", "latency", ...
std::string verdict_text(const classification& c);

}  // namespace roofline
