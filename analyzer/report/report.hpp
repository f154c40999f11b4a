// Renders an analysis. Both renderers are pure: same analysis, same bytes.
#pragma once

#include "analyzer/pipeline/analysis.hpp"

#include <string>
#include <vector>

namespace roofline {

// chart: the SVG file to link from the report (written beside it by the caller), "" for none.
std::string render_markdown(const analysis& a, const std::string& chart = "");
// The terminal view: top kernels and opportunities in a fixed-width table; ANSI colour when `colour`.
std::string render_terminal(const analysis& a, bool colour, std::size_t top = 15);
// The JSON schema is documented in docs/report-json.md.
std::string render_json(const analysis& a);

// What the summary's "achieved" column shows: the binding resource's rate.
std::string achieved_text(const kernel_result& k);
// One finding with an estimate, for the workload's ranked list of what to fix first.
struct opportunity {
    std::size_t kernel_rank;  // index into analysis::kernels (0 = longest)
    const rules::finding* finding;
};
// Every estimated finding over the workload, by time saved (most first); ties keep kernel order.
std::vector<opportunity> opportunities(const analysis& a);

// The name up to its parameter list: "transpose_naive(const float *, ...)" -> "transpose_naive".
std::string short_name(const std::string& name);
// short_name without its namespaces, for narrow places (the terminal view, the chart):
// "unnamed>::transpose_naive" -> "transpose_naive".
std::string plain_name(const std::string& name);
// A value read by a rule: true/false for booleans, the number otherwise, `absent` when missing.
std::string named_value_text(const rules::evidence_value& x, const char* absent = "missing");
// The summary's "% of roof": the binding resource's share of its peak, naming that resource when it
// is not the limiter (a DRAM-limited copy whose L2 runs busier: "91.8% l2").
std::string roof_pct_text(const kernel_result& k);
// "memory / dram", "latency", ...
std::string verdict_text(const classification& c);

}  // namespace roofline
