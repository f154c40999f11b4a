// `roofline timeline`'s outputs: markdown (also the HTML page's body), terminal text and JSON
// (docs/timeline.schema.json), written from the model's and the findings' values. Every sentence
// of the timeline lives here.
#pragma once

#include "analyzer/timeline/triage.hpp"
#include "analyzer/timeline/timeline_findings.hpp"
#include "analyzer/timeline/timeline_model.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline::timeline {

struct timeline_report {
    const timeline_model* model = nullptr;
    std::vector<timeline_finding> findings;
    // The top kernels by GPU time over every device, as `triage` ranks an Nsight Systems summary, with
    // the ncu commands that profile them.
    std::unique_ptr<nsys_kernsum> kernel_summary;  // (triage_plan points into it)
    std::optional<triage_plan> triage;
};

std::string timeline_markdown(const timeline_report& report);
// One HTML page: the markdown with the SVG timeline (timeline_svg.hpp) under the title.
std::string timeline_html(const timeline_report& report);
// `width`: the columns to fit (COLUMNS or the terminal's); 0: no limit.
std::string timeline_terminal(const timeline_report& report, std::size_t width = 0);
std::string timeline_json(const timeline_report& report);

// The cause's meaning in a few words, and its fix (the report's and `roofline explain`'s text).
std::string cause_meaning(gap_cause cause);
std::string finding_fix(const timeline_finding& finding);

}  // namespace roofline::timeline
