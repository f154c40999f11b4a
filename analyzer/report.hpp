// Renders an analysis. Both renderers are pure: same analysis, same bytes.
#pragma once

#include "analysis.hpp"

#include <string>

namespace roofline {

// chart: the SVG file to link from the report (written beside it by the caller), "" for none.
std::string render_markdown(const analysis& a, const std::string& chart = "");
// The JSON schema is documented in docs/report-json.md.
std::string render_json(const analysis& a);

// What the summary's "achieved" column shows: the binding resource's rate.
std::string achieved_text(const kernel_result& k);
// The name up to its parameter list: "transpose_naive(const float *, ...)" -> "transpose_naive".
std::string short_name(const std::string& name);
// "memory / dram", "latency", ...
std::string verdict_text(const classification& c);

}  // namespace roofline
